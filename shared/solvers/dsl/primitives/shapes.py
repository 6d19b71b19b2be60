"""Shape primitives: outlines, interiors, borders, halos, dilation and per-object edits in place.

Background is colour 0. A primitive that does not apply to its input returns None. Every primitive
here is a compiled kernel (see `registry.primitive`): the body is numba's subset of Python, a
grid in, a new grid (or the empty grid for None) out. Shapes copied, assembled, grown and tiled
are in `templates`.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.completion import mirror_fill_kernel
from shared.solvers.dsl.primitives.kernels import (
    bbox_nonzero,
    cells_box,
    counts,
    empty,
    label,
    object_cells,
)
from shared.solvers.dsl.primitives.registry import WORDS, primitive
from shared.solvers.dsl.types import MARKER, Grid


@njit
def _inner(g):
    """The non-zero cells whose four neighbours are all non-zero (outside the grid counts as zero)."""
    h, w = g.shape
    inner = np.zeros((h, w), dtype=np.bool_)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            inner[y, x] = g[y, x] != 0 and g[y - 1, x] != 0 and g[y + 1, x] != 0 and g[y, x - 1] != 0 \
                and g[y, x + 1] != 0
    return inner


@primitive(cost=1.5, shape="keep", kernel=True)
def frame_objects(g: Grid) -> Grid | None:
    """Draw a marker-coloured rectangle over zeros one cell outside each object's box (8-connected)."""
    lab, n = label(g, True, False)
    if n == 0:
        return empty()
    h, w = g.shape
    y0 = np.full(n + 1, h, dtype=np.int64)
    x0 = np.full(n + 1, w, dtype=np.int64)
    y1 = np.full(n + 1, -1, dtype=np.int64)
    x1 = np.full(n + 1, -1, dtype=np.int64)
    for y in range(h):
        for x in range(w):
            i = lab[y, x]
            if i != 0:
                y0[i] = min(y0[i], y)
                x0[i] = min(x0[i], x)
                y1[i] = max(y1[i], y)
                x1[i] = max(x1[i], x)
    out = g.copy()
    for i in range(1, n + 1):
        for y in range(max(y0[i] - 1, 0), min(y1[i] + 2, h)):
            for x in range(max(x0[i] - 1, 0), min(x1[i] + 2, w)):
                if not (y0[i] <= y <= y1[i] and x0[i] <= x <= x1[i]) and out[y, x] == 0:
                    out[y, x] = MARKER
    return out


@primitive(cost=2, shape="keep", kernel=True)
def frame_in_markers(g: Grid) -> Grid | None:
    """Lone cells of one colour bound a box, outlined one cell inside them over zeros in the commonest other colour."""
    h, w = g.shape
    n = counts(g)
    lone = np.zeros(256, dtype=np.int64)  # per colour, its cells with no 8-neighbour of that colour
    for y in range(h):
        for x in range(w):
            c = g[y, x]
            if c == 0:
                continue
            alone = True
            for yy in range(max(y - 1, 0), min(y + 2, h)):
                for xx in range(max(x - 1, 0), min(x + 2, w)):
                    if (yy != y or xx != x) and g[yy, xx] == c:
                        alone = False
            lone[c] += alone
    mark, colour = -1, -1
    for c in range(1, 256):
        if n[c] >= 2 and lone[c] == n[c]:
            if mark >= 0:
                return empty()  # two colours of lone cells: which bounds is not clear
            mark = c
    for c in range(1, 256):
        if c != mark and n[c] > 0 and (colour < 0 or n[c] > n[colour]):
            colour = c
    if mark < 0 or colour < 0:
        return empty()
    y0, x0, y1, x1 = bbox_nonzero(g == mark)
    y0, y1, x0, x1 = y0 + 1, y1 - 2, x0 + 1, x1 - 2  # one cell inside the markers' box (bbox ends are past it)
    if y1 - y0 < 2 or x1 - x0 < 2:
        return empty()
    out = g.copy()
    hit = False
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            if (y == y0 or y == y1 or x == x0 or x == x1) and out[y, x] == 0:
                out[y, x] = colour
                hit = True
    return out if hit else empty()


