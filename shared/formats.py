"""Grids as text for language models, task prompts, and strict parsing of answers.

A grid is one digit per cell with "\\n" between rows: Qwen-style tokenizers split every digit
into its own token and so does the `tiny` tokenizer, so a 30x30 grid costs 929 tokens.
(Llama-3 style tokenizers group up to 3 digits; use a Qwen-family model with this format.)
Two prompt styles share the same grid text: "chat" (messages rendered by the tokenizer's
chat template) and "plain" (compact text for small models trained from scratch).
"""

from __future__ import annotations

import re

import numpy as np

from shared.grids import Grid
from shared.tasks import MAX_SIDE, Task

PROMPT_STYLES = ("chat", "plain")

SYSTEM_PROMPT = (
    "You solve ARC puzzles. Each puzzle shows example pairs of an input grid and an output grid; "
    "one hidden rule turns every input into its output. Grids are written one row per line, "
    "one digit (a colour 0-9) per cell. Find the rule and apply it to the test input. "
    "Reply with the output grid only: one line per row, one digit per cell, no other text."
)

# Markers a model (or a decode without skip_special_tokens) may leave after the grid. Only a
# trailing run of these is tolerated; one followed by more text makes the answer ambiguous.
END_MARKERS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<end_of_turn>", "</s>", "<eos>")

_GRID_TEXT = re.compile(r"[0-9]+(?:\n[0-9]+)*", re.ASCII)


def grid_to_text(grid: Grid) -> str:
    """Rows of digits joined by newlines, e.g. [[1, 2], [3, 4]] -> "12\\n34"."""
    g = np.asarray(grid)
    return "\n".join("".join(str(int(c)) for c in row) for row in g)


def format_answer(grid: Grid) -> str:
    """The text a model should produce for a grid (without any end marker)."""
    return grid_to_text(grid)


def parse_grid(text: str) -> np.ndarray | None:
    """The grid written in `text`, or None when it is not exactly one valid grid.

    Tolerates leading newlines, trailing whitespace and trailing end markers, nothing else:
    ragged rows, blank lines, spaces or other characters between cells, an empty answer, more
    than 30 rows or columns all give None.
    """
    if not isinstance(text, str):
        return None
    s = text.replace("\r\n", "\n").lstrip("\n")
    stripped = True
    while stripped:
        s = s.rstrip()
        stripped = False
        for marker in END_MARKERS:
            if s.endswith(marker):
                s = s[: -len(marker)]
                stripped = True
    if not _GRID_TEXT.fullmatch(s):
        return None
    rows = s.split("\n")
    width = len(rows[0])
    if len(rows) > MAX_SIDE or width > MAX_SIDE or any(len(r) != width for r in rows):
        return None
    return np.array([[ord(c) - 48 for c in r] for r in rows], dtype=np.uint8)


def _check_index(task: Task, test_index: int) -> None:
    if not 0 <= test_index < len(task.test):
        raise IndexError(f"task {task.id} has {len(task.test)} test inputs, asked for {test_index}")


def format_task_prompt(task: Task, test_index: int) -> str:
    """The plain prompt: every demo, then the test input, ending where the answer begins."""
    _check_index(task, test_index)
    blocks = [f"input:\n{grid_to_text(p.input)}\noutput:\n{grid_to_text(p.output)}\n" for p in task.train]
    blocks.append(f"input:\n{grid_to_text(task.test[test_index].input)}\noutput:\n")
    return "\n".join(blocks)


def chat_messages(task: Task, test_index: int, answer: Grid | None = None) -> list[dict[str, str]]:
    """System (the rules), user (demos + test input) and, for training, the assistant's answer."""
    _check_index(task, test_index)
    parts = [f"Example {i + 1}\ninput:\n{grid_to_text(p.input)}\noutput:\n{grid_to_text(p.output)}"
             for i, p in enumerate(task.train)]
    parts.append(f"Test\ninput:\n{grid_to_text(task.test[test_index].input)}\noutput:")
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n\n".join(parts)}]
    if answer is not None:
        messages.append({"role": "assistant", "content": format_answer(answer)})
    return messages


def render_chat(tokenizer, messages: list[dict[str, str]], generation_prompt: bool) -> str:
    # enable_thinking=False turns off Qwen3's reasoning preamble; other templates ignore it
    return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=generation_prompt,
                                         enable_thinking=False)


def build_prompt(tokenizer, task: Task, test_index: int, style: str) -> str:
    """The text to feed the model for test input `test_index`, in prompt style "chat" or "plain".

    Tokenize it with add_special_tokens=False: a chat template already holds its specials.
    """
    if style == "plain":
        return format_task_prompt(task, test_index)
    if style == "chat":
        if not getattr(tokenizer, "chat_template", None):
            raise ValueError("prompt style 'chat' needs a tokenizer with a chat template")
        return render_chat(tokenizer, chat_messages(task, test_index), True)
    raise ValueError(f"unknown prompt style {style!r}; choose from {', '.join(PROMPT_STYLES)}")


def format_example(tokenizer, task: Task, test_index: int, style: str) -> tuple[str, str]:
    """(prompt, completion) for training on a test pair with a known output.

    The completion is the answer plus the end marker the model must learn to stop on: the
    eos token for "plain", whatever the chat template closes an assistant turn with for "chat".
    """
    answer = task.test[test_index].output
    if answer is None:
        raise ValueError(f"task {task.id} test input {test_index} has no output to train on")
    prompt = build_prompt(tokenizer, task, test_index, style)
    if style == "chat":
        full = render_chat(tokenizer, chat_messages(task, test_index, answer), False)
        if full.startswith(prompt):
            return prompt, full[len(prompt):]
    # plain, or a template that renders past turns differently from the generation prompt
    return prompt, format_answer(answer) + (tokenizer.eos_token or "")
