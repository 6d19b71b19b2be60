"""Region primitives: filling enclosed areas, holes, rooms and empty boxes, and marking empty lines.

Background is colour 0. A primitive that does not apply to its input returns None. Every primitive
here is a compiled kernel (see `registry.primitive`): the body is numba's subset of Python, a
grid in, a new grid (or the empty grid for None) out.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import (
    bbox_nonzero,
    boxes_by_colour,
    counts,
    empty,
    enclosed_zeros,
    label,
    label_boxes,
    lone_cell,
    paste,
    two_colours,
    uniform_lines,
)
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import MARKER, Color, Grid


@njit
def _boxes(lab, n):
    """`label_boxes` as columns: per label 1 .. n, (top, left, bottom, right) inclusive and the cell count."""
    b = label_boxes(lab, n)
    return b[:, 0], b[:, 1], b[:, 2], b[:, 3], b[:, 4]


@njit
def _mask(g, c):
    """1 where g == c, else 0 (uint8): the cells of one colour as a grid `label` takes."""
    h, w = g.shape
    m = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                m[y, x] = 1
    return m


@primitive(cost=1, shape="keep", kernel=True)
def fill_enclosed(g: Grid) -> Grid:
    """Mark the zero cells that cannot reach the border (holes inside shapes)."""
    holes = enclosed_zeros(g)
    out = g.copy()
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            if holes[y, x]:
                out[y, x] = MARKER
    return out


@primitive(cost=1.5, shape="keep", kernel=True)
def fill_square_holes(g: Grid) -> Grid | None:
    """Mark the holes (zero regions that cannot reach the border) shaped as a full square."""
    lab, n = label(enclosed_zeros(g).astype(np.uint8), False, False)
    y0, x0, y1, x1, size = _boxes(lab, n)
    out = g.copy()
    for i in range(1, n + 1):
        bh, bw = y1[i] - y0[i] + 1, x1[i] - x0[i] + 1
        if bh == bw and size[i] == bh * bw:
            out[y0[i]:y1[i] + 1, x0[i]:x1[i] + 1] = MARKER
    return out


@njit
def _voronoi_line(fy, fx, n, d, c, stack, f0, f1):
    """One pass of scipy's exact Euclidean feature transform (Maurer et al.) along a line of n cells,
    in place: fy, fx hold each cell's nearest feature so far (fy < 0: none); d is the axis the line
    runs along (0: a column, 1: a row), c the line's coordinate on the other axis. Ties go as scipy's.
    f0, f1: scratch room for n cells."""
    for i in range(n):
        f0[i] = fy[i]
        f1[i] = fx[i]
    top = -1
    for i in range(n):
        if f0[i] < 0:
            continue
        fd = f0[i] if d == 0 else f1[i]
        fo = f1[i] if d == 0 else f0[i]
        wr = (fo - c) * (fo - c)
        while top >= 1:
            i1 = stack[top]
            i2 = stack[top - 1]
            d1 = f0[i1] if d == 0 else f1[i1]
            d2 = f0[i2] if d == 0 else f1[i2]
            o1 = f1[i1] if d == 0 else f0[i1]
            o2 = f1[i2] if d == 0 else f0[i2]
            a = d1 - d2
            b = fd - d1
            cc = a + b
            ur = (o2 - c) * (o2 - c)
            vr = (o1 - c) * (o1 - c)
            if cc * vr - b * ur - a * wr - a * b * cc <= 0:
                break
            top -= 1
        top += 1
        stack[top] = i
    if top < 0:
        return
    last = top
    k = 0
    for i in range(n):
        s = stack[k]
        dd = (f0[s] if d == 0 else f1[s]) - i
        do = (f1[s] if d == 0 else f0[s]) - c
        delta1 = dd * dd + do * do
        while k < last:
            s = stack[k + 1]
            dd = (f0[s] if d == 0 else f1[s]) - i
            do = (f1[s] if d == 0 else f0[s]) - c
            delta2 = dd * dd + do * do
            if delta1 <= delta2:
                break
            delta1 = delta2
            k += 1
        fy[i] = f0[stack[k]]
        fx[i] = f1[stack[k]]


@njit
def _nearest_nonzero(g, need):
    """For every cell of the rows y with need[y], (row, column) grids of its nearest non-zero cell
    (Euclidean), exactly as scipy.ndimage.distance_transform_edt(g == 0, return_indices=True) picks them."""
    h, w = g.shape
    ny = np.full((h, w), -1, dtype=np.int64)
    nx = np.zeros((h, w), dtype=np.int64)
    m = max(h, w)
    ly = np.empty(m, dtype=np.int64)
    lx = np.empty(m, dtype=np.int64)
    stack = np.empty(m, dtype=np.int64)
    f0 = np.empty(m, dtype=np.int64)
    f1 = np.empty(m, dtype=np.int64)
    for x in range(w):  # along each column
        for y in range(h):
            ly[y] = y if g[y, x] != 0 else -1
            lx[y] = x if g[y, x] != 0 else 0
        _voronoi_line(ly, lx, h, 0, x, stack, f0, f1)
        for y in range(h):
            ny[y, x] = ly[y]
            nx[y, x] = lx[y]
    for y in range(h):  # then along each row (a row's pass changes only its own cells)
        if not need[y]:
            continue
        for x in range(w):
            ly[x] = ny[y, x]
            lx[x] = nx[y, x]
        _voronoi_line(ly, lx, w, 1, y, stack, f0, f1)
        for x in range(w):
            ny[y, x] = ly[x]
            nx[y, x] = lx[x]
    return ny, nx


@primitive(cost=1.5, shape="keep", kernel=True)
def fill_holes_own(g: Grid) -> Grid | None:
    """Fill the zero cells that cannot reach the border with the colour of the nearest non-zero cell."""
    holes = enclosed_zeros(g)
    h, w = g.shape
    rows = np.zeros(h, dtype=np.bool_)  # the rows with a hole
    some = False
    for y in range(h):
        for x in range(w):
            if holes[y, x]:
                rows[y] = True
                some = True
                break
    if not some:
        return empty()
    ny, nx = _nearest_nonzero(g, rows)
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if holes[y, x]:
                out[y, x] = g[ny[y, x], nx[y, x]]
    return out


@primitive(cost=1.5, shape="keep", kernel=True)
def flood_rooms(g: Grid) -> Grid | None:
    """Flood each room (walled off by the commonest non-zero colour) holding one other colour with it."""
    cnt = counts(g)
    cnt[0] = 0
    if cnt.max() == 0:
        return empty()
    wall = np.argmax(cnt)
    h, w = g.shape
    rooms = np.ones((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            if g[y, x] == wall:
                rooms[y, x] = 0
    lab, n = label(rooms, False, False)
    seen = np.zeros(n + 1, dtype=np.int64)  # per room, a bit per non-zero colour in it
    for y in range(h):
        for x in range(w):
            if lab[y, x] != 0 and g[y, x] != 0:
                seen[lab[y, x]] |= np.int64(1) << np.int64(g[y, x])
    fill = np.zeros(n + 1, dtype=np.int64)  # the room's one colour, or 0
    for i in range(1, n + 1):
        bits = seen[i]
        if bits != 0 and bits & (bits - 1) == 0:
            c = 0
            while bits > 1:
                bits >>= 1
                c += 1
            fill[i] = c
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if g[y, x] == 0 and lab[y, x] != 0 and fill[lab[y, x]] != 0:
                out[y, x] = fill[lab[y, x]]
    return out


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def flood_from(g: Grid, c: Color) -> Grid | None:
    """Every empty region (4-connected) that touches a cell of colour c is flooded with c."""
    h, w = g.shape
    present = False
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                present = True
    if not present:
        return empty()  # no seed
    lab, n = label(_mask(g, 0), False, False)
    hit = np.zeros(n + 1, dtype=np.bool_)
    seeded = False
    for y in range(h):
        for x in range(w):
            if g[y, x] != c:
                continue
            seeded = True
            hit[lab[y, x]] = True  # a seed of colour 0 is itself empty
            for k in range(4):
                sy = y + (1 if k == 0 else -1 if k == 1 else 0)
                sx = x + (1 if k == 2 else -1 if k == 3 else 0)
                if 0 <= sy < h and 0 <= sx < w:
                    hit[lab[sy, sx]] = True
    if not seeded:
        return empty()
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if lab[y, x] != 0 and hit[lab[y, x]]:
                out[y, x] = c
    return out


@primitive(cost=2, shape="keep", kernel=True)
def flood_alternate(g: Grid) -> Grid | None:
    """The two colours besides the walls (the commonest) spread over the zeros they reach, taking turns step by step."""
    cnt = counts(g)
    wall, a, b = 0, 0, 0
    for c in range(1, 10):
        if cnt[c] > cnt[wall] or wall == 0 and cnt[c] > 0:
            wall = c
    for c in range(1, 10):
        if c != wall and cnt[c] > 0:
            if a == 0:
                a = c
            elif b == 0:
                b = c
            else:
                return empty()  # a third colour: not two taking turns
    if b == 0:
        return empty()
    h, w = g.shape
    out = g.copy()
    queue = np.empty(h * w, dtype=np.int64)
    n = 0
    for i in range(h * w):
        if g[i // w, i % w] == a or g[i // w, i % w] == b:
            queue[n] = i
            n += 1
    head = 0
    while head < n:  # breadth first: a cell takes the colour its first neighbour reached does not have
        y, x = queue[head] // w, queue[head] % w
        head += 1
        nxt = a if out[y, x] == b else b
        for k in range(4):
            sy = y + (1 if k == 0 else -1 if k == 1 else 0)
            sx = x + (1 if k == 2 else -1 if k == 3 else 0)
            if 0 <= sy < h and 0 <= sx < w and out[sy, sx] == 0:
                out[sy, sx] = nxt
                queue[n] = sy * w + sx
                n += 1
    return out if n > cnt[a] + cnt[b] else empty()


@njit
def _same_shape(la, i, ay, ax, lb, j, by, bx, bh, bw):
    """Whether label i of la (box at (ay, ax)) and label j of lb (at (by, bx)) fill the same cells of a bh x bw box."""
    for y in range(bh):
        for x in range(bw):
            if (la[ay + y, ax + x] == i) != (lb[by + y, bx + x] == j):
                return False
    return True


@primitive(cost=2, shape="keep", kernel=True)
def fit_into_holes(g: Grid) -> Grid | None:
    """Every shape of one colour that has the exact shape of one enclosed hole moves into it."""
    # of several shapes that fit a hole, the one whose colour no other shape has; a shape that
    # fits two holes moves into neither
    hl, nh = label(enclosed_zeros(g).astype(np.uint8), False, False)
    if nh == 0 or nh > 20:
        return empty()
    pl, npc = label(g, True, True)
    if npc > 40:
        return empty()
    hy0, hx0, hy1, hx1, hsize = _boxes(hl, nh)
    py0, px0, py1, px1, psize = _boxes(pl, npc)
    colour = np.zeros(npc + 1, dtype=np.int64)
    for y in range(g.shape[0]):
        for x in range(g.shape[1]):
            colour[pl[y, x]] = g[y, x]
    shapes = np.zeros(256, dtype=np.int64)  # how many shapes have each colour (any byte: the search's images hold 10)
    for j in range(1, npc + 1):
        shapes[colour[j]] += 1
    match = np.full(nh + 1, -1, dtype=np.int64)  # the shape that fits each hole (0: two as good)
    fits = np.zeros(npc + 1, dtype=np.int64)  # how many holes each shape fits
    for i in range(1, nh + 1):
        bh, bw = hy1[i] - hy0[i] + 1, hx1[i] - hx0[i] + 1
        rank = -1  # the best fit so far: 1 when its colour is its shape's own
        for j in range(1, npc + 1):
            if psize[j] != hsize[i] or py1[j] - py0[j] + 1 != bh or px1[j] - px0[j] + 1 != bw:
                continue
            if not _same_shape(hl, i, hy0[i], hx0[i], pl, j, py0[j], px0[j], bh, bw):
                continue
            r = 1 if shapes[colour[j]] == 1 else 0
            if r > rank:
                match[i], rank = j, r
            elif r == rank:
                match[i] = 0
        if match[i] > 0:
            fits[match[i]] += 1
    out = g.copy()
    hit = False
    for i in range(1, nh + 1):
        j = match[i]
        if j <= 0 or fits[j] != 1:
            continue  # no shape fits, or the match is not one to one
        for y in range(py0[j], py1[j] + 1):
            for x in range(px0[j], px1[j] + 1):
                if pl[y, x] == j:
                    out[y, x] = 0
        for y in range(hy0[i], hy1[i] + 1):
            for x in range(hx0[i], hx1[i] + 1):
                if hl[y, x] == i:
                    out[y, x] = colour[j]
        hit = True
    return out if hit else empty()


@primitive(cost=2, params=((2,), (3,)), shape="keep", kernel=True)
def fill_empty_squares(g: Grid, k: int) -> Grid | None:
    """Paint marker colour over k x k blocks of zeros, taken in reading order without overlap."""
    h, w = g.shape
    if h < k or w < k:
        return empty()
    free = np.zeros((h, w), dtype=np.bool_)
    for y in range(h):
        for x in range(w):
            free[y, x] = g[y, x] == 0
    full = np.zeros((h - k + 1, w - k + 1), dtype=np.bool_)  # the k x k block at (y, x) is all zeros
    anyfull = False
    for y in range(h - k + 1):
        for x in range(w - k + 1):
            ok = True
            for i in range(k):
                for j in range(k):
                    if not free[y + i, x + j]:
                        ok = False
            full[y, x] = ok
            anyfull = anyfull or ok
    if not anyfull:
        return empty()
    for y in range(h - k + 1):
        for x in range(w - k + 1):
            if not full[y, x]:
                continue
            ok = True
            for i in range(k):
                for j in range(k):
                    if not free[y + i, x + j]:
                        ok = False
            if ok:
                for i in range(k):
                    for j in range(k):
                        free[y + i, x + j] = False
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if g[y, x] == 0 and not free[y, x]:
                out[y, x] = MARKER
    return out


@njit
def _largest_empty_rect(g):
    """(area, top, left, bottom, right) of the largest rectangle of zeros, 2 x 2 or more (a stack over
    column heights, row by row; the first found in reading order wins ties); area -1 when there is none."""
    h, w = g.shape
    heights = np.zeros(w, dtype=np.int64)
    stack = np.empty(w + 1, dtype=np.int64)
    best, by0, bx0, by1, bx1 = -1, 0, 0, 0, 0
    for y in range(h):
        for x in range(w):
            heights[x] = heights[x] + 1 if g[y, x] == 0 else 0
        top = 0
        for x in range(w + 1):
            cur = heights[x] if x < w else 0
            while top > 0 and heights[stack[top - 1]] >= cur:
                t = stack[top - 1]
                top -= 1
                left = stack[top - 1] + 1 if top > 0 else 0
                hh, ww = heights[t], x - left
                if hh >= 2 and ww >= 2 and (best < 0 or hh * ww > best):
                    best, by0, bx0, by1, bx1 = hh * ww, y - hh + 1, left, y, x - 1
            stack[top] = x
            top += 1
    return best, by0, bx0, by1, bx1


@primitive(cost=2, shape="keep", kernel=True)
def mark_empty_rect(g: Grid) -> Grid | None:
    """Mark the largest rectangle of zeros (2 x 2 or more)."""
    area, y0, x0, y1, x1 = _largest_empty_rect(g)
    if area < 0 or area == g.size:
        return empty()
    out = g.copy()
    out[y0:y1 + 1, x0:x1 + 1] = MARKER
    return out


@primitive(cost=2, kernel=True)
def crop_block(g: Grid) -> Grid | None:
    """Crop to the largest rectangle (3 x 3 or more) of one colour, stray cells inside it allowed."""
    # a cell of another colour with three neighbours of that colour counts as it (noise in a block);
    # the whole grid does not count
    h, w = g.shape
    free = np.ones((h, w), dtype=np.uint8)
    best, by0, bx0, by1, bx1 = 0, 0, 0, 0, 0
    n = counts(g)
    for c in range(10):
        if n[c] < 5:  # too few for a 3 x 3 block
            continue
        for y in range(h):
            for x in range(w):
                same = 0
                if y > 0 and g[y - 1, x] == c:
                    same += 1
                if y + 1 < h and g[y + 1, x] == c:
                    same += 1
                if x > 0 and g[y, x - 1] == c:
                    same += 1
                if x + 1 < w and g[y, x + 1] == c:
                    same += 1
                free[y, x] = 0 if g[y, x] == c or same >= 3 else 1
        area, y0, x0, y1, x1 = _largest_empty_rect(free)
        if area > best and y1 - y0 >= 2 and x1 - x0 >= 2 and area < h * w:
            best, by0, bx0, by1, bx1 = area, y0, x0, y1, x1
    if best == 0:
        return empty()
    return g[by0:by1 + 1, bx0:bx1 + 1].copy()


@primitive(cost=2, shape="keep", kernel=True)
def fill_colour_boxes(g: Grid) -> Grid | None:
    """Every colour with 2+ cells fills the box its cells span (larger boxes first, smaller on top)."""
    y0, x0, y1, x1, size = boxes_by_colour(g)
    area = np.full(10, -1, dtype=np.int64)
    for c in range(1, 10):
        if size[c] >= 2:
            area[c] = (y1[c] - y0[c] + 1) * (x1[c] - x0[c] + 1)
    if area.max() < 0:
        return empty()
    out = g.copy()
    while area.max() >= 0:  # the largest box first; of equal ones, the higher colour first
        best = 0
        for c in range(1, 10):
            if area[c] >= 0 and (best == 0 or area[c] >= area[best]):
                best = c
        out[y0[best]:y1[best] + 1, x0[best]:x1[best] + 1] = best
        area[best] = -1
    return out


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def repair_boxes(g: Grid, c: Color) -> Grid | None:
    """Cells of colour c take the colour of the topmost box (the span of a colour's cells, 0's too) over them."""
    # c marks over overlapping boxes
    # of two boxes, the one showing more cells where they overlap is on top; else the smaller
    y0, x0, y1, x1, size = boxes_by_colour(g)
    if c > 9 or size[c] == 0:
        return empty()
    h, w = g.shape
    over = np.zeros(10, dtype=np.bool_)  # the colours whose box lies over some cell of c
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                for a in range(10):
                    if a != c and size[a] >= 2 and y0[a] <= y <= y1[a] and x0[a] <= x <= x1[a]:
                        over[a] = True
    shown = np.zeros((10, 10), dtype=np.int64)  # shown[a, b]: cells of a where the boxes of a and b overlap
    for a in range(10):
        for b in range(10):
            if a == b or not over[a] or not over[b]:
                continue
            for y in range(max(y0[a], y0[b]), min(y1[a], y1[b]) + 1):
                for x in range(max(x0[a], x0[b]), min(x1[a], x1[b]) + 1):
                    if g[y, x] == a:
                        shown[a, b] += 1
    area = (y1 - y0 + 1) * (x1 - x0 + 1)
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if g[y, x] != c:
                continue
            top = -1
            for a in range(10):
                if not over[a] or not (y0[a] <= y <= y1[a] and x0[a] <= x <= x1[a]):
                    continue
                if top < 0 or shown[a, top] > shown[top, a] or (
                        shown[a, top] == shown[top, a] and area[a] < area[top]):
                    top = a
            out[y, x] = max(top, 0)
    return out


@primitive(cost=2, shape="keep", kernel=True)
def fill_to_corner(g: Grid) -> Grid | None:
    """Every lone cell (no non-zero neighbour of eight) fills the zeros of its box to the nearest grid corner."""
    # None when a lone cell sits midway on an axis (no nearest corner)
    h, w = g.shape
    out = g.copy()
    found = False
    for y in range(h):
        for x in range(w):
            c = g[y, x]
            if c == 0 or not lone_cell(g, y, x):
                continue
            up, down, left, right = y, h - 1 - y, x, w - 1 - x
            if up == down or left == right:
                return empty()
            y0, y1 = (0, y) if up < down else (y, h - 1)
            x0, x1 = (0, x) if left < right else (x, w - 1)
            for yy in range(y0, y1 + 1):
                for xx in range(x0, x1 + 1):
                    if out[yy, xx] == 0:
                        out[yy, xx] = c
            found = True
    if not found:
        return empty()
    return out


@njit
def _clusters(g, c):
    """The cells of colour c as (ys, xs) and each one's cluster (its root): cells at most one cell apart
    (a gap of one, any direction) share a cluster."""
    h, w = g.shape
    k = counts(g)[c]
    ys = np.empty(k, dtype=np.int64)
    xs = np.empty(k, dtype=np.int64)
    k = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                ys[k], xs[k] = y, x
                k += 1
    root = np.arange(k)
    for a in range(k):
        for b in range(a + 1, k):
            if ys[b] - ys[a] > 2:
                break  # reading order: every later cell is further down
            if abs(xs[b] - xs[a]) <= 2:
                ra, rb = a, b
                while root[ra] != ra:
                    ra = root[ra]
                while root[rb] != rb:
                    rb = root[rb]
                if ra != rb:
                    root[max(ra, rb)] = min(ra, rb)
    for a in range(k):
        r = a
        while root[r] != r:
            r = root[r]
        root[a] = r
    return ys, xs, root


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def box_colour_objects(g: Grid, c: Color) -> Grid | None:
    """Mark every other cell in the box of each cluster of colour c (cells at most one cell apart)."""
    ys, xs, root = _clusters(g, c)
    k = len(ys)
    if k == 0:
        return empty()
    h, w = g.shape
    y0 = np.full(k, h, dtype=np.int64)
    x0 = np.full(k, w, dtype=np.int64)
    y1 = np.full(k, -1, dtype=np.int64)
    x1 = np.full(k, -1, dtype=np.int64)
    for a in range(k):
        r = root[a]
        y0[r], x0[r] = min(y0[r], ys[a]), min(x0[r], xs[a])
        y1[r], x1[r] = max(y1[r], ys[a]), max(x1[r], xs[a])
    out = g.copy()
    marked = False
    for r in range(k):
        if root[r] != r:
            continue
        for y in range(y0[r], y1[r] + 1):
            for x in range(x0[r], x1[r] + 1):
                if g[y, x] != c:
                    out[y, x] = MARKER
                    marked = True
    if not marked:
        return empty()
    return out


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def mark_in_box(g: Grid, c: Color) -> Grid | None:
    """Mark the cells of other non-zero colours inside the bounding box of colour c."""
    y0, x0, y1, x1 = bbox_nonzero(g == c)
    if y1 < 0:
        return empty()
    out = g.copy()
    hit = False
    for y in range(y0, y1):
        for x in range(x0, x1):
            if g[y, x] != 0 and g[y, x] != c:
                out[y, x] = MARKER
                hit = True
    return out if hit else empty()


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def fill_placeholders(g: Grid, c: Color) -> Grid | None:
    """Every solid block of colour c the size of the pattern (the cells of other colours) becomes a copy of it."""
    if c == 0:
        return empty()  # the pattern's box has no zeros, and there are no blocks of colour 0 to fill
    h, w = g.shape
    # the pattern: the box of the cells of colours other than 0 and c
    y0, x0, y1, x1 = h, w, -1, -1
    nc = 0
    for y in range(h):
        for x in range(w):
            v = g[y, x]
            if v == c:
                nc += 1
            elif v != 0:
                y0, x0, y1, x1 = min(y0, y), min(x0, x), max(y1, y), max(x1, x)
    if y1 < 0:
        return empty()
    ph, pw = y1 - y0 + 1, x1 - x0 + 1
    if nc < ph * pw:
        return empty()  # too few cells of c for one block
    for y in range(y0, y0 + ph):
        for x in range(x0, x0 + pw):
            if g[y, x] == c:
                return empty()  # the pattern holds c
    lab, n = label(_mask(g, c), False, False)
    by0, bx0, by1, bx1, size = _boxes(lab, n)
    out = g.copy()
    hit = False
    for i in range(1, n + 1):
        if by1[i] - by0[i] + 1 == ph and bx1[i] - bx0[i] + 1 == pw and size[i] == ph * pw:
            paste(out, by0[i], bx0[i], g[y0:y0 + ph, x0:x0 + pw])
            hit = True
    return out if hit else empty()


@primitive(cost=1.5, shape="keep", kernel=True)
def mark_empty_lines(g: Grid) -> Grid | None:
    """Mark every row and every column that is all zeros."""
    h, w = g.shape
    rows, cols = uniform_lines(g, 0)
    if not rows.any() and not cols.any() or rows.all():
        return empty()
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if rows[y] or cols[x]:
                out[y, x] = MARKER
    return out


@primitive(cost=1.5, shape="keep", kernel=True)
def fill_open_lines(g: Grid) -> Grid | None:
    """Mark the inside of every row and column that is empty between its two end cells."""
    h, w = g.shape
    if h < 3 or w < 3:
        return empty()
    rows = np.ones(h, dtype=np.bool_)
    cols = np.ones(w, dtype=np.bool_)
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                if 0 < x < w - 1:
                    rows[y] = False
                if 0 < y < h - 1:
                    cols[x] = False
    if not rows.any() and not cols.any():
        return empty()
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if rows[y] and 0 < x < w - 1 or cols[x] and 0 < y < h - 1:
                out[y, x] = MARKER
    return out


@njit
def _water_lands(g, y, x):
    """Where water dropped at (y, x) comes to rest: falling, then running along its floor to the first
    gap (left side first); (y, x) of the cell it pools on, y = -1 when it runs off the grid."""
    h, w = g.shape
    for _ in range(h * w):
        while y + 1 < h and g[y + 1, x] == 0:
            y += 1
        if y == h - 1:
            return -1, x
        gap = -1
        for step in (-1, 1):
            xx = x + step
            while 0 <= xx < w and g[y, xx] == 0:
                if g[y + 1, xx] == 0:
                    gap = xx
                    break
                xx += step
            if gap >= 0:
                break
            if not 0 <= xx < w:
                return -1, x  # it runs off the side
        if gap < 0:
            return y, x
        x = gap
    return -1, x


@primitive(cost=2, shape="keep", first=True, kernel=True)
def pour_into_cup(g: Grid) -> Grid | None:
    """A lone drop falls and runs to the cup that holds it, which fills with its colour; if none, the bottom row."""
    h, w = g.shape
    n = counts(g)
    drop, cup = two_colours(n)
    if n[drop] != 1:
        drop, cup = cup, drop
    if drop == 0 or n[drop] != 1:
        return empty()
    sy, sx = 0, 0
    for y in range(h):
        for x in range(w):
            if g[y, x] == drop:
                sy, sx = y, x
    out = g.copy()
    out[sy, sx] = 0
    sy, sx = _water_lands(out, sy, sx)
    seen = np.zeros((h, w), dtype=np.bool_)
    leak = sy < 0
    if not leak:
        lab, _ = label(out, True, False)
        rim = h
        for y in range(h):
            for x in range(w):
                if lab[y, x] == lab[sy + 1, sx]:
                    rim = min(rim, y)
        stack = np.empty(h * w, dtype=np.int64)
        seen[sy, sx] = True
        stack[0] = sy * w + sx
        top = 1
        while top > 0:
            top -= 1
            y, x = stack[top] // w, stack[top] % w
            if y == h - 1 or x == 0 or x == w - 1:
                leak = True
                break
            for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                ny, nx = y + dy, x + dx
                if ny >= rim and out[ny, nx] == 0 and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack[top] = ny * w + nx
                    top += 1
    if leak:
        out[h - 1, :] = drop
        return out
    for y in range(h):
        for x in range(w):
            if seen[y, x]:
                out[y, x] = drop
    return out


@primitive(cost=2, shape="keep", kernel=True)
def fill_largest_gaps(g: Grid) -> Grid | None:
    """In one-colour noise, the largest free rectangle of zeros (2 x 2 or more) takes a marker, then the next, ..."""
    h, w = g.shape
    zeros = 0
    ink = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] == 0:
                zeros += 1
            elif ink == 0:
                ink = g[y, x]
            elif g[y, x] != ink:
                return empty()
    if 2 * zeros > h * w or 5 * zeros < h * w:
        return empty()
    out = g.copy()  # its zeros are the cells still free
    filled = 0
    for _ in range(64):
        best, by0, bx0, by1, bx1 = 0, 0, 0, 0, 0
        for y0 in range(h - 1):
            for x0 in range(w - 1):
                if out[y0, x0] != 0:
                    continue
                width = w - x0
                for y1 in range(y0, h):
                    x = x0
                    while x - x0 < width and out[y1, x] == 0:
                        x += 1
                    width = x - x0
                    if width < 2:
                        break
                    if y1 > y0 and (y1 - y0 + 1) * width > best:
                        best, by0, bx0, by1, bx1 = (y1 - y0 + 1) * width, y0, x0, y1, x0 + width - 1
        if best == 0:
            break
        for y in range(by0, by1 + 1):
            for x in range(bx0, bx1 + 1):
                out[y, x] = MARKER
        filled += 1
    if filled == 0:
        return empty()
    return out
