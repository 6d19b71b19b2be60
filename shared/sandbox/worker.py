"""Child side of the sandbox: one long-lived process that runs untrusted `solve` programs.

Started by `shared.sandbox.pool` as `python -I worker.py READ_FD WRITE_FD TMPDIR CONFIG_JSON`
with a scrubbed environment. It imports numpy and the usual stdlib modules, lowers its
resource limits, installs an audit hook that refuses dangerous operations, then answers
requests: length-prefixed JSON both ways (never pickle, so a subverted child cannot run code
in the parent). Self-contained on purpose: only the stdlib and numpy, nothing from `shared`,
unless the pool names a library to preload (the DSL primitives, so that printed DSL programs
run here): it is imported before the hook, like numpy, and guarded like numpy between calls,
and programs then get each input as a uint8 array (what the library works on).
"""

from __future__ import annotations

import _thread
import builtins
import collections
import copy
import functools
import heapq
import importlib
import itertools
import json
import math
import os
import re
import resource
import signal
import struct
import sys
import time
import types
import typing

import numpy

# imported before the audit hook is installed, so programs find them loaded and pay nothing
PRELOADED = (collections, copy, functools, heapq, itertools, math, re, typing)
MAX_SIDE = 30
HEADER = struct.Struct(">I")
MAX_REQUEST = 64 << 20

# Events refused outright while untrusted code runs (prefix match).
REFUSED_PREFIXES = (
    "socket.", "subprocess.", "os.system", "os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.forkpty",
    "os.kill", "os.killpg", "os.chdir", "os.chroot", "os.setuid", "os.setgid", "signal.pthread_kill",
    "ctypes.", "pty.", "gc.get_", "resource.setrlimit", "resource.prlimit", "sys.addaudithook",
    "sys._current_frames", "_thread.start_new_thread", "mmap.", "urllib.", "http.", "ftplib.", "smtplib.",
    "poplib.", "imaplib.", "nntplib.", "telnetlib.", "webbrowser.", "sqlite3.", "os.add_dll_directory",
)
# Modules that act without audit events; `import` of a fresh copy is refused.
REFUSED_IMPORTS = {"_posixsubprocess", "_xxsubinterpreters", "_xxinterpchannels", "_testcapi", "_testinternalcapi"}
# Events whose first argument is a path that must lie inside the temporary directory.
PATH_WRITE_EVENTS = {
    "os.remove", "os.unlink", "os.rename", "os.replace", "os.mkdir", "os.rmdir", "os.chmod", "os.chown",
    "os.link", "os.symlink", "os.truncate", "os.utime", "os.setxattr", "os.removexattr", "os.chflags",
    "os.lchflags", "os.lchmod", "os.mkfifo", "os.mknod", "shutil.copyfile", "shutil.copymode",
    "shutil.copystat", "shutil.copytree", "shutil.move", "shutil.rmtree", "shutil.make_archive",
    "shutil.unpack_archive", "tempfile.mkstemp", "tempfile.mkdtemp",
}
LIST_EVENTS = {"os.listdir", "os.scandir", "glob.glob", "glob.glob/2"}
# Files a program may read outside its temporary directory: module sources and binaries
# under sys.path (so imports work), nothing else (no task JSON, no /etc, no /proc).
IMPORT_SUFFIXES = (".py", ".pyc", ".so", ".pth", ".pyi", ".typed")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class _Timeout(BaseException):
    """Raised by the in-child wall-clock alarm; a BaseException so `except Exception` misses it."""


class _Sink:
    """Replacement for stdout/stderr: counts characters and keeps none."""

    def __init__(self):
        self.count = 0

    def write(self, text):
        self.count += len(text)
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


