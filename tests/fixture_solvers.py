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
