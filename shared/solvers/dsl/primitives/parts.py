"""Part primitives: cutting a grid into cells along separator lines or into equal parts, and
putting parts back together (overlay, vote, logical and/or/xor, side by side).

Logical combinations mark their true cells with the marker colour, so a learned recolour at
the end picks the output colour from the demos.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.primitives.drawing import connect
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import GRID, GRIDS, MARKER, MAX_PARTS, MAX_SIDE, Color, Grid, Grids


def _separators(line_ok: np.ndarray) -> list[tuple[int, int]]:
    """Runs of indices that are not separators, as (start, stop)."""
    spans, start = [], None
    for i, sep in enumerate(list(line_ok) + [True]):
        if not sep and start is None:
            start = i
        elif sep and start is not None:
            spans.append((start, i))
            start = None
    return spans


@primitive(GRID, GRIDS, cost=1)
def split_lines(g: Grid) -> Grids | None:
    """Cut along full lines of one non-zero colour (the one with most lines) into cells, reading order."""
    cuts = _line_cuts(g)
    if cuts is None:
        return None
    return tuple(g[a:b, p:q].copy() for a, b in cuts[0] for p, q in cuts[1])


def _line_cuts(g: Grid, max_parts: int = MAX_PARTS) -> tuple[list, list] | None:
    """Spans between full lines of the non-zero colour with the most such lines."""
    best = None
    for c in range(1, 10):
        rows = (g == c).all(axis=1)
        cols = (g == c).all(axis=0)
        if not rows.any() and not cols.any() or rows.all():
            continue
        ry, rx = _separators(rows), _separators(cols)
        n_lines = int(rows.sum() + cols.sum())
        if len(ry) * len(rx) < 2 or len(ry) * len(rx) > max_parts or best and best[0] >= n_lines:
            continue
        best = (n_lines, ry, rx)
    return (best[1], best[2]) if best else None


@primitive(cost=1)
def cell_colours(g: Grid) -> Grid | None:
    """Cut along separator lines and give each cell its most frequent colour: the layout as a grid."""
    cuts = _line_cuts(g)
    if cuts is None:
        return None
    return _layout(g, *cuts, count_zero=True)


def _layout(g: Grid, ry: list, rx: list, count_zero: bool) -> Grid:
    """One cell per (row span, column span) block: the block's commonest colour (or non-zero colour)."""
    out = np.zeros((len(ry), len(rx)), dtype=np.uint8)
    for i, (a, b) in enumerate(ry):
        for j, (p, q) in enumerate(rx):
            counts = np.bincount(g[a:b, p:q].ravel(), minlength=16)
            counts[0] *= count_zero
            out[i, j] = counts.argmax()
    return out


@primitive(cost=1.5)
def block_colours(g: Grid) -> Grid | None:
    """Cut along empty rows and columns and give each block its most frequent non-zero colour: the layout as a grid."""
    ry, rx = _separators(~g.any(axis=1)), _separators(~g.any(axis=0))
    if len(ry) * len(rx) < 2 or len(ry) * len(rx) > MAX_PARTS:
        return None
    return _layout(g, ry, rx, count_zero=False)


@primitive(cost=1.5, shape="keep")
def spread_cell(g: Grid) -> Grid | None:
    """Cut along separator lines; when one cell alone has content, copy it into every cell."""
    cuts = _line_cuts(g)
    if cuts is None:
        return None
    spans = [(a, b, p, q) for a, b in cuts[0] for p, q in cuts[1]]
    full = [(a, b, p, q) for a, b, p, q in spans if g[a:b, p:q].any()]
    if len(full) != 1 or len({(b - a, q - p) for a, b, p, q in spans}) != 1:
        return None
    a0, b0, p0, q0 = full[0]
    out = g.copy()
    for a, b, p, q in spans:
        out[a:b, p:q] = g[a0:b0, p0:q0]
    return out


@primitive(cost=1.5, shape="keep")
def stamp_first_cell(g: Grid) -> Grid | None:
    """Cut along separator lines; the first cell's shape is drawn in the line colour into every other cell's zeros."""
    cuts = _line_cuts(g)
    if cuts is None:
        return None
    ry, rx = cuts
    spans = [(a, b, p, q) for a, b in ry for p, q in rx]
    if len({(b - a, q - p) for a, b, p, q in spans}) != 1:
        return None
    a0, b0, p0, q0 = spans[0]
    shape = g[a0:b0, p0:q0] != 0
    if not shape.any():
        return None
    line = g[ry[0][1], p0] if len(ry) > 1 else g[a0, rx[0][1]]
    out = g.copy()
    for a, b, p, q in spans[1:]:
        cell = out[a:b, p:q]
        cell[(cell == 0) & shape] = line
    return out


