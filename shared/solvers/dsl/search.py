"""Budgeted enumeration of programs, cheapest first, over all demo and test inputs at once.

A state is what one program computes on every input (demos first, then tests); states are
deduplicated by a hash of their kind and contents, so two programs that agree everywhere are one.
Each new grid state whose demo shapes match the demo outputs is checked exactly, then with a
learned recolour, per-object recolour or stamp, or local rule, and kept as a possible piece for `combine`;
other states are tried with learned resizing last steps (block layouts, pattern continuation,
fixed windows, picking one object by a property) and lookups. A last step that cannot give the
outputs' size is never generated. Guards cap grid sizes, the number of stored states and their
bytes, and the clock.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field

import numpy as np

from shared.solvers.dsl.fit import (
    fit_arrange,
    fit_cell_rule,
    fit_crop,
    fit_extend,
    fit_local_rule,
    fit_lookup,
    fit_object_stamp,
    fit_overlay_order,
    fit_part_table,
    fit_recolor,
    fit_recolor_objects,
    fit_select_object,
    fit_select_part,
    fit_stamp,
    local_rule_kinds,
)
from shared.solvers.dsl.primitives import Op, search_ops
from shared.solvers.dsl.primitives.cellrule import cell_rule
from shared.solvers.dsl.primitives.learned import arrange, crop_at, extend_pattern, local_rule, lookup, recolor, stamp
from shared.solvers.dsl.primitives.parts import overlay_order
from shared.solvers.dsl.primitives.props import object_stamp, part_table, recolor_objects, select_object, select_part
from shared.solvers.dsl.program import INPUT, Node, call
from shared.solvers.dsl.types import GRID, GRIDS, MARKER, MAX_SIDE

MAX_STATES = 400_000           # ~ a few hundred bytes of bookkeeping each
MAX_VALUE_BYTES = 600_000_000  # grids kept for expansion; keeps a worker well under 4 GB
MAX_SIZED = 5000               # right-sized states kept as pieces (the cheapest come first)
MAX_RULE_FITS = 60             # local rules are the slowest fit; try them on the cheapest states
MAX_CELL_FITS = (3, 30)        # cell rules on 3 features for the 3 cheapest sized states, on 2 for 30
CELL_SHARE = 0.2               # of a search's time, the most that cell rule fits may take
MAX_SELECT_FITS = 60           # picking one object by a property: tried on the cheapest resizing states
SECOND_LOOK_S = 1.0            # search time left after the first solution, for a second attempt
KIND_RANK = {"exact": 0, "fitted": 1, "rule": 2, "pieces": 3, "tree": 4, "partial": 9}
FIRM = ("exact", "fitted")     # kinds that end a search; a learned rule fits by coincidence too often


@dataclass
class Candidate:
    """A program that explains the demos (or a best guess), with its test predictions."""

    node: Node
    kind: str
    cost: float
    preds: list            # one grid per test input
    explained: int = 0     # demos reproduced exactly

    def rank(self) -> tuple:
        return (KIND_RANK[self.kind], self.cost)


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
        self.deadline = deadline
        self.max_depth = max_depth
        self.max_cost = max_cost
        colours = sorted({int(c) for g in self.inputs for c in np.unique(g)} - {0})
        self.ops = search_ops(colours)
        self.states: list[State] = []
        self.seen: set[int] = set()
        self.leaf_keys: set[int] = set()  # states seen only as last steps, whose grids were not kept
        self.candidates: list[Candidate] = []
        self.sized: list[Sized] = []
        self.rule_fits = 0
        self.select_fits = 0
        self.cell_fits = 0
        self.cell_time = 0.0
        self.cell_allowance = CELL_SHARE * max(0.0, deadline - time.monotonic())
        self.stats = SearchStats()
        self.out_shapes = [o.shape for o in self.outputs]

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
        if kind == GRID and not checked:
            self._check(sid, values, cost)
        elif kind == GRIDS and not checked:
            self._check_parts(sid, values, cost)
        return sid

    def _offer(self, c: Candidate) -> None:
        """Keep a candidate whose every test answer is a real grid (no marker colour left over)."""
        if all(p is not None and p.max() < MARKER for p in c.preds):
            self.candidates.append(c)

    def _check_parts(self, sid: int, values: tuple, cost: float) -> None:
        """Parts: one picked by a property, painted over each other in a learned order, or one output cell
        per part by a table."""
        demo, test = list(values[:self.n_demo]), list(values[self.n_demo:])
        order = fit_overlay_order(demo, self.outputs)
        if order is not None:
            node = call("overlay_order", self.node(sid), args=(order,))
            self._offer(Candidate(node, "fitted", cost + 1.5, [overlay_order(t, order) for t in test], self.n_demo))
        found = fit_select_part(demo, self.outputs, test)
        if found is not None:
            node = call("select_part", self.node(sid), args=found)
            self._offer(Candidate(node, "fitted", cost + 1.5, [select_part(t, *found) for t in test], self.n_demo))
        found = fit_part_table(demo, self.outputs, test)
        if found is not None:
            node = call("part_table", self.node(sid), args=found)
            self._offer(Candidate(node, "fitted", cost + 1.5 + 0.2 * len(found[1]),
                                  [part_table(t, *found) for t in test], self.n_demo))

    def _check(self, sid: int, values: tuple, cost: float) -> None:
        demo, test = list(values[:self.n_demo]), list(values[self.n_demo:])
        table = fit_lookup(demo, self.outputs, test)
        if table is not None:
            node = call("lookup", self.node(sid), args=(table,))
            self._offer(Candidate(node, "fitted", cost + 3 + len(table), [lookup(t, table) for t in test],
                                  self.n_demo))
        if [v.shape for v in demo] != self.out_shapes:
            self._fit_resizing(sid, demo, test, cost)
        else:
            self._fit_sized(sid, demo, test, cost)

    def _fit_resizing(self, sid: int, demo: list, test: list, cost: float) -> None:
        """Learned last steps that change the size: block layouts, pattern continuation, windows."""
        for name, fit, fn in (("arrange", fit_arrange, arrange), ("extend_pattern", fit_extend, extend_pattern),
                              ("crop_at", fit_crop, crop_at)):
            found = fit(demo, self.outputs)
            if found is None:
                continue
            built = [fn(v, *found) for v in demo]
            preds = [fn(t, *found) for t in test]
            mapping = fit_recolor(built, self.outputs, [p for p in preds if p is not None])
            if mapping is None or any(p is None for p in preds):
                continue
            node = call(name, self.node(sid), args=found)
            if mapping:
                node = call("recolor", node, args=(mapping,))
                preds = [recolor(p, mapping) for p in preds]
            self._offer(Candidate(node, "fitted", cost + 1 + 0.3 * len(mapping), preds, self.n_demo))
        if self.select_fits < MAX_SELECT_FITS and all(v.size > o.size for v, o in zip(demo, self.outputs, strict=True)):
            self.select_fits += 1
            found = fit_select_object(demo, self.outputs)
            if found is not None:
                node = call("select_object", self.node(sid), args=found)
                self._offer(Candidate(node, "fitted", cost + 2, [select_object(t, *found) for t in test], self.n_demo))

    def _fit_sized(self, sid: int, demo: list, test: list, cost: float) -> None:
        """A state the size of the outputs: exact, or finished by a learned recolour or local rule."""
        if all(np.array_equal(v, o) for v, o in zip(demo, self.outputs, strict=True)):
            self._offer(Candidate(self.node(sid), "exact", cost, test, self.n_demo))
            return
        if len(self.sized) < MAX_SIZED:
            self.sized.append(Sized(sid, cost, demo, test))
        mapping = fit_recolor(demo, self.outputs, test)
        if mapping is not None:
            node = call("recolor", self.node(sid), args=(mapping,))
            preds = [recolor(t, mapping) for t in test]
            if all(p is not None for p in preds):
                self._offer(Candidate(node, "fitted", cost + 0.5 + 0.3 * len(mapping), preds, self.n_demo))
                return
        if self.rule_fits >= MAX_RULE_FITS:
            return
        self.rule_fits += 1
        for kind, prop, table in fit_recolor_objects(demo, self.outputs, test):
            node = call("recolor_objects", self.node(sid), args=(kind, prop, table))
            preds = [recolor_objects(t, kind, prop, table) for t in test]
            self._offer(Candidate(node, "fitted", cost + 1.5 + 0.2 * len(table), preds, self.n_demo))
        stamps = fit_stamp(demo, self.outputs)
        if stamps is not None:
            node = call("stamp", self.node(sid), args=(stamps,))
            size = sum(len(m) for m in stamps.values())
            self._offer(Candidate(node, "fitted", cost + 1 + 0.1 * size, [stamp(t, stamps) for t in test],
                                  self.n_demo))
        found = fit_object_stamp(demo, self.outputs, test)
        if found is not None:
            node = call("object_stamp", self.node(sid), args=found)
            size = sum(len(m) for m in found[2].values())
            self._offer(Candidate(node, "fitted", cost + 1.5 + 0.05 * size, [object_stamp(t, *found) for t in test],
                                  self.n_demo))
        if self.cell_fits < MAX_CELL_FITS[1] and self.cell_time < self.cell_allowance:
            wide = self.cell_fits < MAX_CELL_FITS[0]
            self.cell_fits += 1
            start = time.monotonic()
            stop = min(self.deadline, start + self.cell_allowance - self.cell_time)
            rules = fit_cell_rule(demo, self.outputs, test, 3 if wide else 2, deadline=stop)
            self.cell_time += time.monotonic() - start
            for names, table in rules:
                node = call("cell_rule", self.node(sid), args=(names, table))
                preds = [cell_rule(t, names, table) for t in test]
                self._offer(Candidate(node, "rule", cost + 2 + 0.5 * len(names) + len(table) / 50, preds,
                                      self.n_demo))
        found = 0
        for rank, kind in enumerate(local_rule_kinds()):
            if kind == "cell" or time.monotonic() > self.deadline:
                continue
            table = fit_local_rule(demo, self.outputs, test, kind)
            if table is not None:
                node = call("local_rule", self.node(sid), args=(kind, table))
                preds = [local_rule(t, kind, table) for t in test]
                cost_rule = cost + 2 + 0.5 * rank + len(table) / 50
                self._offer(Candidate(node, "rule", cost_rule, preds, self.n_demo))
                found += 1
                if found == 2:  # a second rule of another kind is a second attempt; more is waste
                    return

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
            if best_cost is not None or any(c.kind in FIRM for c in self.candidates[scanned:]):
                if best_cost is None:
                    firm = [c for c in self.candidates if c.kind in FIRM]
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
