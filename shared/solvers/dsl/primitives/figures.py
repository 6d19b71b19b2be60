"""Figure primitives: rings, brackets, nested squares and routes drawn from a few marks, bars
answered by lines, and the narrowest pair of a row joined.

Background is colour 0. A primitive that does not apply to its input returns None. Every
primitive here is a compiled kernel (`kernel=True`): a direction arrives as its index in
`registry.WORDS`, a boolean as 0 / 1, and "does not apply" is `empty()`. Lines between
cells, continued, repeated and struck through are in `lines`, whose kernels register first.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import (
    box_corners,
    counts,
    empty,
    first_cells,
    label,
    label_boxes,
    turned_back,
)
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import MARKER, Grid


@njit
def _dots_to_middle(out, a, b, fixed, along_rows):
    """Dots (marker) every other cell from both ends a < b of a side toward its middle, past a ring round each end."""
    for i in range(a + 2, b - 1, 2):
        if 2 * i <= a + b:
            if along_rows:
                out[fixed, i] = MARKER
            else:
                out[i, fixed] = MARKER
    for i in range(b - 2, a + 1, -2):
        if 2 * i >= a + b:
            if along_rows:
                out[fixed, i] = MARKER
            else:
                out[i, fixed] = MARKER


@primitive(cost=2, shape="keep", kernel=True)
def corner_rings(g: Grid) -> Grid | None:
    """Four cells at a box's corners, two colours crosswise: each gets a ring of the other; dots run to mid-sides."""
    h, w = g.shape
    y0, y1, x0, x1 = box_corners(g, -1)
    if y0 < 0 or y1 - y0 < 3 or x1 - x0 < 3:
        return empty()
    ys = np.array([y0, y0, y1, y1])
    xs = np.array([x0, x1, x0, x1])
    a, b = g[y0, x0], g[y0, x1]
    if a == b or g[y1, x1] != a or g[y1, x0] != b:
        return empty()
    out = g.copy()
    for i in range(4):
        other = a if g[ys[i], xs[i]] == b else b
        for y in range(max(0, ys[i] - 1), min(h, ys[i] + 2)):
            for x in range(max(0, xs[i] - 1), min(w, xs[i] + 2)):
                if y != ys[i] or x != xs[i]:
                    out[y, x] = other
    _dots_to_middle(out, x0, x1, y0, True)
    _dots_to_middle(out, x0, x1, y1, True)
    _dots_to_middle(out, y0, y1, x0, False)
    _dots_to_middle(out, y0, y1, x1, False)
    return out


@njit
def _brackets_across(g):
    """`meet_brackets` for two cells on one row (the caller turns a column pair into a row)."""
    h, w = g.shape
    ys, xs, k = first_cells(g, -1, 2)
    if k != 2 or ys[0] != ys[1] or xs[1] - xs[0] < 7 or (xs[1] - xs[0]) % 2 == 0:
        return empty()
    d = xs[1] - xs[0]
    y = ys[0]
    out = g.copy()
    for i in range(2):
        c, step = g[y, xs[i]], 1 if i == 0 else -1
        bar = xs[i] + step * (d - 3) // 2
        for x in range(min(xs[i], bar), max(xs[i], bar) + 1):
            out[y, x] = c
        for yy in range(max(0, y - 2), min(h, y + 3)):
            out[yy, bar] = c
        for yy in (y - 2, y + 2):
            if 0 <= yy < h:
                out[yy, bar + step] = c
    return out


@primitive(cost=2, shape="keep", kernel=True)
def meet_brackets(g: Grid) -> Grid | None:
    """Two cells in line, an odd gap apart: each runs toward the other and ends in a bracket facing the other's."""
    out = _brackets_across(g)
    return out if out.size else turned_back(_brackets_across(g.T.copy()))


