"""Placement primitives: objects lifted, packed into blocks, corners and panels, lined up, fitted
between bars, folded at a hinge, and keyed rings.

Background is colour 0. A primitive that does not apply to its input returns None. Every one is a
compiled kernel (`registry.primitive(kernel=True)`); objects are the components of
`objects.components`, in its order (`kernels.object_cells`). The moves that slide, attract and
align objects are in `motion`, whose kernels register first.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import (
    argmax_count,
    box_corners,
    cells_box,
    counts,
    empty,
    first_cells,
    object_cells,
    outside_zeros,
    paste,
)
from shared.solvers.dsl.primitives.motion import copy_to_markers
from shared.solvers.dsl.primitives.parts import _cuts, _layout, equal_panels
from shared.solvers.dsl.primitives.registry import WORDS, primitive
from shared.solvers.dsl.types import MARKER, MAX_SIDE, Color, Grid


@primitive(cost=2.5, shape="keep", first=True, kernel=True)
def lift_objects(g: Grid) -> Grid | None:
    """Every shape moves up by its own height."""
    h, w = g.shape
    # a run of k cells of one colour down a column, starting in row y, is part of a shape at least k
    # high whose top is at most y: it cannot move up unless k <= y
    for x in range(w):
        y = 0
        while y < h:
            v = g[y, x]
            k = 1
            while y + k < h and g[y + k, x] == v:
                k += 1
            if v != 0 and k > y:
                return empty()
            y += k
    n, start, cells = object_cells(g, False, True)
    if n == 0 or n > 30:
        return empty()
    out = np.zeros((h, w), dtype=np.uint8)
    for i in range(n):
        y0, y1, _, _ = cells_box(cells, start[i], start[i + 1], w)
        up = y1 - y0 + 1
        if y0 - up < 0:
            return empty()
        for j in range(start[i], start[i + 1]):
            y, x = cells[j] // w, cells[j] % w
            out[y - up, x] = g[y, x]
    return out


@primitive(cost=2, shape="keep", first=True, kernel=True)
def into_block(g: Grid) -> Grid | None:
    """Every lone cell moves onto the nearest cell of the one solid one-colour block (of 4+ cells), painting it."""
    h, w = g.shape
    n, start, cells = object_cells(g, True, False)
    block = -1
    for i in range(n):
        k = start[i + 1] - start[i]
        if k == 1:
            continue
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        c = g[cells[start[i]] // w, cells[start[i]] % w]
        solid = k >= 4 and k == (y1 - y0 + 1) * (x1 - x0 + 1)
        for j in range(start[i], start[i + 1]):
            solid = solid and g[cells[j] // w, cells[j] % w] == c
        if not solid or block >= 0:
            return empty()
        block = i
    if block < 0 or n < 2:
        return empty()
    y0, y1, x0, x1 = cells_box(cells, start[block], start[block + 1], w)
    out = g.copy()
    taken = np.zeros((h, w), dtype=np.bool_)
    for i in range(n):
        if i == block:
            continue
        y, x = cells[start[i]] // w, cells[start[i]] % w
        ty, tx = min(max(y, y0), y1), min(max(x, x0), x1)
        if taken[ty, tx]:
            return empty()
        taken[ty, tx] = True
        out[ty, tx] = g[y, x]
        out[y, x] = 0
    return out


@primitive(cost=2, shape="keep", first=True, kernel=True)
def corners_across(g: Grid) -> Grid | None:
    """The four cells in the inner corners of the one-colour rectangular frame move out past its opposite corners."""
    h, w = g.shape
    n, start, cells = object_cells(g, True, True)
    for i in range(n):
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        if y1 - y0 < 3 or x1 - x0 < 3 or y0 == 0 or x0 == 0 or y1 == h - 1 or x1 == w - 1:
            continue
        if start[i + 1] - start[i] != 2 * (y1 - y0 + x1 - x0):  # just the box's outline
            continue
        c = g[y0, x0]
        inner = np.array([g[y0 + 1, x0 + 1], g[y0 + 1, x1 - 1], g[y1 - 1, x0 + 1], g[y1 - 1, x1 - 1]])
        if (inner == 0).any() or (inner == c).any():
            continue
        out = g.copy()
        out[y0 + 1, x0 + 1] = out[y0 + 1, x1 - 1] = out[y1 - 1, x0 + 1] = out[y1 - 1, x1 - 1] = 0
        out[y1 + 1, x1 + 1], out[y1 + 1, x0 - 1] = inner[0], inner[1]
        out[y0 - 1, x1 + 1], out[y0 - 1, x0 - 1] = inner[2], inner[3]
        return out
    return empty()


@njit
def _thick(g, y, x):
    """Whether cell (y, x) lies in a 2 x 2 square of its own colour."""
    h, w = g.shape
    c = g[y, x]
    for y0 in range(max(0, y - 1), min(h - 1, y + 1)):
        for x0 in range(max(0, x - 1), min(w - 1, x + 1)):
            if g[y0, x0] == c and g[y0 + 1, x0] == c and g[y0, x0 + 1] == c and g[y0 + 1, x0 + 1] == c:
                return True
    return False


@primitive(cost=2, shape="keep", kernel=True)
def reel_in(g: Grid) -> Grid | None:
    """A block on a straight one-cell-wide line of its colour (a tether) moves along it by its length; the line goes."""
    h, w = g.shape
    n, start, cells = object_cells(g, False, True)
    if not 1 <= n <= 40:
        return empty()
    out = g.copy()
    moved = False
    for i in range(n):
        a, b = start[i], start[i + 1]
        thin = np.zeros(b - a, dtype=np.bool_)
        ty0, ty1, tx0, tx1, nthin = h, -1, w, -1, 0
        for k in range(a, b):
            y, x = cells[k] // w, cells[k] % w
            if not _thick(g, y, x):
                thin[k - a] = True
                nthin += 1
                ty0, ty1, tx0, tx1 = min(ty0, y), max(ty1, y), min(tx0, x), max(tx1, x)
        if nthin == 0 or nthin == b - a:
            continue
        y0, y1, x0, x1 = h, -1, w, -1
        for k in range(a, b):
            if not thin[k - a]:
                y, x = cells[k] // w, cells[k] % w
                y0, y1, x0, x1 = min(y0, y), max(y1, y), min(x0, x), max(x1, x)
        dy, dx = 0, 0
        if tx0 == tx1 and ty1 - ty0 + 1 == nthin and x0 <= tx0 <= x1:
            if ty1 + 1 == y0:
                dy = -nthin
            elif ty0 - 1 == y1:
                dy = nthin
        if dy == 0 and ty0 == ty1 and tx1 - tx0 + 1 == nthin and y0 <= ty0 <= y1:
            if tx1 + 1 == x0:
                dx = -nthin
            elif tx0 - 1 == x1:
                dx = nthin
        if dy == 0 and dx == 0:
            return empty()
        c = g[cells[a] // w, cells[a] % w]
        for k in range(a, b):
            out[cells[k] // w, cells[k] % w] = 0
        for k in range(a, b):
            if not thin[k - a]:
                y, x = cells[k] // w + dy, cells[k] % w + dx
                if not (0 <= y < h and 0 <= x < w) or out[y, x] != 0:
                    return empty()
                out[y, x] = c
        moved = True
    return out if moved else empty()


@primitive(cost=2, shape="keep", kernel=True)
def nudge_to_corner(g: Grid) -> Grid | None:
    """A solid block with one cell of another colour in a corner moves one cell diagonally that way, filling it."""
    h, w = g.shape
    n, start, cells = object_cells(g, False, True)
    if not 1 <= n <= 40:
        return empty()
    out = g.copy()
    moves = np.zeros((n, 6), dtype=np.int64)  # y0, y1, x0, x1, dy, dx of each block that moves
    m = 0
    for i in range(n):
        a, b = start[i], start[i + 1]
        y0, y1, x0, x1 = cells_box(cells, a, b, w)
        if b - a < 3 or (y1 - y0 + 1) * (x1 - x0 + 1) != b - a + 1:
            continue
        c = g[cells[a] // w, cells[a] % w]
        for cy, cx in ((y0, x0), (y0, x1), (y1, x0), (y1, x1)):
            if g[cy, cx] != c and g[cy, cx] != 0:
                moves[m, 0], moves[m, 1], moves[m, 2], moves[m, 3] = y0, y1, x0, x1
                moves[m, 4], moves[m, 5] = 1 if cy == y1 else -1, 1 if cx == x1 else -1
                m += 1
                for y in range(y0, y1 + 1):
                    for x in range(x0, x1 + 1):
                        out[y, x] = 0
                break
    if m == 0:
        return empty()
    for j in range(m):
        y0, y1, x0, x1, dy, dx = moves[j]
        c = g[y0 if dy > 0 else y1, x0 if dx > 0 else x1]  # the corner opposite the odd cell
        if y0 + dy < 0 or y1 + dy >= h or x0 + dx < 0 or x1 + dx >= w:
            return empty()
        for y in range(y0 + dy, y1 + dy + 1):
            for x in range(x0 + dx, x1 + dx + 1):
                if out[y, x] != 0:
                    return empty()
                out[y, x] = c
    return out


_BY_COLOUR = WORDS.index("colour")
_copy_kernel = copy_to_markers.kernel


@primitive(cost=2, shape="keep", kernel=True)
def panel_copies(g: Grid) -> Grid | None:
    """Cut along separator lines; copy_to_markers on the panels' colours, each new panel filled like the template's."""
    ry, rx = _cuts(g, MAX_SIDE * MAX_SIDE)  # not a list of parts: any count of panels
    if ry.shape[0] == 0:
        return empty()
    small = _layout(g, ry, rx, True)
    # copy_to_markers on the panels' layout, the template kept; int64 parameters, as the core passes
    # them (literal ones would add a second signature to the kernel's entry in numba's cache)
    res = _copy_kernel(small, np.int64(_BY_COLOUR), np.int64(1))
    if res.size == 0:
        return empty()
    out = g.copy()
    changed = False
    for i in range(small.shape[0]):
        for j in range(small.shape[1]):
            if res[i, j] == small[i, j]:
                continue
            if small[i, j] != 0:
                return empty()  # a copy lands on a panel that is not empty
            a, b, p, q = ry[i, 0], ry[i, 1], rx[j, 0], rx[j, 1]
            src = -1  # the first panel of the new colour, read as the template's panel
            for k in range(small.size):
                if small[k // small.shape[1], k % small.shape[1]] == res[i, j]:
                    src = k
                    break
            si, sj = src // small.shape[1], src % small.shape[1]
            if ry[si, 1] - ry[si, 0] != b - a or rx[sj, 1] - rx[sj, 0] != q - p:
                return empty()
            paste(out, a, p, g[ry[si, 0]:ry[si, 1], rx[sj, 0]:rx[sj, 1]])
            changed = True
    return out if changed else empty()


@primitive(cost=2, shape="keep", kernel=True)
def stamp_panels(g: Grid) -> Grid | None:
    """Cut along separator lines; the panel with the most odd cells is copied over each other panel with any."""
    ry, rx = equal_panels(g)
    if ry.shape[0] == 0:
        return empty()
    ph, pw = ry[0, 1] - ry[0, 0], rx[0, 1] - rx[0, 0]
    pc = np.empty((ry.shape[0], rx.shape[0], 256), dtype=np.int64)  # each panel's colour counts
    for i in range(ry.shape[0]):
        for j in range(rx.shape[0]):
            pc[i, j] = counts(g[ry[i, 0]:ry[i, 1], rx[j, 0]:rx[j, 1]])
    b = argmax_count(pc.sum(axis=0).sum(axis=0))  # the panels' commonest colour, the lines left out
    off = ph * pw - pc[:, :, b]  # each panel's odd cells: those not of colour b
    t = off.argmax()  # the template: the first panel with the most
    ti, tj = t // rx.shape[0], t % rx.shape[0]
    template = g[ry[ti, 0]:ry[ti, 1], rx[tj, 0]:rx[tj, 1]]
    out = g.copy()
    marked = 0
    for i in range(ry.shape[0]):
        for j in range(rx.shape[0]):
            if i == ti and j == tj or off[i, j] == 0:
                continue
            if off[i, j] == off[ti, tj]:
                return empty()  # two panels tie for the template
            paste(out, ry[i, 0], rx[j, 0], template)
            marked += 1
    return out if marked else empty()


@primitive(cost=2, shape="keep", kernel=True)
def line_up_by_size(g: Grid) -> Grid | None:
    """Objects (one colour, 8-connected) stand on the bottom edge side by side from the left, smallest first."""
    h, w = g.shape
    n, start, cells = object_cells(g, True, True)
    if n < 2:
        return empty()
    box = np.empty((n, 4), dtype=np.int64)  # top, left, bottom, right
    size = np.empty(n, dtype=np.int64)
    keep = np.ones(n, dtype=np.bool_)
    for i in range(n):
        box[i, 0], box[i, 2], box[i, 1], box[i, 3] = cells_box(cells, start[i], start[i + 1], w)
        edge = 0
        for j in range(start[i], start[i + 1]):
            y, x = cells[j] // w, cells[j] % w
            edge += y == 0 or y == h - 1 or x == 0 or x == w - 1
        size[i] = start[i + 1] - start[i]
        keep[i] = edge < 2 * (h + w) - 4  # a frame round the whole grid is dropped
    order = np.argsort(size, kind="mergesort")
    out = np.zeros_like(g)
    at = 0
    for i in order:
        if not keep[i]:
            continue
        bw = box[i, 3] - box[i, 1] + 1
        if at + bw > w:
            return empty()
        dy = h - 1 - box[i, 2]
        for j in range(start[i], start[i + 1]):
            y, x = cells[j] // w, cells[j] % w
            out[y + dy, x - box[i, 1] + at] = g[y, x]
        at += bw
    return out


@njit
def _is_open(cells, a, b, w, y0, y1, x0, x1):
    """Whether an object has a dent: with its holes filled, some row or column of it is not one run."""
    m = np.zeros((y1 - y0 + 3, x1 - x0 + 3), dtype=np.uint8)  # the box and a blank ring round it
    for i in range(a, b):
        m[cells[i] // w - y0 + 1, cells[i] % w - x0 + 1] = 1
    out = outside_zeros(m)
    for axis in range(2):
        mm, oo = (m, out) if axis == 0 else (m.T, out.T)
        for r in range(mm.shape[0]):
            lo, hi = -1, -1
            for c in range(mm.shape[1]):
                if mm[r, c]:
                    hi = c
                    if lo < 0:
                        lo = c
            for c in range(lo + 1, hi):
                if oo[r, c]:
                    return True
    return False


@primitive(cost=2, shape="keep", kernel=True)
def sides_by_openness(g: Grid) -> Grid | None:
    """Objects with no dent go to the left edge as a marker; objects with a dent to the right as a second marker."""
    h, w = g.shape
    n, start, cells = object_cells(g, True, False)
    if n < 2:
        return empty()
    out = np.zeros_like(g)
    kinds = 0
    for i in range(n):
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        dent = _is_open(cells, start[i], start[i + 1], w, y0, y1, x0, x1)
        kinds |= 2 if dent else 1
        dx = w - 1 - x1 if dent else -x0
        for j in range(start[i], start[i + 1]):
            y, x = cells[j] // w, cells[j] % w + dx
            if out[y, x] != 0:
                return empty()
            out[y, x] = MARKER + 1 if dent else MARKER
    return out if kinds == 3 else empty()


@primitive(cost=2, params="colours", shape="keep", first=True, kernel=True)
def dominoes(g: Grid, c: Color) -> Grid | None:
    """Upright bars on the floor: bars of colour c fall right to lie on the floor, knocking down each bar they reach."""
    h, w = g.shape
    out = g.copy()
    tall = np.zeros(w, dtype=np.int64)
    cells = 0
    for x in range(w):
        if g[h - 1, x] != 0:
            while tall[x] < h and g[h - 1 - tall[x], x] == g[h - 1, x]:
                tall[x] += 1
            cells += tall[x]
    if cells != np.count_nonzero(g) or counts(g)[c] == 0:
        return empty()
    reach = -2
    fell = False
    for x in range(w):
        if tall[x] == 0 or (g[h - 1, x] != c and x > reach + 1):
            continue
        if x > 0 and tall[x - 1] > 0 and x > reach + 1:
            return empty()  # bars side by side: not a row of dominoes
        out[h - tall[x]:h, x] = 0
        reach = min(w - 1, x + tall[x] - 1)
        fell = True
    if not fell:
        return empty()
    reach = -2
    for x in range(w):
        if tall[x] and (g[h - 1, x] == c or x <= reach + 1):
            reach = min(w - 1, x + tall[x] - 1)
            out[h - 1, x:reach + 1] = g[h - 1, x]
    return out


@njit
def _sides_match(g, y0, y1, x0, x1, left, right, flip):
    """Whether the shape in g[y0:y1, x0:x1] (mirrored when `flip`) shows colour `left` in its first column and
    `right` in its last."""
    a, b = (x1 - 1, x0) if flip else (x0, x1 - 1)
    seen_l = seen_r = False
    for y in range(y0, y1):
        seen_l |= g[y, a] == left
        seen_r |= g[y, b] == right
    return seen_l and seen_r


@primitive(cost=2, shape="change", first=True, kernel=True)
def fit_between_bars(g: Grid) -> Grid | None:
    """Corner cells hold two bars; a shape of the bars' colours fits between them (mirrored so its sides match)."""
    h, w = g.shape
    n = counts(g)
    y0, y1, x0, x1 = -1, -1, -1, -1
    for c in range(1, 10):  # the corners: the first colour whose four cells stand at a box's corners
        if n[c] == 4:
            y0, y1, x0, x1 = box_corners(g, c)
            if y0 >= 0:
                break
    if y0 < 0 or y1 - y0 < 2 or x1 - x0 < 2:
        return empty()
    left, right = g[y0 + 1, x0], g[y0 + 1, x1]
    if left == 0 or right == 0 or left == right:
        return empty()
    for y in range(y0 + 1, y1):
        if g[y, x0] != left or g[y, x1] != right:
            return empty()
    sy0, sx0, sy1, sx1 = h, w, -1, -1  # the shape's box outside the frame, inclusive
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0 and not (y0 <= y <= y1 and x0 <= x <= x1):
                if g[y, x] != left and g[y, x] != right:
                    return empty()
                sy0, sx0, sy1, sx1 = min(sy0, y), min(sx0, x), max(sy1, y), max(sx1, x)
    if sy1 - sy0 != y1 - y0 - 2 or sx1 - sx0 != x1 - x0 - 2:
        return empty()
    flip = not _sides_match(g, sy0, sy1 + 1, sx0, sx1 + 1, left, right, False)
    if flip and not _sides_match(g, sy0, sy1 + 1, sx0, sx1 + 1, left, right, True):
        return empty()
    out = g[y0:y1 + 1, x0:x1 + 1].copy()
    for y in range(sy1 - sy0 + 1):
        for x in range(sx1 - sx0 + 1):
            out[1 + y, 1 + x] = g[sy0 + y, sx1 - x if flip else sx0 + x]
    return out


