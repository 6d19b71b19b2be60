"""Pieces: stack partial results into one answer when no single program explains every demo.

Every right-sized state (each demo image has its output's shape) is a possible layer: every
one the compiled core produced, read straight from its bank, and the Python search's own. Each
gets two bitsets over the cells of all demo outputs: the cells it paints (non-zero) and the cells
it has wrong. A layer is a state as it is or its shape in one of the outputs' colours (as the
reference colours a shape): then it is wrong wherever it paints a cell whose target is another
colour, so states holding marker colours can be layers too. Working from the top layer down,
take the layer that is right on every open cell it paints and paints the most of them (the
cheapest on a tie), close those cells, and repeat, until a base (a state right on every open
cell, zeros included) or the zero canvas accounts for the rest. The greedy takes whatever paints
most, so a layer that merely happens to fit can sit among those the demos need; each layering is
pruned, dearest layer first, to the layers without which the demos are no longer reproduced, and
the pruned layering is offered before the greedy's own. The answer paints the layers
bottom-up with `paint_over`, so it prints as one straight-line program. Which layer goes on top
decides the test answer where layers overlap there, so the greedy runs again with each demo's
cells counted first (as the reference's greedy does per demo): each other layering that
explains every demo is another candidate.
"""

from __future__ import annotations

import time

import numpy as np

from shared.solvers.dsl.core import engine as E
from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.learned import clear_outside, colour_shape, paint_over
from shared.solvers.dsl.program import call
from shared.solvers.dsl.search import Candidate, Search
from shared.solvers.dsl.types import MARKER

MAX_PIECES = 6
CLEAR = -2  # a layer's mode: its zero cells clear what is below (its other cells let it show)
MAX_CORE_POOL = 300_000  # the core's sized states considered, in the order it made them (shallow first)
CHUNK = 20_000           # core states turned into bitsets between two looks at the clock


@njit
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    x = x + (x >> np.uint64(8))  # sums of bytes: no multiply, which would overflow as plain Python
    x = x + (x >> np.uint64(16))
    x = x + (x >> np.uint64(32))
    return x & np.uint64(0x7F)


@njit
def _core_bits(ids, st_nodes, n_demo, bank, img_off, img_h, img_w, target, paint, wrong, clean):
    """The paint and wrong bitsets of the core's states `ids` (rows of `paint`, `wrong`), and
    whether every image of theirs, tests included, holds only real colours."""
    one = np.uint64(1)
    for r in range(len(ids)):
        s = ids[r]
        pos = 0
        ok = True
        for i in range(st_nodes.shape[1]):
            a = st_nodes[s, i]
            off = img_off[a]
            for k in range(img_h[a] * img_w[a]):
                v = bank[off + k]
                if v >= MARKER:
                    ok = False
                if i < n_demo:
                    bit = one << np.uint64(pos & 63)
                    if v != 0:
                        paint[r, pos >> 6] |= bit
                    if v != target[pos]:
                        wrong[r, pos >> 6] |= bit
                    pos += 1
        clean[r] = ok


