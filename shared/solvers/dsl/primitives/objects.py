"""Object primitives: connected components, their boxes, and picking, sorting and counting them.

An object is the crop of its bounding box holding only its own cells (the rest 0); a box is
the whole crop of the input under that bounding box. Objects come in reading order of their
top-left corners, so a pick like `first` is well defined.

The splits and picks are list kernels (`kernels`: a list of parts held packed as `buf`, `meta`);
`components` serves the Python callers that want the cells of each component.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from shared.grids import cached_by_grid
from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import (
    argmax_count,
    boxes_by_colour,
    cells_box,
    counts,
    empty,
    enclosed_zeros,
    label,
    label_boxes,
    new_parts,
    no_parts,
    object_cells,
    part,
    split_colour,
    two_colours,
)
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import GRID, GRIDS, MAX_PARTS, Color, Grid, Grids

_STRUCTURE = {True: np.ones((3, 3), dtype=bool), False: ndimage.generate_binary_structure(2, 1)}


@cached_by_grid(4096)
def _component_arrays(g: Grid, diagonal: bool, by_colour: bool) -> tuple:
    """Components of non-zero cells (cached: the search asks often), each as read-only (ys, xs)."""
    h, w = g.shape
    structure = _STRUCTURE[diagonal]
    if by_colour:
        labels = np.zeros((h, w), dtype=np.int32)
        n = 0
        for c in np.unique(g[g != 0]).tolist():
            lab, k = ndimage.label(g == c, structure=structure)
            labels[lab > 0] = lab[lab > 0] + n
            n += k
    else:
        labels, n = ndimage.label(g != 0, structure=structure)
    ys, xs = np.nonzero(labels)  # reading order, so each component's cells come in reading order too
    lab = labels[ys, xs]
    order = np.argsort(lab, kind="stable")
    bounds = np.searchsorted(lab[order], np.arange(1, n + 2))
    out = []
    for i in range(n):
        idx = order[bounds[i]:bounds[i + 1]]
        cy, cx = ys[idx], xs[idx]
        cy.flags.writeable = cx.flags.writeable = False  # shared by every caller through the cache
        out.append((cy, cx))
    # by the box's top-left corner; ties by the first cell in reading order
    out.sort(key=lambda yx: (yx[0].min(), yx[1].min(), yx[0][0], yx[1][0]))
    return tuple(out)


def components(g: Grid, diagonal: bool = True, by_colour: bool = False) -> list[tuple[np.ndarray, np.ndarray]]:
    """Connected components of non-zero cells as read-only (ys, xs) index arrays, in reading order."""
    return list(_component_arrays(g, diagonal, by_colour))


@njit
def _split(g, diagonal, by_colour, whole_box):
    """Each component's box as a part: its own cells only, or (whole_box) all of g under it."""
    n, start, cells = object_cells(g, diagonal, by_colour)
    if n == 0 or n > MAX_PARTS:
        return no_parts()
    w = g.shape[1]
    y0s = np.empty(n, dtype=np.int64)
    x0s = np.empty(n, dtype=np.int64)
    hs = np.empty(n, dtype=np.int64)
    ws = np.empty(n, dtype=np.int64)
    for i in range(n):
        y0, y1, x0, x1 = cells_box(cells, start[i], start[i + 1], w)
        y0s[i], x0s[i], hs[i], ws[i] = y0, x0, y1 - y0 + 1, x1 - x0 + 1
    buf, meta = new_parts(hs, ws)
    for i in range(n):
        p = part(buf, meta, i)
        if whole_box:
            for y in range(hs[i]):
                for x in range(ws[i]):
                    p[y, x] = g[y0s[i] + y, x0s[i] + x]
        else:
            for k in range(start[i], start[i + 1]):
                y, x = cells[k] // w, cells[k] % w
                p[y - y0s[i], x - x0s[i]] = g[y, x]
    return buf, meta


@primitive(GRID, GRIDS, cost=1, kernel=True)
def objects(g: Grid) -> Grids | None:
    """Objects: 8-connected non-zero regions, any colours."""
    return _split(g, True, False, False)


