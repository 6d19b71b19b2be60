"""Motion primitives: gravity, sliding, attraction and alignment of objects, and copies to markers.

Background is colour 0. A primitive that does not apply to its input returns None. Every one is a
compiled kernel (`registry.primitive(kernel=True)`); objects are the components of
`objects.components`, in its order (`kernels.object_cells`). Objects placed into blocks, corners,
panels and gaps are in `placement`.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import (
    biggest_object,
    cells_box,
    colour_and_rest,
    counts,
    empty,
    lone_cell,
    object_cells,
    one_colour_row,
    split_colour,
    turned_back,
)
from shared.solvers.dsl.primitives.registry import DOWN, LEFT, UP, WORDS, primitive
from shared.solvers.dsl.types import MARKER, Color, Grid

_CENTRE = WORDS.index("centre")


@njit
def _unit(direction):
    """(dy, dx) of one step in a direction (registry.DOWN, UP, LEFT or RIGHT)."""
    if direction == DOWN:
        return 1, 0
    if direction == UP:
        return -1, 0
    if direction == LEFT:
        return 0, -1
    return 0, 1


@njit
def _stable_order(keys):
    """The indices of keys sorted ascending, equal keys in their given order (insertion sort)."""
    n = len(keys)
    order = np.arange(n)
    for i in range(1, n):
        j = i
        while j > 0 and keys[order[j - 1]] > keys[order[j]]:
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1
    return order


@primitive(cost=2, shape="keep", kernel=True)
def cross_by_count(g: Grid) -> Grid | None:
    """A cross of one full row and column moves away from the marker cells, one step each way per marker; they go."""
    h, w = g.shape
    n = counts(g)
    colour, row, col = -1, -1, -1
    for c in range(1, 10):
        if n[c] != h + w - 1:
            continue
        for y in range(h):
            if (g[y] == c).all():
                row = y
        for x in range(w):
            if (g[:, x] == c).all():
                col = x
        if row >= 0 and col >= 0:
            colour = c
            break
    if colour < 0:
        return empty()
    k, sy, sx = 0, 0, 0  # the markers: how many, and the sums of their offsets from the crossing
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0 and g[y, x] != colour:
                k += 1
                sy += y - row
                sx += x - col
    if k == 0:
        return empty()
    ny = row - k * (1 if sy > 0 else (-1 if sy < 0 else 0))
    nx = col - k * (1 if sx > 0 else (-1 if sx < 0 else 0))
    if not (0 <= ny < h and 0 <= nx < w):
        return empty()
    out = np.zeros((h, w), dtype=np.uint8)
    out[ny, :] = colour
    out[:, nx] = colour
    return out


@primitive(cost=1.5, params=(("down",), ("up",), ("left",), ("right",)), shape="keep", kernel=True)
def gravity(g: Grid, direction: str) -> Grid:
    """Let every non-zero cell fall in a direction until it rests on another or the edge."""
    h, w = g.shape
    out = np.zeros((h, w), dtype=np.uint8)
    if direction == DOWN or direction == UP:
        for x in range(w):
            k = h - 1 if direction == DOWN else 0
            for i in range(h):
                y = h - 1 - i if direction == DOWN else i
                if g[y, x] != 0:
                    out[k, x] = g[y, x]
                    k += -1 if direction == DOWN else 1
    else:
        for y in range(h):
            k = 0 if direction == LEFT else w - 1
            for i in range(w):
                x = i if direction == LEFT else w - 1 - i
                if g[y, x] != 0:
                    out[y, k] = g[y, x]
                    k += 1 if direction == LEFT else -1
    return out


@njit
def _slide_colour(g, c, dy, dx):
    """g with the cells of colour c moved as one block by (dy, dx) steps until one would leave the
    grid or land on a non-zero cell of another colour."""
    step = 0
    while not _blocked(g, c, dy * (step + 1), dx * (step + 1)):
        step += 1
    return _moved(g, c, dy * step, dx * step)


@njit
def _blocked(g, c, dy, dx):
    """Whether a cell of colour c, moved by (dy, dx), would leave the grid or land on another colour."""
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                ny, nx = y + dy, x + dx
                if ny < 0 or ny >= h or nx < 0 or nx >= w or (g[ny, nx] != 0 and g[ny, nx] != c):
                    return True
    return False


@njit
def _moved(g, c, dy, dx):
    """g with the cells of colour c moved by (dy, dx) (each lands inside the grid)."""
    h, w = g.shape
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                out[y, x] = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                out[y + dy, x + dx] = c
    return out


@primitive(cost=2, params=(("down",), ("up",), ("left",), ("right",)), shape="keep", kernel=True)
def slide_objects(g: Grid, direction: str) -> Grid:
    """Move the cells of the least frequent colour as one block until they touch something."""
    n = counts(g)
    mover, present = 0, 0
    for c in range(1, 16):
        if n[c]:
            present += 1
            if mover == 0 or n[c] < n[mover]:
                mover = c
    if present < 2:
        return g.copy()
    dy, dx = _unit(direction)
    return _slide_colour(g, mover, dy, dx)


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def slide_to(g: Grid, c: Color) -> Grid | None:
    """Move the cells of colour c as one block straight towards the other cells until they touch."""
    (my0, my1, mx0, mx1), (ry0, ry1, rx0, rx1) = colour_and_rest(g, c)
    if c == 0 or my1 < 0 or ry1 < 0:
        return empty()
    if my1 < ry0:
        dy, dx = 1, 0
    elif my0 > ry1:
        dy, dx = -1, 0
    elif mx1 < rx0:
        dy, dx = 0, 1
    elif mx0 > rx1:
        dy, dx = 0, -1
    else:
        return empty()
    return _slide_colour(g, c, dy, dx)


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def step_to(g: Grid, c: Color) -> Grid | None:
    """Move colour c one cell towards the other cells (straight if the two face each other, else diagonally)."""
    mine, rest = colour_and_rest(g, c)
    if c == 0 or mine[1] < 0 or rest[1] < 0:
        return empty()
    _, dy, dx = _towards(mine, rest, True)
    if dy == 0 and dx == 0:
        return empty()
    return empty() if _blocked(g, c, dy, dx) else _moved(g, c, dy, dx)


@njit
def _dock_rows(g):
    """`dock_with_bar` for a wall that is a row: the grid it gives, or the empty grid."""
    # a wall: a full row with every other cell on one side of it; there must be exactly one
    h, w = g.shape
    wall, y0, y1 = -1, h, -1
    for y in range(h):
        if not one_colour_row(g, y):
            continue
        lo, hi = h, -1  # the rows of every other cell: the block
        for v in range(h):
            for x in range(w):
                if v != y and g[v, x] != 0:
                    lo, hi = min(lo, v), max(hi, v)
                    break
        if hi < 0 or lo < y < hi:
            continue
        if wall >= 0:
            return empty()
        wall, y0, y1 = y, lo, hi
    if wall < 0:
        return empty()
    shift = wall - 1 - y1 if y1 < wall else wall + 1 - y0
    bar = y0 + shift - 1 if y1 < wall else y1 + shift + 1
    if bar < 0 or bar >= h:
        return empty()
    out = np.zeros((h, w), dtype=np.uint8)
    for x in range(w):
        out[wall, x] = g[wall, x]
        out[bar, x] = MARKER
    for y in range(y0, y1 + 1):
        for x in range(w):
            if g[y, x] != 0:
                out[y + shift, x] = g[y, x]
    return out


@primitive(cost=2, shape="keep", kernel=True)
def dock_with_bar(g: Grid) -> Grid | None:
    """The cells off the one full line move as a block to touch it; a marker line runs along the block's far side."""
    by_row = _dock_rows(g)
    by_column = turned_back(_dock_rows(g.T.copy()))
    if by_row.size and by_column.size:
        return empty()
    return by_row if by_row.size else by_column


