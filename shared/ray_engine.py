"""bench's tasks on a Ray cluster (`python -m shared solve --engine ray [--address ADDR]`).

One Ray actor per worker slot holds the built solver, so a model loads (and the DSL search
compiles) once per worker, as in bench's local pool. A task past its budget plus grace has its
actor killed and replaced and is emitted as a timeout; an actor that dies mid-task is emitted as
an error. Rows go through bench's `emit`, so the run folder is the same whichever engine ran.
Ray is an optional extra (`pip install 'arc-suite[ray]'`), imported only when a run starts.
"""

from __future__ import annotations

import logging
import os
import resource
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from shared import slots
from shared.solvers import make_solver
from shared.tasks import Task, strip_test_outputs, task_from_json

MISSING_RAY = ("--engine ray needs the ray package, which is not installed here: "
               "pip install 'arc-suite[ray]' (or pip install 'ray[default]'), or run with --engine local")
POLL_S = 0.2  # how long one ray.wait blocks: the budget and deadline checks run this often
# Ray's switch for a one-machine instance; "0" before Ray's first import binds everything to 127.0.0.1
# (else a private Ray listens on the machine's address, reachable from the network)
LOOPBACK_ONLY = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
PROBE_S = 5.0  # ray.init retries a wrong HOST:PORT for minutes, silently; a socket says so in seconds


class RayEngineError(RuntimeError):
    """Ray is missing, the cluster cannot be reached, or the solver cannot start on it."""


def require_ray(error: type[Exception] = RayEngineError, private: bool = False):
    """The ray module, or `error` with a message that says how to install it. private: Ray will
    be started here, not joined; on its first import that keeps it on loopback (LOOPBACK_ONLY)."""
    if private and "ray" not in sys.modules:
        os.environ.setdefault(LOOPBACK_ONLY, "0")
    try:
        import ray
    except ImportError:
        raise error(MISSING_RAY) from None
    return ray


def start_private_ray(num_cpus: int, error: type[Exception] = RayEngineError):
    """Start Ray on this machine only (no dashboard, loopback when Ray is first imported here);
    returns the ray module. A RayRunner with no address uses an instance started this way."""
    ray = require_ray(error, private=True)
    ray.init(num_cpus=num_cpus, include_dashboard=False, logging_level=logging.WARNING)
    return ray


def _probe(address: str, error: type[Exception]) -> None:
    """Fail fast when a HOST:PORT address has nothing listening (`auto` and ray:// are Ray's to resolve)."""
    host, sep, port = address.rpartition(":")
    if address == "auto" or "://" in address or not sep or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_S).close()
    except OSError as e:
        raise error(f"no Ray cluster answers at {address!r} ({e}): start one there with `ray start --head` "
                    f"(it prints the address to pass), or leave out --address for a private Ray here") from None


