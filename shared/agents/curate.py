"""`python -m shared curate`: chunk tasks, test outputs stripped, into files for coding agents.

Filters: explicit ids, a maximum grid side, and "unsolved by a solver" (`--unsolved-by dsl`:
the solver runs first into DIR/<solver>, resumably, and the tasks it solves are dropped). The tasks are
dealt round-robin by size into one chunk per agent (similar work each), written as
DIR/tasks_NN.json (task id -> {"train": [...], "test": [{"input": ...}]}), with PROMPT_NN.md
stating the contract and manifest.json recording the filters and the chunks.

Each chunk carries its own check: the prompt's command verifies against the chunk file, which
has no test outputs, so an agent learns only what the demos say. Nothing in the folder tells
an agent to run anything on a set with test outputs; that is the orchestrator's step once
the agents are done (`python -m shared verify --curated DIR --out RUN`, RUN outside DIR).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from shared.bench import BenchError
from shared.tasks import NAMED_SETS, Task, TaskError, TaskSet, load, write_kaggle

PROMPT = """\
# Write one Python program per ARC task

Each task in `{chunk}` shows demonstration pairs (an input grid and its output grid) and
one or more test inputs whose outputs are hidden. One rule turns every input into its
output. For each task, write a function

```python
def solve(grid):
    ...
    return output
```

- `grid` is a list of rows, each a list of ints 0-9 (colours); the grid is 1-30 by 1-30.
- Return the output grid as a list of lists of ints 0-9 (a 2-d integer numpy array is fine).
- All of Python's builtins and numpy are available; import what you need inside the code.
- The program runs in a sandbox: {time_limit:g} s per task for all inputs, no files, no
  network, no subprocesses. It must not print anything that matters.
- A program is accepted only if it reproduces **every** demonstration pair exactly and then
  the hidden test output. Write the general rule, not a lookup of the examples.

Write your answers to `{answers}` (in this folder) as a JSON list, one entry per task you solve:

```json
[{{"task_id": "<id>", "code": "import numpy as np\\n\\ndef solve(grid):\\n    ..."}}]
```

Check them, from this folder, with

    {check}

It runs every program in the sandbox on `{chunk}`: the demonstration pairs, and the test
inputs (only for giving a valid grid; their outputs are not in the file and not yours to see).
It prints one line per task, "passes every demo (test outputs not available)" or the failing
pairs: which example, the size expected against the size returned, the first wrong cells.
"""


def max_side(task: Task) -> int:
    grids = [p.input for p in task.train + task.test] + [p.output for p in task.train]
    return max(max(g.shape) for g in grids)


def task_cells(task: Task) -> int:
    return sum(p.input.size for p in task.train + task.test) + sum(p.output.size for p in task.train)


def unsolved_by(solver: str, tasks: list[Task], out_dir: Path, budget_s: float, workers: int,
                tasks_name: str) -> list[Task]:
    """The tasks `solver` does not solve (its run folder is kept and resumed)."""
    from shared import bench, runs

    bench.run(tasks, out_dir, solver, budget_s=budget_s, workers=workers, progress=False, tasks_name=tasks_name)
    status = {r["task_id"]: r["status"] for r in runs.read_results(out_dir)}
    return [t for t in tasks if status.get(t.id) != "solved"]


def chunk(tasks: list[Task], n: int) -> list[list[Task]]:
    """Deal tasks, largest first, round-robin into n chunks of similar total size."""
    order = sorted(tasks, key=lambda t: (-task_cells(t), t.id))
    chunks: list[list[Task]] = [[] for _ in range(max(1, min(n, len(tasks))))]
    for i, t in enumerate(order):
        chunks[i % len(chunks)].append(t)
    return [sorted(c, key=lambda t: t.id) for c in chunks]


def check_command(chunk_file: str, answers: str, out: str) -> str:
    """An agent's check: its answers against its own chunk (no test outputs in it)."""
    return f"python -m shared verify --tasks {chunk_file} --programs {answers} --out {out}"