@primitive(cost=1.5, shape="keep")
def fill_fullest_cells(g: Grid) -> Grid | None:
    """Cut along separator lines; the cells with the most coloured cells fill with their colour, the rest clear."""
    cuts = _line_cuts(g)
    if cuts is None:
        return None
    spans = [(a, b, p, q) for a, b in cuts[0] for p, q in cuts[1]]
    counts = [int(np.count_nonzero(g[a:b, p:q])) for a, b, p, q in spans]
    if max(counts) == 0:
        return None
    out = g.copy()
    for (a, b, p, q), n in zip(spans, counts, strict=True):
        cell = g[a:b, p:q]
        out[a:b, p:q] = np.bincount(cell[cell != 0]).argmax() if n == max(counts) else 0
    return out


@primitive(cost=1.5, shape="keep")
def connect_cells(g: Grid) -> Grid | None:
    """Cut along separator lines; cells between two cells of one colour in a row or column of cells fill with it."""
    cuts = _line_cuts(g, MAX_SIDE * MAX_SIDE)
    if cuts is None:
        return None
    ry, rx = cuts
    layout = _layout(g, ry, rx, count_zero=False)
    joined = connect(layout)
    if np.array_equal(joined, layout):
        return g
    out = g.copy()
    for i, j in zip(*np.nonzero(joined != layout), strict=True):
        (a, b), (p, q) = ry[i], rx[j]
        out[a:b, p:q] = joined[i, j]
    return out


@primitive(cost=2, params="colours")
def gather_at(g: Grid, c: Color) -> Grid | None:
    """The 3 x 3 windows centred on each cell of colour c, painted over each other into one."""
    ys, xs = np.nonzero(g == c)
    if not 2 <= len(ys) <= MAX_PARTS:
        return None
    padded = np.pad(g, 1)
    out = np.zeros((3, 3), dtype=np.uint8)
    for y, x in zip(ys, xs, strict=True):
        window = padded[y:y + 3, x:x + 3]
        clash = (out != 0) & (window != 0) & (out != window)
        if clash.any():
            return None
        out = np.where(window != 0, window, out)
    return out


