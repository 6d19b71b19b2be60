"""`python -m shared dsl-bench`: how fast the DSL search runs, per task and as medians.

Per task, in this process: the whole solver at `--budget-s` (states generated, summed over its
passes, the compiled core's and the Python search's, per second of the task: the measure issue
21's speed target is stated in), then the bare compiled enumeration (`CoreSearch`) to depth 2 and
to depth 3, each capped at `--cap-s`: seconds to exhaust the depth, or why it stopped first (time,
memory), with states generated and expanded per second and image ops run per second (each
distinct image an op makes of an input's image, computed once and cached: the measure the
reference's speed is quoted in). First, in fresh processes, the JIT
compile time of the core and every kernel: cold (an empty cache) and cached (a second process on
that cache). Also the process's peak RSS. With `--fits`, the solver alone, its learned endings'
fits timed one by one (`fitters.FITTERS`): seconds, calls and endings found per fit, and their
share of the solver's time. A benchmark, not a test: the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

from shared import runs
from shared.solvers.dsl import fitters, jit
from shared.solvers.dsl.core.search import CoreSearch
from shared.solvers.dsl.solver import DslSolver
from shared.tasks import TaskError, load, strip_test_outputs

DEPTHS = (2, 3)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports kB


_WARM = "import time; t = time.monotonic(); from shared.solvers.dsl.core.search import warm; warm(); " \
        "print(time.monotonic() - t)"


def compile_times() -> tuple[float, float]:
    """Seconds to import and compile the core with every kernel into an empty cache, then to
    load it from that cache, each in a fresh process."""
    root = Path(__file__).resolve().parents[3]
    out = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, ARC_DSL_CACHE=cache, PYTHONPATH=str(root))
        for _ in range(2):
            t0 = time.monotonic()
            subprocess.run([sys.executable, "-c", _WARM], env=env, check=True, capture_output=True, cwd=root)
            out.append(time.monotonic() - t0)
    return out[0], out[1]


def enumerate_depth(task, depth: int, cap_s: float) -> dict:
    """The bare compiled enumeration of `task` to `depth`, stopped after `cap_s` seconds at most."""
    t0 = time.monotonic()
    s = CoreSearch([p.input for p in task.train], [p.output for p in task.train], [p.input for p in task.test],
                   t0 + cap_s, max_depth=depth)
    s.run()
    secs = time.monotonic() - t0
    st = s.stats
    return {"depth": depth, "seconds": round(secs, 3), "stopped": st.stopped, "generated": st.generated,
            "expanded": st.expanded, "generated_per_s": round(st.generated / secs, 1) if secs else 0.0,
            # a last step stopped at the first demo (no better than its state there) is checked, not generated
            "pruned": st.pruned, "checked_per_s": round((st.generated + st.pruned) / secs, 1) if secs else 0.0,
            "expanded_per_s": round(st.expanded / secs, 1) if secs else 0.0,
            # image ops run, each image once per input DAG: the reference's own measure of speed
            "computed": st.computed, "images_per_s": round(st.computed / secs, 1) if secs else 0.0,
            "exhausted_s": round(secs, 3) if st.stopped == "exhausted" else None}


def measure(task, budget_s: float, cap_s: float) -> dict:
    """One task's figures: the solver at its budget, then each depth of the bare enumeration."""
    t0 = time.monotonic()
    pred = DslSolver().solve(strip_test_outputs(task), budget_s)
    secs = time.monotonic() - t0
    passes = pred.trace.get("passes", [])
    generated = sum(p["generated"] for p in passes)
    row = {"task_id": task.id, "solver_s": round(secs, 3), "solver_generated": generated,
           "solver_expanded": sum(p["expanded"] for p in passes),
           "solver_states_per_s": round(generated / secs, 1) if secs else 0.0,
           "depths": [enumerate_depth(task, d, cap_s) for d in DEPTHS]}
    row["peak_rss_mb"] = round(peak_rss_mb(), 1)
    return row


@contextmanager
def timed_fits(totals: dict):
    """Within it, every entry of `fitters.FITTERS` adds [seconds, calls, endings found] to totals[its name]."""
    def timed(name, fit):
        def run(*args):
            t0 = time.perf_counter()
            found = fit(*args)
            row = totals[name]
            row[0] += time.perf_counter() - t0
            row[1] += 1
            row[2] += len(found)
            return found
        return run

    original = fitters.FITTERS
    fitters.FITTERS = tuple(dataclasses.replace(f, fit=timed(f.name, f.fit)) for f in original)
    try:
        yield totals
    finally:
        fitters.FITTERS = original


def measure_fits(task, budget_s: float) -> dict:
    """One task's solver run with its fits timed: {"task_id", "solver_s", "fits": {name: [s, calls, found]}}."""
    totals = defaultdict(lambda: [0.0, 0, 0])
    with timed_fits(totals):
        t0 = time.monotonic()
        DslSolver().solve(strip_test_outputs(task), budget_s)
        secs = time.monotonic() - t0
    return {"task_id": task.id, "solver_s": round(secs, 3),
            "fits": {k: [round(v[0], 4), v[1], v[2]] for k, v in totals.items()}}


def fit_table(rows: list[dict]) -> list[tuple]:
    """(name, seconds, calls, found, share of the solver's time) per fit over rows, the dearest first."""
    solver_s = sum(r["solver_s"] for r in rows) or 1.0
    totals = defaultdict(lambda: [0.0, 0, 0])
    for r in rows:
        for name, (secs, calls, found) in r["fits"].items():
            t = totals[name]
            t[0], t[1], t[2] = t[0] + secs, t[1] + calls, t[2] + found
    return sorted(((k, v[0], v[1], v[2], v[0] / solver_s) for k, v in totals.items()), key=lambda r: -r[1])


