"""Parent side of the sandbox: a pool of reusable worker processes and their verdicts.

Each worker is `python -I worker.py` in its own session, with a scrubbed environment and a
fresh temporary directory. A job (program source + input grids) goes to an idle worker as
length-prefixed JSON; the reply is read with a size cap and checked again here (grids are
re-validated with `shared.tasks.as_grid`, comparisons with expected outputs happen here, so
the child never sees an expected grid). A worker past its time limit plus a grace period is
killed; one that broke a rule, changed shared state, timed out, ran out of memory or died is
replaced before the next job. Not thread-safe: one pool per thread.
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import weakref
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shared.grids import same
from shared.sandbox.verdict import STATUSES, Outcome, Verdict, worst
from shared.tasks import MAX_SIDE, N_COLOURS, TaskError, as_grid

WORKER = Path(__file__).with_name("worker.py")
# libraries a pool may preload into its workers, so programs can import them: name -> modules
LIBRARIES = {"dsl": ("shared.solvers.dsl.primitives",)}
HEADER = struct.Struct(">I")
DEFAULT_TIME_S = 3.0  # per call (all inputs of one program); simple ARC programs take milliseconds
DEFAULT_MEMORY_MB = 512  # address space a program may add on top of python + numpy (~150 MB)
GRACE_S = 0.5  # the child's own alarm should fire first; past this the parent kills it
START_TIMEOUT_S = 30.0  # python + numpy start in ~0.2 s; generous for a loaded 2-core machine
MAX_REPLY = 8 << 20  # a reply holds at most a few dozen 30x30 grids
MAX_START_FAILURES = 3
# what a worker's environment keeps: nothing of the parent's (no keys, tokens, proxies)
WORKER_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
              "MKL_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}


@dataclass
class Job:
    code: str
    inputs: list            # grids: lists of lists or 2-d integer arrays
    expected: list | None = None  # a grid (or None: unknown) per input


class _Worker:
    """One child process and its pipes; `buf` collects a reply as it arrives."""

    def __init__(self, config: dict):
        self.tmp = tempfile.mkdtemp(prefix="arc-sandbox-")
        to_child_r, self.wfd = os.pipe()
        self.rfd, from_child_w = os.pipe()
        env = dict(WORKER_ENV, HOME=self.tmp, TMPDIR=self.tmp, **(config.get("library") or {}).get("env", {}))
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", str(WORKER), str(to_child_r), str(from_child_w), self.tmp, json.dumps(config)],
                pass_fds=(to_child_r, from_child_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, cwd=self.tmp, env=env, start_new_session=True, close_fds=True)
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self.buf = bytearray()
        self.ready = False
        self.started = time.monotonic()
        self.job: int | None = None
        self.request_id = 0
        self.failed_start: bool | None = None  # set when the first message is not the ready handshake
        self.start_error = ""  # why, when it is not
        self.deadline = 0.0
        self.sent_at = 0.0
        self.calls = 0

    def send(self, msg: dict) -> None:
        data = json.dumps(msg, separators=(",", ":")).encode()
        view = memoryview(HEADER.pack(len(data)) + data)
        while view:
            view = view[os.write(self.wfd, view):]

    def take_message(self) -> dict | None:
        """A complete reply from the buffer, or None; raises ValueError on a malformed one."""
        if len(self.buf) < HEADER.size:
            return None
        (n,) = HEADER.unpack(self.buf[:HEADER.size])
        if n > MAX_REPLY:
            raise ValueError(f"reply of {n} bytes is over the cap of {MAX_REPLY}")
        if len(self.buf) < HEADER.size + n:
            return None
        body = bytes(self.buf[HEADER.size:HEADER.size + n])
        del self.buf[:HEADER.size + n]
        msg = json.loads(body)
        if not isinstance(msg, dict):
            raise ValueError("reply is not an object")
        return msg

    def exit_reason(self) -> tuple[str, str]:
        """(status, detail) for a worker that died on its own."""
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "crash", "the worker closed its pipe and hung"
        if code == -signal.SIGXCPU:
            return "timeout", "over the CPU time limit"
        if code == -signal.SIGSEGV:
            return "crash", "the worker crashed (segmentation fault: deep recursion?)"
        if code == -signal.SIGKILL:
            return "memory", "the worker was killed (out of memory?)"
        if code < 0:
            return "crash", f"the worker died on signal {-code}"
        return "crash", f"the program ended the worker process (exit code {code})"

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        for fd in (self.rfd, self.wfd):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.tmp, ignore_errors=True)


def _kill_all(workers: list[_Worker]) -> None:
    for w in workers:
        w.kill()
    workers.clear()


def checked_grid(value, where: str) -> np.ndarray:
    """`as_grid` with a numpy fast path for the common valid case (the pure-Python check of
    every cell dominated the parent's time); anything unusual goes to `as_grid` to be judged."""
    try:
        a = np.asarray(value)
    except (ValueError, TypeError):  # ragged, or not array-like at all
        a = None
    if (a is not None and a.ndim == 2 and a.dtype.kind in "iu" and 1 <= a.shape[0] <= MAX_SIDE
            and 1 <= a.shape[1] <= MAX_SIDE and a.min() >= 0 and a.max() < N_COLOURS):
        return a.astype(np.uint8)
    return as_grid(value, where)


def _grid_or_none(g) -> np.ndarray | None:
    return None if g is None else checked_grid(g, "expected grid")


class SandboxPool:
    """Reusable sandbox workers. `run` verifies one program, `run_many` a batch in parallel.

    time_limit_s: wall and CPU seconds per call (the program's definition plus all inputs).
    memory_mb: address space a program may allocate on top of the worker's own.
    library: a name from `LIBRARIES` ("dsl") that every worker imports before locking down, so
    programs may `from shared.solvers.dsl.primitives import *` (printed DSL programs do); its
    programs get each input grid as a uint8 array, as the library's functions expect.
    """

    def __init__(self, workers: int = 1, time_limit_s: float = DEFAULT_TIME_S, memory_mb: int = DEFAULT_MEMORY_MB,
                 fsize_mb: int = 16, library: str | None = None):
        if workers < 1:
            raise ValueError(f"a sandbox pool needs at least one worker, got {workers}")
        self.n_workers = workers
        self.time_limit_s = float(time_limit_s)
        self.config = {"memory_mb": int(memory_mb), "fsize_mb": int(fsize_mb)}
        if library is not None:
            if library not in LIBRARIES:
                raise ValueError(f"no sandbox library named {library!r}; known: {', '.join(sorted(LIBRARIES))}")
            root = Path(__file__).resolve().parents[2]  # the folder that holds the `shared` package
            self.config["library"] = {"path": str(root), "package": "shared", "modules": list(LIBRARIES[library])}
            # the workers' HOME is their temp dir: point them at this user's cache folder, where a
            # library's compiled code lives (the DSL's numba kernels), to read while preloading
            env = {"XDG_CACHE_HOME": os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")}
            for name in LIBRARIES[library]:  # compile what the library compiles here, once, not in every worker
                module = importlib.import_module(name)
                if callable(getattr(module, "preload", None)):
                    module.preload()
                if callable(getattr(module, "worker_env", None)):
                    env.update(module.worker_env())  # e.g. its cache folder, and that it is complete
            self.config["library"]["env"] = env
        self._workers: list[_Worker] = []
        self.spawned = 0
        self.replaced = 0
        self._next_id = 0
        # workers die with the pool, or at interpreter exit at the latest
        weakref.finalize(self, _kill_all, self._workers)

    # -- lifecycle -----------------------------------------------------------------------
    def _spawn(self) -> _Worker:
        self.spawned += 1
        return _Worker(self.config)

    def _retire(self, w: _Worker) -> None:
        w.kill()
        self._workers.remove(w)
        self.replaced += 1

    def close(self) -> None:
        _kill_all(self._workers)

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- running -------------------------------------------------------------------------
    def run(self, code: str, inputs: list, expected: list | None = None) -> Verdict:
        """Run `solve` from `code` on every input grid; compare with `expected` where given."""
        return self.run_many([Job(code, inputs, expected)])[0]

    def run_many(self, jobs: list[Job]) -> list[Verdict]:
        """Verdicts for many jobs, in order, spread over the workers."""
        prepared = []
        for job in jobs:
            inputs = [checked_grid(g, f"input {i}").tolist() for i, g in enumerate(job.inputs)]
            expected = [None] * len(inputs) if job.expected is None else [_grid_or_none(g) for g in job.expected]
            if len(expected) != len(inputs):
                raise ValueError(f"{len(expected)} expected grids for {len(inputs)} inputs")
            prepared.append((job.code if isinstance(job.code, str) else str(job.code), inputs, expected))
        verdicts: list[Verdict | None] = [None] * len(jobs)
        queue = deque(range(len(jobs)))
        start_failures, start_error = 0, ""
        while queue or any(w.job is not None for w in self._workers):
            while len(self._workers) < min(self.n_workers, len(queue) + sum(w.job is not None for w in self._workers)):
                self._workers.append(self._spawn())
            for w in list(self._workers):
                if w.ready and w.job is None and queue:
                    i = queue.popleft()
                    code, inputs, _ = prepared[i]
                    self._next_id += 1
                    w.request_id = self._next_id
                    try:
                        w.send({"id": w.request_id, "code": code, "inputs": inputs, "time_s": self.time_limit_s})
                    except OSError:  # died while idle: start another and retry the job
                        queue.appendleft(i)
                        self._retire(w)
                        continue
                    w.job, w.sent_at = i, time.monotonic()
                    w.deadline = w.sent_at + self.time_limit_s + GRACE_S
            live = {w.rfd: w for w in self._workers}
            now = time.monotonic()
            waits = [w.deadline - now if w.job is not None else w.started + START_TIMEOUT_S - now
                     for w in self._workers if w.job is not None or not w.ready]
            timeout = max(0.0, min([1.0, *waits]))
            readable, _, _ = select.select(list(live), [], [], timeout)
            for fd in readable:
                w = live[fd]
                data = os.read(fd, 1 << 16)
                if not data:
                    status, detail = w.exit_reason()
                    if w.job is not None:
                        verdicts[w.job] = self._failed(prepared[w.job], status, detail, w)
                    elif not w.ready:
                        start_failures += 1
                        start_error = f"one exited while starting (exit code {w.proc.returncode})"
                    self._retire(w)
                    continue
                w.buf += data
                self._take_replies(w, prepared, verdicts)
                if w not in self._workers:
                    continue
                if not w.ready and w.failed_start:
                    start_failures, start_error = start_failures + 1, w.start_error
                    self._retire(w)
                elif w.ready and w.failed_start is False:
                    start_failures, w.failed_start = 0, None
            now = time.monotonic()
            for w in list(self._workers):
                if w.job is not None and now > w.deadline:
                    verdicts[w.job] = self._failed(prepared[w.job], "timeout",
                                                   f"over the time limit of {self.time_limit_s:g} s (killed)", w)
                    self._retire(w)
                elif not w.ready and now > w.started + START_TIMEOUT_S:
                    start_failures, start_error = start_failures + 1, f"one was not ready within {START_TIMEOUT_S:g} s"
                    self._retire(w)
            if start_failures >= MAX_START_FAILURES:
                for i in queue:
                    verdicts[i] = self._failed(prepared[i], "crash", f"sandbox workers fail to start ({start_failures} "
                                               f"tries; the last: {start_error})", None)
                queue.clear()
        return verdicts  # type: ignore[return-value]

    def _take_replies(self, w: _Worker, prepared: list, verdicts: list) -> None:
        """Handle every complete message in w's buffer; retire w when one is out of place."""
        while w in self._workers:
            try:
                msg = w.take_message()
            except (ValueError, UnicodeDecodeError) as e:
                if w.job is not None:
                    verdicts[w.job] = self._failed(prepared[w.job], "crash", f"malformed reply: {e}", w)
                    w.job = None
                self._retire(w)
                return
            if msg is None:
                return
            if not w.ready:
                w.ready = msg.get("ready") is True
                w.failed_start = not w.ready
                if w.failed_start:  # a worker that cannot set itself up says why (before any program ran)
                    w.start_error = f"one failed to set up: {str(msg.get('fatal'))[:300]}" if "fatal" in msg \
                        else "one's first message was not the ready handshake"
                return
            if w.job is None or msg.get("id") != w.request_id:
                # a reply nobody asked for (forged by a program): nothing it says is trusted
                if w.job is not None:
                    verdicts[w.job] = self._failed(prepared[w.job], "crash", "unexpected reply", w)
                    w.job = None
                self._retire(w)
                return
            verdict, retire = self._verdict(prepared[w.job], msg, time.monotonic() - w.sent_at)
            verdicts[w.job], w.job = verdict, None
            w.calls += 1
            if retire:
                verdict.worker_replaced = True
                self._retire(w)

    def _failed(self, job, status: str, detail: str, w: _Worker | None) -> Verdict:
        seconds = time.monotonic() - w.sent_at if w is not None and w.sent_at else 0.0
        outcomes = [Outcome(status, None, detail) for _ in job[1]]
        return Verdict(status, outcomes, detail, seconds, worker_replaced=w is not None)

    def _verdict(self, job, msg: dict, seconds: float) -> tuple[Verdict, bool]:
        """The verdict from a worker's reply (checked, since the child may be subverted)."""
        _, inputs, expected = job
        results = msg.get("results")
        if not isinstance(results, list) or len(results) != len(inputs):
            return Verdict("crash", [Outcome("crash", None, "malformed reply")] * len(inputs),
                           "malformed reply", seconds), True
        outcomes = []
        for i, r in enumerate(results):
            status = r.get("status") if isinstance(r, dict) else None
            if status not in STATUSES:
                outcomes.append(Outcome("crash", None, "malformed reply"))
                continue
            detail = str(r.get("detail", ""))[:500]
            took = float(r["seconds"]) if isinstance(r.get("seconds"), int | float) else 0.0
            grid = None
            if status == "ok":
                try:
                    grid = checked_grid(r.get("output"), f"output {i}")
                except TaskError as e:
                    status, detail = "bad_output", str(e)
                else:
                    if expected[i] is not None and not same(grid, expected[i]):
                        status, detail = "wrong", _difference(grid, expected[i])
            outcomes.append(Outcome(status, grid, detail, took))
        violations = [str(v)[:300] for v in msg.get("violations") or []]
        tainted = msg.get("tainted")
        printed = msg.get("printed") if isinstance(msg.get("printed"), int) else 0
        if violations:
            status, detail = "forbidden", violations[0]
        else:
            status = worst(o.status for o in outcomes)
            detail = next((f"input {i}: {o.detail}" for i, o in enumerate(outcomes) if o.status == status
                           and o.detail), "")
        retire = bool(violations or tainted) or status in ("timeout", "memory", "crash")
        return Verdict(status, outcomes, detail, seconds, printed), retire


def _difference(got: np.ndarray, want: np.ndarray) -> str:
    if got.shape != want.shape:
        return f"expected {want.shape[0]}x{want.shape[1]}, got {got.shape[0]}x{got.shape[1]}"
    return f"{int((got != want).sum())} of {want.size} cells differ"


_DEFAULT: SandboxPool | None = None


def default_pool() -> SandboxPool:
    """A one-worker pool shared by this process, closed at exit."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = SandboxPool(workers=1)
        atexit.register(_DEFAULT.close)
    return _DEFAULT