@primitive(cost=2, shape="keep", kernel=True)
def colour_count_bars(g: Grid) -> Grid | None:
    """Below each object (8-connected) a marker bar as wide as its box, as tall as its count of colours, over zeros."""
    h, w = g.shape
    n, start, cells = object_cells(g, True, False)
    if n == 0:
        return empty()
    out = g.copy()
    hit = False
    for i in range(n):
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        seen = np.zeros(16, dtype=np.bool_)
        for j in range(start[i], start[i + 1]):
            seen[g[cells[j] // w, cells[j] % w]] = True
        for y in range(y1 + 1, min(y1 + 1 + seen.sum(), h)):
            for x in range(x0, x1 + 1):
                if out[y, x] == 0:
                    out[y, x] = MARKER
                    hit = True
    return out if hit else empty()


@primitive(cost=2, shape="keep", kernel=True)
def bar_arms(g: Grid) -> Grid | None:
    """A bar with one odd cell on a long side grows an arm from it to the edge: that cell's colour down the middle."""
    # the arm is as wide as the bar is thick each side of its middle line, in the bar's colour
    h, w = g.shape
    n, start, cells = object_cells(g, True, False)
    out = g.copy()
    hit = False
    for i in range(n):
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        bh, bw = y1 - y0 + 1, x1 - x0 + 1
        if start[i + 1] - start[i] != bh * bw or bh == bw or min(bh, bw) < 2:
            continue  # not a solid bar
        seen = counts(g[y0:y1 + 1, x0:x1 + 1])
        odd, bar = -1, -1
        for c in range(1, 16):
            if seen[c] == 1:
                odd = c if odd < 0 else 99
            elif seen[c] > 1:
                bar = c if bar < 0 else 99
        if odd < 0 or odd == 99 or bar == 99:
            continue
        oy, ox = 0, 0
        for j in range(start[i], start[i + 1]):
            if g[cells[j] // w, cells[j] % w] == odd:
                oy, ox = cells[j] // w, cells[j] % w
        if bh > bw and (ox == x0 or ox == x1) and y0 < oy < y1:
            dy, dx, t = 0, (1 if ox == x1 else -1), bw
        elif bw > bh and (oy == y0 or oy == y1) and x0 < ox < x1:
            dy, dx, t = (1 if oy == y1 else -1), 0, bh
        else:
            continue
        for r in range(1, h + w):
            cy, cx = oy + r * dy, ox + r * dx
            if not (0 <= cy < h and 0 <= cx < w):
                break
            for s in range(1 - t, t):
                y, x = cy + s * dx, cx + s * dy  # across the arm
                if 0 <= y < h and 0 <= x < w and out[y, x] == 0:
                    out[y, x] = odd if s == 0 else bar
                    hit = True
    return out if hit else empty()


@primitive(cost=2, params=((False,), (True,)), shape="keep", kernel=True)
def corner_marks(g: Grid, diagonal: bool) -> Grid | None:
    """Mark the zeros beside each corner of every square object (4-connected, side 2+): its sides' ends or diagonals."""
    n, start, cells = object_cells(g, False, False)
    if n == 0:
        return empty()
    h, w = g.shape
    out = g.copy()
    marked = False
    for i in range(n):
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        if y1 - y0 != x1 - x0 or y1 == y0:
            continue
        for cy, cx, vy, vx in ((y0, x0, -1, -1), (y0, x1, -1, 1), (y1, x0, 1, -1), (y1, x1, 1, 1)):
            if diagonal:
                spots = ((cy + vy, cx + vx), (cy + vy, cx + vx))
            else:
                spots = ((cy + vy, cx), (cy, cx + vx))
            for y, x in spots:
                if 0 <= y < h and 0 <= x < w and out[y, x] == 0:
                    out[y, x] = MARKER
                    marked = True
    if not marked:
        return empty()
    return out


@primitive(cost=2, shape="keep", kernel=True)
def corner_blocks(g: Grid) -> Grid | None:
    """Each full square of 2+ colours paints each corner's colour as a block its size past the opposite corner."""
    n, start, cells = object_cells(g, True, False)
    h, w = g.shape
    out = g.copy()
    painted = False
    for i in range(n):
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        k = y1 - y0 + 1
        if x1 - x0 + 1 != k or k < 2 or start[i + 1] - start[i] != k * k:
            continue
        first = g[y0, x0]
        mixed = False
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                mixed |= g[y, x] != first
        if not mixed:
            continue
        # the corner (cy, cx) paints the block beyond the opposite corner, stepping (vy, vx)
        for cy, cx, vy, vx in ((y0, x0, 1, 1), (y0, x1, 1, -1), (y1, x0, -1, 1), (y1, x1, -1, -1)):
            by = y1 + 1 if vy > 0 else y0 - k
            bx = x1 + 1 if vx > 0 else x0 - k
            for y in range(max(by, 0), min(by + k, h)):
                for x in range(max(bx, 0), min(bx + k, w)):
                    if out[y, x] == 0:
                        out[y, x] = g[cy, cx]
                        painted = True
    if not painted:
        return empty()
    return out


@primitive(cost=1.5, shape="keep", kernel=True)
def outline(g: Grid) -> Grid:
    """Mark the non-zero cells that touch a zero cell or the edge (4-neighbours), clear the inside."""
    inner = _inner(g)
    out = g.copy()
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            if inner[y, x]:
                out[y, x] = 0
    return out


@primitive(cost=1.5, shape="keep", kernel=True)
def interior(g: Grid) -> Grid | None:
    """Keep only the non-zero cells whose four neighbours are all non-zero (erode by one cell)."""
    inner = _inner(g)
    if not inner.any():
        return empty()
    h, w = g.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            if inner[y, x]:
                out[y, x] = g[y, x]
    return out


@primitive(cost=1.5, params=((False,), (True,)), shape="keep", kernel=True)
def dilate(g: Grid, diagonal: bool) -> Grid | None:
    """Grow every object by one cell: zero cells take the colour of a non-zero 4- (or 8-) neighbour."""
    h, w = g.shape
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                continue
            found = False
            for dy in range(-1, 2):  # the first neighbour in reading order wins
                for dx in range(-1, 2):
                    if found or dy == 0 and dx == 0 or not diagonal and dy != 0 and dx != 0:
                        continue
                    ny, nx = y + dy, x + dx
                    if 0 <= ny < h and 0 <= nx < w and g[ny, nx] != 0:
                        out[y, x] = g[ny, nx]
                        found = True
    return out


@primitive(cost=1.5, shape="keep", kernel=True)
def border(g: Grid) -> Grid:
    """Mark the outermost ring of cells."""
    out = g.copy()
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            if y == 0 or x == 0 or y == h - 1 or x == w - 1:
                out[y, x] = MARKER
    return out


@primitive(cost=1.5, params=((True,), (False,)), shape="keep", kernel=True)
def halo(g: Grid, diagonal: bool) -> Grid | None:
    """Mark the zero cells next to any non-zero cell (8- or 4-neighbours): a ring round each object."""
    h, w = g.shape
    out = g.copy()
    hit = False
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                continue
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    if dy == 0 and dx == 0 or not diagonal and dy != 0 and dx != 0:
                        continue
                    ny, nx = y + dy, x + dx
                    if 0 <= ny < h and 0 <= nx < w and g[ny, nx] != 0:
                        out[y, x] = MARKER
                        hit = True
    return out if hit else empty()


# how each_object changes an object's box: flips and turns, "invert" (empty box cells take the
# object's colour, its cells empty), "swap" (its two colours exchanged), "symmetric" (its zeros
# filled from its mirror images, as completion.mirror_fill), "fill_box" (empty box cells take its
# commonest colour); as kernels receive them
_FLIP_LR, _FLIP_UD, _ROTATE180, _TRANSPOSE, _INVERT, _SWAP, _SYMMETRIC, _FILL_BOX = (
    WORDS.index(k) for k in ("flip_lr", "flip_ud", "rotate180", "transpose", "invert", "swap", "symmetric", "fill_box"))

@njit
def _mirror_fill(m):
    """completion.mirror_fill: m with its zeros filled from its mirror images under the largest
    symmetry group its cells agree with; m itself when none agrees."""
    filled = mirror_fill_kernel(m)
    return m.copy() if filled.size == 0 else filled


@njit
def _edit(crop, how, new, cnt):
    """Write into `new` (crop's shape) one object's box after the edit `how` (not "symmetric", nor
    "transpose" of a box that is not square); cnt: room for 256 colour counts."""
    h, w = crop.shape
    common, a, b, n = 0, 0, 0, 0
    if how == _INVERT or how == _SWAP or how == _FILL_BOX:
        top = 0  # the highest colour in the box: the counts above it are all zero
        for y in range(h):
            for x in range(w):
                top = max(top, crop[y, x])
        cnt[:top + 1] = 0
        for y in range(h):
            for x in range(w):
                cnt[crop[y, x]] += 1
        most = 0
        for c in range(1, top + 1):
            if cnt[c] > most:
                common, most = c, cnt[c]  # its commonest colour (the lowest of equals)
            if cnt[c] != 0:  # its two colours, low first, when it has exactly two
                n += 1
                if n == 1:
                    a = c
                elif n == 2:
                    b = c
    for y in range(h):
        for x in range(w):
            v = crop[y, x]
            if how == _FLIP_LR:
                v = crop[y, w - 1 - x]
            elif how == _FLIP_UD:
                v = crop[h - 1 - y, x]
            elif how == _ROTATE180:
                v = crop[h - 1 - y, w - 1 - x]
            elif how == _TRANSPOSE:
                v = crop[x, y]
            elif how == _INVERT:
                v = common if v == 0 else 0
            elif how == _SWAP:
                if n == 2:
                    v = b if v == a else a if v == b else v
            elif how == _FILL_BOX:
                v = common if v == 0 else v
            new[y, x] = v


@primitive(cost=2, params=(("flip_lr",), ("flip_ud",), ("rotate180",), ("transpose",)), shape="keep",
           kernel=True)
def overlay_image(g: Grid, how: str) -> Grid | None:
    """Fill the zeros of the grid from its image under `how` about the grid's centre (a mirror or a half turn)."""
    # declines when no zero takes a colour, or for "transpose" of a grid that is not square
    h, w = g.shape
    if how == _TRANSPOSE and h != w:
        return empty()
    image = np.empty((h, w), dtype=np.uint8)
    _edit(g, how, image, np.empty(0, dtype=np.int64))  # the counts are only read for the recolouring edits
    out = g.copy()
    hit = False
    for y in range(h):
        for x in range(w):
            if g[y, x] == 0 and image[y, x] != 0:
                out[y, x] = image[y, x]
                hit = True
    return out if hit else empty()


@primitive(cost=2, params=(("flip_lr",), ("flip_ud",), ("rotate180",), ("transpose",), ("invert",), ("swap",),
                           ("symmetric",), ("fill_box",)), shape="keep", kernel=True)
def each_object(g: Grid, how: str) -> Grid | None:
    """Transform every object (8-connected, any colours) inside its own box, painted back in place."""
    lab, n = label(g, True, False)
    if n == 0:
        return empty()
    h, w = g.shape
    y0 = np.full(n + 1, h, dtype=np.int64)
    x0 = np.full(n + 1, w, dtype=np.int64)
    y1 = np.full(n + 1, -1, dtype=np.int64)
    x1 = np.full(n + 1, -1, dtype=np.int64)
    first = np.full(n + 1, -1, dtype=np.int64)  # the column of its first cell in reading order
    for y in range(h):
        for x in range(w):
            i = lab[y, x]
            if i != 0:
                if first[i] < 0:
                    first[i] = x
                y0[i] = min(y0[i], y)
                x0[i] = min(x0[i], x)
                y1[i] = max(y1[i], y)
                x1[i] = max(x1[i], x)
    # objects.components' order: by the box's top-left corner, then by the first cell
    order = np.arange(1, n + 1)
    for k in range(1, n):
        j = k
        while j > 0:
            p, q = order[j - 1], order[j]
            if (y0[p], x0[p], first[p]) <= (y0[q], x0[q], first[q]):
                break
            order[j - 1], order[j] = q, p
            j -= 1
    if how == _TRANSPOSE:
        for i in range(1, n + 1):
            if y1[i] - y0[i] != x1[i] - x0[i]:
                return empty()  # a box that is not square has no transpose in place
    out = g.copy()
    cbuf = np.empty(h * w, dtype=np.uint8)  # each object's box and its edit, reused
    nbuf = np.empty(h * w, dtype=np.uint8)
    cnt = np.empty(256, dtype=np.int64)
    for i in order:
        bh, bw = y1[i] - y0[i] + 1, x1[i] - x0[i] + 1
        crop = cbuf[:bh * bw].reshape((bh, bw))
        for y in range(bh):
            for x in range(bw):
                crop[y, x] = g[y0[i] + y, x0[i] + x] if lab[y0[i] + y, x0[i] + x] == i else 0
        if how == _SYMMETRIC:
            new = _mirror_fill(crop)
        else:
            new = nbuf[:bh * bw].reshape((bh, bw))
            _edit(crop, how, new, cnt)
        for y in range(bh):
            for x in range(bw):
                if crop[y, x] != 0:
                    out[y0[i] + y, x0[i] + x] = 0
                if new[y, x] != 0:
                    out[y0[i] + y, x0[i] + x] = new[y, x]
    return out
