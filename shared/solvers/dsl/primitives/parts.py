"""Part primitives: cutting a grid into cells along separator lines or into equal parts, and
putting parts back together (overlay, vote, logical and/or/xor, side by side).

Logical combinations mark their true cells with the marker colour, so a learned recolour at
the end picks the output colour from the demos.

The splits and joins are list kernels (see `shared.solvers.dsl.primitives.kernels`): a split
returns its parts packed as (buf, meta), `no_parts()` where it does not apply; a join reads
packed parts and returns a new grid, `empty()` where it does not apply.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import (
    argmax_count,
    bbox_nonzero,
    counts,
    empty,
    find_uniform_lines,
    label,
    label_boxes,
    new_parts,
    no_parts,
    part,
    paste,
    swap_zero,
    uniform_lines,
)
from shared.solvers.dsl.primitives.lines import connect
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import GRID, GRIDS, MARKER, MAX_PARTS, MAX_SIDE, Color, Grid, Grids


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
        nrows, ncols = find_uniform_lines(g, c, rows, cols)
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
def _cut_cells(g, ry, rx):
    """The blocks g[a:b, p:q] of row spans x column spans, in reading order, as packed parts."""
    n = ry.shape[0] * rx.shape[0]
    hs = np.empty(n, dtype=np.int64)
    ws = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(ry.shape[0]):
        for j in range(rx.shape[0]):
            hs[k] = ry[i, 1] - ry[i, 0]
            ws[k] = rx[j, 1] - rx[j, 0]
            k += 1
    buf, meta = new_parts(hs, ws)
    k = 0
    for i in range(ry.shape[0]):
        for j in range(rx.shape[0]):
            off, a, p, w = meta[k, 0], ry[i, 0], rx[j, 0], ws[k]
            for y in range(hs[k]):
                for x in range(w):
                    buf[off + y * w + x] = g[a + y, p + x]
            k += 1
    return buf, meta


@primitive(GRID, GRIDS, cost=1, kernel=True)
def split_lines(g: Grid) -> Grids | None:
    """Cut along full lines of one non-zero colour (the one with most lines) into cells, reading order."""
    ry, rx = _cuts(g, MAX_PARTS)
    if ry.shape[0] == 0:
        return no_parts()
    return _cut_cells(g, ry, rx)


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
    rows, cols = uniform_lines(g, 0)
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


@njit
def equal_panels(g):
    """_cuts with any count of panels, all of one size: (row spans, column spans), no rows in either if not."""
    ry, rx = _cuts(g, MAX_SIDE * MAX_SIDE)
    if ry.shape[0] == 0:
        return ry, rx
    if ((ry[:, 1] - ry[:, 0]) != ry[0, 1] - ry[0, 0]).any() or ((rx[:, 1] - rx[:, 0]) != rx[0, 1] - rx[0, 0]).any():
        return ry[:0], rx[:0]
    return ry, rx


@primitive(cost=2, shape="keep", kernel=True)
def connect_panels(g: Grid) -> Grid | None:
    """Cut along separator lines into equal panels; join equal cells at one place of panels in a row or column."""
    # `connect_cells` for panels with cells of their own (1 x 1 panels are its case, left to it)
    ry, rx = equal_panels(g)
    if ry.shape[0] == 0:
        return empty()
    ph, pw = ry[0, 1] - ry[0, 0], rx[0, 1] - rx[0, 0]
    if ph * pw < 2:
        return empty()
    out = g.copy()
    layout = np.zeros((ry.shape[0], rx.shape[0]), dtype=np.uint8)
    changed = False
    for py in range(ph):
        for px in range(pw):
            for i in range(ry.shape[0]):
                for j in range(rx.shape[0]):
                    layout[i, j] = g[ry[i, 0] + py, rx[j, 0] + px]
            joined = _connect(layout)
            for i in range(ry.shape[0]):
                for j in range(rx.shape[0]):
                    if joined[i, j] != layout[i, j]:
                        out[ry[i, 0] + py, rx[j, 0] + px] = joined[i, j]
                        changed = True
    return out if changed else empty()


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


@njit
def _size(meta, i):
    """Cells of part i."""
    return meta[i, 1] * meta[i, 2]


@njit
def _any_nonzero(buf, meta, i):
    """Whether part i has a non-zero cell."""
    off = meta[i, 0]
    for j in range(_size(meta, i)):
        if buf[off + j] != 0:
            return True
    return False


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def key_paint(buf, meta) -> Grid | None:
    """The largest part's shape coloured by the smallest non-empty part (a colour key) blown up to its size."""
    key, shape, nfull = -1, -1, 0
    for i in range(meta.shape[0]):
        if not _any_nonzero(buf, meta, i):
            continue
        nfull += 1
        if key < 0 or _size(meta, i) < _size(meta, key):  # the first of the smallest
            key = i
        if shape < 0 or _size(meta, i) > _size(meta, shape):  # the first of the largest
            shape = i
    if nfull < 2:
        return empty()
    kh, kw, sh, sw = meta[key, 1], meta[key, 2], meta[shape, 1], meta[shape, 2]
    if kh * kw == sh * sw or sh % kh != 0 or sw % kw != 0:
        return empty()
    ko, so = meta[key, 0], meta[shape, 0]
    for j in range(kh * kw):
        if buf[ko + j] == 0:
            return empty()
    fy, fx = sh // kh, sw // kw
    out = np.zeros((sh, sw), dtype=np.uint8)
    for y in range(sh):
        for x in range(sw):
            if buf[so + y * sw + x] != 0:
                out[y, x] = buf[ko + (y // fy) * kw + x // fx]
    return out


@njit
def _equal_spans(n, k):
    """(start of span i = i * step, span length) for k equal spans of n cells, with one-cell
    separators between them where k does not divide n; length 0 where they do not fit."""
    if n % k == 0:
        return n // k, n // k
    m = n - (k - 1)  # k parts with one-cell separators between
    if m > 0 and m % k == 0:
        return m // k + 1, m // k
    return 0, 0


@primitive(GRID, GRIDS, cost=1, params=((1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (3, 3)), kernel=True)
def split_grid(g: Grid, ry: int, rx: int) -> Grids | None:
    """Cut into ry x rx equal parts (skipping one-cell separators), reading order."""
    return _split_equal(g, ry, rx)


@primitive(GRID, GRIDS, cost=1, kernel=True)
def split_halves(g: Grid) -> Grids | None:
    """Cut into two equal halves across the longer side (left, right or top, bottom); none when square."""
    h, w = g.shape
    if h == w:
        return no_parts()
    return _split_equal(g, 2 if h > w else 1, 1 if h > w else 2)


@njit
def _split_equal(g, ry, rx):
    h, w = g.shape
    stepy, sy = _equal_spans(h, ry)
    stepx, sx = _equal_spans(w, rx)
    if sy < 1 or sx < 1:
        return no_parts()
    ys = np.empty((ry, 2), dtype=np.int64)
    xs = np.empty((rx, 2), dtype=np.int64)
    for i in range(ry):
        ys[i, 0], ys[i, 1] = i * stepy, i * stepy + sy
    for j in range(rx):
        xs[j, 0], xs[j, 1] = j * stepx, j * stepx + sx
    return _cut_cells(g, ys, xs)


@njit
def _same_shape(meta):
    """Whether there are two or more parts, all of one shape."""
    n = meta.shape[0]
    if n < 2:
        return False
    for i in range(1, n):
        if meta[i, 1] != meta[0, 1] or meta[i, 2] != meta[0, 2]:
            return False
    return True


@njit
def _paint(buf, meta, reverse):
    """The parts painted over each other in order (or in reverse), later over earlier, 0 clear."""
    if not _same_shape(meta):
        return empty()
    n, h, w = meta.shape[0], meta[0, 1], meta[0, 2]
    out = np.zeros((h, w), dtype=np.uint8)
    for k in range(n):
        off = meta[n - 1 - k if reverse else k, 0]
        for y in range(h):
            for x in range(w):
                v = buf[off + y * w + x]
                if v != 0:
                    out[y, x] = v
    return out


@primitive(GRIDS, GRID, cost=1, kernel=True)
def overlay(buf, meta) -> Grid | None:
    """Paint the parts on top of each other, later parts over earlier ones (0 is clear)."""
    return _paint(buf, meta, False)


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def overlay_marks(buf, meta) -> Grid | None:
    """Parts of one shape laid over each other, each part's own most common colour see-through."""
    if not _same_shape(meta):
        return empty()
    n, h, w = meta.shape[0], meta[0, 1], meta[0, 2]
    tally = np.zeros(256, dtype=np.int64)
    total = np.zeros(256, dtype=np.int64)
    own = np.zeros(n, dtype=np.int64)
    for k in range(n):
        tally[:] = 0
        for j in range(h * w):
            tally[buf[meta[k, 0] + j]] += 1
        own[k] = np.argmax(tally)
        total += tally
    out = np.full((h, w), np.argmax(total), dtype=np.uint8)
    hit = False
    for k in range(n):
        for y in range(h):
            for x in range(w):
                v = buf[meta[k, 0] + y * w + x]
                if v != own[k]:
                    out[y, x] = v
                    hit = True
    if not hit:
        return empty()
    return out


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def overlay_centred(buf, meta) -> Grid | None:
    """Each part's content cropped and centred on the largest box, painted largest box first."""
    n = meta.shape[0]
    box = np.zeros((n, 4), dtype=np.int64)  # top, left, bottom, right (end-exclusive) of each part's content
    big_h, big_w, k = 0, 0, 0
    for i in range(n):
        box[i, 0], box[i, 1], box[i, 2], box[i, 3] = bbox_nonzero(part(buf, meta, i))
        if box[i, 2] > 0:
            big_h, big_w, k = max(big_h, box[i, 2] - box[i, 0]), max(big_w, box[i, 3] - box[i, 1]), k + 1
    if k < 2:
        return empty()
    hs, ws = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
    for i in range(n):
        if box[i, 2] > 0 and ((big_h - hs[i]) % 2 or (big_w - ws[i]) % 2):
            return empty()
    out = np.zeros((big_h, big_w), dtype=np.uint8)
    for i in np.argsort(-hs * ws, kind="mergesort"):
        if box[i, 2] > 0:
            content = part(buf, meta, i)[box[i, 0]:box[i, 2], box[i, 1]:box[i, 3]]
            view = out[(big_h - hs[i]) // 2:(big_h + hs[i]) // 2, (big_w - ws[i]) // 2:(big_w + ws[i]) // 2]
            for y in range(hs[i]):
                for x in range(ws[i]):
                    if content[y, x] != 0:
                        view[y, x] = content[y, x]
    return out


@primitive(GRIDS, GRID, search=False)
def overlay_order(parts: Grids, order: tuple) -> Grid | None:
    """Paint the parts in a learned order of their indices, later over earlier (0 is clear)."""
    if len(order) != len(parts):
        return None
    return overlay(tuple(parts[i] for i in order))


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def overlay_reversed(buf, meta) -> Grid | None:
    """Paint the parts on top of each other, earlier parts over later ones."""
    return _paint(buf, meta, True)


_AND, _OR, _XOR, _NOR, _DIFF = 0, 1, 2, 3, 4  # the logical joins, as _logic receives them


@njit
def _logic(buf, meta, op):
    """Mark with MARKER the cells where the parts' non-zero cells meet the condition `op`: two or
    more parts of one shape (_DIFF: exactly two)."""
    if not _same_shape(meta) or op == _DIFF and meta.shape[0] != 2:
        return empty()
    n, h, w = meta.shape[0], meta[0, 1], meta[0, 2]
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            k = 0  # parts non-zero here
            for i in range(n):
                if buf[meta[i, 0] + y * w + x] != 0:
                    k += 1
            if op == _AND:
                on = k == n
            elif op == _OR:
                on = k > 0
            elif op == _XOR:
                on = k == 1
            elif op == _NOR:
                on = k == 0
            else:
                on = buf[meta[0, 0] + y * w + x] != 0 and buf[meta[1, 0] + y * w + x] == 0
            if on:
                out[y, x] = MARKER
    return out


@primitive(GRIDS, GRID, cost=1, kernel=True)
def and_parts(buf, meta) -> Grid | None:
    """Mark cells non-zero in every part."""
    return _logic(buf, meta, _AND)


@primitive(GRIDS, GRID, cost=1, kernel=True)
def or_parts(buf, meta) -> Grid | None:
    """Mark cells non-zero in any part."""
    return _logic(buf, meta, _OR)


@primitive(GRIDS, GRID, cost=1, kernel=True)
def xor_parts(buf, meta) -> Grid | None:
    """Mark cells non-zero in exactly one part."""
    return _logic(buf, meta, _XOR)


@primitive(GRIDS, GRID, cost=1, kernel=True)
def nor_parts(buf, meta) -> Grid | None:
    """Mark cells zero in every part."""
    return _logic(buf, meta, _NOR)


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def vote_parts(buf, meta) -> Grid | None:
    """Each cell takes the colour most parts agree on there (ties to the lowest colour)."""
    if not _same_shape(meta) or meta.shape[0] < 3:
        return empty()
    n, h, w = meta.shape[0], meta[0, 1], meta[0, 2]
    out = np.zeros((h, w), dtype=np.uint8)
    votes = np.zeros(10, dtype=np.int64)
    for y in range(h):
        for x in range(w):
            votes[:] = 0
            for i in range(n):
                v = buf[meta[i, 0] + y * w + x]
                if v < 10:  # colours 0-9 vote; a marker does not
                    votes[v] += 1
            best = 0
            for c in range(1, 10):
                if votes[c] > votes[best]:
                    best = c
            out[y, x] = best
    return out


@primitive(GRIDS, GRID, cost=1, kernel=True)
def diff_parts(buf, meta) -> Grid | None:
    """Mark cells non-zero in the first of two parts and zero in the second."""
    return _logic(buf, meta, _DIFF)


@njit
def _stack(buf, meta, across):
    """The parts side by side (across) or one above the other, when they line up and fit."""
    n = meta.shape[0]
    if n == 0:
        return empty()
    along = 1 if across else 2  # the side that must agree: heights across, widths down
    total = 0
    for i in range(n):
        if meta[i, along] != meta[0, along]:
            return empty()
        total += meta[i, 3 - along]
    if total > MAX_SIDE:
        return empty()
    h, w = (meta[0, 1], total) if across else (total, meta[0, 2])
    out = np.zeros((h, w), dtype=np.uint8)
    at = 0
    for i in range(n):
        off, ph, pw = meta[i, 0], meta[i, 1], meta[i, 2]
        for y in range(ph):
            for x in range(pw):
                if across:
                    out[y, at + x] = buf[off + y * pw + x]
                else:
                    out[at + y, x] = buf[off + y * pw + x]
        at += pw if across else ph
    return out


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def stack_across(buf, meta) -> Grid | None:
    """Put the parts side by side (equal heights)."""
    return _stack(buf, meta, True)


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def stack_down(buf, meta) -> Grid | None:
    """Put the parts one above the other (equal widths)."""
    return _stack(buf, meta, False)


@njit
def _single_colour(buf, meta, i):
    """Whether part i's non-zero cells are all of one colour (and there are some)."""
    off, c = meta[i, 0], 0
    for j in range(meta[i, 1] * meta[i, 2]):
        v = buf[off + j]
        if v != 0:
            if c == 0:
                c = v
            elif v != c:
                return False
    return c != 0


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def kron_parts(buf, meta) -> Grid | None:
    """Two parts, one of a single colour: each coloured cell of the other becomes a copy of that shape in its colour."""
    if meta.shape[0] != 2 or meta[0, 1] != meta[1, 1] or meta[0, 2] != meta[1, 2]:
        return empty()
    s0, s1 = _single_colour(buf, meta, 0), _single_colour(buf, meta, 1)
    if s0 == s1:
        return empty()
    h, w = meta[0, 1], meta[0, 2]
    if h * h > MAX_SIDE or w * w > MAX_SIDE:
        return empty()
    so, co = (meta[0, 0], meta[1, 0]) if s0 else (meta[1, 0], meta[0, 0])
    out = np.zeros((h * h, w * w), dtype=np.uint8)
    for i in range(h):
        for j in range(w):
            c = buf[co + i * w + j]
            if c == 0:
                continue
            for y in range(h):
                for x in range(w):
                    if buf[so + y * w + x] != 0:
                        out[i * h + y, j * w + x] = c
    return out


@njit
def _self_sized(ry, rx):
    """Whether every panel between the cuts has as many rows as there are rows of panels, and as many columns as
    columns of panels (a panel can then stand for the layout, one cell per panel)."""
    for i in range(ry.shape[0]):
        if ry[i, 1] - ry[i, 0] != ry.shape[0]:
            return False
    for j in range(rx.shape[0]):
        if rx[j, 1] - rx[j, 0] != rx.shape[0]:
            return False
    return True


@primitive(cost=2, params=((False,), (True,)), shape="keep", first=True, kernel=True)
def panels_from_key(g: Grid, fullest: bool) -> Grid | None:
    """Separated panels, as many as a panel's cells: each takes its cell's colour in the emptiest (or fullest) one."""
    ry, rx = _cuts(g, MAX_PARTS)
    nr, nc = ry.shape[0], rx.shape[0]
    if nr * nc < 2 or not _self_sized(ry, rx):
        return empty()
    best, key, ties = -1, -1, 0
    for i in range(nr):
        for j in range(nc):
            zeros = counts(g[ry[i, 0]:ry[i, 1], rx[j, 0]:rx[j, 1]])[0]
            score = nr * nc - zeros if fullest else zeros
            if score > best:
                best, key, ties = score, i * nc + j, 0
            elif score == best:
                ties += 1
    if ties > 0:
        return empty()
    ky, kx = ry[key // nc, 0], rx[key % nc, 0]
    out = g.copy()
    for i in range(nr):
        for j in range(nc):
            out[ry[i, 0]:ry[i, 1], rx[j, 0]:rx[j, 1]] = g[ky + i, kx + j]
    return out


@primitive(cost=2, shape="keep", first=True, kernel=True)
def mark_three_panels(g: Grid) -> Grid | None:
    """The zeros of the top left, middle and bottom right panels (odd counts each way) marked with three markers."""
    ry, rx = _cuts(g, MAX_PARTS)
    nr, nc = ry.shape[0], rx.shape[0]
    if nr % 2 == 0 or nc % 2 == 0 or nr * nc < 9:
        return empty()
    out = g.copy()
    for k, (i, j) in enumerate(((0, 0), (nr // 2, nc // 2), (nr - 1, nc - 1))):
        for y in range(ry[i, 0], ry[i, 1]):
            for x in range(rx[j, 0], rx[j, 1]):
                if out[y, x] == 0:
                    out[y, x] = MARKER + k
    return out


@primitive(cost=2, params="colours", shape="keep", first=True, kernel=True)
def route_panel(g: Grid, c: Color) -> Grid | None:
    """The panel holding the one cell of colour c moves to the panel at that cell's place in it; the rest clear."""
    ry, rx = _cuts(g, MAX_PARTS)
    nr, nc = ry.shape[0], rx.shape[0]
    if nr * nc < 2 or counts(g)[c] != 1 or not _self_sized(ry, rx):
        return empty()
    out = g.copy()
    for i in range(nr):
        for j in range(nc):
            out[ry[i, 0]:ry[i, 1], rx[j, 0]:rx[j, 1]] = 0
    for i in range(nr):
        for j in range(nc):
            for y in range(nr):
                for x in range(nc):
                    if g[ry[i, 0] + y, rx[j, 0] + x] == c:
                        paste(out, ry[y, 0], rx[x, 0], g[ry[i, 0]:ry[i, 1], rx[j, 0]:rx[j, 1]])
                        return out
    return empty()


@njit
def _full_lines(g, axis):
    """Indices of the rows (axis 0) or columns (axis 1) that hold no zero cell."""
    n, m = (g.shape[0], g.shape[1]) if axis == 0 else (g.shape[1], g.shape[0])
    out = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n):
        full = True
        for j in range(m):
            if (g[i, j] if axis == 0 else g[j, i]) == 0:
                full = False
                break
        if full:
            out[k] = i
            k += 1
    return out[:k]


@primitive(cost=2, kernel=True)
def lattice_cells(g: Grid) -> Grid | None:
    """Lattice lines' crossings marked in colours: each lattice cell whose four corners share one mark takes it."""
    ry, rx = _full_lines(g, 0), _full_lines(g, 1)
    nr, nc = ry.shape[0], rx.shape[0]
    if nr < 2 or nc < 2 or nr == g.shape[0] or nc == g.shape[1]:
        return empty()
    n = np.zeros(256, dtype=np.int64)  # by colour, markers included
    for y in ry:
        for x in range(g.shape[1]):
            n[g[y, x]] += 1
    line = np.argmax(n)
    i0, i1, j0, j1 = nr, -1, nc, -1
    for i in range(nr):
        for j in range(nc):
            if g[ry[i], rx[j]] != line:
                i0, i1, j0, j1 = min(i0, i), max(i1, i), min(j0, j), max(j1, j)
    if i1 <= i0 or j1 <= j0:
        return empty()
    out = np.zeros((i1 - i0, j1 - j0), dtype=g.dtype)
    for i in range(i0, i1):
        for j in range(j0, j1):
            c = g[ry[i], rx[j]]
            if (c != line and g[ry[i + 1], rx[j]] == c and g[ry[i], rx[j + 1]] == c
                    and g[ry[i + 1], rx[j + 1]] == c):
                out[i - i0, j - j0] = c
    return out


@njit
def _panel_content(g, a, b, p, q):
    """The box (top, left, side) of the non-zero cells of g[a:b, p:q] when it is square; side 0 otherwise."""
    y0, x0, y1, x1 = bbox_nonzero(g[a:b, p:q])
    if y1 < 0 or y1 - y0 != x1 - x0:
        return a, p, 0
    return a + y0, p + x0, y1 - y0


@primitive(cost=2, first=True, kernel=True)
def kron_key_panels(g: Grid) -> Grid | None:
    """Four panels: shapes A and B, solid colours C and D. B's layout of copies of A, in C on D."""
    ry, rx = _cuts(g, MAX_PARTS)
    if ry.shape[0] != 1 or rx.shape[0] != 4:
        return empty()
    a, b = ry[0, 0], ry[0, 1]
    tops = np.empty(4, dtype=np.int64)
    lefts = np.empty(4, dtype=np.int64)
    k = 0
    for j in range(4):
        tops[j], lefts[j], side = _panel_content(g, a, b, rx[j, 0], rx[j, 1])
        if side == 0 or (j > 0 and side != k):
            return empty()
        k = side
    if k * k > MAX_SIDE:
        return empty()
    c, d = g[tops[2], lefts[2]], g[tops[3], lefts[3]]
    if c == d:
        return empty()
    for j in range(2, 4):
        for y in range(k):
            for x in range(k):
                if g[tops[j] + y, lefts[j] + x] != g[tops[j], lefts[j]]:
                    return empty()
    out = np.full((k * k, k * k), d, dtype=np.uint8)
    for i in range(k):
        for j in range(k):
            if g[tops[1] + i, lefts[1] + j] == 0:
                continue
            for y in range(k):
                for x in range(k):
                    if g[tops[0] + y, lefts[0] + x] != 0:
                        out[i * k + y, j * k + x] = c
    return out


@njit
def _box_layout(labels, n, h, w):
    """(rows, columns, tops, lefts) of the components of a label grid that do not touch the border,
    when their top rows and left columns lay them out as a full grid of rows x columns, one per
    place; rows 0 otherwise. tops and lefts hold the distinct values, sorted."""
    box = label_boxes(labels, n)
    inner = 0
    for i in range(1, n + 1):
        if box[i, 0] > 0 and box[i, 1] > 0 and box[i, 2] < h - 1 and box[i, 3] < w - 1:
            inner += 1
    none = np.zeros(0, dtype=np.int64)
    if inner < 2:
        return 0, 0, none, none
    tops = np.empty(inner, dtype=np.int64)
    lefts = np.empty(inner, dtype=np.int64)
    k = 0
    for i in range(1, n + 1):
        if box[i, 0] > 0 and box[i, 1] > 0 and box[i, 2] < h - 1 and box[i, 3] < w - 1:
            tops[k], lefts[k] = box[i, 0], box[i, 1]
            k += 1
    ut, ul = np.unique(tops), np.unique(lefts)
    if ut.shape[0] * ul.shape[0] != inner:
        return 0, 0, none, none
    seen = np.zeros((ut.shape[0], ul.shape[0]), dtype=np.bool_)
    for k in range(inner):
        i, j = np.searchsorted(ut, tops[k]), np.searchsorted(ul, lefts[k])
        if seen[i, j]:
            return 0, 0, none, none
        seen[i, j] = True
    return ut.shape[0], ul.shape[0], ut, ul


@primitive(cost=2, kernel=True)
def box_marks(g: Grid) -> Grid | None:
    """Boxes in rows and columns on a background: the layout as a grid: each box's marked colour, else its own."""
    h, w = g.shape
    n = counts(g)
    rows, cols, k = 0, 0, 0
    labels = np.zeros((h, w), dtype=np.int32)
    tops = lefts = np.zeros(0, dtype=np.int64)
    for b in range(10):  # the background: the colour that leaves the most boxes, laid out in full
        if n[b] == 0:
            continue
        lab, m = label(swap_zero(g, b) if b != 0 else g, True, False)
        r, c, t, lf = _box_layout(lab, m, h, w)
        if r * c > rows * cols:
            rows, cols, k, labels, tops, lefts = r, c, m, lab, t, lf
    if rows == 0:
        return empty()
    box = label_boxes(labels, k)
    out = np.zeros((rows, cols), dtype=np.uint8)
    for i in range(1, k + 1):
        if box[i, 0] == 0 or box[i, 1] == 0 or box[i, 2] == h - 1 or box[i, 3] == w - 1:
            continue
        m = np.zeros(256, dtype=np.int64)
        for y in range(box[i, 0], box[i, 2] + 1):
            for x in range(box[i, 1], box[i, 3] + 1):
                if labels[y, x] == i:
                    m[g[y, x]] += 1
        frame = argmax_count(m)
        m[frame] = 0
        mark = argmax_count(m)
        out[np.searchsorted(tops, box[i, 0]), np.searchsorted(lefts, box[i, 1])] = mark if m[mark] > 0 else frame
    return out


@primitive(cost=2, shape="change", kernel=True)
def halves_apart(g: Grid) -> Grid | None:
    """A small grid's halves pulled apart by a marker row, the top shifted left of the bottom by a marker column."""
    h, w = g.shape
    if h % 2 or h > 10 or w > 10:
        return empty()
    k = h // 2
    out = np.full((h + 1, w + 1), MARKER, dtype=np.uint8)
    paste(out, 0, 0, g[:k])
    paste(out, k + 1, 1, g[k:])
    return out
