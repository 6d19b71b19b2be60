"""Colour primitives: keep or remove a colour, frequency-based picks, masks and recolour maps.

Marker colours (10+) are produced by `mask` and resolved by a final learned `recolor`.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import argmax_count, empty, label
from shared.solvers.dsl.primitives.kernels import counts as _counts  # (local names `counts` abound)
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import MARKER, Color, Grid


def colour_counts(g: Grid) -> np.ndarray:
    """Cells per colour, indexed 0..MARKER+5."""
    return np.bincount(g.ravel(), minlength=MARKER + 6)


def background(g: Grid) -> int:
    """The background colour: the most frequent one (ties to the lowest)."""
    return int(np.argmax(colour_counts(g)))


def _swap_with_zero(g: Grid, c: int) -> Grid:
    # numpy, not `kernels.swap_zero`: printed programs call this in the sandbox, where a kernel that
    # the preload did not compile may not load from numba's cache (as `colour_counts` to `kernels.counts`)
    out = g.copy()
    if c:
        out[g == c] = 0
        out[g == 0] = c
    return out


@primitive(search=False, shape="keep")
def background_to_zero(g: Grid) -> Grid:
    """Swap the grid's background colour with 0 (the search's view of a task whose background varies)."""
    return _swap_with_zero(g, background(g))


@primitive(search=False, shape="keep")
def background_from(g: Grid, ref: Grid) -> Grid:
    """Swap 0 with ref's background colour: undoes background_to_zero(ref) on an answer."""
    return _swap_with_zero(g, background(ref))


@njit
def _ranked(counts, ascending):
    """The present non-zero colours, commonest first (ties: lower colour first); or least common
    first (ties: lower colour first) when ascending. Returns (colours int64 array, how many)."""
    order = np.zeros(256, dtype=np.int64)
    n = 0
    for c in range(1, 256):
        if counts[c] == 0:
            continue
        # stable insertion: c is larger than every colour placed so far, so it goes after its equals
        i = n
        while i > 0 and ((counts[order[i - 1]] < counts[c]) if not ascending else (counts[order[i - 1]] > counts[c])):
            order[i] = order[i - 1]
            i -= 1
        order[i] = c
        n += 1
    return order, n


@njit
def _keep_where(g, c, keep):
    """g with the cells of colour c kept (the rest 0) or cleared."""
    h, w = g.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            v = g[y, x]
            if (v == c) == keep:
                out[y, x] = v
    return out


@njit
def _paint(g, c):
    """Every non-zero cell of g painted c."""
    h, w = g.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                out[y, x] = c
    return out


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def keep_colour(g: Grid, c: Color) -> Grid | None:
    """Keep only the cells of colour c; everything else becomes 0."""
    if c == 0 or c < 0 or c > 255 or _counts(g)[c] == 0:
        return empty()
    return _keep_where(g, c, True)


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def remove_colour(g: Grid, c: Color) -> Grid | None:
    """Turn the cells of colour c into 0."""
    if c == 0 or c < 0 or c > 255 or _counts(g)[c] == 0:
        return empty()
    return _keep_where(g, c, False)


@primitive(cost=1, shape="keep", kernel=True)
def keep_major(g: Grid) -> Grid | None:
    """Keep only the most frequent non-zero colour."""
    ranked, n = _ranked(_counts(g), False)
    if n < 2:
        return empty()
    return _keep_where(g, ranked[0], True)


@primitive(cost=1, shape="keep", kernel=True)
def keep_minor(g: Grid) -> Grid | None:
    """Keep only the least frequent non-zero colour."""
    ranked, n = _ranked(_counts(g), False)
    if n < 2:
        return empty()
    return _keep_where(g, ranked[n - 1], True)


@primitive(cost=1, shape="keep", kernel=True)
def remove_major(g: Grid) -> Grid | None:
    """Remove the most frequent non-zero colour."""
    ranked, n = _ranked(_counts(g), False)
    if n < 2:
        return empty()
    return _keep_where(g, ranked[0], False)


@primitive(cost=1, shape="keep", kernel=True)
def paint_major(g: Grid) -> Grid | None:
    """Paint every non-zero cell with the most frequent non-zero colour."""
    ranked, n = _ranked(_counts(g), False)
    if n < 1:
        return empty()
    return _paint(g, ranked[0])


