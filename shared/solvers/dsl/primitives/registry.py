"""The primitive registry: every grid function the search may call, with its types and cost.

A primitive is registered once with the argument tuples it is tried with (parameters baked
in, icecuber style: `scale_up(x, 2)` and `scale_up(x, 3)` are two ops). `params="colours"`
means one op per non-zero colour seen in the task; `params=ColoursWith(rest)` one op per such
colour and each argument tuple of `rest` (the colour first). `first=True` limits a primitive to the task
input (never after another step): a slow one, or one that reads an arrangement only a raw input
holds (markers to draw from, an empty grid to draw on); each such op the deeper levels skip leaves
them more time for the rest. `search=False`
marks primitives that take learned arguments (a colour map, a rule table); the search fits
those itself rather than enumerating them.
`shape` says whether a grid primitive keeps or always changes its input's shape: the search
uses it to skip last steps that cannot produce an answer of the right size.
`kernel=True` marks a grid -> grid primitive written in numba's subset of Python, whose
parameters are integers, booleans or words of `WORDS` (a kernel receives a word as its index
there, a boolean as 0 / 1; printed programs keep the word). It is compiled
(`shared.solvers.dsl.jit`), the compiled search core calls it directly, and Python callers get
a wrapper that takes any integer grid and returns None where the kernel returns its empty
grid. One implementation serves the core, printed programs and the sandbox.
List kernels work the same way on lists of parts, which a kernel holds packed
(`shared.solvers.dsl.primitives.kernels`: one uint8 buffer and an (n, 3) table of offset, height
and width): a split (grid -> grids) returns `(buf, meta)`, no rows where it does not apply; a
join (grids -> grid) takes `(buf, meta, *params)` and returns a grid. Their Python wrappers take
and give tuples of grids.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from shared.solvers.dsl import jit
from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import pack, unpack
from shared.solvers.dsl.types import GRID, GRIDS


@dataclass(frozen=True)
class ColoursWith:
    """A primitive's parameters: each colour of the task's grids, followed by each tuple of `rest`."""

    rest: tuple


@dataclass(frozen=True)
class Primitive:
    name: str
    fn: Callable
    tin: str
    tout: str
    cost: float
    params: tuple | str | ColoursWith  # tuple of argument tuples, "colours", or ColoursWith (see `arg_sets`)
    search: bool
    family: str
    shape: str  # "keep": output shape = input shape; "change": never equal; "any"
    first: bool = False  # applied to the task input only (slow, or reads what only a raw input holds)
    kernel: Callable | None = None  # the compiled kernel behind `fn`, for the search core

    def arg_sets(self, colours: list[int]) -> list[tuple]:
        """The argument tuples the search tries for a task whose grids use `colours`: `params`
        itself, or `(c,)` for each colour ("colours"), or `(c, *rest)` for each colour and each
        of `ColoursWith.rest`."""
        if self.params == "colours":
            return [(c,) for c in colours]
        if isinstance(self.params, ColoursWith):
            return [(c, *r) for c in colours for r in self.params.rest]
        return list(self.params)


# The words a kernel's parameters may be, each passed to the kernel as its index here.
# Append only: compiled kernels are cached with these numbers baked in.
WORDS = ("down", "up", "left", "right", "pattern", "symmetry", "centre", "colour", "flip_lr", "flip_ud",
         "rotate180", "transpose", "invert", "swap", "symmetric", "fill_box", "copy", "move", "scale", "scale4")
DOWN, UP, LEFT, RIGHT = 0, 1, 2, 3  # the directions, as kernels receive them
# complete_copies' options ("copy" is the rest; "scale4": scaled, with objects 4-connected)
MOVE, SCALE, SCALE4 = WORDS.index("move"), WORDS.index("scale"), WORDS.index("scale4")


def encode(a) -> int:
    """A kernel parameter as the integer the kernel receives (a word: its index in WORDS)."""
    if isinstance(a, str):
        if a not in WORDS:
            raise ValueError(f"kernel parameter {a!r} is not one of registry.WORDS")
        return WORDS.index(a)
    if isinstance(a, (bool, int, np.integer)):
        return int(a)
    raise ValueError(f"kernel parameter {a!r}: an integer, a boolean or a word of registry.WORDS")


KINDS = {(GRID, GRID): "grid", (GRID, GRIDS): "split", (GRIDS, GRID): "join"}  # what a kernel maps


def signature(kind: str, n_args: int):
    """The one numba signature a kernel of `kind` ("grid", "split" or "join", see `KINDS`) taking
    `n_args` integer parameters is compiled for: the search core and Python callers share it."""
    from numba import types

    grid = types.Array(types.uint8, 2, "C")
    buf = types.Array(types.uint8, 1, "C")
    meta = types.Array(types.int64, 2, "C")
    ints = [types.int64] * n_args
    if kind == "grid":
        return grid(grid, *ints)
    if kind == "split":
        return types.Tuple((buf, meta))(grid, *ints)
    return grid(buf, meta, *ints)


def _wrap_kernel(fn: Callable, tin: str, tout: str) -> tuple[Callable, Callable]:
    """The compiled kernel of `fn`, and the Python-facing primitive that calls it.

    A Python call compiles (or loads) the kernel for the core's `signature`, not for the types
    numba would infer: numba's cache keeps one index per function, and two processes adding
    different signatures to it at once (a cold cache) can each drop the other's entry."""
    kern = njit(fn, first_class=True)
    kind = KINDS.get((tin, tout))
    if kind is None:
        raise ValueError(f"primitive {fn.__name__}: a kernel maps grid -> grid, grid -> grids or grids -> grid")
    ready: set[int] = set()  # the parameter counts compiled for in this process

    def compiled(n_args: int):
        if n_args not in ready:
            sig = signature(kind, n_args) if jit.COMPILED else None
            # asked first: once `tables()` has disabled compiling, numba's `compile` raises even for
            # a signature it already has
            if sig is not None and sig.args not in kern.overloads:
                kern.compile(sig)
            ready.add(n_args)
        return kern

    if kind == "grid":
        @functools.wraps(fn)
        def call(g, *args):
            out = compiled(len(args))(np.ascontiguousarray(g, dtype=np.uint8), *(encode(a) for a in args))
            return None if out.size == 0 else out
    elif kind == "split":
        @functools.wraps(fn)
        def call(g, *args):
            buf, meta = compiled(len(args))(np.ascontiguousarray(g, dtype=np.uint8), *(encode(a) for a in args))
            return None if meta.shape[0] == 0 else unpack(buf, meta)
    else:
        @functools.wraps(fn)
        def call(parts, *args):
            out = compiled(len(args))(*pack(parts), *(encode(a) for a in args))
            return None if out.size == 0 else out

    call.kernel = kern
    return call, kern