@njit
def _hinge_run(g, cells, n, many):
    """(head, hinge) indices into the n cells of a straight run, or (-1, -1): a head cell at one end,
    one hinge cell inside, every other cell one body colour, the hinge's colour neither; the body's
    colour has more cells in the grid than the head's (`many`: cells per colour)."""
    if n < 3:
        return -1, -1
    for head in (0, n - 1):
        other = n - 1 - head
        body = g[cells[other, 0], cells[other, 1]]
        top = g[cells[head, 0], cells[head, 1]]
        if top == body or many[body] <= many[top]:
            continue
        hinge = -1
        for k in range(n):
            if k != head and g[cells[k, 0], cells[k, 1]] != body:
                if hinge >= 0 or k == other:
                    hinge = -2  # not this way round
                    break
                hinge = k
        if hinge >= 0 and g[cells[hinge, 0], cells[hinge, 1]] != top:
            return head, hinge
    return -1, -1


@primitive(cost=2, shape="keep", kernel=True)
def fold_at_hinge(g: Grid) -> Grid | None:
    """A line with a head at one end and one odd cell inside: the part past that cell folds square toward the middle."""
    h, w = g.shape
    many = counts(g)
    bg = argmax_count(many)
    out = g.copy()
    cells = np.empty((max(h, w), 2), dtype=np.int64)
    folded = False
    for vertical in range(2):
        for line in range(w if vertical else h):
            m = h if vertical else w
            k = 0
            while k < m:
                n = 0
                while k < m and g[k if vertical else line, line if vertical else k] != bg:
                    cells[n, 0], cells[n, 1] = (k, line) if vertical else (line, k)
                    n += 1
                    k += 1
                k += 1
                head, hinge = _hinge_run(g, cells, n, many)
                if head < 0:
                    continue
                hy, hx = cells[hinge, 0], cells[hinge, 1]
                mid2, at2 = (w - 1, 2 * hx) if vertical else (h - 1, 2 * hy)  # doubled, to stay whole
                if at2 == mid2:
                    return empty()
                turn = 1 if at2 < mid2 else -1
                step = 1 if head < hinge else -1
                j = hinge + step
                while 0 <= j < n:
                    d = abs(j - hinge)
                    y, x = (hy, hx + turn * d) if vertical else (hy + turn * d, hx)
                    out[cells[j, 0], cells[j, 1]] = bg
                    if 0 <= y < h and 0 <= x < w:
                        out[y, x] = g[cells[j, 0], cells[j, 1]]
                    j += step
                folded = True
    return out if folded else empty()


