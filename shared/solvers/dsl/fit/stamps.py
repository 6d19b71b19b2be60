"""Stamp fits: marks painted around cells of a colour, or around objects by the size of their box.

`fit_stamp` learns, per colour, the fixed marks on zero cells within `STAMP_REACH`; `fit_trail_stamp`, for
one colour, marks that repeat by a fixed step from each of its cells to the edge; `fit_object_stamp`
learns, per box size, the marks every object of that size gets (colours by role), up to a margin;
`fit_stamp_templates` learns, per marker colour, how the shape that colour anchors is turned when copied onto
each one-cell marker of it.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from shared.grids import d8
from shared.solvers.dsl.fit.common import same
from shared.solvers.dsl.primitives.learned import stamp, trail_stamp
from shared.solvers.dsl.primitives.props import (
    KEEP,
    OBJECT_KINDS,
    markers_and_templates,
    object_stamp,
    place_template,
    stamp_anchors,
    stamp_templates,
    template_for,
)
from shared.solvers.dsl.types import Grid

STAMP_REACH = 2  # stamps cover the 5x5 square around a cell


def fit_stamp(values: list[Grid], outputs: list[Grid]) -> dict | None:
    """Per-colour stamps painted on zero cells around each cell of that colour, if they explain the demos."""
    # stamps only paint zero cells: every non-zero cell must already be as in the output
    if any((o[v != 0] != v[v != 0]).any() for v, o in zip(values, outputs, strict=True)):
        return None
    stamps: dict[int, tuple] = {}
    colours = sorted({int(c) for v in values for c in np.unique(v)} - {0})
    offsets = [(dy, dx) for dy in range(-STAMP_REACH, STAMP_REACH + 1) for dx in range(-STAMP_REACH, STAMP_REACH + 1)
               if (dy, dx) != (0, 0)]
    for c in colours:
        marks = []
        for dy, dx in offsets:
            seen, support = set(), 0
            for v, o in zip(values, outputs, strict=True):
                ys, xs = np.nonzero(v == c)
                ty, tx = ys + dy, xs + dx
                ok = (ty >= 0) & (ty < v.shape[0]) & (tx >= 0) & (tx < v.shape[1])
                ty, tx = ty[ok], tx[ok]
                free = v[ty, tx] == 0
                seen.update(o[ty[free], tx[free]].tolist())
                support += int(free.sum())
            # a mark seen once may be a neighbour's stamp; demand it around two cells at least
            if len(seen) == 1 and 0 not in seen and support >= 2:
                marks.append((dy, dx, seen.pop()))
        if marks:
            stamps[c] = tuple(marks)
    if not stamps or not all(same(stamp(v, stamps), o) for v, o in zip(values, outputs, strict=True)):
        return None
    return stamps


OBJECT_STAMP_MARGINS = (0, 1, 2, 3)  # how far past its object's box a stamp may reach
_UNSEEN, _CLASH = -1, -2


def fit_object_stamp(values: list[Grid], outputs: list[Grid], tests: list[Grid]) -> tuple | None:
    """(kind, margin, table) when every object, by the size of its box, gets the same marks around
    it in every demo (colours by role, so a mark may take the object's own colour); the smallest
    margin, and each box size backed by two objects or more, seen again in the tests."""
    for kind in OBJECT_KINDS:
        anchors = [stamp_anchors(v, kind) for v in values]
        test_anchors = [stamp_anchors(t, kind) for t in tests]
        if any(a is None for a in anchors + test_anchors):
            continue
        sizes = Counter((y1 - y0, x1 - x0) for a in anchors for (y0, x0, y1, x1), _ in a)
        if any(sizes[(y1 - y0, x1 - x0)] < 2 for a in test_anchors for (y0, x0, y1, x1), _ in a):
            continue
        reach = _reach(values, outputs, anchors)
        for margin in OBJECT_STAMP_MARGINS:
            if margin < reach:
                continue  # some changed cell lies beyond every object's box grown by the margin
            table = _stamp_table(values, outputs, anchors, margin)
            if table is not None and all(same(object_stamp(v, kind, margin, table), o)
                                         for v, o in zip(values, outputs, strict=True)):
                return kind, margin, table
    return None


def _reach(values: list[Grid], outputs: list[Grid], anchors: list) -> int:
    """The least margin whose grown object boxes hold every cell some demo changes: how many cells
    past the nearest box (in rows or columns, whichever is more) the farthest changed cell lies."""
    reach = 0
    for v, o, objs in zip(values, outputs, anchors, strict=True):
        ys, xs = np.nonzero(v != o)
        if not len(ys):
            continue
        boxes = np.array([box for box, _ in objs])
        rows = np.maximum(boxes[:, None, 0] - ys, ys - boxes[:, None, 2] + 1)  # (box, changed cell)
        cols = np.maximum(boxes[:, None, 1] - xs, xs - boxes[:, None, 3] + 1)
        reach = max(reach, int(np.maximum(rows, cols).min(axis=0).max()))
    return reach


def _stamp_table(values: list[Grid], outputs: list[Grid], anchors: list, margin: int) -> dict | None:
    """Per box size, the marks every object of that size agrees on (None on a clash): a cell is
    marked where some demo changed it; its code is a colour, or 16 + r for the object's r-th colour."""
    codes: dict[tuple, np.ndarray] = {}
    kept: dict[tuple, np.ndarray] = {}
    pad = max(OBJECT_STAMP_MARGINS)
    for v, o, objs in zip(values, outputs, anchors, strict=True):
        pv = np.pad(v.astype(np.int16), pad, constant_values=-1)
        po = np.pad(o.astype(np.int16), pad, constant_values=-1)
        for (y0, x0, y1, x1), ranked in objs:
            size = (y1 - y0, x1 - x0)
            sl = np.s_[pad + y0 - margin:pad + y1 + margin, pad + x0 - margin:pad + x1 + margin]
            wv, wo = pv[sl], po[sl]
            role = np.full(17, -1, dtype=np.int16)
            role[list(ranked)] = 16 + np.arange(1, len(ranked) + 1)
            by_role = role[wo.clip(0)]  # outside the grid reads colour 0, which no object has
            code = np.where(wo < 0, _UNSEEN, np.where(by_role > 0, by_role, wo))
            if size not in codes:
                codes[size] = np.full(wv.shape, _UNSEEN, dtype=np.int16)
                kept[size] = np.ones(wv.shape, dtype=bool)
            known = codes[size]
            inside = wo >= 0
            kept[size] &= ~inside | (wo == wv)
            fresh = inside & (known == _UNSEEN)
            known[fresh] = code[fresh]
            known[inside & (known != code)] = _CLASH
    table = {}
    for size, known in codes.items():
        marked = ~kept[size] & (known != _UNSEEN)
        if (known[marked] == _CLASH).any():
            return None
        ys, xs = np.nonzero(marked)
        table[size] = tuple((int(y), int(x), int(c) if c < 16 else 16 - int(c))
                            for y, x, c in zip(ys, xs, known[ys, xs], strict=True))
    return table if any(table.values()) else None


def _turns_that_fit(v: Grid, o: Grid, template: Grid, y: int, x: int, colour: int) -> set:
    """The d8 turns of template that, copied with its anchor on (y, x), agree with o; KEEP when o leaves the
    marker's neighbourhood as v has it."""
    ok = set()
    for k in range(8):
        painted = v.copy()
        place_template(painted, d8(template, k), y, x, colour)
        changed = painted != v
        if changed.any() and (painted[changed] == o[changed]).all():
            ok.add(k)
    near = np.s_[max(y - 1, 0):y + 2, max(x - 1, 0):x + 2]
    if np.array_equal(v[near], o[near]):
        ok.add(KEEP)
    return ok


def fit_stamp_templates(values: list[Grid], outputs: list[Grid], tests: list[Grid]) -> dict | None:
    """Marker colour -> the d8 turn (KEEP: none) of the shape it anchors that each one-cell marker of that colour
    gets, when that explains every demo; the first turn that fits (no turn before a turn), and every test
    marker's colour seen in the demos."""
    if any(v.shape != o.shape for v, o in zip(values, outputs, strict=True)):
        return None
    options: dict[int, set] = {}
    for v, o in zip(values, outputs, strict=True):
        markers, templates = markers_and_templates(v)
        for y, x, colour in markers:
            template = template_for(templates, colour)
            if template is not None:
                ok = _turns_that_fit(v, o, template, y, x, colour)
                options[colour] = options[colour] & ok if colour in options else ok
    if not options or any(not ok for ok in options.values()):
        return None
    table = {c: min(ok - {KEEP}) if ok - {KEEP} else KEEP for c, ok in sorted(options.items())}
    if all(k == KEEP for k in table.values()):
        return None
    for t in tests:
        markers, templates = markers_and_templates(t)
        if any(c not in table and template_for(templates, c) is not None for _, _, c in markers):
            return None
    if not all(same(stamp_templates(v, table), o) for v, o in zip(values, outputs, strict=True)):
        return None
    return table


TRAIL_PERIOD = 4  # the longest step (in rows or columns) a trail's marks repeat by
_STEPS = range(-TRAIL_PERIOD, TRAIL_PERIOD + 1)
# every step, the shortest first (in rows or columns, then in both), so the simplest trail that fits wins
_PERIODS = sorted(((dy, dx) for dy in _STEPS for dx in _STEPS if (dy, dx) != (0, 0)),
                  key=lambda p: (max(abs(p[0]), abs(p[1])), abs(p[0]) + abs(p[1]), p))


def fit_trail_stamp(values: list[Grid], outputs: list[Grid]) -> dict | None:
    """{c: ((period, marks), ...)}: marks round each cell of one colour c that repeat by a fixed step to
    the edge (one way, or a second set the other way), painting zeros, if they explain the demos.

    The marks are read off the demos where c has one cell: the changed cells within one step of it
    whose cell one step back (inside the grid) is unchanged. Changes all within `STAMP_REACH` of the
    cell are `fit_stamp`'s, not a trail's."""
    if any(v.shape != o.shape or (o[v != 0] != v[v != 0]).any() for v, o in zip(values, outputs, strict=True)):
        return None
    colours = set(range(1, 10))
    for v in values:
        colours &= set(np.unique(v).tolist())
    for c in sorted(colours):
        seen = []  # per demo with one cell of c: its shape, the cell, and the changes by offset from it
        for v, o in zip(values, outputs, strict=True):
            ys, xs = np.nonzero(v == c)
            if len(ys) == 1:
                y, x = int(ys[0]), int(xs[0])
                changed = zip(*np.nonzero(v != o), strict=True)
                seen.append((v.shape, y, x, {(int(a) - y, int(b) - x): int(o[a, b]) for a, b in changed}))
        if not seen or max((max(abs(dy), abs(dx)) for *_, d in seen for dy, dx in d), default=0) <= STAMP_REACH:
            continue
        for p in _PERIODS:
            one = _trail_marks(seen, p)
            both = (one, _trail_marks(seen, (-p[0], -p[1]))) if p > (-p[0], -p[1]) else None
            for groups in ((one,), both):
                if groups is None or not all(marks for _, marks in groups):
                    continue
                trails = {c: groups}
                if all(same(trail_stamp(v, trails), o) for v, o in zip(values, outputs, strict=True)):
                    return trails
    return None


def _trail_marks(seen: list, p: tuple) -> tuple:
    """(p, marks): the changes within one step of their cell whose cell one step back, inside the grid, is unchanged."""
    reach = max(abs(p[0]), abs(p[1]))
    marks = set()
    for (h, w), y, x, changes in seen:
        for (dy, dx), colour in changes.items():
            by, bx = dy - p[0], dx - p[1]
            if max(abs(dy), abs(dx)) <= reach and 0 <= y + by < h and 0 <= x + bx < w and (by, bx) not in changes:
                marks.add((dy, dx, colour))
    return p, tuple(sorted(marks))
