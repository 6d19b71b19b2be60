"""Primitives whose arguments are learned from the demos, never enumerated by the search.

The search fits them (see `dsl.fit`): a recolour map, a local rule table, a constant answer,
and `paint_over`, the layering step that stacks partial results ("pieces") into one grid, with
`colour_shape`, a layer's shape in one colour, and `clear_outside`, a layer that clears.
Each is printed with its learned literal, so a program stays self-contained.
"""

from __future__ import annotations

import numpy as np

from shared.grids import d8, d8_inverse
from shared.solvers.dsl.primitives.colour import _paint
from shared.solvers.dsl.primitives.geometry import smallest_period
from shared.solvers.dsl.primitives.objects import components
from shared.solvers.dsl.primitives.parts import _cuts
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import MARKER, MAX_PARTS, MAX_SIDE, Grid

OUTSIDE = 15  # the colour a neighbourhood sees beyond the edge of the grid


@primitive(search=False)
def recolor(g: Grid, mapping: dict) -> Grid | None:
    """Recolour by a map learned from the demos; colours not in the map stay (markers may not)."""
    table = np.arange(256, dtype=np.uint8)
    for a, b in mapping.items():
        table[a] = b
    out = table[g]
    return out if out.max() < MARKER else None


@primitive(search=False)
def constant(g: Grid, rows: list) -> Grid:
    """The same grid whatever the input (for tasks whose demos all answer alike)."""
    return np.array(rows, dtype=np.uint8)


@primitive(search=False)
def crop_at(g: Grid, y: int, x: int, h: int, w: int) -> Grid | None:
    """The h x w window at (y, x); a negative y or x counts from the bottom or right edge."""
    gh, gw = g.shape
    y0, x0 = y if y >= 0 else gh - h + y + 1, x if x >= 0 else gw - w + x + 1
    if y0 < 0 or x0 < 0 or y0 + h > gh or x0 + w > gw:
        return None
    return g[y0:y0 + h, x0:x0 + w].copy()


def corner_origin(corner: int, h: int, w: int, gh: int, gw: int) -> tuple[int, int]:
    """Where a gh x gw grid starts in corner 0-3 (top left, top right, bottom left, bottom right) of an h x w one."""
    return (h - gh if corner >= 2 else 0), (w - gw if corner % 2 else 0)


@primitive(search=False)
def pad_to(g: Grid, corner: int, h: int, w: int, fill: int) -> Grid | None:
    """g in corner 0-3 (top left, top right, bottom left, bottom right) of an h x w grid of colour fill."""
    gh, gw = g.shape
    if gh > h or gw > w:
        return None
    out = np.full((h, w), fill, dtype=np.uint8)
    y0, x0 = corner_origin(corner, h, w, gh, gw)
    out[y0:y0 + gh, x0:x0 + gw] = g
    return out


@primitive(search=False)
def stamp(g: Grid, stamps: dict) -> Grid:
    """Around every cell of colour c paint stamps[c] = ((dy, dx, colour), ...) onto zero cells."""
    out = g.copy()
    h, w = g.shape
    for c, marks in stamps.items():
        ys, xs = np.nonzero(g == c)
        for dy, dx, colour in marks:
            ty, tx = ys + dy, xs + dx
            ok = (ty >= 0) & (ty < h) & (tx >= 0) & (tx < w)
            ty, tx = ty[ok], tx[ok]
            free = g[ty, tx] == 0
            out[ty[free], tx[free]] = colour
    return out


def grid_key(g: Grid) -> tuple:
    """A grid as nested tuples: hashable, printable, exact."""
    return tuple(map(tuple, g.tolist()))


@primitive(search=False)
def lookup(g: Grid, table: dict) -> Grid | None:
    """The answer the demos gave for exactly this grid (a learned classification)."""
    rows = table.get(grid_key(g))
    return None if rows is None else np.array(rows, dtype=np.uint8)


@primitive(search=False)
def paint_over(g: Grid, top: Grid) -> Grid | None:
    """Layer `top` over `g`: the non-zero cells of top win."""
    if g.shape != top.shape:
        return None
    return np.where(top != 0, top, g).astype(np.uint8)


