"""Reports of a run: a self-contained report.html and matplotlib plots for notebooks.

report.html is the web page's run browser with the run's rows embedded, so it opens offline
from disk: every task drawn (demos, test input, candidates beside the expected output with
wrong cells marked, program source), filters and search. The plot functions draw tasks and
summarise accuracy and error kinds.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from pathlib import Path

import numpy as np

from shared import runs

# ARC's usual palette, colour 0-9
PALETTE = ["#000000", "#0074D9", "#FF4136", "#2ECC40", "#FFDC00",
           "#AAAAAA", "#F012BE", "#FF851B", "#7FDBFF", "#870C25"]

def write_report(run_dir: str | os.PathLike, rows: list[dict] | None = None, summary: dict | None = None) -> Path:
    """Write run_dir/report.html: the run browser of `shared.web` with the run embedded, so it
    opens from disk with no server (filters by status and solver, search, every grid drawn)."""
    from shared.web import page_html

    run = Path(run_dir)
    rows = runs.read_results(run) if rows is None else rows
    if summary is None and (run / "summary.json").exists():
        summary = json.loads((run / "summary.json").read_text())
    path = run / "report.html"
    path.write_text(page_html({"name": run.name, "results": rows, "summary": summary}))
    return path


# -- matplotlib views for notebooks --------------------------------------------------------

def _cmap():
    from matplotlib.colors import BoundaryNorm, ListedColormap

    return ListedColormap(PALETTE), BoundaryNorm(np.arange(-0.5, 10.5, 1), 10)


def draw_grid(ax, grid, title: str = "") -> None:
    cmap, norm = _cmap()
    g = np.asarray(grid)
    ax.imshow(g, cmap=cmap, norm=norm, interpolation="nearest")
    ax.set_xticks(np.arange(-0.5, g.shape[1], 1), minor=True)
    ax.set_yticks(np.arange(-0.5, g.shape[0], 1), minor=True)
    ax.grid(which="minor", color="#555", linewidth=0.3)
    ax.tick_params(which="both", length=0, labelbottom=False, labelleft=False)
    ax.set_title(title, fontsize=8)


def draw_task(task, answers: list | None = None):
    """A figure of a task: demo pairs in columns, then the test inputs (and given answers)."""
    import matplotlib.pyplot as plt

    cols = len(task.train) + len(task.test)
    fig, axes = plt.subplots(2, cols, figsize=(2 * cols, 4.2), squeeze=False)
    for i, p in enumerate(task.train):
        draw_grid(axes[0][i], p.input, f"demo {i} in")
        draw_grid(axes[1][i], p.output, "out")
    for j, p in enumerate(task.test):
        c = len(task.train) + j
        draw_grid(axes[0][c], p.input, f"test {j} in")
        shown = p.output if answers is None else (answers[j] if j < len(answers) else None)
        if shown is not None:
            draw_grid(axes[1][c], shown, "expected" if answers is None else "answer")
        else:
            axes[1][c].axis("off")
    fig.suptitle(task.id)
    fig.tight_layout()
    return fig


def error_kinds(rows: list[dict]) -> Counter:
    """Per test input (`runs.outcomes_per_test`): correct / wrong size / wrong cells / unparseable /
    no answer / timeout / error."""
    return Counter(kind for r in rows for kind in runs.outcomes_per_test(r))


def plot_run(rows: list[dict], title: str = ""):
    """Two panels: tasks by status, and test inputs by error kind."""
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.2))
    status = Counter(r["status"] for r in rows)
    a.bar(list(status), list(status.values()), color="#0074D9")
    a.set_title(f"tasks by status (n={len(rows)})")
    kinds = error_kinds(rows)
    b.bar(list(kinds), list(kinds.values()), color="#FF851B")
    b.set_title("test inputs by outcome")
    b.tick_params(axis="x", rotation=20)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def answered_by(rows: list[dict]) -> Counter:
    """(solver of attempt 1, status) -> tasks: which member of an ensemble answered, and how that went."""
    return Counter((r["trace"].get("solver") or "none", r["status"]) for r in rows)


def plot_times_and_solvers(rows: list[dict], budget_s: float):
    """Two panels: seconds per task against the budget, and solved tasks by the solver of attempt 1."""
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.2))
    a.hist([r["time_s"] or 0 for r in rows], bins=20, color="#0074D9")
    a.axvline(budget_s, color="#FF4136", linestyle=":")
    a.set_xlabel("seconds per task")
    a.set_title(f"time per task (budget {budget_s:g} s)")
    solved: Counter = Counter()
    for (solver, status), n in answered_by(rows).items():
        if status == "solved":
            solved[solver] += n
    b.bar(list(solved) or ["none"], list(solved.values()) or [0], color="#2ECC40")
    b.set_title("solved tasks by the solver of attempt 1")
    fig.tight_layout()
    return fig


def plot_accuracy(results: dict[str, float], title: str = "pass@2"):
    """A bar per named run (e.g. {"zero-shot": 0.02, "after SFT": 0.10})."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.4 * len(results) + 2, 3))
    bars = ax.bar(list(results), [100 * v for v in results.values()], color="#2ECC40")
    ax.bar_label(bars, fmt="%.1f%%")
    ax.set_ylabel("% of tasks")
    ax.set_ylim(0, max(100 * max(results.values(), default=0) * 1.25, 5))
    ax.set_title(title)
    fig.tight_layout()
    return fig


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m shared report", description="Rewrite report.html of a run folder.")
    p.add_argument("run_dir", help="a run folder (results.jsonl); report.html is rewritten there")
    args = p.parse_args(argv)
    if not (Path(args.run_dir) / runs.RESULTS).exists():
        print(f"error: {args.run_dir}: no {runs.RESULTS} (not a run folder)")
        return 2
    print(write_report(args.run_dir))
    return 0