@primitive(cost=1, shape="keep", kernel=True)
def paint_minor(g: Grid) -> Grid | None:
    """Paint every non-zero cell with the least frequent non-zero colour."""
    ranked, n = _ranked(_counts(g), False)
    if n < 2:
        return empty()
    return _paint(g, ranked[n - 1])


@primitive(cost=1.5, params=((1,), (2,)), shape="keep", kernel=True)
def mark_uncommon(g: Grid, k: int) -> Grid | None:
    """Mark the cells whose colour (0 counted) is not one of the grid's k commonest colours."""
    # declines when fewer than k + 1 colours are present, or when the k-th and the next tie
    n = _counts(g)
    if k < 1 or k >= n.shape[0]:
        return empty()
    ordered = np.sort(n)
    cut, nxt = ordered[-k], ordered[-k - 1]  # the k-th largest count and the next
    if nxt == 0 or cut == nxt:
        return empty()
    h, w = g.shape
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if n[g[y, x]] < cut:
                out[y, x] = MARKER
    return out


@primitive(cost=1.5, shape="keep", kernel=True)
def fill_major(g: Grid) -> Grid:
    """Every cell takes the grid's most frequent colour (background included)."""
    h, w = g.shape
    if h * w == 0:
        return empty()
    return np.full((h, w), argmax_count(_counts(g)), dtype=np.uint8)


