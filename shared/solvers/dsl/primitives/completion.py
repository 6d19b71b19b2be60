"""Completion primitives: fill cells hidden under an occluding colour from the grid's mirror
symmetries or from its repeating pattern, or return just what the occluder hid.

They are the slowest primitives on large grids and, in the programs found on arc1/train, only
ever help as the first step, so the search applies them to the task input only (`first=True`).
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import MARKER, Color, Grid


def _occluder(g: Grid, c: Color) -> np.ndarray | None:
    """Cells of colour c when they can stand for unknown cells: background, or a few blocky blobs."""
    unknown = g == c
    if not unknown.any() or unknown.all():
        return None
    if c != 0:
        # only blocky blobs: a 2x2 window holding exactly 3 such cells is a concave corner, and a
        # colour drawn as part of the picture has many of them
        corners = unknown[:-1, :-1].astype(np.uint8) + unknown[1:, :-1] + unknown[:-1, 1:] + unknown[1:, 1:]
        if (corners == 3).sum() > 8 or unknown.mean() > 0.5:
            return None
    return unknown


def _mirror_axis(g: Grid, unknown: np.ndarray, axis: int) -> int | None:
    """Best mirror axis (as 2*centre) along axis where all known cell pairs agree."""
    n = g.shape[axis]
    best, best_overlap = None, 0
    for s in range(n // 2, 2 * n - 2 - n // 2 + 1):  # centre must lie in the middle half
        idx = np.arange(n)
        m = s - idx
        ok = (m >= 0) & (m < n)
        a, b = idx[ok], m[ok]
        ga, gb = np.take(g, a, axis=axis), np.take(g, b, axis=axis)
        ua, ub = np.take(unknown, a, axis=axis), np.take(unknown, b, axis=axis)
        known = ~ua & ~ub
        if not (ga[known] == gb[known]).all():
            continue
        if known.sum() > best_overlap:
            best, best_overlap = s, int(known.sum())
    return best


def _symmetry_complete(g: Grid, c: Color) -> Grid | None:
    unknown = _occluder(g, c)
    if unknown is None:
        return None
    out = g.copy()
    for _ in range(2):
        for axis in (0, 1):
            s = _mirror_axis(out, unknown, axis)
            if s is None:
                continue
            n = g.shape[axis]
            idx = np.arange(n)
            src = np.clip(s - idx, 0, n - 1)
            valid = ((s - idx) >= 0) & ((s - idx) < n)
            mirrored = np.take(out, src, axis=axis)
            mir_unknown = np.take(unknown, src, axis=axis)
            vshape = (n, 1) if axis == 0 else (1, n)
            fill = unknown & ~mir_unknown & valid.reshape(vshape)
            out[fill] = mirrored[fill]
            unknown = unknown & ~fill
        if g.shape[0] == g.shape[1]:
            fill = unknown & ~unknown.T & (out.T == out.T)
            if fill.any() and (out[~unknown & ~unknown.T] == out.T[~unknown & ~unknown.T]).all():
                out[fill] = out.T[fill]
                unknown = unknown & ~fill
    return None if unknown.any() else out


def _under_box(g: Grid, filled: Grid | None, c: Color) -> Grid | None:
    """The part of a completed grid under the bounding box of colour c in the original."""
    if filled is None:
        return None
    ys, xs = np.nonzero(g == c)
    return filled[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy()


@primitive(cost=2.5, params="colours", shape="keep", first=True)
def symmetry_complete(g: Grid, c: Color) -> Grid | None:
    """Treat colour c (0, or blocky blobs) as unknown and fill it from the mirror symmetries."""
    return _symmetry_complete(g, c)


@primitive(cost=2.5, params="colours", first=True)
def symmetry_patch(g: Grid, c: Color) -> Grid | None:
    """What the symmetric grid holds under the box of colour c."""
    return _under_box(g, _symmetry_complete(g, c), c)


def _shift_ok(g: Grid, known: np.ndarray, p: int, axis: int) -> bool:
    """Do known cells agree with the known cells p steps further along axis?"""
    n = g.shape[axis]
    a = np.take(g, np.arange(n - p), axis=axis)
    b = np.take(g, np.arange(p, n), axis=axis)
    both = np.take(known, np.arange(n - p), axis=axis) & np.take(known, np.arange(p, n), axis=axis)
    return bool((a[both] == b[both]).all())


def _periodic_fill(g: Grid, c: Color) -> Grid | None:
    """Fill cells of colour c from the smallest 2-d (or else diagonal) period the known cells agree with."""
    unknown = _occluder(g, c)
    if unknown is None:
        return None
    h, w = g.shape
    known = ~unknown
    pys = [p for p in range(1, h + 1) if p == h or _shift_ok(g, known, p, 0)]
    pxs = [p for p in range(1, w + 1) if p == w or _shift_ok(g, known, p, 1)]
    ys, xs = np.nonzero(known)
    colours = g[ys, xs].astype(np.int64)
    for _, py, px in sorted((py * px, py, px) for py in pys for px in pxs):
        if py == h and px == w:
            break
        cls = (ys % py) * px + xs % px
        keys = np.unique(cls * 16 + colours)
        # every class of the tile seen exactly once with one colour: a consistent full tile
        if len(keys) != py * px or len(np.unique(keys // 16)) != py * px:
            continue
        tile = np.zeros(py * px, dtype=np.uint8)
        tile[keys // 16] = keys % 16
        return np.tile(tile.reshape(py, px), (h // py + 1, w // px + 1))[:h, :w].copy()
    return _diagonal_fill(g, known)


def _diagonal_fill(g: Grid, known: np.ndarray) -> Grid | None:
    """Fill from the smallest period p along a diagonal: colour = f((x + y) mod p) or f((x - y) mod p)."""
    h, w = g.shape
    ys, xs = np.nonzero(known)
    colours = g[ys, xs].astype(np.int64)
    yy, xx = np.indices((h, w))
    for p in range(2, max(h, w) + 1):
        for sign in (1, -1):
            cls = (xs + sign * ys) % p
            keys = np.unique(cls * 16 + colours)
            if len(keys) == p and len(np.unique(keys // 16)) == p:
                lut = np.zeros(p, dtype=np.uint8)
                lut[keys // 16] = keys % 16
                return lut[(xx + sign * yy) % p]
    return None


@primitive(cost=2.5, params="colours", shape="keep", first=True)
def pattern_complete(g: Grid, c: Color) -> Grid | None:
    """Treat colour c (0, or blocky blobs) as unknown and fill it by continuing the pattern."""
    return _periodic_fill(g, c)


@primitive(cost=2.5, params="colours", first=True)
def pattern_patch(g: Grid, c: Color) -> Grid | None:
    """What the continued pattern holds under the box of colour c."""
    return _under_box(g, _periodic_fill(g, c), c)


@primitive(cost=2.5, params=(("pattern",), ("symmetry",)), shape="keep", first=True)
def complete_zeros(g: Grid, how: str) -> Grid | None:
    """Treat the 0 cells of the input as unknown and fill them from its repeating pattern or symmetry."""
    return _periodic_fill(g, 0) if how == "pattern" else _symmetry_complete(g, 0)


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


@primitive(cost=2, shape="keep")
def symmetrize(g: Grid) -> Grid | None:
    """Fill the zeros of the content's box from its mirror images (the most symmetry its cells agree with)."""
    ys, xs = np.nonzero(g)
    if len(ys) < 2:
        return None
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    box = g[y0:y1, x0:x1]
    filled = mirror_fill(box)
    if filled is None:
        return None
    out = g.copy()
    out[y0:y1, x0:x1] = filled
    return out


@primitive(cost=2, params=((True,), (False,)), shape="keep")
def complete_turns(g: Grid, mark: bool) -> Grid | None:
    """Complete the content to a square that quarter turns keep (one placement must fit); new cells marked or filled."""
    ys, xs = np.nonzero(g)
    if len(ys) < 3:
        return None
    y0, x0 = ys.min(), xs.min()
    h, w = ys.max() - y0 + 1, xs.max() - x0 + 1
    n = max(h, w)
    found = None
    for oy in {0, n - h}:
        for ox in {0, n - w}:
            top, left = y0 - oy, x0 - ox
            if top < 0 or left < 0 or top + n > g.shape[0] or left + n > g.shape[1]:
                continue
            box = g[top:top + n, left:left + n]
            filled = _fill_from(box, [np.rot90(box, k) for k in (1, 2, 3)])
            if filled is not None:
                if found is not None:
                    return None  # two placements agree: ambiguous
                found = (top, left, box, filled)
    if found is None:
        return None
    top, left, box, filled = found
    out = g.copy()
    new = (box == 0) & (filled != 0)
    out[top:top + n, left:left + n][new] = MARKER if mark else filled[new]
    return out