@njit
def _stack(paint, wrong, clean, cost, same, open_, nonzero, care, max_layers):
    """Greedy layers, top first: (rows, colours, how many); -1 as the count when the layers run
    out before the open cells do. A layer is a state as it is (colour -1; only a clean one,
    whose images hold real colours only) or its shape in the palette's colour j: every cell it
    paints becomes that colour (`same[j]`: the cells whose target is that colour). `open_` is
    the cells still to explain (changed in place). A layer's gain is the open cells it paints
    among `care` while any layer gains there, then among all (the order the layers are found in).
    When no layer fits, one may clear instead (colour `CLEAR`): its zero cells become zero, which
    must be right on every open one, and are closed, so that layers below may be wrong there."""
    n, n_words = paint.shape
    layers = np.full(max_layers, -1, dtype=np.int64)
    colours = np.full(max_layers, -1, dtype=np.int64)
    everywhere = np.full(n_words, ~np.uint64(0), dtype=np.uint64)
    narrow = False  # whether `care` leaves cells out: only then is a layer sought among all of them too
    for w in range(n_words):
        narrow |= care[w] != everywhere[w]
    for depth in range(max_layers):
        base = -1
        for s in range(n):
            if not clean[s]:
                continue
            fits = True
            for w in range(n_words):
                if wrong[s, w] & open_[w]:
                    fits = False
                    break
            if fits and (base < 0 or cost[s] < cost[base]):
                base = s
        if base >= 0:
            layers[depth] = base
            return layers, colours, depth + 1
        background = True
        for w in range(n_words):
            if open_[w] & nonzero[w]:
                background = False
                break
        if background:
            return layers, colours, depth  # the zero canvas below the last layer explains the rest
        best, best_colour = _best_layer(paint, wrong, clean, cost, same, open_, care)
        if best < 0 and narrow:
            best, best_colour = _best_layer(paint, wrong, clean, cost, same, open_, everywhere)
        if best < 0:  # stuck: a layer that clears open cells whose target is zero may free the ones below
            best, best_colour = _best_clear(paint, cost, open_, nonzero), CLEAR
        if best < 0:
            return layers, colours, -1
        layers[depth] = best
        colours[depth] = best_colour
        for w in range(n_words):
            open_[w] &= paint[best, w] if best_colour == CLEAR else ~paint[best, w]
    return layers, colours, -1


@njit
def _best_clear(paint, cost, open_, nonzero):
    """The layer whose zero cells clear the most open cells, each with a zero target (the
    cheapest on a tie); -1 when none clears any."""
    n, n_words = paint.shape
    best, best_gain = -1, np.uint64(0)
    for s in range(n):
        gain = np.uint64(0)
        fits = True
        for w in range(n_words):
            z = ~paint[s, w] & open_[w]
            if z & nonzero[w]:
                fits = False
                break
            gain += _popcount(z)
        if fits and gain > 0 and (gain > best_gain or gain == best_gain and cost[s] < cost[best]):
            best, best_gain = s, gain
    return best


@njit
def _best_layer(paint, wrong, clean, cost, same, open_, care):
    """The layer right on every open cell it paints that paints the most open cells among
    `care` (the cheapest on a tie), as (row, colour); (-1, -1) when none paints any there."""
    n, n_words = paint.shape
    best, best_colour, best_gain, best_cost = -1, -1, np.uint64(0), 0.0
    for s in range(n):
        gain = np.uint64(0)
        for w in range(n_words):
            gain += _popcount(paint[s, w] & open_[w] & care[w])
        if gain == 0 or gain < best_gain:
            continue
        for c in range(-1, len(same)):  # as it is, then in each colour (one step dearer)
            here = cost[s] + (0.0 if c < 0 else 1.0)
            if gain == best_gain and here >= best_cost or c < 0 and not clean[s]:
                continue
            fits = True
            for w in range(n_words):
                p = paint[s, w] & open_[w]
                if p & (wrong[s, w] if c < 0 else ~same[c, w]):
                    fits = False
                    break
            if fits:
                best, best_colour, best_gain, best_cost = s, c, gain, here
    return best, best_colour


def _pack(mask: np.ndarray, n_words: int) -> np.ndarray:
    """Rows of booleans as little-endian 64-bit words, bit j of a row at word j // 64."""
    packed = np.packbits(mask, axis=1, bitorder="little")
    out = np.zeros((len(mask), n_words * 8), dtype=np.uint8)
    out[:, :packed.shape[1]] = packed
    return out.view("<u8")


