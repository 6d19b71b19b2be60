"""Small compiled helpers the primitives' kernels share: the empty answer, colour counts,
bounding boxes and connected components, on uint8 grids.

A kernel returns a new C-contiguous uint8 grid, or `empty()` (shape 0 x 0) where it does not
apply; the registry's wrapper turns that into None for Python callers.

A list of parts (objects, cells) is held packed: `buf`, a uint8 array with every part's cells
one after the other, and `meta`, an int64 (n, 3) array of each part's offset in buf, height and
width. `new_parts` makes room for parts of given shapes, `part` is one of them as a 2-D view,
`no_parts` is the empty list (a split's "does not apply"); `pack` and `unpack` convert from and
to a tuple of grids in Python.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit

NCOLOURS = 16  # colours 0-9 and the markers above them


@njit
def empty():
    """The 0 x 0 grid: the kernel's way of saying "does not apply"."""
    return np.zeros((0, 0), dtype=np.uint8)


@njit
def turned_back(t):
    """A grid worked out on the transpose, turned back; the empty answer stays empty."""
    return t.T.copy() if t.size else empty()


@njit
def first_cells(g, c, k):
    """(rows, columns, n) of the first k cells of colour c in reading order (any non-zero colour when
    c < 0); n counts them up to k + 1, so n = k + 1 means there are more than k."""
    h, w = g.shape
    ys = np.empty(k, dtype=np.int64)
    xs = np.empty(k, dtype=np.int64)
    n = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] == c or (c < 0 and g[y, x] != 0):
                if n == k:
                    return ys, xs, k + 1
                ys[n], xs[n] = y, x
                n += 1
    return ys, xs, n


@njit
def box_corners(g, c):
    """(top, bottom, left, right) of a box whose four corners are the only cells of colour c (the only
    non-zero cells when c < 0); top = -1 when they are not."""
    ys, xs, k = first_cells(g, c, 4)
    if k != 4 or ys[1] != ys[0] or ys[3] != ys[2] or xs[2] != xs[0] or xs[3] != xs[1] or ys[2] == ys[0]:
        return -1, -1, -1, -1
    return ys[0], ys[3], xs[0], xs[1]  # reading order: the top pair, then the bottom pair


@njit
def lone_cell(g, y, x):
    """Whether the cell (y, x) has no non-zero cell among its eight neighbours."""
    h, w = g.shape
    for ny in range(max(y - 1, 0), min(y + 2, h)):
        for nx in range(max(x - 1, 0), min(x + 2, w)):
            if (ny != y or nx != x) and g[ny, nx] != 0:
                return False
    return True


@njit
def counts(g):
    """Cells per colour (int64), indexed by the colour: 256 entries, so that no cell value can
    index past the end (colours are 0-9, markers 10-15)."""
    out = np.zeros(256, dtype=np.int64)
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            out[g[y, x]] += 1
    return out


@njit
def two_colours(n):
    """The two non-zero colours of a `counts` array, the lower first, when it holds exactly two; else (0, 0)."""
    a, b, k = 0, 0, 0
    for c in range(1, n.shape[0]):
        if n[c]:
            k += 1
            if k == 1:
                a = c
            else:
                b = c
    return (a, b) if k == 2 else (0, 0)


@njit
def argmax_count(n):
    """The colour with the most cells in a `counts` array (ties: the lowest)."""
    best = 0
    for c in range(1, n.shape[0]):
        if n[c] > n[best]:
            best = c
    return best


@njit
def swap_zero(g, c):
    """A copy of g with colours c and 0 exchanged."""
    out = g.copy()
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                out[y, x] = 0
            elif g[y, x] == 0:
                out[y, x] = c
    return out


@njit
def uniform_lines(g, c):
    """(rows, columns) as boolean arrays: True where every cell of that row or column is colour c."""
    rows = np.empty(g.shape[0], dtype=np.bool_)
    cols = np.empty(g.shape[1], dtype=np.bool_)
    find_uniform_lines(g, c, rows, cols)
    return rows, cols


