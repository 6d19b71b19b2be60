"""Geometry primitives: the dihedral moves, shifts, crops, scaling and tiling of a whole grid.

Background is colour 0 here (the solver normalises a task whose background is another
colour before searching). A primitive that does not apply to its input returns None.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.primitives.objects import components
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import MAX_SIDE, Color, Grid


def _fits(g: Grid) -> Grid | None:
    return g if g.shape[0] <= MAX_SIDE and g.shape[1] <= MAX_SIDE else None


@primitive(cost=1)
def rotate90(g: Grid) -> Grid:
    """Rotate a quarter turn anticlockwise."""
    return np.ascontiguousarray(np.rot90(g, 1))


@primitive(cost=1, shape="keep")
def rotate180(g: Grid) -> Grid:
    """Rotate a half turn."""
    return np.ascontiguousarray(np.rot90(g, 2))


@primitive(cost=1)
def rotate270(g: Grid) -> Grid:
    """Rotate a quarter turn clockwise."""
    return np.ascontiguousarray(np.rot90(g, 3))


@primitive(cost=1, shape="keep")
def flip_lr(g: Grid) -> Grid:
    """Mirror left to right."""
    return np.ascontiguousarray(g[:, ::-1])


@primitive(cost=1, shape="keep")
def flip_ud(g: Grid) -> Grid:
    """Mirror top to bottom."""
    return np.ascontiguousarray(g[::-1, :])


@primitive(cost=1)
def transpose(g: Grid) -> Grid:
    """Swap rows and columns."""
    return np.ascontiguousarray(g.T)


@primitive(cost=1)
def anti_transpose(g: Grid) -> Grid:
    """Reflect in the anti-diagonal."""
    return np.ascontiguousarray(np.rot90(g, 2).T)


@primitive(cost=1.5, params=((-1, 0), (1, 0), (0, -1), (0, 1)), shape="keep")
def shift(g: Grid, dy: int, dx: int) -> Grid:
    """Move every cell by (dy, dx), filling with 0 and dropping what leaves the grid."""
    out = np.zeros_like(g)
    h, w = g.shape
    out[max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)] = g[max(-dy, 0):h - max(dy, 0),
                                                                  max(-dx, 0):w - max(dx, 0)]
    return out


@primitive(cost=1)
def crop_content(g: Grid) -> Grid | None:
    """Crop to the bounding box of the non-zero cells."""
    ys, xs = np.nonzero(g)
    if len(ys) == 0:
        return None
    return g[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy()


@primitive(cost=1.5, params=((False,), (True,)), shape="keep")
def keep_middle(g: Grid, row: bool) -> Grid | None:
    """Keep only the middle column (or row) of a grid of odd width (or height); clear the rest."""
    n = g.shape[0] if row else g.shape[1]
    if n % 2 == 0 or n < 3:
        return None
    out = np.zeros_like(g)
    if row:
        out[n // 2] = g[n // 2]
    else:
        out[:, n // 2] = g[:, n // 2]
    return out


@primitive(cost=1.5, shape="change")
def crop_lines(g: Grid) -> Grid | None:
    """Crop to the box that two full rows and two full columns of non-zero cells enclose, lines included."""
    rows = np.nonzero(g.all(axis=1))[0]
    cols = np.nonzero(g.all(axis=0))[0]
    if len(rows) != 2 or len(cols) != 2 or rows[1] - rows[0] < 2 or cols[1] - cols[0] < 2:
        return None
    if rows[1] - rows[0] + 1 == g.shape[0] and cols[1] - cols[0] + 1 == g.shape[1]:
        return None  # the lines are the grid's edges: nothing to crop
    return g[rows[0]:rows[1] + 1, cols[0]:cols[1] + 1].copy()


@primitive(cost=1.5, shape="change")
def pad_edges(g: Grid) -> Grid | None:
    """Add a ring of cells copying the nearest edge cell (corners 0)."""
    out = np.pad(g, 1, mode="edge")
    out[0, 0] = out[0, -1] = out[-1, 0] = out[-1, -1] = 0
    return _fits(out)


@primitive(cost=1, shape="change")
def trim(g: Grid) -> Grid | None:
    """Remove the outermost ring of cells (a frame)."""
    if g.shape[0] < 3 or g.shape[1] < 3:
        return None
    return g[1:-1, 1:-1].copy()


@primitive(cost=1)
def crop_minor(g: Grid) -> Grid | None:
    """Crop to the bounding box of the least frequent non-zero colour."""
    counts = np.bincount(g.ravel(), minlength=16)
    present = [c for c in range(1, 16) if counts[c]]
    if len(present) < 2:
        return None
    return crop_colour(g, min(present, key=lambda c: (counts[c], c)))


@primitive(cost=2, params="colours")
def crop_colour(g: Grid, c: Color) -> Grid | None:
    """Crop to the bounding box of the cells of colour c."""
    ys, xs = np.nonzero(g == c)
    if len(ys) == 0 or c == 0:
        return None
    return g[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy()


@primitive(cost=1.5, params=((2,), (3,), (4,), (5,)), shape="change")
def scale_up(g: Grid, k: int) -> Grid | None:
    """Blow each cell up into a k x k block."""
    return _fits(np.kron(g, np.ones((k, k), dtype=g.dtype)))


@primitive(cost=1.5, shape="change")
def scale_by_colours(g: Grid) -> Grid | None:
    """Blow each cell up by the number of distinct non-zero colours in the grid."""
    k = len(np.unique(g[g != 0]))
    return _fits(np.kron(g, np.ones((k, k), dtype=g.dtype))) if k > 1 else None


@primitive(cost=1.5, params=((2,), (3,)), shape="change")
def scale_down(g: Grid, k: int) -> Grid | None:
    """Keep one cell of each k x k block (the grid must divide exactly)."""
    h, w = g.shape
    if h % k or w % k or h == k and w == k:
        return None
    return g[::k, ::k].copy()


def smallest_period(g: Grid) -> tuple[int, int]:
    """The smallest (py, px) such that g repeats every py rows and every px columns."""
    h, w = g.shape
    py = next(p for p in range(1, h + 1) if p == h or np.array_equal(g[p:], g[:h - p]))
    px = next(p for p in range(1, w + 1) if p == w or np.array_equal(g[:, p:], g[:, :w - p]))
    return py, px


@primitive(cost=1.5, shape="change")
def period_tile(g: Grid) -> Grid | None:
    """The smallest block whose repetition down and across makes the grid (None if it does not repeat)."""
    py, px = smallest_period(g)
    if (py, px) == g.shape:
        return None
    return g[:py, :px].copy()


@primitive(cost=1.5, shape="change")
def diagonal(g: Grid) -> Grid | None:
    """A row or column of n cells laid along the main diagonal of an n x n grid of zeros."""
    if min(g.shape) != 1 or not 1 < g.size <= MAX_SIDE:
        return None
    return np.diag(g.ravel()).astype(np.uint8)


@primitive(cost=1.5, shape="change")
def stretch_square(g: Grid) -> Grid | None:
    """A row or column of n cells repeated into an n x n grid (a column's cells fill their rows)."""
    if min(g.shape) != 1 or not 1 < g.size <= MAX_SIDE:
        return None
    n = g.size
    return np.ascontiguousarray(np.broadcast_to(g, (n, n)))


@primitive(cost=1.5, params=((2,), (3,)), shape="change")
def canvas(g: Grid, k: int) -> Grid | None:
    """The grid at the top left of an empty canvas k times its size (room to draw beyond it)."""
    h, w = g.shape
    if k * max(h, w) > MAX_SIDE:
        return None
    out = np.zeros((k * h, k * w), dtype=np.uint8)
    out[:h, :w] = g
    return out


@primitive(cost=1)
def compress(g: Grid) -> Grid:
    """Collapse runs of identical rows and identical columns into one."""
    keep_r = np.concatenate([[True], (g[1:] != g[:-1]).any(axis=1)])
    g = g[keep_r]
    keep_c = np.concatenate([[True], (g[:, 1:] != g[:, :-1]).any(axis=0)])
    return g[:, keep_c].copy()


@primitive(cost=1.5, params=((True,), (False,)), shape="change")
def crop_frame(g: Grid, inside: bool) -> Grid | None:
    """The largest rectangular frame (a box outline of one colour, 3 x 3 or more), or just its inside."""
    best, area = None, 0
    for ys, xs in components(g, True, True):
        y0, y1, x0, x1 = ys.min(), ys.max(), xs.min(), xs.max()
        if y1 - y0 < 2 or x1 - x0 < 2 or (y1 - y0 + 1) * (x1 - x0 + 1) <= area:
            continue
        c = g[ys[0], xs[0]]
        if (g[y0, x0:x1 + 1] == c).all() and (g[y1, x0:x1 + 1] == c).all() and \
                (g[y0:y1 + 1, x0] == c).all() and (g[y0:y1 + 1, x1] == c).all():
            best, area = (y0, y1, x0, x1), (y1 - y0 + 1) * (x1 - x0 + 1)
    if best is None:
        return None
    y0, y1, x0, x1 = best
    return g[y0 + 1:y1, x0 + 1:x1].copy() if inside else g[y0:y1 + 1, x0:x1 + 1].copy()


@primitive(cost=1.5, params=((1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (3, 3), (4, 4)), shape="change")
def tile(g: Grid, ry: int, rx: int) -> Grid | None:
    """Repeat the grid ry times down and rx times across."""
    return _fits(np.tile(g, (ry, rx)))


@primitive(cost=1.5, shape="change")
def mirror_right(g: Grid) -> Grid | None:
    """Append the left-right mirror image on the right."""
    return _fits(np.hstack([g, g[:, ::-1]]))


@primitive(cost=1.5, shape="change")
def mirror_down(g: Grid) -> Grid | None:
    """Append the top-bottom mirror image below."""
    return _fits(np.vstack([g, g[::-1]]))


@primitive(cost=1.5, shape="change")
def mirror_four(g: Grid) -> Grid | None:
    """Four mirrored copies: the grid, its mirrors and its half-turn, as a 2x2 kaleidoscope."""
    top = np.hstack([g, g[:, ::-1]])
    return _fits(np.vstack([top, top[::-1]]))


@primitive(cost=1.5, shape="change")
def rotate_four(g: Grid) -> Grid | None:
    """Four rotated copies of a square grid turning round the centre (a pinwheel)."""
    if g.shape[0] != g.shape[1]:
        return None
    top = np.hstack([g, np.rot90(g, 3)])
    bottom = np.hstack([np.rot90(g, 1), np.rot90(g, 2)])
    return _fits(np.vstack([top, bottom]))


def _self_tile(g: Grid, where: np.ndarray) -> Grid | None:
    h, w = g.shape
    if h * h > MAX_SIDE or w * w > MAX_SIDE:
        return None
    return (np.kron(where, np.ones_like(g)) * np.tile(g, (h, w))).astype(np.uint8)


@primitive(cost=2, shape="change")
def self_tile(g: Grid) -> Grid | None:
    """Place a copy of the grid wherever a cell is non-zero (a fractal of itself)."""
    return _self_tile(g, g != 0)


@primitive(cost=2.5, shape="change", params="colours")
def self_tile_on(g: Grid, c: int) -> Grid | None:
    """Place a copy of the grid wherever a cell has colour c."""
    return _self_tile(g, g == c) if (g == c).any() else None


@primitive(cost=2.5, shape="change")
def self_tile_common(g: Grid) -> Grid | None:
    """Place a copy of the grid wherever a cell has its most frequent colour (ties: the lowest)."""
    return _self_tile(g, g == np.argmax(np.bincount(g.ravel())))