class _Layers:
    """The candidate layers: their bitsets, costs, test shapes, and how to print and run each."""

    def __init__(self, outputs: list[np.ndarray]):
        self.target = np.concatenate([o.ravel() for o in outputs]).astype(np.uint8)
        self.demo_of = np.repeat(np.arange(len(outputs)), [o.size for o in outputs])  # each cell's demo
        self.n_words = (len(self.target) + 63) // 64
        self.palette = sorted(set(self.target.tolist()) - {0})  # the colours a layer's shape may take
        self.paint, self.wrong, self.clean, self.cost, self.shapes, self.where = [], [], [], [], [], []

    def add_grids(self, pool: list) -> None:
        if not pool:
            return
        vals = np.stack([np.concatenate([d.ravel() for d in s.demo]) for s in pool])
        self.paint.append(_pack(vals != 0, self.n_words))
        self.wrong.append(_pack(vals != self.target[None, :], self.n_words))
        self.clean.append(np.array([all(g.max() < MARKER for g in list(s.test) + list(s.demo)) for s in pool]))
        self.cost.append(np.array([s.cost for s in pool], dtype=np.float64))
        self.shapes.append(np.array([[d for t in s.test for d in t.shape] for s in pool], dtype=np.int64))
        self.where += [("grids", s) for s in pool]

    def add_core(self, core, deadline: float) -> None:
        ids = core._with(E.SIZED)[:MAX_CORE_POOL].astype(np.int64)
        for first in range(0, len(ids), CHUNK):
            if time.monotonic() > deadline:
                return
            part = ids[first:first + CHUNK]
            paint = np.zeros((len(part), self.n_words), dtype=np.uint64)
            wrong = np.zeros_like(paint)
            clean = np.zeros(len(part), dtype=np.bool_)
            _core_bits(part, core.st_nodes, core.n_demo, core.bank, core.img_off, core.img_h, core.img_w,
                       self.target, paint, wrong, clean)
            tests = core.st_nodes[part, core.n_demo:]
            self.paint.append(paint)
            self.wrong.append(wrong)
            self.clean.append(clean)
            self.cost.append(core.st_cost[part].astype(np.float64))
            self.shapes.append(np.stack([core.img_h[tests], core.img_w[tests]], axis=2).reshape(len(part), -1))
            self.where += [("core", int(s)) for s in part]

    def stacks(self, max_layers: int, deadline: float) -> list[list[tuple[int, int | None]]]:
        """The distinct layerings that explain every demo, each bottom first, as (row, colour its
        shape takes or None for the state as it is): the layers found by their gain over all
        demos, then (while time is left, with two demos or more) by their gain on one demo
        first, for each demo: another order of choices, another answer. Only layers with the
        most common test shapes: they must paint onto one another."""
        if not self.paint:
            return []
        shapes = np.concatenate(self.shapes)
        _, inverse, counts = np.unique(shapes, axis=0, return_inverse=True, return_counts=True)
        rows = np.nonzero(inverse.ravel() == int(np.argmax(counts)))[0]
        if len(rows) < 2:
            return []
        paint = np.ascontiguousarray(np.concatenate(self.paint)[rows])
        wrong = np.ascontiguousarray(np.concatenate(self.wrong)[rows])
        clean = np.ascontiguousarray(np.concatenate(self.clean)[rows])
        cost = np.concatenate(self.cost)[rows]
        same = _pack(self.target[None, :] == np.array(self.palette, dtype=np.uint8).reshape(-1, 1), self.n_words)
        nonzero = _pack((self.target != 0)[None, :], self.n_words)[0].copy()
        n_demo = int(self.demo_of[-1]) + 1
        cares = [np.full(self.n_words, ~np.uint64(0), dtype=np.uint64)]  # every cell, as `_stack` reads it
        if n_demo > 1:
            cares += [_pack((self.demo_of == d)[None, :], self.n_words)[0].copy() for d in range(n_demo)]
        out = []
        open_start = _pack(np.ones((1, len(self.target)), dtype=bool), self.n_words)[0]
        for k, care in enumerate(cares):
            if k and time.monotonic() > deadline:
                break
            open_ = open_start.copy()
            layers, colours, n = _stack(paint, wrong, clean, cost, same, open_, nonzero,
                                        care, max_layers)
            # one layer as it is would be a program explaining every demo by itself, not pieces
            if n < 1 or n == 1 and colours[0] < 0:
                continue
            top_down = list(zip(layers[:n].tolist(), colours[:n].tolist(), strict=True))
            kept = _pruned(top_down, paint, wrong, same, nonzero, cost, open_start)
            for picked in (kept, top_down):  # the same twice when nothing was dropped: kept once
                chosen = [(int(rows[i]), CLEAR if c == CLEAR else None if c < 0 else self.palette[c])
                          for i, c in reversed(picked)]
                if chosen not in out:
                    out.append(chosen)
        return out


