"""Language-model transduction: show a model the demos, read its answer grid back.

Each test input is answered under several views of the task (augmentations: dihedral x
colours x demo order); every answer is mapped back by the inverse view and pooled. Candidates
are ranked by votes and by a product of experts: the candidate's log-likelihood under every
view's prompt, summed (the ARChitects' recipe). The default is the zero-shot pair of views
(as given, transposed). Generation is batched greedy decoding, or an optional depth-first
search keeping every completion above a probability threshold. The trace keeps raw texts,
parse flags and the views behind every candidate, so reports can tell "unparseable" apart.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from shared.augment import Augmentation, random_augmentations
from shared.formats import build_prompt, format_example, parse_grid
from shared.grids import Grid, same
from shared.solvers import MAX_ATTEMPTS, Prediction
from shared.tasks import Pair, Task

# the zero-shot pair: the task as given, then transposed (a cheap second view)
ATTEMPTS = (Augmentation(), Augmentation(transform=4))
TEXT_LIMIT = 2000  # characters of raw output kept per generation in the trace
RANKINGS = ("poe", "votes")

# one loaded model per (name, device, dtype, 4-bit) in this process: loading a 7B model twice
# would double memory
_LOADED: dict[tuple, tuple] = {}


def _load_once(name: str, device: str | None, dtype, load_in_4bit: bool):
    from pathlib import Path

    from shared.models import load_model

    folder = Path(name)
    # a folder rewritten in this process (a notebook retrains and saves again) must load anew
    stamp = max((f.stat().st_mtime for f in folder.iterdir()), default=0.0) if folder.is_dir() else 0.0
    key = (name, device, str(dtype), load_in_4bit, stamp)
    if key not in _LOADED:
        _LOADED[key] = load_model(name, device=device, dtype=dtype, load_in_4bit=load_in_4bit)
    return _LOADED[key]


@dataclass
class Candidate:
    grid: Grid
    sources: list[str] = field(default_factory=list)  # ids of the views that produced it
    poe: float | None = None  # sum over views of log p(candidate | view prompt)

    @property
    def votes(self) -> int:
        return len(self.sources)


def rank_candidates(cands: list[Candidate], ranking: str = "poe") -> list[Candidate]:
    """Best first. "poe": highest summed log-likelihood, votes breaking ties; "votes": most
    views agreeing, the product of experts breaking ties. Unscored candidates go last."""
    if ranking not in RANKINGS:
        raise ValueError(f"unknown ranking {ranking!r}; choose from {', '.join(RANKINGS)}")
    low = float("-inf")
    if ranking == "poe":
        key = lambda c: (c.poe if c.poe is not None else low, c.votes)  # noqa: E731
    else:
        key = lambda c: (c.votes, c.poe if c.poe is not None else low)  # noqa: E731
    return sorted(cands, key=key, reverse=True)


def pool(answers: list[tuple[Grid | None, str]]) -> list[Candidate]:
    """Distinct grids (in the task's own frame) with the views that produced each."""
    cands: list[Candidate] = []
    for grid, source in answers:
        if grid is None:
            continue
        match = next((c for c in cands if same(c.grid, grid)), None)
        if match is None:
            cands.append(Candidate(grid, [source]))
        else:
            match.sources.append(source)
    return cands


class ModelSolver:
    """solve(task) -> up to 2 candidates per test input from a causal LM.

    model: "tiny", a hub id or a local folder; or `loaded=(model, tokenizer)` to use one in
    memory (a freshly trained model). n_views: 2 = as given + transposed; more draws random
    augmentations (seeded). ranking: "poe" or "votes"; PoE scoring runs when n_views > 2 or
    there are rival candidates. dfs_min_prob: depth-first search instead of greedy decoding.
    max_new_tokens: 930 covers a 30x30 grid and its end marker.
    """

    name = "model"

    def __init__(self, model: str = "tiny", max_new_tokens: int = 1024, device: str | None = None,
                 dtype=None, load_in_4bit: bool = False, prompt_style: str | None = None,
                 max_prompt_tokens: int | None = None, n_views: int = 2, ranking: str = "poe",
                 dfs_min_prob: float | None = None, batch_size: int = 8, seed: int = 0, loaded: tuple | None = None):
        import torch

        from shared.models import context_length, pick_device
        from shared.models import prompt_style as model_prompt_style

        if ranking not in RANKINGS:
            raise ValueError(f"unknown ranking {ranking!r}; choose from {', '.join(RANKINGS)}")
        if isinstance(dtype, str):
            dtype = getattr(torch, dtype)  # "bfloat16" from a command line or a parameters cell
        self.model_name = str(model)
        self.max_new_tokens = int(max_new_tokens)
        if loaded is not None:
            self.model, self.tokenizer = loaded
            self.device = str(self.model.device)
        else:
            self.device = device or pick_device()
            self.model, self.tokenizer = _load_once(self.model_name, self.device, dtype, load_in_4bit)
        self.prompt_style = prompt_style or model_prompt_style(self.model, self.tokenizer)
        self.context = context_length(self.model)
        self.max_prompt_tokens = max_prompt_tokens or max(1, self.context - self.max_new_tokens)
        self.n_views, self.ranking, self.dfs_min_prob = int(n_views), ranking, dfs_min_prob
        self.batch_size, self.seed = int(batch_size), int(seed)

    def views(self, task: Task) -> list[Augmentation]:
        if self.n_views <= 2:
            return list(ATTEMPTS[: max(1, self.n_views)])
        return random_augmentations(task, self.n_views, seed=self.seed)

    # -- the model calls (tests replace these) --------------------------------------------

    def _generate(self, prompts: list[str], max_new_tokens: int, max_time: float | None) -> list[list[str]]:
        """Answer texts per prompt: one greedy text, or every DFS completion over the threshold."""
        from shared.decoding import dfs_sample, generate_batch

        if self.dfs_min_prob is None:
            texts = generate_batch(self.model, self.tokenizer, prompts, max_new_tokens, max_time, self.batch_size)
            return [[t] for t in texts]
        share = max_time / len(prompts) if max_time else None
        return [[t for t, _ in dfs_sample(self.model, self.tokenizer, p, max_new_tokens, self.dfs_min_prob,
                                          max_time=share)] for p in prompts]

    def _score(self, pairs: list[tuple[str, str]]) -> list[float]:
        from shared.decoding import completion_logprobs

        return completion_logprobs(self.model, self.tokenizer, pairs, self.batch_size)

    # -- solving ------------------------------------------------------------------------

    def _answer(self, task: Task, i: int, views: list[Augmentation], deadline: float | None):
        """Pooled, ranked candidates for test input i, with the trace entries."""
        from shared.models import count_tokens

        entries, prompts, runnable = [], [], []
        for aug in views:
            prompt = build_prompt(self.tokenizer, aug.apply(task), i, self.prompt_style)
            n = count_tokens(self.tokenizer, prompt)
            entry = {"source": aug.id, "prompt_tokens": n, "parsed": False, "text": "", "skipped": None}
            if n > self.max_prompt_tokens:
                entry["skipped"] = f"prompt of {n} tokens is over the limit of {self.max_prompt_tokens}"
            elif deadline is not None and time.monotonic() >= deadline:
                entry["skipped"] = "budget spent"
            else:
                prompts.append(prompt)
                runnable.append(len(entries))
            entries.append(entry)
        answers: list[tuple[Grid | None, str]] = []
        if prompts:
            longest = max(entries[k]["prompt_tokens"] for k in runnable)
            new_tokens = max(1, min(self.max_new_tokens, self.context - longest))
            t0 = time.monotonic()
            left = None if deadline is None else max(0.01, deadline - t0)
            for k, texts in zip(runnable, self._generate(prompts, new_tokens, left), strict=True):
                aug, entry = views[k], entries[k]
                grids = [parse_grid(t) for t in texts]
                entry.update(text="\n---\n".join(texts)[:TEXT_LIMIT], parsed=any(g is not None for g in grids),
                             seconds=round((time.monotonic() - t0) / len(prompts), 3))
                answers += [(aug.invert_grid(g), aug.id) for g in grids if g is not None]
        cands = pool(answers)
        in_time = deadline is None or time.monotonic() < deadline  # past it, votes alone rank
        if in_time and (len(cands) > 1 or (cands and self.n_views > 2)):
            self._product_of_experts(task, i, cands, [v for k, v in enumerate(views) if entries[k]["skipped"] is None])
        return rank_candidates(cands, self.ranking), entries

    def _product_of_experts(self, task: Task, i: int, cands: list[Candidate], views: list[Augmentation]) -> None:
        """Score each candidate by its log-likelihood summed over every view's prompt."""
        pairs = []
        for c in cands:
            for aug in views:
                view = aug.apply(task)
                test = list(view.test)
                test[i] = Pair(test[i].input, aug.grid(c.grid))
                pairs.append(format_example(self.tokenizer, Task(view.id, view.train, tuple(test)), i,
                                            self.prompt_style))
        scores = self._score(pairs)
        for n, c in enumerate(cands):
            c.poe = round(sum(scores[n * len(views):(n + 1) * len(views)]), 4)

    def solve(self, task: Task, budget_s: float | None = None) -> Prediction:
        """Candidates for every test input; budget_s (None: no limit) bounds the whole call."""
        start = time.monotonic()
        deadline = None if budget_s is None else start + budget_s
        views = self.views(task)
        attempts, parsed, generations, candidates = [], [], [], []
        for i in range(len(task.test)):
            ranked, entries = self._answer(task, i, views, deadline)
            attempts.append([c.grid for c in ranked[:MAX_ATTEMPTS]])
            candidates.append([{"votes": c.votes, "poe": c.poe, "sources": c.sources} for c in ranked])
            parsed.append([e["parsed"] for e in entries])
            generations.append(entries)
        trace = {"model": self.model_name, "prompt_style": self.prompt_style, "max_new_tokens": self.max_new_tokens,
                 "views": [v.id for v in views], "ranking": self.ranking, "parsed": parsed,
                 "sources": [[c["sources"] for c in cs[:MAX_ATTEMPTS]] for cs in candidates],
                 "candidates": candidates, "generations": generations,
                 "seconds": round(time.monotonic() - start, 3)}
        return Prediction(attempts, trace)
