"""The run folder's format: the results file, its row schema, appending, the one reader, the closing line.

A run (`solve`, `verify`, an evaluation, a synthesis or retraining log) appends one JSON line per
finished task, so a killed run loses at most a half-written last line: `read_rows` drops that
torn last line and refuses a bad line anywhere else, naming the file and line. The runner,
verifier, synthesis, retraining, report and page all go through here; it knows no runner and
imports only the core.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO

import numpy as np

from shared.grids import to_list
from shared.scoring import correct_per_test, outcome
from shared.tasks import Task, strip_test_outputs

RESULTS = "results.jsonl"  # one row per task of a run folder
# what closing_line counts, and how it says so
COUNTED = {"solved": "solved", "passes_demos": "passes every demo on"}


class RunFileError(ValueError):
    """A line of a run file that is not a JSON object, other than a torn last line; names file and line."""


def result_row(task: Task, solver: str, status: str | None, attempts: list | None, *, time_s: float | None = None,
               trace: dict | None = None, error: str | None = None, worker: int | None = None,
               peak_rss_mb: float | None = None) -> dict:
    """One results row of `task` (given with its test outputs; the row keeps them apart as "expected").

    attempts: per test input, candidate grids best first; None when the solver gave no answer
    (error, timeout): no correctness is judged then. status: the caller's verdict, or None to judge
    it from the attempts: solved / unsolved, and unscored when the task has no test outputs.
    worker and peak_rss_mb are the runner's; a verifier leaves them None.
    """
    scored = task.has_solutions()
    correct = None
    if attempts is not None and scored:
        correct = correct_per_test([[np.asarray(g) for g in c] for c in attempts], task.test_outputs)
    if status is None:
        status = ("solved" if all(correct) else "unsolved") if scored else "unscored"
    return {
        "task_id": task.id,
        "solver": solver,
        "status": status,
        "time_s": time_s,
        "attempts": [[to_list(g) for g in c] for c in attempts] if attempts else [[] for _ in task.test],
        "correct": correct,
        "expected": [to_list(g) for g in task.test_outputs] if scored else None,
        "task": strip_test_outputs(task).to_json(),
        "trace": trace or {},
        "error": error,
        "worker": worker,
        "peak_rss_mb": peak_rss_mb,
    }


def outcomes_per_test(row: dict, colours: bool = False) -> list[str]:
    """Per test input of a results row, its `scoring.outcome`; "timeout" / "error" for each test
    input of a row that gave no answer; none for an unscored row. colours: as in `scoring.outcome`."""
    if row["status"] in ("timeout", "error"):
        return [row["status"]] * len(row["task"]["test"])
    if row.get("expected") is None:
        return []
    parsed = (row.get("trace") or {}).get("parsed")  # the model solver's parse flags, per test input per view
    return [outcome(row["attempts"][i], exp, parsed[i] if parsed else None, colours)
            for i, exp in enumerate(row["expected"])]


def append(path_or_file: str | os.PathLike | IO[str], row: dict) -> None:
    """Append one row as a line and flush it, to an open file or a path (opened for appending)."""
    line = json.dumps(row, separators=(",", ":")) + "\n"
    if isinstance(path_or_file, (str, os.PathLike)):
        with open(path_or_file, "a") as f:
            f.write(line)
        return
    path_or_file.write(line)
    path_or_file.flush()  # a killed run keeps every row written before it


def drop_torn_tail(path: str | os.PathLike) -> None:
    """Cut a last line left unfinished by a killed run, so appended rows start on their own line."""
    path = Path(path)
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as f:
            f.truncate(data.rfind(b"\n") + 1)


def read_rows(path: str | os.PathLike) -> list[dict]:
    """The rows of an append-only JSON-lines file; none when it does not exist. A bad last line is
    a killed run's half-written row and is dropped; a bad line anywhere else is a RunFileError."""
    path = Path(path)
    if not path.exists():
        return []
    lines = [(n, line) for n, line in enumerate(path.read_text().splitlines(), 1) if line.strip()]
    rows = []
    for k, (n, line) in enumerate(lines):
        try:
            row = json.loads(line)
            problem = None if isinstance(row, dict) else f"expected a JSON object, got {type(row).__name__}"
        except json.JSONDecodeError as e:
            if k == len(lines) - 1:
                break
            problem = f"not valid JSON: {e}"
        if problem:
            raise RunFileError(f"{path}: line {n}: {problem}")
        rows.append(row)
    return rows


def read_results(run_dir: str | os.PathLike) -> list[dict]:
    """The finished task rows of a run folder (see `read_rows`)."""
    return read_rows(Path(run_dir) / RESULTS)


def closing_line(summary: dict, counted: str = "solved", note: str = "") -> str:
    """The line a command ends with: `solved X/Y tasks (Z%) in T s`. counted: the summary's count
    over its n_tasks ("solved", or "passes_demos" for synthesis); note: added in brackets."""
    if counted not in COUNTED:
        raise ValueError(f"closing_line counts one of {sorted(COUNTED)}, not {counted!r}")
    n, k = summary["n_tasks"], summary[counted]
    line = f"{COUNTED[counted]} {k}/{n} tasks ({100 * k / n if n else 0:.1f}%) in {summary['wall_s']:.1f} s"
    return f"{line} ({note})" if note else line