@primitive(search=False)
def clear_outside(g: Grid, shape: Grid) -> Grid | None:
    """`g` where `shape` is non-zero, zero elsewhere (a pieces layer that clears below its zeros)."""
    if g.shape != shape.shape:
        return None
    return np.where(shape != 0, g, 0).astype(np.uint8)


@primitive(search=False)
def colour_shape(g: Grid, c: int) -> Grid:
    """Every non-zero cell in colour c (a layer's shape, for the pieces)."""
    return _paint(g, c)


def role_perm(g: Grid, fixed: tuple) -> np.ndarray:
    """The colour permutation (a lookup table of 10) that gives g's colours outside `fixed` the
    free colours in order, commonest first (ties: the lower colour); `fixed` colours keep theirs."""
    counts = np.bincount(g.ravel(), minlength=10)[:10]
    free = [c for c in range(10) if c not in fixed]
    present = sorted((c for c in free if counts[c]), key=lambda c: (-counts[c], c))
    absent = [c for c in free if not counts[c]]
    perm = np.arange(10, dtype=np.uint8)
    perm[present + absent] = free  # the present colours take the first free slots, the rest follow
    return perm


@primitive(search=False, shape="keep")
def colour_roles(g: Grid, fixed: tuple) -> Grid | None:
    """Recolour by role: the colours outside `fixed` become the free colours, commonest first."""
    if g.max() > 9:
        return None
    return role_perm(g, fixed)[g]


@primitive(search=False, shape="keep")
def colour_roles_back(g: Grid, ref: Grid, fixed: tuple) -> Grid | None:
    """Undo colour_roles(ref, fixed) on an answer: each free colour back to ref's colour of that role."""
    if g.max() > 9 or ref.max() > 9:
        return None
    return np.argsort(role_perm(ref, fixed)).astype(np.uint8)[g]


ORIENT_MIN = 1.5  # how many times the stronger axis must outweigh the other for a grid to show its orientation


def orientation(g: Grid, feature: tuple) -> int | None:
    """The dihedral element (`shared.grids.d8`) that turns g to its canonical orientation by
    `feature`, or None where g does not show that feature clearly. ("aspect",): the long side
    across; ("axis", c): the cells of colour c spread most across; ("towards", a, b): colour a's
    cells to the right of colour b's."""
    kind = feature[0]
    if kind == "aspect":
        h, w = g.shape
        return None if max(h, w) < ORIENT_MIN * min(h, w) else (0 if w > h else 4)
    if kind == "axis":
        ys, xs = np.nonzero(g == feature[1])
        if len(ys) < 4:
            return None
        vy, vx = ys.var(), xs.var()
        return None if max(vy, vx) < ORIENT_MIN * (min(vy, vx) + 1) else (0 if vx > vy else 4)
    if kind == "towards":
        for k in range(8):
            t = d8(g, k)
            a, b = np.nonzero(t == feature[1]), np.nonzero(t == feature[2])
            if not len(a[0]) or not len(b[0]):
                return None
            dy, dx = a[0].mean() - b[0].mean(), a[1].mean() - b[1].mean()
            if dx > 0 and dx >= 2 * ORIENT_MIN * (abs(dy) + 0.5):
                return k
        return None
    raise ValueError(f"orientation: unknown feature {feature!r}")


@primitive(search=False, shape="any")
def orient(g: Grid, feature: tuple) -> Grid | None:
    """Turn g to its canonical orientation by `feature` (see `orientation`)."""
    k = orientation(g, feature)
    return None if k is None else d8(g, k)


@primitive(search=False, shape="any")
def orient_back(g: Grid, ref: Grid, feature: tuple) -> Grid | None:
    """Undo orient(ref, feature) on an answer: turn g back by ref's orientation."""
    k = orientation(ref, feature)
    return None if k is None else d8(g, d8_inverse(k))


def _d8(g: Grid, k: int) -> Grid:
    return np.rot90(g.T if k >= 4 else g, k % 4)


