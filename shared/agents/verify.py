"""`python -m shared verify`: run every agent's programs in the sandbox and union the agents.

Each program runs on every demo pair, then on the test inputs; its status, best first:
solved (every demo and every test output exact), passes_demos (every demo, not the test),
partial (some demos), wrong (runs, no demo right), error (raised, bad output, forbidden,
memory, crash), timeout. A task takes the best status of any program for it (the union
across agents). The run folder has the `shared.runs` layout: results.jsonl, summary.json,
submission.json (attempts from demo-passing programs, most agreed first; test outputs are
never used to choose them) and report.html.

Two uses. An agent checks its answers against its curated chunk (`--tasks tasks_NN.json`):
that set has no test outputs, so the best any task reaches is "passes every demo", and the
output lists each task's failing pairs. The orchestrator, once the agents are done, verifies
on the test outputs with `--curated DIR` (the task set comes from DIR's manifest, the
programs from the answers files the manifest names, which it records as returned).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from shared import runs
from shared.agents.feedback import failing_pairs
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
             "agents": agents, "votes": votes, "n_programs": len(programs), "programs": entries,
             # what the best program gets wrong on the demos (and test inputs it cannot answer)
             "failing": failing_pairs(task, best[2]) if best else []}
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
            "passes_demos": solved + statuses.get("passes_demos", 0),
            # no test output in the set (an agent's own check): "solved" cannot happen, and is not the measure
            "demos_only": n > 0 and all(r["expected"] is None for r in rows),
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
    chosen = tasks.only(wanted).by_id()
    return [chosen[i] for i in wanted], unknown


def report_lines(rows: list[dict], summary: dict) -> list[str]:
    """What `verify` prints. On a set without test outputs (an agent's check): per task, its
    verdict on the demos and the best program's failing pairs; the closing line counts tasks
    passing every demo. With test outputs: per agent, then statuses and submission pass@2."""
    if summary["demos_only"]:
        lines = []
        for r in rows:
            if r["status"] == "passes_demos":
                verdict = "passes every demo (test outputs not available)"
            elif r["status"] == "no_program":
                verdict = "no program"
            else:
                best = r["trace"]["programs"][0]
                verdict = (f"{r['status']}: {best['demos_passed']} of {len(r['task']['train'])} demos right "
                           f"({Path(best['source']).name} item {best['index']})")
            lines.append(f"{r['task_id']}: {verdict}")
            lines += ["    " + line for problem in r["trace"].get("failing", []) for line in problem.splitlines()]
        lines.append(f"statuses: {summary['statuses']}")
        lines.append(runs.closing_line(summary, "passes_demos", note="test outputs not available"))
        return lines
    lines = [f"  {agent}: solved {a['solved']}/{a['tasks']} (passes demos {a['passes_demos']})"
             for agent, a in sorted(summary["agents"].items())]
    lines.append(f"statuses: {summary['statuses']}; submission pass@2 {100 * summary['submission_pass_at_2']:.1f}%")
    lines.append(runs.closing_line(summary))
    return lines


class CuratedError(ValueError):
    """A curated folder that cannot be verified: no manifest, or a run folder placed inside it."""


def returned_files(folder: Path, manifest: dict) -> dict:
    """Per chunk's answers file: when it came back (mtime, UTC), its size and program count,
    or that it did not."""
    out = {}
    for chunk in manifest["chunks"].values():
        f = folder / chunk["answers"]
        if not f.is_file():
            out[chunk["answers"]] = {"returned": False}
            continue
        st = f.stat()
        out[chunk["answers"]] = {"returned": True, "size": st.st_size, "programs": len(read_programs(f)),
                                 "mtime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(st.st_mtime))}
    return out


def verify_curated(folder: str | os.PathLike, out_dir: str | os.PathLike, extra_programs: list = (),
                   tasks_spec: str | None = None, solutions: str | None = None, workers: int = 2,
                   time_limit_s: float = DEFAULT_TIME_S, library: str | None = None) -> dict:
    """The orchestrator's step, once the agents are done: verify the answers files of a curated
    folder (and `extra_programs`: files or folders) on the task set with its test outputs (the
    manifest's, unless `tasks_spec`), every curated task reported. The manifest records what
    came back; the summary too ("returned"). The run folder may not lie inside the curated
    folder, which agents read."""
    folder, out = Path(folder).resolve(), Path(out_dir).resolve()
    if out == folder or folder in out.parents:
        raise CuratedError(f"{out_dir}: the verified run holds test results; write it outside {folder}, "
                           "which agents can read")
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise CuratedError(f"{folder}: not a curate output folder (manifest.json: {e})") from None
    returned = returned_files(folder, manifest)
    programs = [p for name, r in returned.items() if r["returned"] for p in read_programs(folder / name)]
    programs += [p for path in extra_programs for p in read_programs(path)]
    tasks = load(tasks_spec or manifest["tasks"], solutions=solutions or manifest.get("solutions"))
    chosen, unknown = select_tasks(tasks, programs, manifest["task_ids"])
    if unknown:
        print(f"warning: programs for {len(unknown)} task ids not curated: {', '.join(unknown[:10])}",
              file=sys.stderr)
    manifest["returned"] = returned
    manifest["verified_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    tmp = folder / "manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=1))
    os.replace(tmp, folder / "manifest.json")
    summary = run_verify(chosen, programs, out, workers, time_limit_s, tasks.name, library)
    summary["returned"] = returned
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m shared verify", description=__doc__.splitlines()[0])
    p.add_argument("--tasks", help="task set: a curated chunk (an agent's check, demos only), or one with test "
                                   "outputs (arc1/train, a folder, ...); with --curated, the manifest's by default")
    p.add_argument("--solutions", help="Kaggle solutions file for a challenges file")
    p.add_argument("--programs", nargs="+", default=[],
                   help="program files or folders of them, or a run folder (its printed programs); with "
                        "--curated, added to the answers files the manifest names")
    p.add_argument("--curated", help="a curate output folder, once its agents are done: verify its answers "
                                     "files on the test outputs, report exactly its tasks (missing ones count)")
    p.add_argument("--ids", help="comma-separated task ids to report (default: those with programs)")
    p.add_argument("--workers", type=int, default=max(1, min(2, os.cpu_count() or 1)),
                   help="sandbox workers (default: 2 or the cores there are)")
    p.add_argument("--time-limit-s", type=float, default=DEFAULT_TIME_S, help="per program run (default 3)")
    p.add_argument("--library", choices=sorted(LIBRARIES),
                   help="a library the sandbox preloads for programs to import (dsl: printed DSL programs)")
    p.add_argument("--out", required=True, help="run folder to write")
    args = p.parse_args(argv)
    if not args.curated and not (args.tasks and args.programs):
        p.error("give --tasks and --programs, or --curated")
    try:
        if args.curated:
            summary = verify_curated(args.curated, args.out, args.programs, args.tasks, args.solutions,
                                     args.workers, args.time_limit_s, args.library)
            back = summary["returned"]
            print(f"answers returned: {sum(r['returned'] for r in back.values())} of {len(back)} files, "
                  f"{sum(r.get('programs', 0) for r in back.values())} programs"
                  + "".join(f"; missing {name}" for name, r in back.items() if not r["returned"]))
        else:
            tasks = load(args.tasks, solutions=args.solutions)
            programs = [prog for path in args.programs for prog in read_programs(path)]
            chosen, unknown = select_tasks(tasks, programs, args.ids.split(",") if args.ids else None)
            if unknown:
                print(f"warning: programs for {len(unknown)} task ids not in {args.tasks}: "
                      f"{', '.join(unknown[:10])}", file=sys.stderr)
            summary = run_verify(chosen, programs, args.out, args.workers, args.time_limit_s, args.tasks,
                                 args.library)
    except (TaskError, ProgramFileError, CuratedError, OSError, KeyError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print("\n".join(report_lines(runs.read_results(args.out), summary)))
    return 0
