"""`python -m shared dsl-headroom` tells ranking misses from search misses (the counts themselves
move with the machine's speed, so the run test checks only that they add up)."""

import json

import numpy as np
import pytest

from shared.solvers import Prediction
from shared.solvers.dsl import headroom
from shared.solvers.dsl.program import INPUT, call
from shared.solvers.dsl.search import Candidate
from shared.tasks import Pair, Task


def _task() -> Task:
    g = np.array([[1, 2], [3, 4]], np.uint8)
    return Task("fake", (Pair(g, g.T.copy()), Pair(g * 2, (g * 2).T.copy())), (Pair(g + 1, (g + 1).T.copy()),))


class _FakeSolver:
    """Answers wrongly, with the right answer only among its ranked candidates (when `right`)."""

    def __init__(self, right: bool):
        self.right = right
        self.last_candidates = []

    def solve(self, task, budget_s):
        assert all(p.output is None for p in task.test)  # the solver never sees the test outputs
        wrong = np.zeros((2, 2), np.uint8)
        good = (task.test[0].input.T).copy()
        cands = [Candidate(call("constant", INPUT, args=(wrong.tolist(),)), "exact", 1.0, [wrong], 2),
                 Candidate(call("constant", INPUT, args=(wrong.tolist(),)), "fitted", 2.0, [wrong], 2)]
        if self.right:
            cands.append(Candidate(call("transpose", INPUT), "rule", 3.0, [good], 2))
        self.last_candidates = cands
        return Prediction([[wrong]], {"kinds": ["exact"]})


def test_a_right_answer_among_the_candidates_is_a_ranking_miss_and_none_a_search_miss():
    row = headroom.examine(_task(), 1.0, _FakeSolver(right=True))
    # two candidates share the wrong answer: it counts once, so the right one is the second answer
    assert row["solved"] is False and row["candidates"] == 3 and row["answers"] == 2
    assert row["right_at"] == 1 and row["right_kind"] == "rule" and "transpose(I)" in row["right_program"]
    miss = headroom.examine(_task(), 1.0, _FakeSolver(right=False))
    assert miss["right_at"] is None and miss["demo_programs"] == 2
    s = headroom.summarise([row, miss])
    assert (s["tasks"], s["solved"], s["ranking_misses"], s["search_misses"]) == (2, 0, 1, 1)
    assert s["unsolved_with_demo_programs"] == 2 and s["ranking_miss_kinds"] == {"rule": 1}


def test_dsl_headroom_runs_the_solver_and_its_counts_add_up(tmp_path, capsys):
    out = tmp_path / "headroom.jsonl"
    assert headroom.main(["--tasks", "arc1/train", "--ids", "007bbfb7,00d62c1b", "--budget-s", "1",
                          "--out", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(r["task_id"] for r in rows[:2]) == ["007bbfb7", "00d62c1b"]
    s = rows[2]["summary"]
    assert s["tasks"] == 2 and s["solved"] + s["ranking_misses"] + s["search_misses"] == 2
    for r in rows[:2]:
        # a solved task's right answer is among what was ranked, and among the first two answers
        assert not r["solved"] or (r["right_at"] is not None and r["right_at"] < 2)
    assert "2 tasks, " in capsys.readouterr().out.splitlines()[-1]


def test_dsl_headroom_refuses_unknown_ids_and_tasks_without_test_outputs(tmp_path, capsys):
    assert headroom.main(["--tasks", "arc1/train", "--ids", "nosuchid"]) == 2
    assert "--ids: task ids not in arc1/train: nosuchid" in capsys.readouterr().err
    task = {"train": [{"input": [[1]], "output": [[2]]}], "test": [{"input": [[1]]}]}
    (tmp_path / "t1.json").write_text(json.dumps(task))
    assert headroom.main(["--tasks", str(tmp_path)]) == 2
    assert "no test outputs for t1" in capsys.readouterr().err


def test_dsl_headroom_refuses_a_budget_that_is_not_positive(capsys):
    with pytest.raises(SystemExit) as e:
        headroom.main(["--budget-s", "0"])
    assert e.value.code == 2