@primitive(search=False)
def arrange(g: Grid, ry: int, rx: int, layout: tuple) -> Grid | None:
    """An ry x rx block grid of copies of g, each block a dihedral move of g (0-7) or empty (-1)."""
    h, w = g.shape
    if any(k >= 0 and _d8(g, k).shape != g.shape for k in layout) or h * ry > 30 or w * rx > 30:
        return None
    out = np.zeros((h * ry, w * rx), dtype=np.uint8)
    for i, k in enumerate(layout):
        if k >= 0:
            y, x = divmod(i, rx)
            out[y * h:(y + 1) * h, x * w:(x + 1) * w] = _d8(g, k)
    return out


def panel_boxes(g: Grid) -> tuple[list[tuple[int, int, int, int]], int]:
    """The panels between g's full separator lines, as (top, left, bottom, right) boxes in reading
    order, and which one is the source: the panel with the most non-zero cells (-1 on a tie or
    with no separators)."""
    ry, rx = _cuts(np.ascontiguousarray(g, dtype=np.uint8), MAX_PARTS)
    boxes = [(a, p, b, q) for a, b in ry.tolist() for p, q in rx.tolist()]
    if len(boxes) < 2:
        return [], -1
    filled = [int(np.count_nonzero(g[a:b, p:q])) for a, p, b, q in boxes]
    best = max(filled)
    return boxes, filled.index(best) if best and filled.count(best) == 1 else -1


@primitive(search=False)
def fill_panels(g: Grid, layout: tuple) -> Grid | None:
    """Each panel between g's separator lines kept (-1) or made a dihedral move (0-7) of the fullest panel."""
    boxes, source = panel_boxes(g)
    if len(boxes) != len(layout) or source < 0:
        return None
    a, p, b, q = boxes[source]
    src = g[a:b, p:q]
    out = g.copy()
    for (a, p, b, q), k in zip(boxes, layout, strict=True):
        if k >= 0:
            moved = d8(src, k)
            if moved.shape != (b - a, q - p):
                return None
            out[a:b, p:q] = moved
    return out


