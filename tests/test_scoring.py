"""Exact match with 2 attempts, task solved only when all test inputs are, submission files."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from shared.scoring import (
    correct_per_test,
    outcome,
    read_submission,
    score_submission,
    task_solved,
    validate_submission,
    write_submission,
)
from shared.tasks import TaskError, load

A = np.array([[1, 2], [3, 4]], dtype=np.uint8)
B = np.array([[1, 2], [3, 5]], dtype=np.uint8)


def test_exact_match_two_attempts():
    assert correct_per_test([[B, A]], [A]) == [True]
    assert correct_per_test([[B, B, A]], [A]) == [False]  # a third attempt never counts
    assert correct_per_test([[A.T]], [A]) == [False]
    assert correct_per_test([[A[:1]]], [A]) == [False]
    assert not task_solved([[A], [B]], [A, A])
    assert task_solved([[A], [B, A]], [A, A])


def test_outcomes_judge_the_first_attempt_in_the_order_a_grid_goes_wrong():
    assert outcome([A], A) == "correct"
    assert outcome([B, A], A) == "correct"  # the second attempt counts
    assert outcome([B, B, A], A) == "wrong cells"  # a third does not
    assert outcome([], A) == "no answer"
    assert outcome([], A, parsed=[False, False]) == "unparseable"
    assert outcome([], A, parsed=[True]) == "no answer"  # a grid was read, then voted out
    assert outcome([A[:1]], A) == "wrong size"
    assert outcome([B], A) == "wrong cells"
    assert outcome([B.tolist()], A.tolist()) == "wrong cells"  # lists, as results rows hold grids
    assert outcome([B], A, colours=True) == "wrong colours"  # a 5 the answer lacks
    assert outcome([A.T], A, colours=True) == "wrong cells"  # the answer's colours, misplaced


def test_submission_round_trip_and_score(tmp_path):
    tasks = load("arc1/eval")[:3]
    preds = {tasks[0].id: [[t.output for t in tasks[0].test][0:1] for _ in tasks[0].test],
             tasks[1].id: [[B] for _ in tasks[1].test]}
    preds[tasks[0].id] = [[p.output] for p in tasks[0].test]
    path = tmp_path / "submission.json"
    write_submission(path, preds, tasks)
    sub = read_submission(path)
    assert set(sub) == {t.id for t in tasks}  # a missing task is filled so Kaggle accepts the file
    assert validate_submission(sub, tasks) == []
    s = score_submission(sub, tasks)
    assert (s.solved, s.total) == (1, 3)


def test_validate_and_read_errors(tmp_path):
    tasks = load("arc1/eval")[:2]
    sub = {tasks[0].id: [[A, A]] * (len(tasks[0].test) + 1), "zzz": [[A, A]]}
    problems = validate_submission(sub, tasks)
    assert any("entries for" in p for p in problems)
    assert any(tasks[1].id in p and "missing" in p for p in problems)
    assert any("zzz" in p for p in problems)
    (tmp_path / "s.json").write_text(json.dumps({"x": [{"attempt_1": [[1]]}]}))
    with pytest.raises(TaskError, match="task x: test 0: needs both 'attempt_1' and 'attempt_2'"):
        read_submission(tmp_path / "s.json")


def test_score_command(tmp_path):
    tasks = load("arc1/eval")[:400]
    preds = {t.id: [[p.output] for p in t.test] for t in tasks[:10]}
    write_submission(tmp_path / "s.json", preds, tasks)
    res = subprocess.run([sys.executable, "-m", "shared", "score", str(tmp_path / "s.json"), "--tasks", "arc1/eval"],
                         capture_output=True, text=True, check=True)
    assert res.stdout.startswith("solved 10/400 tasks (2.5%)")


def test_every_test_input_gets_two_attempts_with_fallbacks(tmp_path):
    from shared.tasks import TaskSet

    tasks = load("arc1/eval")[:3]
    multi = next(t for t in load("arc1/eval") if len(t.test) > 1)
    ts = TaskSet([*tasks, multi], "fixture", ["bad: not rectangular"], {"bad": 2})
    preds = {tasks[0].id: [[B] for _ in tasks[0].test],  # one candidate: repeated as attempt 2
             multi.id: [[A, B]] + [[] for _ in multi.test[1:]]}  # a test input with no candidate
    write_submission(tmp_path / "s.json", preds, ts)
    sub = json.loads((tmp_path / "s.json").read_text())
    assert set(sub) == {t.id for t in ts} | {"bad"}
    assert sub[tasks[0].id][0] == {"attempt_1": B.tolist(), "attempt_2": B.tolist()}
    assert sub[multi.id][0] == {"attempt_1": A.tolist(), "attempt_2": B.tolist()}
    for p, entry in zip(multi.test[1:], sub[multi.id][1:], strict=True):
        assert entry == {"attempt_1": p.input.tolist(), "attempt_2": p.input.tolist()}
    # a task never answered: its own test inputs; a skipped one (inputs unknown): 1x1 zero grids
    assert [e["attempt_2"] for e in sub[tasks[1].id]] == [p.input.tolist() for p in tasks[1].test]
    assert sub["bad"] == [{"attempt_1": [[0]], "attempt_2": [[0]]}] * 2
    assert validate_submission(read_submission(tmp_path / "s.json"), ts) == []
    with pytest.raises(ValueError, match=f"task {multi.id}: 1 predictions for {len(multi.test)} test inputs"):
        write_submission(tmp_path / "s2.json", {multi.id: [[A]]}, ts)


def test_validate_counts_the_ids_a_lenient_load_skipped():
    from shared.tasks import TaskSet

    tasks = load("arc1/eval")[:1]
    ts = TaskSet(tasks, "fixture", ["bad: ..."], {"bad": 2})
    sub = {tasks[0].id: [[A, A]] * len(tasks[0].test)}
    assert validate_submission(sub, ts) == ["task bad: missing"]
    assert validate_submission({**sub, "bad": [[A, A]]}, ts) == ["task bad: 1 entries for 2 test inputs"]
    assert validate_submission({**sub, "bad": [[A, A]]}, list(ts)) == ["task bad: not in the task set"]
