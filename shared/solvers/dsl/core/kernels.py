"""The kernel primitives as the compiled core calls them: grouped by what they map (grid ->
grid, split: grid -> parts, join: parts -> grid) and by how many parameters they take, each
compiled for exactly one signature, so that a tuple of them is a typed table of function
pointers the enumeration indexes at run time (no kernel is linked into the core, which keeps
its compile short).

`tables()` compiles (or loads from numba's cache) every kernel once per process. On a cold
cache it first compiles them in parallel child processes, which share jobs of one kernel each
and write the cache this process reads as they go; another process starting meanwhile waits for them
(`jit.compiling`). Each group is handed to the core as a numba typed List of
first-class functions: a tuple of them would be typed and unboxed again on every call into the
core (about 10 ms for a hundred kernels), a typed List is one pointer. Without numba the tables
hold lists of the plain Python functions. A group no kernel falls in holds a stub that is never
called (numba cannot index an empty group).
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from shared.solvers.dsl import jit
from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives import PRIMITIVES
from shared.solvers.dsl.primitives.kernels import empty, no_parts
from shared.solvers.dsl.primitives.registry import KINDS, signature

try:
    from numba.typed import List
except ImportError:  # no numba: the tables are plain lists
    List = list

ARITIES = {"grid": 3, "split": 3, "join": 1}  # the parameter counts the core's tables take, per kind

_tables = None


class Tables(NamedTuple):
    grid: tuple    # (kernels taking 0, 1, 2 parameters), grid -> grid
    split: tuple   # the same for grid -> parts
    join: tuple    # (kernels taking no parameter,): parts -> grid
    where: dict    # name -> (kind, arity, index in its tuple)


def kind(name: str) -> str:
    """What kernel `name` maps: "grid", "split" or "join"."""
    p = PRIMITIVES[name]
    return KINDS[(p.tin, p.tout)]


def arity(name: str) -> int:
    """How many parameters kernel `name` takes after its grid or parts."""
    p = PRIMITIVES[name]
    sizes = {len(a) for a in p.arg_sets([1])}
    if len(sizes) != 1:
        raise ValueError(f"kernel {name}: parameter sets of lengths {sorted(sizes)}; the core takes one length")
    n = sizes.pop()
    if n >= ARITIES[kind(name)]:
        raise ValueError(f"kernel {name}: {n} parameters; a {kind(name)} kernel in the core takes fewer than "
                         f"{ARITIES[kind(name)]}")
    return n


def names() -> list[str]:
    """The kernel primitives, in registry order."""
    return [n for n, p in PRIMITIVES.items() if p.kernel is not None]


def compile_kernels(which: list[str]) -> None:
    """Compile the named kernels for the core's signatures (into the cache)."""
    for n in which:
        PRIMITIVES[n].kernel.compile(signature(kind(n), arity(n)))


@njit(first_class=True)
def _grid0(g):
    return empty()


@njit(first_class=True)
def _grid1(g, a):
    return empty()


@njit(first_class=True)
def _grid2(g, a, b):
    return empty()


@njit(first_class=True)
def _split0(g):
    return no_parts()


@njit(first_class=True)
def _split1(g, a):
    return no_parts()


@njit(first_class=True)
def _split2(g, a, b):
    return no_parts()


@njit(first_class=True)
def _join0(buf, meta):
    return empty()


@njit
def _typed_list(fns):
    """A tuple of first-class functions as a typed List (in compiled code only)."""
    out = List()
    for i in range(len(fns)):
        out.append(fns[i])
    return out


def _list_args(k: str, a: int, n: int) -> tuple:
    """`_typed_list`'s argument types for `n` kernels of kind `k` taking `a` parameters: a tuple of
    function pointers of their one signature. Typed so, the list's compile depends on the group's
    size alone (it can be compiled before the kernels) and holds no kernel's code; typed as the
    kernels themselves, it linked every kernel of the group into one library (3.7 s of compile
    after all the kernels, on a cold cache)."""
    from numba.core import types

    return (types.UniTuple(types.FunctionType(signature(k, a)), n),)


