"""A per-cell rule over a few named cell features, chosen from a larger set by the fit.

Every cell of a grid is described by small integer features: its colour, its neighbours, its
position modulo 2 and 3, the size and holes of its object, the other colour of a many-colour
object (a marker touching a shape), whether a 4-neighbour has another non-zero colour (and
which), whether it is enclosed, the first colour seen along each direction, and so on
(`CELL_FEATURES`). A rule names 1 to 3 of them and maps each
tuple of their values to the cell's new colour: either a literal colour or the value of one of
the colour-valued features ("keep the cell's colour", "take the colour seen to the left").
The fit (`dsl.fit.fit_cell_rule`) picks the fewest features that explain every demo cell and
whose value tuples cover every test cell.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from shared.solvers.dsl.primitives.learned import OUTSIDE, _first_seen
from shared.solvers.dsl.primitives.objects import components
from shared.solvers.dsl.primitives.props import _holes, _mask
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import MARKER, Grid

_OFFSETS = {"n": (-1, 0), "s": (1, 0), "w": (0, -1), "e": (0, 1),
            "nw": (-1, -1), "ne": (-1, 1), "sw": (1, -1), "se": (1, 1)}
_RAYS = ("ray_s", "ray_w", "ray_n", "ray_e")  # the order `_first_seen` gives: down, left, up, right

# every feature, simplest first (the fit tries subsets in this order); values stay below 16
_DIAGONAL_RAYS = ("ray_se", "ray_sw", "ray_nw", "ray_ne")
CELL_FEATURES = ("colour", "nz", "crank", "nmask", "dmask", "samemask", "raymask", "n", "s", "w", "e", "nbrs",
                 "nbrs4", "hole", "room", "objsize", "big", "small", "objedge", "objholes", "objy", "objx",
                 "boxin", "mixc",
                 *_RAYS, "hbetween", "vbetween", "rowc", "colc", "rowsame", "colsame", "top", "bottom",
                 "left", "right", "band_y", "band_x", "band_ry", "band_rx", "y2", "x2", "ry2", "rx2", "y3", "x3",
                 "edge", "ncol", "nw", "ne", "sw", "se", "same8", *_DIAGONAL_RAYS, "touch", "touchc")
# features whose value is a colour: a rule may copy one of them into the cell
COLOUR_FEATURES = ("colour", "n", "s", "w", "e", "mixc", *_RAYS, "hbetween", "vbetween", "rowc", "colc", "rowsame",
                   "colsame", "top", "bottom", "left", "right", "nw", "ne", "sw", "se", *_DIAGONAL_RAYS, "touchc")


def _objects(g: Grid) -> tuple[np.ndarray, ...]:
    """Per cell: size of its one-colour 8-connected object (capped at 6), rank from the largest and
    the smallest (1-3), whether the object touches the edge, its holes (capped at 3), and where the
    cell lies in the object's box down and across (1: before the middle, 2: on it, 3: after it); 0
    on background."""
    h, w = g.shape
    size, big, small, edge, holes, oy, ox = (np.zeros((h, w), dtype=np.uint8) for _ in range(7))
    comps = components(g, True, True)
    sizes = sorted({len(ys) for ys, _ in comps}, reverse=True)
    for ys, xs in comps:
        n = len(ys)
        size[ys, xs] = min(n, 6)
        big[ys, xs] = 1 + min(sizes.index(n), 2)
        small[ys, xs] = 1 + min(len(sizes) - 1 - sizes.index(n), 2)
        edge[ys, xs] = 1 + int(ys.min() == 0 or xs.min() == 0 or ys.max() == h - 1 or xs.max() == w - 1)
        if n >= 8:  # a hole needs a ring of 8 cells at least
            holes[ys, xs] = min(_holes(_mask(ys, xs)), 3)
        oy[ys, xs] = 2 + np.sign(2 * ys - ys.min() - ys.max())
        ox[ys, xs] = 2 + np.sign(2 * xs - xs.min() - xs.max())
    return size, big, small, edge, holes, oy, ox


def _mixed(g: Grid) -> np.ndarray:
    """Per non-zero cell: the most frequent other colour of its 8-connected many-colour object (the
    marker touching a shape, or the shape around a marker); 0 when the object has one colour."""
    out = np.zeros(g.shape, dtype=np.uint8)
    for ys, xs in components(g, True, False):
        colours = np.bincount(g[ys, xs], minlength=16)
        if (colours > 0).sum() < 2:
            continue
        for c in np.flatnonzero(colours):
            others = colours.copy()
            others[c] = 0
            sel = g[ys, xs] == c
            out[ys[sel], xs[sel]] = int(np.argmax(others))
    return out


def _background(g: Grid) -> tuple[np.ndarray, np.ndarray]:
    """On background cells: 1 where no 4-connected path of background joins them to the edge, and
    the size of their 4-connected background region (capped at 9)."""
    lab, _ = ndimage.label(g == 0)
    outside = np.unique(np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]]))
    holes = ((lab > 0) & ~np.isin(lab, outside)).astype(np.uint8)
    sizes = np.minimum(np.bincount(lab.ravel()), 9).astype(np.uint8)
    sizes[0] = 0
    return holes, sizes[lab]


def _in_boxes(g: Grid) -> np.ndarray:
    """1 on cells inside the bounding box of an 8-connected object (any colours) of 2 cells or more."""
    out = np.zeros(g.shape, dtype=np.uint8)
    for ys, xs in components(g, True, False):
        if len(ys) > 1:
            out[ys.min():ys.max() + 1, xs.min():xs.max() + 1] = 1
    return out


def _diagonal_seen(g: Grid) -> np.ndarray:
    """For each cell, the first non-zero colour met along each diagonal: down-right, down-left,
    up-left, up-right (0: none)."""
    h, w = g.shape
    out = np.zeros((4, h, w), dtype=np.uint8)
    for k in range(4):
        r = np.rot90(g, k)
        rh, rw = r.shape
        seen = np.zeros_like(r)
        for y in range(rh - 2, -1, -1):  # the cell down-right, or what it sees
            below = np.where(r[y + 1, 1:] != 0, r[y + 1, 1:], seen[y + 1, 1:])
            seen[y, :rw - 1] = below
        out[k] = np.rot90(seen, -k)
    return out


def _uniform(lines: np.ndarray) -> np.ndarray:
    """Per row of `lines`, its colour when every cell has that one non-zero colour, else 0."""
    same = (lines == lines[:, :1]).all(axis=1)
    return np.where(same, lines[:, 0], 0).astype(np.uint8)


def _first_colour(lines: np.ndarray) -> np.ndarray:
    """The smallest non-zero colour of each row of `lines` (0 when it has none)."""
    masked = np.where(lines != 0, lines, 99)
    low = masked.min(axis=1)
    return np.where(low == 99, 0, low).astype(np.uint8)


def cell_features(g: Grid) -> dict[str, np.ndarray]:
    """Every feature of `CELL_FEATURES` for every cell, as (h, w) uint8 arrays."""
    h, w = g.shape
    p = np.pad(g, 1, constant_values=OUTSIDE)
    f = {"colour": g}
    for name, (dy, dx) in _OFFSETS.items():
        f[name] = p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
    nz = (p != 0) & (p != OUTSIDE)
    # colour-blind views, which carry a rule to colours the demos never showed
    f["nz"] = (g != 0).astype(np.uint8)
    counts = np.bincount(g.ravel(), minlength=16)
    counts[0] = 0
    rank = np.zeros(16, dtype=np.uint8)  # 1 = the most frequent non-zero colour, capped at 3
    for i, c in enumerate(np.argsort(-counts, kind="stable")[:int((counts > 0).sum())]):
        rank[c] = min(i + 1, 3)
    f["crank"] = rank[g]
    f["nmask"] = sum(nz[1 + dy:1 + dy + h, 1 + dx:1 + dx + w].astype(np.uint8) << b
                     for b, (dy, dx) in enumerate(list(_OFFSETS.values())[:4]))
    f["dmask"] = sum(nz[1 + dy:1 + dy + h, 1 + dx:1 + dx + w].astype(np.uint8) << b
                     for b, (dy, dx) in enumerate(list(_OFFSETS.values())[4:]))
    f["samemask"] = sum((p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] == g).astype(np.uint8) << b
                        for b, (dy, dx) in enumerate(list(_OFFSETS.values())[:4]))
    f["nbrs"] = sum(nz[1 + dy:1 + dy + h, 1 + dx:1 + dx + w].astype(np.uint8) for dy, dx in _OFFSETS.values())
    f["nbrs4"] = sum(nz[1 + dy:1 + dy + h, 1 + dx:1 + dx + w].astype(np.uint8)
                     for dy, dx in list(_OFFSETS.values())[:4])
    f["same8"] = sum((p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] == g).astype(np.uint8) for dy, dx in _OFFSETS.values())
    f["hole"], f["room"] = _background(g)
    f["objsize"], f["big"], f["small"], f["objedge"], f["objholes"], f["objy"], f["objx"] = _objects(g)
    f["mixc"] = _mixed(g)
    seen = _first_seen(g)
    for k, name in enumerate(_RAYS):
        f[name] = seen[k]
    f["raymask"] = sum((seen[k] != 0).astype(np.uint8) << k for k in range(4))
    f["hbetween"] = np.where(seen[1] == seen[3], seen[1], 0).astype(np.uint8)
    f["vbetween"] = np.where(seen[0] == seen[2], seen[0], 0).astype(np.uint8)
    f["rowc"] = np.broadcast_to(_first_colour(g)[:, None], (h, w))
    f["colc"] = np.broadcast_to(_first_colour(g.T)[None, :], (h, w))
    f["rowsame"] = np.broadcast_to(_uniform(g)[:, None], (h, w))
    f["colsame"] = np.broadcast_to(_uniform(g.T)[None, :], (h, w))
    f["top"], f["bottom"] = np.broadcast_to(g[0], (h, w)), np.broadcast_to(g[-1], (h, w))
    f["left"], f["right"] = np.broadcast_to(g[:, :1], (h, w)), np.broadcast_to(g[:, -1:], (h, w))
    # which band between separator lines (rows or columns of one non-zero colour), from each side
    rows, cols = _uniform(g) != 0, _uniform(g.T) != 0
    f["band_y"] = np.broadcast_to(np.minimum(np.cumsum(rows) - rows, 15).astype(np.uint8)[:, None], (h, w))
    f["band_ry"] = np.broadcast_to(np.minimum(np.cumsum(rows[::-1])[::-1] - rows, 15).astype(np.uint8)[:, None],
                                   (h, w))
    f["band_x"] = np.broadcast_to(np.minimum(np.cumsum(cols) - cols, 15).astype(np.uint8)[None, :], (h, w))
    f["band_rx"] = np.broadcast_to(np.minimum(np.cumsum(cols[::-1])[::-1] - cols, 15).astype(np.uint8)[None, :],
                                   (h, w))
    f["boxin"] = _in_boxes(g)
    f["ncol"] = np.full((h, w), len(np.unique(g[g != 0])), dtype=np.uint8)
    diagonal = _diagonal_seen(g)
    for k, name in enumerate(_DIAGONAL_RAYS):
        f[name] = diagonal[k]
    ys, xs = np.indices((h, w), dtype=np.int64)
    f["y2"], f["x2"] = (ys % 2).astype(np.uint8), (xs % 2).astype(np.uint8)
    f["ry2"], f["rx2"] = ((h - 1 - ys) % 2).astype(np.uint8), ((w - 1 - xs) % 2).astype(np.uint8)
    f["y3"], f["x3"] = (ys % 3).astype(np.uint8), (xs % 3).astype(np.uint8)
    f["edge"] = ((ys == 0) | (xs == 0) | (ys == h - 1) | (xs == w - 1)).astype(np.uint8)
    f["touch"], f["touchc"] = _touching(g, [f[d] for d in ("n", "s", "w", "e")])
    return f


def _touching(g: Grid, sides: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per cell: whether a 4-neighbour has another non-zero colour than the cell (colour-blind
    contact between shapes), and that colour when the neighbours show only one such, else 0."""
    colour = np.zeros(g.shape, dtype=np.uint8)
    mixed = np.zeros(g.shape, dtype=bool)
    touch = np.zeros(g.shape, dtype=bool)
    for q in sides:
        other = (q != g) & (q != 0) & (q != OUTSIDE)
        mixed |= other & touch & (colour != q)
        colour = np.where(other & ~touch, q, colour)
        touch |= other
    return touch.astype(np.uint8), np.where(mixed, 0, colour).astype(np.uint8)


def apply_rule(f: dict[str, np.ndarray], names: tuple, table: dict) -> Grid | None:
    """A rule applied to a grid's features (`cell_features`); None where the table lacks a key."""
    g = f["colour"]
    out = g.ravel().copy()
    for i, key in enumerate(zip(*[f[n].ravel().tolist() for n in names], strict=True)):
        label = table.get(key)
        if label is None:
            return None  # a feature combination the demos never showed
        out[i] = label if isinstance(label, int) else f[label].flat[i]
    out = out.reshape(g.shape)
    return out if out.max() < MARKER else None


@primitive(search=False)
def cell_rule(g: Grid, names: tuple, table: dict) -> Grid | None:
    """Each cell becomes table[its values of the named features]: a colour, or the feature it names."""
    return apply_rule(cell_features(g), names, table)