def _fits_main(tasks, budget_s: float, out: str | None) -> int:
    DslSolver()  # compiles or loads the core here, outside every task's clock
    rows = []
    for task in tasks:
        row = measure_fits(task, budget_s)
        rows.append(row)
        fit_s = sum(v[0] for v in row["fits"].values())
        print(f"{task.id}  solver {row['solver_s']:6.2f} s  fits {fit_s:6.2f} s", flush=True)
        if out:
            runs.append(out, row)
    table = fit_table(rows)
    if out:
        runs.append(out, {"summary": {"tasks": len(rows), "solver_s": round(sum(r["solver_s"] for r in rows), 2),
                                      "fits": table}})
    print(f"{'fit':<18} {'seconds':>8} {'calls':>8} {'found':>7} {'share':>6}")
    for name, secs, calls, found, share in table:
        print(f"{name:<18} {secs:8.2f} {calls:8d} {found:7d} {share:6.1%}")
    total, solver_s = sum(r[1] for r in table), sum(r["solver_s"] for r in rows)
    share = total / solver_s if solver_s else 0.0
    print(f"all fits {total:.1f} s of the solver's {solver_s:.1f} s over {len(rows)} tasks ({share:.1%})")
    return 0


def _median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarise(rows: list[dict], compile_s: tuple | None = None) -> dict:
    out = {"tasks": len(rows), "median_solver_states_per_s": _median(r["solver_states_per_s"] for r in rows),
           "compile_cold_s": round(compile_s[0], 1) if compile_s else None,
           "compile_cached_s": round(compile_s[1], 2) if compile_s else None,
           "peak_rss_mb": max((r["peak_rss_mb"] for r in rows), default=0.0)}
    for i, d in enumerate(DEPTHS):
        cells = [r["depths"][i] for r in rows]
        out[f"depth{d}"] = {
            "median_generated_per_s": _median(c["generated_per_s"] for c in cells),
            "median_expanded_per_s": _median(c["expanded_per_s"] for c in cells),
            "median_checked_per_s": _median(c["checked_per_s"] for c in cells),
            "median_images_per_s": _median(c["images_per_s"] for c in cells),
            "exhausted": sum(c["exhausted_s"] is not None for c in cells),
            "median_exhausted_s": _median(c["exhausted_s"] for c in cells)}
    return out


def _line(row: dict) -> str:
    depth = "  ".join(f"d{c['depth']} {c['stopped']:<9} {c['seconds']:6.2f} s {c['generated_per_s']:>9,.0f} gen/s"
                      for c in row["depths"])
    return f"{row['task_id']}  solver {row['solver_states_per_s']:>9,.0f} states/s  {depth}"


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m shared dsl-bench", description=__doc__.splitlines()[0])
    p.add_argument("--tasks", default="arc1/train", help="a task set (default arc1/train; develop on training splits)")
    p.add_argument("--limit", type=int, default=50, help="the first N tasks (default 50)")
    p.add_argument("--budget-s", type=float, default=5.0, help="the solver's budget per task (default 5)")
    p.add_argument("--cap-s", type=float, default=10.0, help="most seconds per depth of the bare enumeration (10)")
    p.add_argument("--out", help="a JSON-lines file the per-task rows are appended to, and the summary after")
    p.add_argument("--no-compile", action="store_true", help="skip the cold and cached compile timings")
    p.add_argument("--fits", action="store_true",
                   help="the solver alone, with the time each learned ending's fit takes (no enumeration, no compile)")
    args = p.parse_args(argv)
    if args.budget_s <= 0 or args.cap_s <= 0:
        p.error("--budget-s and --cap-s must be positive")
    try:
        tasks = load(args.tasks)[: args.limit]
    except TaskError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.fits:
        return _fits_main(tasks, args.budget_s, args.out)
    compile_s = None
    if not jit.COMPILED:
        print(f"compiled core: no, numba unavailable ({jit.REASON}); the kernels run as plain Python")
    elif not args.no_compile:
        compile_s = compile_times()
        print(f"compiled core: JIT compile {compile_s[0]:.1f} s cold (empty cache), {compile_s[1]:.2f} s cached "
              "(fresh processes, import included)", flush=True)
    DslSolver()  # compiles or loads the core here, outside every task's clock
    rows = []
    for task in tasks:
        row = measure(task, args.budget_s, args.cap_s)
        rows.append(row)
        print(_line(row), flush=True)
        if args.out:
            runs.append(args.out, row)
    summary = summarise(rows, compile_s)
    if args.out:
        runs.append(args.out, {"summary": summary})
    d2, d3 = summary["depth2"], summary["depth3"]
    print(f"median over {len(rows)} tasks: solver {summary['median_solver_states_per_s']:,.0f} states/s; "
          f"depth 2 {d2['median_generated_per_s']:,.0f} generated/s, exhausted on {d2['exhausted']}; "
          f"depth 3 {d3['median_generated_per_s']:,.0f} generated/s ({d3['median_checked_per_s']:,.0f} checked/s, "
          f"{d3['median_images_per_s']:,.0f} image ops/s), "
          f"exhausted on {d3['exhausted']} "
          f"within {args.cap_s:g} s; peak RSS {summary['peak_rss_mb']:.0f} MB")
    return 0
