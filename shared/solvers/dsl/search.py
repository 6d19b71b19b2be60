"""Budgeted enumeration of programs, cheapest first, over all demo and test inputs at once.

A state is what one program computes on every input (demos first, then tests); states are
deduplicated by a hash of their kind and contents, so two programs that agree everywhere are one.
Each new state is checked once (`_check`): `fitters.fit_state` tries the learned last steps that
apply to it, in the order of `fitters.FITTERS` (a lookup on any grid; recolours, per-object
recolours, stamps, cell and local rules on a state of the outputs' shapes that is not already
exact; block layouts, pattern continuation, fixed windows and picking one object on a state of
other shapes; picking, stacking or tabulating the parts of a list state). Each ending it finds
whose test answers are real grids becomes a candidate, then a state that already is every demo
output is one itself; a right-sized state is also kept as a possible piece for `combine`. A last step
that cannot give the outputs' size is never generated. Guards cap grid sizes, the number of
stored states and their bytes, and the clock, whose deadline the fits share (`FitContext`).
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field

import numpy as np

from shared.solvers.dsl.fitters import FitContext, fit_state, situation
from shared.solvers.dsl.primitives import Op, search_ops
from shared.solvers.dsl.program import INPUT, Node, call
from shared.solvers.dsl.types import GRID, MARKER, MAX_SIDE

MAX_STATES = 400_000           # ~ a few hundred bytes of bookkeeping each
MAX_VALUE_BYTES = 600_000_000  # grids kept for expansion; keeps a worker well under 4 GB
MAX_SIZED = 5000               # right-sized states kept as pieces (the cheapest come first)
SECOND_LOOK_S = 1.0            # search time left after the first solution, for a second attempt
KIND_RANK = {"exact": 0, "fitted": 1, "rule": 1, "pieces": 3, "tree": 4, "partial": 9}  # fits and rules: by cost
CLIMBED_RANK = 2.5  # a learned ending on a state the core's climb reached: after pieces, before a cell tree
FIRM = ("exact", "fitted")     # kinds that end a search; a learned rule fits by coincidence too often


@dataclass
class Candidate:
    """A program that explains the demos (or a best guess), with its test predictions."""

    node: Node
    kind: str
    cost: float
    preds: list            # one grid per test input
    explained: int = 0     # demos reproduced exactly
    climbed: bool = False  # a learned ending on a state the core's greedy climb past its depth reached

    def rank(self) -> tuple:
        return (KIND_RANK[self.kind] + (CLIMBED_RANK if self.climbed else 0.0), self.cost)

    @property
    def firm(self) -> bool:
        """Whether it ends a search: an exact program or a fitted ending, but not one on a climbed state."""
        return self.kind in FIRM and not self.climbed


@dataclass
class State:
    values: tuple | None
    kind: str
    cost: float
    depth: int
    parent: int | None
    op: Op | None


@dataclass
class Sized:
    """A grid state the size of every demo output: material for pieces."""

    state: int
    cost: float
    demo: list
    test: list
    origin: object = None  # the search whose state it is (its `node(state)` prints it); None: this one


@dataclass
class SearchStats:
    expanded: int = 0
    generated: int = 0
    stored_bytes: int = 0
    max_depth_reached: int = 0
    reopened: int = 0        # states first met as last steps, met again shallower and kept
    stopped: str = ""
    op_errors: dict = field(default_factory=dict)


def _key(kind: str, values: tuple) -> int:
    # the kind is part of the key: a list of one object per input must not hide the same grids
    parts = [kind.encode()]
    for v in values:
        for g in (v if kind != GRID else (v,)):
            parts.append(bytes(g.shape))
            parts.append(g.tobytes())
        parts.append(b"|")
    return hash(b"".join(parts))


def _nbytes(kind: str, values: tuple) -> int:
    if kind == GRID:
        return sum(v.size + 112 for v in values)
    return sum(sum(g.size + 112 for g in v) for v in values)


def _too_big(kind: str, values: tuple) -> bool:
    for v in values:
        for g in (v if kind != GRID else (v,)):
            if g.shape[0] > MAX_SIDE or g.shape[1] > MAX_SIDE or 0 in g.shape:
                return True
    return False


class Search:
    """Uniform-cost enumeration from the inputs; `run` returns the candidates found."""

    def __init__(self, demo_inputs, demo_outputs, test_inputs, deadline: float, max_depth: int = 3,
                 max_cost: float = 99.0):
        self.n_demo = len(demo_inputs)
        self.outputs = list(demo_outputs)
        self.inputs = tuple(demo_inputs) + tuple(test_inputs)
        self.max_depth = max_depth
        self.max_cost = max_cost
        colours = sorted({int(c) for g in self.inputs for c in np.unique(g)} - {0})
        self.ops = search_ops(colours)
        self.states: list[State] = []
        self.seen: set[int] = set()
        self.leaf_keys: set[int] = set()  # states seen only as last steps, whose grids were not kept
        self.candidates: list[Candidate] = []
        self.sized: list[Sized] = []
        self.fits = FitContext.start(deadline)  # the learned last steps' limits, and the deadline
        self.stats = SearchStats()
        self.out_shapes = [o.shape for o in self.outputs]

    @property
    def deadline(self) -> float:
        return self.fits.deadline

    @deadline.setter
    def deadline(self, value: float) -> None:
        self.fits.deadline = value

    def node(self, sid: int) -> Node:
        chain = []
        while self.states[sid].op is not None:
            chain.append(self.states[sid].op)
            sid = self.states[sid].parent
        n = INPUT
        for op in reversed(chain):
            n = call(op.prim.name, n, args=op.args)
        return n

    def _add(self, values: tuple, kind: str, cost: float, depth: int, parent, op) -> int | None:
        key = _key(kind, values)
        keep = depth < self.max_depth
        checked = False
        if key in self.seen:
            # met before only as a last step (not kept): this shallower copy may still be expanded
            if not keep or key not in self.leaf_keys:
                return None
            self.leaf_keys.discard(key)
            self.stats.reopened += 1
            checked = True
        self.seen.add(key)
        if keep:
            self.stats.stored_bytes += _nbytes(kind, values)
        else:
            self.leaf_keys.add(key)
        self.states.append(State(values if keep else None, kind, cost, depth, parent, op))
        sid = len(self.states) - 1
        self.stats.max_depth_reached = max(self.stats.max_depth_reached, depth)
        if not checked:
            self._check(sid, values, kind, cost)
        return sid

    def _offer(self, c: Candidate) -> None:
        """Keep a candidate whose every test answer is a real grid (no marker colour left over)."""
        if all(p is not None and p.max() < MARKER for p in c.preds):
            self.candidates.append(c)

    def _check(self, sid: int, values: tuple, kind: str, cost: float) -> None:
        """Candidates from a new state: itself when it is exact, else the learned endings
        `fitters.fit_state` finds; a right-sized state is also kept as a piece."""
        demo, test = list(values[:self.n_demo]), list(values[self.n_demo:])
        where = situation(kind, demo, self.outputs)
        if where == "sized" and len(self.sized) < MAX_SIZED:
            self.sized.append(Sized(sid, cost, demo, test))
        for f in fit_state(self.fits, kind, demo, test, self.outputs, cost, where=where):
            node = self.node(sid)
            for name, args in f.steps:
                node = call(name, node, args=args)
            self._offer(Candidate(node, f.kind, f.cost, f.preds, f.explained))
        if where == "exact":
            self._offer(Candidate(self.node(sid), "exact", cost, test, self.n_demo))

    def run(self) -> list[Candidate]:
        root = self._add(self.inputs, GRID, 0.0, 0, None, None)
        heap = [(0.0, root)]
        best_cost = None
        scanned = 0
        while heap:
            cost, sid = heapq.heappop(heap)
            if time.monotonic() > self.deadline:
                self.stats.stopped = "time"
                break
            if best_cost is not None or any(c.firm for c in self.candidates[scanned:]):
                if best_cost is None:
                    firm = [c for c in self.candidates if c.firm]
                    best_cost = min(c.cost for c in firm)
                    # a solution found: look a little further for a distinct second attempt, then stop;
                    # a learned one may be a coincidence, so it buys a longer look for a plain program
                    exact = any(c.kind == "exact" for c in firm)
                    look = SECOND_LOOK_S if exact else max(SECOND_LOOK_S, 0.3 * (self.deadline - time.monotonic()))
                    self.deadline = min(self.deadline, time.monotonic() + look)
                if cost > best_cost + (1 if exact else 2):
                    self.stats.stopped = "solved"
                    break
            scanned = len(self.candidates)  # rules met so far need no second look
            state = self.states[sid]
            values = state.values
            state.values = None  # expanded once; free the grids
            self.stats.expanded += 1
            leaf = state.depth + 1 == self.max_depth
            sized = state.kind == GRID and [v.shape for v in values[:self.n_demo]] == self.out_shapes
            for i, op in enumerate(self.ops):
                if op.prim.tin != state.kind or (op.prim.first and state.depth):
                    continue
                # a last step must give a grid of the demo outputs' size; skip those that cannot
                if leaf and (op.prim.tout != GRID or op.prim.shape == ("change" if sized else "keep")):
                    continue
                if i % 16 == 0 and time.monotonic() > self.deadline:
                    break
                new = self._apply(op, values)
                if new is None:
                    continue
                self.stats.generated += 1
                ncost = cost + op.prim.cost
                child = self._add(new, op.prim.tout, ncost, state.depth + 1, sid, op)
                if child is not None and state.depth + 1 < self.max_depth and ncost <= self.max_cost:
                    heapq.heappush(heap, (ncost, child))
            if len(self.states) > MAX_STATES or self.stats.stored_bytes > MAX_VALUE_BYTES:
                self.stats.stopped = "memory"
                break
        else:
            self.stats.stopped = "exhausted"
        return self.candidates

    def _apply(self, op: Op, values: tuple) -> tuple | None:
        out = []
        for v in values:
            try:
                r = op(v)
            except (ValueError, IndexError) as e:
                # a primitive meeting an input it was not written for counts as "does not apply"
                name = f"{op.prim.name}: {type(e).__name__}"
                self.stats.op_errors[name] = self.stats.op_errors.get(name, 0) + 1
                return None
            if r is None:
                return None
            out.append(r)
        out = tuple(out)
        if _too_big(op.prim.tout, out):
            return None
        if op.prim.tout != GRID and all(len(v) == 0 for v in out):
            return None
        return out