def _table(k: str, a: int, group: list):
    """The kernels `group` (of kind `k`, taking `a` parameters) as the core's table of them."""
    if not jit.COMPILED:
        return list(group)
    args = _list_args(k, a, len(group))
    if args not in _typed_list.overloads:
        _typed_list.compile(args)
    # the compiled function itself: the dispatcher would type the tuple as the kernels, and compile for that
    return _typed_list.overloads[args].entry_point(tuple(group))


def _grouped(all_names: list[str]) -> dict[tuple[str, int], list[str]]:
    """The kernels `all_names` by the core's table each goes in (kind, parameter count), in order;
    every table present, an empty one too."""
    out = {(k, a): [] for k, n in ARITIES.items() for a in range(n)}
    for n in all_names:
        out[kind(n), arity(n)].append(n)
    return out


def group_sizes() -> dict[tuple[str, int], int]:
    """How many kernels the core's table of each kind and parameter count holds (a stub where none)."""
    return {ka: max(1, len(group)) for ka, group in _grouped(names()).items()}


def compile_lists() -> None:
    """Compile `_typed_list` for every table `tables()` builds and for the stub tables (a job of the
    parallel compile)."""
    for (k, a), n in group_sizes().items():
        for size in {n, 1}:
            _typed_list.compile(_list_args(k, a, size))


STUBS = {"grid": (_grid0, _grid1, _grid2), "split": (_split0, _split1, _split2), "join": (_join0,)}


def _cache_is_cold(all_names: list[str]) -> bool:
    """Whether numba's cache holds fewer index files than there are kernels, in the folder it
    keeps for this copy of their sources: numba keys that folder by the sources' path, so a
    copy of the library elsewhere (the Kaggle notebook inlines one) starts cold."""
    cache = getattr(PRIMITIVES[all_names[0]].kernel, "_cache", None)
    d = Path(getattr(cache, "_cache_path", None) or jit.cache_dir())
    return not d.exists() or sum(1 for _ in d.rglob("*.nbi")) < len(all_names)


KERNEL_OPT = "2"  # LLVM's optimisation level for the kernels' parallel compile (numba's default is 3)


JOB_KERNELS = 1  # kernels per compile job: the workers end within a kernel's compile of each other


