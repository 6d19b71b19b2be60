"""Structure primitives: splitting by separators, combining parts, gravity, filling, rays,
symmetry completion and pattern continuation.

Logical combinations mark their true cells with the marker colour, so a learned recolour at
the end picks the output colour from the demos.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import GRID, GRIDS, MARKER, MAX_PARTS, MAX_SIDE, Grid

_DIRS = {"down": 0, "left": 1, "up": 2, "right": 3}  # anticlockwise quarter turns that make it "down"


def _separators(line_ok: np.ndarray) -> list[tuple[int, int]]:
    """Runs of indices that are not separators, as (start, stop)."""
    spans, start = [], None
    for i, sep in enumerate(list(line_ok) + [True]):
        if not sep and start is None:
            start = i
        elif sep and start is not None:
            spans.append((start, i))
            start = None
    return spans


@primitive(GRID, GRIDS, cost=1)
def split_lines(g: Grid) -> tuple | None:
    """Cut along full lines of one non-zero colour (the one with most lines) into cells, reading order."""
    cuts = _line_cuts(g)
    if cuts is None:
        return None
    return tuple(g[a:b, p:q].copy() for a, b in cuts[0] for p, q in cuts[1])


def _line_cuts(g: Grid) -> tuple[list, list] | None:
    """Spans between full lines of the non-zero colour with the most such lines."""
    best = None
    for c in range(1, 10):
        rows = (g == c).all(axis=1)
        cols = (g == c).all(axis=0)
        if not rows.any() and not cols.any() or rows.all():
            continue
        ry, rx = _separators(rows), _separators(cols)
        n_lines = int(rows.sum() + cols.sum())
        if len(ry) * len(rx) < 2 or len(ry) * len(rx) > MAX_PARTS or best and best[0] >= n_lines:
            continue
        best = (n_lines, ry, rx)
    return (best[1], best[2]) if best else None


@primitive(cost=1)
def cell_colours(g: Grid) -> Grid | None:
    """Cut along separator lines and give each cell its most frequent colour: the layout as a grid."""
    cuts = _line_cuts(g)
    if cuts is None:
        return None
    ry, rx = cuts
    out = np.zeros((len(ry), len(rx)), dtype=np.uint8)
    for i, (a, b) in enumerate(ry):
        for j, (p, q) in enumerate(rx):
            out[i, j] = np.bincount(g[a:b, p:q].ravel(), minlength=16).argmax()
    return out


def _equal_spans(n: int, k: int) -> list[tuple[int, int]] | None:
    if n % k == 0:
        s = n // k
        return [(i * s, (i + 1) * s) for i in range(k)]
    if (n - (k - 1)) % k == 0:  # k parts with one-cell separators between
        s = (n - (k - 1)) // k
        return [(i * (s + 1), i * (s + 1) + s) for i in range(k)]
    return None


@primitive(GRID, GRIDS, cost=1, params=((1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (3, 3)))
def split_grid(g: Grid, ry: int, rx: int) -> tuple | None:
    """Cut into ry x rx equal parts (skipping one-cell separators), reading order."""
    ys, xs = _equal_spans(g.shape[0], ry), _equal_spans(g.shape[1], rx)
    if ys is None or xs is None or ys[0][1] - ys[0][0] < 1 or xs[0][1] - xs[0][0] < 1:
        return None
    return tuple(g[a:b, p:q].copy() for a, b in ys for p, q in xs)


def _same_shape(parts: tuple) -> bool:
    return len(parts) >= 2 and all(p.shape == parts[0].shape for p in parts)


@primitive(GRIDS, GRID, cost=1)
def overlay(parts: tuple) -> Grid | None:
    """Paint the parts on top of each other, later parts over earlier ones (0 is clear)."""
    if not _same_shape(parts):
        return None
    out = parts[0].copy()
    for p in parts[1:]:
        out = np.where(p != 0, p, out)
    return out.astype(np.uint8)


@primitive(GRIDS, GRID, cost=1.5)
def overlay_reversed(parts: tuple) -> Grid | None:
    """Paint the parts on top of each other, earlier parts over later ones."""
    return overlay(parts[::-1]) if parts else None


def _two(parts: tuple) -> tuple[np.ndarray, np.ndarray] | None:
    if len(parts) != 2 or parts[0].shape != parts[1].shape:
        return None
    return parts[0] != 0, parts[1] != 0


def _marked(m: np.ndarray) -> Grid:
    return np.where(m, MARKER, 0).astype(np.uint8)


@primitive(GRIDS, GRID, cost=1)
def and_parts(parts: tuple) -> Grid | None:
    """Mark cells non-zero in both of two parts."""
    ab = _two(parts)
    return None if ab is None else _marked(ab[0] & ab[1])


@primitive(GRIDS, GRID, cost=1)
def or_parts(parts: tuple) -> Grid | None:
    """Mark cells non-zero in either of two parts."""
    ab = _two(parts)
    return None if ab is None else _marked(ab[0] | ab[1])


@primitive(GRIDS, GRID, cost=1)
def xor_parts(parts: tuple) -> Grid | None:
    """Mark cells non-zero in exactly one of two parts."""
    ab = _two(parts)
    return None if ab is None else _marked(ab[0] ^ ab[1])


@primitive(GRIDS, GRID, cost=1)
def nor_parts(parts: tuple) -> Grid | None:
    """Mark cells zero in both of two parts."""
    ab = _two(parts)
    return None if ab is None else _marked(~ab[0] & ~ab[1])


@primitive(GRIDS, GRID, cost=1)
def diff_parts(parts: tuple) -> Grid | None:
    """Mark cells non-zero in the first of two parts and zero in the second."""
    ab = _two(parts)
    return None if ab is None else _marked(ab[0] & ~ab[1])


@primitive(GRIDS, GRID, cost=1.5)
def stack_across(parts: tuple) -> Grid | None:
    """Put the parts side by side (equal heights)."""
    if not parts or any(p.shape[0] != parts[0].shape[0] for p in parts):
        return None
    out = np.hstack(parts)
    return out if out.shape[1] <= MAX_SIDE else None


@primitive(GRIDS, GRID, cost=1.5)
def stack_down(parts: tuple) -> Grid | None:
    """Put the parts one above the other (equal widths)."""
    if not parts or any(p.shape[1] != parts[0].shape[1] for p in parts):
        return None
    out = np.vstack(parts)
    return out if out.shape[0] <= MAX_SIDE else None


def _turned(g: Grid, direction: str, fn) -> Grid:
    k = _DIRS[direction]
    return np.ascontiguousarray(np.rot90(fn(np.rot90(g, k)), -k))


def _fall_down(g: Grid) -> Grid:
    out = np.zeros_like(g)
    for x in range(g.shape[1]):
        col = g[:, x][g[:, x] != 0]
        if len(col):
            out[g.shape[0] - len(col):, x] = col
    return out


@primitive(cost=1.5, params=(("down",), ("up",), ("left",), ("right",)))
def gravity(g: Grid, direction: str) -> Grid:
    """Let every non-zero cell fall in a direction until it rests on another or the edge."""
    return _turned(g, direction, _fall_down)


def _outside_zeros(g: Grid) -> np.ndarray:
    """Zero cells 4-connected to the border through zero cells."""
    h, w = g.shape
    free = g == 0
    out = np.zeros_like(free)
    stack = [(y, x) for y in range(h) for x in (0, w - 1)] + [(y, x) for y in (0, h - 1) for x in range(w)]
    while stack:
        y, x = stack.pop()
        if 0 <= y < h and 0 <= x < w and free[y, x] and not out[y, x]:
            out[y, x] = True
            stack.extend(((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)))
    return out


@primitive(cost=1)
def fill_enclosed(g: Grid) -> Grid:
    """Mark the zero cells that cannot reach the border (holes inside shapes)."""
    holes = (g == 0) & ~_outside_zeros(g)
    return np.where(holes, MARKER, g).astype(np.uint8)


def _ray_down(g: Grid) -> Grid:
    out = g.copy()
    for x in range(g.shape[1]):
        colour = 0
        for y in range(g.shape[0]):
            if g[y, x]:
                colour = g[y, x]
            elif colour:
                out[y, x] = colour
    return out


@primitive(cost=2, params=(("down",), ("up",), ("left",), ("right",)))
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


@primitive(cost=2.5, params=(("down",), ("up",), ("left",), ("right",)))
def diagonal_rays(g: Grid, direction: str) -> Grid:
    """Extend every non-zero cell diagonally (down-right turned by the direction) over zeros."""
    return _turned(g, direction, _ray_diagonal)


@primitive(cost=1.5)
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


@primitive(cost=2)
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


def _mirror_axis(g: Grid, unknown: np.ndarray, axis: int) -> int | None:
    """Best mirror axis (as 2*centre) along axis where all known cell pairs agree."""
    n = g.shape[axis]
    best, best_overlap = None, 0
    for s in range(n // 2, 2 * n - 2 - n // 2 + 1):  # centre must lie in the middle half
        idx = np.arange(n)
        m = s - idx
        ok = (m >= 0) & (m < n)
        a, b = idx[ok], m[ok]
        ga, gb = np.take(g, a, axis=axis), np.take(g, b, axis=axis)
        ua, ub = np.take(unknown, a, axis=axis), np.take(unknown, b, axis=axis)
        known = ~ua & ~ub
        if not (ga[known] == gb[known]).all():
            continue
        if known.sum() > best_overlap:
            best, best_overlap = s, int(known.sum())
    return best


def _symmetry_complete(g: Grid, c: int) -> Grid | None:
    unknown = g == c
    if not unknown.any():
        return None
    out = g.copy()
    for _ in range(2):
        for axis in (0, 1):
            s = _mirror_axis(out, unknown, axis)
            if s is None:
                continue
            n = g.shape[axis]
            idx = np.arange(n)
            src = np.clip(s - idx, 0, n - 1)
            valid = ((s - idx) >= 0) & ((s - idx) < n)
            mirrored = np.take(out, src, axis=axis)
            mir_unknown = np.take(unknown, src, axis=axis)
            vshape = (n, 1) if axis == 0 else (1, n)
            fill = unknown & ~mir_unknown & valid.reshape(vshape)
            out[fill] = mirrored[fill]
            unknown = unknown & ~fill
        if g.shape[0] == g.shape[1]:
            fill = unknown & ~unknown.T & (out.T == out.T)
            if fill.any() and (out[~unknown & ~unknown.T] == out.T[~unknown & ~unknown.T]).all():
                out[fill] = out.T[fill]
                unknown = unknown & ~fill
    return None if unknown.any() else out


@primitive(cost=2.5, params="colours")
def symmetry_complete(g: Grid, c: int) -> Grid | None:
    """Treat colour c as unknown and fill it from the grid's mirror symmetries."""
    return _symmetry_complete(g, c)


