"""Run a solver over a task set within a per-task budget, resumably, into a run folder.

Tasks go to persistent worker processes (the solver is built once per worker, so a model
loads once); a worker past its budget (plus a grace period) is killed and replaced and the
task recorded as timed out; a worker that dies is recorded as an error. One JSON line per
task is appended to DIR/results.jsonl as it finishes, so a killed run resumes where it
stopped. At the end: submission.json, summary.json, report.html and the closing line
`solved X/Y tasks (Z%) in T s`. `workers=0` runs in this process (no hard budget).
`--engine ray` puts the workers on a Ray cluster instead (`shared.ray_engine`), same run folder.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import resource
import sys
import time
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path

from shared import runs, slots
from shared.grids import to_list
from shared.scoring import write_submission
from shared.solvers import Prediction, Solver, make_solver
from shared.solvers import available as available_solvers
from shared.tasks import Task, TaskError, TaskSet, as_grid, load, strip_test_outputs, task_from_json

GRACE_S = 5.0  # a solver gets this long past its budget to return before it is killed
START_TIMEOUT_S = 600.0  # building a solver (loading a model) may take minutes on Colab
ENGINES = ("local", "ray")  # where run() solves tasks: a process pool here, or a Ray cluster


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports kB


def solve_one(solver: Solver, task: Task, budget_s: float) -> dict:
    """Solve one (stripped) task in this process; return the result fields a worker sends."""
    t0 = time.perf_counter()
    try:
        pred = solver.solve(task, budget_s)
        if not isinstance(pred, Prediction):
            raise TypeError(f"solver returned {type(pred).__name__}, expected Prediction")
        if len(pred.attempts) != len(task.test):
            raise ValueError(f"solver returned {len(pred.attempts)} answer lists for {len(task.test)} test inputs")
        attempts = [[to_list(as_grid(g, f"task {task.id}: answer {i}.{j}")) for j, g in enumerate(cands)]
                    for i, cands in enumerate(pred.attempts)]
        out = {"status": "done", "attempts": attempts, "trace": pred.trace, "error": None}
    except MemoryError:
        out = {"status": "error", "attempts": None, "trace": {}, "error": "MemoryError"}
    except Exception as e:  # a solver bug is recorded against its task, the run goes on
        tb = traceback.format_exc(limit=-3)
        out = {"status": "error", "attempts": None, "trace": {}, "error": f"{type(e).__name__}: {e}\n{tb}"}
    out["time_s"] = round(time.perf_counter() - t0, 3)
    out["peak_rss_mb"] = round(_peak_rss_mb(), 1)
    return out


def _worker(conn, solver_name: str, options: dict, max_mem_gb: float | None) -> None:
    if max_mem_gb:
        limit = int(max_mem_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        solver = make_solver(solver_name, **options)
    except Exception as e:  # reported to the parent, which stops the run with this message
        conn.send({"status": "fatal", "error": f"cannot build solver {solver_name!r}: {type(e).__name__}: {e}"})
        return
    conn.send({"status": "ready", "pid": os.getpid()})
    while True:
        msg = conn.recv()
        if msg is None:
            return
        task_json, task_id, budget_s = msg
        task = task_from_json(task_json, task_id)
        conn.send(solve_one(solver, task, budget_s))


@dataclass
class _Slot:
    index: int
    proc: mp.Process | None = None
    conn: object = None
    task: Task | None = None
    started: float = 0.0
    budget_s: float = 0.0  # of the task in flight: the run's, or less when the deadline is near
    ready: bool = False
    peak_rss_mb: float = 0.0
    history: list[float] = field(default_factory=list)  # peak RSS of each process this slot ran


class BenchError(RuntimeError):
    pass


def _result_row(task: Task, solver_name: str, worker: int, res: dict) -> dict:
    """A worker's message as a results row: a solver that answered ("done") is judged on its attempts."""
    return runs.result_row(task, solver_name, None if res["status"] == "done" else res["status"],
                           res.get("attempts"), time_s=res.get("time_s"), trace=res.get("trace"),
                           error=res.get("error"), worker=worker, peak_rss_mb=res.get("peak_rss_mb"))


