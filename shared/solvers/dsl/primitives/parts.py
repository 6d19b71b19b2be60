"""Part primitives: cutting a grid into cells along separator lines or into equal parts, and
putting parts back together (overlay, vote, logical and/or/xor, side by side).

Logical combinations mark their true cells with the marker colour, so a learned recolour at
the end picks the output colour from the demos.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import counts, empty
from shared.solvers.dsl.primitives.lines import connect
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import GRID, GRIDS, MARKER, MAX_PARTS, MAX_SIDE, Color, Grid, Grids


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
def split_lines(g: Grid) -> Grids | None:
    """Cut along full lines of one non-zero colour (the one with most lines) into cells, reading order."""
    cuts = _line_cuts(g)
    if cuts is None:
        return None
    return tuple(g[a:b, p:q].copy() for a, b in cuts[0] for p, q in cuts[1])


def _line_cuts(g: Grid, max_parts: int = MAX_PARTS) -> tuple[list, list] | None:
    """Spans between full lines of the non-zero colour with the most such lines."""
    best = None
    for c in range(1, 10):
        rows = (g == c).all(axis=1)
        cols = (g == c).all(axis=0)
        if not rows.any() and not cols.any() or rows.all():
            continue
        ry, rx = _separators(rows), _separators(cols)
        n_lines = int(rows.sum() + cols.sum())
        if len(ry) * len(rx) < 2 or len(ry) * len(rx) > max_parts or best and best[0] >= n_lines:
            continue
        best = (n_lines, ry, rx)
    return (best[1], best[2]) if best else None


@njit
def _spans(sep):
    """Runs of indices that are not separators, as rows (start, stop) of an int64 array."""
    n = sep.shape[0]
    out = np.empty((n, 2), dtype=np.int64)
    k = 0
    start = -1
    for i in range(n + 1):
        s = True if i == n else sep[i]
        if not s and start < 0:
            start = i
        elif s and start >= 0:
            out[k, 0] = start
            out[k, 1] = i
            k += 1
            start = -1
    return out[:k].copy()


@njit
def _cuts(g, max_parts):
    """_line_cuts, compiled: (row spans, column spans) between the full lines of the non-zero colour
    with the most such lines; both with no rows where there are none."""
    h, w = g.shape
    best_ry = np.empty((0, 2), dtype=np.int64)
    best_rx = np.empty((0, 2), dtype=np.int64)
    best = -1
    rows = np.empty(h, dtype=np.bool_)
    cols = np.empty(w, dtype=np.bool_)
    for c in range(1, 10):
        nrows = 0
        for y in range(h):
            full = True
            for x in range(w):
                if g[y, x] != c:
                    full = False
                    break
            rows[y] = full
            nrows += full
        ncols = 0
        for x in range(w):
            full = True
            for y in range(h):
                if g[y, x] != c:
                    full = False
                    break
            cols[x] = full
            ncols += full
        if nrows == 0 and ncols == 0 or nrows == h:
            continue
        ry, rx = _spans(rows), _spans(cols)
        n_lines = nrows + ncols
        n_parts = ry.shape[0] * rx.shape[0]
        if n_parts < 2 or n_parts > max_parts or best >= n_lines:
            continue
        best, best_ry, best_rx = n_lines, ry, rx
    return best_ry, best_rx


@njit
def _commonest(g, a, b, p, q, count_zero):
    """The most frequent colour of g[a:b, p:q] (ties: the lowest), or of its non-zero cells."""
    n = counts(g[a:b, p:q])
    if not count_zero:
        n[0] = 0
    return np.argmax(n)


@njit
def _layout(g, ry, rx, count_zero):
    """One cell per (row span, column span) block: the block's commonest colour (or non-zero colour)."""
    out = np.zeros((ry.shape[0], rx.shape[0]), dtype=np.uint8)
    for i in range(ry.shape[0]):
        for j in range(rx.shape[0]):
            out[i, j] = _commonest(g, ry[i, 0], ry[i, 1], rx[j, 0], rx[j, 1], count_zero)
    return out


@primitive(cost=1, kernel=True)
def cell_colours(g: Grid) -> Grid | None:
    """Cut along separator lines and give each cell its most frequent colour: the layout as a grid."""
    ry, rx = _cuts(g, MAX_PARTS)
    if ry.shape[0] == 0:
        return empty()
    return _layout(g, ry, rx, True)


