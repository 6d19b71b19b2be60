"""Mirroring primitives: reflections at lines, markers and walls, repeated blocks, matched shapes.

Background is colour 0. A primitive that does not apply to its input returns None. Every one is a
compiled kernel (`registry.primitive(kernel=True)`); objects are the components of
`objects.components`, in its order (`kernels.object_cells`).
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
    label,
    label_boxes,
    object_cells,
    one_colour_row,
    outside_zeros,
    split_colour,
    turned_back,
    two_colours,
)
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import Color, Grid


@njit
def _mirror_rows(t):
    """(status, out) for the one full one-colour row of t: status 0 when there is not exactly one,
    1 when reflecting across it changes nothing, 2 when out is t with the reflection over its zeros."""
    th, tw = t.shape
    lines, r = 0, -1
    for y in range(th):
        if one_colour_row(t, y):
            lines += 1
            r = y
    out = t.copy()
    if lines != 1:
        return 0, out
    changed = False
    for y in range(th):
        my = 2 * r - y
        if y == r or my < 0 or my >= th:
            continue
        for x in range(tw):
            if t[y, x] != 0 and t[my, x] == 0:
                out[my, x] = t[y, x]
                changed = True
    return (2 if changed else 1), out


@primitive(cost=2, shape="keep", kernel=True)
def mirror_at_line(g: Grid) -> Grid | None:
    """Reflect the drawing over zeros across the one full one-colour row, else (none changed) column."""
    # where the row's reflection changes nothing, the column's is tried: twice, across both
    status, out = _mirror_rows(g)
    if status == 2:
        return out
    status, out = _mirror_rows(np.ascontiguousarray(g.T))
    if status == 2:
        return np.ascontiguousarray(out.T)
    return empty()


@primitive(cost=2, shape="keep", kernel=True)
def mirror_at_marker(g: Grid) -> Grid | None:
    """A shape of two colours is mirrored onto the side where its rarer colour touches it (that colour goes)."""
    n = counts(g)
    a, b = two_colours(n)
    if a == 0 or n[a] == n[b]:
        return empty()
    mark, main = (a, b) if n[a] < n[b] else (b, a)
    h, w = g.shape
    (my0, my1, mx0, mx1), (sy0, sy1, sx0, sx1) = colour_and_rest(g, mark)  # the rest: the main colour
    # the main cells go to (ay - y, ax - x) along the axis that flips (a = -1 keeps that axis)
    ay, ax = -1, -1
    if mx0 > sx1:
        ax = 2 * mx0 - 1
    elif mx1 < sx0:
        ax = 2 * mx1 + 1
    elif my0 > sy1:
        ay = 2 * my0 - 1
    elif my1 < sy0:
        ay = 2 * my1 + 1
    else:
        return empty()
    if ax >= 0 and (ax - sx1 < 0 or ax - sx0 >= w) or ay >= 0 and (ay - sy1 < 0 or ay - sy0 >= h):
        return empty()
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if g[y, x] == mark:
                out[y, x] = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] == main:
                out[y if ay < 0 else ay - y, x if ax < 0 else ax - x] = main
    return out


@njit
def _repeat_block_down(t):
    """The band of rows of t holding all its content, repeated up and down (empty when t is all zeros)."""
    th, tw = t.shape
    y0, y1 = -1, -1
    for y in range(th):
        for x in range(tw):
            if t[y, x] != 0:
                if y0 < 0:
                    y0 = y
                y1 = y + 1
                break
    if y0 < 0:
        return empty()
    n = y1 - y0
    out = np.empty((th, tw), dtype=np.uint8)
    for y in range(th):
        src = y0 + ((y - y0) % n + n) % n
        for x in range(tw):
            out[y, x] = t[src, x]
    return out


@primitive(cost=2, params=((False,), (True,)), shape="keep", kernel=True)
def repeat_block(g: Grid, across: bool) -> Grid | None:
    """The band of rows holding all the content repeats up and down the grid (across: the band of columns)."""
    if across:
        return np.ascontiguousarray(_repeat_block_down(np.ascontiguousarray(g.T)).T)
    return _repeat_block_down(g)


@primitive(cost=2, shape="keep", kernel=True)
def key_rows(g: Grid) -> Grid | None:
    """Below a full top row (the key) and a one-colour rule, the empty rows take the key's colours in turn."""
    h, w = g.shape
    if h < 3 or g[1, 0] == 0:
        return empty()
    for x in range(w):
        if g[0, x] == 0 or g[1, x] != g[1, 0]:
            return empty()
    for y in range(2, h):
        for x in range(w):
            if g[y, x] != 0:
                return empty()
    out = g.copy()
    for y in range(2, h):
        for x in range(w):
            out[y, x] = g[0, (y - 2) % w]
    return out