@njit
def find_uniform_lines(g, c, rows, cols):
    """`uniform_lines` into arrays the caller owns (a hot loop reuses them); returns how many rows
    and how many columns are uniform."""
    h, w = g.shape
    nrows = ncols = 0
    for y in range(h):  # each line stops at its first other colour: most stop at once
        rows[y] = True
        for x in range(w):
            if g[y, x] != c:
                rows[y] = False
                break
        nrows += rows[y]
    for x in range(w):
        cols[x] = True
        for y in range(h):
            if g[y, x] != c:
                cols[x] = False
                break
        ncols += cols[x]
    return nrows, ncols


@njit
def one_colour_row(g, y):
    """Whether row y of g is one non-zero colour across."""
    for x in range(g.shape[1]):
        if g[y, x] == 0 or g[y, x] != g[y, 0]:
            return False
    return True


@njit
def colour_and_rest(g, c):
    """The boxes (top, bottom, left, right) of the cells of colour c and of the other non-zero cells
    (bottom -1: no such cells)."""
    h, w = g.shape
    big = 1 << 30
    my0, my1, mx0, mx1 = big, -1, big, -1
    ry0, ry1, rx0, rx1 = big, -1, big, -1
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                my0, my1, mx0, mx1 = min(my0, y), max(my1, y), min(mx0, x), max(mx1, x)
            elif g[y, x] != 0:
                ry0, ry1, rx0, rx1 = min(ry0, y), max(ry1, y), min(rx0, x), max(rx1, x)
    return (my0, my1, mx0, mx1), (ry0, ry1, rx0, rx1)


@njit
def bbox_nonzero(g):
    """(y0, x0, y1, x1), end-exclusive, of the non-zero cells; y1 = -1 when there are none."""
    h, w = g.shape
    y0, x0, y1, x1 = h, w, -1, -1
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                if y < y0:
                    y0 = y
                if x < x0:
                    x0 = x
                if y + 1 > y1:
                    y1 = y + 1
                if x + 1 > x1:
                    x1 = x + 1
    return y0, x0, y1, x1


@njit
def label(g, diagonal, by_colour):
    """Connected components of the non-zero cells: (labels int32 grid, 0 = none; count).

    Components are numbered from 1 in the reading order of their first cell; `diagonal` joins
    8-neighbours, `by_colour` joins only cells of the same colour.
    """
    h, w = g.shape
    labels = np.zeros((h, w), dtype=np.int32)
    stack = np.empty(h * w, dtype=np.int64)
    n = 0
    for sy in range(h):
        for sx in range(w):
            if g[sy, sx] == 0 or labels[sy, sx] != 0:
                continue
            n += 1
            labels[sy, sx] = n
            top = 0
            stack[0] = sy * w + sx
            top = 1
            while top > 0:
                top -= 1
                y = stack[top] // w
                x = stack[top] % w
                for dy in range(-1, 2):
                    for dx in range(-1, 2):
                        if dy == 0 and dx == 0:
                            continue
                        if not diagonal and dy != 0 and dx != 0:
                            continue
                        ny = y + dy
                        nx = x + dx
                        if ny < 0 or ny >= h or nx < 0 or nx >= w:
                            continue
                        if g[ny, nx] == 0 or labels[ny, nx] != 0:
                            continue
                        if by_colour and g[ny, nx] != g[y, x]:
                            continue
                        labels[ny, nx] = n
                        stack[top] = ny * w + nx
                        top += 1
    return labels, n


