"""Benchmark adapters: one interface through which the training and evaluation stages run any dataset.

An adapter loads a split as `Item`s, builds a prompt and a training target for an item, parses a
model's completion into a prediction and scores it under one or more named metrics, and may
offer augmented views for training. `get(name)` returns one: "arc", "gsm8k" or "humaneval".
The stages (`shared.benchmarks.stages`) take an adapter and never look inside an item.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

# name -> (module, class); imported when asked for, so loading one adapter never pulls another's data
REGISTRY = {
    "arc": ("shared.benchmarks.arc", "ArcBenchmark"),
    "gsm8k": ("shared.benchmarks.gsm8k", "Gsm8kBenchmark"),
    "humaneval": ("shared.benchmarks.humaneval", "HumanEvalBenchmark"),
}


@dataclass(frozen=True)
class Item:
    """One problem: an id, the benchmark's own record (only its adapter reads it), and a group.

    Items of one group are scored together where the benchmark says so (an ARC task counts only
    when all its test inputs are right); a group of one is the usual case.
    """

    id: str
    record: Any
    group: str = ""

    @property
    def group_id(self) -> str:
        return self.group or self.id


class Benchmark(ABC):
    """The adapter interface. Subclasses set `name`, `metrics` (the first is the headline) and `splits`."""

    name: str = ""
    metrics: tuple[str, ...] = ("correct",)
    splits: tuple[str, ...] = ("train", "test")
    max_new_tokens: int = 256  # enough for one answer; a profile may cap it lower
    loaded_from: str = ""  # where the last `load` read its items, in words

    @abstractmethod
    def load(self, split: str, limit: int | None = None) -> list[Item]:
        """The items of `split` (one of `splits`), the first `limit` of them when given."""

    @abstractmethod
    def prompt(self, tokenizer, item: Item, style: str) -> str:
        """The text the model continues, in prompt style "plain" or "chat" (`shared.models.prompt_style`)."""

    @abstractmethod
    def target(self, tokenizer, item: Item, style: str) -> str:
        """The completion to train on after `prompt`, ending with the marker the model must learn to stop on."""

    @abstractmethod
    def parse(self, item: Item, text: str) -> Any:
        """The prediction in a completion (None when it holds none)."""

    @abstractmethod
    def score(self, item: Item, prediction: Any) -> dict[str, bool]:
        """Whether `prediction` is right, under each of `metrics`."""

    def score_many(self, items: list[Item], predictions: list) -> list[dict[str, bool]]:
        """`score` over many (item, prediction) pairs; adapters that execute code batch it."""
        return [self.score(item, p) for item, p in zip(items, predictions, strict=True)]

    def augment(self, item: Item, n: int, seed: int = 0) -> list[Item]:
        """Up to `n` views of `item` with the same answer, the item itself first (default: no augmentation)."""
        return [item]

    def training_views(self, items: list[Item], n_augment: int = 1, seed: int = 0) -> list[Item]:
        """Every item to train on, augmented; an adapter may expand items further (ARC: leave-one-out)."""
        return [view for i, item in enumerate(items) for view in self.augment(item, n_augment, seed + i)]

    def show(self, item: Item, prediction: Any) -> str:
        """A prediction as short text for tables."""
        return "" if prediction is None else str(prediction)

    def question(self, item: Item) -> str:
        """The problem as a person reads it."""
        return str(item.record)

    def reference(self, item: Item) -> str:
        """The expected answer as a person reads it."""
        return ""


def names() -> list[str]:
    return list(REGISTRY)


def get(name: str, **options) -> Benchmark:
    """The adapter called `name`; options go to its constructor.

    Every adapter takes source="auto" or "offline" (never the network); gsm8k also takes "hub".
    """
    if name not in REGISTRY:
        raise ValueError(f"unknown benchmark {name!r}; choose from {', '.join(REGISTRY)}")
    module, cls = REGISTRY[name]
    return getattr(importlib.import_module(module), cls)(**options)


def chat_prompt(tokenizer, style: str, system: str, user: str, plain: str) -> str:
    """`plain` for the plain style; for chat, the system and user messages through the chat template."""
    from shared.formats import PROMPT_STYLES, render_chat

    if style == "plain":
        return plain
    if style != "chat":
        raise ValueError(f"unknown prompt style {style!r}; choose from {', '.join(PROMPT_STYLES)}")
    if not getattr(tokenizer, "chat_template", None):
        raise ValueError("prompt style 'chat' needs a tokenizer with a chat template")
    return render_chat(tokenizer, [{"role": "system", "content": system}, {"role": "user", "content": user}], True)


def chat_target(tokenizer, style: str, system: str, user: str, plain: str, answer: str) -> str:
    """What follows `chat_prompt(...)` when the model gives `answer`, with its end marker.

    Plain: the answer and the eos token. Chat: whatever the template writes after the generation
    prompt for an assistant turn (the answer and the turn's closing token), as in `formats.format_example`.
    """
    from shared.formats import render_chat

    prompt = chat_prompt(tokenizer, style, system, user, plain)
    if style == "chat":
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user},
                    {"role": "assistant", "content": answer}]
        full = render_chat(tokenizer, messages, False)
        if full.startswith(prompt):
            return full[len(prompt):]
    return answer + (tokenizer.eos_token or "")


def end_marker(tokenizer, style: str) -> str:
    """What closes an answer in a training target: eos (plain) or the chat template's end of an assistant turn."""
    return chat_target(tokenizer, style, "", "", "", "")
