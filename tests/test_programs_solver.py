"""The `programs` solver: verified programs only, two distinct attempts, most agreed first."""

from __future__ import annotations

import numpy as np

from shared import bench, runs
from shared.programs import write_programs
from shared.solvers import make_solver
from shared.solvers.programs import rank_outputs
from shared.tasks import load, strip_test_outputs

FLIP = "def solve(grid):\n    return [row[::-1] for row in grid]\n"
FLIP_NP = "import numpy as np\n\ndef solve(grid):\n    return np.fliplr(np.array(grid))\n"
# flips, but zeroes a corner of 4-wide grids: passes the 2- and 3-wide demos, differs on the test
FLIP_THEN_ZERO = ("def solve(grid):\n    out = [row[::-1] for row in grid]\n"
                  "    if len(grid[0]) == 4:\n        out[0][0] = 0\n    return out\n")
COPY = "def solve(grid):\n    return grid\n"


def flip_task() -> dict:
    return {"train": [{"input": [[1, 2], [3, 4]], "output": [[2, 1], [4, 3]]},
                      {"input": [[5, 0, 0]], "output": [[0, 0, 5]]}],
            "test": [{"input": [[6, 7, 8, 9]], "output": [[9, 8, 7, 6]]}]}


def test_rank_outputs_most_agreed_first_then_first_seen():
    a, b, c = np.array([[1]]), np.array([[2]]), np.array([[3]])
    attempts, votes = rank_outputs([[c], [a], [b], [a], [c], [a]])
    assert [g.tolist() for g in attempts[0]] == [[[1]], [[3]]] and votes == [[3, 2]]


def test_solver_uses_only_programs_that_pass_every_demo(task_folder, tmp_path):
    folder, write = task_folder
    write("flip", flip_task())
    progs = write_programs(tmp_path / "programs.json", [
        {"task_id": "flip", "code": COPY},            # fails the demos: never an attempt
        {"task_id": "flip", "code": FLIP_THEN_ZERO},
        {"task_id": "flip", "code": FLIP},
        {"task_id": "flip", "code": FLIP_NP},
    ])
    solver = make_solver("programs", programs=str(progs))
    try:
        task = strip_test_outputs(load(folder)[0])
        pred = solver.solve(task, 10.0)
    finally:
        solver.close()
    assert [g.tolist() for g in pred.attempts[0]] == [[[9, 8, 7, 6]], [[0, 8, 7, 6]]]
    assert pred.trace["n_programs"] == 4 and pred.trace["n_verified"] == 3 and pred.trace["votes"] == [[2, 1]]
    assert pred.trace["program"] == FLIP


def test_solver_runs_under_the_bench(task_folder, tmp_path):
    folder, write = task_folder
    write("flip", flip_task())
    write("other", flip_task())  # no program for it: no attempt, unsolved
    progs = write_programs(tmp_path / "p.json", [{"task_id": "flip", "code": FLIP}])
    summary = bench.run(load(folder), tmp_path / "run", "programs", workers=0, options={"programs": str(progs)},
                        progress=False)
    assert summary["solved"] == 1 and summary["n_tasks"] == 2
    rows = {r["task_id"]: r for r in runs.read_results(tmp_path / "run")}
    assert rows["flip"]["trace"]["program"] == FLIP and rows["other"]["status"] == "unsolved"
