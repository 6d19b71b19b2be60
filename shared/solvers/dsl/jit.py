"""numba for the DSL's kernels, or plain Python where it is missing or cannot compile.

Every kernel is written once, in the subset of Python that numba compiles, and decorated with
`njit`. With numba working, `njit` compiles it (`cache=True`: the machine code is kept beside
the source, so a second process loads it in milliseconds). Without numba, when its compiler
fails on a smoke kernel, or when `ARC_DSL_PURE=1` is set, `njit` returns the function as it is:
the same code runs as plain Python, slower, with the same results. `COMPILED` says which;
`REASON` says why not. `say_once()` prints that reason once per process.

The cache lives in `~/.cache/arc-suite/numba/<fingerprint>` (or under `$ARC_DSL_CACHE`), where
the fingerprint hashes the DSL's kernel sources (every file that uses `njit` and what it imports):
numba checks only a cached function's own file, so a kernel edited under a cached search core
would otherwise keep its old machine code. On Linux a cached function loads without parsing the
LLVM bitcode numba stores beside its machine code (`_lazy_cache_loads`), which halves a cached start.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import itertools
import json
import os
import secrets
import shutil
import struct
import sys
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no lock; two processes on a cold cache both compile
    fcntl = None

COMPILED = False
REASON = ""
_said = False
_held = 0  # how deep this process is inside `compiling()`
# set (to "1") in the environment of a process whose parent has just compiled every kernel into the
# cache: it loads them without taking the compile lock, so it does not wait on another process that
# holds the lock to compile something else (a sandbox pool's workers: they must start in seconds)
PRELOADED = "ARC_DSL_PRELOADED"


def _smoke_add(a, b):
    return a + b


def _smoke(numba, cache: bool):
    """Compile and run a one-line function. Cached once it worked: compiling it afresh in every
    process cost about 0.5 s of each start (numba's compiler set up for nothing)."""
    add = numba.njit(cache=cache)(_smoke_add)
    if add(1, 2) != 3:
        raise RuntimeError("numba compiled 1 + 2 to something other than 3")


def kernel_sources(root: Path | None = None) -> list[Path]:
    """The DSL's files compiled code can depend on: those that use `njit`, and every DSL module
    they import from (their globals are frozen into the machine code), transitively. The
    drivers (solver, search, fits) are not among them: editing one keeps the compiled cache."""
    root = root or Path(__file__).resolve().parent
    package = "shared.solvers.dsl"
    modules = {}  # dotted name -> file (a package by its __init__.py)
    for f in root.rglob("*.py"):
        parts = f.relative_to(root).with_suffix("").parts
        modules[".".join((package,) + (parts[:-1] if parts[-1] == "__init__" else parts))] = f

    def imported(name: str, f: Path) -> set[str]:
        own = name if f.name == "__init__.py" else name.rsplit(".", 1)[0]  # the file's package
        out = set()
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the file's own package up
                    base = ".".join(own.split(".")[:len(own.split(".")) - node.level + 1] + ([base] if base else []))
                # a submodule imported by name; any other name comes from the package itself
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            out |= {n for n in names if n in modules}
        return out

    todo = [n for n, f in modules.items() if "njit" in f.read_text()]
    seen = set(todo)
    while todo:
        n = todo.pop()
        for dep in imported(n, modules[n]) - seen:
            seen.add(dep)
            todo.append(dep)
    return sorted(modules[n] for n in seen)


def fingerprint(root: Path | None = None) -> str:
    """A hash of the DSL's kernel sources (`kernel_sources`): the kernels, the core that calls
    them and what they import."""
    h = hashlib.sha256()
    root = root or Path(__file__).resolve().parent
    for f in kernel_sources(root):
        h.update(f.relative_to(root).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


_own_print = ""  # this library's fingerprint, computed once per process
MEMO = "fingerprints.json"  # in the cache's base folder: the fingerprint of each set of sources seen
MEMO_KEEP = 16


def _sources_key(root: Path) -> str:
    """A hash of every source file of the DSL, read as bytes (no parsing: about a millisecond)."""
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        h.update(f.relative_to(root).as_posix().encode() + b"\0")
        h.update(f.read_bytes())
    return h.hexdigest()[:32]


def _remembered_fingerprint(base: Path, root: Path | None = None) -> str:
    """`fingerprint(root)`, looked up in the base folder's memo by a hash of all the sources:
    parsing them for their imports costs 0.3-0.6 s, which every process start paid. Sources
    not in the memo are parsed and added; an unreadable or unwritable memo only costs the parse."""
    root = root or Path(__file__).resolve().parent
    key = _sources_key(root)
    memo_file = base / MEMO
    try:
        memo = json.loads(memo_file.read_text())
        if not isinstance(memo, dict):
            memo = {}
    except (OSError, ValueError):
        memo = {}
    got = memo.get(key)
    if isinstance(got, str) and len(got) == 16:
        return got
    got = fingerprint(root)
    memo.pop(key, None)
    memo[key] = got  # the newest last; the oldest dropped past MEMO_KEEP
    memo = dict(list(memo.items())[-MEMO_KEEP:])
    try:
        base.mkdir(parents=True, exist_ok=True)
        tmp = memo_file.with_name(f"{MEMO}.{os.getpid()}")
        tmp.write_text(json.dumps(memo))
        os.replace(tmp, memo_file)  # whole or not at all, for a process reading it meanwhile
    except OSError:
        pass
    return got


def cache_dir() -> Path:
    global _own_print
    base = Path(os.environ.get("ARC_DSL_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "arc-suite", "numba"))
    _own_print = _own_print or _remembered_fingerprint(base)
    return base / _own_print


def _prune(current: Path, keep: int = 3) -> None:
    """Drop the caches of older sources, keeping the newest few."""
    try:
        old = sorted((d for d in current.parent.iterdir() if d.is_dir() and d != current),
                     key=lambda d: d.stat().st_mtime, reverse=True)
        for d in old[keep - 1:]:
            shutil.rmtree(d, ignore_errors=True)
    except OSError:
        pass


def _distinct_function_ids(numba) -> None:
    """Number the functions this process compiles from a random start, not from 1.

    numba names each compiled function by its qualified name and a per-process counter, and
    numba's own helpers are closures (its sort is one per kind of sort) that share one qualified
    name. The cold cache is compiled by several processes at once, each counting from 1, so two
    of them could give different helpers one name; a process that then loaded both kernels
    linked both calls to whichever body came first (found when a kernel that sorts returned
    wrong grids, and crashed, only after another one had been loaded). Counters that start far
    apart in each process keep the names distinct (numba issue 10486)."""
    ids = numba.core.bytecode.FunctionIdentity
    ids._unique_ids = itertools.count(secrets.randbits(62) + 1)


def elf_defined(obj: bytes) -> set[str] | None:
    """The names of the symbols an ELF64 little-endian object file defines (functions and data,
    not sections or files; private ones have no name there); None for any other format."""
    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    names = set()
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 2:  # SHT_SYMTAB
            continue
        strings = sections[link][4]
        for at in range(offset + entsize, offset + size, entsize):  # past the null symbol
            name, info, _, shndx = struct.unpack_from("<IBBH", obj, at)
            if shndx != 0 and name and info & 0xF not in (3, 4):  # defined; not STT_SECTION / STT_FILE
                names.add(obj[strings + name:obj.index(b"\0", strings + name)].decode())
    return names


LAZY_LOADS = False  # set when `_lazy_cache_loads` is in place
# numba's own loader of a cached function (`CPUCodeLibrary._unserialize`, whitespace dropped, hashed) as of
# numba 0.68.1: `_lazy_cache_loads` replaces only a loader it was written against
_KNOWN_LOADERS = {"96b16e98dcdda6df"}


def _lazy_cache_loads(numba) -> None:
    """Load cached machine code without parsing its LLVM bitcode, on ELF platforms.

    A cached function is its object code and the bitcode of its module, which numba parses on
    every load (to link the function into a later compile that calls it) and walks for the names
    it defines: about 1.2 s of a 2 s cached start for the ~300 kernels, though nothing links them
    once loaded. Here the names are read from the object file's symbol table instead (the same
    names, less the private switch tables numba never looks up), and the bitcode is parsed only
    when a compile asks for the module to link. Any other object format, or a numba whose loader
    is not the one this was written against (`_KNOWN_LOADERS`), loads as numba does."""
    global LAZY_LOADS
    from numba.core import codegen

    lib = codegen.CPUCodeLibrary
    if not hasattr(lib, "_unserialize") or not hasattr(lib, "_get_module_for_linking"):
        return
    original = lib._unserialize.__func__  # a known loader (below) vouches for the methods it calls
    try:
        source = "".join(inspect.getsource(original).split())
    except (OSError, TypeError):
        return
    if hashlib.sha256(source.encode()).hexdigest()[:16] not in _KNOWN_LOADERS:
        return  # a loader this replacement was not written against: numba's own stays
    linking = lib._get_module_for_linking

    def _unserialize(cls, cg, state):
        name, kind, data = state
        names = elf_defined(data[0]) if kind == "object" else None
        engine = getattr(cg, "_engine", None)
        if names is None or not isinstance(getattr(engine, "_defined_symbols", None), set):
            return original(cls, cg, state)
        self = cg.create_library(name)
        self.enable_object_caching()
        self._set_compiled_object(data[0])
        self._lazy_bitcode = data[1]
        self._finalize_final_module()
        engine._defined_symbols |= names
        return self

    def _get_module_for_linking(self):
        bitcode = self.__dict__.pop("_lazy_bitcode", None)
        if bitcode is not None and self._shared_module is None:
            self._shared_module = codegen.ll.parse_bitcode(bitcode)
        return linking(self)

    lib._unserialize = classmethod(_unserialize)
    lib._get_module_for_linking = _get_module_for_linking
    LAZY_LOADS = True


@contextmanager
def _quiet_llvm_lock():
    """numba's callbacks on llvmlite's lock, off: each LLVM call (about 100,000 in a cached start)
    broadcasts a start and an end event for numba's compile timers, about 0.3 s in all."""
    try:
        import llvmlite.binding.ffi as ffi

        callbacks = ffi.lib._lock._cblist
    except (ImportError, AttributeError):  # an llvmlite without that list: its callbacks stay
        callbacks = []
    saved = list(callbacks)
    callbacks.clear()
    try:
        yield
    finally:
        callbacks[:] = saved + [c for c in callbacks if c not in saved]  # and any registered meanwhile


try:
    if os.environ.get("ARC_DSL_PURE", "") not in ("", "0"):
        raise ImportError("ARC_DSL_PURE is set")
    import warnings

    import numba as _numba

    _distinct_function_ids(_numba)
    _lazy_cache_loads(_numba)
    # the core indexes a table of compiled kernels (first-class functions): numba calls that experimental
    warnings.filterwarnings("ignore", category=_numba.core.errors.NumbaExperimentalFeatureWarning)
    _dir = cache_dir()
    _cached = True
    try:
        _dir.mkdir(parents=True, exist_ok=True)
        _numba.config.CACHE_DIR = str(_dir)  # read when each kernel is decorated, so set before any is
        _prune(_dir)
    except OSError:
        _cached = False  # an unwritable home: numba falls back to its own cache places
    _smoke(_numba, _cached)
    COMPILED = True
except Exception as e:  # ImportError, or a compiler that does not work on this machine
    REASON = f"{type(e).__name__}: {e}"


def _unliteral_calls(dispatcher):
    """Make compiled callers call `dispatcher` with plain argument types, not literal ones.

    numba compiles a function called from compiled code once per literal value of each constant
    argument (`label(g, True, False)` and `label(g, False, False)` were two compiles): 281
    compiles of 163 helpers for the kernels, where 174 plain signatures cover every call."""
    from numba.core import types

    typed = dispatcher.get_call_template

    def get_call_template(args, kws):
        return typed(tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def njit(fn=None, *, first_class: bool = False):
    """Compile `fn` with numba (cached, no GIL) when it works here; otherwise return it unchanged.
    Only a `first_class` function (a kernel, or a stand-in for one, that the core calls through a
    table of function pointers) gets the C-callable wrapper such a call needs; `@njit(first_class=True)`."""
    if fn is None:
        return lambda f: njit(f, first_class=first_class)
    if not COMPILED:
        return fn
    return _unliteral_calls(_numba.njit(cache=True, nogil=True, no_cfunc_wrapper=not first_class)(fn))


def say_once() -> None:
    """Print, once per process, that the kernels run as plain Python, and why."""
    global _said
    if not COMPILED and not _said:
        _said = True
        print(f"dsl: numba unavailable ({REASON}); the DSL kernels run as plain Python (slow)", file=sys.stderr)


@contextmanager
def compiling():
    """Held while this process compiles into (or loads from) the cache: a second process that
    starts on a cold cache waits here, then loads what the first compiled instead of compiling
    it again. Re-entrant within a process; a no-op without numba, fcntl or a writable cache, and
    where `PRELOADED` is set. numba's lock events are off meanwhile (`_quiet_llvm_lock`)."""
    global _held
    f = d = None
    if COMPILED and fcntl is not None and not _held and os.environ.get(PRELOADED, "") in ("", "0"):
        try:
            d = cache_dir()
            d.mkdir(parents=True, exist_ok=True)
            f = open(d / "compile.lock", "a")
        except OSError:
            f = None
    _held += 1
    try:
        if f is not None:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                print(f"dsl: another process is compiling the kernels into {d}; waiting for it", file=sys.stderr)
                fcntl.flock(f, fcntl.LOCK_EX)
        if COMPILED and _held == 1:
            with _quiet_llvm_lock():  # the outermost hold: what is compiled or loaded here skips numba's lock events
                yield
        else:
            yield
    finally:
        _held -= 1
        if f is not None:
            f.close()  # closing releases the lock