PRIMITIVES: dict[str, Primitive] = {}


def primitive(tin: str = GRID, tout: str = GRID, cost: float = 1.0, params: tuple | str | ColoursWith = ((),),
              search: bool = True, shape: str = "any", first: bool = False, kernel: bool = False) -> Callable:
    """Register the decorated function as a primitive (its module name is its family)."""

    def wrap(fn: Callable) -> Callable:
        name = fn.__name__
        if name in PRIMITIVES:
            raise ValueError(f"primitive {name} registered twice")
        if not (fn.__doc__ or "").strip():
            raise ValueError(f"primitive {name} needs a one-line docstring")
        family = fn.__module__.rsplit(".", 1)[-1]
        if shape not in ("keep", "change", "any"):
            raise ValueError(f"primitive {name}: shape must be keep, change or any")
        kern = None
        prim = Primitive(name, fn, tin, tout, float(cost), params, search, family, shape, first)
        if kernel:
            for args in prim.arg_sets([1]):
                for a in args:
                    encode(a)  # raises on a parameter a kernel cannot take
            fn, kern = _wrap_kernel(fn, tin, tout)
        PRIMITIVES[name] = replace(prim, fn=fn, kernel=kern)
        return fn

    return wrap


@dataclass(frozen=True)
class Op:
    """One primitive with its arguments bound: a single step of a program."""

    prim: Primitive
    args: tuple = ()

    def __call__(self, value):
        return self.prim.fn(value, *self.args)

    @property
    def label(self) -> str:
        return self.prim.name + "".join(f" {a!r}" for a in self.args)

    def call_source(self, var: str) -> str:
        return f"{self.prim.name}({', '.join([var] + [repr(a) for a in self.args])})"


def search_ops(colours: list[int]) -> list[Op]:
    """Every op the search enumerates, for a task whose grids use `colours`."""
    ops = []
    for p in PRIMITIVES.values():
        if not p.search:
            continue
        ops.extend(Op(p, tuple(a)) for a in p.arg_sets(colours))
    return ops