@primitive(GRID, GRIDS, cost=1.5, kernel=True)
def objects4(g: Grid) -> Grids | None:
    """Objects: 4-connected non-zero regions, any colours."""
    return _split(g, False, False, False)


@primitive(GRID, GRIDS, cost=1.5, kernel=True)
def colour_objects(g: Grid) -> Grids | None:
    """Objects: 8-connected regions of one colour each."""
    return _split(g, True, True, False)


@primitive(GRID, GRIDS, cost=2, kernel=True)
def colour_objects4(g: Grid) -> Grids | None:
    """Objects: 4-connected regions of one colour each."""
    return _split(g, False, True, False)


@primitive(GRID, GRIDS, cost=1.5, kernel=True)
def boxes(g: Grid) -> Grids | None:
    """The input under each object's bounding box (other colours inside kept)."""
    return _split(g, True, False, True)


@primitive(GRID, GRIDS, cost=1.5, kernel=True)
def colour_boxes(g: Grid) -> Grids | None:
    """The input under the bounding box of each one-colour object (frames give their contents)."""
    return _split(g, True, True, True)


@primitive(GRID, GRIDS, cost=1.5, kernel=True)
def colour_layers(g: Grid) -> Grids | None:
    """One grid per non-zero colour (cells of that colour only), in colour order."""
    cnt = counts(g)
    n = 0
    for c in range(1, 10):
        if cnt[c] > 0:
            n += 1
    if n == 0:
        return no_parts()
    h, w = g.shape
    buf, meta = new_parts(np.full(n, h, dtype=np.int64), np.full(n, w, dtype=np.int64))
    i = 0
    for c in range(1, 10):
        if cnt[c] > 0:
            p = part(buf, meta, i)
            for y in range(h):
                for x in range(w):
                    if g[y, x] == c:
                        p[y, x] = c
            i += 1
    return buf, meta


@njit
def _sizes(labels, n):
    """Cells per component label, indexed 0 .. n (int64)."""
    out = np.zeros(n + 1, dtype=np.int64)
    h, w = labels.shape
    for y in range(h):
        for x in range(w):
            out[labels[y, x]] += 1
    return out


@primitive(cost=1.5, shape="keep", kernel=True)
def keep_largest(g: Grid) -> Grid | None:
    """Keep only the largest object (8-connected, any colours) where it is; ties refuse."""
    labels, n = label(g, True, False)
    if n < 2:
        return empty()
    sizes = _sizes(labels, n)
    best, ties = 1, 0
    for i in range(2, n + 1):
        if sizes[i] > sizes[best]:
            best, ties = i, 0
        elif sizes[i] == sizes[best]:
            ties += 1
    if ties:
        return empty()
    h, w = g.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            if labels[y, x] == best:
                out[y, x] = g[y, x]
    return out


@primitive(cost=1.5, shape="keep", kernel=True)
def remove_small(g: Grid) -> Grid | None:
    """Remove objects of one or two cells (noise), keeping the rest where they are."""
    labels, n = label(g, True, False)
    sizes = _sizes(labels, n)
    h, w = g.shape
    out = g.copy()
    for y in range(h):
        for x in range(w):
            if labels[y, x] != 0 and sizes[labels[y, x]] <= 2:
                out[y, x] = 0
    return out


@njit
def _keep_sized(g, labels, sizes, n, largest, keep):
    """Keep (or remove) the objects of the largest (or smallest) size, every tie alike; empty
    when all objects have one size (nothing to tell apart)."""
    if n < 2:
        return empty()
    lo, hi = sizes[1], sizes[1]
    for i in range(2, n + 1):
        lo, hi = min(lo, sizes[i]), max(hi, sizes[i])
    if lo == hi:
        return empty()
    target = hi if largest else lo
    h, w = g.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            k = labels[y, x]
            if k != 0 and (sizes[k] == target) == keep:
                out[y, x] = g[y, x]
    return out