def make_hook(tmp: str, read_roots: tuple[str, ...], state: dict):
    """An audit hook that refuses (raises PermissionError) and records forbidden events
    while state["trusted"] is False."""

    def resolve(p) -> str | None:
        if isinstance(p, bytes):
            p = os.fsdecode(p)
        if not isinstance(p, str):
            return None
        return os.path.realpath(p)

    def check(event: str, args) -> str | None:
        if event.startswith(REFUSED_PREFIXES):
            return event
        if event == "import" and args and args[0] in REFUSED_IMPORTS:
            return f"import {args[0]}"
        if event == "open":
            raw = args[0]
            if isinstance(raw, int):
                return "open of a file descriptor"
            path = resolve(raw)
            if path is None:
                return "open of a non-path"
            mode, flags = args[1], args[2] or 0
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool(flags & WRITE_FLAGS)
            if _inside(path, tmp):
                return None
            if writing:
                return f"open for writing outside the sandbox: {raw}"
            if any(_inside(path, r) for r in read_roots) and (path.endswith(IMPORT_SUFFIXES) or os.path.isdir(path)):
                return None
            return f"open for reading outside the sandbox: {raw}"
        if event in PATH_WRITE_EVENTS:
            for a in args[:2]:
                path = resolve(a)
                if path is not None and not _inside(path, tmp):
                    return f"{event} outside the sandbox: {a}"
            return None
        if event in LIST_EVENTS:
            path = resolve(args[0] if args else ".")
            if path is not None and not (_inside(path, tmp) or any(_inside(path, r) for r in read_roots)):
                return f"{event} outside the sandbox: {args[0]}"
        return None

    def hook(event, args):
        if state["trusted"]:
            return
        reason = check(event, args)
        if reason is not None:
            state["violations"].append(reason)
            raise PermissionError(f"sandbox refused: {reason}")

    return hook


def _cell_ok(v) -> bool:
    return not isinstance(v, bool) and isinstance(v, int | numpy.integer) and 0 <= v <= 9


def to_grid(value) -> tuple[list | None, str | None]:
    """(rows as lists of int, None) for a valid ARC grid, else (None, why not)."""
    if isinstance(value, numpy.ndarray):
        if value.ndim != 2:
            return None, f"returned an array of shape {value.shape}, expected 2-d"
        if not (1 <= value.shape[0] <= MAX_SIDE and 1 <= value.shape[1] <= MAX_SIDE):
            return None, f"returned a {value.shape[0]}x{value.shape[1]} array, sides must be 1..{MAX_SIDE}"
        if value.dtype == bool or not numpy.issubdtype(value.dtype, numpy.integer):
            return None, f"returned an array of dtype {value.dtype}, expected integer colours"
        if value.min() < 0 or value.max() > 9:
            return None, "returned colours outside 0-9"
        return [[int(c) for c in row] for row in value.tolist()], None
    if type(value) not in (list, tuple):
        return None, f"returned {type(value).__name__}, expected a list of rows or a 2-d array"
    if not 1 <= len(value) <= MAX_SIDE:
        return None, f"returned {len(value)} rows, must be 1..{MAX_SIDE}"
    rows = []
    for r, row in enumerate(value):
        if isinstance(row, numpy.ndarray):
            row = row.tolist() if row.ndim == 1 and row.size <= MAX_SIDE else row
        if type(row) not in (list, tuple):
            return None, f"row {r} is {type(row).__name__}, expected a list"
        if not 1 <= len(row) <= MAX_SIDE:
            return None, f"row {r} has {len(row)} cells, must be 1..{MAX_SIDE}"
        if rows and len(row) != len(rows[0]):
            return None, f"not rectangular: row {r} has {len(row)} cells, row 0 has {len(rows[0])}"
        for c, v in enumerate(row):
            if not _cell_ok(v):
                return None, f"cell ({r},{c}) is {str(v)[:20]!r}, expected an integer colour 0-9"
        rows.append([int(v) for v in row])
    return rows, None


def _safe_text(e: BaseException, limit: int = 300) -> str:
    try:
        text = str(e)
    except BaseException:  # a hostile __str__: the type name says enough
        text = "<unprintable>"
    return text[:limit]


def describe_error(e: BaseException) -> str:
    """'ValueError: message (line N of the program)' with the deepest line inside the program.

    Walks the traceback by hand: traceback.extract_tb would read source files, which the
    audit hook refuses while the program's exception is being described.
    """
    where = ""
    try:
        tb, line = e.__traceback__, None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == "<solution>":
                line = tb.tb_lineno
            tb = tb.tb_next
        if line is None and isinstance(e, SyntaxError) and e.filename == "<solution>":
            line = e.lineno
        if line is not None:
            where = f" (line {line} of the program)"
    except BaseException:
        pass
    return f"{type(e).__name__}: {_safe_text(e)}{where}"


