"""What the sandbox says about one run of a program: a verdict per input and one overall.

Statuses, worst first: forbidden (the audit hook refused an operation, or the program
patched builtins/numpy), memory, timeout, crash (the worker died: os._exit, a segfault),
error (the program raised; the detail names the exception and line), bad_output (not a
1..30 x 1..30 grid of integers 0-9), wrong (a valid grid unequal to the expected one), ok
(a valid grid, equal to the expected one when one was given).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

STATUSES = ("forbidden", "memory", "timeout", "crash", "error", "bad_output", "wrong", "ok")
SEVERITY = {s: i for i, s in enumerate(STATUSES)}  # lower is worse


@dataclass(frozen=True)
class Outcome:
    """One input: its status, the output grid when one was returned, and why not otherwise."""

    status: str
    output: np.ndarray | None = None
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Verdict:
    """One program over a list of inputs."""

    status: str                                   # the worst outcome, or forbidden / crash for the call
    outcomes: list[Outcome] = field(default_factory=list)
    detail: str = ""                              # the first problem, in words
    seconds: float = 0.0                          # wall time of the call, seen from the parent
    printed: int = 0                              # characters the program printed (discarded)
    worker_replaced: bool = False                 # the worker was retired after this call

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def outputs(self) -> list[np.ndarray | None]:
        return [o.output for o in self.outcomes]

    def to_json(self) -> dict:
        return {"status": self.status, "detail": self.detail, "seconds": round(self.seconds, 4),
                "printed": self.printed, "outcomes": [
                    {"status": o.status, "detail": o.detail} for o in self.outcomes]}


def worst(statuses) -> str:
    statuses = list(statuses)
    return min(statuses, key=SEVERITY.__getitem__) if statuses else "ok"