@primitive(cost=1.5, shape="keep", kernel=True)
def remove_largest(g: Grid) -> Grid | None:
    """Remove the largest objects (8-connected, any colours; every tie), keeping the rest where they are."""
    labels, n = label(g, True, False)
    return _keep_sized(g, labels, _sizes(labels, n), n, True, False)


@primitive(cost=1.5, shape="keep", kernel=True)
def keep_smallest(g: Grid) -> Grid | None:
    """Keep only the smallest objects (8-connected, any colours; every tie) where they are."""
    labels, n = label(g, True, False)
    return _keep_sized(g, labels, _sizes(labels, n), n, False, True)


@primitive(cost=1.5, params=((True,), (False,)), shape="keep", kernel=True)
def remove_smallest(g: Grid, diagonal: bool) -> Grid | None:
    """Remove the smallest objects (8- or 4-connected, any colours; every tie), keeping the rest where they are."""
    labels, n = label(g, diagonal, False)
    return _keep_sized(g, labels, _sizes(labels, n), n, False, False)


def _size(o: Grid) -> int:
    return int(np.count_nonzero(o))


@njit
def _same(buf, meta, i, j, mask):
    """Whether parts i and j have one shape and equal cells (mask: equal non-zero cells)."""
    if meta[i, 1] != meta[j, 1] or meta[i, 2] != meta[j, 2]:
        return False
    a, b = meta[i, 0], meta[j, 0]
    for k in range(meta[i, 1] * meta[i, 2]):
        if mask:
            if (buf[a + k] != 0) != (buf[b + k] != 0):
                return False
        elif buf[a + k] != buf[b + k]:
            return False
    return True


@njit
def _nonzero(p):
    """Non-zero cells of p."""
    n = 0
    for v in p.ravel():
        if v != 0:
            n += 1
    return n


@njit
def _colours(p):
    """Distinct non-zero colours of p."""
    cnt = counts(p)
    n = 0
    for c in range(1, 256):
        if cnt[c] > 0:
            n += 1
    return n


@njit
def _pick(buf, meta, scores, largest):
    """The part of the highest (largest) or lowest score; a tie of parts that differ refuses."""
    n = meta.shape[0]
    if n == 0:
        return empty()
    best = scores[0]
    for i in range(1, n):
        if (largest and scores[i] > best) or (not largest and scores[i] < best):
            best = scores[i]
    win = -1
    for i in range(n):
        if scores[i] == best:
            if win < 0:
                win = i
            elif not _same(buf, meta, win, i, False):
                return empty()  # an ambiguous pick explains nothing; refuse it rather than guess
    return part(buf, meta, win).copy()


@njit
def _part_scores(buf, meta, colours):
    """Each part's number of distinct non-zero colours (colours) or of non-zero cells."""
    scores = np.empty(meta.shape[0], dtype=np.int64)
    for i in range(meta.shape[0]):
        p = part(buf, meta, i)
        scores[i] = _colours(p) if colours else _nonzero(p)
    return scores


@primitive(GRIDS, GRID, cost=1, kernel=True)
def largest(buf, meta) -> Grid | None:
    """The part with the most non-zero cells."""
    return _pick(buf, meta, _part_scores(buf, meta, False), True)


@primitive(GRIDS, GRID, cost=1, kernel=True)
def smallest(buf, meta) -> Grid | None:
    """The part with the fewest non-zero cells."""
    return _pick(buf, meta, _part_scores(buf, meta, False), False)


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def biggest_box(buf, meta) -> Grid | None:
    """The part with the largest area."""
    scores = np.empty(meta.shape[0], dtype=np.int64)
    for i in range(meta.shape[0]):
        scores[i] = meta[i, 1] * meta[i, 2]
    return _pick(buf, meta, scores, True)


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def most_colourful(buf, meta) -> Grid | None:
    """The part with the most distinct non-zero colours."""
    return _pick(buf, meta, _part_scores(buf, meta, True), True)


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def least_colourful(buf, meta) -> Grid | None:
    """The part with the fewest distinct non-zero colours."""
    return _pick(buf, meta, _part_scores(buf, meta, True), False)