@primitive(cost=1.5, shape="keep", kernel=True)
def stripe_vote(g: Grid) -> Grid:
    """Every row takes its most frequent colour, or every column does: whichever changes fewer cells."""
    h, w = g.shape
    rows = np.zeros(h, dtype=np.uint8)
    cols = np.zeros(w, dtype=np.uint8)
    counts = np.zeros(256, dtype=np.int64)
    for y in range(h):
        counts[:] = 0
        for x in range(w):
            counts[g[y, x]] += 1
        rows[y] = argmax_count(counts)
    for x in range(w):
        counts[:] = 0
        for y in range(h):
            counts[g[y, x]] += 1
        cols[x] = argmax_count(counts)
    same_rows = 0
    same_cols = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] == rows[y]:
                same_rows += 1
            if g[y, x] == cols[x]:
                same_cols += 1
    out = np.empty((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            out[y, x] = rows[y] if same_rows >= same_cols else cols[x]
    return out


@primitive(cost=1, shape="keep", kernel=True)
def mask(g: Grid) -> Grid:
    """Mark every non-zero cell with the marker colour (for a learned recolour to finish)."""
    return _paint(g, MARKER)


@primitive(cost=1, shape="keep", kernel=True)
def invert_mask(g: Grid) -> Grid:
    """Mark every zero cell with the marker colour and clear the rest."""
    h, w = g.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            if g[y, x] == 0:
                out[y, x] = MARKER
    return out


@primitive(cost=2, shape="keep", kernel=True)
def invert_rows(g: Grid) -> Grid | None:
    """In each row, the cells of its commonest non-zero colour clear and the others take that colour."""
    # ties: the colour that reaches the count first; a row with no non-zero cell stays empty
    h, w = g.shape
    out = np.zeros((h, w), dtype=np.uint8)
    n = np.zeros(16, dtype=np.int64)
    for y in range(h):
        n[:] = 0
        best = 0
        for x in range(w):
            c = g[y, x]
            if 0 < c < 16:
                n[c] += 1
                if best == 0 or n[c] > n[best]:
                    best = c
        if best == 0:
            continue
        for x in range(w):
            if g[y, x] != best:
                out[y, x] = best
    return out


@primitive(cost=1, shape="keep", kernel=True)
def swap_top_two(g: Grid) -> Grid | None:
    """Swap the two most frequent non-zero colours."""
    ranked, n = _ranked(_counts(g), False)
    if n < 2:
        return empty()
    a, b = ranked[0], ranked[1]
    h, w = g.shape
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if g[y, x] == a:
                out[y, x] = b
            elif g[y, x] == b:
                out[y, x] = a
    return out


@primitive(cost=1, kernel=True)
def major_colour_cell(g: Grid) -> Grid | None:
    """A 1x1 grid of the most frequent non-zero colour."""
    ranked, n = _ranked(_counts(g), False)
    if n < 1:
        return empty()
    return np.full((1, 1), ranked[0], dtype=np.uint8)


@primitive(cost=1, kernel=True)
def minor_colour_cell(g: Grid) -> Grid | None:
    """A 1x1 grid of the least frequent non-zero colour."""
    ranked, n = _ranked(_counts(g), False)
    if n < 1:
        return empty()
    return np.full((1, 1), ranked[n - 1], dtype=np.uint8)


@primitive(cost=2, params=tuple((asc, skip) for asc in (False, True) for skip in (0, 1)), kernel=True)
def colour_column(g: Grid, ascending: bool, skip: int) -> Grid | None:
    """The non-zero colours as one column, most frequent first (or least), after skipping `skip`."""
    ranked, n = _ranked(_counts(g), ascending != 0)
    start = max(skip, 0)
    if start >= n:
        return empty()
    for i in range(start, n):
        if ranked[i] >= MARKER:
            return empty()
    out = np.empty((n - start, 1), dtype=np.uint8)
    for i in range(start, n):
        out[i - start, 0] = ranked[i]
    return out


@primitive(cost=1.5, kernel=True)
def cells_row(g: Grid) -> Grid | None:
    """The non-zero cells in reading order as one row (a count shown as a bar)."""
    h, w = g.shape
    n = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                n += 1
    if n == 0 or n > 30:
        return empty()
    out = np.empty((1, n), dtype=np.uint8)
    k = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                out[0, k] = g[y, x]
                k += 1
    return out


@primitive(cost=1.5, params=((False,), (True,)), shape="change", kernel=True)
def fold_square(g: Grid, snake: bool) -> Grid | None:
    """A one-row grid wrapped row by row into the smallest square holding it (snake: every second row reversed)."""
    h, n = g.shape
    if h != 1 or n < 2:
        return empty()
    side = 1
    while side * side < n:
        side += 1
    out = np.zeros((side, side), dtype=np.uint8)
    for i in range(n):
        r, j = i // side, i % side
        out[r, side - 1 - j if snake and r % 2 == 1 else j] = g[0, i]
    return out


@primitive(cost=1.5, kernel=True)
def colour_sequence(g: Grid) -> Grid | None:
    """The non-zero colours ordered by mean position, as a row (spread across) or column (spread down)."""
    h, w = g.shape
    n = np.zeros(MARKER, dtype=np.int64)
    sy = np.zeros(MARKER, dtype=np.int64)
    sx = np.zeros(MARKER, dtype=np.int64)
    for y in range(h):
        for x in range(w):
            c = g[y, x]
            if 0 < c < MARKER:
                n[c] += 1
                sy[c] += y
                sx[c] += x
    colours = np.zeros(MARKER, dtype=np.int64)
    cy = np.zeros(MARKER, dtype=np.float64)
    cx = np.zeros(MARKER, dtype=np.float64)
    k = 0
    for c in range(1, MARKER):
        if n[c]:
            colours[k] = c
            cy[k] = (sy[c] / n[c]) / h
            cx[k] = (sx[c] / n[c]) / w
            k += 1
    if k < 2:
        return empty()
    across = (cx[:k].max() - cx[:k].min()) >= (cy[:k].max() - cy[:k].min())
    key = cx if across else cy
    # insertion sort by (key, colour); colours arrive ascending, so a stable sort on key suffices
    idx = np.arange(k)
    for i in range(1, k):
        j = i
        while j > 0 and key[idx[j - 1]] > key[idx[j]]:
            t = idx[j - 1]
            idx[j - 1] = idx[j]
            idx[j] = t
            j -= 1
    if across:
        out = np.empty((1, k), dtype=np.uint8)
        for i in range(k):
            out[0, i] = colours[idx[i]]
    else:
        out = np.empty((k, 1), dtype=np.uint8)
        for i in range(k):
            out[i, 0] = colours[idx[i]]
    return out


@primitive(cost=1.5, kernel=True)
def histogram(g: Grid) -> Grid | None:
    """A bar chart: a column per non-zero colour, commonest first, with as many cells from the top as it has."""
    counts = _counts(g)
    counts[0] = 0
    counts[MARKER:] = 0
    order, n = _ranked(counts, False)
    if n == 0 or counts[order[0]] > 30:
        return empty()
    out = np.zeros((counts[order[0]], n), dtype=np.uint8)
    for j in range(n):
        c = order[j]
        for y in range(counts[c]):
            out[y, j] = c
    return out


@primitive(cost=2, shape="keep", kernel=True)
def sort_into_columns(g: Grid) -> Grid | None:
    """Every cell sorted by colour, commonest first (0 too), filling columns left to right, each from the bottom."""
    h, w = g.shape
    n = _counts(g)
    left = n.copy()
    out = np.empty((h, w), dtype=np.uint8)
    i = 0
    while i < h * w:
        c = argmax_count(left)  # the commonest colour not yet placed (ties: the lowest)
        for _ in range(left[c]):
            out[h - 1 - i % h, i // h] = c
            i += 1
        left[c] = 0
    return empty() if (out == g).all() else out  # already sorted: nothing to do


@primitive(cost=2, first=True, kernel=True)
def largest_bars(g: Grid) -> Grid | None:
    """A bar per largest one-colour object, left to right by where it starts, as tall as its size, in its colour."""
    labels, n = label(g, True, True)
    if n == 0:
        return empty()
    h, w = g.shape
    size = np.zeros(n + 1, dtype=np.int64)
    left = np.full(n + 1, w, dtype=np.int64)
    colour = np.zeros(n + 1, dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            i = labels[y, x]
            if i > 0:
                size[i] += 1
                left[i] = min(left[i], x)
                colour[i] = g[y, x]
    top = size.max()
    if top > 30:
        return empty()
    k = 0
    for i in range(1, n + 1):
        if size[i] == top:
            k += 1
    out = np.zeros((top, k), dtype=np.uint8)
    j = 0
    for x in range(w):  # by the leftmost column, ties in label (reading) order
        for i in range(1, n + 1):
            if size[i] == top and left[i] == x:
                out[:, j] = colour[i]
                j += 1
    return out


@njit
def _other_cells(g, c):
    """The cells of non-zero colours other than c, in reading order: (ys, xs, colours, how many)."""
    h, w = g.shape
    oys = np.empty(h * w, dtype=np.int64)
    oxs = np.empty(h * w, dtype=np.int64)
    ovs = np.empty(h * w, dtype=np.uint8)
    no = 0
    for y in range(h):
        for x in range(w):
            v = g[y, x]
            if v != c and v != 0:
                oys[no], oxs[no], ovs[no] = y, x, v
                no += 1
    return oys, oxs, ovs, no


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def recolour_nearest(g: Grid, c: Color) -> Grid | None:
    """Cells of colour c take the colour of the nearest cell of another non-zero colour (a tie: unchanged)."""
    h, w = g.shape
    nc = 0
    no = 0
    first = -1
    single = True  # the other cells have one colour: it is every cell's nearest, with no tie
    for y in range(h):
        for x in range(w):
            v = g[y, x]
            if v == c:
                nc += 1
            elif v != 0:
                no += 1
                if first < 0:
                    first = v
                elif v != first:
                    single = False
    if nc == 0 or no == 0:
        return empty()
    out = g.copy()
    if single:
        for y in range(h):
            for x in range(w):
                if g[y, x] == c:
                    out[y, x] = first
        return out
    oys, oxs, ovs, _ = _other_cells(g, c)
    for y in range(h):
        for x in range(w):
            if g[y, x] != c:
                continue
            best = -1
            colour = 0
            tie = False
            for m in range(no):
                d = (y - oys[m]) * (y - oys[m]) + (x - oxs[m]) * (x - oxs[m])
                v = ovs[m]
                if best < 0 or d < best:
                    best = d
                    colour = v
                    tie = False
                elif d == best and v != colour:
                    tie = True
            if not tie:
                out[y, x] = colour
    return out


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def corner_colours(g: Grid, c: Color) -> Grid | None:
    """Every cell of colour c takes the colour of the grid's corner cell in its quadrant."""
    # None when a corner is 0 or c, or a cell of c lies on a middle row or column
    h, w = g.shape
    key = np.array([g[0, 0], g[0, w - 1], g[h - 1, 0], g[h - 1, w - 1]])
    for k in range(4):
        if key[k] == 0 or key[k] == c:
            return empty()
    out = g.copy()
    found = False
    for y in range(h):
        for x in range(w):
            if g[y, x] != c:
                continue
            if 2 * y + 1 == h or 2 * x + 1 == w:
                return empty()
            out[y, x] = key[(2 if 2 * y + 1 > h else 0) + (1 if 2 * x + 1 > w else 0)]
            found = True
    return out if found else empty()


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def recolour_objects_nearest(g: Grid, c: Color) -> Grid | None:
    """Each 4-connected object of colour c takes the colour of the nearest other non-zero cell (a tie: unchanged)."""
    h, w = g.shape
    labels, n = label(g, False, True)
    oys, oxs, ovs, no = _other_cells(g, c)
    if no == 0:
        return empty()
    best = np.full(n + 1, -1, dtype=np.int64)   # per component: the least squared distance so far
    colour = np.zeros(n + 1, dtype=np.int64)    # its colour; -1 where two colours tie
    for y in range(h):
        for x in range(w):
            if g[y, x] != c:
                continue
            k = labels[y, x]
            for m in range(no):
                d = (y - oys[m]) * (y - oys[m]) + (x - oxs[m]) * (x - oxs[m])
                v = np.int64(ovs[m])
                if best[k] < 0 or d < best[k]:
                    best[k] = d
                    colour[k] = v
                elif d == best[k] and colour[k] != v:
                    colour[k] = -1
    out = g.copy()
    changed = False
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                k = labels[y, x]
                if colour[k] > 0:
                    out[y, x] = colour[k]
                    changed = True
    return out if changed else empty()


@primitive(cost=1.5, params=((False,), (True,)), shape="keep", kernel=True)
def cycle_layers(g: Grid, reverse: bool) -> Grid | None:
    """Nested layers (read along the diagonal from a corner) take the colour of the one outside, or in reverse order."""
    h, w = g.shape
    n = min(h, w)
    order = np.zeros(256, dtype=np.int64)
    seen = np.zeros(256, dtype=np.bool_)
    k = 0
    for i in range((n + 1) // 2):  # distinct colours, outermost first
        v = g[i, i]
        if not seen[v]:
            seen[v] = True
            order[k] = v
            k += 1
    if k < 2:
        return empty()
    for y in range(h):
        for x in range(w):
            if not seen[g[y, x]]:
                return empty()
    lut = np.arange(256).astype(np.uint8)
    for i in range(k):
        lut[order[i]] = order[k - 1 - i] if reverse else order[k - 1 if i == 0 else i - 1]
    out = np.empty((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            out[y, x] = lut[g[y, x]]
    return out


@primitive(cost=2, shape="change", kernel=True)
def grow_layers(g: Grid) -> Grid | None:
    """Corner-nested L layers (colour set by a cell's larger coordinate) go on, repeating, over twice the grid."""
    h, w = g.shape
    n = 0
    while n < min(h, w) and g[n, n] != 0:
        n += 1
    if n < 2:
        return empty()
    for y in range(h):
        for x in range(w):
            k = max(y, x)
            if (g[y, x] != g[k, k] if k < n else g[y, x] != 0):
                return empty()  # not layers from the top-left corner, with zeros past them
    out = np.empty((2 * h, 2 * w), dtype=np.uint8)
    for y in range(2 * h):
        for x in range(2 * w):
            k = max(y, x) % n
            out[y, x] = g[k, k]
    return out


@primitive(cost=1.5, shape="keep", kernel=True)
def swap_crossing(g: Grid) -> Grid | None:
    """Where full rows cross full columns, the colour on top changes to the other line's."""
    h, w = g.shape
    full_row = np.ones(h, dtype=np.bool_)
    full_col = np.ones(w, dtype=np.bool_)
    for y in range(h):
        for x in range(w):
            if g[y, x] == 0:
                full_row[y] = False
                full_col[x] = False
    nr = full_row.sum()
    ncol = full_col.sum()
    if nr == 0 or ncol == 0 or nr == h or ncol == w:
        return empty()
    counts = np.zeros(256, dtype=np.int64)
    row_top = np.zeros(h, dtype=np.int64)
    col_top = np.zeros(w, dtype=np.int64)
    for y in range(h):
        counts[:] = 0
        for x in range(w):
            counts[g[y, x]] += 1
        row_top[y] = argmax_count(counts)
    for x in range(w):
        counts[:] = 0
        for y in range(h):
            counts[g[y, x]] += 1
        col_top[x] = argmax_count(counts)
    out = g.copy()
    for y in range(h):
        if not full_row[y]:
            continue
        rc = row_top[y]
        for x in range(w):
            if not full_col[x]:
                continue
            cc = col_top[x]
            if rc != cc:
                out[y, x] = cc if g[y, x] == rc else rc
    return out
