"""Grid text, prompts and the strict answer parser."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from shared.formats import (
    SYSTEM_PROMPT,
    build_prompt,
    chat_messages,
    format_answer,
    format_example,
    format_task_prompt,
    grid_to_text,
    parse_grid,
)
from shared.tasks import Pair, Task

grids = st.tuples(st.integers(1, 30), st.integers(1, 30)).flatmap(
    lambda shape: arrays(np.uint8, shape, elements=st.integers(0, 9)))


def make_task() -> Task:
    g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731
    train = (Pair(g([[1, 2], [3, 4]]), g([[1, 3], [2, 4]])), Pair(g([[5, 6, 7]]), g([[5], [6], [7]])))
    test = (Pair(g([[8, 9], [0, 1]]), g([[8, 0], [9, 1]])), Pair(g([[2, 3, 4]]), g([[2], [3], [4]])))
    return Task("hand", train, test)


class FakeChatTokenizer:
    """Renders messages the way a ChatML template does; enough for format_example."""

    chat_template = "chatml"
    eos_token = "<|endoftext|>"

    def apply_chat_template(self, messages, tokenize, add_generation_prompt, **kwargs):
        text = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
        return text + ("<|im_start|>assistant\n" if add_generation_prompt else "")


@settings(max_examples=200, deadline=None)
@given(grids)
def test_text_round_trip(grid):
    back = parse_grid(format_answer(grid))
    assert back is not None and back.dtype == np.uint8
    assert np.array_equal(back, grid)


def test_grid_text_is_digits_and_newlines():
    assert grid_to_text(np.array([[1, 2], [3, 4]], dtype=np.uint8)) == "12\n34"


@pytest.mark.parametrize("text", ["12\n34<|im_end|>", "12\n34\n", "12\n34  \n<|endoftext|>\n", "\n12\n34",
                                  "12\r\n34\r\n", "12\n34<|im_end|><|endoftext|>"])
def test_parse_tolerates_trailing_markers_and_whitespace(text):
    assert np.array_equal(parse_grid(text), [[1, 2], [3, 4]])


@pytest.mark.parametrize("text", [
    "", "   ", "\n", "<|im_end|>",       # empty
    "12\n345",                          # ragged
    "12\n\n34",                         # blank line inside
    "1 2\n3 4", "12\n3x", "[[1,2]]",    # stray characters
    "12\n34<|im_end|>56",               # text after an end marker
    " 12\n34", "12\n 34",               # leading spaces
    "١٢\n٣٤",                           # non-ASCII digits
    "1" * 31, "\n".join(["1"] * 31),    # over 30 columns / rows
])
def test_parse_rejects(text):
    assert parse_grid(text) is None


def test_parse_rejects_non_text():
    assert parse_grid(None) is None


def test_parse_accepts_30x30():
    grid = parse_grid("\n".join(["9" * 30] * 30))
    assert grid.shape == (30, 30) and int(grid.max()) == 9


def test_plain_prompt_holds_demos_and_ends_at_the_answer():
    task = make_task()
    prompt = format_task_prompt(task, 1)
    assert prompt.endswith("input:\n234\noutput:\n")
    assert "input:\n12\n34\noutput:\n13\n24\n" in prompt and "5\n6\n7" in prompt
    assert "80\n91" not in prompt  # another test input's answer never leaks in
    with pytest.raises(IndexError):
        format_task_prompt(task, 2)


def test_chat_messages_roles_and_answer():
    task = make_task()
    msgs = chat_messages(task, 0)
    assert [m["role"] for m in msgs] == ["system", "user"] and msgs[0]["content"] == SYSTEM_PROMPT
    assert "Example 2" in msgs[1]["content"] and msgs[1]["content"].endswith("input:\n89\n01\noutput:")
    with_answer = chat_messages(task, 0, answer=task.test[0].output)
    assert with_answer[-1] == {"role": "assistant", "content": "80\n91"}


def test_format_example_completions():
    task, tok = make_task(), FakeChatTokenizer()
    prompt, completion = format_example(tok, task, 0, "chat")
    assert prompt.endswith("<|im_start|>assistant\n") and completion == "80\n91<|im_end|>\n"
    prompt, completion = format_example(tok, task, 1, "plain")
    assert prompt == format_task_prompt(task, 1) and completion == "2\n3\n4<|endoftext|>"
    assert np.array_equal(parse_grid(completion), task.test[1].output)


def test_build_prompt_refuses_unknown_style_and_missing_template():
    with pytest.raises(ValueError, match="unknown prompt style"):
        build_prompt(FakeChatTokenizer(), make_task(), 0, "xml")
    with pytest.raises(ValueError, match="chat template"):
        build_prompt(object(), make_task(), 0, "chat")
