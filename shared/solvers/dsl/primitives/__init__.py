"""Every grid primitive of the DSL, by family, and the registry the search reads.

`from shared.solvers.dsl.primitives import *` gives a printed program all it needs: the
primitive functions by name, plus `np`.
"""

import os

import numpy as np

from shared.solvers.dsl import jit
from shared.solvers.dsl.primitives import (
    cellrule,
    colour,
    completion,
    figures,
    geometry,
    learned,
    lines,
    mirroring,
    motion,
    objects,
    parts,
    placement,
    props,
    rays,
    regions,
    shapes,
    templates,
)
from shared.solvers.dsl.primitives.registry import PRIMITIVES, Op, Primitive, primitive, search_ops

# the families in registry order: the search enumerates ops of equal cost in this order, so it is
# set here, not left to which module happens to import which first
_FAMILIES = (colour, geometry, objects, rays, lines, figures, parts, learned, props, cellrule, completion, mirroring,
             motion, placement, regions, shapes, templates)


def _in_family_order() -> None:
    """Put PRIMITIVES in `_FAMILIES` order, each family's primitives in the order they are defined."""
    rank = {m.__name__: i for i, m in enumerate(_FAMILIES)}
    unplaced = sorted({p.fn.__module__ for p in PRIMITIVES.values()} - set(rank))
    if unplaced:
        raise RuntimeError(f"primitives defined in modules missing from _FAMILIES: {unplaced}")
    ordered = sorted(PRIMITIVES.items(), key=lambda kv: rank[kv[1].fn.__module__])  # stable: definition order kept
    PRIMITIVES.clear()
    PRIMITIVES.update(ordered)


_in_family_order()
for _name, _prim in PRIMITIVES.items():
    globals()[_name] = _prim.fn

__all__ = ["np", "PRIMITIVES", "Op", "Primitive", "primitive", "search_ops", *PRIMITIVES]


def preload() -> int:
    """Compile (or load from numba's cache) every kernel primitive now; how many there are.

    A sandbox pool calls this once in its own process (a cold cache compiles in parallel there)
    and again in each worker before locking it down: afterwards a program's calls need no
    compiler and no cache files."""
    from shared.solvers.dsl.core.kernels import tables  # the core's tables: each kernel compiled once

    return len(tables().where)


def worker_env() -> dict[str, str]:
    """What a process that has run `preload()` puts in the environment of the sandbox workers it
    starts: where the cache is, that it holds every kernel (so that the workers load them without
    queueing behind another process's compile), and `ARC_DSL_PURE` where this process has it."""
    env = {k: os.environ[k] for k in ("ARC_DSL_CACHE", "ARC_DSL_PURE") if os.environ.get(k)}
    if jit.COMPILED:
        env[jit.PRELOADED] = "1"
    return env
