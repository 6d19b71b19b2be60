"""Solvers that misbehave on purpose, for the runner's tests (built in worker processes)."""

from __future__ import annotations

import os
import time

import numpy as np

from shared.solvers import Prediction
from shared.tasks import Task


class ScriptedSolver:
    """Behaviour picked by task id: 'sleep*' sleeps past any budget, 'crash*' kills its process,
    'raise*' raises, 'bad*' returns a malformed grid, 'mem*' allocates too much; anything else
    answers with the first demo output (so a task whose test output equals it is solved)."""

    name = "scripted"

    def solve(self, task: Task, budget_s: float) -> Prediction:
        tid = task.id
        if tid.startswith("sleep"):
            time.sleep(3600)
        if tid.startswith("crash"):
            os._exit(3)
        if tid.startswith("raise"):
            raise RuntimeError("scripted failure")
        if tid.startswith("bad"):
            return Prediction([[np.full((2, 2), 12, dtype=np.int64)] for _ in task.test])
        if tid.startswith("mem"):
            hog = np.ones((8, 2**30), dtype=np.uint8)  # 8 GB: over any --max-mem-gb the test sets
            return Prediction([[hog[:1, :1]] for _ in task.test])
        return Prediction([[task.train[0].output] for _ in task.test], {"program": "def solve(I):\n    return I\n"})


class LoggedStartSolver(ScriptedSolver):
    """A scripted solver whose construction takes a while and is logged ("start PID" then
    "built PID" lines in `log`): when workers build at the same time, their lines interleave."""

    def __init__(self, log: str, build_s: float = 0.5):
        with open(log, "a") as f:
            f.write(f"start {os.getpid()}\n")
        time.sleep(build_s)
        with open(log, "a") as f:
            f.write(f"built {os.getpid()}\n")


class ConstSolver:
    """The same candidate grids for every test input (for ensemble tests)."""

    name = "const"

    def __init__(self, grids: list, program: str | None = None, sleep_s: float = 0.0):
        self.grids = [np.array(g, dtype=np.uint8) for g in grids]
        self.program, self.sleep_s = program, sleep_s
        self.budgets: list[float | None] = []

    def solve(self, task: Task, budget_s: float | None) -> Prediction:
        self.budgets.append(budget_s)
        time.sleep(self.sleep_s)
        trace = {"program": self.program} if self.program else {}
        return Prediction([list(self.grids) for _ in task.test], trace)
