"""Colour primitives: keep or remove a colour, frequency-based picks, masks and recolour maps.

Marker colours (10+) are produced by `mask` and resolved by a final learned `recolor`.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import MARKER, Color, Grid


def colour_counts(g: Grid) -> np.ndarray:
    """Cells per colour, indexed 0..MARKER+5."""
    return np.bincount(g.ravel(), minlength=MARKER + 6)


def background(g: Grid) -> int:
    """The background colour: the most frequent one (ties to the lowest)."""
    return int(np.argmax(colour_counts(g)))


def _ranked_colours(g: Grid) -> list[int]:
    counts = colour_counts(g)
    present = [c for c in range(1, len(counts)) if counts[c]]
    return sorted(present, key=lambda c: (-counts[c], c))


def _swap_with_zero(g: Grid, c: int) -> Grid:
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


@primitive(cost=2, params="colours", shape="keep")
def keep_colour(g: Grid, c: Color) -> Grid | None:
    """Keep only the cells of colour c; everything else becomes 0."""
    if c == 0 or not (g == c).any():
        return None
    return np.where(g == c, g, 0).astype(np.uint8)


@primitive(cost=2, params="colours", shape="keep")
def remove_colour(g: Grid, c: Color) -> Grid | None:
    """Turn the cells of colour c into 0."""
    if c == 0 or not (g == c).any():
        return None
    return np.where(g == c, 0, g).astype(np.uint8)


@primitive(cost=1, shape="keep")
def keep_major(g: Grid) -> Grid | None:
    """Keep only the most frequent non-zero colour."""
    ranked = _ranked_colours(g)
    return np.where(g == ranked[0], g, 0).astype(np.uint8) if len(ranked) > 1 else None


@primitive(cost=1, shape="keep")
def keep_minor(g: Grid) -> Grid | None:
    """Keep only the least frequent non-zero colour."""
    ranked = _ranked_colours(g)
    return np.where(g == ranked[-1], g, 0).astype(np.uint8) if len(ranked) > 1 else None


@primitive(cost=1, shape="keep")
def remove_major(g: Grid) -> Grid | None:
    """Remove the most frequent non-zero colour."""
    ranked = _ranked_colours(g)
    return np.where(g == ranked[0], 0, g).astype(np.uint8) if len(ranked) > 1 else None


@primitive(cost=1, shape="keep")
def paint_major(g: Grid) -> Grid | None:
    """Paint every non-zero cell with the most frequent non-zero colour."""
    ranked = _ranked_colours(g)
    return np.where(g != 0, ranked[0], 0).astype(np.uint8) if ranked else None


@primitive(cost=1, shape="keep")
def paint_minor(g: Grid) -> Grid | None:
    """Paint every non-zero cell with the least frequent non-zero colour."""
    ranked = _ranked_colours(g)
    return np.where(g != 0, ranked[-1], 0).astype(np.uint8) if len(ranked) > 1 else None


@primitive(cost=1.5, shape="keep")
def fill_major(g: Grid) -> Grid:
    """Every cell takes the grid's most frequent colour (background included)."""
    return np.full_like(g, np.bincount(g.ravel()).argmax())


@primitive(cost=1.5, shape="keep")
def stripe_vote(g: Grid) -> Grid:
    """Every row takes its most frequent colour, or every column does: whichever changes fewer cells."""
    def by_rows(x: Grid) -> Grid:
        top = np.array([np.bincount(r, minlength=16).argmax() for r in x], dtype=np.uint8)
        return np.broadcast_to(top[:, None], x.shape)
    rows, cols = by_rows(g), by_rows(g.T).T
    return (rows if (rows == g).sum() >= (cols == g).sum() else cols).copy()


@primitive(cost=1, shape="keep")
def mask(g: Grid) -> Grid:
    """Mark every non-zero cell with the marker colour (for a learned recolour to finish)."""
    return np.where(g != 0, MARKER, 0).astype(np.uint8)


@primitive(cost=1, shape="keep")
def invert_mask(g: Grid) -> Grid:
    """Mark every zero cell with the marker colour and clear the rest."""
    return np.where(g == 0, MARKER, 0).astype(np.uint8)


@primitive(cost=1, shape="keep")
def swap_top_two(g: Grid) -> Grid | None:
    """Swap the two most frequent non-zero colours."""
    ranked = _ranked_colours(g)
    if len(ranked) < 2:
        return None
    a, b = ranked[0], ranked[1]
    return np.where(g == a, b, np.where(g == b, a, g)).astype(np.uint8)


@primitive(cost=1)
def major_colour_cell(g: Grid) -> Grid | None:
    """A 1x1 grid of the most frequent non-zero colour."""
    ranked = _ranked_colours(g)
    return np.array([[ranked[0]]], dtype=np.uint8) if ranked else None


