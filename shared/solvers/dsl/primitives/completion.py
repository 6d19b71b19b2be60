"""Completion primitives: fill cells hidden under an occluding colour from the grid's mirror
symmetries or from its repeating pattern, or return just what the occluder hid.

They are the slowest primitives on large grids and, in the programs found on arc1/train, only
ever help as the first step, so the search applies them to the task input only (`first=True`).
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import bbox_nonzero, empty, paste
from shared.solvers.dsl.primitives.registry import WORDS, primitive
from shared.solvers.dsl.types import MARKER, Color, Grid

PATTERN = WORDS.index("pattern")


@njit
def _occluder(g, c):
    """(cells of colour c, ok): ok when they can stand for unknown cells: background, or a few blocky blobs."""
    h, w = g.shape
    unknown = np.zeros((h, w), dtype=np.bool_)
    n = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                unknown[y, x] = True
                n += 1
    if n == 0 or n == h * w:
        return unknown, False
    if c != 0:
        # only blocky blobs: a 2x2 window holding exactly 3 such cells is a concave corner, and a
        # colour drawn as part of the picture has many of them
        corners = 0
        for y in range(h - 1):
            for x in range(w - 1):
                k = np.int64(unknown[y, x]) + np.int64(unknown[y + 1, x]) + np.int64(unknown[y, x + 1]) \
                    + np.int64(unknown[y + 1, x + 1])
                if k == 3:
                    corners += 1
        if corners > 8 or n / (h * w) > 0.5:
            return unknown, False
    return unknown, True


@njit
def _popcount(x):
    """The number of set bits of a non-negative int64 below 2 ** 62."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


_CELLS = 7  # cells per int64 word of a packed line, a byte each (the sign bit stays clear)