@primitive(cost=2, shape="keep", kernel=True)
def repeat_toward_markers(g: Grid) -> Grid | None:
    """The biggest shape repeats toward each other shape (a marker) to the edge, in the marker's colour."""
    # the step is the largest k for which the marker's cells, moved back k cells toward the
    # shape (by the signs of the offset between the boxes' centres), all lie on the shape
    h, w = g.shape
    n, start, cells = object_cells(g, True, True)
    if n < 2 or n > 30:
        return empty()
    big = biggest_object(start, n)
    if big < 0:
        return empty()  # no one biggest shape
    shape = np.zeros((h, w), dtype=np.bool_)
    for j in range(start[big], start[big + 1]):
        shape[cells[j] // w, cells[j] % w] = True
    by0, by1, bx0, bx1 = cells_box(cells, start[big], start[big + 1], w)
    out = g.copy()
    hit = False
    for i in range(n):
        if i == big:
            continue
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        oy, ox = y0 + y1 - by0 - by1, x0 + x1 - bx0 - bx1  # twice the offset between the centres
        dy = 1 if oy > 0 else (-1 if oy < 0 else 0)
        dx = 1 if ox > 0 else (-1 if ox < 0 else 0)
        if dy == 0 and dx == 0:
            continue
        step = 0
        for k in range(1, h + w):
            on = True
            for j in range(start[i], start[i + 1]):
                y, x = cells[j] // w - k * dy, cells[j] % w - k * dx
                if not (0 <= y < h and 0 <= x < w and shape[y, x]):
                    on = False
                    break
            if on:
                step = k
        if step == 0:
            continue
        colour = g[cells[start[i]] // w, cells[start[i]] % w]
        for r in range(1, h + w):
            sy, sx = r * step * dy, r * step * dx
            if by1 + sy < 0 or by0 + sy >= h or bx1 + sx < 0 or bx0 + sx >= w:
                break
            for j in range(start[big], start[big + 1]):
                y, x = cells[j] // w + sy, cells[j] % w + sx
                if 0 <= y < h and 0 <= x < w and out[y, x] == 0:
                    out[y, x] = colour
                    hit = True
    return out if hit else empty()


@njit
def _wall_runs(g, wall, transposed, runs, k):
    """Append (row, first, last) of every run of three or more `wall` cells along the rows of g (of g.T
    when `transposed`) to runs[k:]; the new count."""
    h, w = g.shape
    rows, cols = (w, h) if transposed else (h, w)
    for y in range(rows):
        x = 0
        while x < cols:
            if (g[x, y] if transposed else g[y, x]) != wall:
                x += 1
                continue
            s = x
            while x < cols and (g[x, y] if transposed else g[y, x]) == wall:
                x += 1
            if x - 1 - s >= 2:
                runs[k, 0], runs[k, 1], runs[k, 2] = y, s, x - 1
                k += 1
    return k


@primitive(cost=2, shape="keep", kernel=True)
def reflect_over_walls(g: Grid) -> Grid | None:
    """Every shape not of the commonest colour is mirrored across the nearest wall line of it that it faces."""
    n = counts(g)
    n[0] = 0
    wall = 0
    for c in range(1, 256):
        if n[c] > n[wall]:
            wall = c
    if not n[wall]:
        return empty()
    shapes = 0  # cells of other non-zero colours
    for c in range(1, 256):
        if c != wall:
            shapes += n[c]
    if shapes == 0:
        return empty()
    h, w = g.shape
    runs = np.empty((h * w + 1, 3), dtype=np.int64)
    rows = _wall_runs(g, wall, False, runs, 0)
    k = _wall_runs(g, wall, True, runs, rows)
    if k == 0:
        return empty()
    out, rest = split_colour(g, wall)
    nm, start, cells = object_cells(rest, True, False)
    if nm == 0:
        return empty()
    for i in range(nm):
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        best, best_gap = -1, 0
        for j in range(k):
            at, lo, hi = runs[j, 0], runs[j, 1], runs[j, 2]
            along0, along1, across0, across1 = (x0, x1, y0, y1) if j < rows else (y0, y1, x0, x1)
            if along0 >= lo and along1 <= hi and (across0 > at or across1 < at):
                gap = min(abs(across0 - at), abs(across1 - at))
                if best < 0 or gap < best_gap:
                    best, best_gap = j, gap
        ay, ax = -1, -1  # as in mirror_at_marker: the cells go to (ay - y, ax - x) on the axis that flips
        if best >= 0:
            if best < rows:
                ay = 2 * runs[best, 0]
                if ay - y1 < 0 or ay - y0 >= h:
                    return empty()
            else:
                ax = 2 * runs[best, 0]
                if ax - x1 < 0 or ax - x0 >= w:
                    return empty()
        for j in range(start[i], start[i + 1]):
            y, x = cells[j] // w, cells[j] % w
            out[y if ay < 0 else ay - y, x if ax < 0 else ax - x] = g[y, x]
    return out


@njit
def _probe(table, mask, v, add):
    """CPython's probe for the small integer v (its own hash) in a set table (-1: free): the slot of v,
    or of the free slot where it goes (add: also put it there); whether it was already there."""
    i = v & mask
    perturb = v
    while True:
        probes = 9 if i + 9 <= mask else 0  # LINEAR_PROBES
        for j in range(i, i + probes + 1):
            if table[j] == v:
                return j, True
            if table[j] < 0:
                if add:
                    table[j] = v
                return j, False
        perturb >>= 5  # PERTURB_SHIFT
        i = (i * 5 + 1 + perturb) & mask


@njit
def _set_order(values):
    """The distinct values in the order CPython iterates `set(values)` (non-negative small ints hash to
    themselves): `max(set(...), key=...)` keeps the first maximum in that order."""
    table = np.full(8, -1, dtype=np.int64)
    used = 0
    for v in values:
        _, there = _probe(table, len(table) - 1, v, True)
        if there:
            continue
        used += 1
        if used * 5 >= (len(table) - 1) * 3:  # set_table_resize(used * 4), old slots reinserted in order
            size = 8
            while size <= used * 4:
                size <<= 1
            old = table
            table = np.full(size, -1, dtype=np.int64)
            for u in old:
                if u >= 0:
                    _probe(table, size - 1, u, True)
    order = np.empty(used, dtype=np.int64)
    k = 0
    for u in table:
        if u >= 0:
            order[k] = u
            k += 1
    return order


@njit
def _shape_table(g, n, start, cells):
    """Each of the n components' colour (of its first cell) and its box's top row and left column."""
    w = g.shape[1]
    colours = np.empty(n, dtype=np.int64)
    top = np.empty(n, dtype=np.int64)
    left = np.empty(n, dtype=np.int64)
    for i in range(n):
        colours[i] = g[cells[start[i]] // w, cells[start[i]] % w]
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        top[i], left[i] = y0, x0
    return colours, top, left


@njit
def _same_form(cells, start, i, j, w, top, left):
    """Whether components i and j have the same cells relative to their boxes (whose top rows and left
    columns are top and left)."""
    if start[i + 1] - start[i] != start[j + 1] - start[j]:
        return False
    iy0, ix0, jy0, jx0 = top[i], left[i], top[j], left[j]
    for k in range(start[i + 1] - start[i]):
        a, b = cells[start[i] + k], cells[start[j] + k]
        if a // w - iy0 != b // w - jy0 or a % w - ix0 != b % w - jx0:
            return False
    return True


@primitive(cost=2, shape="keep", kernel=True)
def match_shapes(g: Grid) -> Grid | None:
    """Shapes of the colour with the most shapes take the colour of an enclosed shape of the same form."""
    h, w = g.shape
    n, start, cells = object_cells(g, True, True)
    if not 2 <= n <= 60:
        return empty()
    colours, top, left = _shape_table(g, n, start, cells)
    shapes = np.zeros(256, dtype=np.int64)
    for i in range(n):
        shapes[colours[i]] += 1
    common = -1
    for c in _set_order(colours):
        if common < 0 or shapes[c] > shapes[common]:
            common = c
    # an enclosed shape touches no zero cell that reaches the border
    outside = outside_zeros(g)
    template = np.zeros(n, dtype=np.bool_)
    templates = 0
    for i in range(n):
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        if colours[i] == common or y0 == 0 or x0 == 0 or y1 == h - 1 or x1 == w - 1:
            continue
        near = False
        for j in range(start[i], start[i + 1]):
            y, x = cells[j] // w, cells[j] % w
            for yy in range(max(y - 1, 0), min(y + 2, h)):
                for xx in range(max(x - 1, 0), min(x + 2, w)):
                    if outside[yy, xx]:
                        near = True
            if near:
                break
        template[i] = not near
        templates += not near
    out = g.copy()
    if templates == 0:
        return out
    for i in range(n):
        if colours[i] != common:
            continue
        colour, one = -1, True
        for j in range(n):
            if template[j] and _same_form(cells, start, i, j, w, top, left):
                if colour < 0:
                    colour = colours[j]
                elif colours[j] != colour:
                    one = False
        if colour >= 0 and one:
            for j in range(start[i], start[i + 1]):
                out[cells[j] // w, cells[j] % w] = colour
    return out


@primitive(cost=2, shape="keep", kernel=True)
def match_key_shape(g: Grid) -> Grid | None:
    """The one shape walled into a corner by one colour is the key: shapes of its form elsewhere take that colour."""
    h, w = g.shape
    n, start, cells = object_cells(g, True, True)
    if not 2 <= n <= 60:
        return empty()
    colours, top, left = _shape_table(g, n, start, cells)
    present = counts(g)
    for wall in range(1, 10):
        if present[wall] == 0:
            continue
        # the pocket: the cells a corner reaches without crossing the wall (4-neighbours), under a quarter of the grid
        rooms, _ = label((g != wall).astype(np.uint8), False, False)
        for cy, cx in ((0, 0), (0, w - 1), (h - 1, 0), (h - 1, w - 1)):
            if rooms[cy, cx] == 0:
                continue
            pocket = rooms == rooms[cy, cx]
            if 4 * pocket.sum() >= h * w:
                continue
            key, inside = -1, 0
            for i in range(n):
                if pocket[cells[start[i]] // w, cells[start[i]] % w]:
                    key = i
                    inside += 1
            if inside != 1:
                continue
            out = g.copy()
            matched = False
            for i in range(n):
                if i != key and colours[i] != wall and _same_form(cells, start, i, key, w, top, left):
                    for j in range(start[i], start[i + 1]):
                        out[cells[j] // w, cells[j] % w] = wall
                    matched = True
            if matched:
                return out
    return empty()


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def replace_shapes(g: Grid, c: Color) -> Grid | None:
    """The pattern (the cells of other colours) moves onto every shape of colour c of its form, leaving its place."""
    h, w = g.shape
    big = 1 << 30
    py0, py1, px0, px1 = big, -1, big, -1
    nc = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                nc += 1
            elif g[y, x] != 0:
                py0, py1, px0, px1 = min(py0, y), max(py1, y), min(px0, x), max(px1, x)
    if py1 < 0 or c == 0:
        return empty()  # no pattern, or no shapes (colour 0 makes none)
    ph, pw = py1 - py0 + 1, px1 - px0 + 1
    form = 0
    for y in range(py0, py1 + 1):
        for x in range(px0, px1 + 1):
            if g[y, x] == c:
                return empty()
            if g[y, x] != 0:
                form += 1
    if nc < form:
        return empty()  # too few cells of c for one shape of the pattern's form
    out, _ = split_colour(g, c)
    n, start, cells = object_cells(out, True, False)
    hit = False
    for i in range(n):
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        if y1 - y0 + 1 != ph or x1 - x0 + 1 != pw or start[i + 1] - start[i] != form:
            continue
        same = True
        for dy in range(ph):
            for dx in range(pw):
                if (out[y0 + dy, x0 + dx] == c) != (g[py0 + dy, px0 + dx] != 0):
                    same = False
        if same:
            for dy in range(ph):
                for dx in range(pw):
                    if g[py0 + dy, px0 + dx] != 0:
                        out[y0 + dy, x0 + dx] = g[py0 + dy, px0 + dx]
            hit = True
    return out if hit else empty()


@primitive(cost=2, shape="keep", kernel=True)
def mirror_around(g: Grid) -> Grid | None:
    """Cells of other colours are mirrored across both centre lines of the smallest colour whose cells are symmetric."""
    h, w = g.shape
    big = 1 << 30
    best, best_size, ties, cy2, cx2 = -1, 0, 0, 0, 0
    for c in range(1, 10):
        y0, y1, x0, x1 = big, -1, big, -1
        for y in range(h):
            for x in range(w):
                if g[y, x] == c:
                    y0, y1, x0, x1 = min(y0, y), max(y1, y), min(x0, x), max(x1, x)
        if y1 < 0:
            continue
        symmetric = True
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                if (g[y, x] == c) != (g[y0 + y1 - y, x] == c) or (g[y, x] == c) != (g[y, x0 + x1 - x] == c):
                    symmetric = False
        if not symmetric:
            continue
        size = (y1 - y0 + 1) * (x1 - x0 + 1)
        if best < 0 or size < best_size:
            best, best_size, ties, cy2, cx2 = c, size, 0, y0 + y1, x0 + x1  # twice the centre
        elif size == best_size:
            ties += 1
    if best < 0 or ties:
        return empty()
    others = False
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0 and g[y, x] != best:
                others = True
    if not others:
        return empty()
    out = g.copy()
    for flip_y, flip_x in ((True, False), (False, True), (True, True)):
        for y in range(h):
            for x in range(w):
                if g[y, x] == 0 or g[y, x] == best:
                    continue
                ty, tx = cy2 - y if flip_y else y, cx2 - x if flip_x else x
                if 0 <= ty < h and 0 <= tx < w and out[ty, tx] == 0:
                    out[ty, tx] = g[y, x]
    return out


@primitive(cost=2, shape="keep", first=True, kernel=True)
def mirror_to_markers(g: Grid) -> Grid | None:
    """Each shape mirrored past every lone cell of another colour by its box's side or corner, in that cell's colour."""
    h, w = g.shape
    n, start, cells = object_cells(g, True, False)
    out = g.copy()
    hit = False
    for i in range(n):
        tally = np.zeros(256, dtype=np.int64)
        for j in range(start[i], start[i + 1]):
            tally[g[cells[j] // w, cells[j] % w]] += 1
        main = np.argmax(tally)
        if tally[main] < 2 or tally[main] == start[i + 1] - start[i]:
            continue
        y0, x0, y1, x1 = h, w, -1, -1
        for j in range(start[i], start[i + 1]):
            y, x = cells[j] // w, cells[j] % w
            if g[y, x] == main:
                y0, x0, y1, x1 = min(y0, y), min(x0, x), max(y1, y), max(x1, x)
        for j in range(start[i], start[i + 1]):
            my, mx = cells[j] // w, cells[j] % w
            c = g[my, mx]
            if c == main or tally[c] != 1:
                continue
            sy = -1 if my == y0 - 1 else (1 if my == y1 + 1 else (0 if y0 <= my <= y1 else 2))
            sx = -1 if mx == x0 - 1 else (1 if mx == x1 + 1 else (0 if x0 <= mx <= x1 else 2))
            if sy == 2 or sx == 2 or (sy == 0 and sx == 0):
                continue
            for k in range(start[i], start[i + 1]):
                y, x = cells[k] // w, cells[k] % w
                if g[y, x] != main:
                    continue
                ny = y if sy == 0 else (2 * y1 + 1 - y if sy == 1 else 2 * y0 - 1 - y)
                nx = x if sx == 0 else (2 * x1 + 1 - x if sx == 1 else 2 * x0 - 1 - x)
                if 0 <= ny < h and 0 <= nx < w:
                    out[ny, nx] = c
                    hit = True
    return out if hit else empty()


@primitive(cost=2, shape="keep", kernel=True)
def frame_matches(g: Grid) -> Grid | None:
    """A box framed in one colour with marks inside is a key: its marks, turned any way, on blank cells get a frame."""
    h, w = g.shape
    labels, n = label(g, True, True)
    box = label_boxes(labels, n)
    ky, kx, kh, kw, frame, mark = -1, -1, 0, 0, 0, 0
    for i in range(1, n + 1):
        y0, x0, y1, x1 = box[i, 0], box[i, 1], box[i, 2], box[i, 3]
        if y1 - y0 < 2 or x1 - x0 < 2:
            continue
        f = g[y0, x0]
        m = 0
        ok = True
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                c = g[y, x]
                if y == y0 or y == y1 or x == x0 or x == x1:
                    ok = ok and labels[y, x] == i
                elif labels[y, x] != i:
                    ok = ok and c != 0 and (m == 0 or c == m)
                    m = c
        if not ok or m == 0:
            continue
        if ky >= 0:
            return empty()  # two keys
        ky, kx, kh, kw, frame, mark = y0, x0, y1 - y0 + 1, x1 - x0 + 1, f, m
    if ky < 0:
        return empty()
    key = np.zeros((kh, kw), dtype=np.bool_)
    for y in range(kh):
        for x in range(kw):
            key[y, x] = g[ky + y, kx + x] == mark
    out = g.copy()
    found = False
    for t in range(8):
        p = key.T.copy() if t >= 4 else key.copy()
        for _ in range(t % 4):
            p = p[::-1].T.copy()  # a quarter turn
        ph, pw = p.shape
        # the window may run past the grid's edge where the key has no marks (its frame)
        for y in range(-ph + 1, h):
            for x in range(-pw + 1, w):
                if y < ky + kh and ky < y + ph and x < kx + kw and kx < x + pw:
                    continue  # on the key
                hit = True
                for dy in range(ph):
                    for dx in range(pw):
                        yy, xx = y + dy, x + dx
                        if 0 <= yy < h and 0 <= xx < w:
                            hit = g[yy, xx] == (mark if p[dy, dx] else 0)
                        else:
                            hit = not p[dy, dx]
                        if not hit:
                            break
                    if not hit:
                        break
                if hit:
                    found = True
                    for dy in range(ph):
                        for dx in range(pw):
                            yy, xx = y + dy, x + dx
                            if 0 <= yy < h and 0 <= xx < w and not p[dy, dx]:
                                out[yy, xx] = frame
    if not found:
        return empty()
    return out


@njit
def _mirror_across(g, c):
    """`mirror_toward` for a pointer above or below the shape: the grid it gives, or the empty grid."""
    w = g.shape[1]
    # the pointer: the cells of colour c; the shape: every other cell
    (py0, py1, px0, px1), (sy0, sy1, sx0, sx1) = colour_and_rest(g, c)
    if py1 < 0 or sy1 < 0 or px1 < sx0 or px0 > sx1 or not (py1 < sy0 or py0 > sy1):
        return empty()  # the pointer must lie above or below the shape, under part of it
    n = total = 0  # the pointer's cells and the sum of their columns
    for y in range(py0, py1 + 1):
        for x in range(px0, px1 + 1):
            if g[y, x] == c:
                n += 1
                total += x
    lean = 2 * total - n * (px0 + px1)  # twice its cells' mean column less its box's middle, times n
    if lean == 0:
        return empty()
    edge = 2 * sx0 - 1 if lean < 0 else 2 * sx1 + 1  # a cell at x lands at edge - x
    out = g.copy()
    for y in range(sy0, sy1 + 1):
        for x in range(sx0, sx1 + 1):
            if g[y, x] != 0 and g[y, x] != c:
                nx = edge - x
                if nx < 0 or nx >= w or g[y, nx] != 0:
                    return empty()
                out[y, nx] = g[y, x]
    return out


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def mirror_toward(g: Grid, c: Color) -> Grid | None:
    """The shape (the cells not of colour c) is mirrored beside itself, on the side the pointer of colour c leans to."""
    # the pointer lies above or below the shape (or beside it) and leans left or right (up or down):
    # its cells' mean column is off its box's middle
    if c == 0:
        return empty()  # the search passes only the colours of the inputs; a printed program may pass 0
    across = _mirror_across(g, c)
    down = turned_back(_mirror_across(g.T.copy(), c))
    if across.size and down.size:
        return empty()
    return across if across.size else down