@primitive(cost=2, shape="keep", kernel=True)
def corners_inward(g: Grid) -> Grid | None:
    """Solid blocks in the corners whose colour fills two corners or more each step diagonally inward by their size."""
    h, w = g.shape
    bg = argmax_count(counts(g))
    box = np.zeros((4, 4), dtype=np.int64)  # per corner: top, left, height, width of its block (height 0: none)
    seen = np.zeros(256, dtype=np.int64)
    for k in range(4):
        cy, cx = (0 if k < 2 else h - 1), (0 if k % 2 == 0 else w - 1)
        c = g[cy, cx]
        if c == bg:
            continue
        sy, sx = (1 if k < 2 else -1), (1 if k % 2 == 0 else -1)
        bh, bw = 0, 0
        while bh < h and g[cy + sy * bh, cx] == c:
            bh += 1
        while bw < w and g[cy, cx + sx * bw] == c:
            bw += 1
        if bh == h or bw == w:
            return empty()
        top, left = min(cy, cy + sy * (bh - 1)), min(cx, cx + sx * (bw - 1))
        for y in range(top, top + bh):
            for x in range(left, left + bw):
                if g[y, x] != c:
                    return empty()  # not a solid block
        for j in range(bh + 1):  # the block stands apart: background along its inner sides
            if g[cy + sy * j, cx + sx * bw] != bg:
                return empty()
        for j in range(bw + 1):
            if g[cy + sy * bh, cx + sx * j] != bg:
                return empty()
        box[k, 0], box[k, 1], box[k, 2], box[k, 3] = top, left, bh, bw
        seen[c] += 1
    out = g.copy()
    moved = False
    for k in range(4):
        if box[k, 2] > 0 and seen[g[box[k, 0], box[k, 1]]] >= 2:
            out[box[k, 0]:box[k, 0] + box[k, 2], box[k, 1]:box[k, 1] + box[k, 3]] = bg
    for k in range(4):
        if box[k, 2] == 0 or seen[g[box[k, 0], box[k, 1]]] < 2:
            continue
        top = box[k, 0] + (box[k, 2] if k < 2 else -box[k, 2])
        left = box[k, 1] + (box[k, 3] if k % 2 == 0 else -box[k, 3])
        if top < 0 or left < 0 or top + box[k, 2] > h or left + box[k, 3] > w:
            return empty()
        out[top:top + box[k, 2], left:left + box[k, 3]] = g[box[k, 0], box[k, 1]]
        moved = True
    return out if moved else empty()


