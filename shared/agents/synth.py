"""`python -m shared synth`: program synthesis with a language model, verified in the sandbox.

Per task (test outputs stripped before anything sees it), one of two strategies:
- `sample` (default): ask the backend for K programs; run each on the demos in the sandbox;
  stop at the first that passes every demo. Otherwise send the best program back with
  feedback naming the failing demo pairs and a compact cell diff, and ask for K revisions,
  up to R rounds.
- `evolve` (`shared.agents.evolve`): a population scored by demo cells right; the best
  survive and are revised with their failures, for G generations.
Both stop at a per-task budget of requests and tokens, and may show programs accepted on
other tasks as examples (a library: `--library` program files plus what this run accepts).
One line per task goes to DIR/transcripts.jsonl as it finishes (a rerun skips finished
tasks); DIR/programs.json holds each task's best program in the agents' format, ready for
`python -m shared verify` (`--answers FILE` writes it to a curated folder's answers file too).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from shared import runs
from shared.agents import extract_code
from shared.agents.backends import BACKENDS, Backend, BackendError, estimate_tokens, make_backend
from shared.agents.feedback import feedback
from shared.agents.verify import RANK, program_status
from shared.config import PROFILES
from shared.formats import grid_to_text
from shared.programs import ProgramFileError, read_programs, write_programs
from shared.sandbox import DEFAULT_TIME_S, SandboxPool, task_job
from shared.tasks import Task, TaskError, TaskSet, load, strip_test_outputs

TRANSCRIPTS = "transcripts.jsonl"
PROGRAMS = "programs.json"
REPLY_KEPT = 4000  # characters of each reply kept in the transcript
STRATEGIES = ("sample", "evolve")
EXAMPLES_SHOWN = 2  # library programs per prompt: enough to show the style, short enough for a 4k context

SYSTEM_PROMPT = (
    "You write Python programs that solve ARC puzzles. A puzzle shows example pairs of an input grid and "
    "an output grid; one hidden rule turns every input into its output. Write a function `solve(grid)` that "
    "applies the rule: `grid` is a list of rows, each a list of ints 0-9 (colours); return the output grid "
    "as a list of lists of ints 0-9 (a 2-d integer numpy array is also accepted). Python's builtins and "
    "numpy are available. Reply with the complete program in one ```python block."
)


def _grid_block(label: str, grid) -> str:
    return f"{label} ({grid.shape[0]}x{grid.shape[1]}):\n{grid_to_text(grid)}"


def task_blocks(task: Task) -> list[str]:
    """The demo pairs and test inputs as the prompt writes them (`shared.agents.scripted`
    finds a task by them)."""
    return ([f"Example {i}\n{_grid_block('input', p.input)}\n{_grid_block('output', p.output)}"
             for i, p in enumerate(task.train, 1)]
            + [_grid_block(f"Test input {i}", p.input) for i, p in enumerate(task.test, 1)])


def library_text(examples: list[dict]) -> str:
    shown = "\n\n".join(f"```python\n{e['code'].rstrip()}\n```" for e in examples)
    return ("Programs that solved other puzzles of this kind, as examples of what works (this puzzle's "
            f"rule is its own):\n\n{shown}")


def task_prompt(task: Task, examples: list[dict] = ()) -> str:
    """The user message: library examples if any, every demo pair and the test inputs as digit
    grids. A test output never appears: the caller strips them (the loop does, first thing)."""
    parts = [library_text(list(examples))] if examples else []
    parts.append("Each grid is written one row per line, one digit (a colour 0-9) per cell.")
    parts += task_blocks(task)
    parts.append("Write `solve(grid)` so that it turns every example input into its output exactly; it will "
                 "then be run on the test inputs.")
    return "\n\n".join(parts)


def initial_messages(task: Task, examples: list[dict] = ()) -> list[dict]:
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": task_prompt(task, examples)}]


@dataclass(frozen=True)
class Budget:
    """What one task may spend: requests to the model and tokens (as the backend counts them:
    the server's usage, else an estimate); None is no limit. Checked before each request, so
    the last request of a task may overshoot `tokens`."""

    calls: int | None = None
    tokens: int | None = None

    def to_json(self) -> dict:
        return {"calls": self.calls, "tokens": self.tokens}


class Meter:
    """Asks the backend on behalf of one task and counts what that spent against the budget."""

    def __init__(self, backend: Backend, budget: Budget | None):
        self.backend, self.budget = backend, budget or Budget()
        self.calls = self.tokens = 0

    def allows(self) -> bool:
        b = self.budget
        return (b.calls is None or self.calls < b.calls) and (b.tokens is None or self.tokens < b.tokens)

    def ask(self, messages: list[dict], n: int, temperature: float, max_tokens: int) -> list[str]:
        usage = getattr(self.backend, "usage", None)
        before = usage.tokens if usage is not None else 0
        self.calls += 1
        replies = self.backend.complete(messages, n, temperature, max_tokens)
        self.tokens += usage.tokens - before if usage is not None else estimate_tokens(messages, replies)
        return replies


class Library:
    """Programs accepted (passing every demo) on earlier tasks, offered to later prompts as
    examples; never a program for the task being asked about."""

    def __init__(self, entries: list[dict] = ()):
        self.entries: list[dict] = []
        for e in entries:
            self.add(e["task_id"], e["code"])

    @classmethod
    def from_files(cls, paths: list[str | os.PathLike]) -> Library:
        """A library from program files or folders (`shared.programs`); ProgramFileError if unreadable."""
        return cls([{"task_id": p.task_id, "code": p.code} for path in paths for p in read_programs(path)])

    def add(self, task_id: str, code: str) -> None:
        if all(e["code"] != code for e in self.entries):
            self.entries.append({"task_id": task_id, "code": code})

    def examples_for(self, task_id: str, k: int) -> list[dict]:
        """The k most recently added programs of other tasks."""
        others = [e for e in self.entries if e["task_id"] != task_id]
        return others[-k:] if k > 0 else []


def synthesize_task(task: Task, backend: Backend, pool: SandboxPool, samples: int, rounds: int,
                    temperature: float, max_new_tokens: int, budget: Budget | None = None,
                    examples: list[dict] = ()) -> dict:
    """The sampling loop for one task; returns its transcript record (test outputs never used)."""
    task = strip_test_outputs(task)
    t0 = time.perf_counter()
    meter = Meter(backend, budget)
    messages = initial_messages(task, examples)
    record = {"task_id": task.id, "strategy": "sample", "status": "no_code", "demos_passed": 0, "code": None,
              "round": None, "rounds_used": 0, "samples": [], "error": None, "stopped": "rounds"}
    best = None  # (rank key, code, reply, verdict)
    for rnd in range(rounds + 1):
        record["rounds_used"] = rnd
        if not meter.allows():
            record["stopped"] = "budget"
            break
        try:
            replies = meter.ask(messages, samples, temperature, max_new_tokens)
        except BackendError as e:
            record.update(error=str(e), stopped="backend_error")
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
                entry.update(status=status, demos_passed=passed, detail=verdicts[k].detail,
                             sandbox=verdicts[k].status)
                key = (RANK[status], -passed, rnd, k)
                if best is None or key < best[0]:
                    best = (key, code, reply, verdicts[k])
                    record.update(status=status, demos_passed=passed, code=code, round=rnd)
                if round_best is None or key < round_best[0]:
                    round_best = (key, reply, verdicts[k])
            record["samples"].append(entry)
        if record["status"] == "passes_demos":
            record["stopped"] = "passes_demos"
            break
        if rnd == rounds:
            break
        # revise the best program of this round, or ask again for code when there was none
        if round_best is None:
            messages = messages + [{"role": "assistant", "content": replies[0][:REPLY_KEPT] if replies else ""},
                                   {"role": "user", "content": feedback(task, None)}]
        else:
            messages = messages + [{"role": "assistant", "content": round_best[1][:REPLY_KEPT]},
                                   {"role": "user", "content": feedback(task, round_best[2])}]
    record["messages"] = messages[1:]  # the system prompt is the same for every task
    record.update(calls=meter.calls, tokens=meter.tokens, seconds=round(time.perf_counter() - t0, 3))
    return record


def read_transcripts(out_dir: str | os.PathLike) -> list[dict]:
    """Finished tasks of a synth run (a torn last line from a killed run: that task is redone)."""
    return runs.read_rows(Path(out_dir) / TRANSCRIPTS)


def run_synth(tasks: list[Task], backend: Backend, out_dir: str | os.PathLike, samples: int, rounds: int,
              temperature: float, max_new_tokens: int, time_limit_s: float = DEFAULT_TIME_S, workers: int = 1,
              progress: bool = True, *, strategy: str = "sample", survivors: int = 2, budget: Budget | None = None,
              library: Library | None = None, examples: int = EXAMPLES_SHOWN,
              answers: str | os.PathLike | None = None) -> dict:
    """Synthesize every task not already in out_dir; write transcripts, programs, summary.

    strategy "sample": `samples` programs per request, `rounds` revision rounds; "evolve": a
    population of `samples`, `rounds` generations after the first, `survivors` parents each.
    budget: per task. library: programs offered as examples (`examples` per prompt; 0: none);
    each program this run accepts joins it. answers: a second copy of programs.json (a
    curated chunk's answers file)."""
    from tqdm.auto import tqdm

    from shared.agents.evolve import evolve_task

    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; choose from {', '.join(STRATEGIES)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    done = {r["task_id"]: r for r in read_transcripts(out)}
    todo = [t for t in tasks if t.id not in done]
    library = library if library is not None else Library()
    for r in done.values():
        if r["status"] == "passes_demos" and r["code"]:
            library.add(r["task_id"], r["code"])
    t0 = time.perf_counter()
    path = out / TRANSCRIPTS
    runs.drop_torn_tail(path)
    with SandboxPool(workers=workers, time_limit_s=time_limit_s) as pool, open(path, "a") as f:
        for t in tqdm(todo, desc="synth", unit="task", disable=not progress, file=sys.stderr):
            shown = library.examples_for(t.id, examples)
            if strategy == "evolve":
                rec = evolve_task(t, backend, pool, samples, rounds, temperature, max_new_tokens,
                                  survivors=survivors, budget=budget, examples=shown)
            else:
                rec = synthesize_task(t, backend, pool, samples, rounds, temperature, max_new_tokens,
                                      budget=budget, examples=shown)
            rec.update(backend=backend.name, model=getattr(backend, "model_name", ""),
                       examples=[e["task_id"] for e in shown])
            runs.append(f, rec)
            done[t.id] = rec
            if rec["status"] == "passes_demos":
                library.add(t.id, rec["code"])
    rows = [done[t.id] for t in tasks if t.id in done]
    items = [{"task_id": r["task_id"], "code": r["code"], "status": r["status"], "demos_passed": r["demos_passed"],
              "score": r.get("score"), "round": r["round"], "strategy": r.get("strategy", "sample"),
              "backend": r.get("backend"), "model": r.get("model")} for r in rows if r["code"]]
    write_programs(out / PROGRAMS, items)
    if answers is not None:
        write_programs(answers, items)
    summary = {"backend": backend.name, "model": getattr(backend, "model_name", ""), "strategy": strategy,
               "n_tasks": len(rows), "passes_demos": sum(r["status"] == "passes_demos" for r in rows),
               "statuses": _count(r["status"] for r in rows), "stopped": _count(r.get("stopped") for r in rows),
               "samples": samples, "rounds": rounds, "survivors": survivors if strategy == "evolve" else None,
               "temperature": temperature, "max_new_tokens": max_new_tokens,
               "budget": (budget or Budget()).to_json(), "examples": examples, "library": len(library.entries),
               "calls": sum(r.get("calls", 0) for r in rows), "tokens": sum(r.get("tokens", 0) for r in rows),
               "retries": getattr(getattr(backend, "usage", None), "retries", 0),
               "replies": sum(len(r["samples"]) for r in rows),
               "with_code": sum(s["has_code"] for r in rows for s in r["samples"]),
               "wall_s": round(time.perf_counter() - t0, 2)}
    (out / "synth_summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def _count(values) -> dict:
    counts: dict = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return counts


def curated_tasks(folder: str | os.PathLike) -> list[Task]:
    """A curated folder's tasks as its chunk files hold them (no test outputs), in manifest order."""
    folder = Path(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    by_id = {t.id: t for name in manifest["chunks"] for t in load(folder / name)}
    return [by_id[i] for i in manifest["task_ids"]]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m shared synth", description=__doc__.splitlines()[0])
    p.add_argument("--tasks", help="arc1/train, a folder, a curate chunk file, ... (test outputs are stripped)")
    p.add_argument("--ids", help="comma-separated task ids")
    p.add_argument("--curated", help="a curate output folder: its tasks, read from its chunk files unless "
                                     "--tasks is given")
    p.add_argument("--limit", type=int, help="only the first N tasks")
    p.add_argument("--backend", choices=BACKENDS, default="transformers",
                   help="transformers (a local model) or openai (any OpenAI-compatible endpoint)")
    p.add_argument("--model", default="tiny", help="tiny, a hub id or folder (transformers); the served model "
                                                   "name (openai)")
    p.add_argument("--base-url", help="openai backend: endpoint (default: ARC_LLM_BASE_URL / OPENAI_BASE_URL)")
    p.add_argument("--request-timeout-s", type=float, default=300.0, help="openai backend: per HTTP request")
    p.add_argument("--retries", type=int, default=2,
                   help="openai backend: retries after a timeout, refused connection or HTTP 429/5xx (default 2)")
    p.add_argument("--profile", default="cpu", choices=sorted(PROFILES),
                   help="default sizes, from the profile's `synth` (default cpu)")
    p.add_argument("--strategy", choices=STRATEGIES, default="sample",
                   help="sample: K programs, R revision rounds; evolve: a population scored by demo cells right")
    p.add_argument("--samples", type=int, help="sample: K programs per request")
    p.add_argument("--rounds", type=int, help="sample: R revision rounds")
    p.add_argument("--population", type=int, help="evolve: programs per generation (default: --samples)")
    p.add_argument("--generations", type=int, help="evolve: generations after the first (default: --rounds)")
    p.add_argument("--survivors", type=int, default=2, help="evolve: best programs revised each generation")
    p.add_argument("--max-calls", type=int, help="budget: requests to the model per task (default: no limit)")
    p.add_argument("--max-tokens", type=int, help="budget: tokens per task, prompt and reply (default: no limit)")
    p.add_argument("--library", nargs="+", default=[],
                   help="program files or folders whose programs are offered as examples")
    p.add_argument("--examples", type=int, default=EXAMPLES_SHOWN,
                   help=f"library programs shown per prompt (default {EXAMPLES_SHOWN}; 0: none)")
    p.add_argument("--temperature", type=float, help="sampling temperature (default: the profile's)")
    p.add_argument("--max-new-tokens", type=int, help="longest reply in tokens (default: the profile's)")
    p.add_argument("--time-limit-s", type=float, default=DEFAULT_TIME_S, help="sandbox limit per program run")
    p.add_argument("--workers", type=int, default=1, help="sandbox workers (default 1)")
    p.add_argument("--answers", help="also write the programs to this file (a curated chunk's answers file)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--out", required=True, help="run folder (resumed if it exists)")
    args = p.parse_args(argv)
    if not args.tasks and not args.curated:
        p.error("give --tasks or --curated")
    if args.survivors < 1:
        p.error("--survivors must be at least 1")
    sizes = PROFILES[args.profile].synth
    try:
        if args.tasks:
            tasks: list[Task] = list(load(args.tasks))
            ids = args.ids.split(",") if args.ids else None
            if args.curated:
                ids = json.loads((Path(args.curated) / "manifest.json").read_text())["task_ids"]
        else:
            tasks = curated_tasks(args.curated)
            ids = args.ids.split(",") if args.ids else None
        if ids is not None:
            by_id = TaskSet(tasks).by_id()
            missing = [i for i in ids if i not in by_id]
            if missing:
                raise TaskError(f"task ids not in {args.tasks or args.curated}: {', '.join(missing)}")
            tasks = [by_id[i] for i in ids]
        if args.limit is not None:
            tasks = tasks[: args.limit]
        options = {}
        if args.backend == "openai":
            options = {"timeout_s": args.request_timeout_s, "retries": args.retries}
            if args.base_url:
                options["base_url"] = args.base_url
        library = Library.from_files(args.library)
        backend = make_backend(args.backend, args.model, **options)
    except (TaskError, BackendError, ProgramFileError, OSError, KeyError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    evolve = args.strategy == "evolve"
    samples = (args.population if evolve and args.population is not None
               else args.samples if args.samples is not None else sizes.samples)
    rounds = (args.generations if evolve and args.generations is not None
              else args.rounds if args.rounds is not None else sizes.rounds)
    summary = run_synth(tasks, backend, args.out, samples, rounds,
                        args.temperature if args.temperature is not None else sizes.temperature,
                        args.max_new_tokens or sizes.max_new_tokens, args.time_limit_s, args.workers,
                        progress=not args.no_progress, strategy=args.strategy, survivors=args.survivors,
                        budget=Budget(args.max_calls, args.max_tokens), library=library, examples=args.examples,
                        answers=args.answers)
    print(f"statuses: {summary['statuses']}; stopped: {summary['stopped']}; {summary['calls']} requests, "
          f"{summary['tokens']} tokens, {summary['retries']} retries; programs in {Path(args.out) / PROGRAMS}")
    print(runs.closing_line(summary, "passes_demos",
                            note=f"{summary['with_code']}/{summary['replies']} replies held a program"))
    return 0
