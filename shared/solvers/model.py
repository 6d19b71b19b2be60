"""Language-model transduction: show a model the demos, read its answer grid back.

Zero-shot with two attempts per test input: the task as given, then the task transposed
(the answer is mapped back with the inverse transform). Greedy decoding, strict parsing: an
answer that does not parse gives no candidate, and the trace keeps the raw text, a parse
flag and the source of every attempt so reports can tell "unparseable" from "wrong grid".
"""

from __future__ import annotations

import time

from shared.augment import Augmentation
from shared.formats import build_prompt, parse_grid
from shared.grids import Grid, same
from shared.solvers import MAX_ATTEMPTS, Prediction
from shared.tasks import Task

# first the task as given, then transposed: a cheap second view that often changes the answer
ATTEMPTS = (Augmentation(), Augmentation(transform=4))
TEXT_LIMIT = 2000  # characters of raw output kept per attempt in the trace

# one loaded model per (name, device, dtype, 4-bit) in this process: bench workers build a
# solver per task set, and loading a 7B model twice would double memory
_LOADED: dict[tuple, tuple] = {}


def _load_once(name: str, device: str | None, dtype, load_in_4bit: bool):
    from shared.models import load_model

    key = (name, device, str(dtype), load_in_4bit)
    if key not in _LOADED:
        _LOADED[key] = load_model(name, device=device, dtype=dtype, load_in_4bit=load_in_4bit)
    return _LOADED[key]


class ModelSolver:
    """solve(task) -> up to 2 candidates per test input from a causal LM.

    model: "tiny", a hub id or a local folder. max_new_tokens: 930 covers a 30x30 grid and
    its end marker. prompt_style: "chat" / "plain", or None to ask the model (see
    `shared.models.prompt_style`). max_prompt_tokens: skip prompts longer than this (default:
    the model's context less room for the answer).
    """

    name = "model"

    def __init__(self, model: str = "tiny", max_new_tokens: int = 1024, device: str | None = None,
                 dtype=None, load_in_4bit: bool = False, prompt_style: str | None = None,
                 max_prompt_tokens: int | None = None):
        import torch

        from shared.models import context_length, pick_device
        from shared.models import prompt_style as model_prompt_style

        if isinstance(dtype, str):
            dtype = getattr(torch, dtype)  # "bfloat16" from a command line or a parameters cell
        self.model_name = str(model)
        self.max_new_tokens = int(max_new_tokens)
        self.device = device or pick_device()
        self.model, self.tokenizer = _load_once(self.model_name, self.device, dtype, load_in_4bit)
        self.prompt_style = prompt_style or model_prompt_style(self.model, self.tokenizer)
        self.context = context_length(self.model)
        default_limit = max(1, self.context - self.max_new_tokens)
        # never above context - 1: the answer needs at least one position
        self.max_prompt_tokens = min(max_prompt_tokens or default_limit, self.context - 1)

    def _attempt(self, view: Task, test_index: int, aug: Augmentation, time_left: float | None):
        """One generation; returns (grid in the original frame or None, trace entry)."""
        from shared.models import count_tokens, greedy_generate

        prompt = build_prompt(self.tokenizer, view, test_index, self.prompt_style)
        n_prompt = count_tokens(self.tokenizer, prompt)
        entry = {"source": aug.id, "prompt_tokens": n_prompt, "parsed": False, "text": "", "skipped": None}
        if n_prompt > self.max_prompt_tokens:
            entry["skipped"] = f"prompt of {n_prompt} tokens is over the limit of {self.max_prompt_tokens}"
            return None, entry
        if time_left is not None and time_left <= 0:
            entry["skipped"] = "budget spent"
            return None, entry
        new_tokens = min(self.max_new_tokens, self.context - n_prompt)
        t0 = time.monotonic()
        text = greedy_generate(self.model, self.tokenizer, prompt, new_tokens, max_time=time_left)
        grid = parse_grid(text)
        entry.update(text=text[:TEXT_LIMIT], parsed=grid is not None, seconds=round(time.monotonic() - t0, 3))
        return (None if grid is None else aug.invert_grid(grid)), entry

    def solve(self, task: Task, budget_s: float | None = None) -> Prediction:
        """Two greedy attempts per test input; budget_s (None: no limit) is shared out evenly."""
        start = time.monotonic()
        views = [aug.apply(task) for aug in ATTEMPTS]
        attempts, sources, parsed, generations = [], [], [], []
        n_left = len(task.test) * len(ATTEMPTS)
        for i in range(len(task.test)):
            found: list[tuple[Grid, list[str]]] = []
            entries = []
            for aug, view in zip(ATTEMPTS, views, strict=True):
                time_left = None
                if budget_s is not None:
                    # an equal share of what is left, so one slow attempt cannot starve the rest
                    time_left = (budget_s - (time.monotonic() - start)) / n_left
                n_left -= 1
                grid, entry = self._attempt(view, i, aug, time_left)
                entries.append(entry)
                if grid is None:
                    continue
                match = next((f for f in found if same(f[0], grid)), None)
                if match is None:
                    found.append((grid, [aug.id]))
                else:
                    match[1].append(aug.id)
            attempts.append([g for g, _ in found[:MAX_ATTEMPTS]])
            sources.append([s for _, s in found[:MAX_ATTEMPTS]])
            parsed.append([e["parsed"] for e in entries])
            generations.append(entries)
        trace = {"model": self.model_name, "prompt_style": self.prompt_style, "max_new_tokens": self.max_new_tokens,
                 "parsed": parsed, "sources": sources, "generations": generations,
                 "seconds": round(time.monotonic() - start, 3)}
        return Prediction(attempts, trace)
