"""Combine solvers: each member answers in turn within its share of the budget, and the best
2 candidates per test input are taken round-robin in member order (member 1's best, member
2's best, member 1's second, ...), duplicates dropped. Put the solver whose answers are
verified against the demos (dsl, programs) first. The trace names the solver behind every
answer, so reports and the run browser can filter by it.
"""

from __future__ import annotations

import time

from shared.grids import Grid, same
from shared.solvers import MAX_ATTEMPTS, Prediction, make_solver
from shared.tasks import Task


class EnsembleSolver:
    """members: solver names in priority order, e.g. ["dsl", "model"]; options: name -> options
    for that member; shares: fraction of the budget each member may use (default equal; time a
    member leaves unused passes to the next)."""

    name = "ensemble"

    def __init__(self, members: list[str] | str = ("dsl",), options: dict[str, dict] | None = None,
                 shares: list[float] | None = None):
        names = members.split(",") if isinstance(members, str) else list(members)
        if not names:
            raise ValueError("an ensemble needs at least one member solver")
        options = options or {}
        unknown = set(options) - set(names)
        if unknown:
            raise ValueError(f"options given for solvers not in the ensemble: {', '.join(sorted(unknown))}")
        if shares is not None and len(shares) != len(names):
            raise ValueError(f"{len(shares)} budget shares for {len(names)} members")
        self.names = names
        self.members = [make_solver(n, **options.get(n, {})) for n in names]
        self.shares = list(shares) if shares is not None else [1.0] * len(names)

    def solve(self, task: Task, budget_s: float | None = None) -> Prediction:
        start = time.monotonic()
        results = []
        for k, (name, member) in enumerate(zip(self.names, self.members, strict=True)):
            t0 = time.monotonic()
            if budget_s is None:
                share = None
            else:
                left = budget_s - (t0 - start)
                share = max(0.0, left * self.shares[k] / sum(self.shares[k:]))
            pred = member.solve(task, share)
            results.append((name, pred, round(time.monotonic() - t0, 3)))
        attempts, by = [], []
        for i in range(len(task.test)):
            picked: list[tuple[Grid, str]] = []
            depth = max((len(p.attempts[i]) for _, p, _ in results), default=0)
            for r in range(depth):
                for name, pred, _ in results:
                    cands = pred.attempts[i]
                    if r < len(cands) and not any(same(cands[r], g) for g, _ in picked):
                        picked.append((cands[r], name))
            attempts.append([g for g, _ in picked[:MAX_ATTEMPTS]])
            by.append([n for _, n in picked[:MAX_ATTEMPTS]])
        first = next((names[0] for names in by if names), None)
        trace = {"solver": first, "answer_solvers": by,
                 "members": {name: {"seconds": secs, **pred.trace} for name, pred, secs in results}}
        program = next((p.trace.get("program") for n, p, _ in results if n == first and p.trace.get("program")), None)
        if program:
            trace["program"] = program
        return Prediction(attempts, trace)


def model_options(profile, model: str | None = None) -> dict:
    """The model solver's options for a hardware profile: its model (unless `model` names another),
    answer length, augmented views, 4-bit loading and how many views generate together."""
    return {"model": model or profile.model, "max_new_tokens": profile.max_new_tokens, "n_views": profile.n_views,
            "load_in_4bit": profile.load_in_4bit, "batch_size": profile.gen_batch}


def profile_options(profile, model: str | None = None, solvers: tuple[str, ...] | None = None) -> dict:
    """EnsembleSolver options for a hardware profile (`shared.config.profile`): its members and
    the model member's settings (`model_options`). A profile with ttt_steps runs the model member
    with test-time training (the "ttt" solver), training on batch_size examples a step."""
    names = list(solvers or profile.solvers)
    options: dict[str, dict] = {}
    if "model" in names:
        opts = model_options(profile, model)
        if profile.ttt_steps:
            names[names.index("model")] = "ttt"
            options["ttt"] = {**opts, "steps": profile.ttt_steps, "max_len": profile.max_len,
                              "train_batch_size": profile.batch_size,
                              "gradient_checkpointing": profile.gradient_checkpointing}
        else:
            options["model"] = opts
    return {"members": names, "options": options}