@primitive(cost=1.5, kernel=True)
def block_colours(g: Grid) -> Grid | None:
    """Cut along empty rows and columns and give each block its most frequent non-zero colour: the layout as a grid."""
    h, w = g.shape
    rows = np.ones(h, dtype=np.bool_)
    cols = np.ones(w, dtype=np.bool_)
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                rows[y] = False
                cols[x] = False
    ry, rx = _spans(rows), _spans(cols)
    n = ry.shape[0] * rx.shape[0]
    if n < 2 or n > MAX_PARTS:
        return empty()
    return _layout(g, ry, rx, False)


@njit
def _cells(ry, rx):
    """The cells (a, b, p, q) of row spans x column spans, in reading order."""
    out = np.empty((ry.shape[0] * rx.shape[0], 4), dtype=np.int64)
    k = 0
    for i in range(ry.shape[0]):
        for j in range(rx.shape[0]):
            out[k, 0], out[k, 1], out[k, 2], out[k, 3] = ry[i, 0], ry[i, 1], rx[j, 0], rx[j, 1]
            k += 1
    return out


@njit
def _equal_cells(cells):
    """Whether all the cells have one size."""
    h, w = cells[0, 1] - cells[0, 0], cells[0, 3] - cells[0, 2]
    for k in range(1, cells.shape[0]):
        if cells[k, 1] - cells[k, 0] != h or cells[k, 3] - cells[k, 2] != w:
            return False
    return True


@njit
def _nonzero_in(g, a, b, p, q):
    """Non-zero cells of g[a:b, p:q]."""
    n = 0
    for y in range(a, b):
        for x in range(p, q):
            if g[y, x] != 0:
                n += 1
    return n


@primitive(cost=1.5, shape="keep", kernel=True)
def spread_cell(g: Grid) -> Grid | None:
    """Cut along separator lines; when one cell alone has content, copy it into every cell."""
    ry, rx = _cuts(g, MAX_PARTS)
    if ry.shape[0] == 0:
        return empty()
    cells = _cells(ry, rx)
    full, nfull = 0, 0
    for k in range(cells.shape[0]):
        if _nonzero_in(g, cells[k, 0], cells[k, 1], cells[k, 2], cells[k, 3]):
            full = k
            nfull += 1
    if nfull != 1 or not _equal_cells(cells):
        return empty()
    a0, p0 = cells[full, 0], cells[full, 2]
    out = g.copy()
    for k in range(cells.shape[0]):
        a, b, p, q = cells[k, 0], cells[k, 1], cells[k, 2], cells[k, 3]
        for y in range(b - a):
            for x in range(q - p):
                out[a + y, p + x] = g[a0 + y, p0 + x]
    return out


@primitive(cost=1.5, shape="keep", kernel=True)
def stamp_first_cell(g: Grid) -> Grid | None:
    """Cut along separator lines; the first cell's shape is drawn in the line colour into every other cell's zeros."""
    ry, rx = _cuts(g, MAX_PARTS)
    if ry.shape[0] == 0:
        return empty()
    cells = _cells(ry, rx)
    if not _equal_cells(cells):
        return empty()
    a0, b0, p0, q0 = cells[0, 0], cells[0, 1], cells[0, 2], cells[0, 3]
    if _nonzero_in(g, a0, b0, p0, q0) == 0:
        return empty()
    line = g[ry[0, 1], p0] if ry.shape[0] > 1 else g[a0, rx[0, 1]]
    out = g.copy()
    for k in range(1, cells.shape[0]):
        a, p = cells[k, 0], cells[k, 2]
        for y in range(b0 - a0):
            for x in range(q0 - p0):
                if g[a0 + y, p0 + x] != 0 and out[a + y, p + x] == 0:
                    out[a + y, p + x] = line
    return out