@primitive(GRIDS, GRID, cost=1.5)
def key_paint(parts: Grids) -> Grid | None:
    """The largest part's shape coloured by the smallest non-empty part (a colour key) blown up to its size."""
    full = [p for p in parts if p.any()]
    if len(full) < 2:
        return None
    key = min(full, key=lambda p: p.size)
    shape = max(full, key=lambda p: p.size)
    if key.size == shape.size or shape.shape[0] % key.shape[0] or shape.shape[1] % key.shape[1] or not key.all():
        return None
    big = np.kron(key, np.ones((shape.shape[0] // key.shape[0], shape.shape[1] // key.shape[1]), dtype=np.uint8))
    return np.where(shape != 0, big, 0).astype(np.uint8)


def _equal_spans(n: int, k: int) -> list[tuple[int, int]] | None:
    if n % k == 0:
        s = n // k
        return [(i * s, (i + 1) * s) for i in range(k)]
    if (n - (k - 1)) % k == 0:  # k parts with one-cell separators between
        s = (n - (k - 1)) // k
        return [(i * (s + 1), i * (s + 1) + s) for i in range(k)]
    return None


@primitive(GRID, GRIDS, cost=1, params=((1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (3, 3)))
def split_grid(g: Grid, ry: int, rx: int) -> Grids | None:
    """Cut into ry x rx equal parts (skipping one-cell separators), reading order."""
    ys, xs = _equal_spans(g.shape[0], ry), _equal_spans(g.shape[1], rx)
    if ys is None or xs is None or ys[0][1] - ys[0][0] < 1 or xs[0][1] - xs[0][0] < 1:
        return None
    return tuple(g[a:b, p:q].copy() for a, b in ys for p, q in xs)


def _same_shape(parts: Grids) -> bool:
    return len(parts) >= 2 and all(p.shape == parts[0].shape for p in parts)


@primitive(GRIDS, GRID, cost=1)
def overlay(parts: Grids) -> Grid | None:
    """Paint the parts on top of each other, later parts over earlier ones (0 is clear)."""
    if not _same_shape(parts):
        return None
    out = parts[0].copy()
    for p in parts[1:]:
        out = np.where(p != 0, p, out)
    return out.astype(np.uint8)


@primitive(GRIDS, GRID, search=False)
def overlay_order(parts: Grids, order: tuple) -> Grid | None:
    """Paint the parts in a learned order of their indices, later over earlier (0 is clear)."""
    if len(order) != len(parts):
        return None
    return overlay(tuple(parts[i] for i in order))


@primitive(GRIDS, GRID, cost=1.5)
def overlay_reversed(parts: Grids) -> Grid | None:
    """Paint the parts on top of each other, earlier parts over later ones."""
    return overlay(parts[::-1]) if parts else None


def _masks(parts: Grids) -> np.ndarray | None:
    """Non-zero masks of two or more same-shaped parts, stacked."""
    if not _same_shape(parts):
        return None
    return np.stack([p != 0 for p in parts])


def _two(parts: Grids) -> tuple[np.ndarray, np.ndarray] | None:
    if len(parts) != 2 or parts[0].shape != parts[1].shape:
        return None
    return parts[0] != 0, parts[1] != 0


def _marked(m: np.ndarray) -> Grid:
    return np.where(m, MARKER, 0).astype(np.uint8)


@primitive(GRIDS, GRID, cost=1)
def and_parts(parts: Grids) -> Grid | None:
    """Mark cells non-zero in every part."""
    m = _masks(parts)
    return None if m is None else _marked(m.all(axis=0))


@primitive(GRIDS, GRID, cost=1)
def or_parts(parts: Grids) -> Grid | None:
    """Mark cells non-zero in any part."""
    m = _masks(parts)
    return None if m is None else _marked(m.any(axis=0))


@primitive(GRIDS, GRID, cost=1)
def xor_parts(parts: Grids) -> Grid | None:
    """Mark cells non-zero in exactly one part."""
    m = _masks(parts)
    return None if m is None else _marked(m.sum(axis=0) == 1)


@primitive(GRIDS, GRID, cost=1)
def nor_parts(parts: Grids) -> Grid | None:
    """Mark cells zero in every part."""
    m = _masks(parts)
    return None if m is None else _marked(~m.any(axis=0))


@primitive(GRIDS, GRID, cost=1.5)
def vote_parts(parts: Grids) -> Grid | None:
    """Each cell takes the colour most parts agree on there (ties to the lowest colour)."""
    if not _same_shape(parts) or len(parts) < 3:
        return None
    stack = np.stack(parts)
    counts = np.stack([(stack == c).sum(axis=0) for c in range(10)])
    return counts.argmax(axis=0).astype(np.uint8)


@primitive(GRIDS, GRID, cost=1)
def diff_parts(parts: Grids) -> Grid | None:
    """Mark cells non-zero in the first of two parts and zero in the second."""
    ab = _two(parts)
    return None if ab is None else _marked(ab[0] & ~ab[1])


@primitive(GRIDS, GRID, cost=1.5)
def stack_across(parts: Grids) -> Grid | None:
    """Put the parts side by side (equal heights)."""
    if not parts or any(p.shape[0] != parts[0].shape[0] for p in parts):
        return None
    out = np.hstack(parts)
    return out if out.shape[1] <= MAX_SIDE else None


@primitive(GRIDS, GRID, cost=1.5)
def stack_down(parts: Grids) -> Grid | None:
    """Put the parts one above the other (equal widths)."""
    if not parts or any(p.shape[1] != parts[0].shape[1] for p in parts):
        return None
    out = np.vstack(parts)
    return out if out.shape[0] <= MAX_SIDE else None


@primitive(GRIDS, GRID, cost=1.5)
def kron_parts(parts: Grids) -> Grid | None:
    """Two parts, one of a single colour: each coloured cell of the other becomes a copy of that shape in its colour."""
    if len(parts) != 2 or parts[0].shape != parts[1].shape:
        return None
    single = [len(np.unique(p[p != 0])) == 1 for p in parts]
    if single[0] == single[1]:
        return None
    shape, colours = (parts[0], parts[1]) if single[0] else (parts[1], parts[0])
    out = np.kron(colours, (shape != 0).astype(np.uint8))
    return out if max(out.shape) <= MAX_SIDE else None