def _claim(claims: str, i: int) -> bool:
    """Claim job `i` (a file created exclusively in `claims`): whether this worker got it."""
    try:
        os.close(os.open(os.path.join(claims, str(i)), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


def _done(claims: str, i: int) -> str:
    """The mark a worker leaves in `claims` once job `i` is done."""
    return os.path.join(claims, f"{i}.done")


def _run_jobs(claims: str, jobs: list[tuple[str, list[str]]]) -> None:
    """A compile worker: run jobs no other worker has claimed, until none is left. A job is
    (group, what): ("module:function", [that]) is called, (module, kernel names) compiles those
    kernels for the core's signatures. A worker stays with its group while it has jobs left
    (kernels of one module share helpers, compiled once in a worker), then starts a group no
    worker has begun, then helps with any; workers that share the list share the work as it
    comes, however long each job takes. A job done leaves `<i>.done` in `claims`, for the
    parent to load its kernels while the rest compile."""
    import importlib

    group = None
    while True:
        taken = {i for i in range(len(jobs)) if os.path.exists(os.path.join(claims, str(i)))}
        left = [i for i in range(len(jobs)) if i not in taken]
        if not left:
            return
        begun = {jobs[i][0] for i in taken}
        pick = next((i for i in left if jobs[i][0] == group), None)
        if pick is None:
            pick = next((i for i in left if jobs[i][0] not in begun), left[0])
        if not _claim(claims, pick):
            continue  # another worker got it first: look again
        group, what = jobs[pick]
        if ":" in group:
            module, fn = group.split(":")
            getattr(importlib.import_module(module), fn)()
        else:
            compile_kernels(what)
        Path(_done(claims, pick)).touch()


def _source_length(name: str) -> int:
    """The length of kernel `name`'s source: a rough measure of how long it takes to compile."""
    try:
        return len(inspect.getsource(PRIMITIVES[name].kernel.py_func))
    except (OSError, TypeError):
        return 0


def _jobs(all_names: list[str], first: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """The parallel compile's jobs: each of `first`, then the kernels by the module that defines
    them, each in jobs of `JOB_KERNELS`, the modules whose kernels are longest on average first:
    the last jobs are then the quickest ones, and the workers end close together."""
    groups: dict[str, list[str]] = {}
    for n in all_names:
        groups.setdefault(PRIMITIVES[n].kernel.py_func.__module__, []).append(n)
    out = [(f, [f]) for f in first]
    for module, names_ in sorted(groups.items(), key=lambda kv: -sum(map(_source_length, kv[1])) / len(kv[1])):
        out += [(module, names_[i:i + JOB_KERNELS]) for i in range(0, len(names_), JOB_KERNELS)]
    return out


def _compile_in_parallel(all_names: list[str], first: tuple[str, ...] = ()) -> None:
    """Compile the jobs `first` ("module:function", each run in a worker), then every kernel,
    into the cache in one child process per core. The kernels are compiled at `KERNEL_OPT`
    (unless NUMBA_OPT is set): less compile time, the same results. Meanwhile this process
    loads each kernel job's machine code as it lands in the cache (otherwise ~2 s after the
    last worker ends); a worker leaves without Python's teardown (~2 s, its cache files written)."""
    workers = min(len(all_names), max(1, os.cpu_count() or 1))
    if workers < 2:
        return
    root = Path(__file__).resolve().parents[4]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    env.setdefault("NUMBA_OPT", KERNEL_OPT)
    jobs = _jobs(all_names, first)
    with tempfile.TemporaryDirectory(prefix="arc-dsl-claims-") as claims:
        code = f"import os; from shared.solvers.dsl.core.kernels import _run_jobs; _run_jobs({claims!r}, {jobs!r}); " \
            "os._exit(0)"
        procs = [subprocess.Popen([sys.executable, "-c", code], env=env, cwd=root,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(workers)]
        loaded = set()
        while True:
            running = any(p.poll() is None for p in procs)
            for i, (group, what) in enumerate(jobs):
                if i not in loaded and ":" not in group and os.path.exists(_done(claims, i)):
                    loaded.add(i)
                    compile_kernels(what)  # from the cache the worker wrote
            if not running:
                break  # a job that failed is left to this process: it compiles what the cache lacks
            time.sleep(0.2)


def tables(first: tuple[str, ...] = ()) -> Tables:
    """Every kernel in the core's tables: by kind, then by parameter count. On a cold cache the
    jobs `first` ("module:function") run in the parallel compile too, ahead of the kernels."""
    global _tables
    if _tables is not None:
        return _tables
    with jit.compiling():
        _tables = _build(first)
    return _tables


def stub_tables() -> Tables:
    """Tables of the same types as `tables()`, each group one stub and no kernel named: what the
    core compiles against without waiting for the kernels."""
    return Tables(*(tuple(_table(k, a, [_stub(k, a)]) for a in range(ARITIES[k])) for k in ("grid", "split", "join")),
                  {})


def _stub(k: str, a: int):
    """The stand-in of kind `k` taking `a` parameters, compiled for the core's signature."""
    stub = STUBS[k][a]
    if jit.COMPILED and not stub.signatures:
        stub.compile(signature(k, a))
        stub.disable_compile()
    return stub


def _build(first: tuple[str, ...] = ()) -> Tables:
    all_names = names()
    if jit.COMPILED and _cache_is_cold(all_names):
        _compile_in_parallel(all_names, (f"{__name__}:compile_lists",) + tuple(first))
    where = {}
    lists = {}
    for (k, a), group in _grouped(all_names).items():
        kerns = []
        for n in group:
            kern = PRIMITIVES[n].kernel
            if jit.COMPILED:
                kern.compile(signature(k, a))
                kern.disable_compile()  # one signature: a first-class function the core can index
            where[n] = (k, a, len(kerns))
            kerns.append(kern)
        lists[k, a] = _table(k, a, kerns or [_stub(k, a)])
    return Tables(*(tuple(lists[k, a] for a in range(ARITIES[k])) for k in ("grid", "split", "join")), where)