@primitive(search=False)
def extend_pattern(g: Grid, ry: tuple, rx: tuple) -> Grid | None:
    """Continue g's repeating pattern to (ry[0]/ry[1], rx[0]/rx[1]) times its size."""
    h, w = g.shape
    if (h * ry[0]) % ry[1] or (w * rx[0]) % rx[1]:
        return None
    oh, ow = h * ry[0] // ry[1], w * rx[0] // rx[1]
    if not (0 < oh <= 30 and 0 < ow <= 30):
        return None
    py, px = smallest_period(g)
    return np.tile(g[:py, :px], (oh // py + 1, ow // px + 1))[:oh, :ow].copy()


def _padded(g: Grid) -> np.ndarray:
    return np.pad(g, 1, constant_values=OUTSIDE)


def _first_seen(g: Grid) -> np.ndarray:
    """For each cell, the first non-zero colour met looking down, left, up, right (0: none)."""
    h, w = g.shape
    out = np.zeros((4, h, w), dtype=np.uint8)
    for k in range(4):
        r = np.rot90(g, k)
        seen = np.zeros_like(r)
        last = np.zeros(r.shape[1], dtype=np.uint8)
        for y in range(r.shape[0] - 1, -1, -1):
            seen[y] = last
            last = np.where(r[y] != 0, r[y], last)
        out[k] = np.rot90(seen, -k)
    return out


# the 8 dihedral rearrangements of a flattened 3x3 patch
_SQUARE_SYMMETRIES = [np.rot90(m, k).ravel() for m in (np.arange(9).reshape(3, 3),
                                                      np.arange(9).reshape(3, 3).T) for k in range(4)]


def features(g: Grid, kind: str) -> np.ndarray:
    """Per-cell feature vectors (h, w, k) for a local rule of the given kind."""
    p = _padded(g)
    h, w = g.shape
    if kind == "cell":
        return g[:, :, None]
    if kind == "cross":
        return np.stack([g, p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]], axis=-1)
    if kind == "square":
        return np.stack([p[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)], axis=-1)
    if kind == "square_sym":
        p = np.pad(g, 1)  # the edge looks like background, so a shape reads the same anywhere
        patch = np.stack([p[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)], axis=-1).astype(np.int64)
        weights = 16 ** np.arange(8, -1, -1, dtype=np.int64)
        codes = [(patch[..., perm] * weights).sum(axis=-1) for perm in _SQUARE_SYMMETRIES]
        return np.stack([g.astype(np.int64), np.min(codes, axis=0)], axis=-1)
    if kind == "count":
        nz = (p != 0) & (p != OUTSIDE)
        n = sum(nz[dy:dy + h, dx:dx + w].astype(np.uint8) for dy in range(3) for dx in range(3)) - (g != 0)
        return np.stack([g, n.astype(np.uint8)], axis=-1)
    if kind == "rays":
        return np.concatenate([g[:, :, None], np.moveaxis(_first_seen(g), 0, -1)], axis=-1)
    if kind in ("objsize", "objrank", "roomrank"):
        if kind == "roomrank":  # rooms: 4-connected regions of background, ranked like objects
            comps = components((g == 0).astype(np.uint8), False, False)
        else:
            comps = components(g, True, False)
        sizes = sorted({len(ys) for ys, _ in comps}, reverse=True)
        big = np.zeros((h, w), dtype=np.uint8)
        small = np.zeros((h, w), dtype=np.uint8)
        for ys, xs in comps:
            if kind == "objsize":  # sizes past 5 behave alike, so the rule carries to unseen sizes
                big[ys, xs] = min(len(ys), 5)
            else:  # rank from the largest and from the smallest, both capped
                big[ys, xs] = 1 + min(sizes.index(len(ys)), 2)
                small[ys, xs] = 1 + min(len(sizes) - 1 - sizes.index(len(ys)), 2)
        return np.stack([g, big, small], axis=-1)
    if kind == "lines":
        rows = np.array([sorted(set(r.tolist()) - {0})[:1] or [0] for r in g], dtype=np.uint8)
        cols = np.array([sorted(set(c.tolist()) - {0})[:1] or [0] for c in g.T], dtype=np.uint8)
        return np.stack([g, np.broadcast_to(rows, (h, w)), np.broadcast_to(cols.T, (h, w))], axis=-1)
    raise ValueError(f"unknown local rule features {kind!r}")


FEATURE_KINDS = ("cell", "count", "cross", "objrank", "objsize", "roomrank", "lines", "rays", "square_sym", "square")


@primitive(search=False)
def local_rule(g: Grid, kind: str, table: dict) -> Grid | None:
    """Each cell becomes table[its feature tuple] (a learned per-cell rule); unseen ones stay."""
    f = features(g, kind)
    keys = map(tuple, f.reshape(-1, f.shape[-1]).tolist())
    out = np.array([table.get(k, k[0]) for k in keys], dtype=np.uint8).reshape(g.shape)
    return out if out.max() < MARKER else None


def _steps_inside(start: int, step: int, n: int) -> range:
    """The k >= 0 with 0 <= start + k * step < n."""
    if step == 0:
        return range(0, MAX_SIDE + 1) if 0 <= start < n else range(0)
    lo, hi = (-start, n - 1 - start) if step > 0 else (start - n + 1, start)
    a = max(0, -(-lo // abs(step)))
    return range(a, hi // abs(step) + 1)


@primitive(search=False)
def trail_stamp(g: Grid, trails: dict) -> Grid | None:
    """From each cell of colour c, marks trails[c] = ((period, marks), ...) recur by the period to the edge on zeros."""
    h, w = g.shape
    out = g.copy()
    free = g == 0
    for c, groups in trails.items():
        for y, x in zip(*np.nonzero(g == c), strict=True):
            for (py, px), marks in groups:
                for dy, dx, colour in marks:
                    ky, kx = _steps_inside(y + dy, py, h), _steps_inside(x + dx, px, w)
                    for k in range(max(ky.start, kx.start), min(ky.stop, kx.stop)):
                        ty, tx = y + dy + k * py, x + dx + k * px
                        if free[ty, tx]:
                            out[ty, tx] = colour
                            free[ty, tx] = False
    return out