class Worker:
    def __init__(self, rfd: int, wfd: int, tmp: str, config: dict):
        self.rfd, self.wfd, self.tmp = rfd, wfd, os.path.realpath(tmp)
        self.state = {"trusted": True, "violations": []}
        self.sink = _Sink()
        self.recursion_limit = sys.getrecursionlimit()
        self.handlers = {s: signal.getsignal(s) for s in (signal.SIGALRM, signal.SIGPROF, signal.SIGXCPU)}
        self.memory_mb = int(config.get("memory_mb", 512))
        self.library = config.get("library")  # {"path", "package", "modules"} or None
        self.fsize_mb = int(config.get("fsize_mb", 16))

    # -- protocol ----------------------------------------------------------------------
    def _read_exact(self, n: int) -> bytes | None:
        chunks, left = [], n
        while left:
            got = os.read(self.rfd, min(left, 1 << 20))
            if not got:
                return None
            chunks.append(got)
            left -= len(got)
        return b"".join(chunks)

    def read(self) -> dict | None:
        head = self._read_exact(HEADER.size)
        if head is None:
            return None
        (n,) = HEADER.unpack(head)
        if n > MAX_REQUEST:
            return None
        body = self._read_exact(n)
        return None if body is None else json.loads(body)

    def send(self, msg: dict) -> None:
        data = json.dumps(msg, separators=(",", ":")).encode()
        view = memoryview(HEADER.pack(len(data)) + data)
        while view:
            view = view[os.write(self.wfd, view):]

    # -- set-up ------------------------------------------------------------------------
    def _preload(self) -> list:
        """Import the library the pool asked for (trusted code, before the hook); its loaded modules."""
        # an editable install of the suite (pip install -e .) puts a finder for `shared` on
        # sys.meta_path; a worker sees the suite only when its pool asks for it, by the path below
        sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")]
        if not self.library:
            return []
        sys.path.append(self.library["path"])
        for name in self.library["modules"]:
            module = importlib.import_module(name)
            if callable(getattr(module, "preload", None)):
                module.preload()  # e.g. compiled kernels, which would read their cache files later
        package = self.library["package"]
        return [m for n, m in sorted(sys.modules.items()) if n == package or n.startswith(package + ".")]

    def lock_down(self) -> None:
        library = self._preload()
        os.chdir(self.tmp)
        sys.stdout = sys.stderr = self.sink
        sys.stdin = None
        limits = [(resource.RLIMIT_FSIZE, self.fsize_mb * 2**20), (resource.RLIMIT_CORE, 0),
                  (resource.RLIMIT_NPROC, 0)]
        vm = _vm_size_bytes()
        if vm:  # Linux; elsewhere the address-space limit is not enforced anyway (macOS)
            limits.append((resource.RLIMIT_AS, vm + self.memory_mb * 2**20))
        for which, value in limits:
            try:
                resource.setrlimit(which, (value, value))
            except (ValueError, OSError):  # NPROC below current use is refused on some kernels
                pass
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(64, soft), min(64, hard) if hard > 0 else 64))

        def alarm(signum, frame):
            raise _Timeout()

        signal.signal(signal.SIGALRM, alarm)
        self.handlers = {s: signal.getsignal(s) for s in (signal.SIGALRM, signal.SIGPROF, signal.SIGXCPU)}
        roots = tuple(sorted({os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)}))
        self._stub_unaudited()
        sys.addaudithook(make_hook(self.tmp, roots, self.state))
        # what a program must not replace (a violation) and what it may, but the worker relies on
        self.guarded = [(m, dict(m.__dict__)) for m in (builtins, numpy, sys.modules[__name__], *library)]
        self.library_state = _library_state(library)
        self.relied_on = [(m, dict(m.__dict__)) for m in (json, os, sys, signal, resource, time)]
        self.worker_class = dict(vars(Worker))
        self.disarm = functools.partial(signal.setitimer, signal.ITIMER_REAL, 0)

    def _stub_unaudited(self) -> None:
        """Replace _posixsubprocess (it forks and execs without an audit event) by a stub that
        refuses, wherever the stdlib looks it up. A program that loads the extension afresh
        through importlib internals still gets the real one: see the package docstring."""
        import _posixsubprocess
        import subprocess

        state = self.state

        def fork_exec(*args, **kwargs):
            state["violations"].append("_posixsubprocess.fork_exec")
            raise PermissionError("sandbox refused: _posixsubprocess.fork_exec")

        stub = type(sys)("_posixsubprocess")
        stub.fork_exec = fork_exec
        sys.modules["_posixsubprocess"] = stub
        subprocess._posixsubprocess = stub
        del _posixsubprocess

    def _restore_modules(self) -> tuple[bool, bool]:
        """Put back every attribute a program replaced in the modules the worker relies on.
        Returns (a guarded module or the worker was patched, anything was). Runs first after
        a program, using saved references only."""
        guarded = _restore(self.guarded, strict=True)
        guarded = _restore_library(self.library_state) or guarded
        for name, value in self.worker_class.items():
            if vars(Worker).get(name) is not value:
                setattr(Worker, name, value)
                guarded = True
        relied_on = _restore(self.relied_on, strict=False)
        return guarded, guarded or relied_on

    # -- one request ---------------------------------------------------------------------
    def run(self, req: dict) -> dict:
        wall, cpu = float(req["time_s"]), float(req.get("cpu_s", req["time_s"]))
        self.state["violations"].clear()
        self.sink.count = 0
        results: list[dict] = []
        inputs = req["inputs"]
        used = resource.getrusage(resource.RUSAGE_SELF)
        cpu_now = used.ru_utime + used.ru_stime
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        soft = int(cpu_now + cpu) + 2  # whole seconds; the alarm and the parent are the precise limits
        resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
        signal.setitimer(signal.ITIMER_REAL, wall)
        t0 = time.perf_counter()
        self.state["trusted"] = False
        try:
            try:
                namespace = {"__name__": "solution", "__builtins__": builtins}
                exec(compile(req["code"], "<solution>", "exec"), namespace)
                solve = namespace.get("solve")
                if not callable(solve):
                    raise NameError("the program defines no function solve(grid)")
            except _Timeout:
                raise
            except MemoryError:
                results = [{"status": "memory", "detail": "MemoryError while loading the program"}] * len(inputs)
                solve = None
            except BaseException as e:
                detail = describe_error(e)
                results = [{"status": "error", "detail": detail}] * len(inputs)
                solve = None
            if solve is not None:
                for grid in inputs:
                    t_in = time.perf_counter()
                    try:
                        given = numpy.array(grid, dtype=numpy.uint8) if self.library else [list(row) for row in grid]
                        out, why = to_grid(solve(given))
                        res = ({"status": "ok", "output": out} if why is None
                               else {"status": "bad_output", "detail": why})
                    except _Timeout:
                        raise
                    except MemoryError:
                        res = {"status": "memory", "detail": "MemoryError"}
                    except RecursionError as e:
                        res = {"status": "error", "detail": describe_error(e)}
                    except BaseException as e:  # SystemExit and KeyboardInterrupt are the program's errors too
                        res = {"status": "error", "detail": describe_error(e)}
                    res["seconds"] = round(time.perf_counter() - t_in, 6)
                    results.append(res)
        except _Timeout:
            detail = f"over the time limit of {wall:g} s"
            results += [{"status": "timeout", "detail": detail}] * (len(inputs) - len(results))
        finally:
            self.disarm()
            self.state["trusted"] = True
            patched, changed = self._restore_modules()
        seconds = time.perf_counter() - t0
        violations = list(self.state["violations"])
        tainted = self._restore()
        if patched:
            violations.append("modified builtins, numpy, the preloaded library or the sandbox worker")
        if changed:
            tainted = tainted or "modified a module the worker relies on"
        return {"id": req["id"], "results": results, "violations": violations[:5], "tainted": tainted,
                "printed": self.sink.count, "seconds": round(seconds, 6)}

    def _restore(self) -> str | None:
        """Undo what a program may change between calls; say what could not be undone."""
        tainted = None
        if sys.getrecursionlimit() != self.recursion_limit:
            sys.setrecursionlimit(self.recursion_limit)
        for s, h in self.handlers.items():
            if signal.getsignal(s) is not h:
                signal.signal(s, h)
                tainted = tainted or "changed signal handlers"
        if _thread._count():  # a thread left running could touch the next program's call
            tainted = tainted or "left a thread running"
        if sys.stdout is not self.sink or sys.stderr is not self.sink:
            sys.stdout = sys.stderr = self.sink
            tainted = tainted or "replaced stdout"
        try:
            if os.getcwd() != self.tmp:
                tainted = tainted or "changed directory"
            for name in os.listdir(self.tmp):
                _remove(os.path.join(self.tmp, name))
        except OSError as e:
            tainted = tainted or f"temporary directory: {e}"
        return tainted

    def serve(self) -> None:
        self.send({"ready": True, "pid": os.getpid()})
        while True:
            req = self.read()
            if req is None:
                return
            try:
                reply = self.run(req)
            except _Timeout:  # the alarm fired in the instant between the program's end and disarming
                signal.setitimer(signal.ITIMER_REAL, 0)
                self.state["trusted"] = True
                reply = {"id": req["id"], "results": [{"status": "timeout", "detail": "over the time limit"}]
                         * len(req["inputs"]), "violations": [], "tainted": "timer race", "printed": 0, "seconds": 0}
            self.send(reply)


