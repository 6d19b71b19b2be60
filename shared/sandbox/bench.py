"""`python -m shared sandbox-bench`: program verifications per second, sandbox vs plain exec.

One verification runs a program on every demo input and test input of a task and compares
each output with the expected grid. Simple programs (flips, transposes, copies) over
arc1/train tasks measure the sandbox's own overhead; the same jobs run by plain in-process
`exec` (one core, no isolation at all) give the ceiling.
"""

from __future__ import annotations

import argparse
import os
import time

from shared.grids import same
from shared.sandbox import SandboxPool, task_job
from shared.tasks import as_grid, load

SIMPLE_PROGRAMS = (
    "def solve(grid):\n    return [row[::-1] for row in grid]\n",
    "def solve(grid):\n    return grid[::-1]\n",
    "def solve(grid):\n    return [list(col) for col in zip(*grid)]\n",
    "import numpy as np\n\ndef solve(grid):\n    return np.rot90(np.array(grid), 2)\n",
    "def solve(grid):\n    return [row[:] for row in grid]\n",
)


def plain_verify(job) -> bool:
    """The same verification with exec in this process: what the sandbox costs is the rest."""
    namespace: dict = {"__name__": "solution"}
    exec(compile(job.code, "<solution>", "exec"), namespace)
    ok = True
    for grid, want in zip(job.inputs, job.expected, strict=True):
        got = as_grid(namespace["solve"]([list(r) for r in grid.tolist()]))
        ok = ok and (want is None or same(got, want))
    return ok


def measure(n: int, workers: int, n_tasks: int = 100) -> dict:
    tasks = load("arc1/train", limit=n_tasks)
    # every task meets every program in turn
    programs = [SIMPLE_PROGRAMS[(i // len(tasks)) % len(SIMPLE_PROGRAMS)] for i in range(n)]
    jobs = [task_job(code, tasks[i % len(tasks)]) for i, code in enumerate(programs)]
    with SandboxPool(workers=workers) as pool:
        t0 = time.perf_counter()
        pool.run_many(jobs[:workers])  # start and warm every worker
        startup = time.perf_counter() - t0
        t0 = time.perf_counter()
        verdicts = pool.run_many(jobs)
        sandbox_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    plain = [plain_verify(j) for j in jobs]
    plain_s = time.perf_counter() - t0
    return {"n": n, "workers": workers, "startup_s": round(startup, 3),
            "sandbox_per_s": round(n / sandbox_s, 1), "plain_per_s": round(n / plain_s, 1),
            "sandbox_ok": sum(v.ok for v in verdicts), "plain_ok": sum(plain),
            "statuses": sorted({v.status for v in verdicts})}


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m shared sandbox-bench", description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1000, help="verifications to time (default 1000)")
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1), help="sandbox workers (default 2)")
    p.add_argument("--tasks", type=int, default=100, help="arc1/train tasks to cycle through (default 100)")
    args = p.parse_args(argv)
    r = measure(args.n, args.workers, args.tasks)
    if r["sandbox_ok"] != r["plain_ok"]:
        print(f"error: sandbox and plain exec disagree ({r['sandbox_ok']} vs {r['plain_ok']} verified; "
              f"sandbox statuses {r['statuses']})")
        return 1
    print(f"{r['n']} verifications of {len(SIMPLE_PROGRAMS)} simple programs over {args.tasks} arc1/train tasks "
          f"({r['sandbox_ok']} solve their task); {r['workers']} workers started in {r['startup_s']} s")
    print(f"sandbox: {r['sandbox_per_s']:.0f} verifications/s on {r['workers']} workers; "
          f"plain exec: {r['plain_per_s']:.0f} verifications/s (ceiling)")
    return 0