@njit
def _mirror_axis(g, unknown, axis):
    """Best mirror axis (as 2*centre) along axis where all known cell pairs agree; -1 when none."""
    h, w = g.shape
    n = h if axis == 0 else w
    other = w if axis == 0 else h
    # every line (a row for axis 0, else a column) packed a byte a cell: its known cells' colours, and
    # 0xFF for each known cell; two lines disagree where both are known and their bytes differ
    words = (other + _CELLS - 1) // _CELLS
    colours = np.zeros((n, words), dtype=np.int64)
    known = np.zeros((n, words), dtype=np.int64)
    for y in range(h):
        for x in range(w):
            if unknown[y, x]:
                continue
            line, j = (y, x) if axis == 0 else (x, y)
            word, shift = j // _CELLS, 8 * (j % _CELLS)
            colours[line, word] |= np.int64(g[y, x]) << shift
            known[line, word] |= np.int64(0xFF) << shift
    best, best_overlap = -1, 0
    for s in range(n // 2, 2 * n - 2 - n // 2 + 1):  # centre must lie in the middle half
        overlap = 0
        ok = True
        # each pair once (a <= m); a pair of two lines counts as it would both ways round
        for a in range(n):
            m = s - a
            if m < a:
                break
            if m >= n:
                continue
            for word in range(words):
                both = known[a, word] & known[m, word]
                if both == 0:
                    continue
                if (colours[a, word] ^ colours[m, word]) & both:
                    ok = False
                    break
                overlap += (_popcount(both) >> 3) * (1 if m == a else 2)
            if not ok:
                break
        if ok and overlap > best_overlap:
            best, best_overlap = s, overlap
    return best


_NO_AXIS = -(1 << 30)


@njit
def _diagonal_axis(g, unknown, anti):
    """Best diagonal mirror line where all known cell pairs agree, _NO_AXIS when none: the line
    y = x + d (a cell's partner (x + d, y - d)), or with anti y + x = d (partner (d - x, d - y));
    the line must pass near the grid's middle."""
    h, w = g.shape
    reach = min(h, w) // 4
    centre = (h - w) // 2 if anti == 0 else (h + w - 2) // 2
    best, best_overlap = _NO_AXIS, 0
    for d in range(centre - reach, centre + reach + 1):
        overlap = 0
        ok = True
        for y in range(h):
            for x in range(w):
                if unknown[y, x]:
                    continue
                ym, xm = (x + d, y - d) if anti == 0 else (d - x, d - y)
                if ym < 0 or ym >= h or xm < 0 or xm >= w or unknown[ym, xm]:
                    continue
                if g[ym, xm] != g[y, x]:
                    ok = False
                    break
                overlap += 1
            if not ok:
                break
        if ok and overlap > best_overlap:
            best, best_overlap = d, overlap
    return best


@njit
def _fill_line(out, unknown, anti, d):
    """Unknown cells on the diagonal mirror line (see _diagonal_axis) take its known cells' one colour."""
    h, w = out.shape
    colour = -1
    hidden = False
    for y in range(h):
        x = y - d if anti == 0 else d - y
        if x < 0 or x >= w:
            continue
        if unknown[y, x]:
            hidden = True
        elif colour < 0:
            colour = out[y, x]
        elif out[y, x] != colour:
            return
    if not hidden or colour < 0:
        return
    for y in range(h):
        x = y - d if anti == 0 else d - y
        if 0 <= x < w and unknown[y, x]:
            out[y, x] = colour
            unknown[y, x] = False


@njit
def _symmetry_complete(g, c):
    unknown, ok = _occluder(g, c)
    if not ok:
        return empty()
    h, w = g.shape
    out = g.copy()
    fill = np.zeros((h, w), dtype=np.bool_)
    used = np.zeros(2, dtype=np.bool_)
    offset = np.zeros(2, dtype=np.int64)
    for _ in range(2):
        for axis in range(2):
            s = _mirror_axis(out, unknown, axis)
            if s < 0:
                continue
            n = h if axis == 0 else w
            fill[:, :] = False
            for y in range(h):
                for x in range(w):
                    a = y if axis == 0 else x
                    m = s - a
                    if m < 0 or m >= n or not unknown[y, x]:
                        continue
                    ym, xm = (m, x) if axis == 0 else (y, m)
                    if not unknown[ym, xm]:
                        fill[y, x] = True
            for y in range(h):
                for x in range(w):
                    if fill[y, x]:
                        a = y if axis == 0 else x
                        if axis == 0:
                            out[y, x] = out[s - a, x]
                        else:
                            out[y, x] = out[y, s - a]
                        unknown[y, x] = False
        for anti in range(2):
            d = _diagonal_axis(out, unknown, anti)
            if d == _NO_AXIS:
                continue
            used[anti] = True
            offset[anti] = d
            fill[:, :] = False
            for y in range(h):
                for x in range(w):
                    if unknown[y, x]:
                        ym, xm = (x + d, y - d) if anti == 0 else (d - x, d - y)
                        fill[y, x] = 0 <= ym < h and 0 <= xm < w and not unknown[ym, xm]
            for y in range(h):
                for x in range(w):
                    if fill[y, x]:
                        ym, xm = (x + d, y - d) if anti == 0 else (d - x, d - y)
                        out[y, x] = out[ym, xm]
                        unknown[y, x] = False
    # cells left on a diagonal mirror line (their own partners) take that line's colour, when all of
    # its known cells share one
    for anti in range(2):
        if used[anti]:
            _fill_line(out, unknown, anti, offset[anti])
    for y in range(h):
        for x in range(w):
            if unknown[y, x]:
                return empty()
    return out


@njit
def _under_box(g, filled, c):
    """The part of a completed grid under the bounding box of colour c in the original."""
    if filled.size == 0:
        return empty()
    y0, x0, y1, x1 = bbox_nonzero(g == c)
    return filled[y0:y1, x0:x1].copy()


@primitive(cost=2.5, params="colours", shape="keep", first=True, kernel=True)
def symmetry_complete(g: Grid, c: Color) -> Grid | None:
    """Treat colour c (0, or blocky blobs) as unknown and fill it from the mirror symmetries."""
    return _symmetry_complete(g, c)


@primitive(cost=2.5, params="colours", first=True, kernel=True)
def symmetry_patch(g: Grid, c: Color) -> Grid | None:
    """What the symmetric grid holds under the box of colour c."""
    return _under_box(g, _symmetry_complete(g, c), c)


@njit
def _shift_ok(g, unknown, p, axis):
    """Do known cells agree with the known cells p steps further along axis?"""
    h, w = g.shape
    for y in range(h - p if axis == 0 else h):
        for x in range(w - p if axis == 1 else w):
            y2, x2 = (y + p, x) if axis == 0 else (y, x + p)
            if not unknown[y, x] and not unknown[y2, x2] and g[y, x] != g[y2, x2]:
                return False
    return True


@njit
def _shift_ok_sparse(g, unknown, sy, sx, p, axis):
    """_shift_ok from the known cells' list (at sy, sx, in reading order): faster where few are known."""
    h, w = g.shape
    for i in range(sy.shape[0]):
        y, x = sy[i], sx[i]
        if axis == 0:
            if y + p >= h:
                break
            y2, x2 = y + p, x
        else:
            if x + p >= w:
                continue
            y2, x2 = y, x + p
        if not unknown[y2, x2] and g[y, x] != g[y2, x2]:
            return False
    return True


@njit
def _covers(rows, p):
    """Does every residue mod p hold an index i with rows[i]?"""
    for r in range(p):
        hit = False
        for i in range(r, rows.shape[0], p):
            if rows[i]:
                hit = True
                break
        if not hit:
            return False
    return True


@njit
def _classes_seen(unknown, py, px):
    """Does every class (y mod py, x mod px) hold a known cell?"""
    for ry in range(py):
        for rx in range(px):
            if not _class_known(unknown, ry, rx, py, px):
                return False
    return True


@njit
def _class_known(unknown, ry, rx, py, px):
    """Does class (ry, rx) of the tile (py, px) hold a known cell?"""
    h, w = unknown.shape
    for y in range(ry, h, py):
        for x in range(rx, w, px):
            if not unknown[y, x]:
                return True
    return False


@njit
def _hidden_classes_seen(unknown, hy, hx, py, px):
    """_classes_seen from the unknown cells' list (at hy, hx): only their classes can lack a known cell
    (quicker where few are unknown)."""
    done = np.zeros(py * px, dtype=np.bool_)
    for i in range(hy.shape[0]):
        ry, rx = hy[i] % py, hx[i] % px
        if done[ry * px + rx]:
            continue
        done[ry * px + rx] = True
        if not _class_known(unknown, ry, rx, py, px):
            return False
    return True


@njit
def _diagonal_shift_ok(g, unknown, py, px):
    """Do known cells agree with the known cells (py, px) and (py, -px) away (in one class of the tile)?"""
    h, w = g.shape
    for y in range(h - py):
        for x in range(w):
            if unknown[y, x]:
                continue
            v = g[y, x]
            if x + px < w and not unknown[y + py, x + px] and g[y + py, x + px] != v:
                return False
            if x - px >= 0 and not unknown[y + py, x - px] and g[y + py, x - px] != v:
                return False
    return True


@njit
def _tile_from(g, unknown, py, px, sign):
    """The tile of the known cells' classes (y mod py, x mod px), or with py = 0 the classes
    (x + sign * y) mod px: a full, consistent tile (int64, -1 = unseen), or an empty array."""
    h, w = g.shape
    p = px if py == 0 else py * px
    tile = np.full(p, -1, dtype=np.int64)
    for y in range(h):
        # the class of (y, x) is base + r, r counting x (shifted by sign * y on the diagonal) modulo px
        base, r = (0, (sign * y) % px) if py == 0 else ((y % py) * px, 0)
        for x in range(w):
            if not unknown[y, x]:
                k = base + r
                if tile[k] < 0:
                    tile[k] = g[y, x]
                elif tile[k] != g[y, x]:
                    return tile[:0]
            r += 1
            if r == px:
                r = 0
    for k in range(p):
        if tile[k] < 0:
            return tile[:0]
    return tile


@njit
def _periodic_fill(g, c):
    """Fill cells of colour c from the smallest 2-d (or else diagonal) period the known cells agree with."""
    unknown, ok = _occluder(g, c)
    if not ok:
        return empty()
    h, w = g.shape
    # the known cells, in reading order, and the rows and columns that hold one
    known = 0
    for y in range(h):
        for x in range(w):
            if not unknown[y, x]:
                known += 1
    sy = np.empty(known, dtype=np.int64)
    sx = np.empty(known, dtype=np.int64)
    rows = np.zeros(h, dtype=np.bool_)
    cols = np.zeros(w, dtype=np.bool_)
    hy = np.empty(h * w - known, dtype=np.int64)  # the unknown cells, likewise
    hx = np.empty(h * w - known, dtype=np.int64)
    a, b = 0, 0
    for y in range(h):
        for x in range(w):
            if not unknown[y, x]:
                sy[a], sx[a] = y, x
                a += 1
                rows[y] = True
                cols[x] = True
            else:
                hy[b], hx[b] = y, x
                b += 1
    # a tile is full only when every class holds a known cell: so every residue of the rows (of the
    # columns) must hold a known row (column), and the tile can have at most `known` cells; periods
    # that cannot give a full tile are left out (their candidates would fail in _tile_from)
    pys = np.zeros(h, dtype=np.int64)
    pxs = np.zeros(w, dtype=np.int64)
    ny = 0
    nx = 0
    sparse = 4 * known < h * w
    for axis in range(2):
        n = h if axis == 0 else w
        for p in range(1, n + 1):
            if not _covers(rows if axis == 0 else cols, p):
                continue
            if p < n:
                ok = _shift_ok_sparse(g, unknown, sy, sx, p, axis) if sparse else _shift_ok(g, unknown, p, axis)
                if not ok:
                    continue
            if axis == 0:
                pys[ny] = p
                ny += 1
            else:
                pxs[nx] = p
                nx += 1
    # candidates in the order of (area, py, px)
    keys = np.empty(ny * nx, dtype=np.int64)
    for i in range(ny):
        for j in range(nx):
            keys[i * nx + j] = (pys[i] * pxs[j] * (h + 1) + pys[i]) * (w + 1) + pxs[j]
    keys = np.sort(keys)
    for key in keys:
        px = key % (w + 1)
        py = (key // (w + 1)) % (h + 1)
        if (py == h and px == w) or py * px > known:
            break  # keys grow with the area: no later candidate can be full
        # quick rejections, each where it is cheap (the tile would fail in _tile_from): a class with
        # no known cell where most cells are known, and two cells of one class that disagree
        if h * w < 2 * known:
            if b < py * px:
                if not _hidden_classes_seen(unknown, hy, hx, py, px):
                    continue
            elif not _classes_seen(unknown, py, px):
                continue
        if 4 * (h - py) * (w - px) < h * w and not _diagonal_shift_ok(g, unknown, py, px):
            continue
        tile = _tile_from(g, unknown, py, px, 1)
        if tile.size == 0:
            continue
        out = np.empty((h, w), dtype=np.uint8)
        for y in range(h):
            for x in range(w):
                out[y, x] = tile[(y % py) * px + x % px]
        return out
    return _diagonal_fill(g, unknown, known)


@njit
def _diagonal_fill(g, unknown, known):
    """Fill from the smallest period p along a diagonal: colour = f((x + y) mod p) or f((x - y) mod p)
    (`known`: the number of known cells, which a full table of p classes needs at least p of)."""
    h, w = g.shape
    for p in range(2, min(max(h, w), known) + 1):
        for sign in (1, -1):
            lut = _tile_from(g, unknown, 0, p, sign)
            if lut.size == 0:
                continue
            out = np.empty((h, w), dtype=np.uint8)
            for y in range(h):
                for x in range(w):
                    out[y, x] = lut[(x + sign * y) % p]
            return out
    return empty()


@primitive(cost=2.5, params="colours", shape="keep", first=True, kernel=True)
def pattern_complete(g: Grid, c: Color) -> Grid | None:
    """Treat colour c (0, or blocky blobs) as unknown and fill it by continuing the pattern."""
    return _periodic_fill(g, c)


@primitive(cost=2.5, params="colours", first=True, kernel=True)
def pattern_patch(g: Grid, c: Color) -> Grid | None:
    """What the continued pattern holds under the box of colour c."""
    return _under_box(g, _periodic_fill(g, c), c)


@primitive(cost=2.5, params=(("pattern",), ("symmetry",)), shape="keep", first=True, kernel=True)
def complete_zeros(g: Grid, how: str) -> Grid | None:
    """Treat the 0 cells of the input as unknown and fill them from its repeating pattern or symmetry."""
    if how == PATTERN:
        return _periodic_fill(g, 0)
    return _symmetry_complete(g, 0)


def _fill_from(box: Grid, images: list) -> Grid | None:
    filled = box.copy()
    for im in images:
        if ((filled != 0) & (im != 0) & (filled != im)).any():
            return None
        filled = np.where(filled == 0, im, filled)
    return filled


def mirror_fill(box: Grid) -> Grid | None:
    """box with its zeros filled from its mirror images under the largest symmetry group its cells agree
    with: all eight turns and flips of a square, both mirrors, then one mirror; None when none agrees."""
    ud, lr, turn = box[::-1], box[:, ::-1], box[::-1, ::-1]
    groups = [[ud, lr, turn], [lr], [ud], [turn]]
    if box.shape[0] == box.shape[1]:
        t, anti = box.T, turn.T
        groups = [[ud, lr, turn, t, anti, t[::-1], t[:, ::-1]]] + groups + [[t], [anti]]
    for images in groups:
        filled = _fill_from(box, images)
        if filled is not None:
            return filled
    return None


# The images of a box _fill_codes knows, by code: flip_ud, flip_lr, rotate180, transpose,
# anti-transpose, quarter turn anticlockwise, quarter turn clockwise (the last four: square boxes).
_UD, _LR, _TURN, _T, _ANTI, _ROT1, _ROT3 = 0, 1, 2, 3, 4, 5, 6


@njit
def _image_cell(box, code, y, x):
    """Cell (y, x) of box's image `code` (a mirror or a turn of the box)."""
    h, w = box.shape
    if code == _UD:
        return box[h - 1 - y, x]
    if code == _LR:
        return box[y, w - 1 - x]
    if code == _TURN:
        return box[h - 1 - y, w - 1 - x]
    if code == _T:
        return box[x, y]
    if code == _ANTI:
        return box[w - 1 - x, h - 1 - y]
    if code == _ROT1:
        return box[x, w - 1 - y]
    return box[h - 1 - x, y]


@njit
def _fill_codes(box, codes):
    """box with its zeros filled from the images `codes` in turn (a later image fills what is
    still 0), or the empty grid when a non-zero cell of an image disagrees with the filling so far."""
    h, w = box.shape
    filled = box.copy()
    for code in codes:
        for y in range(h):
            for x in range(w):
                v = _image_cell(box, code, y, x)
                f = filled[y, x]
                if f == 0:
                    filled[y, x] = v
                elif v != 0 and f != v:
                    return empty()
    return filled


@njit
def _agrees(box, code):
    """Does every non-zero cell of box agree with the non-zero cell of its image `code` there?"""
    h, w = box.shape
    for y in range(h):
        for x in range(w):
            f = box[y, x]
            if f == 0:
                continue
            v = _image_cell(box, code, y, x)
            if v != 0 and v != f:
                return False
    return True


@njit
def mirror_fill_kernel(box):
    """mirror_fill for kernels: box (uint8, non-empty) filled, or the empty grid where mirror_fill gives None."""
    # each set of images tried is a group of symmetries (less the identity), so _fill_codes succeeds on
    # it exactly when the box agrees with each of its images alone (a quarter turn and its inverse alike)
    h, w = box.shape
    ud, lr, turn = _agrees(box, _UD), _agrees(box, _LR), _agrees(box, _TURN)
    if h == w and ud and lr and turn and _agrees(box, _T) and _agrees(box, _ANTI) and _agrees(box, _ROT1):
        return _fill_codes(box, np.array([_UD, _LR, _TURN, _T, _ANTI, _ROT1, _ROT3]))
    if ud and lr and turn:
        return _fill_codes(box, np.array([_UD, _LR, _TURN]))
    if lr:
        return _fill_codes(box, np.array([_LR]))
    if ud:
        return _fill_codes(box, np.array([_UD]))
    if turn:
        return _fill_codes(box, np.array([_TURN]))
    if h != w:
        return empty()
    if _agrees(box, _T):
        return _fill_codes(box, np.array([_T]))
    return _fill_codes(box, np.array([_ANTI]))


@primitive(cost=2, shape="keep", kernel=True)
def symmetrize(g: Grid) -> Grid | None:
    """Fill the zeros of the content's box from its mirror images (the most symmetry its cells agree with)."""
    if np.count_nonzero(g) < 2:
        return empty()
    y0, x0, y1, x1 = bbox_nonzero(g)
    filled = mirror_fill_kernel(g[y0:y1, x0:x1].copy())
    if filled.size == 0:
        return empty()
    out = g.copy()
    paste(out, y0, x0, filled)
    return out


@primitive(cost=2, params=((True,), (False,)), shape="keep", kernel=True)
def complete_turns(g: Grid, mark: bool) -> Grid | None:
    """Complete the content to a square that quarter turns keep (one placement must fit); new cells marked or filled."""
    gh, gw = g.shape
    y0, x0, y1, x1 = gh, gw, -1, -1
    cnt = 0
    for y in range(gh):
        for x in range(gw):
            if g[y, x] != 0:
                cnt += 1
                y0 = min(y0, y)
                x0 = min(x0, x)
                y1 = max(y1, y + 1)
                x1 = max(x1, x + 1)
    if cnt < 3:
        return empty()
    h, w = y1 - y0, x1 - x0
    n = max(h, w)
    turns = np.array([_ROT1, _TURN, _ROT3])
    found = False
    best_top, best_left = 0, 0
    best = empty()
    for i in range(2):
        oy = 0 if i == 0 else n - h
        if i == 1 and oy == 0:
            continue
        for j in range(2):
            ox = 0 if j == 0 else n - w
            if j == 1 and ox == 0:
                continue
            top, left = y0 - oy, x0 - ox
            if top < 0 or left < 0 or top + n > gh or left + n > gw:
                continue
            filled = _fill_codes(g[top:top + n, left:left + n].copy(), turns)
            if filled.size:
                if found:
                    return empty()  # two placements agree: ambiguous
                found = True
                best_top, best_left, best = top, left, filled
    if not found:
        return empty()
    out = g.copy()
    for y in range(n):
        for x in range(n):
            if g[best_top + y, best_left + x] == 0 and best[y, x] != 0:
                out[best_top + y, best_left + x] = MARKER if mark else best[y, x]
    return out


@njit
def _image_about(y, x, cy2, cx2, k, turns):
    """Image k (0..2) of cell (y, x) about the centre (cy2 / 2, cx2 / 2): a quarter turn, a half
    turn and three quarters with `turns`, else the mirror across the row, across the column, and both."""
    if turns:
        if k == 0:
            return (cy2 + 2 * x - cx2) // 2, (cx2 + cy2 - 2 * y) // 2
        if k == 1:
            return cy2 - y, cx2 - x
        return (cy2 - 2 * x + cx2) // 2, (cx2 - cy2 + 2 * y) // 2
    if k == 0:
        return cy2 - y, x
    if k == 1:
        return y, cx2 - x
    return cy2 - y, cx2 - x


@primitive(cost=2, params=((True,), (False,)), shape="keep", kernel=True)
def complete_about(g: Grid, turns: bool) -> Grid | None:
    """Complete the content's quarter turns (or both mirrors) about the centre its cells agree with most."""
    h, w = g.shape
    ys = np.empty(h * w, np.int64)
    xs = np.empty(h * w, np.int64)
    n = 0
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                ys[n], xs[n] = y, x
                n += 1
    if n < 3:
        return empty()
    y0, y1, x0, x1 = ys[:n].min(), ys[:n].max(), xs[:n].min(), xs[:n].max()
    best, ties, by, bx = 0, 0, 0, 0
    for cy2 in range(2 * y0, 2 * y1 + 1):
        for cx2 in range(2 * x0, 2 * x1 + 1):
            if turns and (cy2 - cx2) % 2:
                continue  # a quarter turn about this centre leaves the cell lattice
            agree = 0
            ok = True
            for i in range(n):
                v = g[ys[i], xs[i]]
                for k in range(3):
                    ty, tx = _image_about(ys[i], xs[i], cy2, cx2, k, turns)
                    if ty < 0 or tx < 0 or ty >= h or tx >= w:
                        ok = False
                        break
                    u = g[ty, tx]
                    if u != 0:
                        if u != v:
                            ok = False
                            break
                        if ty != ys[i] or tx != xs[i]:
                            agree += 1
                if not ok:
                    break
            if not ok or agree == 0:
                continue
            if agree > best:
                best, ties, by, bx = agree, 0, cy2, cx2
            elif agree == best:
                ties += 1
    if best == 0 or ties:
        return empty()
    out = g.copy()
    changed = False
    for i in range(n):
        for k in range(3):
            ty, tx = _image_about(ys[i], xs[i], by, bx, k, turns)
            if out[ty, tx] == 0:
                out[ty, tx] = g[ys[i], xs[i]]
                changed = True
    return out if changed else empty()