def _restore(saved_modules: list, strict: bool) -> bool:
    """Undo replaced (and, when strict, added) names in saved modules; True if any were."""
    changed = False
    for module, saved in saved_modules:
        current = module.__dict__
        # a new name in numpy may be a lazily imported submodule; in builtins it is a plant
        added = [k for k in current if k not in saved] if strict and module is builtins else []
        if added or any(current.get(k, saved) is not v for k, v in saved.items()):
            changed = True
            for k in added:
                del current[k]
            current.update(saved)
    return changed


def _library_state(modules: list) -> tuple[list, list]:
    """What a program could change inside a preloaded library besides its module names: each
    function's code and defaults, and the module-level dicts, lists, sets and arrays."""
    functions, containers, seen = [], [], set()
    for m in modules:
        for value in vars(m).values():
            if id(value) in seen:
                continue
            seen.add(id(value))
            if isinstance(value, types.FunctionType):
                functions.append((value, value.__code__, value.__defaults__, value.__kwdefaults__))
            elif isinstance(value, dict | list | set | numpy.ndarray):
                containers.append((value, value.copy()))
    return functions, containers


def _restore_library(state: tuple[list, list]) -> bool:
    """Put back the library's functions and module-level containers; True if any had changed."""
    functions, containers = state
    changed = False
    for f, code, defaults, kwdefaults in functions:
        if f.__code__ is not code or f.__defaults__ is not defaults or f.__kwdefaults__ is not kwdefaults:
            f.__code__, f.__defaults__, f.__kwdefaults__ = code, defaults, kwdefaults
            changed = True
    for obj, saved in containers:
        if isinstance(obj, numpy.ndarray):
            same = obj.shape == saved.shape and obj.dtype == saved.dtype and numpy.array_equal(obj, saved)
            if not same and obj.shape == saved.shape and obj.flags.writeable:  # else it is replaced
                numpy.copyto(obj, saved, casting="unsafe")
        elif isinstance(obj, dict):
            same = obj.keys() == saved.keys() and all(obj[k] is v for k, v in saved.items())
            if not same:
                obj.clear()
                obj.update(saved)
        elif isinstance(obj, list):
            same = len(obj) == len(saved) and all(a is b for a, b in zip(obj, saved, strict=True))
            if not same:
                obj[:] = saved
        else:
            same = obj == saved
            if not same:
                obj.clear()
                obj.update(saved)
        changed = changed or not same
    return changed


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        for name in os.listdir(path):
            _remove(os.path.join(path, name))
        os.rmdir(path)
    else:
        os.unlink(path)


def _vm_size_bytes() -> int:
    """This process's address space in bytes, 0 where /proc is missing."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def main(argv: list[str]) -> int:
    rfd, wfd, tmp, config = int(argv[1]), int(argv[2]), argv[3], json.loads(argv[4])
    worker = Worker(rfd, wfd, tmp, config)
    try:
        worker.lock_down()
    except Exception as e:  # reported to the parent, which gives up on this worker
        worker.send({"fatal": f"{type(e).__name__}: {e}"})
        return 1
    worker.serve()
    # the parent closed the pipe (done, or killed): leave no files behind
    for name in os.listdir(worker.tmp):
        _remove(os.path.join(worker.tmp, name))
    os.rmdir(worker.tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