def curate(tasks: list[Task], out_dir: str | os.PathLike, agents: int, tasks_name: str, filters: dict,
           time_limit_s: float = 3.0) -> dict:
    """Write the chunk files, one prompt per agent and the manifest; returns the manifest.
    tasks_name: what `verify --curated` loads the test outputs from (a named set, or a path,
    kept absolute so the orchestrator may run from anywhere); no prompt names it."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    chunks = chunk(tasks, agents)
    named = tasks_name in NAMED_SETS or not Path(tasks_name).exists()
    source = tasks_name if named else str(Path(tasks_name).resolve())
    manifest = {"tasks": source, "filters": filters, "task_ids": sorted(t.id for t in tasks), "chunks": {}}
    for i, c in enumerate(chunks, 1):
        name, answers, prompt = f"tasks_{i:02d}.json", f"programs_{i:02d}.json", f"PROMPT_{i:02d}.md"
        write_kaggle(c, out / name)
        (out / prompt).write_text(PROMPT.format(chunk=name, answers=answers, time_limit=time_limit_s,
                                                check=check_command(name, answers, f"check_{i:02d}")))
        manifest["chunks"][name] = {"task_ids": [t.id for t in c], "answers": answers, "prompt": prompt,
                                    "check": check_command(name, answers, f"check_{i:02d}")}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m shared curate", description=__doc__.splitlines()[0])
    p.add_argument("--tasks", required=True, help="arc1/train, arc1/eval, a folder, a challenges file, ...")
    p.add_argument("--ids", help="comma-separated task ids (default: every task)")
    p.add_argument("--limit", type=int, help="at most N tasks (after the filters, by id)")
    p.add_argument("--max-size", type=int, help="drop tasks with any grid side above this")
    p.add_argument("--unsolved-by", metavar="SOLVER", help="drop tasks this solver solves (e.g. dsl)")
    p.add_argument("--solver-budget-s", type=float, default=10.0, help="its budget per task (default 10)")
    p.add_argument("--workers", type=int, default=max(1, min(2, os.cpu_count() or 1)),
                   help="sandbox workers for --unsolved-by checks (default: 2 or the cores there are)")
    p.add_argument("--agents", type=int, default=1, help="number of chunks, one per agent (default 1)")
    p.add_argument("--out", required=True, help="folder for the chunks, prompts and manifest")
    args = p.parse_args(argv)
    if args.agents < 1:
        p.error("--agents must be at least 1")
    try:
        tasks: list[Task] = list(load(args.tasks))
    except TaskError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    filters: dict = {}
    if args.ids:
        wanted = args.ids.split(",")
        known = {t.id for t in tasks}
        missing = [i for i in wanted if i not in known]
        if missing:
            print(f"error: task ids not in {args.tasks}: {', '.join(missing)}", file=sys.stderr)
            return 2
        tasks = [t for t in tasks if t.id in set(wanted)]
        filters["ids"] = wanted
    if args.max_size:
        tasks = [t for t in tasks if max_side(t) <= args.max_size]
        filters["max_size"] = args.max_size
    if args.unsolved_by:
        before = len(tasks)
        try:
            tasks = unsolved_by(args.unsolved_by, TaskSet(tasks, args.tasks), Path(args.out) / args.unsolved_by,
                                args.solver_budget_s, args.workers, args.tasks)
        except (BenchError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        filters["unsolved_by"] = {"solver": args.unsolved_by, "budget_s": args.solver_budget_s,
                                  "dropped": before - len(tasks)}
    if args.limit is not None:
        tasks = tasks[: args.limit]
        filters["limit"] = args.limit
    if not tasks:
        print("error: no task is left after the filters", file=sys.stderr)
        return 2
    manifest = curate(tasks, args.out, args.agents, args.tasks, filters)
    sizes = ", ".join(str(len(c["task_ids"])) for c in manifest["chunks"].values())
    print(f"curated {len(tasks)} tasks of {args.tasks} into {len(manifest['chunks'])} chunks ({sizes}) in {args.out}")
    print(f"give each agent one {args.out}/PROMPT_NN.md, working in {args.out}; once all are done, verify "
          f"on the test outputs: python -m shared verify --curated {args.out} --out <RUN outside it>")
    return 0