@primitive(cost=1.5, shape="keep", kernel=True)
def fill_fullest_cells(g: Grid) -> Grid | None:
    """Cut along separator lines; the cells with the most coloured cells fill with their colour, the rest clear."""
    ry, rx = _cuts(g, MAX_PARTS)
    if ry.shape[0] == 0:
        return empty()
    cells = _cells(ry, rx)
    n = np.empty(cells.shape[0], dtype=np.int64)
    for k in range(cells.shape[0]):
        n[k] = _nonzero_in(g, cells[k, 0], cells[k, 1], cells[k, 2], cells[k, 3])
    most = n.max()
    if most == 0:
        return empty()
    out = g.copy()
    for k in range(cells.shape[0]):
        a, b, p, q = cells[k, 0], cells[k, 1], cells[k, 2], cells[k, 3]
        c = _commonest(g, a, b, p, q, False) if n[k] == most else 0
        for y in range(a, b):
            for x in range(p, q):
                out[y, x] = c
    return out


_connect = connect.kernel


@primitive(cost=1.5, shape="keep", kernel=True)
def connect_cells(g: Grid) -> Grid | None:
    """Cut along separator lines; cells between two cells of one colour in a row or column of cells fill with it."""
    ry, rx = _cuts(g, MAX_SIDE * MAX_SIDE)
    if ry.shape[0] == 0:
        return empty()
    layout = _layout(g, ry, rx, False)
    joined = _connect(layout)  # the `connect` kernel on the layout of cells
    out = g.copy()
    for i in range(ry.shape[0]):
        for j in range(rx.shape[0]):
            if joined[i, j] != layout[i, j]:
                for y in range(ry[i, 0], ry[i, 1]):
                    for x in range(rx[j, 0], rx[j, 1]):
                        out[y, x] = joined[i, j]
    return out