@njit
def object_cells(g, diagonal, by_colour):
    """Connected components in the order of `objects.components` (by the box's top-left corner, ties
    by the first cell in reading order): (n, start, cells); component i's cells, as flat indices
    y * w + x in reading order, are cells[start[i]:start[i + 1]]."""
    labels, n = label(g, diagonal, by_colour)
    h, w = g.shape
    ymin = np.full(n + 1, h, dtype=np.int64)
    xmin = np.full(n + 1, w, dtype=np.int64)
    first = np.full(n + 1, -1, dtype=np.int64)
    size = np.zeros(n + 1, dtype=np.int64)
    for y in range(h):
        for x in range(w):
            lab = labels[y, x]
            if lab == 0:
                continue
            size[lab] += 1
            if first[lab] < 0:
                first[lab] = y * w + x
            if y < ymin[lab]:
                ymin[lab] = y
            if x < xmin[lab]:
                xmin[lab] = x
    key = np.empty(n, dtype=np.int64)
    for i in range(n):
        key[i] = (ymin[i + 1] * w + xmin[i + 1]) * (h * w) + first[i + 1]
    order = np.argsort(key)  # keys are distinct: the first cells are
    rank = np.empty(n + 1, dtype=np.int64)
    start = np.zeros(n + 1, dtype=np.int64)
    for r in range(n):
        rank[order[r] + 1] = r
        start[r + 1] = start[r] + size[order[r] + 1]
    cells = np.empty(start[n], dtype=np.int64)
    pos = start[:n].copy()
    for y in range(h):
        for x in range(w):
            lab = labels[y, x]
            if lab != 0:
                r = rank[lab]
                cells[pos[r]] = y * w + x
                pos[r] += 1
    return n, start, cells


@njit
def biggest_object(start, n):
    """The one component of `object_cells`' n with the most cells; -1 when none, or two share the most."""
    if n == 0:
        return -1
    big, ties = 0, 0
    for i in range(1, n):
        if start[i + 1] - start[i] > start[big + 1] - start[big]:
            big, ties = i, 0
        elif start[i + 1] - start[i] == start[big + 1] - start[big]:
            ties += 1
    return -1 if ties else big


@njit
def split_colour(g, c):
    """(the cells of colour c, the other cells), each on a zero grid of g's shape."""
    h, w = g.shape
    mine = np.zeros((h, w), dtype=np.uint8)
    rest = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                mine[y, x] = g[y, x]
            else:
                rest[y, x] = g[y, x]
    return mine, rest


@njit
def outside_zeros(g):
    """Zero cells 4-connected to the border through zero cells."""
    h, w = g.shape
    reach = np.zeros((h, w), dtype=np.bool_)
    stack = np.empty(h * w, dtype=np.int64)
    top = 0
    for y in range(h):
        for x in range(w):
            if (y == 0 or x == 0 or y == h - 1 or x == w - 1) and g[y, x] == 0:
                reach[y, x] = True
                stack[top] = y * w + x
                top += 1
    while top > 0:
        top -= 1
        y, x = stack[top] // w, stack[top] % w
        for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            ny, nx = y + dy, x + dx
            if 0 <= ny < h and 0 <= nx < w and g[ny, nx] == 0 and not reach[ny, nx]:
                reach[ny, nx] = True
                stack[top] = ny * w + nx
                top += 1
    return reach


@njit
def enclosed_zeros(g):
    """The zero cells that cannot reach the border through zero cells (4-neighbours): the holes."""
    holes = outside_zeros(g)
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            holes[y, x] = g[y, x] == 0 and not holes[y, x]
    return holes


@njit
def empty_box(g, y0, y1, x0, x1):
    """Whether g[y0:y1, x0:x1] holds only zeros."""
    for y in range(y0, y1):
        for x in range(x0, x1):
            if g[y, x] != 0:
                return False
    return True


@njit
def cells_box(cells, a, b, w):
    """(top, bottom, left, right), inclusive, of the flat cells cells[a:b]."""
    y0, y1, x0, x1 = 1 << 30, -1, 1 << 30, -1
    for i in range(a, b):
        y, x = cells[i] // w, cells[i] % w
        y0, y1, x0, x1 = min(y0, y), max(y1, y), min(x0, x), max(x1, x)
    return y0, y1, x0, x1