class Runner:
    """Holds the worker pool; `run` feeds it tasks and writes rows as they finish."""

    def __init__(self, solver_name: str, options: dict, workers: int, max_mem_gb: float | None):
        self.solver_name, self.options, self.max_mem_gb = solver_name, options, max_mem_gb
        self.ctx = mp.get_context("spawn")  # no inherited threads or locks; same on macOS
        self.slots = [_Slot(i) for i in range(workers)]

    def _start(self, slot: _Slot) -> None:
        parent, child = self.ctx.Pipe()
        slot.proc = self.ctx.Process(target=_worker, args=(child, self.solver_name, self.options, self.max_mem_gb),
                                     daemon=True)
        slot.proc.start()
        child.close()
        slot.conn, slot.ready, slot.task, slot.peak_rss_mb = parent, False, None, 0.0
        slot.started = time.monotonic()

    def _kill(self, slot: _Slot) -> None:
        if slot.proc is not None:
            slot.proc.kill()
            slot.proc.join(5)
            slot.history.append(slot.peak_rss_mb)
        slot.proc = None

    def close(self) -> None:
        for s in self.slots:
            if s.proc is not None and s.proc.is_alive() and s.ready and s.task is None:
                try:
                    s.conn.send(None)
                    s.proc.join(2)
                except (BrokenPipeError, OSError):
                    pass
            self._kill(s)

    def run(self, tasks: list[Task], budget_s: float, emit, deadline: float | None = None) -> None:
        """Solve tasks on the pool; past `deadline` (a time.monotonic() value) no task starts
        and one in flight is killed and emitted as a timeout; tasks never started emit nothing."""
        pending = list(reversed(tasks))
        if not slots.is_open(deadline):
            return
        # one worker builds its solver first, so what the solver caches on disk (numba's compiled
        # kernels, a downloaded model) is made once; the others start when it is ready
        self._start(self.slots[0])
        while (pending and slots.is_open(deadline)) or any(s.task is not None for s in self.slots):
            for s in slots.assign(self.slots, pending, budget_s, deadline):  # idle ready workers take work
                s.conn.send((strip_test_outputs(s.task).to_json(), s.task.id, s.budget_s))
            conns = {s.conn: s for s in self.slots if s.proc is not None}
            for conn in wait(list(conns), timeout=0.2):
                s = conns[conn]
                try:
                    msg = conn.recv()
                except (EOFError, OSError):
                    code = s.proc.exitcode if s.proc else None
                    if s.task is not None:
                        emit(s.task, s.index, {"status": "error", "time_s": round(time.monotonic() - s.started, 3),
                                               "error": f"worker died (exit code {code}): crash or out of memory",
                                               "peak_rss_mb": s.peak_rss_mb or None})
                    elif not s.ready:
                        raise BenchError(f"worker for solver {self.solver_name!r} died while starting "
                                         f"(exit code {code})") from None
                    self._kill(s)
                    self._start(s)
                    continue
                if msg["status"] == "fatal":
                    raise BenchError(msg["error"])
                if msg["status"] == "ready":
                    s.ready = True
                    for other in self.slots:
                        if other.proc is None and not other.history:
                            self._start(other)
                    continue
                s.peak_rss_mb = max(s.peak_rss_mb, msg.get("peak_rss_mb") or 0.0)
                task, s.task = s.task, None
                emit(task, s.index, msg)
            slots.stop_overdue(self.slots, deadline, GRACE_S, emit, self._kill, self._start)
            now = time.monotonic()
            for s in self.slots:
                if not s.ready and s.proc is not None and now - s.started > START_TIMEOUT_S:
                    raise BenchError(f"solver {self.solver_name!r} did not start within {START_TIMEOUT_S:g} s")

    def peak_rss_per_worker(self) -> list[float]:
        return [round(max([s.peak_rss_mb, *s.history]), 1) for s in self.slots]


