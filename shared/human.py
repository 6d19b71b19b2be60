"""A person's results on ARC tasks: the submits the page records, and `human-report`.

The page served by `python -m shared serve FOLDER` appends one JSON line per submit to
FOLDER/human.jsonl (task, test input, attempt number, correct or not, seconds since the task
was opened, edits made), never rewriting it. `python -m shared human-report FILE` reads it back:
per task and overall, solved within 2 and 3 attempts and the median time, plotted beside the
file, and set beside a solver's run on the same tasks with `--run`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shared import runs

HUMAN_FILE = "human.jsonl"  # under the served folder
_append_lock = threading.Lock()  # the server answers submits on several threads


def record_submit(path: str | Path, *, task_set: str, task_id: str, test: int, n_tests: int, grid: list,
                  correct: bool | None, seconds: float, edits: int, checked_by: str) -> dict:
    """Append one submit to the results file and return its row; the attempt number is counted here
    from the rows before it (per task and test input), so a reload or restart does not reset it.
    correct: None when the task's answer is unknown; checked_by: "server" or "page" (an uploaded file)."""
    path = Path(path)
    with _append_lock:
        runs.drop_torn_tail(path)
        before = sum(1 for r in runs.read_rows(path)
                     if r.get("task_set") == task_set and r.get("task_id") == task_id and r.get("test") == test)
        row = {"task_set": task_set, "task_id": task_id, "test": test, "n_tests": n_tests,
               "attempt": before + 1, "correct": correct, "seconds": round(float(seconds), 1),
               "edits": int(edits), "size": f"{len(grid)}x{len(grid[0])}", "grid": grid,
               "checked_by": checked_by, "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        runs.append(path, row)
    return row


def check_answer(expected: np.ndarray | None, grid: list) -> bool | None:
    """Exact match (size and every cell); None when the expected output is unknown."""
    if expected is None:
        return None
    return bool(np.array_equal(np.asarray(grid), expected))


@dataclass
class TaskResult:
    """One task as a person did it: per test input the attempt of its first correct submit (None: never)."""

    task_set: str
    task_id: str
    n_tests: int
    first_correct: list[int | None]
    attempts: int  # submits over all test inputs
    seconds: float  # at the submit that solved the last test input; else at the last submit
    edits: int

    def solved_within(self, k: int) -> bool:
        return all(a is not None and a <= k for a in self.first_correct)

    @property
    def solved(self) -> bool:
        return all(a is not None for a in self.first_correct)


def task_results(rows: list[dict]) -> list[TaskResult]:
    """The submits grouped by task, in the order tasks were first tried."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["task_set"], r["task_id"]), []).append(r)
    out = []
    for (task_set, task_id), subs in groups.items():
        n = max(r.get("n_tests", 1) for r in subs)
        first: list[int | None] = [None] * n
        at: list[float] = [0.0] * n
        for r in subs:
            i = r["test"]
            if 0 <= i < n and r["correct"] and first[i] is None:
                first[i], at[i] = r["attempt"], r["seconds"]
        seconds = max(at) if all(a is not None for a in first) else max(r["seconds"] for r in subs)
        out.append(TaskResult(task_set, task_id, n, first, len(subs), seconds, sum(r.get("edits", 0) for r in subs)))
    return out


def overall(results: list[TaskResult]) -> dict:
    n = len(results)
    solved_times = [t.seconds for t in results if t.solved]
    return {
        "tasks": n,
        "solved_within_2": sum(t.solved_within(2) for t in results),
        "solved_within_3": sum(t.solved_within(3) for t in results),
        "solved": sum(t.solved for t in results),
        "median_s_solved": statistics.median(solved_times) if solved_times else None,
        "median_s": statistics.median(t.seconds for t in results) if results else None,
    }


def _pct(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n if n else 0:.1f}%)"


def report_lines(results: list[TaskResult], solver_rows: list[dict] | None = None) -> list[str]:
    """The table `human-report` prints: one line per task, then the overall figures."""
    lines = [f"{'task':<28} {'tests':>5} {'submits':>7} {'first right':>11} {'@2':>3} {'@3':>3} {'seconds':>8}"]
    for t in results:
        first = ",".join("-" if a is None else str(a) for a in t.first_correct)
        lines.append(f"{t.task_set + '/' + t.task_id:<28} {t.n_tests:>5} {t.attempts:>7} {first:>11} "
                     f"{'yes' if t.solved_within(2) else 'no':>3} {'yes' if t.solved_within(3) else 'no':>3} "
                     f"{t.seconds:>8.1f}")
    o = overall(results)
    median = "-" if o["median_s_solved"] is None else f"{o['median_s_solved']:.1f} s"
    lines += ["", f"tasks tried {o['tasks']}; solved within 2 attempts {_pct(o['solved_within_2'], o['tasks'])}, "
                  f"within 3 {_pct(o['solved_within_3'], o['tasks'])}, at all {_pct(o['solved'], o['tasks'])}; "
                  f"median time to solve {median}"]
    if solver_rows is not None:
        by_id = {r["task_id"]: r for r in solver_rows}
        both = [t for t in results if t.task_id in by_id]
        if both:
            name = by_id[both[0].task_id].get("solver", "solver")
            solver_ok = sum(by_id[t.task_id]["status"] == "solved" for t in both)
            lines.append(f"on the {len(both)} tasks the run also holds: person (within 2) "
                         f"{_pct(sum(t.solved_within(2) for t in both), len(both))}, "
                         f"solver {name} (pass@2) {_pct(solver_ok, len(both))}")
        else:
            lines.append("the run holds none of these tasks")
    return lines


def plot(results: list[TaskResult], path: str | Path, solver_rate: float | None = None) -> Path:
    """Two panels: the share of tasks solved within 1, 2, 3 and any attempts (the solver's pass@2 on the
    same tasks as a line, when given), and the seconds each task took (green: solved within 2)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(results)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    ks = [1, 2, 3]
    shares = [sum(t.solved_within(k) for t in results) / n for k in ks] + [sum(t.solved for t in results) / n]
    left.bar(["1", "2", "3", "any"], shares, color="#2d5be3")
    if solver_rate is not None:
        left.axhline(solver_rate, color="#c62828", linestyle="--", label="solver pass@2")
        left.legend(loc="lower right")
    left.set(ylim=(0, 1), xlabel="attempts", ylabel="share of tasks solved", title=f"person, {n} tasks")
    order = sorted(results, key=lambda t: t.seconds)
    right.bar(range(n), [t.seconds for t in order],
              color=["#1a7f37" if t.solved_within(2) else "#c62828" for t in order])
    right.set(xlabel="tasks (sorted by time)", ylabel="seconds", title="time per task (green: solved within 2)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return Path(path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m shared human-report", description=__doc__.splitlines()[0])
    p.add_argument("file", help=f"a person's results file ({HUMAN_FILE} in the folder `serve` was given)")
    p.add_argument("--run", help="a run folder of `python -m shared solve`: set the solver beside the person "
                                 "on the tasks both did")
    p.add_argument("--png", help="where to write the plot (default: the file's name with .png)")
    args = p.parse_args(argv)
    path = Path(args.file)
    if not path.is_file():
        print(f"error: {path}: no such results file", file=sys.stderr)
        return 2
    try:
        rows = runs.read_rows(path)
        solver_rows = None
        if args.run is not None:
            if not (Path(args.run) / runs.RESULTS).is_file():
                print(f"error: {args.run}: not a run folder (no {runs.RESULTS})", file=sys.stderr)
                return 2
            solver_rows = runs.read_results(args.run)
        missing = [f"line {i + 1}" for i, r in enumerate(rows)
                   if not {"task_set", "task_id", "test", "attempt", "correct", "seconds"} <= set(r)]
    except runs.RunFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if missing:
        print(f"error: {path}: not a results file of the page ({', '.join(missing[:3])} lack its fields)",
              file=sys.stderr)
        return 2
    if not rows:
        print(f"error: {path}: no submits yet", file=sys.stderr)
        return 2
    results = task_results(rows)
    print("\n".join(report_lines(results, solver_rows)))
    rate = None
    if solver_rows is not None:
        by_id = {r["task_id"]: r["status"] for r in solver_rows}
        both = [t for t in results if t.task_id in by_id]
        rate = sum(by_id[t.task_id] == "solved" for t in both) / len(both) if both else None
    png = plot(results, args.png or path.with_suffix(".png"), rate)
    print(f"plot: {png}")
    return 0
