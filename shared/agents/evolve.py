"""Evolutionary refinement (`synth --strategy evolve`): a population of programs per task.

Generation 0 asks the model for `population` programs. Each runs on the demos in the sandbox
and scores its partial credit, the fraction of demo cells it gets right (`feedback.demo_cells`).
The best `survivors` (distinct programs, highest score first) go back to the model, each with
its score and its failing pairs, and their children make the next generation; this repeats
for G generations, until a program passes every demo, or until the task's budget is spent.
The task's test outputs are stripped before anything sees it.
"""

from __future__ import annotations

import time

from shared.agents import extract_code
from shared.agents.backends import Backend, BackendError
from shared.agents.feedback import demo_cells, feedback
from shared.agents.synth import REPLY_KEPT, Budget, Meter, initial_messages
from shared.agents.verify import RANK, program_status
from shared.sandbox import SandboxPool, Verdict, task_job
from shared.tasks import Task, strip_test_outputs


def ranked(scored: list[dict]) -> list[dict]:
    """Distinct programs, best first: most demo cells right, then the better status, then the earlier."""
    seen: set[str] = set()
    out = []
    for s in sorted(scored, key=lambda s: (-s["score"], RANK[s["status"]], s["index"])):
        if s["code"] not in seen:
            seen.add(s["code"])
            out.append(s)
    return out


def parent_message(task: Task, parent: dict) -> str:
    """A survivor's feedback: its score among the population, then its failures."""
    right, total = parent["cells"]
    return (f"This program is one of the best so far: it gets {right} of {total} example cells right "
            f"({100 * parent['score']:.0f}%).\n\n{feedback(task, parent['verdict'])}")


def breed(task: Task, base: list[dict], scored: list[dict], population: int, survivors: int,
          last_reply: str) -> list[tuple[int | None, list[dict], int]]:
    """The next generation's requests: (parent's sample index, messages, children), the
    population split over the survivors (the best get the remainder)."""
    parents = ranked(scored)[:survivors]
    if not parents:  # nothing ran yet: ask again for code
        return [(None, base + [{"role": "assistant", "content": last_reply[:REPLY_KEPT]},
                               {"role": "user", "content": feedback(task, None)}], population)]
    share, extra = divmod(population, len(parents))
    out = []
    for i, parent in enumerate(parents):
        n = share + (i < extra)
        if n:
            out.append((parent["index"], base + [{"role": "assistant", "content": parent["reply"][:REPLY_KEPT]},
                                                 {"role": "user", "content": parent_message(task, parent)}], n))
    return out


def evolve_task(task: Task, backend: Backend, pool: SandboxPool, population: int, generations: int,
                temperature: float, max_new_tokens: int, survivors: int = 2, budget: Budget | None = None,
                examples: list[dict] = ()) -> dict:
    """Evolve programs for one task; returns its transcript record (the `synth` shape, plus
    each sample's score and parent, and the best program's score)."""
    task = strip_test_outputs(task)
    t0 = time.perf_counter()
    meter = Meter(backend, budget)
    base = initial_messages(task, examples)
    record = {"task_id": task.id, "strategy": "evolve", "status": "no_code", "demos_passed": 0, "score": 0.0,
              "code": None, "round": None, "rounds_used": 0, "samples": [], "error": None, "stopped": "generations",
              "best_by_generation": []}
    scored: list[dict] = []
    verdicts: dict[str, Verdict] = {}  # a child that repeats an earlier program is not run again
    requests = [(None, base, population)]
    conversation, last_reply = base, ""
    for gen in range(generations + 1):
        record["rounds_used"] = gen
        if gen:
            requests = breed(task, base, scored, population, survivors, last_reply)
        for parent, messages, n in requests:
            if not meter.allows():
                record["stopped"] = "budget"
                break
            try:
                replies = meter.ask(messages, n, temperature, max_new_tokens)
            except BackendError as e:
                record.update(error=str(e), stopped="backend_error")
                break
            last_reply = replies[0] if replies else ""
            codes = [extract_code(r) for r in replies]
            fresh = [c for c in dict.fromkeys(codes) if c is not None and c not in verdicts]
            verdicts.update(zip(fresh, pool.run_many([task_job(c, task) for c in fresh]), strict=True))
            for reply, code in zip(replies, codes, strict=True):
                entry = {"round": gen, "sample": len(record["samples"]), "parent": parent,
                         "reply": reply[:REPLY_KEPT], "has_code": code is not None}
                if code is not None:
                    v = verdicts[code]
                    status, passed = program_status(task, v)
                    cells = demo_cells(task, v)
                    score = round(cells[0] / cells[1], 4) if cells[1] else 0.0
                    entry.update(status=status, demos_passed=passed, score=score, detail=v.detail, sandbox=v.status)
                    scored.append({"index": entry["sample"], "code": code, "reply": reply, "verdict": v,
                                   "status": status, "passed": passed, "cells": cells, "score": score,
                                   "generation": gen, "messages": messages})
                record["samples"].append(entry)
        if scored:
            best = ranked(scored)[0]
            record.update(status=best["status"], demos_passed=best["passed"], score=best["score"], code=best["code"],
                          round=best["generation"])
            conversation = best["messages"] + [{"role": "assistant", "content": best["reply"][:REPLY_KEPT]}]
            record["best_by_generation"].append(best["score"])
        if record["stopped"] != "generations":
            break
        if record["status"] == "passes_demos":
            record["stopped"] = "passes_demos"
            break
    if record["stopped"] == "backend_error" and not scored:
        record["status"] = "skipped"
    record["messages"] = conversation[1:]  # the best program's conversation; the system prompt is shared
    record.update(calls=meter.calls, tokens=meter.tokens, seconds=round(time.perf_counter() - t0, 3))
    return record
