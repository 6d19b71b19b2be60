"""`python -m shared verify`: run every agent's programs in the sandbox and union the agents.

Each program runs on every demo pair, then on the test inputs; its status, best first:
solved (every demo and every test output exact), passes_demos (every demo, not the test),
partial (some demos), wrong (runs, no demo right), error (raised, bad output, forbidden,
memory, crash), timeout. A task takes the best status of any program for it (the union
across agents). The run folder has the `shared.runs` layout: results.jsonl, summary.json,
submission.json (attempts from demo-passing programs, most agreed first; test outputs are
never used to choose them) and report.html.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from shared import runs
from shared.programs import Program, ProgramFileError, read_programs
from shared.sandbox import DEFAULT_TIME_S, LIBRARIES, SandboxPool, Verdict, task_job
from shared.scoring import write_submission
from shared.solvers.programs import rank_outputs
from shared.tasks import Task, TaskError, TaskSet, load

LADDER = ("solved", "passes_demos", "partial", "wrong", "error", "timeout", "no_program")
RANK = {s: i for i, s in enumerate(LADDER)}
TRACE_PROGRAMS = 12  # per-program entries kept in a row's trace


def program_status(task: Task, verdict: Verdict) -> tuple[str, int]:
    """(ladder status, demos passed) of one program's verdict on a task."""
    n = len(task.train)
    demos, tests = verdict.outcomes[:n], verdict.outcomes[n:]
    passed = sum(o.status == "ok" for o in demos)
    if verdict.status == "forbidden":
        return "error", 0
    if passed == n:
        if task.has_solutions() and all(o.status == "ok" for o in tests):
            return "solved", passed
        return "passes_demos", passed
    if passed:
        return "partial", passed
    if all(o.status == "wrong" for o in demos):
        return "wrong", 0
    if any(o.status == "timeout" for o in demos):
        return "timeout", 0
    return "error", 0


def task_row(task: Task, programs: list[Program], verdicts: list[Verdict]) -> dict:
    """The union over one task's programs, as a results row (`runs.result_row`, no worker)."""
    n = len(task.train)
    scored = [(program_status(task, v), p, v) for p, v in zip(programs, verdicts, strict=True)]
    # best status, then most demos passed, then the order the programs were listed
    order = sorted(range(len(scored)), key=lambda i: (RANK[scored[i][0][0]], -scored[i][0][1], i))
    status = scored[order[0]][0][0] if scored else "no_program"
    # attempts: from programs passing every demo; test outputs play no part in choosing them
    usable = [v for (st, _), _, v in scored if st in ("solved", "passes_demos")
              and all(o.output is not None for o in v.outcomes[n:])]
    outputs = [[o.output for o in v.outcomes[n:]] for v in usable]
    attempts, votes = rank_outputs(outputs) if outputs else ([[] for _ in task.test], [])
    agents: dict[str, str] = {}
    for (st, _), p, _ in scored:
        if p.agent not in agents or RANK[st] < RANK[agents[p.agent]]:
            agents[p.agent] = st
    best = scored[order[0]] if scored else None
    entries = [{"source": p.source, "index": p.index, "status": st, "demos_passed": k, "verdict": v.to_json()}
               for i in order[:TRACE_PROGRAMS] for (st, k), p, v in [scored[i]]]
    trace = {"program": best[1].code if best else "", "source": best[1].source if best else "",
             "agents": agents, "votes": votes, "n_programs": len(programs), "programs": entries}
    return runs.result_row(task, "programs", status, attempts, time_s=round(sum(v.seconds for v in verdicts), 4),
                           trace=trace,
                           error=None if best is None or status in ("solved", "passes_demos") else best[2].detail)


def verify(tasks: list[Task], programs: list[Program], pool: SandboxPool) -> list[dict]:
    """One row per task (in task order), every program of the task verified."""
    by_task: dict[str, list[Program]] = {}
    for p in programs:
        by_task.setdefault(p.task_id, []).append(p)
    work = [(t, p) for t in tasks for p in by_task.get(t.id, [])]
    verdicts = pool.run_many([task_job(p.code, t) for t, p in work])
    got: dict[str, list] = {}
    for (t, p), v in zip(work, verdicts, strict=True):
        got.setdefault(t.id, []).append((p, v))
    rows = []
    for t in tasks:
        pairs = got.get(t.id, [])
        rows.append(task_row(t, [p for p, _ in pairs], [v for _, v in pairs]))
    return rows


