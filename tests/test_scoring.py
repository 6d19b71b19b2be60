"""Exact match with 2 attempts, task solved only when all test inputs are, submission files."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from shared.scoring import (
    correct_per_test,
    error_kind,
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


def test_error_kinds():
    assert error_kind([A], A) == "correct"
    assert error_kind([], A) == "no answer"
    assert error_kind([A[:1]], A) == "wrong size"
    assert error_kind([B], A) == "wrong cells"


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
