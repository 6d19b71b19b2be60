"""One interface, many solvers.

A solver is built once per worker process by `make_solver(name, **options)` and then maps a
task (test outputs stripped) to a `Prediction`: per test input at most 2 candidate grids,
best first, plus a JSON-serialisable trace for reports (program source, votes, timings).
Solvers register themselves by name; heavy imports (torch) happen inside the factory.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from shared.grids import Grid, same
from shared.tasks import Task

MAX_ATTEMPTS = 2


@dataclass
class Prediction:
    attempts: list[list[Grid]]  # attempts[i] = up to 2 grids for test input i, best first
    trace: dict = field(default_factory=dict)

    def __post_init__(self):
        # keep at most 2 distinct grids per test input, order preserved
        cleaned = []
        for cands in self.attempts:
            kept: list[Grid] = []
            for g in cands:
                if g is not None and not any(same(g, k) for k in kept):
                    kept.append(g)
            cleaned.append(kept[:MAX_ATTEMPTS])
        self.attempts = cleaned


class Solver(Protocol):
    """budget_s: seconds this call may use (None: no limit). A solver should return within it;
    the runner kills a worker that overruns by more than a grace period."""

    name: str

    def solve(self, task: Task, budget_s: float) -> Prediction: ...


# name -> "module:factory"; modules are imported only when the solver is asked for
_REGISTRY: dict[str, str] = {
    "identity": "shared.solvers.identity:IdentitySolver",
    "model": "shared.solvers.model:ModelSolver",
    "dsl": "shared.solvers.dsl:DslSolver",
    "programs": "shared.solvers.programs:ProgramsSolver",
    "ensemble": "shared.solvers.ensemble:EnsembleSolver",
    "ttt": "shared.solvers.ttt:TTTSolver",
}


def available() -> list[str]:
    out = []
    for name, target in _REGISTRY.items():
        module = target.split(":")[0]
        if importlib.util.find_spec(module) is not None:
            out.append(name)
    return sorted(out)


def make_solver(name: str, **options) -> Solver:
    """Build a registered solver, or any "module:factory" (how tests plug in their own)."""
    if ":" in name:
        module, attr = name.split(":", 1)
    elif name in _REGISTRY:
        module, attr = _REGISTRY[name].split(":")
    else:
        raise ValueError(f"unknown solver {name!r}; available: {', '.join(available())}")
    if importlib.util.find_spec(module) is None:
        raise ValueError(f"solver {name!r} is not installed in this checkout; available: {', '.join(available())}")
    factory: Callable[..., Solver] = getattr(importlib.import_module(module), attr)
    return factory(**options)