@primitive(cost=2, shape="keep", kernel=True)
def mirror_dotted_sides(g: Grid) -> Grid | None:
    """Mirror the cells both ways about the centre; a diagonal corner cell with a cell two along dots that side."""
    h, w = g.shape
    out = g.copy()
    for y in range(h):
        for x in range(w):
            c = g[y, x]
            if c == 0:
                continue
            for yy, xx in ((h - 1 - y, x), (y, w - 1 - x), (h - 1 - y, w - 1 - x)):
                if out[yy, xx] == 0:
                    out[yy, xx] = c
                elif out[yy, xx] != c:
                    return empty()
    dotted = False
    for k in range((min(h, w) - 1) // 2 - 1):
        if out[k, k] == 0 or (w - 1 - 2 * k) % 2 or (h - 1 - 2 * k) % 2:
            continue
        across, down = out[k, k + 2], out[k + 2, k]
        for x in range(k + 2, w - 2 - k, 2):
            if across != 0 and out[k, x] == 0:
                out[k, x] = out[h - 1 - k, x] = across
                dotted = True
        for y in range(k + 2, h - 2 - k, 2):
            if down != 0 and out[y, k] == 0:
                out[y, k] = out[y, w - 1 - k] = down
                dotted = True
    return out if dotted else empty()


@njit
def _bar(g, x):
    """(top, bottom, colour) of the one run of non-zero cells down column x; top = -1 unless there is one run."""
    h = g.shape[0]
    top, bottom = -1, -1
    for y in range(h):
        if g[y, x] != 0:
            if top < 0:
                top = y
            elif bottom != y - 1 or g[y, x] != g[top, x]:
                return -1, -1, 0
            bottom = y
    return top, bottom, g[top, x] if top >= 0 else 0


@njit
def _bars_across(g):
    """`bars_and_dots` for bars down the left and right edges."""
    h, w = g.shape
    l0, l1, a = _bar(g, 0)
    r0, r1, c = _bar(g, w - 1)
    if l0 < 0 or r0 < 0 or a != c or l1 - l0 != r1 - r0 or not (l1 < r0 or r1 < l0) or w < 3:
        return empty()
    out = g.copy()
    dots = 0
    for y in range(h):
        for x in range(1, w - 1):
            b = g[y, x]
            if b == 0:
                continue
            if b == a:
                return empty()
            dots += 1
            if l0 <= y <= l1:
                out[y, 1:x] = b
                out[y - l0 + r0, 0:w - 1] = b
            elif r0 <= y <= r1:
                out[y, x + 1:w - 1] = b
                out[y - r0 + l0, 1:w] = b
            else:
                return empty()
            out[y, x] = MARKER
    return out if dots else empty()


@primitive(cost=2, shape="keep", first=True, kernel=True)
def bars_and_dots(g: Grid) -> Grid | None:
    """Bars on opposite edges: a dot by one is joined to it (the dot a marker); the other bar fires a full line."""
    out = _bars_across(g)
    return out if out.size else turned_back(_bars_across(g.T.copy()))


@primitive(cost=2, shape="keep", first=True, kernel=True)
def corner_squares(g: Grid) -> Grid | None:
    """Coloured corners only: each draws nested square rings every other step over the cells nearest it (ties blank)."""
    h, w = g.shape
    cy = np.array([0, 0, h - 1, h - 1])
    cx = np.array([0, w - 1, 0, w - 1])
    k = 0
    for i in range(4):
        k += g[cy[i], cx[i]] != 0
    if k < 2 or np.count_nonzero(g) != k or h < 3 or w < 3:
        return empty()
    out = np.zeros_like(g)
    for y in range(h):
        for x in range(w):
            best, near, tie = 1 << 30, -1, False
            for i in range(4):
                if g[cy[i], cx[i]] == 0:
                    continue
                d = abs(y - cy[i]) + abs(x - cx[i])
                if d < best:
                    best, near, tie = d, i, False
                elif d == best:
                    tie = True
            if not tie and max(abs(y - cy[near]), abs(x - cx[near])) % 2 == 0:
                out[y, x] = g[cy[near], cx[near]]
    return out


@njit
def _open_outline(out, c, t, b, l, r, shut):
    """Draw in colour c the sides of the box rows t..b, columns l..r that `shut` flags (top, bottom,
    left, right), clipped to the grid; an unflagged side lies past the edge."""
    h, w = out.shape
    for x in range(max(l, 0), min(r, w - 1) + 1):
        if shut[0] and 0 <= t < h:
            out[t, x] = c
        if shut[1] and 0 <= b < h:
            out[b, x] = c
    for y in range(max(t, 0), min(b, h - 1) + 1):
        if shut[2] and 0 <= l < w:
            out[y, l] = c
        if shut[3] and 0 <= r < w:
            out[y, r] = c


@njit
def _shut_sides(labels, i, t, l, b, r):
    """Which sides of label i's box (top, bottom, left, right) the label fills end to end."""
    shut = np.ones(4, dtype=np.bool_)
    for x in range(l, r + 1):
        shut[0] &= labels[t, x] == i
        shut[1] &= labels[b, x] == i
    for y in range(t, b + 1):
        shut[2] &= labels[y, l] == i
        shut[3] &= labels[y, r] == i
    return shut


@primitive(cost=2, shape="keep", kernel=True)
def extend_rings(g: Grid) -> Grid | None:
    """Nested box outlines of one colour, cut by the edge, one step apart: more rings at that step out to the edges."""
    h, w = g.shape
    n = counts(g)
    c = 0
    for k in range(1, 256):
        if n[k] > 0:
            if c != 0:
                return empty()
            c = k
    labels, k = label(g, True, False)
    if c == 0 or k < 2:
        return empty()
    box = label_boxes(labels, k)
    area = (box[1:, 2] - box[1:, 0] + 1) * (box[1:, 3] - box[1:, 1] + 1)
    order = np.argsort(area) + 1
    o = order[k - 1]
    shut = _shut_sides(labels, o, box[o, 0], box[o, 1], box[o, 2], box[o, 3])
    if not shut.any():
        return empty()
    step = 0
    drawn = np.zeros((h, w), dtype=np.uint8)
    for j in range(k):
        i = order[j]
        t, l, b, r = box[i, 0], box[i, 1], box[i, 2], box[i, 3]
        if (_shut_sides(labels, i, t, l, b, r) != shut).any():
            return empty()
        if (not shut[0] and t > 0) or (not shut[1] and b < h - 1) or (not shut[2] and l > 0) \
                or (not shut[3] and r < w - 1):
            return empty()  # an open side short of the edge
        _open_outline(drawn, c, t, b, l, r, shut)
        if j == 0:
            continue
        p = order[j - 1]  # the ring inside this one
        gaps = (box[p, 0] - t, b - box[p, 2], box[p, 1] - l, r - box[p, 3])
        for s in range(4):
            if shut[s]:
                if step == 0:
                    step = gaps[s]
                if gaps[s] != step or step < 2:
                    return empty()
    for y in range(h):
        for x in range(w):
            if (drawn[y, x] != 0) != (g[y, x] != 0):
                return empty()
    t, l, b, r = box[o, 0], box[o, 1], box[o, 2], box[o, 3]
    while (shut[0] and t >= 0) or (shut[1] and b < h) or (shut[2] and l >= 0) or (shut[3] and r < w):
        t, b = t - step if shut[0] else t, b + step if shut[1] else b
        l, r = l - step if shut[2] else l, r + step if shut[3] else r
        _open_outline(drawn, c, t, b, l, r, shut)
    return drawn


@njit
def _route(g, out, y, x, dy, dx, start, goal, ty, tx):
    """Run from (y, x) in direction (dy, dx), painting colour `start` on empty cells, turning toward
    (ty, tx) where the way is blocked, until the next cell holds colour `goal`; False when blocked at
    the first step or straight after a turn, or when no turn leads toward the goal."""
    h, w = g.shape
    turned = True  # the first step may not turn
    for _ in range(h * w):
        ny, nx = y + dy, x + dx
        if 0 <= ny < h and 0 <= nx < w and g[ny, nx] == goal:
            return True
        if 0 <= ny < h and 0 <= nx < w and g[ny, nx] == 0:
            out[ny, nx] = start
            y, x = ny, nx
            turned = False
            continue
        if turned:
            return False
        dy, dx = np.sign(ty - y) if dy == 0 else 0, np.sign(tx - x) if dx == 0 else 0
        if dy == 0 and dx == 0:
            return False
        turned = True
    return False


@primitive(cost=2, params=((True,), (False,)), shape="keep", kernel=True)
def route_around(g: Grid, low: bool) -> Grid | None:
    """A two-cell bar runs on from one end (only one may), turning toward a second bar at walls, to meet it."""
    h, w = g.shape
    n = counts(g)
    pair = np.zeros(2, dtype=np.int64)
    k = 0
    for c in range(1, 256):
        if n[c] == 2:
            if k == 2:
                return empty()
            pair[k] = c
            k += 1
    if k != 2:
        return empty()
    start, goal = (pair[0], pair[1]) if low else (pair[1], pair[0])
    ys, xs, _ = first_cells(g, start, 2)
    gy, gx, _ = first_cells(g, goal, 1)
    dy, dx = ys[1] - ys[0], xs[1] - xs[0]
    if abs(dy) + abs(dx) != 1:
        return empty()
    found = empty()
    for end in range(2):
        out = g.copy()
        s = 1 if end == 1 else -1
        if _route(g, out, ys[end], xs[end], dy * s, dx * s, start, goal, gy[0], gx[0]):
            if found.size:
                return empty()
            found = out
    return found


@primitive(cost=2, shape="keep", kernel=True)
def peak_and_valley(g: Grid) -> Grid | None:
    """Ground (the bottom row's colour) under sky: sky over the deepest column a marker, over the highest another."""
    h, w = g.shape
    ground = g[h - 1, 0]
    sky = 0
    for x in range(w):
        if g[h - 1, x] != ground:
            return empty()
    top = np.empty(w, dtype=np.int64)  # per column: the row where its unbroken ground starts
    for x in range(w):
        y = h - 1
        while y > 0 and g[y - 1, x] == ground:
            y -= 1
        top[x] = y
        for k in range(y):
            if g[k, x] != 0 and g[k, x] != ground:
                if sky != 0 and g[k, x] != sky:
                    return empty()
                sky = g[k, x]
    if sky == 0 or ground == 0:
        return empty()
    deep = np.argmax(top)
    if (top == top[deep]).sum() > 1 or top.min() == top[deep]:
        return empty()  # no one deepest column, or no column higher
    high, far, ties = -1, -1, 0  # of the highest columns, the one farthest from the deepest
    for x in range(w):
        if top[x] == top.min():
            if abs(x - deep) > far:
                high, far, ties = x, abs(x - deep), 1
            elif abs(x - deep) == far:
                ties += 1
    if ties > 1:
        return empty()
    out = g.copy()
    for y in range(h):
        if g[y, deep] == sky:
            out[y, deep] = MARKER
        if g[y, high] == sky:
            out[y, high] = MARKER + 1
    return out


@primitive(cost=2, shape="keep", kernel=True)
def join_narrowest(g: Grid) -> Grid | None:
    """Rows holding two cells of one colour: those of the narrowest pair are joined by a line of it."""
    h, w = g.shape
    left = np.full(h, -1, dtype=np.int64)
    right = np.full(h, -1, dtype=np.int64)
    narrow = w + 1
    for y in range(h):
        n = 0
        for x in range(w):
            if g[y, x] != 0:
                if n == 0:
                    left[y] = x
                elif n == 1:
                    right[y] = x
                n += 1
        if n == 0:
            continue
        if n != 2 or g[y, left[y]] != g[y, right[y]]:
            return empty()
        narrow = min(narrow, right[y] - left[y])
    if narrow > w:
        return empty()
    out = g.copy()
    for y in range(h):
        if left[y] >= 0 and right[y] - left[y] == narrow:
            for x in range(left[y], right[y] + 1):
                out[y, x] = g[y, left[y]]
    return out
