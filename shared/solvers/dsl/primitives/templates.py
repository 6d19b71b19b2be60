"""Template primitives: a shape copied to its markers and completed, corners assembled, pairs
joined, boxes and halos grown, and areas covered by squares, bars and crosses.

Background is colour 0. A primitive that does not apply to its input returns None. Every primitive
here is a compiled kernel (see `registry.primitive`). The edits of each shape in place (outlines,
interiors, halos) are in `shapes`, whose kernels register first.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import (
    bbox_nonzero,
    cells_box,
    counts,
    empty,
    label,
    label_boxes,
    object_cells,
    turned_back,
    two_colours,
)
from shared.solvers.dsl.primitives.registry import MOVE, SCALE, SCALE4, primitive
from shared.solvers.dsl.types import MARKER, MAX_SIDE, Grid

MAX_TEMPLATE = 100  # cells: a bigger object is a scene, not a shape to copy
MAX_SCALE = 4  # the largest factor of a scaled copy


@njit
def _turned(dy, dx, th, tw, k):
    """Cell (dy, dx) of a th x tw box under dihedral element k: transposed when k >= 4, then rows
    reversed when k & 1, columns when k & 2."""
    if k >= 4:
        dy, dx, th, tw = dx, dy, tw, th
    if k & 1:
        dy = th - 1 - dy
    if k & 2:
        dx = tw - 1 - dx
    return dy, dx


@njit
def _place(g, cells, a, b, box, k, s, oy, ox, owner, size, p, mc, rc, canvas, paint):
    """Object cells[a:b] of g (its box (top, bottom, left, right)), turned by k and scaled by s, with
    the box's corner at (oy, ox): whether it lies on zeros or on same-coloured cells of objects smaller
    than it, how many of object p's cells it covers and how many non-zero cells in all; with `paint`,
    it is painted onto canvas (-1: unpainted). With mc >= 0 (scaled copies) every cell of colour mc
    must land on that colour and the others may run off the grid; otherwise all must lie in it. The
    copy paints colour rc[0] as rc[1] (rc[0] = -1: no recolouring)."""
    h, w = g.shape
    ty0, ty1, tx0, tx1 = box
    own, total = 0, 0
    for j in range(a, b):
        c = np.int64(g[cells[j] // w, cells[j] % w])
        if c == rc[0]:
            c = rc[1]
        dy, dx = _turned(cells[j] // w - ty0, cells[j] % w - tx0, ty1 - ty0 + 1, tx1 - tx0 + 1, k)
        for u in range(s * s):
            y, x = oy + s * dy + u // s, ox + s * dx + u % s
            if y < 0 or x < 0 or y >= h or x >= w:
                if mc < 0 or c == mc:
                    return False, 0, 0
                continue
            if c == mc and g[y, x] != c:
                return False, 0, 0
            if g[y, x] != 0:
                o = owner[y * w + x]
                if g[y, x] != c or size[o] >= s * s * (b - a):
                    return False, 0, 0
                total += 1
                if o == p:
                    own += 1
            if paint:
                canvas[y * w + x] = c
    return True, own, total


@njit
def _two_colours(g, cells, a, b, w):
    """The colours of cells[a:b]: the first cell's, the other one (-1: none), or (-2, -2) for three or more."""
    c1, c2 = np.int64(g[cells[a] // w, cells[a] % w]), np.int64(-1)
    for j in range(a, b):
        c = np.int64(g[cells[j] // w, cells[j] % w])
        if c != c1 and c != c2:
            if c2 >= 0:
                return np.int64(-2), np.int64(-2)
            c2 = c
    return c1, c2


@njit
def _has(g, cells, a, b, w, c):
    """Whether some cell of cells[a:b] has colour c."""
    for j in range(a, b):
        if g[cells[j] // w, cells[j] % w] == c:
            return True
    return False


@njit
def _marker_colours(g, cells, start, p, t, w, col):
    """How object p marks a scaled copy of template t: the colour the two share (-1: no copy), and the
    template's colour the copy paints in p's other colour, where the template lacks it (-1 -1: none).
    col holds each object's `_two_colours`."""
    c1, c2 = col[p, 0], col[p, 1]
    if c1 == -2:  # three colours or more: a copy in part when the template has every one of them
        for j in range(start[p], start[p + 1]):
            if not _has(g, cells, start[t], start[t + 1], w, g[cells[j] // w, cells[j] % w]):
                return -1, -1, -1
        return np.int64(g[cells[start[p]] // w, cells[start[p]] % w]), -1, -1
    has1 = _has(g, cells, start[t], start[t + 1], w, c1)
    has2 = c2 >= 0 and _has(g, cells, start[t], start[t + 1], w, c2)
    if c2 < 0 or has1 and has2:  # one colour, or the template's own two
        return (c1, -1, -1) if has1 else (-1, -1, -1)
    t1, t2 = col[t, 0], col[t, 1]
    if t2 < 0 or not (has1 or has2):
        return -1, -1, -1
    mc, new = (c1, c2) if has1 else (c2, c1)
    return mc, t2 if mc == t1 else t1, new


@primitive(cost=2, params=((False, "copy"), (True, "copy"), (False, "move"), (True, "move"), (False, "scale"),
                           (True, "scale"), (False, "scale4")), shape="keep", kernel=True)
def complete_copies(g: Grid, turned: bool, how: str) -> Grid | None:
    """Objects fitting a placement (moved, turned, scaled) of a many-coloured object become it (or it moves)."""
    # of the placements that cover all of the object, the one covering the most cells of smaller
    # objects wins (two pieces of one copy, or the markers it lands on); two that paint differently
    # leave the object as it is. A scaled copy (each cell an s x s block, s up to MAX_SCALE) may run
    # off the grid, and its cells of the object's colour must all land on that colour; with "scale4"
    # objects are 4-connected (blocks of a copy that touch only at corners are pieces of their own)
    scaled = how == SCALE or how == SCALE4
    h, w = g.shape
    n, start, cells = object_cells(g, how != SCALE4, False)
    if not 2 <= n <= 40:
        return empty()
    owner = np.full(h * w, -1, dtype=np.int64)
    size = start[1:] - start[:-1]
    col = np.empty((n, 2), dtype=np.int64)  # each object's colours (`_two_colours`)
    for i in range(n):
        col[i, 0], col[i, 1] = _two_colours(g, cells, start[i], start[i + 1], w)
        for j in range(start[i], start[i + 1]):
            owner[cells[j]] = i
    paint = np.full(h * w, -1, dtype=np.int64)  # the copies
    used = np.zeros(n, dtype=np.bool_)  # the templates copied
    first = np.full(h * w, -1, dtype=np.int64)
    other = np.full(h * w, -1, dtype=np.int64)
    rc = np.full(2, -1, dtype=np.int64)
    for p in range(n):
        found, best, ft = 0, 0, -1
        for t in range(n):
            if t == p or col[t, 1] == -1 or size[t] > MAX_TEMPLATE or (not scaled and size[p] >= size[t]):
                continue  # a template has two or more colours (and, unscaled, more cells than the object)
            mc = np.int64(-1)
            anchor = start[p]  # the object's first cell (of the colour it shares with the template)
            if scaled:
                mc, rc[0], rc[1] = _marker_colours(g, cells, start, p, t, w, col)
                if mc < 0:
                    continue
                while g[cells[anchor] // w, cells[anchor] % w] != mc:
                    anchor += 1
            py, px = cells[anchor] // w, cells[anchor] % w
            box = cells_box(cells, start[t], start[t + 1], w)
            ty0, ty1, tx0, tx1 = box
            for s in range(1, MAX_SCALE + 1 if scaled else 2):
                if size[p] >= s * s * size[t]:
                    continue
                for k in range(8 if turned else 1):
                    for a in range(start[t], start[t + 1]):
                        if g[cells[a] // w, cells[a] % w] != g[py, px]:
                            continue
                        ry, rx = _turned(cells[a] // w - ty0, cells[a] % w - tx0, ty1 - ty0 + 1, tx1 - tx0 + 1, k)
                        oy, ox = py - s * ry, px - s * rx
                        ok, own, total = _place(g, cells, start[t], start[t + 1], box, k, s, oy, ox, owner, size, p,
                                                mc, rc, first, False)
                        if not ok or own != size[p] or total < best:
                            continue
                        if total > best:
                            found, best, ft = 1, total, t
                            first[:] = -1
                            _place(g, cells, start[t], start[t + 1], box, k, s, oy, ox, owner, size, p, mc, rc,
                                   first, True)
                            continue
                        other[:] = -1
                        _place(g, cells, start[t], start[t + 1], box, k, s, oy, ox, owner, size, p, mc, rc, other,
                               True)
                        if not np.array_equal(first, other):
                            found = 2  # as good a placement that paints differently: ambiguous
        if found != 1:
            continue
        used[ft] = True
        for i in range(h * w):
            if first[i] >= 0 and paint[i] < 0:
                paint[i] = first[i]
    out = g.copy()
    if how == MOVE:
        for t in range(n):
            if used[t]:
                for j in range(start[t], start[t + 1]):
                    out[cells[j] // w, cells[j] % w] = 0
    hit = False
    for i in range(h * w):
        if paint[i] >= 0 and out[i // w, i % w] != paint[i]:
            out[i // w, i % w] = paint[i]
            hit = True
    return out if hit else empty()


@primitive(cost=2, shape="change", first=True, kernel=True)
def assemble_corners(g: Grid) -> Grid | None:
    """Four shapes of one box size, each filling one corner of its box (not the opposite), fitted in those corners."""
    h, w = g.shape
    n, start, cells = object_cells(g, True, False)
    if n != 4:
        return empty()
    bh, bw = -1, -1
    y0s = np.empty(4, dtype=np.int64)
    x0s = np.empty(4, dtype=np.int64)
    place = np.full(4, -1, dtype=np.int64)  # the quadrant (0 top left, 1 top right, 2 bottom left, 3 bottom right)
    for i in range(4):
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        if bh < 0:
            bh, bw = y1 - y0 + 1, x1 - x0 + 1
        elif bh != y1 - y0 + 1 or bw != x1 - x0 + 1:
            return empty()
        y0s[i], x0s[i] = y0, x0
        for q in range(4):
            cy, cx = y0 + (bh - 1) * (q // 2), x0 + (bw - 1) * (q % 2)
            oy, ox = y0 + (bh - 1) * (1 - q // 2), x0 + (bw - 1) * (1 - q % 2)
            if g[cy, cx] != 0 and g[oy, ox] == 0:
                if place[i] >= 0:
                    return empty()
                place[i] = q
        if place[i] < 0:
            return empty()
    if bh < 2 or bw < 2 or 2 * max(bh, bw) > 30:
        return empty()
    out = np.zeros((2 * bh, 2 * bw), dtype=np.uint8)
    seen = np.zeros(4, dtype=np.bool_)
    for i in range(4):
        q = place[i]
        if seen[q]:
            return empty()
        seen[q] = True
        for j in range(start[i], start[i + 1]):
            y, x = cells[j] // w, cells[j] % w
            out[bh * (q // 2) + y - y0s[i], bw * (q % 2) + x - x0s[i]] = g[y, x]
    return out


@primitive(cost=2, shape="change", first=True, kernel=True)
def join_two(g: Grid) -> Grid | None:
    """Two shapes, only moved, fitted together into the one filled rectangle they make."""
    h, w = g.shape
    n, start, cells = object_cells(g, True, False)
    if n != 2:
        return empty()
    ay0, ay1, ax0, ax1 = cells_box(cells, start[0], start[1], w)
    by0, by1, bx0, bx1 = cells_box(cells, start[1], start[2], w)
    ah, aw, bh, bw = ay1 - ay0 + 1, ax1 - ax0 + 1, by1 - by0 + 1, bx1 - bx0 + 1
    total = start[2] - start[0]
    found = 0
    best = empty()
    for dy in range(-bh, ah + 1):  # where B's box goes, from A's box's top left
        for dx in range(-bw, aw + 1):
            uy, ux = min(0, dy), min(0, dx)
            uh, uw = max(ah, dy + bh) - uy, max(aw, dx + bw) - ux
            if uh * uw != total or uh > MAX_SIDE or uw > MAX_SIDE:
                continue
            out = np.zeros((uh, uw), dtype=np.uint8)
            ok = True
            for j in range(start[0], start[2]):
                y, x = cells[j] // w, cells[j] % w
                if j < start[1]:
                    yy, xx = y - ay0 - uy, x - ax0 - ux
                else:
                    yy, xx = y - by0 + dy - uy, x - bx0 + dx - ux
                if out[yy, xx] != 0:
                    ok = False
                    break
                out[yy, xx] = g[y, x]
            if ok:
                found += 1
                best = out
    return best if found == 1 else empty()


@primitive(cost=2, shape="keep", first=True, kernel=True)
def grow_boxes(g: Grid) -> Grid | None:
    """A box of a rim round a solid core swaps its two colours and grows arms of the rim's colour, the core deep."""
    h, w = g.shape
    n, start, cells = object_cells(g, True, False)
    out = g.copy()
    hit = False
    for i in range(n):
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        bh, bw = y1 - y0 + 1, x1 - x0 + 1
        if bh < 3 or bw < 3 or start[i + 1] - start[i] != bh * bw:
            continue
        rim, core = g[y0, x0], g[y0 + 1, x0 + 1]
        inside = g[y0 + 1:y1, x0 + 1:x1]
        if rim == core or (inside != core).any() or counts(g[y0:y1 + 1, x0:x1 + 1])[rim] != bh * bw - inside.size:
            continue
        k, j = bh - 2, bw - 2  # the core's depth: of the arms above and below, and of those to the sides
        out[y0:y1 + 1, x0:x1 + 1] = core
        out[y0 + 1:y1, x0 + 1:x1] = rim
        out[max(y0 - k, 0):y0, x0:x1 + 1] = rim
        out[y1 + 1:y1 + 1 + k, x0:x1 + 1] = rim
        out[y0:y1 + 1, max(x0 - j, 0):x0] = rim
        out[y0:y1 + 1, x1 + 1:x1 + 1 + j] = rim
        hit = True
    return out if hit else empty()


@njit
def _uncut(lo, hi, side, n):
    """A square's span lo..hi along a side of n cells, as if whole when the edge cuts it to less than `side`;
    (1, 0) when it is short but touches neither edge."""
    if hi - lo + 1 == side:
        return lo, hi
    if lo == 0:
        return hi - side + 1, hi
    if hi == n - 1:
        return lo, lo + side - 1
    return 1, 0


@primitive(cost=2, shape="keep", kernel=True)
def square_halos(g: Grid) -> Grid | None:
    """Solid squares of even side get a ring half their side wide (marker) over a shadow down to the edge (marker 2)."""
    h, w = g.shape
    labels, n = label(g, False, True)
    if n == 0:
        return empty()
    box = label_boxes(labels, n)
    # each object a solid square of even side, which the grid's edge may cut: its box as if whole
    sq = np.empty((n + 1, 4), dtype=np.int64)
    for i in range(1, n + 1):
        y0, x0, y1, x1 = box[i, 0], box[i, 1], box[i, 2], box[i, 3]
        bh, bw = y1 - y0 + 1, x1 - x0 + 1
        side = max(bh, bw)
        if side % 2 or box[i, 4] != bh * bw:
            return empty()
        y0, y1 = _uncut(y0, y1, side, h)
        x0, x1 = _uncut(x0, x1, side, w)
        if y0 > y1 or x0 > x1:
            return empty()
        sq[i, 0], sq[i, 1], sq[i, 2], sq[i, 3] = y0, x0, y1, x1
    out = g.copy()
    for i in range(1, n + 1):
        for y in range(max(0, sq[i, 2] + 1), h):
            for x in range(max(0, sq[i, 1]), min(w, sq[i, 3] + 1)):
                if g[y, x] == 0:
                    out[y, x] = MARKER + 1
    for i in range(1, n + 1):
        k = (sq[i, 2] - sq[i, 0] + 1) // 2
        for y in range(max(0, sq[i, 0] - k), min(h, sq[i, 2] + k + 1)):
            for x in range(max(0, sq[i, 1] - k), min(w, sq[i, 3] + k + 1)):
                if g[y, x] == 0:
                    out[y, x] = MARKER
    return out


@primitive(cost=2, shape="keep", kernel=True)
def turn_diagonal_pairs(g: Grid) -> Grid | None:
    """Two equal squares meeting at a corner get the other diagonal's pair, three times as far out, as a marker."""
    h, w = g.shape
    n, start, cells = object_cells(g, True, True)
    if n == 0:
        return empty()
    out = g.copy()
    for i in range(n):
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        s = (y1 - y0 + 1) // 2
        if y1 - y0 + 1 != 2 * s or x1 - x0 + 1 != 2 * s or start[i + 1] - start[i] != 2 * s * s:
            return empty()
        down = g[y0, x0] != 0  # the squares sit top left and bottom right
        for j in range(start[i], start[i + 1]):
            if ((cells[j] // w - y0 < s) == (cells[j] % w - x0 < s)) != down:
                return empty()
        if down:
            corners = ((y0 - s, x0 + 2 * s), (y0 + 2 * s, x0 - s))
        else:
            corners = ((y0 - s, x0 - s), (y0 + 2 * s, x0 + 2 * s))
        for ty, tx in corners:
            for y in range(max(0, ty), min(h, ty + s)):
                for x in range(max(0, tx), min(w, tx + s)):
                    if out[y, x] == 0:
                        out[y, x] = MARKER
    return out


@njit
def _grow_across(g):
    """`grow_to_middle` for two blocks side by side."""
    h, w = g.shape
    a, b = two_colours(counts(g))
    if a == 0:
        return empty()
    lo = np.full(256, w, dtype=np.int64)  # by colour, markers included
    hi = np.full(256, -1, dtype=np.int64)
    for y in range(h):
        for x in range(w):
            c = g[y, x]
            lo[c], hi[c] = min(lo[c], x), max(hi[c], x)
    if hi[b] < lo[a]:
        a, b = b, a
    if hi[a] >= lo[b] or lo[b] - hi[a] < 3:
        return empty()
    half = (lo[b] - hi[a] - 1) // 2
    out = g.copy()
    out[:, hi[a] + 1:hi[a] + 1 + half] = a
    out[:, lo[b] - half:lo[b]] = b
    return out


@primitive(cost=2, shape="keep", kernel=True)
def grow_to_middle(g: Grid) -> Grid | None:
    """Two blocks of two colours in a row (or column) each fill their half of the gap between them, edge to edge."""
    out = _grow_across(g)
    return out if out.size else turned_back(_grow_across(g.T.copy()))


@primitive(cost=2, shape="keep", first=True, kernel=True)
def notch_lines(g: Grid) -> Grid | None:
    """Where a framed box's inside pokes into its frame, a line crosses it in the frame colour; beyond, the inside's."""
    h, w = g.shape
    y0, x0, y1, x1 = bbox_nonzero(g)
    if y1 < 0 or y1 - y0 < 5 or x1 - x0 < 5:
        return empty()
    frame = g[y0, x0]
    inner = 0
    for y in range(y0, y1):
        for x in range(x0, x1):
            c = g[y, x]
            if c == 0:
                return empty()
            if c != frame:
                if inner and c != inner:
                    return empty()
                inner = c
    if inner == 0 or np.count_nonzero(g) != (y1 - y0) * (x1 - x0):
        return empty()
    rows = np.zeros(h, dtype=np.int64)
    cols = np.zeros(w, dtype=np.int64)
    for y in range(y0, y1):
        for x in range(x0, x1):
            if g[y, x] == inner:
                rows[y] += 1
                cols[x] += 1
    out = g.copy()
    notches = 0
    most_r, most_c = rows.max(), cols.max()  # a row or column with under half as many is the frame's
    for y in range(y0, y1):
        for x in range(x0, x1):
            if g[y, x] != inner:
                continue
            down = 2 * rows[y] < most_r  # a row of the frame: the notch points up or down
            across = 2 * cols[x] < most_c
            if down == across:
                continue
            notches += 1
            n = h if down else w
            for i in range(n):
                yy, xx = (i, x) if down else (y, i)
                inside = y0 <= yy < y1 and x0 <= xx < x1
                if not inside:
                    out[yy, xx] = inner
                elif (2 * rows[yy] >= most_r) if down else (2 * cols[xx] >= most_c):
                    out[yy, xx] = frame
            out[y, x] = frame
    return out if notches else empty()


_PIECES = np.array([[0, 0, 0, 1, 1, 0, 1, 1],  # a 2x2 square, then bars of three across and down: (dy, dx) pairs
                    [0, 0, 0, 1, 0, 2, -1, -1],
                    [0, 0, 1, 0, 2, 0, -1, -1]], dtype=np.int64)


@njit
def _piece(out, mask, y, x, k, paint, test):
    """Whether piece k with its first cell at (y, x) lies on free cells of mask; paints it when not `test`."""
    h, w = out.shape
    for j in range(4):
        dy, dx = _PIECES[k, 2 * j], _PIECES[k, 2 * j + 1]
        if dy < 0:
            break
        yy, xx = y + dy, x + dx
        if test:
            if not (yy < h and xx < w and mask[yy, xx] and out[yy, xx] == 0):
                return False
        else:
            out[yy, xx] = paint
    return True


@njit
def _next_free(out, mask, p):
    """The first cell from flat index p on that mask holds and nothing covers yet; -1 when none is left."""
    w = out.shape[1]
    while p < out.size and not (mask[p // w, p % w] and out[p // w, p % w] == 0):
        p += 1
    return p if p < out.size else -1


@primitive(cost=2, shape="keep", first=True, kernel=True)
def tile_squares_bars(g: Grid) -> Grid | None:
    """Cover a one-colour shape with 2x2 squares (a marker) and bars of three (a second marker), squares tried first."""
    h, w = g.shape
    n = counts(g)
    colours = 0
    for c in range(1, n.shape[0]):
        colours += n[c] > 0
    if colours != 1:
        return empty()
    mask = g != 0
    out = np.zeros_like(g)
    at = np.empty(h * w, dtype=np.int64)
    tried = np.empty(h * w, dtype=np.int64)
    d, start = 0, 0
    p = _next_free(out, mask, 0)
    for _ in range(200000):
        if p < 0:
            return out
        y, x = p // w, p % w
        placed = False
        for k in range(start, 3):
            if _piece(out, mask, y, x, k, 0, True):
                _piece(out, mask, y, x, k, MARKER + (k > 0), False)
                at[d], tried[d] = p, k
                d += 1
                placed = True
                break
        if placed:
            start = 0
            p = _next_free(out, mask, p)
            continue
        if d == 0:
            return empty()
        d -= 1
        p, k = at[d], tried[d]
        _piece(out, mask, p // w, p % w, k, 0, False)
        start = k + 1
    return empty()


@njit
def _on_cross(y, x, cy, cx, arm):
    """Whether cell (y, x) lies on the cross of arms `arm` long centred at (cy, cx)."""
    return (y == cy and abs(x - cx) <= arm) or (x == cx and abs(y - cy) <= arm)


@njit
def _mark_cross(owner, cy, cx, arm, v):
    """Set the cells of the cross (arms `arm` long, centred at (cy, cx)) inside the grid to v."""
    h, w = owner.shape
    for d in range(-arm, arm + 1):
        if 0 <= cy + d < h:
            owner[cy + d, cx] = v
        if 0 <= cx + d < w:
            owner[cy, cx + d] = v


@njit
def _cross_free(owner, cy, cx, arm):
    """Whether no cell of the cross inside the grid is taken."""
    h, w = owner.shape
    for d in range(-arm, arm + 1):
        if (0 <= cy + d < h and owner[cy + d, cx] != 0) or (0 <= cx + d < w and owner[cy, cx + d] != 0):
            return False
    return True


@njit
def _cross_cover(g, p, arm, owner, budget):
    """Cover every cell of colour p with crosses of arms `arm` long, none overlapping, each on non-zero
    cells only, by backtracking (fewest hidden cells first); `owner` (zeros) comes back marking
    the crosses' cells. False when there is no such cover, or none before `budget[0]` (steps, counted
    down) runs out."""
    h, w = g.shape
    cy = np.empty(h * w, dtype=np.int64)
    cx = np.empty(h * w, dtype=np.int64)
    hidden = np.empty(h * w, dtype=np.int64)
    k = 0
    for y in range(h):
        for x in range(w):
            shown, cells, whole = 0, 0, True  # a cross may run past the edge
            for d in range(-arm, arm + 1):
                if 0 <= y + d < h:
                    whole &= g[y + d, x] != 0
                    shown += g[y + d, x] == p
                    cells += 1
                if d != 0 and 0 <= x + d < w:
                    whole &= g[y, x + d] != 0
                    shown += g[y, x + d] == p
                    cells += 1
            if whole and shown > 0:
                cy[k], cx[k], hidden[k] = y, x, cells - shown
                k += 1
    order = np.argsort(hidden[:k], kind="mergesort")
    py, px = np.nonzero(g == p)
    tried = np.full(py.shape[0] + 1, -1, dtype=np.int64)  # per depth: the position in `order` placed there
    depth = 0
    while budget[0] > 0:
        budget[0] -= 1
        first = -1  # the first p cell no cross covers yet
        for i in range(py.shape[0]):
            if owner[py[i], px[i]] == 0:
                first = i
                break
        if first < 0:
            return True
        j = tried[depth] + 1
        while j < k:
            c = order[j]
            if _on_cross(py[first], px[first], cy[c], cx[c], arm) and _cross_free(owner, cy[c], cx[c], arm):
                break
            j += 1
        if j < k:
            tried[depth] = j
            _mark_cross(owner, cy[order[j]], cx[order[j]], arm, depth + 1)
            depth += 1
            tried[depth] = -1
            continue
        if depth == 0:
            return False
        depth -= 1  # take back the cross placed at this depth and try the next one there
        c = order[tried[depth]]
        _mark_cross(owner, cy[c], cx[c], arm, 0)
    return False


@primitive(cost=2.5, shape="keep", kernel=True)
def complete_crosses(g: Grid) -> Grid | None:
    """Crosses of the rarer of two colours, partly hidden by the other: whole crosses, their hidden cells a marker."""
    h, w = g.shape
    n = counts(g)
    a, b = two_colours(n)
    if a == 0:
        return empty()
    p, noise = (a, b) if n[a] < n[b] else (b, a)
    if 4 * n[p] > n[noise]:
        return empty()  # too many crosses' cells to hide under so few of the other colour
    owner = np.zeros((h, w), dtype=np.int64)
    budget = np.full(1, 1000, dtype=np.int64)  # backtracking steps for all the arm lengths together
    for arm in range(min(6, min(h, w) // 2), 0, -1):  # the longest arms that cover every cell of p
        owner[:, :] = 0
        if _cross_cover(g, p, arm, owner, budget):
            out = g.copy()
            for y in range(h):
                for x in range(w):
                    if owner[y, x] != 0 and g[y, x] != p:
                        out[y, x] = MARKER
            return out
    return empty()
