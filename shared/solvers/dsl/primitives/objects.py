"""Object primitives: connected components, their boxes, and picking, sorting and counting them.

An object is the crop of its bounding box holding only its own cells (the rest 0); a box is
the whole crop of the input under that bounding box. Objects come in reading order of their
top-left corners, so a pick like `first` is well defined.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import numpy as np
from scipy import ndimage

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import empty, label
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import GRID, GRIDS, MAX_PARTS, Grid, Grids

_STRUCTURE = {True: np.ones((3, 3), dtype=bool), False: ndimage.generate_binary_structure(2, 1)}


@lru_cache(maxsize=4096)
def _component_arrays(data: bytes, h: int, w: int, diagonal: bool, by_colour: bool) -> tuple:
    """Components of non-zero cells (cached: the search asks often), each as read-only (ys, xs)."""
    g = np.frombuffer(data, dtype=np.uint8).reshape(h, w)
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
    g = np.ascontiguousarray(g, dtype=np.uint8)
    return list(_component_arrays(g.tobytes(), g.shape[0], g.shape[1], diagonal, by_colour))


def _crop_object(g: Grid, ys: np.ndarray, xs: np.ndarray) -> Grid:
    y0, x0 = ys.min(), xs.min()
    out = np.zeros((ys.max() - y0 + 1, xs.max() - x0 + 1), dtype=np.uint8)
    out[ys - y0, xs - x0] = g[ys, xs]
    return out


def _objects(g: Grid, diagonal: bool, by_colour: bool) -> Grids | None:
    comps = components(g, diagonal, by_colour)
    if not comps or len(comps) > MAX_PARTS:
        return None
    return tuple(_crop_object(g, ys, xs) for ys, xs in comps)


@primitive(GRID, GRIDS, cost=1)
def objects(g: Grid) -> Grids | None:
    """Objects: 8-connected non-zero regions, any colours."""
    return _objects(g, True, False)


@primitive(GRID, GRIDS, cost=1.5)
def objects4(g: Grid) -> Grids | None:
    """Objects: 4-connected non-zero regions, any colours."""
    return _objects(g, False, False)


@primitive(GRID, GRIDS, cost=1.5)
def colour_objects(g: Grid) -> Grids | None:
    """Objects: 8-connected regions of one colour each."""
    return _objects(g, True, True)


@primitive(GRID, GRIDS, cost=2)
def colour_objects4(g: Grid) -> Grids | None:
    """Objects: 4-connected regions of one colour each."""
    return _objects(g, False, True)


@primitive(GRID, GRIDS, cost=1.5)
def boxes(g: Grid) -> Grids | None:
    """The input under each object's bounding box (other colours inside kept)."""
    comps = components(g, True, False)
    if not comps or len(comps) > MAX_PARTS:
        return None
    return tuple(g[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy() for ys, xs in comps)


@primitive(GRID, GRIDS, cost=1.5)
def colour_boxes(g: Grid) -> Grids | None:
    """The input under the bounding box of each one-colour object (frames give their contents)."""
    comps = components(g, True, True)
    if not comps or len(comps) > MAX_PARTS:
        return None
    return tuple(g[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy() for ys, xs in comps)


@primitive(GRID, GRIDS, cost=1.5)
def colour_layers(g: Grid) -> Grids | None:
    """One grid per non-zero colour (cells of that colour only), in colour order."""
    present = [c for c in range(1, 10) if (g == c).any()]
    if not present:
        return None
    return tuple(np.where(g == c, g, 0).astype(np.uint8) for c in present)


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


def _size(o: Grid) -> int:
    return int(np.count_nonzero(o))


def _pick(parts: tuple, key, largest: bool) -> Grid | None:
    if not parts:
        return None
    scores = [key(p) for p in parts]
    best = max(scores) if largest else min(scores)
    winners = [p for p, s in zip(parts, scores, strict=True) if s == best]
    # an ambiguous pick explains nothing; refuse it rather than guess
    if len(winners) > 1 and any(not np.array_equal(winners[0], w) for w in winners[1:]):
        return None
    return winners[0]


@primitive(GRIDS, GRID, cost=1)
def largest(parts: Grids) -> Grid | None:
    """The part with the most non-zero cells."""
    return _pick(parts, _size, True)


@primitive(GRIDS, GRID, cost=1)
def smallest(parts: Grids) -> Grid | None:
    """The part with the fewest non-zero cells."""
    return _pick(parts, _size, False)


@primitive(GRIDS, GRID, cost=1.5)
def biggest_box(parts: Grids) -> Grid | None:
    """The part with the largest area."""
    return _pick(parts, lambda p: p.size, True)


@primitive(GRIDS, GRID, cost=1.5)
def most_colourful(parts: Grids) -> Grid | None:
    """The part with the most distinct non-zero colours."""
    return _pick(parts, lambda p: len(np.unique(p[p != 0])), True)


@primitive(GRIDS, GRID, cost=1.5)
def least_colourful(parts: Grids) -> Grid | None:
    """The part with the fewest distinct non-zero colours."""
    return _pick(parts, lambda p: len(np.unique(p[p != 0])), False)


def _odd_one(parts: Grids, keys: list) -> Grid | None:
    """The one part (of three or more) whose key no other part shares."""
    counts = Counter(keys)
    odd = [p for p, k in zip(parts, keys, strict=True) if counts[k] == 1]
    return odd[0] if len(odd) == 1 and len(parts) > 2 else None


@primitive(GRIDS, GRID, cost=1.5)
def unique_colour(parts: Grids) -> Grid | None:
    """The one part whose colour set no other part shares."""
    keys = [tuple(np.unique(p[p != 0])) for p in parts]
    return _odd_one(parts, keys)


def _shape_key(p: Grid) -> bytes:
    return (p != 0).tobytes() + bytes(p.shape)


@primitive(GRIDS, GRID, cost=1.5)
def unique_shape(parts: Grids) -> Grid | None:
    """The one part whose shape (ignoring colour) no other part shares."""
    keys = [_shape_key(p) for p in parts]
    return _odd_one(parts, keys)


def _symmetries(p: Grid) -> tuple:
    square = p.shape[0] == p.shape[1]
    return (np.array_equal(p, p[:, ::-1]), np.array_equal(p, p[::-1]), square and np.array_equal(p, p.T),
            square and np.array_equal(p, p[::-1, ::-1].T))


@primitive(GRIDS, GRID, cost=1.5)
def unique_symmetry(parts: Grids) -> Grid | None:
    """The one part whose mirror symmetries (left-right, up-down, the two diagonals) no other part shares."""
    keys = [_symmetries(p) for p in parts]
    return _odd_one(parts, keys)


@primitive(GRIDS, GRID, cost=1.5)
def unique_part(parts: Grids) -> Grid | None:
    """The one part that differs from all others (exact content)."""
    keys = [p.tobytes() + bytes(p.shape) for p in parts]
    return _odd_one(parts, keys)


@primitive(GRIDS, GRID, cost=1.5)
def most_common(parts: Grids) -> Grid | None:
    """The part that occurs most often (exact content)."""
    keys = [p.tobytes() + bytes(p.shape) for p in parts]
    counts = Counter(keys)
    best = max(counts.values(), default=0)
    tops = [k for k, n in counts.items() if n == best]
    if best < 2 or len(tops) > 1:
        return None
    return parts[keys.index(tops[0])]


@primitive(GRIDS, GRID, cost=1.5)
def first(parts: Grids) -> Grid | None:
    """The first part in reading order."""
    return parts[0] if parts else None


@primitive(GRIDS, GRID, cost=1.5)
def last(parts: Grids) -> Grid | None:
    """The last part in reading order."""
    return parts[-1] if parts else None


@primitive(GRIDS, GRID, cost=1.5)
def most_cells_of_minor(parts: Grids) -> Grid | None:
    """The part holding the most cells of the overall least frequent colour."""
    if not parts:
        return None
    counts = Counter()
    for p in parts:
        counts.update(Counter(p[p != 0].tolist()))
    if not counts:
        return None
    minor = min(counts, key=lambda c: (counts[c], c))
    return _pick(parts, lambda p: int((p == minor).sum()), True)


@primitive(GRIDS, GRIDS, cost=1)
def sort_by_size(parts: Grids) -> Grids | None:
    """Order parts from most to fewest non-zero cells (stable)."""
    return tuple(sorted(parts, key=lambda p: -_size(p))) if len(parts) > 1 else None


@primitive(GRIDS, GRID, cost=1.5)
def count_cells(parts: Grids) -> Grid | None:
    """A 1 x n row of marker colour, one cell per part (counting them)."""
    if not parts:
        return None
    return np.full((1, len(parts)), 10, dtype=np.uint8)


@primitive(GRIDS, GRID, cost=1.5)
def part_colours(parts: Grids) -> Grid | None:
    """Each part's most frequent non-zero colour, stacked as one column in the parts' order."""
    if not parts or len(parts) > 30:
        return None
    column = []
    for p in parts:
        counts = np.bincount(p.ravel(), minlength=10)
        counts[0] = 0
        if not counts.any():
            return None
        column.append(int(np.argmax(counts)))
    return np.array(column, dtype=np.uint8)[:, None]