@primitive(cost=2.5, params="colours")
def symmetry_patch(g: Grid, c: int) -> Grid | None:
    """What the symmetric grid holds under the box of colour c."""
    out = _symmetry_complete(g, c)
    if out is None:
        return None
    ys, xs = np.nonzero(g == c)
    return out[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy()


def _shift_ok(g: Grid, known: np.ndarray, p: int, axis: int) -> bool:
    """Do known cells agree with the known cells p steps further along axis?"""
    n = g.shape[axis]
    a = np.take(g, np.arange(n - p), axis=axis)
    b = np.take(g, np.arange(p, n), axis=axis)
    both = np.take(known, np.arange(n - p), axis=axis) & np.take(known, np.arange(p, n), axis=axis)
    return bool((a[both] == b[both]).all())


def _periodic_fill(g: Grid, c: int) -> Grid | None:
    """Fill cells of colour c from the smallest 2-d period the known cells agree with."""
    unknown = g == c
    h, w = g.shape
    if not unknown.any() or unknown.all():
        return None
    known = ~unknown
    pys = [p for p in range(1, h + 1) if p == h or _shift_ok(g, known, p, 0)]
    pxs = [p for p in range(1, w + 1) if p == w or _shift_ok(g, known, p, 1)]
    ys, xs = np.nonzero(known)
    colours = g[ys, xs].astype(np.int64)
    for _, py, px in sorted((py * px, py, px) for py in pys for px in pxs):
        if py == h and px == w:
            break
        cls = (ys % py) * px + xs % px
        keys = np.unique(cls * 16 + colours)
        # every class of the tile seen exactly once with one colour: a consistent full tile
        if len(keys) != py * px or len(np.unique(keys // 16)) != py * px:
            continue
        tile = np.zeros(py * px, dtype=np.uint8)
        tile[keys // 16] = keys % 16
        return np.tile(tile.reshape(py, px), (h // py + 1, w // px + 1))[:h, :w].copy()
    return None


@primitive(cost=2.5, params="colours")
def pattern_complete(g: Grid, c: int) -> Grid | None:
    """Treat colour c as unknown and fill it by continuing the grid's repeating pattern."""
    return _periodic_fill(g, c)


@primitive(cost=2.5, params="colours")
def pattern_patch(g: Grid, c: int) -> Grid | None:
    """What the continued pattern holds under the box of colour c."""
    out = _periodic_fill(g, c)
    if out is None:
        return None
    ys, xs = np.nonzero(g == c)
    return out[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy()


@primitive(cost=1.5)
def outline(g: Grid) -> Grid:
    """Mark the non-zero cells that touch a zero cell or the edge (4-neighbours), clear the inside."""
    p = np.pad(g != 0, 1)
    inner = p[1:-1, 1:-1] & p[:-2, 1:-1] & p[2:, 1:-1] & p[1:-1, :-2] & p[1:-1, 2:]
    return np.where(inner, 0, g).astype(np.uint8)


@primitive(cost=1.5)
def border(g: Grid) -> Grid:
    """Mark the outermost ring of cells."""
    out = g.copy()
    out[0, :] = out[-1, :] = MARKER
    out[:, 0] = out[:, -1] = MARKER
    return out


@primitive(cost=2, params=(("down",), ("up",), ("left",), ("right",)))
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
