"""Scoring: exact match with up to 2 attempts, and Kaggle submission.json.

A test input is correct when one of its (at most 2) attempts equals the expected grid in
shape and every cell; a task is solved only when all its test inputs are; `outcome` is the one
taxonomy of how a test input went wrong (reports and interpretability views count it). The submission
format is Kaggle's: task_id -> [{"attempt_1": grid, "attempt_2": grid}, ...], one entry per
test input in order; a written file answers every task twice, with a fallback where there is
no answer. `python -m shared score SUBMISSION --tasks SET` scores a file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shared.grids import Grid, same, to_list
from shared.tasks import Task, TaskError, TaskSet, as_grid

EMPTY_GRID = [[0]]  # the fallback answer where a test input is not known (a task skipped as malformed)


def correct_per_test(attempts: list[list[Grid]], expected: list[Grid | None]) -> list[bool]:
    """For each test input, whether any of its first 2 attempts matches exactly."""
    if len(attempts) != len(expected):
        raise ValueError(f"{len(attempts)} attempt lists for {len(expected)} test inputs")
    return [any(same(a, e) for a in cands[:2]) for cands, e in zip(attempts, expected, strict=True)]


def task_solved(attempts: list[list[Grid]], expected: list[Grid | None]) -> bool:
    return all(correct_per_test(attempts, expected))


OUTCOMES = ("correct", "wrong cells", "wrong colours", "wrong size", "unparseable", "no answer")


def outcome(attempts: list, expected, parsed: list[bool] | None = None, colours: bool = False) -> str:
    """How one test input fared, in the order a grid goes wrong, judged on its best (first) attempt:
    correct (either of the first 2 attempts) / wrong cells / wrong size; with no attempt, unparseable
    when `parsed` (a model's per-view parse flags) says no view gave a grid, else no answer. colours:
    split "wrong colours" (right size, another set of colours) from "wrong cells". Grids or lists."""
    grids = [np.asarray(g) for g in attempts]
    expected = np.asarray(expected)
    if any(same(g, expected) for g in grids[:2]):
        return "correct"
    if not grids:
        return "unparseable" if parsed is not None and not any(parsed) else "no answer"
    if grids[0].shape != expected.shape:
        return "wrong size"
    if colours and set(np.unique(grids[0]).tolist()) != set(np.unique(expected).tolist()):
        return "wrong colours"
    return "wrong cells"


@dataclass
class Score:
    solved: int
    total: int
    tests_correct: int
    tests_total: int

    @property
    def pass_at_2(self) -> float:
        return self.solved / self.total if self.total else 0.0

    def line(self) -> str:
        return f"solved {self.solved}/{self.total} tasks ({100 * self.pass_at_2:.1f}%)"


# -- submission.json ---------------------------------------------------------------------

def submission_entry(cands: list[Grid], fallback: Grid | None = None) -> dict:
    """Both attempts for one test input: one candidate is repeated, none gives the fallback
    (the test input itself where known, as the cheapest non-blank guess) in both."""
    grids = [to_list(g) for g in cands[:2]]
    if not grids:
        grids = [to_list(fallback) if fallback is not None else EMPTY_GRID]
    while len(grids) < 2:
        grids.append(grids[0])
    return {"attempt_1": grids[0], "attempt_2": grids[1]}


def expected_ids(tasks: list[Task]) -> dict[str, int]:
    """task id -> number of test inputs a submission must answer: the tasks, plus those a
    lenient load skipped (`TaskSet.skipped_tests`), which Kaggle still scores."""
    counts = {t.id: len(t.test) for t in tasks}
    for tid, n in (tasks.skipped_tests if isinstance(tasks, TaskSet) else {}).items():
        counts.setdefault(tid, n)
    return counts


def write_submission(path: str | os.PathLike, predictions: dict[str, list[list[Grid]]],
                     tasks: list[Task] | None = None) -> None:
    """Write task_id -> per test input attempts. With `tasks`, every task (and every id a
    lenient TaskSet skipped) gets two attempts per test input, so Kaggle accepts the file: a
    test input without a candidate gets its own input grid, an unknown one EMPTY_GRID. A
    prediction whose count of test inputs differs from its task's is a ValueError."""
    by_id = {t.id: t for t in tasks or []}
    out = {}
    for tid, per_test in predictions.items():
        task = by_id.get(tid)
        if task is not None and len(per_test) != len(task.test):
            raise ValueError(f"task {tid}: {len(per_test)} predictions for {len(task.test)} test inputs")
        inputs = [p.input for p in task.test] if task is not None else [None] * len(per_test)
        out[tid] = [submission_entry(c, x) for c, x in zip(per_test, inputs, strict=True)]
    for tid, n in expected_ids(tasks or []).items():
        if tid not in out:
            inputs = [p.input for p in by_id[tid].test] if tid in by_id else [None] * n
            out[tid] = [submission_entry([], x) for x in inputs]
    tmp = Path(str(path) + ".tmp")
    tmp.write_text(json.dumps(out, separators=(",", ":")))
    os.replace(tmp, path)


def read_submission(path: str | os.PathLike) -> dict[str, list[list[Grid]]]:
    """Read and validate a submission file; attempts come back as grids per test input."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise TaskError(f"{path}: cannot read submission: {e}") from None
    if not isinstance(data, dict):
        raise TaskError(f"{path}: expected task id -> list of attempts, got {type(data).__name__}")
    out = {}
    for tid, entries in data.items():
        if not isinstance(entries, list) or not entries:
            raise TaskError(f"{path}: task {tid}: expected a non-empty list, one entry per test input")
        per_test = []
        for i, e in enumerate(entries):
            if not isinstance(e, dict) or not {"attempt_1", "attempt_2"} <= set(e):
                raise TaskError(f"{path}: task {tid}: test {i}: needs both 'attempt_1' and 'attempt_2'")
            per_test.append([as_grid(e[k], f"{path}: task {tid}: test {i} {k}") for k in ("attempt_1", "attempt_2")])
        out[tid] = per_test
    return out


def validate_submission(sub: dict[str, list[list[Grid]]], tasks: list[Task]) -> list[str]:
    """Problems that would make Kaggle reject the file: missing tasks, wrong entry counts. A
    lenient TaskSet's skipped ids count as expected too (the challenges file holds them)."""
    problems = []
    expected = expected_ids(tasks)
    for tid, n in expected.items():
        if tid not in sub:
            problems.append(f"task {tid}: missing")
        elif len(sub[tid]) != n:
            problems.append(f"task {tid}: {len(sub[tid])} entries for {n} test inputs")
    problems += [f"task {tid}: not in the task set" for tid in sub if tid not in expected]
    return problems


def score_submission(sub: dict[str, list[list[Grid]]], tasks: list[Task]) -> Score:
    solved = tests_ok = tests_n = 0
    for t in tasks:
        if not t.has_solutions():
            raise TaskError(f"task {t.id}: no test outputs to score against")
        attempts = sub.get(t.id, [[] for _ in t.test])
        if len(attempts) != len(t.test):
            attempts = [[] for _ in t.test]
        ok = correct_per_test(attempts, t.test_outputs)
        tests_ok += sum(ok)
        tests_n += len(ok)
        solved += all(ok)
    return Score(solved, len(tasks), tests_ok, tests_n)


def main(argv: list[str]) -> int:
    from shared.tasks import load

    p = argparse.ArgumentParser(prog="python -m shared score", description=__doc__.splitlines()[0])
    p.add_argument("submission", help="a submission.json")
    p.add_argument("--tasks", required=True, help="task set with solutions (arc1/eval, a folder, challenges file)")
    p.add_argument("--solutions", help="Kaggle solutions file for a challenges file")
    args = p.parse_args(argv)
    try:
        tasks: TaskSet = load(args.tasks, solutions=args.solutions)
        sub = read_submission(args.submission)
        s = score_submission(sub, tasks)
    except TaskError as e:  # errors and warnings go to stderr: stdout holds only the score
        print(f"error: {e}", file=sys.stderr)
        return 2
    problems = validate_submission(sub, tasks)
    for problem in problems[:20]:
        print(f"warning: {problem}", file=sys.stderr)
    if len(problems) > 20:
        print(f"warning: ... and {len(problems) - 20} more", file=sys.stderr)
    print(f"{s.line()}; test outputs {s.tests_correct}/{s.tests_total}")
    return 0

