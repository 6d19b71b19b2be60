"""Line primitives: lines connecting cells, and lines continued, repeated, bridged or struck through.

Background is colour 0. A primitive that does not apply to its input returns None. Every
primitive here is a compiled kernel (`kernel=True`): a direction arrives as its index in
`registry.WORDS` (DOWN, UP, LEFT, RIGHT), a boolean as 0 / 1, and "does not apply" is `empty()`.
The rays (from cells and shapes to the edge) are in `rays`, whose kernels register first; rings,
brackets and routes drawn from a few marks are in `figures`, whose kernels register next.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import (
    counts,
    empty,
    empty_box,
    find_uniform_lines,
    label,
    label_boxes,
    lone_cell,
    uniform_lines,
)
from shared.solvers.dsl.primitives.rays import carry
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import MARKER, MAX_SIDE, Grid


@njit
def _between(g, out, dy, dx):
    """Paint each zero cell of `out` whose nearest non-zero cells of g both ways along (dy, dx)
    share a colour, with that colour (what a line joining same-coloured cells paints there)."""
    fwd, _ = carry(g, dy, dx)
    back, _ = carry(g, -dy, -dx)
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            if g[y, x] == 0 and out[y, x] == 0 and fwd[y, x] == back[y, x]:
                out[y, x] = fwd[y, x]


@primitive(cost=1.5, shape="keep", kernel=True)
def connect(g: Grid) -> Grid:
    """Join same-coloured cells that share a row or column with a line of their colour over zeros."""
    out = g.copy()
    _between(g, out, 0, 1)  # rows first: they win a cell both would paint
    _between(g, out, 1, 0)
    return out


@primitive(cost=2, shape="keep", kernel=True)
def connect_diagonal(g: Grid) -> Grid:
    """Join same-coloured cells on a shared diagonal with a line of their colour over zeros."""
    out = g.copy()
    _between(g, out, 1, 1)  # down-right diagonals first
    _between(g, out, 1, -1)
    return out


@njit
def _paint_box(out, y0, x0, y1, x1, c):
    for y in range(min(y0, y1), max(y0, y1) + 1):
        for x in range(min(x0, x1), max(x0, x1) + 1):
            out[y, x] = c


@primitive(cost=2, params=tuple((low, a) for low in (True, False) for a in (True, False)), shape="keep", kernel=True)
def elbow(g: Grid, from_low: bool, across_first: bool) -> Grid | None:
    """Join the only two cells (two colours) by an L path of marker colour, from the lower or higher colour."""
    h, w = g.shape
    n = 0
    y0, x0, y1, x1 = 0, 0, 0, 0
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                if n == 0:
                    y0, x0 = y, x
                elif n == 1:
                    y1, x1 = y, x
                else:
                    return empty()  # a third cell
                n += 1
    if n != 2 or g[y0, x0] == g[y1, x1]:
        return empty()
    if (g[y0, x0] < g[y1, x1]) == (from_low != 0):
        ay, ax, by, bx = y0, x0, y1, x1
    else:
        ay, ax, by, bx = y1, x1, y0, x0
    cy, cx = (ay, bx) if across_first else (by, ax)
    out = g.copy()
    _paint_box(out, ay, ax, cy, cx, MARKER)
    _paint_box(out, cy, cx, by, bx, MARKER)
    out[ay, ax] = g[ay, ax]
    out[by, bx] = g[by, bx]
    return out


@primitive(cost=2, shape="keep", kernel=True)
def centre_lines(g: Grid) -> Grid | None:
    """Draw a marker-coloured row and column over zeros through the centre of each object's box."""
    labels, n = label(g, True, False)
    box = label_boxes(labels, n)
    h, w = g.shape
    row = np.zeros(h, dtype=np.bool_)
    col = np.zeros(w, dtype=np.bool_)
    for i in range(1, n + 1):
        if (box[i, 0] + box[i, 2]) % 2 or (box[i, 1] + box[i, 3]) % 2:
            continue  # an even-sized box has no centre cell
        row[(box[i, 0] + box[i, 2]) // 2] = True
        col[(box[i, 1] + box[i, 3]) // 2] = True
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if out[y, x] == 0 and (row[y] or col[x]):
                out[y, x] = MARKER
    return out


@primitive(cost=2, shape="keep", kernel=True)
def repeat_lines(g: Grid) -> Grid | None:
    """Two cells start lines across the grid's short side, repeated in turn at their spacing to the far edge."""
    h, w = g.shape
    n = 0
    ys = np.zeros(2, dtype=np.int64)
    xs = np.zeros(2, dtype=np.int64)
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                if n < 2:
                    ys[n] = y
                    xs[n] = x
                n += 1
    if n != 2:
        return empty()
    turn = h > w  # lines run along rows and repeat downwards; else along columns, repeating to the right
    pos = ys if turn else xs
    a = 0 if pos[0] <= pos[1] else 1
    b = 1 - a
    step = pos[b] - pos[a]
    if step == 0:
        return empty()
    colours = (g[ys[a], xs[a]], g[ys[b], xs[b]])
    out = np.zeros((h, w), dtype=np.uint8)
    k = 0
    for p in range(pos[a], h if turn else w, step):
        c = colours[k % 2]
        if turn:
            out[p, :] = c
        else:
            out[:, p] = c
        k += 1
    return out


@njit
def _repeat_runs(g, out, across):
    """Every line (a row, or with `across` a column) of g whose non-zero cells are one unbroken run of 2+
    becomes that run repeated along the whole line of out; whether any did."""
    h, w = g.shape
    lines, length = (w, h) if across else (h, w)
    done = False
    for i in range(lines):
        first, last, n = -1, -1, 0
        for j in range(length):
            v = g[j, i] if across else g[i, j]
            if v != 0:
                if first < 0:
                    first = j
                last = j
                n += 1
        if n < 2 or last - first + 1 != n:
            continue
        for j in range(length):
            src = first + (j - first) % n
            if across:
                out[j, i] = g[src, i]
            else:
                out[i, j] = g[i, src]
        done = True
    return done


@primitive(cost=2, shape="keep", kernel=True)
def repeat_segments(g: Grid) -> Grid | None:
    """Every unbroken run of cells that is alone in its row (or column) repeats along the whole row (or column)."""
    out = g.copy()
    rows = _repeat_runs(g, out, False)
    cols = _repeat_runs(g, out, True)  # columns after rows: they win a cell both repeat over
    return out if rows or cols else empty()


@primitive(cost=2, params=((0,), (1,)), shape="keep", kernel=True)
def bridge(g: Grid, shrink: int) -> Grid | None:
    """Mark the empty gap between two facing shapes of different colours, over their shared span less shrink."""
    labels, n = label(g, False, True)
    if not 2 <= n <= 30:
        return empty()
    box = label_boxes(labels, n)
    out = g.copy()
    for i in range(1, n + 1):
        ci = g[box[i, 5], box[i, 6]]
        for j in range(1, n + 1):
            if ci == g[box[j, 5], box[j, 6]]:
                continue
            # i above j: the gap between i's bottom and j's top, over their shared columns
            lo, hi = max(box[i, 1], box[j, 1]) + shrink, min(box[i, 3], box[j, 3]) - shrink
            top, bottom = box[i, 2] + 1, box[j, 0]
            if lo <= hi and bottom > top and empty_box(g, top, bottom, lo, hi + 1):
                out[top:bottom, lo:hi + 1] = MARKER
            # i left of j: the gap between i's right and j's left, over their shared rows
            lo, hi = max(box[i, 0], box[j, 0]) + shrink, min(box[i, 2], box[j, 2]) - shrink
            left, right = box[i, 3] + 1, box[j, 1]
            if lo <= hi and right > left and empty_box(g, lo, hi + 1, left, right):
                out[lo:hi + 1, left:right] = MARKER
    return out


@primitive(cost=2, shape="keep", kernel=True)
def complete_lines(g: Grid) -> Grid | None:
    """In the box of all shapes, mark the gaps of every row and column that is at least half filled."""
    h, w = g.shape
    y0, x0, y1, x1, n = h, w, -1, -1, 0
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                n += 1
                y0, x0, y1, x1 = min(y0, y), min(x0, x), max(y1, y), max(x1, x)
    if n < 4 or y1 - y0 < 2 or x1 - x0 < 2:
        return empty()
    bh, bw = y1 - y0 + 1, x1 - x0 + 1
    rows = np.zeros(bh, dtype=np.int64)
    cols = np.zeros(bw, dtype=np.int64)
    for y in range(bh):
        for x in range(bw):
            if g[y0 + y, x0 + x] != 0:
                rows[y] += 1
                cols[x] += 1
    out = g.copy()
    for y in range(bh):
        for x in range(bw):
            if g[y0 + y, x0 + x] == 0 and (2 * rows[y] >= bw or 2 * cols[x] >= bh):  # at least half filled
                out[y0 + y, x0 + x] = MARKER
    return out


@primitive(cost=2, shape="change", kernel=True)
def row_diagonals(g: Grid) -> Grid | None:
    """A row of k coloured cells in w: a square of side k * w, each colour rising up-right from the bottom row."""
    h, w = g.shape
    k = 0
    for x in range(w):
        k += g[0, x] != 0
    n = k * w
    if h != 1 or k == 0 or n > MAX_SIDE:
        return empty()
    out = np.zeros((n, n), dtype=np.uint8)
    for x in range(w):
        if g[0, x] != 0:
            for t in range(min(n, n - x)):
                out[n - 1 - t, x + t] = g[0, x]
    return out


@primitive(cost=2, shape="keep", kernel=True)
def line_past_blobs(g: Grid) -> Grid | None:
    """Each shape against a diagonal line across the grid goes, and the line is copied one free diagonal past it."""
    h, w = g.shape
    n = counts(g)
    colour, down = -1, True
    for c in range(1, 10):
        if n[c] < 3:
            continue
        for d in range(2):  # 0: down-right (x - y fixed), 1: down-left (x + y fixed)
            k, same = -1 << 30, True
            for y in range(h):
                for x in range(w):
                    if g[y, x] == c:
                        v = x - y if d == 0 else x + y
                        same = same and (k == -1 << 30 or v == k)
                        k = v
            full = 0  # the cells of that diagonal inside the grid
            for y in range(h):
                x = k + y if d == 0 else k - y
                full += 0 <= x < w
            if same and full == n[c]:
                if colour >= 0:
                    return empty()  # two lines
                colour, down, line = c, d == 0, k
    if colour < 0:
        return empty()
    labels, m = label(np.where(g == colour, 0, g).astype(np.uint8), False, False)
    if m == 0:
        return empty()
    far = np.zeros(m + 1, dtype=np.int64)  # each shape's farthest signed distance from the line
    for y in range(h):
        for x in range(w):
            i = labels[y, x]
            if i:
                s = (x - y if down else x + y) - line
                if far[i] != 0 and (s > 0) != (far[i] > 0):
                    return empty()  # a shape on both sides of the line
                if abs(s) > abs(far[i]):
                    far[i] = s
    out = np.where(labels > 0, 0, g).astype(np.uint8)
    for i in range(1, m + 1):
        k = line + far[i] + (2 if far[i] > 0 else -2)
        for y in range(h):
            x = k + y if down else k - y
            if 0 <= x < w and out[y, x] == 0:
                out[y, x] = colour
    return out


@njit
def _filled(g, y):
    """How many cells of row y are non-zero."""
    n = 0
    for x in range(g.shape[1]):
        if g[y, x] != 0:
            n += 1
    return n


@primitive(cost=2, shape="keep", kernel=True)
def continue_rows(g: Grid) -> Grid | None:
    """Every partly filled row becomes the first full row with its colours swapped as the filled cells show."""
    h, w = g.shape
    full = -1
    for y in range(h):
        if _filled(g, y) == w:
            full = y
            break
    if full < 0 or w < 3:
        return empty()
    out = g.copy()
    changed = False
    mapping = np.empty(256, dtype=np.int64)
    for y in range(h):
        if _filled(g, y) in (0, w):
            continue
        mapping[:] = -1
        for x in range(w):
            a, b = g[full, x], g[y, x]
            if b == 0:
                continue
            if mapping[a] < 0:
                mapping[a] = b
            elif mapping[a] != b:
                return empty()
        for x in range(w):
            if mapping[g[full, x]] < 0:
                return empty()
        for x in range(w):
            out[y, x] = mapping[g[full, x]]
        changed = True
    return out if changed else empty()


@primitive(cost=1.5, shape="keep", first=True, kernel=True)
def mark_midpoints(g: Grid) -> Grid | None:
    """Mark the cell halfway between the two cells of each colour that has just two, where it is 0."""
    h, w = g.shape
    n = np.zeros(256, dtype=np.int64)
    ys = np.zeros(256, dtype=np.int64)  # the sums of the cells' rows and columns
    xs = np.zeros(256, dtype=np.int64)
    for y in range(h):
        for x in range(w):
            c = g[y, x]
            if c != 0:
                n[c] += 1
                ys[c] += y
                xs[c] += x
    out = g.copy()
    hit = False
    for c in range(1, 256):
        if n[c] == 2 and ys[c] % 2 == 0 and xs[c] % 2 == 0 and out[ys[c] // 2, xs[c] // 2] == 0:
            out[ys[c] // 2, xs[c] // 2] = MARKER
            hit = True
    return out if hit else empty()


@primitive(cost=2, shape="keep", first=True, kernel=True)
def rings_about(g: Grid) -> Grid | None:
    """Three cells of one colour evenly spaced on a diagonal: square rings about the middle one at that spacing."""
    h, w = g.shape
    cy = np.zeros(3, dtype=np.int64)
    cx = np.zeros(3, dtype=np.int64)
    k = 0
    c = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                if k == 3 or c != 0 and g[y, x] != c:
                    return empty()
                c = g[y, x]
                cy[k], cx[k] = y, x
                k += 1
    if k != 3:
        return empty()
    # in reading order the middle cell is second; the other two sit at equal steps either side of it
    d = cy[1] - cy[0]
    if d == 0 or cy[2] - cy[1] != d or abs(cx[1] - cx[0]) != d or cx[2] - cx[1] != cx[1] - cx[0]:
        return empty()
    out = g.copy()
    my, mx = cy[1], cx[1]
    r = d
    while my - r >= 0 or mx - r >= 0 or my + r < h or mx + r < w:
        for i in range(-r, r + 1):
            for y, x in ((my - r, mx + i), (my + r, mx + i), (my + i, mx - r), (my + i, mx + r)):
                if 0 <= y < h and 0 <= x < w:
                    out[y, x] = c
        r += d
    return out


@primitive(cost=2, shape="keep", first=True, kernel=True)
def zigzag(g: Grid) -> Grid | None:
    """A lone cell on the top or bottom edge runs diagonally across the grid, bouncing off its sides."""
    h, w = g.shape
    y0, x0, n = 0, 0, 0
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                y0, x0 = y, x
                n += 1
    if n != 1 or 0 < y0 < h - 1 or h < 2:
        return empty()
    c = g[y0, x0]
    dy = -1 if y0 == h - 1 else 1
    dx = 0 if w == 1 else (1 if x0 < w - 1 else -1)
    out = g.copy()
    y, x = y0 + dy, x0 + dx
    while 0 <= y < h:
        if not 0 <= x < w:
            dx = -dx
            x += 2 * dx
        out[y, x] = c
        y += dy
        x += dx
    return out


@njit
def _open(out, y, x, dy, dx):
    """Whether a spiral may step to (y, x) going (dy, dx): on the grid, unpainted, with no painted cell just past it."""
    h, w = out.shape
    if not (0 <= y < h and 0 <= x < w) or out[y, x] != 0:
        return False
    return not (0 <= y + dy < h and 0 <= x + dx < w and out[y + dy, x + dx] != 0)


@primitive(cost=2, shape="keep", first=True, kernel=True)
def spiral(g: Grid) -> Grid | None:
    """On an empty grid, a marker spiral from the top left corner clockwise inwards, a gap of one between its turns."""
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                return empty()
    out = g.copy()
    y, x, dy, dx = 0, 0, 0, 1
    out[0, 0] = MARKER
    turns = 0
    while turns < 2:
        if _open(out, y + dy, x + dx, dy, dx):
            y += dy
            x += dx
            out[y, x] = MARKER
            turns = 0
        else:
            dy, dx = dx, -dy  # a quarter turn clockwise
            turns += 1
    return out


@primitive(cost=2, shape="keep", first=True, kernel=True)
def band_lines(g: Grid) -> Grid | None:
    """A lone cell of another colour in a solid band draws a line of its colour across the band's narrow side."""
    labels, n = label(g, False, True)
    box = label_boxes(labels, n)
    out = g.copy()
    hit = False
    for i in range(1, n + 1):
        y0, x0, y1, x1 = box[i, 0], box[i, 1], box[i, 2] + 1, box[i, 3] + 1
        other = (y1 - y0) * (x1 - x0) - box[i, 4]
        if y1 - y0 == x1 - x0 or other == 0 or other * 4 > box[i, 4]:
            continue
        band = g[box[i, 5], box[i, 6]]
        solid = True
        for y in range(y0, y1):
            for x in range(x0, x1):
                if labels[y, x] == i:
                    continue
                # a cell of another colour: every neighbour inside the box is the band's
                for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                    ny, nx = y + dy, x + dx
                    if y0 <= ny < y1 and x0 <= nx < x1 and g[ny, nx] != band:
                        solid = False
        if not solid:
            continue
        for y in range(y0, y1):
            for x in range(x0, x1):
                if labels[y, x] != i:
                    if y1 - y0 < x1 - x0:
                        out[y0:y1, x] = g[y, x]
                    else:
                        out[y, x0:x1] = g[y, x]
                    hit = True
    return out if hit else empty()


@primitive(cost=2, shape="keep", first=True, kernel=True)
def zone_diagonals(g: Grid) -> Grid | None:
    """Diagonal lines through each lone cell, in each zone the colour of the lone cell standing in that zone."""
    h, w = g.shape
    to = np.full(256, -1, dtype=np.int64)  # a zone's colour -> the colour its lines take
    lone = np.zeros((h, w), dtype=np.bool_)
    seen = np.zeros(256, dtype=np.int64)
    for y in range(h):
        for x in range(w):
            c = g[y, x]
            seen[:] = 0
            k = 0
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    ny, nx = y + dy, x + dx
                    if (dy != 0 or dx != 0) and 0 <= ny < h and 0 <= nx < w:
                        seen[g[ny, nx]] += 1
                        k += 1
            zone = np.argmax(seen)
            # a lone cell: none of its colour about it, one zone round most of it
            if seen[c] > 0 or 2 * seen[zone] <= k:
                continue
            if to[zone] >= 0 and to[zone] != c:
                return empty()
            to[zone] = c
            lone[y, x] = True
    out = g.copy()
    hit = False
    for y in range(h):
        for x in range(w):
            if not lone[y, x]:
                continue
            for dy, dx in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
                ny, nx = y + dy, x + dx
                while 0 <= ny < h and 0 <= nx < w:
                    c = to[g[ny, nx]]
                    if c >= 0 and not lone[ny, nx]:
                        out[ny, nx] = c
                        hit = True
                    ny += dy
                    nx += dx
    return out if hit else empty()


@primitive(cost=2, shape="keep", kernel=True)
def strike_lines(g: Grid) -> Grid | None:
    """Each lone cell shoots rays to the nearest full line each side; the hit cell takes its colour in a ring."""
    h, w = g.shape
    rows = np.empty(h, dtype=np.bool_)
    cols = np.empty(w, dtype=np.bool_)
    most, line = 0, 0
    for c in range(1, 10):
        nr, nc = find_uniform_lines(g, c, rows, cols)
        if nr + nc > most:
            most, line = nr + nc, c
    if most == 0:
        return empty()
    rows, cols = uniform_lines(g, line)
    out = g.copy()
    hit = False
    for y in range(h):
        for x in range(w):
            v = g[y, x]
            if v == 0 or v == line or not lone_cell(g, y, x):
                continue
            for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                k = 1
                while True:
                    ny, nx = y + dy * k, x + dx * k
                    if ny < 0 or ny >= h or nx < 0 or nx >= w or (g[ny, nx] != 0 and g[ny, nx] != line):
                        k = -1  # off the grid, or blocked on the way
                        break
                    if (dy != 0 and rows[ny]) or (dx != 0 and cols[nx]):
                        break
                    k += 1
                if k < 0:
                    continue
                for j in range(1, k):
                    out[y + dy * j, x + dx * j] = v
                cy, cx = y + dy * k, x + dx * k
                for ry in range(max(0, cy - 1), min(h, cy + 2)):
                    for rx in range(max(0, cx - 1), min(w, cx + 2)):
                        out[ry, rx] = line
                out[cy, cx] = v
                hit = True
    return out if hit else empty()


@primitive(cost=2, kernel=True)
def layer_order(g: Grid) -> Grid | None:
    """Crossing lines' colours as a row, the bottom one first (a cell between two of another colour lies over it)."""
    h, w = g.shape
    over = np.zeros((MARKER, MARKER), dtype=np.int64)  # over[a, b]: cells of a that interrupt b
    seen = np.zeros(MARKER, dtype=np.bool_)
    for y in range(h):
        for x in range(w):
            a = g[y, x]
            if a == 0 or a >= MARKER:
                continue
            seen[a] = True
            for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
                y0, x0, y1, x1 = y - dy, x - dx, y + dy, x + dx
                if 0 <= y0 < h and 0 <= x0 < w and 0 <= y1 < h and 0 <= x1 < w:
                    b = g[y0, x0]
                    if b != 0 and b != a and b < MARKER and g[y1, x1] == b:
                        over[a, b] += 1
    above = np.zeros((MARKER, MARKER), dtype=np.bool_)  # above[a, b]: a lies over b, by most crossings
    k = 0
    for a in range(1, MARKER):
        k += seen[a]
        for b in range(1, MARKER):
            above[a, b] = over[a, b] > over[b, a]
    if k < 2:
        return empty()
    for a in range(1, MARKER):
        if seen[a] and not (above[a, 1:].any() or above[1:, a].any()):
            return empty()  # a line that crosses none
    # height: the most lines stacked over a colour, one over the next (0 for a top line)
    height = np.zeros(MARKER, dtype=np.int64)
    for _ in range(k):
        for a in range(1, MARKER):
            for b in range(1, MARKER):
                if above[b, a] and height[a] < height[b] + 1:
                    height[a] = height[b] + 1
    for a in range(1, MARKER):
        if height[a] >= k:
            return empty()  # a cycle
    out = np.empty((1, k), dtype=np.uint8)
    placed = np.zeros(MARKER, dtype=np.bool_)
    last = 0
    for i in range(k):
        # next: a colour with nothing unplaced under it; first one that lies on the last placed,
        # then the one with more lines over it; a tie leaves the order open
        pick, best, tie = -1, -1, False
        for c in range(1, MARKER):
            if not seen[c] or placed[c]:
                continue
            free = True
            for b in range(1, MARKER):
                if seen[b] and not placed[b] and above[c, b]:
                    free = False
            if not free:
                continue
            key = (MAX_SIDE * MARKER if last and above[c, last] else 0) + height[c]
            if key > best:
                pick, best, tie = c, key, False
            elif key == best:
                tie = True
        if pick < 0 or tie:
            return empty()
        placed[pick] = True
        out[0, i] = pick
        last = pick
    return out