def run(tasks: TaskSet | list[Task], out_dir: str | os.PathLike, solver: str | Solver = "identity",
        budget_s: float = 30.0, workers: int = 1, options: dict | None = None,
        max_mem_gb: float | None = None, progress: bool = True, tasks_name: str | None = None,
        deadline: float | None = None, engine: str = "local", address: str | None = None) -> dict:
    """Solve every task not already in out_dir/results.jsonl; write the run folder; return
    the summary. `solver` is a registered name, or a built solver object (runs in-process).

    `deadline` is a `time.monotonic()` value (a notebook's start plus its platform's limit, so
    one clock serves every call): past it no task starts and one in flight is stopped (its
    worker killed, a timeout row; in-process its budget is cut to the time left). Tasks never
    started get no row, so a rerun resumes them; submission.json still answers every task.

    `engine`: "local" (a process pool here) or "ray" (`shared.ray_engine`: actors on the Ray
    cluster at `address`, or on a private Ray here when None); both write the same run folder."""
    from tqdm.auto import tqdm

    from shared.report import write_report

    _check_engine(engine, address, solver, workers)
    options = options or {}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    solver_name = solver if isinstance(solver, str) else getattr(solver, "name", type(solver).__name__)
    meta_path = out / "run.json"
    meta = {"solver": solver_name, "tasks": tasks_name or getattr(tasks, "name", ""), "options": options}
    if meta_path.exists():
        old = json.loads(meta_path.read_text())
        if old.get("solver") != solver_name or old.get("tasks") != meta["tasks"]:
            raise BenchError(f"{out} holds a run of solver {old.get('solver')!r} on {old.get('tasks')!r}; "
                             f"choose another --out for {solver_name!r} on {meta['tasks']!r}")
        if old.get("options") != json.loads(json.dumps(options)):
            # mixing answers of two configurations in one run would make its score mean nothing
            raise BenchError(f"{out} holds a run of {solver_name!r} with options {old.get('options')}; "
                             f"choose another --out for options {options}")
    meta_path.write_text(json.dumps(meta, indent=1))

    runs.drop_torn_tail(out / runs.RESULTS)
    by_id = {t.id: t for t in tasks}
    done = {r["task_id"]: r for r in runs.read_results(out) if r["task_id"] in by_id}
    todo = [t for t in tasks if t.id not in done]
    t0 = time.perf_counter()
    bar = tqdm(total=len(tasks), initial=len(done), desc=f"{solver_name}", unit="task", disable=not progress,
               file=sys.stderr, dynamic_ncols=True)
    solved = [sum(r["status"] == "solved" for r in done.values())]
    answered = [sum(any(r["attempts"]) for r in done.values())]  # what an unscored set's bar counts
    with open(out / runs.RESULTS, "a") as f:
        def emit(task: Task, worker: int, res: dict) -> None:
            row = _result_row(task, solver_name, worker, res)
            runs.append(f, row)
            done[task.id] = row
            solved[0] += row["status"] == "solved"
            answered[0] += any(row["attempts"])
            bar.update(1)
            if task.has_solutions():
                bar.set_postfix(solved=solved[0])
            else:  # no test outputs: nothing can be solved, so say how many tasks got an answer
                bar.set_postfix(answered=answered[0])

        if not isinstance(solver, str) or workers == 0:
            built = make_solver(solver, **options) if isinstance(solver, str) else solver
            for t in todo:
                left = budget_s if deadline is None else deadline - time.monotonic()
                if left <= 0:
                    break
                emit(t, 0, solve_one(built, strip_test_outputs(t), min(budget_s, left)))
            peaks = [round(_peak_rss_mb(), 1)]
        else:
            runner = _make_runner(engine, address, solver_name, options, max(1, min(workers, len(todo) or 1)),
                                  max_mem_gb)
            try:
                if todo:
                    runner.run(todo, budget_s, emit, deadline)
            finally:
                runner.close()
            peaks = runner.peak_rss_per_worker()
    bar.close()
    wall = time.perf_counter() - t0
    rows = [done[t.id] for t in tasks if t.id in done]
    summary = summarise(rows, solver_name, meta["tasks"], budget_s, workers, wall, peaks)
    summary["not_started"] = len(tasks) - len(rows)
    if summary["not_started"]:
        print(f"deadline passed: {summary['not_started']} of {len(tasks)} tasks not started (answered with "
              f"fallbacks in submission.json; run again with the same --out to resume them)", file=sys.stderr)
    # the TaskSet itself: ids a lenient load skipped get fallback entries, as Kaggle wants every id
    write_submission(out / "submission.json",
                     {r["task_id"]: [[as_grid(g) for g in c] for c in r["attempts"]] for r in rows}, tasks)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    write_report(out)
    return summary


def _check_engine(engine: str, address: str | None, solver: str | Solver, workers: int) -> None:
    """Refuse an engine that cannot run before anything is written (Ray missing included)."""
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r}: expected one of {', '.join(ENGINES)}")
    if engine == "local":
        if address is not None:
            raise ValueError("an address is for --engine ray; the local engine runs on this machine")
        return
    if not isinstance(solver, str) or workers < 1:
        raise ValueError("--engine ray runs a registered solver (a name, not an object) on 1 or more --workers")
    from shared import ray_engine  # an optional extra: imported only when asked for

    ray_engine.require_ray(BenchError, private=address is None)


def _make_runner(engine: str, address: str | None, solver_name: str, options: dict, workers: int,
                 max_mem_gb: float | None):
    if engine == "local":
        return Runner(solver_name, options, workers, max_mem_gb)
    from shared import ray_engine

    return ray_engine.RayRunner(solver_name, options, workers, max_mem_gb, address=address, solve_task=solve_one,
                                grace_s=GRACE_S, start_timeout_s=START_TIMEOUT_S, error=BenchError)