@njit
def no_parts():
    """The empty list of parts: a split's "does not apply"."""
    return np.zeros(0, dtype=np.uint8), np.zeros((0, 3), dtype=np.int64)


@njit
def new_parts(hs, ws):
    """(buf, meta) with room for parts of heights hs and widths ws, cells zero."""
    n = hs.shape[0]
    meta = np.empty((n, 3), dtype=np.int64)
    off = 0
    for i in range(n):
        meta[i, 0] = off
        meta[i, 1] = hs[i]
        meta[i, 2] = ws[i]
        off += hs[i] * ws[i]
    return np.zeros(off, dtype=np.uint8), meta


@njit
def part(buf, meta, i):
    """Part i as a 2-D view into buf (writes go to buf)."""
    off, h, w = meta[i, 0], meta[i, 1], meta[i, 2]
    return buf[off:off + h * w].reshape((h, w))


def pack(parts) -> tuple[np.ndarray, np.ndarray]:
    """A tuple of grids as (buf, meta)."""
    parts = [np.ascontiguousarray(p, dtype=np.uint8) for p in (parts or ())]
    meta = np.zeros((len(parts), 3), dtype=np.int64)
    off = 0
    for i, p in enumerate(parts):
        meta[i] = (off, p.shape[0], p.shape[1])
        off += p.size
    buf = np.concatenate([p.ravel() for p in parts]) if parts else np.zeros(0, dtype=np.uint8)
    return np.ascontiguousarray(buf, dtype=np.uint8), meta


def unpack(buf: np.ndarray, meta: np.ndarray) -> tuple:
    """(buf, meta) as a tuple of grids (copies)."""
    return tuple(buf[o:o + h * w].reshape(h, w).copy() for o, h, w in meta.tolist())


@njit
def label_boxes(labels, n):
    """Per label 1 .. n of a label grid (row 0 unused): top, left, bottom, right (inclusive), the cell
    count and the first cell (y, x) in reading order; an absent label keeps (h, w, -1, -1, 0, 0, 0)."""
    box = np.zeros((n + 1, 7), dtype=np.int64)
    box[:, 0] = labels.shape[0]
    box[:, 1] = labels.shape[1]
    box[:, 2] = -1
    box[:, 3] = -1
    h, w = labels.shape
    for y in range(h):
        for x in range(w):
            i = labels[y, x]
            if i == 0:
                continue
            if box[i, 4] == 0:
                box[i, 5] = y
                box[i, 6] = x
            box[i, 4] += 1
            box[i, 0] = min(box[i, 0], y)
            box[i, 1] = min(box[i, 1], x)
            box[i, 2] = max(box[i, 2], y)
            box[i, 3] = max(box[i, 3], x)
    return box


@njit
def boxes_by_colour(g):
    """Per colour 0-9 (markers left out): (top, left, bottom, right) of the box its cells span,
    inclusive, and its cell count; a colour with no cells keeps (h, w, -1, -1, 0)."""
    lab = np.zeros(g.shape, dtype=np.int64)
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            if g[y, x] <= 9:
                lab[y, x] = g[y, x] + 1
    b = label_boxes(lab, 10)
    return b[1:, 0], b[1:, 1], b[1:, 2], b[1:, 3], b[1:, 4]


@njit
def paste(out, y, x, src):
    """Write grid `src` into `out` with its top-left cell at (y, x), cells past `out`'s edges left
    out. Cell by cell: numba's slice assignment from an array (`out[a:b, c:d] = src`) links the
    code of its shape-mismatch message (string formatting) into every function that uses it."""
    for i in range(max(0, -y), min(src.shape[0], out.shape[0] - y)):
        for j in range(max(0, -x), min(src.shape[1], out.shape[1] - x)):
            out[y + i, x + j] = src[i, j]