@njit
def _has_run3(g):
    """Whether g has three non-zero cells of one colour side by side in a row or a column."""
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            v = g[y, x]
            if v == 0:
                continue
            if x + 2 < w and g[y, x + 1] == v and g[y, x + 2] == v:
                return True
            if y + 2 < h and g[y + 1, x] == v and g[y + 2, x] == v:
                return True
    return False


@njit
def _has_lone_cell(g):
    """Whether g has a non-zero cell whose eight neighbours are all zero (a one-cell component)."""
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0 and lone_cell(g, y, x):
                return True
    return False


@primitive(cost=2, params=tuple((a, k) for a in ("centre", "colour") for k in (True, False)), shape="keep",
           kernel=True)
def copy_to_markers(g: Grid, align: str, keep: bool) -> Grid | None:
    """Copy the one multi-cell shape onto each one-cell marker (centred, or by its cell of that colour)."""
    # the original shape stays where it was (keep) or is removed
    h, w = g.shape
    if not _has_lone_cell(g):
        return empty()  # no one-cell marker
    n, start, cells = object_cells(g, True, False)
    shape, shapes, marks = -1, 0, 0
    for i in range(n):
        if start[i + 1] - start[i] > 1:
            shape = i
            shapes += 1
        else:
            marks += 1
    if shapes != 1 or marks == 0:
        return empty()
    a, b = start[shape], start[shape + 1]
    y0, y1, x0, x1 = cells_box(cells, a, b, w)
    out = g.copy()
    if not keep:
        for j in range(a, b):
            out[cells[j] // w, cells[j] % w] = 0
    for i in range(n):
        if start[i + 1] - start[i] != 1:
            continue
        my, mx = cells[start[i]] // w, cells[start[i]] % w
        if align == _CENTRE:
            bh, bw = y1 - y0 + 1, x1 - x0 + 1
            if bh % 2 == 0 or bw % 2 == 0:
                return empty()
            oy, ox = bh // 2, bw // 2
        else:
            hits, hit = 0, -1
            for j in range(a, b):
                if g[cells[j] // w, cells[j] % w] == g[my, mx]:
                    hits += 1
                    hit = cells[j]
            if hits != 1:
                return empty()
            oy, ox = hit // w - y0, hit % w - x0
        for j in range(a, b):
            y, x = cells[j] // w, cells[j] % w
            ty, tx = y - y0 + my - oy, x - x0 + mx - ox
            if 0 <= ty < h and 0 <= tx < w:
                out[ty, tx] = g[y, x]
    return out


@njit
def _towards(a, b, diagonal):
    """(ok, dy, dx): the unit step from box a towards box b (each (top, bottom, left, right)), straight
    when they face each other, else diagonal (ok = False: neither straight nor `diagonal`)."""
    ay0, ay1, ax0, ax1 = a
    by0, by1, bx0, bx1 = b
    if ay1 >= by0 and ay0 <= by1:
        return True, 0, (1 if ax1 < bx0 else -1 if ax0 > bx1 else 0)
    if ax1 >= bx0 and ax0 <= bx1:
        return True, (1 if ay1 < by0 else -1 if ay0 > by1 else 0), 0
    if not diagonal:
        return False, 0, 0
    return True, (1 if ay1 < by0 else -1), (1 if ax1 < bx0 else -1)


@njit
def _means(cells, start, n, w):
    """The mean row and mean column of each component's cells."""
    my = np.zeros(n, dtype=np.float64)
    mx = np.zeros(n, dtype=np.float64)
    for i in range(n):
        sy, sx = 0, 0
        for j in range(start[i], start[i + 1]):
            sy += cells[j] // w
            sx += cells[j] % w
        my[i] = sy / (start[i + 1] - start[i])
        mx[i] = sx / (start[i + 1] - start[i])
    return my, mx


@njit
def _move_until_contact(out, cells, a, b, dy, dx, trail):
    """Move the cells cells[a:b] of out in steps of (dy, dx) while the next place is empty and inside
    (with `trail`, a copy stays at every place passed: a line drawn up to the contact)."""
    h, w = out.shape
    m = b - a
    ys = np.empty(m, dtype=np.int64)
    xs = np.empty(m, dtype=np.int64)
    colours = np.empty(m, dtype=np.uint8)
    for j in range(m):
        ys[j], xs[j] = cells[a + j] // w, cells[a + j] % w
        colours[j] = out[ys[j], xs[j]]
    if not trail:
        for j in range(m):
            out[ys[j], xs[j]] = 0
    step = 0
    while True:
        k = step + 1
        stop = False
        for j in range(m):
            ny, nx = ys[j] + dy * k, xs[j] + dx * k
            if ny < 0 or nx < 0 or ny >= h or nx >= w or out[ny, nx] != 0:
                stop = True
                break
        if stop:
            break
        step = k
        if trail:
            for j in range(m):
                out[ys[j] + dy * k, xs[j] + dx * k] = colours[j]
    for j in range(m):
        out[ys[j] + dy * step, xs[j] + dx * step] = colours[j]


@primitive(cost=2, shape="keep", kernel=True)
def attract(g: Grid) -> Grid | None:
    """Every object moves towards the largest one (straight if it faces it, else diagonally) until it touches."""
    h, w = g.shape
    n, start, cells = object_cells(g, True, False)
    if not 2 <= n <= 40:
        return empty()
    big = biggest_object(start, n)
    if big < 0:
        return empty()
    my, mx = _means(cells, start, n, w)
    bb = cells_box(cells, start[big], start[big + 1], w)
    others = np.empty(n - 1, dtype=np.int64)
    gaps = np.empty(n - 1, dtype=np.float64)
    m = 0
    for i in range(n):
        if i != big:
            others[m] = i
            gaps[m] = min(abs(my[i] - my[big]), abs(mx[i] - mx[big]))
            m += 1
    out = g.copy()
    # the nearest objects first, so that the ones behind them stack up against them
    for j in _stable_order(gaps):
        i = others[j]
        _, dy, dx = _towards(cells_box(cells, start[i], start[i + 1], w), bb, True)
        if dy != 0 or dx != 0:
            _move_until_contact(out, cells, start[i], start[i + 1], dy, dx, False)
    return out


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def attract_to(g: Grid, c: Color) -> Grid | None:
    """Every object of other colours in line with a shape of colour c moves straight to the nearest such one."""
    return _pull_to(g, c, False)


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def trail_to(g: Grid, c: Color) -> Grid | None:
    """Every object of other colours in line with a shape of colour c draws itself straight up to the nearest one."""
    return _pull_to(g, c, True)


@njit
def _colour_and_other(g, c):
    """Whether g has a cell of colour c (c non-zero) and a non-zero cell of another colour."""
    if c == 0:
        return False
    h, w = g.shape
    mine, other = False, False
    for y in range(h):
        for x in range(w):
            v = g[y, x]
            if v == c:
                mine = True
            elif v != 0:
                other = True
    return mine and other


@njit
def _pull_to(g, c, trail):
    h, w = g.shape
    if not _colour_and_other(g, c):
        return empty()
    mine, rest = split_colour(g, c)
    na, sa, ca = object_cells(mine, True, False)
    nm, sm, cm = object_cells(rest, True, False)
    if na == 0 or nm == 0 or na * nm > 400:
        return empty()
    ay, ax = _means(ca, sa, na, w)
    my, mx = _means(cm, sm, nm, w)
    pulled = np.empty(nm, dtype=np.int64)
    gaps = np.empty(nm, dtype=np.float64)
    dys = np.empty(nm, dtype=np.int64)
    dxs = np.empty(nm, dtype=np.int64)
    boxes = np.empty((na, 4), dtype=np.int64)  # the shapes of colour c: (top, bottom, left, right)
    for j in range(na):
        boxes[j, 0], boxes[j, 1], boxes[j, 2], boxes[j, 3] = cells_box(ca, sa[j], sa[j + 1], w)
    k = 0
    for i in range(nm):
        box = cells_box(cm, sm[i], sm[i + 1], w)
        best, best_gap = -1, 0.0
        for j in range(na):
            ok, dy, dx = _towards(box, (boxes[j, 0], boxes[j, 1], boxes[j, 2], boxes[j, 3]), False)
            if ok and (dy != 0 or dx != 0):
                gap = min(abs(my[i] - ay[j]), abs(mx[i] - ax[j]))
                if best < 0 or gap < best_gap:
                    best, best_gap = j, gap
        if best >= 0:
            _, dy, dx = _towards(box, (boxes[best, 0], boxes[best, 1], boxes[best, 2], boxes[best, 3]), False)
            pulled[k], gaps[k], dys[k], dxs[k] = i, best_gap, dy, dx
            k += 1
    out = g.copy()
    for j in _stable_order(gaps[:k]):
        i = pulled[j]
        _move_until_contact(out, cm, sm[i], sm[i + 1], dys[j], dxs[j], trail)
    return out


@primitive(cost=2, shape="keep", kernel=True)
def move_into_corners(g: Grid) -> Grid | None:
    """Move everything else as one block to the middle of the box marked by four corner cells of one colour."""
    h, w = g.shape
    big = 1 << 30
    found = 0
    c, y0, x0, y1, x1 = 0, 0, 0, 0, 0
    per = counts(g)
    for v in range(1, 256):
        if per[v] != 4:
            continue
        n, cy0, cy1, cx0, cx1 = 0, big, -1, big, -1
        for y in range(h):
            for x in range(w):
                if g[y, x] == v:
                    n += 1
                    cy0, cy1, cx0, cx1 = min(cy0, y), max(cy1, y), min(cx0, x), max(cx1, x)
        if n != 4 or cy1 - cy0 < 2 or cx1 - cx0 < 2:
            continue
        corners = True
        for y in range(h):
            for x in range(w):
                if g[y, x] == v and not ((y == cy0 or y == cy1) and (x == cx0 or x == cx1)):
                    corners = False
        if corners:
            found += 1
            c, y0, x0, y1, x1 = v, cy0, cx0, cy1, cx1
    if found != 1:
        return empty()
    oy0, oy1, ox0, ox1 = big, -1, big, -1
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0 and g[y, x] != c:
                oy0, oy1, ox0, ox1 = min(oy0, y), max(oy1, y), min(ox0, x), max(ox1, x)
    if oy1 < 0:
        return empty()
    bh, bw = oy1 - oy0 + 1, ox1 - ox0 + 1
    if bh > y1 - y0 - 1 or bw > x1 - x0 - 1:
        return empty()
    ty, tx = y0 + 1 + (y1 - y0 - 1 - bh) // 2, x0 + 1 + (x1 - x0 - 1 - bw) // 2
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0 and g[y, x] != c:
                out[y, x] = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0 and g[y, x] != c:
                out[y - oy0 + ty, x - ox0 + tx] = g[y, x]
    return out


@primitive(cost=2, shape="keep", kernel=True)
def gather_to_lines(g: Grid) -> Grid | None:
    """Each shape moves straight to the one line of its colour, nearest first, stacking; shapes with none vanish."""
    # a shape: 8-connected, one colour; a line: a row or column across all but at most two cells of the grid; a
    # shape stops where it touches its line or a shape of its colour already moved there
    h, w = g.shape
    if not _has_run3(g):
        return empty()  # a line has three cells of its colour side by side
    n, start, cells = object_cells(g, True, True)
    axis = np.full(n, -1, dtype=np.int64)  # 0: a row line, 1: a column line, -1: a shape
    at = np.zeros(n, dtype=np.int64)
    colour = np.zeros(n, dtype=np.int64)
    lines, rest = 0, 0
    for i in range(n):
        a, b = start[i], start[i + 1]
        y0, y1, x0, x1 = cells_box(cells, a, b, w)
        colour[i] = g[cells[a] // w, cells[a] % w]
        if b - a >= max(3, w - 2) and y0 == y1:
            axis[i], at[i] = 0, y0
        elif b - a >= max(3, h - 2) and x0 == x1:
            axis[i], at[i] = 1, x0
        if axis[i] >= 0:
            lines += 1
        else:
            rest += 1
    if lines == 0 or rest == 0:
        return empty()
    out = np.zeros((h, w), dtype=np.uint8)
    for i in range(n):
        if axis[i] >= 0:
            for j in range(start[i], start[i + 1]):
                out[cells[j] // w, cells[j] % w] = colour[i]
    line = np.full(n, -1, dtype=np.int64)  # each shape's line
    gap = np.full(n, h + w, dtype=np.int64)  # how far it is from it
    way = np.zeros(n, dtype=np.int64)  # and which way it moves
    for i in range(n):
        if axis[i] >= 0:
            continue
        mine = 0
        for k in range(n):
            if axis[k] >= 0 and colour[k] == colour[i]:
                mine += 1
                line[i] = k
        if mine != 1:
            line[i] = -1
            continue
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        lo, hi = (y0, y1) if axis[line[i]] == 0 else (x0, x1)
        if lo <= at[line[i]] <= hi:
            return empty()
        gap[i] = lo - at[line[i]] if lo > at[line[i]] else at[line[i]] - hi
        way[i] = -1 if lo > at[line[i]] else 1
    for i in _stable_order(gap):
        if line[i] < 0:
            continue
        k = line[i]
        step = way[i]
        shift = 0
        while True:  # move while the next step stays clear of this colour
            free = True
            for j in range(start[i], start[i + 1]):
                y, x = cells[j] // w, cells[j] % w
                if axis[k] == 0:
                    y += shift + step
                else:
                    x += shift + step
                if y < 0 or y >= h or x < 0 or x >= w or out[y, x] == colour[i]:
                    free = False
                    break
            if not free:
                break
            shift += step
        for j in range(start[i], start[i + 1]):
            y, x = cells[j] // w, cells[j] % w
            if axis[k] == 0:
                out[y + shift, x] = colour[i]
            else:
                out[y, x + shift] = colour[i]
    return out


@primitive(cost=2, shape="keep", kernel=True)
def sort_bars(g: Grid) -> Grid | None:
    """Stack the one-row bars at the bottom, right-aligned, longest lowest."""
    h, w = g.shape
    for y in range(h - 1):
        for x in range(w):
            if g[y, x] != 0 and g[y + 1, x] == g[y, x]:
                return empty()  # a shape of two rows or more
    n, start, cells = object_cells(g, False, True)
    if not 2 <= n <= 30:
        return empty()
    for i in range(n):
        y0, y1, _, _ = cells_box(cells, start[i], start[i + 1], w)
        if y0 != y1:
            return empty()
    if n > h:
        return empty()
    negative = np.empty(n, dtype=np.int64)
    for i in range(n):
        negative[i] = start[i] - start[i + 1]
    out = np.zeros((h, w), dtype=np.uint8)
    r = 0
    for i in _stable_order(negative):
        size = start[i + 1] - start[i]
        c = g[cells[start[i]] // w, cells[start[i]] % w]
        for x in range(w - size, w):
            out[h - 1 - r, x] = c
        r += 1
    return out


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def align_to(g: Grid, c: Color) -> Grid | None:
    """Every other shape slides along its free axis until its top (or left) edge lines up with the shape of colour c."""
    h, w = g.shape
    if not _colour_and_other(g, c):
        return empty()
    out, rest = split_colour(g, c)
    nr, sr, cr = object_cells(out, True, False)
    if nr != 1:
        return empty()
    n, start, cells = object_cells(rest, True, False)
    if n == 0 or n > 30:
        return empty()
    ry0, ry1, rx0, rx1 = cells_box(cr, 0, sr[1], w)
    for i in range(n):
        a, b = start[i], start[i + 1]
        y0, y1, x0, x1 = cells_box(cells, a, b, w)
        dy, dx = 0, 0
        if x1 < rx0 or x0 > rx1:
            dy = ry0 - y0
        elif y1 < ry0 or y0 > ry1:
            dx = rx0 - x0
        if y1 + dy >= h or x1 + dx >= w:
            return empty()
        for j in range(a, b):
            y, x = cells[j] // w, cells[j] % w
            out[y + dy, x + dx] = g[y, x]
    return out


@primitive(cost=2, shape="keep", kernel=True)
def project_onto(g: Grid) -> Grid | None:
    """Every single cell in line with the largest shape paints its colour on the shape's nearest cell in that line."""
    h, w = g.shape
    n, start, cells = object_cells(g, False, True)
    if not 2 <= n <= 40:
        return empty()
    big = 0
    for i in range(1, n):
        if start[i + 1] - start[i] > start[big + 1] - start[big]:
            big = i
    inside = np.zeros((h, w), dtype=np.bool_)
    for j in range(start[big], start[big + 1]):
        inside[cells[j] // w, cells[j] % w] = True
    out = g.copy()
    for i in range(n):
        if start[i + 1] - start[i] != 1:
            continue
        y, x = cells[start[i]] // w, cells[start[i]] % w
        if inside[y, x]:
            continue
        first, last = -1, -1
        for k in range(w):
            if inside[y, k]:
                last = k
                if first < 0:
                    first = k
        if first >= 0:
            out[y, first if first > x else last] = g[y, x]
            continue
        for k in range(h):
            if inside[k, x]:
                last = k
                if first < 0:
                    first = k
        if first >= 0:
            out[first if first > y else last, x] = g[y, x]
    return out