def summarise(rows: list[dict], solver: str, tasks_name: str, budget_s: float, workers: int,
              wall_s: float, peaks: list[float]) -> dict:
    times = sorted(r["time_s"] or 0.0 for r in rows)
    statuses: dict[str, int] = {}
    for r in rows:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    n = len(rows)
    solved = statuses.get("solved", 0)
    # per worker slot, the highest RSS any of its tasks reported: a resumed run keeps the peaks of
    # the invocations before it
    by_worker: dict[int, float] = {}
    for r in rows:
        if r.get("peak_rss_mb") is not None:
            by_worker[r.get("worker", 0)] = max(by_worker.get(r.get("worker", 0), 0.0), r["peak_rss_mb"])
    peaks = [round(max(by_worker.get(i, 0.0), p), 1) for i, p in enumerate(peaks)] + \
        [by_worker[i] for i in sorted(by_worker) if i >= len(peaks)]
    scored = n - statuses.get("unscored", 0)
    return {
        "solver": solver,
        "tasks": tasks_name,
        "n_tasks": n,
        "solved": solved,
        "pass_at_2": round(solved / n, 4) if n else 0.0,
        "scored": scored,
        "statuses": statuses,
        "budget_s": budget_s,
        "workers": workers,
        "wall_s": round(wall_s, 2),
        "time_per_task_s": {"mean": round(sum(times) / n, 3) if n else 0.0,
                            "median": times[n // 2] if n else 0.0, "max": times[-1] if n else 0.0},
        "peak_rss_mb_per_worker": peaks,
        "peak_rss_mb": max(peaks) if peaks else 0.0,
    }


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m shared solve", description="Run a solver over a task set.")
    p.add_argument("--solver", default="dsl", help="solver name (default: dsl; identity, model, ...)")
    p.add_argument("--tasks", required=True, help="arc1/train, arc1/eval, arc2/train, arc2/eval, a folder, "
                                                  "a task file or a Kaggle challenges file")
    p.add_argument("--solutions", help="Kaggle solutions file for a challenges file")
    p.add_argument("--limit", type=int, help="only the first N tasks (sorted by id)")
    p.add_argument("--ids", help="comma-separated task ids to run")
    p.add_argument("--budget-s", type=float, default=30.0, help="per-task time budget in seconds (default 30)")
    p.add_argument("--workers", type=int, default=max(1, min(2, os.cpu_count() or 1)),
                   help="worker processes (default: 2 or the cores there are; 0 = in this process)")
    p.add_argument("--max-mem-gb", type=float, help="address-space limit per worker (GB)")
    p.add_argument("--engine", choices=ENGINES, default="local",
                   help="local: worker processes here (default); ray: Ray actors (pip install 'arc-suite[ray]')")
    p.add_argument("--address", help="with --engine ray: the cluster to join (auto, HOST:6379 of `ray start "
                                     "--head`, ray://HOST:10001); default: a private Ray on this machine")
    p.add_argument("--deadline-s", type=float, help="stop solving this many seconds from now; tasks not started "
                                                    "are left for a rerun, submission.json still answers all")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="solver option, JSON value (e.g. --option model=tiny --option max_new_tokens=64)")
    p.add_argument("--lenient", action="store_true", help="skip malformed tasks (listed) instead of stopping")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--out", required=True, help="run folder (resumed if it exists)")
    args = p.parse_args(argv)
    # checked before anything is read or written, so a bad value leaves no run folder behind
    for flag, value in (("--budget-s", args.budget_s), ("--max-mem-gb", args.max_mem_gb)):
        if value is not None and not (math.isfinite(value) and value > 0):
            p.error(f"{flag} must be a number > 0, got {value:g}")
    # 0 is a deadline already passed: nothing is solved, submission.json still answers every task
    if args.deadline_s is not None and not (math.isfinite(args.deadline_s) and args.deadline_s >= 0):
        p.error(f"--deadline-s must be a number >= 0, got {args.deadline_s:g}")
    if args.workers < 0:
        p.error(f"--workers must be >= 0 (0: in this process), got {args.workers}")
    if args.limit is not None and args.limit < 1:
        p.error(f"--limit must be >= 1, got {args.limit}")
    if ":" not in args.solver and args.solver not in available_solvers():
        p.error(f"--solver {args.solver!r}: no such solver; available: {', '.join(available_solvers())}")
    options = {}
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep:
            p.error(f"--option {item!r}: expected KEY=VALUE")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    try:
        tasks = load(args.tasks, solutions=args.solutions, lenient=args.lenient)
    except TaskError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for problem in tasks.skipped:
        print(f"skipped: {problem}", file=sys.stderr)
    if args.ids:
        try:
            tasks = tasks.only(args.ids.split(","))
        except TaskError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    if args.limit is not None:
        tasks = TaskSet(tasks[: args.limit], tasks.name)
    deadline = None if args.deadline_s is None else time.monotonic() + args.deadline_s
    try:
        summary = run(tasks, args.out, args.solver, args.budget_s, args.workers, options, args.max_mem_gb,
                      progress=not args.no_progress, tasks_name=args.tasks, deadline=deadline,
                      engine=args.engine, address=args.address)
    except (BenchError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # workers are stopped by then; every finished row is on disk
        print(f"interrupted: finished tasks are kept in {args.out}; run the same command to resume",
              file=sys.stderr)
        return 130
    print(runs.closing_line(summary))
    return 0
