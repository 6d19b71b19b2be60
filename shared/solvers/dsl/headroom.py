"""`python -m shared dsl-headroom`: where the DSL solver's misses are, ranking or search.

Per task, the solver runs at `--budget-s` and every candidate it ranked its two attempts from is
checked against the task's test outputs: a task the attempts miss while some candidate holds the
right answers is a ranking miss (better ranking could win it); a task with no right candidate is a
search miss (the DSL found no program for it). Also counted: unsolved tasks where some program
reproduces every demo (a coincidence the demos could not rule out). Tasks need their test outputs,
so run it on a development split. A benchmark, not a test: at a fixed budget the counts move
with the machine's speed, as the solver's own scores do.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
from collections import Counter

from shared import runs
from shared.grids import same
from shared.scoring import task_solved
from shared.solvers.dsl.program import to_source
from shared.solvers.dsl.ranking import rank
from shared.solvers.dsl.size import predict_sizes
from shared.solvers.dsl.solver import DslSolver
from shared.tasks import Task, TaskError, load, strip_test_outputs

DEMO_KINDS = ("exact", "fitted", "rule", "pieces")  # candidates that reproduce every demo (tree and partial: guesses)

_SOLVER = None  # one per worker process


def _right(preds: list, expected: list) -> bool:
    return all(same(p, e) for p, e in zip(preds, expected, strict=True))


def examine(task: Task, budget_s: float, solver=None) -> dict:
    """One task's row: solved (pass@2), how many candidates and distinct answers were ranked, where
    the first right candidate stands in the ranking order (None: none is right), and its kind."""
    solver = solver or DslSolver()
    expected = [p.output for p in task.test]
    pred = solver.solve(strip_test_outputs(task), budget_s)
    solved = task_solved(pred.attempts, expected)
    pool = solver.last_candidates
    # the ranking's own order over every candidate (size rule first, then kind and cost), distinct answers once
    order = rank(pool, predict_sizes(task)[1], keep=len(pool) + 1)
    place = next((i for i, c in enumerate(order) if _right(c.preds, expected)), None)
    row = {"task_id": task.id, "solved": solved, "candidates": len(pool), "answers": len(order),
           "demo_programs": sum(c.kind in DEMO_KINDS for c in pool), "right_at": place,
           "right_kind": order[place].kind if place is not None else None,
           "attempt_kinds": pred.trace.get("kinds", [])}
    if place is not None and not solved:
        row["right_program"] = to_source(order[place].node)
    return row


def _work(args) -> dict:
    global _SOLVER
    task, budget_s = args
    if _SOLVER is None:
        _SOLVER = DslSolver()
    return examine(task, budget_s, _SOLVER)


def summarise(rows: list[dict]) -> dict:
    unsolved = [r for r in rows if not r["solved"]]
    return {"tasks": len(rows), "solved": len(rows) - len(unsolved),
            "ranking_misses": sum(r["right_at"] is not None for r in unsolved),
            "search_misses": sum(r["right_at"] is None for r in unsolved),
            "unsolved_with_demo_programs": sum(r["demo_programs"] > 0 for r in unsolved),
            "ranking_miss_kinds": dict(Counter(r["right_kind"] for r in unsolved if r["right_at"] is not None))}


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m shared dsl-headroom", description=__doc__.splitlines()[0])
    p.add_argument("--tasks", default="arc1/train", help="a task set with test outputs (default arc1/train)")
    p.add_argument("--ids", help="comma-separated task ids to keep")
    p.add_argument("--limit", type=int, help="the first N tasks")
    p.add_argument("--budget-s", type=float, default=10.0, help="the solver's budget per task (default 10)")
    p.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    p.add_argument("--out", help="a JSON-lines file the per-task rows are appended to, and the summary after")
    args = p.parse_args(argv)
    if args.budget_s <= 0 or args.workers < 1:
        p.error("--budget-s must be positive and --workers at least 1")
    try:
        tasks = load(args.tasks)
    except TaskError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.ids:
        try:
            tasks = tasks.only(i.strip() for i in args.ids.split(",") if i.strip())
        except TaskError as e:
            print(f"error: --ids: {e}", file=sys.stderr)
            return 2
    tasks = tasks[: args.limit]
    lacking = [t.id for t in tasks if any(p.output is None for p in t.test)]
    if lacking:
        print(f"error: {args.tasks}: no test outputs for {', '.join(lacking[:5])}{' ...' if len(lacking) > 5 else ''}"
              " (headroom needs them: use a development split)", file=sys.stderr)
        return 2
    from tqdm import tqdm

    rows = []
    jobs = [(t, args.budget_s) for t in tasks]
    if args.workers == 1:
        results = map(_work, jobs)
        pool = None
    else:
        pool = mp.get_context("spawn").Pool(args.workers)
        results = pool.imap_unordered(_work, jobs)
    try:
        for row in tqdm(results, total=len(jobs), desc="dsl-headroom"):
            rows.append(row)
            if args.out:
                runs.append(args.out, row)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    summary = summarise(rows)
    if args.out:
        runs.append(args.out, {"summary": summary})
    for r in sorted(rows, key=lambda r: r["task_id"]):
        if not r["solved"] and r["right_at"] is not None:
            print(f"{r['task_id']}: the right answer is candidate {r['right_at'] + 1} of {r['answers']} "
                  f"({r['right_kind']}; the attempts: {', '.join(r['attempt_kinds'])})")
    print(f"{summary['tasks']} tasks, {summary['solved']} solved; of the unsolved, {summary['ranking_misses']} have "
          f"the right answer among the ranked candidates (ranking misses), {summary['search_misses']} have none "
          f"(search misses); {summary['unsolved_with_demo_programs']} unsolved tasks have a program that reproduces "
          "every demo")
    return 0
