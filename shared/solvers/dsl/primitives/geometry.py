"""Geometry primitives: the dihedral moves, shifts, crops, scaling and tiling of a whole grid.

Background is colour 0 here (the solver normalises a task whose background is another
colour before searching). A primitive that does not apply to its input returns None.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import argmax_count, bbox_nonzero, counts, empty, empty_box, label, paste
from shared.solvers.dsl.primitives.registry import RIGHT, primitive
from shared.solvers.dsl.types import MARKER, MAX_SIDE, Color, Grid


@primitive(cost=1, kernel=True)
def rotate90(g: Grid) -> Grid:
    """Rotate a quarter turn anticlockwise."""
    h, w = g.shape
    out = np.empty((w, h), dtype=np.uint8)
    for y in range(w):
        for x in range(h):
            out[y, x] = g[x, w - 1 - y]
    return out


@primitive(cost=1, shape="keep", kernel=True)
def rotate180(g: Grid) -> Grid:
    """Rotate a half turn."""
    return g[::-1, ::-1].copy()


@primitive(cost=1, kernel=True)
def rotate270(g: Grid) -> Grid:
    """Rotate a quarter turn clockwise."""
    h, w = g.shape
    out = np.empty((w, h), dtype=np.uint8)
    for y in range(w):
        for x in range(h):
            out[y, x] = g[h - 1 - x, y]
    return out


@primitive(cost=1, shape="keep", kernel=True)
def flip_lr(g: Grid) -> Grid:
    """Mirror left to right."""
    return g[:, ::-1].copy()


@primitive(cost=1, shape="keep", kernel=True)
def flip_ud(g: Grid) -> Grid:
    """Mirror top to bottom."""
    return g[::-1, :].copy()


@primitive(cost=1, kernel=True)
def transpose(g: Grid) -> Grid:
    """Swap rows and columns."""
    return g.T.copy()


@primitive(cost=1, kernel=True)
def anti_transpose(g: Grid) -> Grid:
    """Reflect in the anti-diagonal."""
    return g[::-1, ::-1].T.copy()


@primitive(cost=1.5, params=((-1, 0), (1, 0), (0, -1), (0, 1)), shape="keep", kernel=True)
def shift(g: Grid, dy: int, dx: int) -> Grid:
    """Move every cell by (dy, dx), filling with 0 and dropping what leaves the grid."""
    h, w = g.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(max(dy, 0), h + min(dy, 0)):
        for x in range(max(dx, 0), w + min(dx, 0)):
            out[y, x] = g[y - dy, x - dx]
    return out


@primitive(cost=1, kernel=True)
def crop_content(g: Grid) -> Grid | None:
    """Crop to the bounding box of the non-zero cells."""
    y0, x0, y1, x1 = bbox_nonzero(g)
    if y1 < 0:
        return empty()
    return g[y0:y1, x0:x1].copy()


@primitive(cost=1.5, params=((False,), (True,)), shape="keep", kernel=True)
def keep_middle(g: Grid, row: bool) -> Grid | None:
    """Keep only the middle column (or row) of a grid of odd width (or height); clear the rest."""
    h, w = g.shape
    n = h if row else w
    if n % 2 == 0 or n < 3:
        return empty()
    out = np.zeros((h, w), dtype=np.uint8)
    m = n // 2
    if row:
        for x in range(w):
            out[m, x] = g[m, x]
    else:
        for y in range(h):
            out[y, m] = g[y, m]
    return out


@primitive(cost=1.5, shape="change", kernel=True)
def crop_lines(g: Grid) -> Grid | None:
    """Crop to the box that two full rows and two full columns of non-zero cells enclose, lines included."""
    h, w = g.shape
    rows = np.zeros(2, dtype=np.int64)
    nr = 0
    for y in range(h):
        full = True
        for x in range(w):
            if g[y, x] == 0:
                full = False
                break
        if full:
            if nr < 2:
                rows[nr] = y
            nr += 1
    cols = np.zeros(2, dtype=np.int64)
    nc = 0
    for x in range(w):
        full = True
        for y in range(h):
            if g[y, x] == 0:
                full = False
                break
        if full:
            if nc < 2:
                cols[nc] = x
            nc += 1
    if nr != 2 or nc != 2 or rows[1] - rows[0] < 2 or cols[1] - cols[0] < 2:
        return empty()
    if rows[1] - rows[0] + 1 == h and cols[1] - cols[0] + 1 == w:
        return empty()  # the lines are the grid's edges: nothing to crop
    return g[rows[0]:rows[1] + 1, cols[0]:cols[1] + 1].copy()


@primitive(cost=1.5, shape="change", kernel=True)
def pad_edges(g: Grid) -> Grid | None:
    """Add a ring of cells copying the nearest edge cell (corners 0)."""
    h, w = g.shape
    if h + 2 > MAX_SIDE or w + 2 > MAX_SIDE:
        return empty()
    out = np.zeros((h + 2, w + 2), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            out[y + 1, x + 1] = g[y, x]
    for x in range(w):
        out[0, x + 1] = g[0, x]
        out[h + 1, x + 1] = g[h - 1, x]
    for y in range(h):
        out[y + 1, 0] = g[y, 0]
        out[y + 1, w + 1] = g[y, w - 1]
    return out


@primitive(cost=1, shape="change", kernel=True)
def trim(g: Grid) -> Grid | None:
    """Remove the outermost ring of cells (a frame)."""
    h, w = g.shape
    if h < 3 or w < 3:
        return empty()
    return g[1:h - 1, 1:w - 1].copy()


@njit
def _crop_colour(g, c):
    """The crop to the bounding box of the cells of colour c (empty where there are none, or c is 0)."""
    if c == 0:
        return empty()
    y0, x0, y1, x1 = bbox_nonzero(g == c)
    if y1 < 0:
        return empty()
    return g[y0:y1, x0:x1].copy()


@primitive(cost=2, params="colours", shape="change", kernel=True)
def crop_capped(g: Grid, c: Color) -> Grid | None:
    """Crop to the box of colour c's lines (runs of 2+) with the cells of other colours that cap their ends."""
    if c == 0:
        return empty()
    h, w = g.shape
    y0, x0, y1, x1 = h, w, -1, -1
    capped = False
    for y in range(h):
        for x in range(w):
            if g[y, x] != c:
                continue
            y0, x0, y1, x1 = min(y0, y), min(x0, x), max(y1, y), max(x1, x)
            for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                by, bx, ey, ex = y - dy, x - dx, y + dy, x + dx  # the run's cell behind, the cap ahead
                if 0 <= by < h and 0 <= bx < w and g[by, bx] == c and 0 <= ey < h and 0 <= ex < w \
                        and g[ey, ex] != 0 and g[ey, ex] != c:
                    y0, x0, y1, x1 = min(y0, ey), min(x0, ex), max(y1, ey), max(x1, ex)
                    capped = True
    if not capped:
        return empty()
    return g[y0:y1 + 1, x0:x1 + 1].copy()