@njit
def _odd_one(buf, meta, ids):
    """The one part (of three or more) whose key no other part shares; ids[i] names part i's key."""
    n = meta.shape[0]
    if n <= 2:
        return empty()
    odd = -1
    for i in range(n):
        shared = False
        for j in range(n):
            if j != i and ids[j] == ids[i]:
                shared = True
                break
        if not shared:
            if odd >= 0:
                return empty()
            odd = i
    if odd < 0:
        return empty()
    return part(buf, meta, odd).copy()


@njit
def _content_ids(buf, meta, mask):
    """Each part's key as the first part equal to it (mask: by the shape of its non-zero cells)."""
    n = meta.shape[0]
    ids = np.empty(n, dtype=np.int64)
    for i in range(n):
        ids[i] = i
        for j in range(i):
            if ids[j] == j and _same(buf, meta, i, j, mask):
                ids[i] = j
                break
    return ids


@njit
def _row_ids(keys):
    """Each row's key as the first row equal to it."""
    n, k = keys.shape
    ids = np.empty(n, dtype=np.int64)
    for i in range(n):
        ids[i] = i
        for j in range(i):
            if ids[j] != j:
                continue
            eq = True
            for c in range(k):
                if keys[i, c] != keys[j, c]:
                    eq = False
                    break
            if eq:
                ids[i] = j
                break
    return ids


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def unique_colour(buf, meta) -> Grid | None:
    """The one part whose colour set no other part shares."""
    n = meta.shape[0]
    keys = np.zeros((n, 256), dtype=np.int64)
    for i in range(n):
        cnt = counts(part(buf, meta, i))
        for c in range(1, 256):
            if cnt[c] > 0:
                keys[i, c] = 1
    return _odd_one(buf, meta, _row_ids(keys))


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def unique_shape(buf, meta) -> Grid | None:
    """The one part whose shape (ignoring colour) no other part shares."""
    return _odd_one(buf, meta, _content_ids(buf, meta, True))


@njit
def _symmetries(p):
    """Whether p mirrors onto itself left-right, up-down, and (square only) on its two diagonals,
    as 4 bits."""
    h, w = p.shape
    lr = ud = True
    diag = anti = h == w
    for y in range(h):
        for x in range(w):
            v = p[y, x]
            if v != p[y, w - 1 - x]:
                lr = False
            if v != p[h - 1 - y, x]:
                ud = False
            if h == w:
                if v != p[x, y]:
                    diag = False
                if v != p[h - 1 - x, w - 1 - y]:
                    anti = False
    return int(lr) + 2 * int(ud) + 4 * int(diag) + 8 * int(anti)


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def unique_symmetry(buf, meta) -> Grid | None:
    """The one part whose mirror symmetries (left-right, up-down, the two diagonals) no other part shares."""
    n = meta.shape[0]
    keys = np.empty((n, 1), dtype=np.int64)
    for i in range(n):
        keys[i, 0] = _symmetries(part(buf, meta, i))
    return _odd_one(buf, meta, _row_ids(keys))


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def unique_holed(buf, meta) -> Grid | None:
    """The one part with a hole (zeros cut off from its edge), or the one part without."""
    n = meta.shape[0]
    keys = np.zeros((n, 1), dtype=np.int64)
    for i in range(n):
        keys[i, 0] = enclosed_zeros(part(buf, meta, i)).any()
    return _odd_one(buf, meta, _row_ids(keys))


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def unique_part(buf, meta) -> Grid | None:
    """The one part that differs from all others (exact content)."""
    return _odd_one(buf, meta, _content_ids(buf, meta, False))


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def most_common(buf, meta) -> Grid | None:
    """The part that occurs most often (exact content)."""
    n = meta.shape[0]
    ids = _content_ids(buf, meta, False)
    times = np.zeros(n, dtype=np.int64)
    for i in range(n):
        times[ids[i]] += 1
    best, top, tops = 0, -1, 0
    for i in range(n):  # a key's count sits at its first part, so `top` is the first occurrence
        if times[i] > best:
            best, top, tops = times[i], i, 1
        elif times[i] == best and best > 0:
            tops += 1
    if best < 2 or tops > 1:
        return empty()
    return part(buf, meta, top).copy()


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def first(buf, meta) -> Grid | None:
    """The first part in reading order."""
    if meta.shape[0] == 0:
        return empty()
    return part(buf, meta, 0).copy()


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def last(buf, meta) -> Grid | None:
    """The last part in reading order."""
    if meta.shape[0] == 0:
        return empty()
    return part(buf, meta, meta.shape[0] - 1).copy()


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def most_cells_of_minor(buf, meta) -> Grid | None:
    """The part holding the most cells of the overall least frequent colour."""
    n = meta.shape[0]
    if n == 0:
        return empty()
    each = np.empty((n, 256), dtype=np.int64)
    total = np.zeros(256, dtype=np.int64)
    for i in range(n):
        each_i = counts(part(buf, meta, i))
        for c in range(256):
            each[i, c] = each_i[c]
        total += each_i
    minor = 0  # the least frequent non-zero colour; ties to the lowest colour
    for c in range(1, 256):
        if total[c] > 0 and (minor == 0 or total[c] < total[minor]):
            minor = c
    if minor == 0:
        return empty()
    return _pick(buf, meta, each[:, minor].copy(), True)


