"""One forward pass over prompt + answer, kept for the views, and where each grid cell sits in it.

A `Capture` holds the token ids, hidden states of every layer (embeddings first), optional
attention maps and the logits. `cell_positions` maps each cell of a grid written in the text to
the token that holds it (by character offsets, so any tokenizer whose digits are tokens works).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch

from shared.formats import format_example, grid_to_text
from shared.grids import Grid
from shared.tasks import Pair, Task


@dataclass
class Capture:
    text: str
    ids: torch.Tensor  # [T]
    offsets: list[tuple[int, int]]  # character span of each token
    n_prompt: int  # tokens of the prompt; the answer follows
    hidden: list[torch.Tensor]  # per layer (embeddings first): [T, d]
    logits: torch.Tensor  # [T, V]
    attentions: list[torch.Tensor] | None = None  # per layer: [heads, T, T]

    @property
    def answer_ids(self) -> torch.Tensor:
        return self.ids[self.n_prompt:]

    def token_logprobs(self) -> torch.Tensor:
        """log p of each answer token given everything before it: [T - n_prompt]."""
        logp = torch.log_softmax(self.logits.float(), dim=-1)
        pos = torch.arange(self.n_prompt, len(self.ids))
        return logp[pos - 1, self.ids[pos]]


def style_of(model, tokenizer, style: str | None) -> str:
    from shared.models import prompt_style

    return style or prompt_style(model, tokenizer)


def with_answer(task: Task, test_index: int, answer: Grid | None) -> Task:
    """The task with test input `test_index` answered by `answer` (default: its own output)."""
    if answer is None:
        return task
    test = list(task.test)
    test[test_index] = Pair(test[test_index].input, np.asarray(answer, dtype=np.uint8))
    return Task(task.id, task.train, tuple(test), task.source)


def example_text(tokenizer, task: Task, test_index: int, style: str, answer: Grid | None = None) -> tuple[str, str]:
    """(prompt, completion) with `answer` (default: the expected output) as the completion."""
    return format_example(tokenizer, with_answer(task, test_index, answer), test_index, style)


@contextmanager
def eager_attention(model):
    """Attention weights are only returned by the eager kernel; switch to it for the block."""
    before = model.config._attn_implementation
    if before != "eager":
        model.set_attn_implementation("eager")
    try:
        yield model
    finally:
        if before != "eager":
            model.set_attn_implementation(before)


def capture(model, tokenizer, prompt: str, completion: str = "", attentions: bool = False) -> Capture:
    """Run `prompt + completion` once and keep hidden states, logits and (optionally) attentions."""
    text = prompt + completion
    n_prompt = len(tokenizer(prompt, add_special_tokens=False)["input_ids"])
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids = torch.tensor([enc["input_ids"]], device=model.device)
    with torch.inference_mode():
        if attentions:
            with eager_attention(model):
                out = model(input_ids=ids, output_hidden_states=True, output_attentions=True)
        else:
            out = model(input_ids=ids, output_hidden_states=True)
    attn = [a[0].float().cpu() for a in out.attentions] if attentions else None
    return Capture(text, ids[0].cpu(), [tuple(o) for o in enc["offset_mapping"]], n_prompt,
                   [h[0].float().cpu() for h in out.hidden_states], out.logits[0].float().cpu(), attn)


def cell_positions(cap: Capture, grid: Grid, start_char: int) -> np.ndarray:
    """Token index of each cell of `grid`, written (as grid_to_text) from character `start_char`."""
    owner = np.full(len(cap.text) + 1, -1)
    for i, (a, b) in enumerate(cap.offsets):
        owner[a:b] = i
    h, w = np.asarray(grid).shape
    chars = start_char + np.arange(h)[:, None] * (w + 1) + np.arange(w)[None, :]
    pos = owner[np.clip(chars, 0, len(cap.text))]
    if (pos < 0).any() or chars.max() >= len(cap.text):
        raise ValueError(f"grid of {h}x{w} from character {start_char} is not all in the text")
    return pos


def find_test_input(prompt: str, task: Task, test_index: int) -> int:
    """Character where the test input's grid starts in the prompt (its last occurrence)."""
    at = prompt.rfind(grid_to_text(task.test[test_index].input))
    if at < 0:
        raise ValueError(f"task {task.id}: test input {test_index} not found in the prompt")
    return at


def answer_start(cap: Capture) -> int:
    """Character where the answer starts: just after the prompt."""
    return cap.offsets[cap.n_prompt][0] if cap.n_prompt < len(cap.offsets) else len(cap.text)


def char_labels(tokenizer, ids) -> list[str]:
    """Printable labels of tokens for axes: newline as a return sign, specials shortened."""
    out = []
    for t in tokenizer.convert_ids_to_tokens([int(i) for i in ids]):
        t = t.replace("\n", "\u21b5").replace("Ċ", "\u21b5")
        out.append("eos" if t.startswith("<|") or t.startswith("</") else t)
    return out