@primitive(cost=2, params="colours", kernel=True)
def gather_at(g: Grid, c: Color) -> Grid | None:
    """The 3 x 3 windows centred on each cell of colour c, painted over each other into one."""
    h, w = g.shape
    n = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                n += 1
    if not 2 <= n <= MAX_PARTS:
        return empty()
    out = np.zeros((3, 3), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            if g[y, x] != c:
                continue
            for dy in range(3):
                for dx in range(3):
                    yy, xx = y + dy - 1, x + dx - 1
                    if yy < 0 or yy >= h or xx < 0 or xx >= w:
                        continue
                    v = g[yy, xx]
                    if v == 0:
                        continue
                    if out[dy, dx] != 0 and out[dy, dx] != v:
                        return empty()
                    out[dy, dx] = v
    return out


@primitive(GRIDS, GRID, cost=1.5)
def key_paint(parts: Grids) -> Grid | None:
    """The largest part's shape coloured by the smallest non-empty part (a colour key) blown up to its size."""
    full = [p for p in parts if p.any()]
    if len(full) < 2:
        return None
    key = min(full, key=lambda p: p.size)
    shape = max(full, key=lambda p: p.size)
    if key.size == shape.size or shape.shape[0] % key.shape[0] or shape.shape[1] % key.shape[1] or not key.all():
        return None
    big = np.kron(key, np.ones((shape.shape[0] // key.shape[0], shape.shape[1] // key.shape[1]), dtype=np.uint8))
    return np.where(shape != 0, big, 0).astype(np.uint8)


def _equal_spans(n: int, k: int) -> list[tuple[int, int]] | None:
    if n % k == 0:
        s = n // k
        return [(i * s, (i + 1) * s) for i in range(k)]
    if (n - (k - 1)) % k == 0:  # k parts with one-cell separators between
        s = (n - (k - 1)) // k
        return [(i * (s + 1), i * (s + 1) + s) for i in range(k)]
    return None


@primitive(GRID, GRIDS, cost=1, params=((1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (3, 3)))
def split_grid(g: Grid, ry: int, rx: int) -> Grids | None:
    """Cut into ry x rx equal parts (skipping one-cell separators), reading order."""
    ys, xs = _equal_spans(g.shape[0], ry), _equal_spans(g.shape[1], rx)
    if ys is None or xs is None or ys[0][1] - ys[0][0] < 1 or xs[0][1] - xs[0][0] < 1:
        return None
    return tuple(g[a:b, p:q].copy() for a, b in ys for p, q in xs)


def _same_shape(parts: Grids) -> bool:
    return len(parts) >= 2 and all(p.shape == parts[0].shape for p in parts)


@primitive(GRIDS, GRID, cost=1)
def overlay(parts: Grids) -> Grid | None:
    """Paint the parts on top of each other, later parts over earlier ones (0 is clear)."""
    if not _same_shape(parts):
        return None
    out = parts[0].copy()
    for p in parts[1:]:
        out = np.where(p != 0, p, out)
    return out.astype(np.uint8)


@primitive(GRIDS, GRID, search=False)
def overlay_order(parts: Grids, order: tuple) -> Grid | None:
    """Paint the parts in a learned order of their indices, later over earlier (0 is clear)."""
    if len(order) != len(parts):
        return None
    return overlay(tuple(parts[i] for i in order))


@primitive(GRIDS, GRID, cost=1.5)
def overlay_reversed(parts: Grids) -> Grid | None:
    """Paint the parts on top of each other, earlier parts over later ones."""
    return overlay(parts[::-1]) if parts else None


def _masks(parts: Grids) -> np.ndarray | None:
    """Non-zero masks of two or more same-shaped parts, stacked."""
    if not _same_shape(parts):
        return None
    return np.stack([p != 0 for p in parts])


def _two(parts: Grids) -> tuple[np.ndarray, np.ndarray] | None:
    if len(parts) != 2 or parts[0].shape != parts[1].shape:
        return None
    return parts[0] != 0, parts[1] != 0


def _marked(m: np.ndarray) -> Grid:
    return np.where(m, MARKER, 0).astype(np.uint8)


@primitive(GRIDS, GRID, cost=1)
def and_parts(parts: Grids) -> Grid | None:
    """Mark cells non-zero in every part."""
    m = _masks(parts)
    return None if m is None else _marked(m.all(axis=0))


@primitive(GRIDS, GRID, cost=1)
def or_parts(parts: Grids) -> Grid | None:
    """Mark cells non-zero in any part."""
    m = _masks(parts)
    return None if m is None else _marked(m.any(axis=0))


@primitive(GRIDS, GRID, cost=1)
def xor_parts(parts: Grids) -> Grid | None:
    """Mark cells non-zero in exactly one part."""
    m = _masks(parts)
    return None if m is None else _marked(m.sum(axis=0) == 1)


@primitive(GRIDS, GRID, cost=1)
def nor_parts(parts: Grids) -> Grid | None:
    """Mark cells zero in every part."""
    m = _masks(parts)
    return None if m is None else _marked(~m.any(axis=0))


@primitive(GRIDS, GRID, cost=1.5)
def vote_parts(parts: Grids) -> Grid | None:
    """Each cell takes the colour most parts agree on there (ties to the lowest colour)."""
    if not _same_shape(parts) or len(parts) < 3:
        return None
    stack = np.stack(parts)
    counts = np.stack([(stack == c).sum(axis=0) for c in range(10)])
    return counts.argmax(axis=0).astype(np.uint8)


@primitive(GRIDS, GRID, cost=1)
def diff_parts(parts: Grids) -> Grid | None:
    """Mark cells non-zero in the first of two parts and zero in the second."""
    ab = _two(parts)
    return None if ab is None else _marked(ab[0] & ~ab[1])


@primitive(GRIDS, GRID, cost=1.5)
def stack_across(parts: Grids) -> Grid | None:
    """Put the parts side by side (equal heights)."""
    if not parts or any(p.shape[0] != parts[0].shape[0] for p in parts):
        return None
    out = np.hstack(parts)
    return out if out.shape[1] <= MAX_SIDE else None


@primitive(GRIDS, GRID, cost=1.5)
def stack_down(parts: Grids) -> Grid | None:
    """Put the parts one above the other (equal widths)."""
    if not parts or any(p.shape[1] != parts[0].shape[1] for p in parts):
        return None
    out = np.vstack(parts)
    return out if out.shape[0] <= MAX_SIDE else None


@primitive(GRIDS, GRID, cost=1.5)
def kron_parts(parts: Grids) -> Grid | None:
    """Two parts, one of a single colour: each coloured cell of the other becomes a copy of that shape in its colour."""
    if len(parts) != 2 or parts[0].shape != parts[1].shape:
        return None
    single = [len(np.unique(p[p != 0])) == 1 for p in parts]
    if single[0] == single[1]:
        return None
    shape, colours = (parts[0], parts[1]) if single[0] else (parts[1], parts[0])
    out = np.kron(colours, (shape != 0).astype(np.uint8))
    return out if max(out.shape) <= MAX_SIDE else None
