"""`python -m shared synth`: program synthesis with a language model, verified in the sandbox.

Per task (test outputs stripped before anything sees it): ask the backend for K programs;
run each on the demos in the sandbox; stop at the first program that passes every demo.
Otherwise send the best program back with feedback naming the failing demo pairs and a
compact cell diff, and ask for K revisions, up to R rounds. One line per task goes to
DIR/transcripts.jsonl as it finishes (a rerun skips finished tasks); DIR/programs.json holds
each task's best program in the agents' format, ready for `python -m shared verify`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from shared import runs
from shared.agents import extract_code
from shared.agents.backends import BACKENDS, Backend, BackendError, make_backend
from shared.agents.feedback import feedback
from shared.agents.verify import RANK, program_status
from shared.config import PROFILES
from shared.formats import grid_to_text
from shared.programs import write_programs
from shared.sandbox import DEFAULT_TIME_S, SandboxPool, task_job
from shared.tasks import Task, TaskError, TaskSet, load, strip_test_outputs

TRANSCRIPTS = "transcripts.jsonl"
PROGRAMS = "programs.json"
REPLY_KEPT = 4000  # characters of each reply kept in the transcript

SYSTEM_PROMPT = (
    "You write Python programs that solve ARC puzzles. A puzzle shows example pairs of an input grid and "
    "an output grid; one hidden rule turns every input into its output. Write a function `solve(grid)` that "
    "applies the rule: `grid` is a list of rows, each a list of ints 0-9 (colours); return the output grid "
    "as a list of lists of ints 0-9 (a 2-d integer numpy array is also accepted). Python's builtins and "
    "numpy are available. Reply with the complete program in one ```python block."
)


def _grid_block(label: str, grid) -> str:
    return f"{label} ({grid.shape[0]}x{grid.shape[1]}):\n{grid_to_text(grid)}"


def task_prompt(task: Task) -> str:
    """The user message: every demo pair and the test inputs as digit grids."""
    parts = ["Each grid is written one row per line, one digit (a colour 0-9) per cell."]
    for i, p in enumerate(task.train, 1):
        parts.append(f"Example {i}\n{_grid_block('input', p.input)}\n{_grid_block('output', p.output)}")
    for i, p in enumerate(task.test, 1):
        parts.append(_grid_block(f"Test input {i}", p.input))
    parts.append("Write `solve(grid)` so that it turns every example input into its output exactly; it will "
                 "then be run on the test inputs.")
    return "\n\n".join(parts)


def initial_messages(task: Task) -> list[dict]:
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": task_prompt(task)}]


def synthesize_task(task: Task, backend: Backend, pool: SandboxPool, samples: int, rounds: int,
                    temperature: float, max_new_tokens: int) -> dict:
    """The loop for one task; returns its transcript record (test outputs never used)."""
    task = strip_test_outputs(task)
    t0 = time.perf_counter()
    messages = initial_messages(task)
    record = {"task_id": task.id, "status": "no_code", "demos_passed": 0, "code": None, "round": None,
              "rounds_used": 0, "samples": [], "error": None}
    best = None  # (rank key, code, reply, verdict)
    for rnd in range(rounds + 1):
        record["rounds_used"] = rnd
        try:
            replies = backend.complete(messages, samples, temperature, max_new_tokens)
        except BackendError as e:
            record["error"] = str(e)
            record["status"] = record["status"] if best else "skipped"
            break
        codes = [extract_code(r) for r in replies]
        jobs = [(k, c) for k, c in enumerate(codes) if c is not None]
        verdicts = dict(zip([k for k, _ in jobs], pool.run_many([task_job(c, task) for _, c in jobs]),
                            strict=True))
        round_best = None
        for k, (reply, code) in enumerate(zip(replies, codes, strict=True)):
            entry = {"round": rnd, "sample": k, "reply": reply[:REPLY_KEPT], "has_code": code is not None}
            if code is not None:
                status, passed = program_status(task, verdicts[k])
                entry.update(status=status, demos_passed=passed, detail=verdicts[k].detail)
                key = (RANK[status], -passed, rnd, k)
                if best is None or key < best[0]:
                    best = (key, code, reply, verdicts[k])
                    record.update(status=status, demos_passed=passed, code=code, round=rnd)
                if round_best is None or key < round_best[0]:
                    round_best = (key, reply, verdicts[k])
            record["samples"].append(entry)
        if record["status"] == "passes_demos" or rnd == rounds:
            break
        # revise the best program of this round, or ask again for code when there was none
        if round_best is None:
            messages = messages + [{"role": "assistant", "content": replies[0][:REPLY_KEPT] if replies else ""},
                                   {"role": "user", "content": feedback(task, None)}]
        else:
            messages = messages + [{"role": "assistant", "content": round_best[1][:REPLY_KEPT]},
                                   {"role": "user", "content": feedback(task, round_best[2])}]
    record["messages"] = messages[1:]  # the system prompt is the same for every task
    record["seconds"] = round(time.perf_counter() - t0, 3)
    return record


def read_transcripts(out_dir: str | os.PathLike) -> list[dict]:
    """Finished tasks of a synth run (a torn last line from a killed run: that task is redone)."""
    return runs.read_rows(Path(out_dir) / TRANSCRIPTS)


def run_synth(tasks: list[Task], backend: Backend, out_dir: str | os.PathLike, samples: int, rounds: int,
              temperature: float, max_new_tokens: int, time_limit_s: float = DEFAULT_TIME_S, workers: int = 1,
              progress: bool = True) -> dict:
    """Synthesize every task not already in out_dir; write transcripts, programs, summary."""
    from tqdm.auto import tqdm

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    done = {r["task_id"]: r for r in read_transcripts(out)}
    todo = [t for t in tasks if t.id not in done]
    t0 = time.perf_counter()
    path = out / TRANSCRIPTS
    runs.drop_torn_tail(path)
    with SandboxPool(workers=workers, time_limit_s=time_limit_s) as pool, open(path, "a") as f:
        for t in tqdm(todo, desc="synth", unit="task", disable=not progress, file=sys.stderr):
            rec = synthesize_task(t, backend, pool, samples, rounds, temperature, max_new_tokens)
            rec.update(backend=backend.name, model=getattr(backend, "model_name", ""))
            runs.append(f, rec)
            done[t.id] = rec
    rows = [done[t.id] for t in tasks if t.id in done]
    write_programs(out / PROGRAMS, [
        {"task_id": r["task_id"], "code": r["code"], "status": r["status"], "demos_passed": r["demos_passed"],
         "round": r["round"], "backend": r.get("backend"), "model": r.get("model")}
        for r in rows if r["code"]])
    statuses: dict[str, int] = {}
    for r in rows:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    n = len(rows)
    summary = {"backend": backend.name, "model": getattr(backend, "model_name", ""), "n_tasks": n,
               "passes_demos": statuses.get("passes_demos", 0), "statuses": statuses,
               "samples": samples, "rounds": rounds, "temperature": temperature, "max_new_tokens": max_new_tokens,
               "replies": sum(len(r["samples"]) for r in rows),
               "with_code": sum(s["has_code"] for r in rows for s in r["samples"]),
               "wall_s": round(time.perf_counter() - t0, 2)}
    (out / "synth_summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m shared synth", description=__doc__.splitlines()[0])
    p.add_argument("--tasks", required=True, help="arc1/train, a folder, a curate chunk file's set, ...")
    p.add_argument("--ids", help="comma-separated task ids")
    p.add_argument("--curated", help="a curate output folder: synthesize exactly its tasks")
    p.add_argument("--limit", type=int, help="only the first N tasks")
    p.add_argument("--backend", choices=BACKENDS, default="transformers")
    p.add_argument("--model", default="tiny", help="tiny, a hub id or folder (transformers); the served model "
                                                   "name (openai)")
    p.add_argument("--base-url", help="openai backend: endpoint (default: ARC_LLM_BASE_URL / OPENAI_BASE_URL)")
    p.add_argument("--profile", default="cpu", choices=sorted(PROFILES),
                   help="default sizes, from the profile's `synth` (default cpu)")
    p.add_argument("--samples", type=int, help="K programs per request")
    p.add_argument("--rounds", type=int, help="R revision rounds")
    p.add_argument("--temperature", type=float)
    p.add_argument("--max-new-tokens", type=int)
    p.add_argument("--time-limit-s", type=float, default=DEFAULT_TIME_S, help="sandbox limit per program run")
    p.add_argument("--workers", type=int, default=1, help="sandbox workers (default 1)")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--out", required=True, help="run folder (resumed if it exists)")
    args = p.parse_args(argv)
    sizes = PROFILES[args.profile].synth
    try:
        tasks: list[Task] = list(load(args.tasks))
        ids = args.ids.split(",") if args.ids else None
        if args.curated:
            ids = json.loads((Path(args.curated) / "manifest.json").read_text())["task_ids"]
        if ids is not None:
            by_id = TaskSet(tasks).by_id()
            missing = [i for i in ids if i not in by_id]
            if missing:
                raise TaskError(f"task ids not in {args.tasks}: {', '.join(missing)}")
            tasks = [by_id[i] for i in ids]
        if args.limit is not None:
            tasks = tasks[: args.limit]
        options = {"base_url": args.base_url} if args.backend == "openai" and args.base_url else {}
        backend = make_backend(args.backend, args.model, **options)
    except (TaskError, BackendError, OSError, KeyError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    summary = run_synth(tasks, backend, args.out,
                        args.samples if args.samples is not None else sizes.samples,
                        args.rounds if args.rounds is not None else sizes.rounds,
                        args.temperature if args.temperature is not None else sizes.temperature,
                        args.max_new_tokens or sizes.max_new_tokens, args.time_limit_s, args.workers,
                        progress=not args.no_progress)
    print(f"statuses: {summary['statuses']}; programs in {Path(args.out) / PROGRAMS}")
    print(runs.closing_line(summary, "passes_demos",
                            note=f"{summary['with_code']}/{summary['replies']} replies held a program"))
    return 0
