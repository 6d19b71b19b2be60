"""The kernel primitives as the compiled core calls them: grouped by how many parameters they
take, each compiled for exactly one signature, so that a tuple of them is a typed table of
function pointers the enumeration indexes at run time (no kernel is linked into the core, which
keeps its compile short).

`tables()` compiles (or loads from numba's cache) every kernel once per process. On a cold
cache it first compiles them in parallel child processes, one slice each, which write the
cache this process then reads. Without numba the tables hold the plain Python functions.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from shared.solvers.dsl import jit
from shared.solvers.dsl.primitives import PRIMITIVES

_tables = None


def arity(name: str) -> int:
    """How many parameters kernel `name` takes after its grid (the core passes at most two)."""
    p = PRIMITIVES[name]
    if p.params == "colours":
        return 1
    sizes = {len(a) for a in p.params}
    if len(sizes) != 1 or max(sizes) > 2:
        raise ValueError(f"kernel {name}: parameter sets of lengths {sorted(sizes)}; the core takes 0, 1 or 2")
    return sizes.pop()


def names() -> list[str]:
    """The kernel primitives, in registry order."""
    return [n for n, p in PRIMITIVES.items() if p.kernel is not None]


def _signature(n_args: int):
    from numba import types

    grid = types.Array(types.uint8, 2, "C")
    return grid(grid, *([types.int64] * n_args))


def compile_kernels(which: list[str]) -> None:
    """Compile the named kernels for the core's signatures (into the cache)."""
    for n in which:
        PRIMITIVES[n].kernel.compile(_signature(arity(n)))


def _cache_is_cold(expected: int) -> bool:
    d = jit.cache_dir()
    return not d.exists() or sum(1 for _ in d.rglob("*.nbi")) < expected


def _compile_in_parallel(all_names: list[str]) -> None:
    workers = min(len(all_names), max(1, os.cpu_count() or 1))
    if workers < 2:
        return
    root = Path(__file__).resolve().parents[4]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    procs = []
    for i in range(workers):
        part = all_names[i::workers]
        code = f"from shared.solvers.dsl.core.kernels import compile_kernels; compile_kernels({part!r})"
        procs.append(subprocess.Popen([sys.executable, "-c", code], env=env, cwd=root,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    for p in procs:
        p.wait()  # a child that failed leaves its kernels to be compiled here


def tables() -> tuple[tuple, tuple, tuple, dict]:
    """(kernels taking no parameter, one, two; name -> (arity, index in its tuple))."""
    global _tables
    if _tables is not None:
        return _tables
    all_names = names()
    groups: list[list] = [[], [], []]
    where = {}
    if jit.COMPILED and _cache_is_cold(len(all_names)):
        _compile_in_parallel(all_names)
    for n in all_names:
        k = arity(n)
        kern = PRIMITIVES[n].kernel
        if jit.COMPILED:
            kern.compile(_signature(k))
            kern.disable_compile()  # one signature: a first-class function the core can index
        where[n] = (k, len(groups[k]))
        groups[k].append(kern)
    for k, group in enumerate(groups):
        if not group:
            raise RuntimeError(f"no kernel primitive takes {k} parameters: the core's tables need one of each")
    _tables = (tuple(groups[0]), tuple(groups[1]), tuple(groups[2]), where)
    return _tables