@primitive(cost=1)
def minor_colour_cell(g: Grid) -> Grid | None:
    """A 1x1 grid of the least frequent non-zero colour."""
    ranked = _ranked_colours(g)
    return np.array([[ranked[-1]]], dtype=np.uint8) if ranked else None


@primitive(cost=2, params=tuple((asc, skip) for asc in (False, True) for skip in (0, 1)))
def colour_column(g: Grid, ascending: bool, skip: int) -> Grid | None:
    """The non-zero colours as one column, most frequent first (or least), after skipping `skip`."""
    ranked = _ranked_colours(g)
    if ascending:
        counts = colour_counts(g)
        ranked = sorted(ranked, key=lambda c: (counts[c], c))
    ranked = ranked[skip:]
    if not ranked or any(c >= MARKER for c in ranked):
        return None
    return np.array(ranked, dtype=np.uint8)[:, None]


@primitive(cost=1.5)
def cells_row(g: Grid) -> Grid | None:
    """The non-zero cells in reading order as one row (a count shown as a bar)."""
    cells = g[g != 0]
    if not 0 < cells.size <= 30:
        return None
    return cells[None, :].astype(np.uint8)


@primitive(cost=1.5)
def colour_sequence(g: Grid) -> Grid | None:
    """The non-zero colours ordered by mean position, as a row (spread across) or column (spread down)."""
    colours = [c for c in range(1, MARKER) if (g == c).any()]
    if len(colours) < 2:
        return None
    ys, xs = np.indices(g.shape)
    cy = {c: float(ys[g == c].mean()) / g.shape[0] for c in colours}
    cx = {c: float(xs[g == c].mean()) / g.shape[1] for c in colours}
    across = np.ptp(list(cx.values())) >= np.ptp(list(cy.values()))
    order = sorted(colours, key=lambda c: ((cx if across else cy)[c], c))
    row = np.array([order], dtype=np.uint8)
    return row if across else row.T.copy()


@primitive(cost=1.5)
def histogram(g: Grid) -> Grid | None:
    """A bar chart: a column per non-zero colour, commonest first, with as many cells from the top as it has."""
    counts = colour_counts(g)[:MARKER]
    counts[0] = 0
    order = sorted(np.flatnonzero(counts).tolist(), key=lambda c: (-counts[c], c))
    if not order or counts.max() > 30:
        return None
    out = np.zeros((int(counts.max()), len(order)), dtype=np.uint8)
    for j, c in enumerate(order):
        out[:counts[c], j] = c
    return out


@primitive(cost=2, params="colours", shape="keep")
def recolour_nearest(g: Grid, c: Color) -> Grid | None:
    """Cells of colour c take the colour of the nearest cell of another non-zero colour (a tie: unchanged)."""
    ys, xs = np.nonzero(g == c)
    oy, ox = np.nonzero((g != c) & (g != 0))
    if not len(ys) or not len(oy):
        return None
    d = (ys[:, None] - oy[None, :]) ** 2 + (xs[:, None] - ox[None, :]) ** 2
    nearest = d.min(axis=1, keepdims=True)
    out = g.copy()
    for k in range(len(ys)):
        closest = d[k] == nearest[k]
        colours = set(g[oy[closest], ox[closest]].tolist())
        if len(colours) == 1:
            out[ys[k], xs[k]] = colours.pop()
    return out


@primitive(cost=1.5, params=((False,), (True,)), shape="keep")
def cycle_layers(g: Grid, reverse: bool) -> Grid | None:
    """Nested layers (read along the diagonal from a corner) take the colour of the one outside, or in reverse order."""
    n = min(g.shape)
    order = list(dict.fromkeys(int(g[i, i]) for i in range((n + 1) // 2)))  # distinct colours, outermost first
    if len(order) < 2 or set(np.unique(g).tolist()) - set(order):
        return None
    lut = np.arange(256, dtype=np.uint8)
    for i, c in enumerate(order):
        lut[c] = order[-1 - i] if reverse else order[i - 1]
    return lut[g]


@primitive(cost=1.5, shape="keep")
def swap_crossing(g: Grid) -> Grid | None:
    """Where full rows cross full columns, the colour on top changes to the other line's."""
    rows, cols = np.nonzero(g.all(axis=1))[0], np.nonzero(g.all(axis=0))[0]
    if not len(rows) or not len(cols) or len(rows) == g.shape[0] or len(cols) == g.shape[1]:
        return None
    out = g.copy()
    for y in rows:
        rc = int(np.bincount(g[y]).argmax())
        for x in cols:
            cc = int(np.bincount(g[:, x]).argmax())
            if rc != cc:
                out[y, x] = cc if g[y, x] == rc else rc
    return out