@primitive(GRIDS, GRIDS, cost=1)
def sort_by_size(parts: Grids) -> Grids | None:
    """Order parts from most to fewest non-zero cells (stable)."""
    return tuple(sorted(parts, key=lambda p: -_size(p))) if len(parts) > 1 else None


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def count_cells(buf, meta) -> Grid | None:
    """A 1 x n row of marker colour, one cell per part (counting them)."""
    if meta.shape[0] == 0:
        return empty()
    return np.full((1, meta.shape[0]), 10, dtype=np.uint8)


@primitive(GRIDS, GRID, cost=1.5, kernel=True)
def part_colours(buf, meta) -> Grid | None:
    """Each part's most frequent non-zero colour, stacked as one column in the parts' order."""
    n = meta.shape[0]
    if n == 0 or n > 30:
        return empty()
    out = np.zeros((n, 1), dtype=np.uint8)
    for i in range(n):
        cnt = counts(part(buf, meta, i))
        best = 0  # ties to the lowest colour
        for c in range(1, 256):
            if cnt[c] > 0 and (best == 0 or cnt[c] > cnt[best]):
                best = c
        if best == 0:
            return empty()
        out[i, 0] = best
    return out


@primitive(cost=2, shape="keep", first=True, kernel=True)
def legend_counts(g: Grid) -> Grid | None:
    """Key cells down the left over a full line become bars, one cell per object of theirs below; unkeyed objects go."""
    h, w = g.shape
    split = -1
    for y in range(h):
        full = g[y, 0] != 0
        for x in range(1, w):
            if g[y, x] != g[y, 0]:
                full = False
                break
        if full:
            split = y
            break
    if split < 1:
        return empty()
    keyed = np.zeros(256, dtype=np.bool_)  # by colour, markers included
    for y in range(split):
        for x in range(1, w):
            if g[y, x] != 0:
                return empty()
        keyed[g[y, 0]] = True
    keyed[0] = False
    bg = g[split, 0]
    below = g[split:].copy()
    for y in range(below.shape[0]):
        for x in range(w):
            if below[y, x] == bg:
                below[y, x] = 0
    lab, n = label(below, False, True)
    found = np.zeros(256, dtype=np.int64)
    seen = np.zeros(n + 1, dtype=np.bool_)
    out = g.copy()
    for y in range(below.shape[0]):
        for x in range(w):
            c = below[y, x]
            if c == 0:
                continue
            if not keyed[c]:
                out[split + y, x] = bg
            elif not seen[lab[y, x]]:
                seen[lab[y, x]] = True
                found[c] += 1
    for y in range(split):
        c = g[y, 0]
        if c != 0:
            if found[c] > w:
                return empty()
            out[y, 0] = 0  # a colour with no objects below loses its key cell
            out[y, :found[c]] = c
    return out