@primitive(cost=2, shape="keep", kernel=True)
def drop_under_stripes(g: Grid) -> Grid | None:
    """A lone cell steps down a row; above it, every second column (its own among them) takes a marker."""
    ys, xs, n = first_cells(g, -1, 1)
    h, w = g.shape
    if n != 1 or ys[0] + 1 >= h:
        return empty()
    y, x = ys[0], xs[0]
    out = np.zeros((h, w), dtype=np.uint8)
    out[y + 1, x] = g[y, x]
    for r in range(y + 1):
        for c in range(x % 2, w, 2):
            out[r, c] = MARKER
    return out


@njit
def _ring3(g):
    """(top, left) of the one 3 x 3 ring of one colour round a cell of another (non-zero both), or (-1, -1)."""
    h, w = g.shape
    found_y, found_x = -1, -1
    for y in range(h - 2):
        for x in range(w - 2):
            a, b = g[y, x], g[y + 1, x + 1]
            if a == 0 or b == 0 or a == b:
                continue
            ring = True
            for dy in range(3):
                for dx in range(3):
                    if (dy != 1 or dx != 1) and g[y + dy, x + dx] != a:
                        ring = False
            if ring:
                if found_y >= 0:
                    return -1, -1
                found_y, found_x = y, x
    return found_y, found_x