@primitive(cost=1, kernel=True)
def crop_minor(g: Grid) -> Grid | None:
    """Crop to the bounding box of the least frequent non-zero colour."""
    n = counts(g)
    best, present = 0, 0
    for c in range(1, 16):
        if n[c]:
            present += 1
            if best == 0 or n[c] < n[best]:
                best = c
    if present < 2:
        return empty()
    return _crop_colour(g, best)


@primitive(cost=2, params="colours", kernel=True)
def crop_colour(g: Grid, c: Color) -> Grid | None:
    """Crop to the bounding box of the cells of colour c."""
    return _crop_colour(g, c)


@njit
def _scale(g, k):
    """Each cell blown up into a k x k block (empty where that exceeds MAX_SIDE)."""
    h, w = g.shape
    if h * k > MAX_SIDE or w * k > MAX_SIDE:
        return empty()
    out = np.empty((h * k, w * k), dtype=np.uint8)
    for y in range(h * k):
        for x in range(w * k):
            out[y, x] = g[y // k, x // k]
    return out


@primitive(cost=1.5, params=((2,), (3,), (4,), (5,)), shape="change", kernel=True)
def scale_up(g: Grid, k: int) -> Grid | None:
    """Blow each cell up into a k x k block."""
    return _scale(g, k)


@primitive(cost=1.5, shape="change", kernel=True)
def scale_by_colours(g: Grid) -> Grid | None:
    """Blow each cell up by the number of distinct non-zero colours in the grid."""
    n = counts(g)
    k = 0
    for c in range(1, 16):
        if n[c]:
            k += 1
    if k <= 1:
        return empty()
    return _scale(g, k)


@primitive(cost=1.5, params=((2,), (3,)), shape="change", kernel=True)
def scale_down(g: Grid, k: int) -> Grid | None:
    """Keep one cell of each k x k block (the grid must divide exactly)."""
    h, w = g.shape
    if h % k != 0 or w % k != 0 or (h == k and w == k):
        return empty()
    return g[::k, ::k].copy()


def smallest_period(g: Grid) -> tuple[int, int]:
    """The smallest (py, px) such that g repeats every py rows and every px columns."""
    h, w = g.shape
    py = next(p for p in range(1, h + 1) if p == h or np.array_equal(g[p:], g[:h - p]))
    px = next(p for p in range(1, w + 1) if p == w or np.array_equal(g[:, p:], g[:, :w - p]))
    return py, px


@njit
def _period(g):
    """smallest_period, compiled: the smallest (py, px) with g[y] == g[y + py] and g[:, x] == g[:, x + px]."""
    h, w = g.shape
    py = h
    for p in range(1, h):
        ok = True
        for y in range(h - p):
            for x in range(w):
                if g[y + p, x] != g[y, x]:
                    ok = False
                    break
            if not ok:
                break
        if ok:
            py = p
            break
    px = w
    for p in range(1, w):
        ok = True
        for y in range(h):
            for x in range(w - p):
                if g[y, x + p] != g[y, x]:
                    ok = False
                    break
            if not ok:
                break
        if ok:
            px = p
            break
    return py, px


@primitive(cost=1.5, shape="change", kernel=True)
def period_tile(g: Grid) -> Grid | None:
    """The smallest block whose repetition down and across makes the grid (None if it does not repeat)."""
    py, px = _period(g)
    if py == g.shape[0] and px == g.shape[1]:
        return empty()
    return g[:py, :px].copy()


@primitive(cost=2, params=((0,), (1,)), shape="keep", kernel=True)
def retile(g: Grid, phase: int) -> Grid | None:
    """A repeating block at the top left, filler (the last cell's colour) past it: the repeat fills the grid."""
    # phase 1: the repeat comes one column on (as if the block had started a column earlier)
    h, w = g.shape
    f = g[h - 1, w - 1]
    r, c = 0, 0
    while r < h and g[r, 0] != f:
        r += 1
    while c < w and g[0, c] != f:
        c += 1
    if (r == h and c == w) or r < 2 or c < 2:
        return empty()
    for y in range(h):
        for x in range(w):
            if (g[y, x] == f) == (y < r and x < c):
                return empty()  # the block holds filler, or something other than filler lies past it
    py, px = _period(g[:r, :c])
    if 2 * py > r and 2 * px > c:
        return empty()  # the block is no repeat
    out = np.empty((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            out[y, x] = g[y % py, (x + phase) % px]
    return out


@primitive(cost=1.5, shape="change", kernel=True)
def diagonal(g: Grid) -> Grid | None:
    """A row or column of n cells laid along the main diagonal of an n x n grid of zeros."""
    h, w = g.shape
    n = h * w
    if min(h, w) != 1 or not 1 < n <= MAX_SIDE:
        return empty()
    out = np.zeros((n, n), dtype=np.uint8)
    for i in range(n):
        out[i, i] = g[0, i] if h == 1 else g[i, 0]
    return out


@primitive(cost=1.5, shape="change", kernel=True)
def stretch_square(g: Grid) -> Grid | None:
    """A row or column of n cells repeated into an n x n grid (a column's cells fill their rows)."""
    h, w = g.shape
    n = h * w
    if min(h, w) != 1 or not 1 < n <= MAX_SIDE:
        return empty()
    out = np.empty((n, n), dtype=np.uint8)
    for y in range(n):
        for x in range(n):
            out[y, x] = g[0, x] if h == 1 else g[y, 0]
    return out


@primitive(cost=1.5, params=((2,), (3,)), shape="change", kernel=True)
def canvas(g: Grid, k: int) -> Grid | None:
    """The grid at the top left of an empty canvas k times its size (room to draw beyond it)."""
    h, w = g.shape
    if k * max(h, w) > MAX_SIDE:
        return empty()
    out = np.zeros((k * h, k * w), dtype=np.uint8)
    paste(out, 0, 0, g)
    return out


@njit
def _repeat_fits(t, r, p, s):
    """Whether rows p..r-1 of t repeat the rows p above them moved s columns right (cells from off the grid are 0)."""
    w = t.shape[1]
    seen = False
    for y in range(p, r):
        for x in range(w):
            v = t[y - p, x - s] if 0 <= x - s < w else 0
            if t[y, x] != v:
                return False
            seen = seen or v != 0
    return seen


@primitive(cost=2, params=(("down",), ("right",)), shape="keep", kernel=True)
def continue_pattern(g: Grid, way: str) -> Grid | None:
    """Fill the empty rows below the content (or columns right of it) by its repeat, each repeat maybe shifted."""
    t = g.T.copy() if way == RIGHT else g.copy()  # a copy either way: ascontiguousarray may return g's own cells
    h, w = t.shape
    r = 0
    for y in range(h):
        for x in range(w):
            if t[y, x] != 0:
                r = y + 1
    if r < 2 or r == h:
        return empty()
    # the shortest repeat seen at least twice, of the shifts the one moving least (rightwards first)
    for p in range(1, r // 2 + 1):
        for k in range(2 * w - 1):
            s = (k + 1) // 2 if k % 2 == 1 else -(k // 2)
            if not _repeat_fits(t, r, p, s):
                continue
            hit = False
            for y in range(r, h):
                for x in range(w):
                    if 0 <= x - s < w and t[y - p, x - s] != 0:
                        t[y, x] = t[y - p, x - s]
                        hit = True
            if not hit:
                return empty()
            return np.ascontiguousarray(t.T) if way == RIGHT else t
    return empty()


@primitive(cost=1, kernel=True)
def compress(g: Grid) -> Grid:
    """Collapse runs of identical rows and identical columns into one."""
    h, w = g.shape
    rows = np.empty(h, dtype=np.int64)
    nr = 0
    for y in range(h):
        keep = y == 0
        if not keep:
            for x in range(w):
                if g[y, x] != g[y - 1, x]:
                    keep = True
                    break
        if keep:
            rows[nr] = y
            nr += 1
    cols = np.empty(w, dtype=np.int64)
    nc = 0
    for x in range(w):
        keep = x == 0
        if not keep:
            for i in range(nr):
                if g[rows[i], x] != g[rows[i], x - 1]:
                    keep = True
                    break
        if keep:
            cols[nc] = x
            nc += 1
    out = np.empty((nr, nc), dtype=np.uint8)
    for i in range(nr):
        for j in range(nc):
            out[i, j] = g[rows[i], cols[j]]
    return out


@njit
def _frame_box(g):
    """The largest rectangular frame (a box outline of one colour, 3 x 3 or more): its top, bottom,
    left and right (top -1: none)."""
    h, w = g.shape
    # a frame's top left corner starts a run of three cells of its colour rightwards and one downwards
    corner = False
    for y in range(h - 2):
        for x in range(w - 2):
            c = g[y, x]
            if c != 0 and g[y, x + 1] == c and g[y, x + 2] == c and g[y + 1, x] == c and g[y + 2, x] == c:
                corner = True
                break
        if corner:
            break
    if not corner:
        return -1, -1, -1, -1
    labels, n = label(g, True, True)
    y0 = np.full(n + 1, h, dtype=np.int64)
    x0 = np.full(n + 1, w, dtype=np.int64)
    y1 = np.full(n + 1, -1, dtype=np.int64)
    x1 = np.full(n + 1, -1, dtype=np.int64)
    fy = np.full(n + 1, -1, dtype=np.int64)  # each component's first cell in reading order
    fx = np.zeros(n + 1, dtype=np.int64)
    for y in range(h):
        for x in range(w):
            i = labels[y, x]
            if i == 0:
                continue
            if fy[i] < 0:
                fy[i], fx[i] = y, x
            y0[i] = min(y0[i], y)
            x0[i] = min(x0[i], x)
            y1[i] = max(y1[i], y)
            x1[i] = max(x1[i], x)
    # the largest frame; among equal areas the first by (box top, box left, first cell)
    best, area = 0, 0
    for i in range(1, n + 1):
        a, b, p, q = y0[i], y1[i], x0[i], x1[i]
        if b - a < 2 or q - p < 2:
            continue
        size = (b - a + 1) * (q - p + 1)
        if size < area:
            continue
        if size == area and (a, p, fy[i], fx[i]) > (y0[best], x0[best], fy[best], fx[best]):
            continue
        c = g[fy[i], fx[i]]
        ok = True
        for x in range(p, q + 1):
            if g[a, x] != c or g[b, x] != c:
                ok = False
                break
        if ok:
            for y in range(a, b + 1):
                if g[y, p] != c or g[y, q] != c:
                    ok = False
                    break
        if ok:
            best, area = i, size
    if best == 0:
        return -1, -1, -1, -1
    return y0[best], y1[best], x0[best], x1[best]


@primitive(cost=1.5, params=((True,), (False,)), shape="change", kernel=True)
def crop_frame(g: Grid, inside: bool) -> Grid | None:
    """The largest rectangular frame (a box outline of one colour, 3 x 3 or more), or just its inside."""
    a, b, p, q = _frame_box(g)
    if a < 0:
        return empty()
    if inside:
        return g[a + 1:b, p + 1:q].copy()
    return g[a:b + 1, p:q + 1].copy()


@primitive(cost=1.5, shape="change", kernel=True)
def fit_in_frame(g: Grid) -> Grid | None:
    """The largest frame with the content outside it scaled up to fill its inside exactly."""
    a, b, p, q = _frame_box(g)
    if a < 0:
        return empty()
    h, w = g.shape
    sy0, sx0, sy1, sx1 = h, w, -1, -1  # the box of the cells outside the frame's box
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0 and not (a <= y <= b and p <= x <= q):
                sy0, sx0, sy1, sx1 = min(sy0, y), min(sx0, x), max(sy1, y), max(sx1, x)
    if sy1 < 0:
        return empty()
    ih, iw, sh, sw = b - a - 1, q - p - 1, sy1 - sy0 + 1, sx1 - sx0 + 1
    k = ih // sh
    if k < 1 or ih != k * sh or iw != k * sw:
        return empty()
    out = g[a:b + 1, p:q + 1].copy()
    for y in range(ih):
        for x in range(iw):
            out[1 + y, 1 + x] = g[sy0 + y // k, sx0 + x // k]
    return out


@primitive(cost=1.5, params=((1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (3, 3), (4, 4)), shape="change", kernel=True)
def tile(g: Grid, ry: int, rx: int) -> Grid | None:
    """Repeat the grid ry times down and rx times across."""
    h, w = g.shape
    if h * ry > MAX_SIDE or w * rx > MAX_SIDE:
        return empty()
    out = np.empty((h * ry, w * rx), dtype=np.uint8)
    for y in range(h * ry):
        for x in range(w * rx):
            out[y, x] = g[y % h, x % w]
    return out


@primitive(cost=2, shape="change", first=True, kernel=True)
def tile_by_count(g: Grid) -> Grid | None:
    """As many copies as the grid has non-zero cells, in reading order on a square of side its zero count."""
    h, w = g.shape
    k = counts(g)[0]
    n = h * w - k
    if n == 0 or n > k * k or h * k > MAX_SIDE or w * k > MAX_SIDE:
        return empty()
    out = np.zeros((h * k, w * k), dtype=np.uint8)
    for i in range(n):
        ty, tx = (i // k) * h, (i % k) * w
        paste(out, ty, tx, g)
    return out


@njit
def _mirrored(g, across, down, shared):
    """The grid with its left-right mirror appended on the right (across) and the whole mirrored below (down);
    with `shared` 1 a mirror shares the edge row (column) it is mirrored on rather than repeating it."""
    h, w = g.shape
    oh = 2 * h - shared if down else h
    ow = 2 * w - shared if across else w
    if oh > MAX_SIDE or ow > MAX_SIDE or down and h <= shared or across and w <= shared:
        return empty()
    out = np.empty((oh, ow), dtype=np.uint8)
    for y in range(oh):
        sy = y if y < h else 2 * h - 1 - shared - y
        for x in range(ow):
            out[y, x] = g[sy, x if x < w else 2 * w - 1 - shared - x]
    return out


@primitive(cost=1.5, shape="change", kernel=True)
def mirror_right(g: Grid) -> Grid | None:
    """Append the left-right mirror image on the right."""
    return _mirrored(g, True, False, 0)


@primitive(cost=1.5, shape="change", kernel=True)
def mirror_down(g: Grid) -> Grid | None:
    """Append the top-bottom mirror image below."""
    return _mirrored(g, False, True, 0)


@primitive(cost=2, shape="keep", first=True, kernel=True)
def frame_the_gap(g: Grid) -> Grid | None:
    """The largest empty frame is drawn again round the one other empty window of its inside's size."""
    y0, y1, x0, x1 = _frame_box(g)
    if y0 < 0:
        return empty()
    bh, bw = y1 - y0 - 1, x1 - x0 - 1
    if not empty_box(g, y0 + 1, y1, x0 + 1, x1):
        return empty()
    h, w = g.shape
    ty, tx = -1, -1
    for y in range(1, h - bh):
        for x in range(1, w - bw):
            if (y != y0 + 1 or x != x0 + 1) and empty_box(g, y, y + bh, x, x + bw):
                if ty >= 0:
                    return empty()
                ty, tx = y, x
    if ty < 0:
        return empty()
    out = g.copy()
    c = g[y0, x0]
    for y in range(ty - 1, ty + bh + 1):
        for x in range(tx - 1, tx + bw + 1):
            if y == ty - 1 or y == ty + bh or x == tx - 1 or x == tx + bw:
                out[y, x] = c
    return out


@primitive(cost=1.5, params=((False,), (True,)), shape="change", kernel=True)
def mirror_on_edge(g: Grid, down: bool) -> Grid | None:
    """Append the mirror image on the right (or below), mirrored on the last column (row), which is not repeated."""
    return _mirrored(g, not down, down, 1)


@primitive(cost=1.5, shape="change", kernel=True)
def mirror_four(g: Grid) -> Grid | None:
    """Four mirrored copies: the grid, its mirrors and its half-turn, as a 2x2 kaleidoscope."""
    return _mirrored(g, True, True, 0)


@primitive(cost=1.5, shape="change", kernel=True)
def rotate_four(g: Grid) -> Grid | None:
    """Four rotated copies of a square grid turning round the centre (a pinwheel)."""
    n = g.shape[0]
    if g.shape[1] != n or 2 * n > MAX_SIDE:
        return empty()
    out = np.empty((2 * n, 2 * n), dtype=np.uint8)
    m = n - 1
    for y in range(n):
        for x in range(n):
            out[y, x] = g[y, x]
            out[y, n + x] = g[m - x, y]  # a quarter turn clockwise
            out[n + y, x] = g[x, m - y]  # a quarter turn anticlockwise
            out[n + y, n + x] = g[m - y, m - x]
    return out


@njit
def _self_tile(g, where, own=False):
    """A copy of g in each block (Y, X) of an h x w grid of blocks where `where[Y, X]`, zeros elsewhere;
    with `own`, only the cells of that block's cell's colour."""
    h, w = g.shape
    if h * h > MAX_SIDE or w * w > MAX_SIDE:
        return empty()
    out = np.zeros((h * h, w * w), dtype=np.uint8)
    for by in range(h):
        for bx in range(w):
            if where[by, bx]:
                c = g[by, bx]
                for y in range(h):
                    for x in range(w):
                        if not own or g[y, x] == c:
                            out[by * h + y, bx * w + x] = g[y, x]
    return out


@primitive(cost=2, shape="change", kernel=True)
def self_tile(g: Grid) -> Grid | None:
    """Place a copy of the grid wherever a cell is non-zero (a fractal of itself)."""
    return _self_tile(g, g != 0)


@primitive(cost=2.5, shape="change", kernel=True)
def self_tile_own(g: Grid) -> Grid | None:
    """Place at each non-zero cell a copy of the grid's cells of that cell's colour (zeros elsewhere)."""
    return _self_tile(g, g != 0, True)


@primitive(cost=2.5, shape="change", params="colours", kernel=True)
def self_tile_on(g: Grid, c: int) -> Grid | None:
    """Place a copy of the grid wherever a cell has colour c."""
    where = g == c
    if not where.any():
        return empty()
    return _self_tile(g, where)


@primitive(cost=2.5, shape="change", kernel=True)
def self_tile_common(g: Grid) -> Grid | None:
    """Place a copy of the grid wherever a cell has its most frequent colour (ties: the lowest)."""
    return _self_tile(g, g == np.argmax(counts(g)))


@njit
def _marked_edge(g):
    """(edge, index) of the one edge line (0 left column, 1 right column, 2 top row, 3 bottom row)
    of at least three cells that is one colour but for a single cell of another; (-1, -1) unless
    exactly one edge is."""
    h, w = g.shape
    found, at = -1, -1
    for e in range(4):
        n = h if e < 2 else w
        if n < 3 or (w if e < 2 else h) < 2:
            continue
        line = np.empty(n, dtype=np.int64)
        for i in range(n):
            line[i] = g[i, 0 if e == 0 else w - 1] if e < 2 else g[0 if e == 2 else h - 1, i]
        # the line's colour is the one its first two or last two cells agree on
        c = line[0] if line[0] == line[1] else line[n - 1]
        odd, k = 0, -1
        for i in range(n):
            if line[i] != c:
                odd += 1
                k = i
        if odd == 1:
            if found >= 0:
                return -1, -1
            found, at = e, k
    return found, at


@primitive(cost=2, shape="change", first=True, kernel=True)
def roll_to_marker(g: Grid) -> Grid | None:
    """Drop the edge line marked by one odd cell and roll the rest along it: its first line goes to the mark's place."""
    h, w = g.shape
    e, k = _marked_edge(g)
    if e < 0:
        return empty()
    if e < 2:
        x0 = 1 if e == 0 else 0
        out = np.empty((h, w - 1), dtype=np.uint8)
        for y in range(h):
            paste(out, (y + k) % h, 0, g[y:y + 1, x0:x0 + w - 1])
        return out
    y0 = 1 if e == 2 else 0
    out = np.empty((h - 1, w), dtype=np.uint8)
    for x in range(w):
        paste(out, 0, (x + k) % w, g[y0:y0 + h - 1, x:x + 1])
    return out


@primitive(cost=2, shape="keep", params="colours", kernel=True)
def quadrant_of(g: Grid, c: Color) -> Grid | None:
    """The quarter of the grid (even sides) holding the one cell of colour c, filled with c; the rest cleared."""
    h, w = g.shape
    if h % 2 or w % 2:
        return empty()
    qy, qx = -1, -1
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                if qy >= 0:
                    return empty()
                qy, qx = y // (h // 2), x // (w // 2)
    if qy < 0:
        return empty()
    out = np.zeros((h, w), dtype=np.uint8)
    out[qy * (h // 2):(qy + 1) * (h // 2), qx * (w // 2):(qx + 1) * (w // 2)] = c
    return out


@primitive(cost=2, shape="change", kernel=True)
def echo_top_row(g: Grid) -> Grid | None:
    """Marks on the top row and left column only: the top two rows, then the top row's marks in a marker."""
    h, w = g.shape
    if h < 3:
        return empty()
    bg = argmax_count(counts(g))
    for y in range(1, h):
        for x in range(1, w):
            if g[y, x] != bg:
                return empty()
    out = np.empty((3, w), dtype=np.uint8)
    paste(out, 0, 0, g[:2])
    marks = 0
    for x in range(w):
        if g[0, x] != bg:
            out[2, x] = MARKER
            marks += 1
        else:
            out[2, x] = bg
    if marks == 0 or marks == w:
        return empty()
    return out