@primitive(cost=2, shape="change", first=True, kernel=True)
def joined_pair(g: Grid) -> Grid | None:
    """Two objects of one colour among cells of another: 1x1 of that colour if a run of it joins the two, else of 0."""
    h, w = g.shape
    a, b = two_colours(counts(g))
    if a == 0:
        return empty()
    lab, k = label(g, False, True)
    owner = np.zeros(k + 1, dtype=np.int64)  # each label's colour
    pairs = 0
    for y in range(h):
        for x in range(w):
            owner[lab[y, x]] = g[y, x]
    for i in range(1, k + 1):
        pairs += owner[i] == a
    if pairs != 2:
        a, b = b, a
        pairs = 0
        for i in range(1, k + 1):
            pairs += owner[i] == a
        if pairs != 2:
            return empty()
    first = np.full(k + 1, -1, dtype=np.int64)  # per run of b: the first object of a it touches
    out = np.zeros((1, 1), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            if g[y, x] != a:
                continue
            for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                ny, nx = y + dy, x + dx
                if 0 <= ny < h and 0 <= nx < w and g[ny, nx] == b:
                    r = lab[ny, nx]
                    if first[r] < 0:
                        first[r] = lab[y, x]
                    elif first[r] != lab[y, x]:
                        out[0, 0] = b
    return out


@njit
def _window_of_scaled(g, c, y0, x0, y1, x1, s, sy0, sx0, sy1, sx1, k):
    """Whether the cells of colour c in the box (y0, x0)-(y1, x1) are a window onto the cells of colour
    s in its box (sy0, sx0)-(sy1, sx1) blown up k times (boxes inclusive), at some offset."""
    bh, bw = y1 - y0 + 1, x1 - x0 + 1
    kh, kw = (sy1 - sy0 + 1) * k, (sx1 - sx0 + 1) * k
    for oy in range(kh - bh + 1):
        for ox in range(kw - bw + 1):
            fits = True
            for y in range(bh):
                for x in range(bw):
                    if (g[y0 + y, x0 + x] == c) != (g[sy0 + (oy + y) // k, sx0 + (ox + x) // k] == s):
                        fits = False
                        break
                if not fits:
                    break
            if fits:
                return True
    return False


@primitive(cost=2, shape="change", first=True, kernel=True)
def scaled_match(g: Grid) -> Grid | None:
    """The largest colour's shape, cut off by the edge, is another colour's shape blown up: crop that shape."""
    h, w = g.shape
    n = counts(g)
    bg = argmax_count(n)
    top, left, bottom, right, _ = boxes_by_colour(g)
    big = 0
    for c in range(1, 10):
        if c != bg and n[c] > 0 and (big == 0 or n[c] > n[big]):
            big = c
    if big == 0 or not (top[big] == 0 or left[big] == 0 or bottom[big] == h - 1 or right[big] == w - 1):
        return empty()
    found = 0
    for s in range(1, 10):
        if s == bg or s == big or n[s] == 0:
            continue
        for k in range(2, 5):
            if _window_of_scaled(g, big, top[big], left[big], bottom[big], right[big], s, top[s], left[s], bottom[s],
                                 right[s], k):
                if found != 0 and found != s:
                    return empty()
                found = s
    if found == 0:
        return empty()
    out = g[top[found]:bottom[found] + 1, left[found]:right[found] + 1].copy()
    for y in range(out.shape[0]):
        for x in range(out.shape[1]):
            if out[y, x] != found:
                out[y, x] = bg
    return out


@primitive(cost=2, shape="keep", kernel=True)
def legend_boxes(g: Grid) -> Grid | None:
    """Keys of colour a beside colour b: each shape of colour a fills its box, one wider, with b (not its holes)."""
    h, w = g.shape
    labels, k = label(g, True, True)
    box = label_boxes(labels, k)
    key = np.zeros(256, dtype=np.int64)  # shape colour -> box colour
    legend = np.zeros(k + 1, dtype=np.bool_)
    for i in range(1, k + 1):  # a key: a two-cell upright bar of one colour, one of another at its right
        y0, x0, y1, x1 = box[i, 0], box[i, 1], box[i, 2], box[i, 3]
        if box[i, 4] != 2 or y1 != y0 + 1 or x0 != x1 or x0 + 1 >= w:
            continue
        j = labels[y0, x0 + 1]
        if j == 0 or labels[y1, x0 + 1] != j or box[j, 4] != 2:
            continue
        a, b = g[y0, x0], g[y0, x0 + 1]
        if key[a] != 0 and key[a] != b:
            return empty()
        key[a] = b
        legend[i] = legend[j] = True
    out = g.copy()
    holes = enclosed_zeros(g)
    drawn = False
    for i in range(1, k + 1):
        b = key[g[box[i, 5], box[i, 6]]]
        if legend[i] or b == 0:
            continue
        for y in range(max(box[i, 0] - 1, 0), min(box[i, 2] + 2, h)):
            for x in range(max(box[i, 1] - 1, 0), min(box[i, 3] + 2, w)):
                if g[y, x] == 0 and not holes[y, x]:
                    out[y, x] = b
                    drawn = True
    return out if drawn else empty()


@primitive(cost=2, params="colours", shape="change", kernel=True)
def count_blocks(g: Grid, c: Color) -> Grid | None:
    """A 1 x k row of colour c: k counts its blocks (solid, all one size) among its lone cells."""
    if c == 0:
        return empty()
    labels, n = label(split_colour(g, c)[0], False, True)
    if n == 0:
        return empty()
    box = label_boxes(labels, n)
    k, size = 0, 0
    for i in range(1, n + 1):
        cells = box[i, 4]
        if cells > 1:
            if (size and cells != size) or (box[i, 2] - box[i, 0] + 1) * (box[i, 3] - box[i, 1] + 1) != cells:
                return empty()
            size = cells
            k += 1
    if k == 0 or k == n:
        return empty()
    return np.full((1, k), c, dtype=np.uint8)


@njit
def _framed(g, c, labels, box, i):
    """The one colour inside frame i (a rectangle outline of colour c, labels i), 0 when it is not such a frame."""
    top, left, bottom, right = box[i, 0], box[i, 1], box[i, 2], box[i, 3]
    if bottom - top < 2 or right - left < 2 or box[i, 4] != 2 * (bottom - top + right - left):
        return 0
    for y in range(top, bottom + 1):
        for x in (left, right):
            if labels[y, x] != i:
                return 0
    for x in range(left, right + 1):
        for y in (top, bottom):
            if labels[y, x] != i:
                return 0
    inner = 0
    for y in range(top + 1, bottom):
        for x in range(left + 1, right):
            v = g[y, x]
            if v != 0:
                if v == c or (inner != 0 and v != inner):
                    return 0
                inner = v
    return inner


@primitive(cost=2, shape="keep", kernel=True)
def pass_colours_round(g: Grid) -> Grid | None:
    """Frames of one colour round the middle, each holding one colour: each takes the colour of the next clockwise."""
    h, w = g.shape
    for c in range(1, 10):
        mine, _ = split_colour(g, c)
        labels, n = label(mine, False, True)
        if n < 3 or n > 12:
            continue
        box = label_boxes(labels, n)
        inner = np.zeros(n + 1, dtype=np.int64)
        ok = True
        for i in range(1, n + 1):
            inner[i] = _framed(g, c, labels, box, i)
            if inner[i] == 0:
                ok = False
                break
        if not ok:
            continue
        cy = (box[1:, 0] + box[1:, 2]) / 2.0  # the frames' centres
        cx = (box[1:, 1] + box[1:, 3]) / 2.0
        order = np.argsort(np.arctan2(cy - cy.mean(), cx - cx.mean())) + 1  # clockwise on screen (rows grow down)
        out = g.copy()
        for k in range(n):
            i, nxt = order[k], order[(k + 1) % n]
            for y in range(box[i, 0] + 1, box[i, 2]):
                for x in range(box[i, 1] + 1, box[i, 3]):
                    if g[y, x] == inner[i]:
                        out[y, x] = inner[nxt]
        return out
    return empty()