@primitive(cost=2, shape="keep", kernel=True)
def ring_by_key(g: Grid) -> Grid | None:
    """A 3 x 3 ring moves by the step from the lone cell of its centre's colour to its own's; an X from its corners."""
    y0, x0 = _ring3(g)
    if y0 < 0:
        return empty()
    h, w = g.shape
    a, b = g[y0, x0], g[y0 + 1, x0 + 1]
    sy, sx, ey, ex = -1, -1, -1, -1
    for y in range(h):
        for x in range(w):
            if y0 <= y < y0 + 3 and x0 <= x < x0 + 3:
                continue
            if g[y, x] == b:
                if sy >= 0:
                    return empty()
                sy, sx = y, x
            elif g[y, x] == a:
                if ey >= 0:
                    return empty()
                ey, ex = y, x
    if sy < 0 or ey < 0:
        return empty()
    ty, tx = y0 + ey - sy, x0 + ex - sx
    if ty < 0 or tx < 0 or ty + 3 > h or tx + 3 > w:
        return empty()
    out = np.full((h, w), b, dtype=np.uint8)
    for dy in range(3):
        for dx in range(3):
            if dy != 1 or dx != 1:
                out[ty + dy, tx + dx] = a
    for cy, cx, vy, vx in ((ty, tx, -1, -1), (ty, tx + 2, -1, 1), (ty + 2, tx, 1, -1), (ty + 2, tx + 2, 1, 1)):
        y, x = cy + vy, cx + vx
        while 0 <= y < h and 0 <= x < w:
            out[y, x] = a
            y += vy
            x += vx
    return out
