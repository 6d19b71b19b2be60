"""Layout fits that change the size: block layouts, pattern continuation, fixed windows, lookups.

`fit_arrange`, `fit_extend` and `fit_crop` match the outputs' nonzero pattern (arrange, extend) or
cells (crop); the search then fits a recolour of the built grids as an optional second step.
`fit_pad` puts smaller values in a corner of a fixed-size grid of one colour.
`fit_lookup` maps whole values to whole outputs when demo values repeat. `fit_panels` keeps the
size: the panels between separator lines become turns and mirrors of the fullest one.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from shared.grids import d8
from shared.solvers.dsl.fit.common import same
from shared.solvers.dsl.primitives.learned import corner_origin, crop_at, extend_pattern, grid_key, panel_boxes
from shared.solvers.dsl.types import Grid


def fit_arrange(values: list[Grid], outputs: list[Grid]) -> tuple | None:
    """(ry, rx, layout) when every output is (up to a recolour) a block grid of dihedral copies of its value."""
    (h, w), (oh, ow) = values[0].shape, outputs[0].shape
    # copies of a single cell are a plain fill, not a layout
    if oh % h or ow % w or (oh, ow) == (h, w) or any(v.size == 1 for v in values):
        return None
    ry, rx = oh // h, ow // w
    if any(o.shape != (v.shape[0] * ry, v.shape[1] * rx) for v, o in zip(values, outputs, strict=True)):
        return None
    layout = []
    for i in range(ry * rx):
        y, x = divmod(i, rx)
        options = [-1] + list(range(8))
        for v, o in zip(values, outputs, strict=True):
            vh, vw = v.shape
            block = o[y * vh:(y + 1) * vh, x * vw:(x + 1) * vw]
            options = [k for k in options if (not block.any() if k < 0 else
                                              same(np.rot90(v.T if k >= 4 else v, k % 4) != 0, block != 0))]
        if not options:
            return None
        layout.append(options[0])
    return ry, rx, tuple(layout)


def fit_extend(values: list[Grid], outputs: list[Grid]) -> tuple | None:
    """(ry, rx) as fractions when every output continues (up to a recolour) its value's pattern to a larger size."""
    pairs = list(zip(values, outputs, strict=True))
    if any(o.shape[0] < v.shape[0] or o.shape[1] < v.shape[1] or o.shape == v.shape for v, o in pairs):
        return None
    ratios = {(Fraction(o.shape[0], v.shape[0]), Fraction(o.shape[1], v.shape[1])) for v, o in pairs}
    if len(ratios) != 1:
        return None
    fy, fx = ratios.pop()
    if fy < 1 or fx < 1 or fy == fx == 1:
        return None
    args = ((fy.numerator, fy.denominator), (fx.numerator, fx.denominator))
    for v, o in zip(values, outputs, strict=True):
        if not same(extend_pattern(v, *args) != 0, o != 0):
            return None
    return args


def fit_crop(values: list[Grid], outputs: list[Grid]) -> tuple | None:
    """(y, x, h, w) when every output is the same-sized window of its value at a fixed corner offset."""
    h, w = outputs[0].shape
    if any(o.shape != (h, w) for o in outputs) or any(v.shape[0] < h or v.shape[1] < w for v in values):
        return None
    if all(v.shape == (h, w) for v in values):
        return None
    # where the first demo's answer sits in its value; each hit, counted from either edge, is a guess
    windows = np.lib.stride_tricks.sliding_window_view(values[0], (h, w))
    hits = np.argwhere((windows == outputs[0]).all(axis=(2, 3)))
    gh, gw = values[0].shape
    guesses = sorted({(y, x) for y0, x0 in hits.tolist() for y in (y0, y0 - (gh - h) - 1)
                      for x in (x0, x0 - (gw - w) - 1)}, key=lambda yx: (abs(yx[0]) + abs(yx[1]), yx))
    for y, x in guesses:
        if all(same(crop_at(v, y, x, h, w), o) for v, o in zip(values, outputs, strict=True)):
            return y, x, h, w
    return None


def fit_pad(values: list[Grid], outputs: list[Grid]) -> list[tuple]:
    """[(corner, h, w, fill), ...] for each corner where every output is its (smaller) value in that corner of
    a grid of one colour: the outputs' cells outside the value all that colour. The value's cells must
    then match up to a recolour (the search fits that)."""
    h, w = outputs[0].shape
    if any(o.shape != (h, w) for o in outputs) or any(v.shape[0] > h or v.shape[1] > w for v in values):
        return []
    if all(v.shape == (h, w) for v in values) or any(not v.any() for v in values):
        return []
    found = []
    for corner in range(4):
        fill = -1
        for v, o in zip(values, outputs, strict=True):
            vh, vw = v.shape
            y0, x0 = corner_origin(corner, h, w, vh, vw)
            outside = np.ones((h, w), dtype=bool)
            outside[y0:y0 + vh, x0:x0 + vw] = False
            colours = np.unique(o[outside])
            if colours.size > 1 or (colours.size == 1 and fill >= 0 and colours[0] != fill):
                break
            if colours.size == 1:
                fill = int(colours[0])
        else:
            if fill >= 0:
                found.append((corner, h, w, fill))
    return found


def fit_lookup(values: list[Grid], outputs: list[Grid], tests: list[Grid]) -> dict | None:
    """A table value -> output when values repeat across the demos and every test value was seen."""
    # cheap refusal first: without two equal demo values there is nothing to look up
    if len({bytes(v.shape) + v.tobytes() for v in values}) == len(values):
        return None
    table: dict = {}
    for v, o in zip(values, outputs, strict=True):
        if table.setdefault(grid_key(v), grid_key(o)) != grid_key(o):
            return None
    # a table with one entry per demo explains nothing; demand that some demo repeats another
    if len(table) == len(values) or any(grid_key(t) not in table for t in tests):
        return None
    return table


def fit_panels(values: list[Grid], outputs: list[Grid]) -> tuple | None:
    """(layout,) when every output is its value with each panel between the separator lines kept
    (-1) or replaced by one dihedral move (0-7) of the fullest panel, the same move per place."""
    layout = None
    for v, o in zip(values, outputs, strict=True):
        boxes, source = panel_boxes(v)
        if source < 0 or layout is not None and len(boxes) != len(layout):
            return None
        if not np.array_equal(_outside(v, boxes), _outside(o, boxes)):
            return None
        a, p, b, q = boxes[source]
        moves = [d8(v[a:b, p:q], k) for k in range(8)]  # the source's eight moves, made once per demo
        filled = np.count_nonzero(moves[0])
        options = layout or [[-1, *range(8)] for _ in boxes]
        for i, (a, p, b, q) in enumerate(boxes):
            want = o[a:b, p:q]
            movable = np.count_nonzero(want) == filled  # a move keeps the count: a cheap refusal first
            options[i] = [k for k in options[i] if (k < 0 or movable)
                          and same(v[a:b, p:q] if k < 0 else moves[k], want)]
            if not options[i]:
                return None
        layout = options
    picked = tuple(ks[0] for ks in layout)
    # a layout that keeps every panel, or only puts the fullest back where it was, changes nothing
    return None if all(k < 0 for k in picked) else (picked,)


def _outside(g: Grid, boxes: list) -> Grid:
    """g with its panels blanked: the separator lines, which the panels' fill leaves as they are."""
    out = g.copy()
    for a, p, b, q in boxes:
        out[a:b, p:q] = 0
    return out
