"""Scoring: exact match with up to 2 attempts, and Kaggle submission.json.

A test input is correct when one of its (at most 2) attempts equals the expected grid in
shape and every cell; a task is solved only when all its test inputs are. The submission
format is Kaggle's: task_id -> [{"attempt_1": grid, "attempt_2": grid}, ...], one entry per
test input in order. `python -m shared score SUBMISSION --tasks SET` scores a file.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path

from shared.grids import Grid, same, to_list
from shared.tasks import Task, TaskError, TaskSet, as_grid

EMPTY_GRID = [[0]]  # Kaggle requires both attempts; an absent one is written as this


def correct_per_test(attempts: list[list[Grid]], expected: list[Grid | None]) -> list[bool]:
    """For each test input, whether any of its first 2 attempts matches exactly."""
    if len(attempts) != len(expected):
        raise ValueError(f"{len(attempts)} attempt lists for {len(expected)} test inputs")
    return [any(same(a, e) for a in cands[:2]) for cands, e in zip(attempts, expected, strict=True)]


def task_solved(attempts: list[list[Grid]], expected: list[Grid | None]) -> bool:
    return all(correct_per_test(attempts, expected))


def error_kind(attempts: list[Grid], expected: Grid) -> str:
    """Why a test input was missed, judged on its best attempt: correct / no answer /
    wrong size / wrong cells."""
    if any(same(a, expected) for a in attempts[:2]):
        return "correct"
    if not attempts:
        return "no answer"
    if attempts[0].shape != expected.shape:
        return "wrong size"
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

def submission_entry(cands: list[Grid]) -> dict:
    grids = [to_list(g) for g in cands[:2]]
    while len(grids) < 2:
        grids.append(grids[0] if grids else EMPTY_GRID)
    return {"attempt_1": grids[0], "attempt_2": grids[1]}


def write_submission(path: str | os.PathLike, predictions: dict[str, list[list[Grid]]],
                     tasks: list[Task] | None = None) -> None:
    """Write task_id -> per test input attempts. With `tasks`, every task gets an entry
    (missing ones filled with EMPTY_GRID) so Kaggle accepts the file."""
    out = {}
    for tid, per_test in predictions.items():
        out[tid] = [submission_entry(c) for c in per_test]
    for t in tasks or []:
        if t.id not in out:
            out[t.id] = [submission_entry([]) for _ in t.test]
        elif len(out[t.id]) != len(t.test):
            raise ValueError(f"task {t.id}: {len(out[t.id])} predictions for {len(t.test)} test inputs")
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
    """Problems that would make Kaggle reject the file: missing tasks, wrong entry counts."""
    problems = []
    for t in tasks:
        if t.id not in sub:
            problems.append(f"task {t.id}: missing")
        elif len(sub[t.id]) != len(t.test):
            problems.append(f"task {t.id}: {len(sub[t.id])} entries for {len(t.test)} test inputs")
    known = {t.id for t in tasks}
    problems += [f"task {tid}: not in the task set" for tid in sub if tid not in known]
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
    except TaskError as e:
        print(f"error: {e}")
        return 2
    for problem in validate_submission(sub, tasks)[:20]:
        print(f"warning: {problem}")
    s = score_submission(sub, tasks)
    print(f"{s.line()}; test outputs {s.tests_correct}/{s.tests_total}")
    return 0