def _limit_address_space(extra_gb: float) -> None:
    """RLIMIT_AS at what this process maps now plus extra_gb. A Ray worker maps GBs of its own
    (thread stacks, the object store) before any solver runs, so the absolute limit bench's local
    workers use would stop it before it starts; this bounds what the solver adds."""
    with open("/proc/self/status") as f:  # Linux only, as RLIMIT_AS itself is in practice
        mapped = next(int(line.split()[1]) for line in f if line.startswith("VmSize:")) * 1024
    limit = mapped + int(extra_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


class SolverWorker:
    """The body of one actor (in a Ray worker process): builds the solver once, then solves
    tasks one at a time with `solve_task` (bench's `solve_one`, which records the peak RSS)."""

    def __init__(self, solver_name: str, options: dict, max_mem_gb: float | None, solve_task: Callable):
        self.solver_name, self.options, self.max_mem_gb = solver_name, options, max_mem_gb
        self.solve_task, self.solver = solve_task, None

    def start(self) -> dict:
        try:
            if self.max_mem_gb:
                _limit_address_space(self.max_mem_gb)
            self.solver = make_solver(self.solver_name, **self.options)
        except Exception as e:  # reported to the driver, which stops the run with this message
            return {"status": "fatal", "error": f"cannot build solver {self.solver_name!r} on a Ray worker: "
                                                f"{type(e).__name__}: {e}"}
        return {"status": "ready", "pid": os.getpid()}

    def solve(self, task_json: dict, task_id: str, budget_s: float) -> dict:
        return self.solve_task(self.solver, task_from_json(task_json, task_id), budget_s)


@dataclass
class _Slot:
    index: int
    actor: object = None
    ref: object = None  # the call in flight: start() until the worker is ready, then solve()
    task: Task | None = None
    started: float = 0.0
    budget_s: float = 0.0
    ready: bool = False
    peak_rss_mb: float = 0.0
    history: list[float] = field(default_factory=list)  # peak RSS of each actor this slot ran


def _first_line(e: Exception) -> str:
    return f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"


class RayRunner:
    """bench.Runner's interface on Ray: `run(tasks, budget_s, emit, deadline)`, `close()`,
    `peak_rss_per_worker()`. address None starts a private Ray on this machine (loopback only)
    and stops it at close; an address (`auto`, `HOST:6379`, `ray://HOST:10001`) joins a running
    cluster, whose nodes need the suite and its dependencies installed. A Ray already initialised
    in this process (a notebook's, a test's) is used as it is and left running.

    The per-task pieces are bench's, passed in (this module does not import bench, which imports
    it): `solve_task` runs one task in a worker; `grace_s` and `start_timeout_s` as in bench; a
    run that cannot go on raises `error` (bench's BenchError, so its command line reports it)."""

    def __init__(self, solver_name: str, options: dict, workers: int, max_mem_gb: float | None, *,
                 address: str | None, solve_task: Callable, grace_s: float, start_timeout_s: float,
                 error: type[Exception] = RayEngineError):
        self.solver_name, self.options, self.max_mem_gb = solver_name, options, max_mem_gb
        self.address, self.solve_task, self.error = address, solve_task, error
        self.grace_s, self.start_timeout_s = grace_s, start_timeout_s
        self.slots = [_Slot(i) for i in range(workers)]
        self.ray, self.owns_ray, self.actor_class = None, False, None

    def _connect(self) -> None:
        ray = require_ray(self.error, private=self.address is None)
        if not ray.is_initialized():
            if self.address is not None:
                _probe(self.address, self.error)
            try:
                if self.address is None:
                    # as many CPUs as workers asked for, so --workers means what it does locally
                    start_private_ray(max(len(self.slots), os.cpu_count() or 1), self.error)
                else:
                    ray.init(address=self.address, logging_level=logging.WARNING)
            except (ConnectionError, RuntimeError, ValueError) as e:
                where = "a local Ray instance" if self.address is None else f"the Ray cluster at {self.address!r}"
                raise self.error(f"cannot start or reach {where}: {_first_line(e)} (a cluster is started "
                                     f"with `ray start --head`; pass its address with --address)") from None
            self.owns_ray = True
        self.ray = ray
        # one CPU an actor, so Ray spreads the slots over the cluster's cores; no restarts: bench replaces them
        self.actor_class = ray.remote(num_cpus=1, max_restarts=0)(SolverWorker)

    def _start(self, slot: _Slot) -> None:
        slot.actor = self.actor_class.remote(self.solver_name, self.options, self.max_mem_gb, self.solve_task)
        slot.ref, slot.ready, slot.task, slot.peak_rss_mb = slot.actor.start.remote(), False, None, 0.0
        slot.started = time.monotonic()

    def _kill(self, slot: _Slot) -> None:
        if slot.actor is not None:
            self.ray.kill(slot.actor, no_restart=True)
            slot.history.append(slot.peak_rss_mb)
        slot.actor, slot.ref, slot.ready = None, None, False

    def close(self) -> None:
        if self.ray is None:
            return
        for s in self.slots:
            self._kill(s)
        if self.owns_ray:
            self.ray.shutdown()
            self.owns_ray = False

    def run(self, tasks: list[Task], budget_s: float, emit, deadline: float | None = None) -> None:
        """As bench.Runner.run: past `deadline` (a time.monotonic() value) no task starts and one
        in flight is killed and emitted as a timeout; tasks never started emit nothing."""
        pending = list(reversed(tasks))
        if not slots.is_open(deadline):
            return
        if self.ray is None:
            self._connect()
        for s in self.slots:
            self._start(s)
        while (pending and slots.is_open(deadline)) or any(s.task is not None for s in self.slots):
            for s in slots.assign(self.slots, pending, budget_s, deadline):
                s.ref = s.actor.solve.remote(strip_test_outputs(s.task).to_json(), s.task.id, s.budget_s)
            by_ref = {s.ref: s for s in self.slots if s.ref is not None}
            if not by_ref:  # every slot stopped at the deadline
                break
            done, _ = self.ray.wait(list(by_ref), num_returns=1, timeout=POLL_S)
            for ref in done:
                self._receive(by_ref[ref], ref, emit)
            self._enforce(budget_s, deadline, emit)

    def _receive(self, s: _Slot, ref, emit) -> None:
        try:
            msg = self.ray.get(ref)
        except self.ray.exceptions.RayError as e:  # the actor's process died: a crash, an OOM kill, a lost node
            if s.task is not None:
                emit(s.task, s.index, {"status": "error", "time_s": round(time.monotonic() - s.started, 3),
                                       "error": f"worker died (crash, out of memory or lost node): {_first_line(e)}",
                                       "peak_rss_mb": s.peak_rss_mb or None})
            elif not s.ready:
                raise self.error(f"Ray worker for solver {self.solver_name!r} died while starting: "
                                     f"{_first_line(e)}") from None
            self._kill(s)
            self._start(s)
            return
        s.ref = None
        if msg["status"] == "fatal":
            raise self.error(msg["error"])
        if msg["status"] == "ready":
            s.ready = True
            return
        s.peak_rss_mb = max(s.peak_rss_mb, msg.get("peak_rss_mb") or 0.0)
        task, s.task = s.task, None
        emit(task, s.index, msg)

    def _enforce(self, budget_s: float, deadline: float | None, emit) -> None:
        """Kill the actors of tasks over budget (replaced) or past the deadline (not replaced)."""
        slots.stop_overdue(self.slots, deadline, self.grace_s, emit, self._kill, self._start)
        now = time.monotonic()
        for s in self.slots:
            if not s.ready and s.actor is not None and now - s.started > self.start_timeout_s:
                raise self.error(f"solver {self.solver_name!r} did not start on Ray within "
                                     f"{self.start_timeout_s:g} s (are there {len(self.slots)} free CPUs "
                                     f"in the cluster?)")

    def peak_rss_per_worker(self) -> list[float]:
        return [round(max([s.peak_rss_mb, *s.history]), 1) for s in self.slots]
