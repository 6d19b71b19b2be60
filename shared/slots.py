"""Worker slots, as every run engine schedules them (bench's process pool, shared.ray_engine's
actors): which idle slot takes which task with what budget, and which task in flight is past its
budget or the run's deadline. The engines differ only in how a task is sent, a result received
and a worker killed; a slot is any object with `ready`, `task`, `started`, `budget_s`, `index`
and `peak_rss_mb`.
"""

from __future__ import annotations

import time


def is_open(deadline: float | None) -> bool:
    """True while tasks may still start: no deadline, or a time.monotonic() value not yet reached."""
    return deadline is None or time.monotonic() < deadline


def assign(slots, pending: list, budget_s: float, deadline: float | None) -> list:
    """Hand the next pending tasks (popped from the end) to idle ready slots; returns those slots.

    Near the deadline a task's budget is cut to the time left, so its solver can answer before
    the kill."""
    out = []
    for s in slots:
        if s.ready and s.task is None and pending and is_open(deadline):
            s.task = pending.pop()
            s.started = time.monotonic()
            s.budget_s = budget_s if deadline is None else max(0.0, min(budget_s, deadline - s.started))
            out.append(s)
    return out


def overdue(slots, deadline: float | None, grace_s: float) -> list[tuple[object, dict, bool]]:
    """(slot, timeout result, restart) for every task in flight past the run's deadline (its worker
    is not restarted: no task starts after it) or past its budget plus `grace_s` (restarted)."""
    now = time.monotonic()
    out = []
    for s in slots:
        if s.task is None:
            continue
        if deadline is not None and now >= deadline:
            error, restart = "the run's deadline passed: worker killed", False
        elif now - s.started > s.budget_s + grace_s:
            error, restart = f"over budget ({s.budget_s:g} s): worker killed", True
        else:
            continue
        out.append((s, {"status": "timeout", "time_s": round(now - s.started, 3), "error": error,
                        "peak_rss_mb": s.peak_rss_mb or None}, restart))
    return out


def stop_overdue(slots, deadline: float | None, grace_s: float, emit, kill, start) -> None:
    """Emit a timeout for every overdue task (`overdue`), kill its worker, and start a new one in
    its slot unless the run's deadline has passed."""
    for s, result, restart in overdue(slots, deadline, grace_s):
        emit(s.task, s.index, result)
        kill(s)
        if restart:
            start(s)
        else:
            s.task = None
