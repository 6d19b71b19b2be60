"""Drawing and motion primitives: gravity and sliding until contact, filling enclosed holes,
rays and connecting lines, outlines and borders.

Directions are handled once: each primitive is written for "down" and turned for the others.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import MARKER, Color, Grid

_DIRS = {"down": 0, "left": 1, "up": 2, "right": 3}  # anticlockwise quarter turns that make it "down"


def _turned(g: Grid, direction: str, fn) -> Grid:
    k = _DIRS[direction]
    return np.ascontiguousarray(np.rot90(fn(np.rot90(g, k)), -k))


def _fall_down(g: Grid) -> Grid:
    # a stable sort on "is non-zero" moves zeros up and keeps the order of the rest
    order = np.argsort(g != 0, axis=0, kind="stable")
    return np.take_along_axis(g, order, axis=0)


@primitive(cost=1.5, params=(("down",), ("up",), ("left",), ("right",)), shape="keep")
def gravity(g: Grid, direction: str) -> Grid:
    """Let every non-zero cell fall in a direction until it rests on another or the edge."""
    return _turned(g, direction, _fall_down)


def _outside_zeros(g: Grid) -> np.ndarray:
    """Zero cells 4-connected to the border through zero cells (grown one step at a time)."""
    free = g == 0
    reach = np.zeros_like(free)
    reach[0, :], reach[-1, :], reach[:, 0], reach[:, -1] = free[0, :], free[-1, :], free[:, 0], free[:, -1]
    while True:
        grown = reach.copy()
        grown[1:] |= reach[:-1]
        grown[:-1] |= reach[1:]
        grown[:, 1:] |= reach[:, :-1]
        grown[:, :-1] |= reach[:, 1:]
        grown &= free
        if np.array_equal(grown, reach):
            return reach
        reach = grown


@primitive(cost=1, shape="keep")
def fill_enclosed(g: Grid) -> Grid:
    """Mark the zero cells that cannot reach the border (holes inside shapes)."""
    holes = (g == 0) & ~_outside_zeros(g)
    return np.where(holes, MARKER, g).astype(np.uint8)


def _ray_down(g: Grid) -> Grid:
    # for every cell, the row of the last non-zero cell at or above it in its column
    rows = np.where(g != 0, np.arange(g.shape[0])[:, None], -1)
    last = np.maximum.accumulate(rows, axis=0)
    below = np.take_along_axis(g, np.maximum(last, 0), axis=0)
    return np.where((g == 0) & (last >= 0), below, g).astype(np.uint8)


@primitive(cost=2, params=(("down",), ("up",), ("left",), ("right",)), shape="keep")
def rays(g: Grid, direction: str) -> Grid:
    """Extend every non-zero cell in a direction over zero cells (each cell's colour wins)."""
    return _turned(g, direction, _ray_down)


def _ray_diagonal(g: Grid) -> Grid:
    out = g.copy()
    h, w = g.shape
    for y, x in zip(*np.nonzero(g), strict=True):
        k = 1
        while y + k < h and x + k < w and g[y + k, x + k] == 0:
            out[y + k, x + k] = g[y, x]
            k += 1
    return out


@primitive(cost=3, params=(("down",), ("up",), ("left",), ("right",)), shape="keep")
def diagonal_rays(g: Grid, direction: str) -> Grid:
    """Extend every non-zero cell diagonally (down-right turned by the direction) over zeros."""
    return _turned(g, direction, _ray_diagonal)


@primitive(cost=1.5, shape="keep")
def connect(g: Grid) -> Grid:
    """Join same-coloured cells that share a row or column with a line of their colour over zeros."""
    out = g.copy()
    for grid, view in ((g, out), (g.T, out.T)):
        for y in range(grid.shape[0]):
            row = grid[y]
            xs = np.nonzero(row)[0]
            for a, b in zip(xs[:-1], xs[1:], strict=True):
                if row[a] == row[b] and b > a + 1:
                    seg = view[y, a + 1:b]
                    view[y, a + 1:b] = np.where(seg == 0, row[a], seg)
    return out


@primitive(cost=2, shape="keep")
def connect_diagonal(g: Grid) -> Grid:
    """Join same-coloured cells on a shared diagonal with a line of their colour over zeros."""
    out = g.copy()
    h, w = g.shape
    for view, src in ((out, g), (out[:, ::-1], g[:, ::-1])):
        for d in range(-h + 1, w):
            line = np.diagonal(src, d)
            idx = np.nonzero(line)[0]
            for a, b in zip(idx[:-1], idx[1:], strict=True):
                if line[a] == line[b] and b > a + 1:
                    for k in range(a + 1, b):
                        y, x = (k, k + d) if d >= 0 else (k - d, k)
                        if view[y, x] == 0:
                            view[y, x] = line[a]
    return out


@primitive(cost=1.5, shape="keep")
def outline(g: Grid) -> Grid:
    """Mark the non-zero cells that touch a zero cell or the edge (4-neighbours), clear the inside."""
    p = np.pad(g != 0, 1)
    inner = p[1:-1, 1:-1] & p[:-2, 1:-1] & p[2:, 1:-1] & p[1:-1, :-2] & p[1:-1, 2:]
    return np.where(inner, 0, g).astype(np.uint8)


@primitive(cost=1.5, shape="keep")
def border(g: Grid) -> Grid:
    """Mark the outermost ring of cells."""
    out = g.copy()
    out[0, :] = out[-1, :] = MARKER
    out[:, 0] = out[:, -1] = MARKER
    return out


@primitive(cost=2, params=(("down",), ("up",), ("left",), ("right",)), shape="keep")
def slide_objects(g: Grid, direction: str) -> Grid:
    """Move the cells of the least frequent colour as one block until they touch something."""
    return _turned(g, direction, _slide_down)


def _slide_down(g: Grid) -> Grid:
    counts = np.bincount(g.ravel(), minlength=16)
    present = [c for c in range(1, 16) if counts[c]]
    if len(present) < 2:
        return g
    mover = min(present, key=lambda c: (counts[c], c))
    moving = g == mover
    rest = np.where(moving, 0, g)
    h = g.shape[0]
    step = 0
    while True:
        nxt = step + 1
        ys, xs = np.nonzero(moving)
        if (ys + nxt >= h).any() or rest[ys + nxt, xs].any():
            break
        step = nxt
    out = rest.copy()
    ys, xs = np.nonzero(moving)
    out[ys + step, xs] = mover
    return out.astype(np.uint8)


@primitive(cost=2, params="colours", shape="keep")
def slide_to(g: Grid, c: Color) -> Grid | None:
    """Move the cells of colour c as one block straight towards the other cells until they touch."""
    moving = g == c
    rest = np.where(moving, 0, g)
    if c == 0 or not moving.any() or not rest.any():
        return None
    my, mx = np.nonzero(moving)
    ry, rx = np.nonzero(rest)
    if my.max() < ry.min():
        direction = "down"
    elif my.min() > ry.max():
        direction = "up"
    elif mx.max() < rx.min():
        direction = "right"
    elif mx.min() > rx.max():
        direction = "left"
    else:
        return None
    k = _DIRS[direction]
    turned = np.rot90(g, k)
    out = np.rot90(_slide_colour_down(turned, c), -k)
    return np.ascontiguousarray(out)


def _slide_colour_down(g: Grid, c: Color) -> Grid:
    moving = g == c
    rest = np.where(moving, 0, g)
    ys, xs = np.nonzero(moving)
    step = 0
    while ys.max() + step + 1 < g.shape[0] and not rest[ys + step + 1, xs].any():
        step += 1
    out = rest.copy()
    out[ys + step, xs] = c
    return out.astype(np.uint8)