def _explains(top_down, paint, wrong, same, nonzero, open_start) -> bool:
    """Whether these layers, top first, reproduce every demo cell: each paints (or, clearing,
    zeroes) only open cells it has right and closes them; what stays open must be zero."""
    open_ = open_start.copy()
    for s, c in top_down:
        if c == CLEAR:
            if (~paint[s] & open_ & nonzero).any():
                return False
            open_ &= paint[s]
        else:
            if (paint[s] & open_ & (wrong[s] if c < 0 else ~same[c])).any():
                return False
            open_ &= ~paint[s]
    return not (open_ & nonzero).any()


def _pruned(top_down, paint, wrong, same, nonzero, cost, open_start) -> list:
    """The layering less every layer the demos do not need, the dearest tried first: the greedy
    takes whichever layer paints most, so a layer that happens to fit can sit among the ones
    that explain the demos, and it would decide the test answer by coincidence. What stays is
    still pieces: not one layer as it is (that is a program), nor a clearing at the bottom."""
    kept = list(top_down)
    for layer in sorted(top_down, key=lambda sc: -cost[sc[0]]):
        rest = [x for x in kept if x != layer]
        if (len(rest) >= 2 or rest and rest[0][1] >= 0) and rest[-1][1] != CLEAR \
                and _explains(rest, paint, wrong, same, nonzero, open_start):
            kept = rest
    return kept


def combine(search: Search, deadline: float, core=None) -> list[Candidate]:
    """The greedy layerings of sized states that reproduce every demo output, as candidates with
    distinct test answers: over every sized state of the compiled `core` (a `CoreSearch` over the
    same task) and the search's own."""
    layers = _Layers(search.outputs)
    layers.add_grids([s for s in search.sized if s.origin is None or core is None])
    if core is not None:
        layers.add_core(core, deadline)
    out, seen = [], set()
    for chosen in layers.stacks(MAX_PIECES, deadline):
        c = _candidate(search, core, layers, chosen)
        if c is not None:
            key = tuple(p.tobytes() + bytes(p.shape) for p in c.preds)
            if key not in seen:
                seen.add(key)
                out.append(c)
    return out


def _candidate(search: Search, core, layers: _Layers, chosen: list) -> Candidate | None:
    """The program and test answers of one layering, bottom first."""
    node, preds, cost = None, None, 0.0
    for row, colour in chosen:  # bottom first
        kind, s = layers.where[row]
        if kind == "core":
            n, test, c = core.node(s), core.grids(s)[core.n_demo:], core.cost(s)
        else:
            n, test, c = (s.origin or search).node(s.state), s.test, s.cost
        if colour == CLEAR:
            if node is None:
                return None  # nothing below to clear: never the greedy's bottom layer
            node = call("clear_outside", node, n)
            preds = [clear_outside(p, t) for p, t in zip(preds, test, strict=True)]
            cost += c + 3
            continue
        if colour is not None:
            n, test, c = call("colour_shape", n, args=(colour,)), [colour_shape(t, colour) for t in test], c + 1
        if node is None:
            node, preds = n, [t.copy() for t in test]
        else:
            node = call("paint_over", node, n)
            preds = [paint_over(p, t) for p, t in zip(preds, test, strict=True)]
        cost += c + 2
    if any(p is None for p in preds):
        return None
    return Candidate(node, "pieces", cost, preds, search.n_demo)
