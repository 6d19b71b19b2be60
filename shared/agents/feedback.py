"""Feedback for a program that fails its demos: which pairs fail, and a compact cell diff.

A language model revising its program needs to know what went wrong where: per failing demo
pair, the error (with the program's line), the size mismatch, or the cells that differ,
drawn as the output grid with matching cells shown as '.'.
"""

from __future__ import annotations

import numpy as np

from shared.formats import grid_to_text
from shared.sandbox import Verdict
from shared.tasks import Task

MAX_CELLS_LISTED = 8  # differing cells spelled out before the diff grid takes over
WORDS = {"error": "raised", "timeout": "ran too long", "memory": "ran out of memory",
         "bad_output": "returned something that is not a grid", "forbidden": "did something not allowed",
         "crash": "crashed"}


def cell_diff(got: np.ndarray, want: np.ndarray) -> str:
    """'N of M cells differ: (r,c) want a got b, ...' and the got grid with right cells as '.'."""
    wrong = np.argwhere(got != want)
    listed = ", ".join(f"({r},{c}) want {want[r, c]} got {got[r, c]}" for r, c in wrong[:MAX_CELLS_LISTED])
    more = f", and {len(wrong) - MAX_CELLS_LISTED} more" if len(wrong) > MAX_CELLS_LISTED else ""
    rows = ["".join(str(got[r, c]) if got[r, c] != want[r, c] else "." for c in range(got.shape[1]))
            for r in range(got.shape[0])]
    return (f"{len(wrong)} of {want.size} cells differ: {listed}{more}\n"
            "your output with correct cells as '.':\n" + "\n".join(rows))


def describe_pair(i: int, outcome, want: np.ndarray) -> str | None:
    """One demo pair's problem in words, or None when the pair is right."""
    name = f"Example {i + 1}"
    if outcome.status == "ok":
        return None
    if outcome.status == "wrong" and outcome.output is not None:
        got = outcome.output
        if got.shape != want.shape:
            return (f"{name}: wrong size: expected {want.shape[0]}x{want.shape[1]}, got "
                    f"{got.shape[0]}x{got.shape[1]}.\nexpected:\n{grid_to_text(want)}\nyour output:\n"
                    f"{grid_to_text(got)}")
        return f"{name}: wrong output. {cell_diff(got, want)}"
    return f"{name}: {WORDS.get(outcome.status, outcome.status)}: {outcome.detail}"


def failing_pairs(task: Task, verdict: Verdict) -> list[str]:
    """Each failing demo pair in words (its number, sizes, first wrong cells), then each test
    input the program could not answer (raised, ran too long, not a grid). Test outputs are
    never compared here: a test input is only checked for giving some grid."""
    n = len(task.train)
    demos = verdict.outcomes[:n]
    problems = [describe_pair(i, o, p.output) for i, (o, p) in enumerate(zip(demos, task.train, strict=True))]
    tests = [f"Test input {i + 1}: {WORDS.get(o.status, o.status)}: {o.detail}"
             for i, o in enumerate(verdict.outcomes[n:]) if o.status not in ("ok", "wrong")]
    return [p for p in problems if p] + tests


def demo_cells(task: Task, verdict: Verdict) -> tuple[int, int]:
    """(cells right, cells expected) over the demo pairs: partial credit; a pair of the wrong
    size, or one that raised, gets none of its cells; a forbidden program gets nothing."""
    total = sum(p.output.size for p in task.train)
    if verdict.status == "forbidden":
        return 0, total
    right = 0
    for o, p in zip(verdict.outcomes, task.train, strict=False):  # a call that died early has fewer outcomes
        if o.status == "ok":
            right += p.output.size
        elif o.output is not None and o.output.shape == p.output.shape:
            right += int((o.output == p.output).sum())
    return right, total


def feedback(task: Task, verdict: Verdict | None) -> str:
    """The revision request for a program's verdict on the demos (None: no program found)."""
    tail = ("Fix the program. Reply with the complete corrected function `solve(grid)` in one "
            "```python block.")
    if verdict is None:
        return ("Your reply contained no ```python block defining `solve(grid)`. " + tail)
    if verdict.status == "forbidden":
        return (f"Your program did something the sandbox does not allow ({verdict.detail}). Use only "
                f"computation on the grid: no files, processes, network or changes to builtins. " + tail)
    demos = verdict.outcomes[:len(task.train)]
    problems = [describe_pair(i, o, p.output) for i, (o, p) in enumerate(zip(demos, task.train, strict=True))]
    failing = [p for p in problems if p]
    right = [str(i + 1) for i, p in enumerate(problems) if p is None]
    head = (f"Your program does not solve the examples yet: {len(failing)} of {len(task.train)} fail"
            + (f" (right: example{'s' if len(right) > 1 else ''} {', '.join(right)})." if right else "."))
    return "\n\n".join([head, *failing, tail])