def summarise(rows: list[dict], tasks_name: str, n_programs: int, workers: int, time_limit_s: float,
              wall_s: float) -> dict:
    statuses = {s: sum(r["status"] == s for r in rows) for s in LADDER if any(r["status"] == s for r in rows)}
    agents: dict[str, dict] = {}
    for r in rows:
        for agent, st in r["trace"]["agents"].items():
            a = agents.setdefault(agent, {"tasks": 0, "solved": 0, "passes_demos": 0})
            a["tasks"] += 1
            a["solved"] += st == "solved"
            a["passes_demos"] += st in ("solved", "passes_demos")
    n = len(rows)
    solved = statuses.get("solved", 0)
    submission_correct = sum(bool(r["correct"]) and all(r["correct"]) for r in rows)
    return {"solver": "programs", "tasks": tasks_name, "n_tasks": n, "solved": solved,
            "pass_at_2": round(solved / n, 4) if n else 0.0,
            "submission_pass_at_2": round(submission_correct / n, 4) if n else 0.0,
            "statuses": statuses, "agents": agents, "n_programs": n_programs, "workers": workers,
            "budget_s": time_limit_s, "wall_s": round(wall_s, 2), "peak_rss_mb": None}


def run_verify(tasks: list[Task], programs: list[Program], out_dir: str | os.PathLike, workers: int = 2,
               time_limit_s: float = DEFAULT_TIME_S, tasks_name: str = "", library: str | None = None) -> dict:
    """Verify, union, and write the run folder; returns the summary. `library`: one the
    sandbox workers preload for the programs to import ("dsl")."""
    from shared.report import write_report

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with SandboxPool(workers=workers, time_limit_s=time_limit_s, library=library) as pool:
        rows = verify(tasks, programs, pool)
    wall = time.perf_counter() - t0
    with open(out / runs.RESULTS, "w") as f:  # a fresh verification each time: nothing to resume
        for r in rows:
            runs.append(f, r)
    summary = summarise(rows, tasks_name, len(programs), workers, time_limit_s, wall)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    import numpy as np

    write_submission(out / "submission.json",
                     {r["task_id"]: [[np.asarray(g, dtype=np.uint8) for g in c] for c in r["attempts"]]
                      for r in rows}, tasks)  # as given: a lenient TaskSet's skipped ids get entries too
    write_report(out, rows, summary)
    return summary


def select_tasks(tasks: TaskSet, programs: list[Program], ids: list[str] | None) -> tuple[list[Task], list[str]]:
    """The tasks to report: `ids` when given, else every task some program is for; plus
    the program task ids that are not in the set."""
    by_id = tasks.by_id()
    unknown = sorted({p.task_id for p in programs if p.task_id not in by_id})
    wanted = ids if ids is not None else sorted({p.task_id for p in programs if p.task_id in by_id})
    missing = [i for i in wanted if i not in by_id]
    if missing:
        raise TaskError(f"task ids not in {tasks.name}: {', '.join(missing)}")
    return [by_id[i] for i in wanted], unknown


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m shared verify", description=__doc__.splitlines()[0])
    p.add_argument("--tasks", required=True, help="task set with test outputs (arc1/train, a folder, ...)")
    p.add_argument("--solutions", help="Kaggle solutions file for a challenges file")
    p.add_argument("--programs", required=True, nargs="+",
                   help="program files or folders of them, or a run folder (its printed programs)")
    p.add_argument("--curated", help="a curate output folder: report exactly its tasks (skipped ones count)")
    p.add_argument("--ids", help="comma-separated task ids to report (default: those with programs)")
    p.add_argument("--workers", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    p.add_argument("--time-limit-s", type=float, default=DEFAULT_TIME_S, help="per program run (default 3)")
    p.add_argument("--library", choices=sorted(LIBRARIES),
                   help="a library the sandbox preloads for programs to import (dsl: printed DSL programs)")
    p.add_argument("--out", required=True, help="run folder to write")
    args = p.parse_args(argv)
    try:
        tasks = load(args.tasks, solutions=args.solutions)
        programs = [prog for path in args.programs for prog in read_programs(path)]
        ids = args.ids.split(",") if args.ids else None
        if args.curated:
            ids = json.loads((Path(args.curated) / "manifest.json").read_text())["task_ids"]
        chosen, unknown = select_tasks(tasks, programs, ids)
    except (TaskError, ProgramFileError, OSError, KeyError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if unknown:
        print(f"warning: programs for {len(unknown)} task ids not in {args.tasks}: {', '.join(unknown[:10])}",
              file=sys.stderr)
    summary = run_verify(chosen, programs, args.out, args.workers, args.time_limit_s, args.tasks, args.library)
    for agent, a in sorted(summary["agents"].items()):
        print(f"  {agent}: solved {a['solved']}/{a['tasks']} (passes demos {a['passes_demos']})")
    print(f"statuses: {summary['statuses']}; submission pass@2 {100 * summary['submission_pass_at_2']:.1f}%")
    print(runs.closing_line(summary))
    return 0
