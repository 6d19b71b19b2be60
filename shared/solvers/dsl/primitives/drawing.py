"""Drawing and motion primitives: gravity and sliding until contact, moving or drawing shapes
towards others, reflecting them across walls, filling enclosed holes and flooding regions, rays
and connecting lines, outlines and borders.

Directions are handled once: each primitive is written for "down" and turned for the others.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from shared.solvers.dsl.primitives.completion import mirror_fill
from shared.solvers.dsl.primitives.objects import components
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import MARKER, Color, Grid

_DIRS = {"down": 0, "left": 1, "up": 2, "right": 3}  # anticlockwise quarter turns that make it "down"


def _turned(g: Grid, direction: str, fn) -> Grid:
    k = _DIRS[direction]
    return np.ascontiguousarray(np.rot90(fn(np.rot90(g, k)), -k))


def _fall_down(g: Grid) -> Grid:
    # a stable sort on "is non-zero" moves zeros up and keeps the order of the rest
    order = np.argsort(g != 0, axis=0, kind="stable")
    return np.take_along_axis(g, order, axis=0)


@primitive(cost=1.5, params=(("down",), ("up",), ("left",), ("right",)), shape="keep")
def gravity(g: Grid, direction: str) -> Grid:
    """Let every non-zero cell fall in a direction until it rests on another or the edge."""
    return _turned(g, direction, _fall_down)


def _outside_zeros(g: Grid) -> np.ndarray:
    """Zero cells 4-connected to the border through zero cells (grown one step at a time)."""
    free = g == 0
    reach = np.zeros_like(free)
    reach[0, :], reach[-1, :], reach[:, 0], reach[:, -1] = free[0, :], free[-1, :], free[:, 0], free[:, -1]
    while True:
        grown = reach.copy()
        grown[1:] |= reach[:-1]
        grown[:-1] |= reach[1:]
        grown[:, 1:] |= reach[:, :-1]
        grown[:, :-1] |= reach[:, 1:]
        grown &= free
        if np.array_equal(grown, reach):
            return reach
        reach = grown


@primitive(cost=1, shape="keep")
def fill_enclosed(g: Grid) -> Grid:
    """Mark the zero cells that cannot reach the border (holes inside shapes)."""
    holes = (g == 0) & ~_outside_zeros(g)
    return np.where(holes, MARKER, g).astype(np.uint8)


@primitive(cost=1.5, shape="keep")
def fill_square_holes(g: Grid) -> Grid | None:
    """Mark the holes (zero regions that cannot reach the border) shaped as a full square."""
    lab, _ = ndimage.label((g == 0) & ~_outside_zeros(g))
    out = g.copy()
    for i, box in enumerate(ndimage.find_objects(lab), 1):
        region = lab[box] == i
        if region.shape[0] == region.shape[1] and region.all():
            out[box] = MARKER
    return out


@primitive(cost=1.5, shape="keep")
def fill_holes_own(g: Grid) -> Grid | None:
    """Fill the zero cells that cannot reach the border with the colour of the nearest non-zero cell."""
    holes = (g == 0) & ~_outside_zeros(g)
    if not holes.any():
        return None
    _, (iy, ix) = ndimage.distance_transform_edt(g == 0, return_indices=True)
    return np.where(holes, g[iy, ix], g).astype(np.uint8)


def _ray_down(g: Grid) -> Grid:
    # for every cell, the row of the last non-zero cell at or above it in its column
    rows = np.where(g != 0, np.arange(g.shape[0])[:, None], -1)
    last = np.maximum.accumulate(rows, axis=0)
    below = np.take_along_axis(g, np.maximum(last, 0), axis=0)
    return np.where((g == 0) & (last >= 0), below, g).astype(np.uint8)


@primitive(cost=2, params=(("down",), ("up",), ("left",), ("right",)), shape="keep")
def rays(g: Grid, direction: str) -> Grid:
    """Extend every non-zero cell in a direction over zero cells (each cell's colour wins)."""
    return _turned(g, direction, _ray_down)


@primitive(cost=2, params=(("down",), ("up",), ("left",), ("right",)), shape="keep")
def marked_rays(g: Grid, direction: str) -> Grid | None:
    """Mark the zero cells that a ray from some non-zero cell in a direction passes over."""
    if not g.any():
        return None
    return np.where((g == 0) & (rays(g, direction) != 0), MARKER, g).astype(np.uint8)


def _dotted_down(g: Grid) -> Grid:
    rows = np.arange(g.shape[0])[:, None]
    last = np.maximum.accumulate(np.where(g != 0, rows, -1), axis=0)
    ray = _ray_down(g)
    odd = (rows - last) % 2 == 1
    return np.where((g == 0) & (last >= 0), np.where(odd, MARKER, ray), g).astype(np.uint8)


@primitive(cost=2, params=(("down",), ("up",), ("left",), ("right",)), shape="keep")
def dotted_rays(g: Grid, direction: str) -> Grid | None:
    """Extend every non-zero cell in a direction over zeros, every other cell of the ray marked."""
    if not g.any():
        return None
    return _turned(g, direction, _dotted_down)


@primitive(cost=2, params=((False,), (True,)), shape="keep")
def star(g: Grid, diagonal: bool) -> Grid:
    """Extend every non-zero cell over zeros in all four straight (or all four diagonal) directions."""
    out = g.copy()
    for direction in _DIRS:
        drawn = _turned(g, direction, _ray_diagonal if diagonal else _ray_down)
        out = np.where(out == 0, drawn, out)
    return out.astype(np.uint8)


def _shear(g: Grid) -> np.ndarray:
    """Down-right diagonals of g as the columns of an (h, h + w - 1) grid, zeros elsewhere."""
    h, w = g.shape
    ys, xs = np.indices((h, w))
    out = np.zeros((h, h + w - 1), dtype=g.dtype)
    out[ys, xs - ys + h - 1] = g
    return out


def _unshear(s: np.ndarray, h: int, w: int) -> np.ndarray:
    ys, xs = np.indices((h, w))
    return s[ys, xs - ys + h - 1]


def _ray_diagonal(g: Grid) -> Grid:
    # a ray down-right is a ray down once the diagonals are columns
    return _unshear(_ray_down(_shear(g)), *g.shape).astype(np.uint8)


@primitive(cost=3, params=(("down",), ("up",), ("left",), ("right",)), shape="keep")
def diagonal_rays(g: Grid, direction: str) -> Grid:
    """Extend every non-zero cell diagonally (down-right turned by the direction) over zeros."""
    return _turned(g, direction, _ray_diagonal)


def _between_down(g: Grid) -> np.ndarray:
    """For each zero cell, the colour of the nearest non-zero cells above and below it when they
    agree (0 otherwise): what a vertical line joining same-coloured cells would paint there."""
    h = g.shape[0]
    rows = np.arange(h)[:, None]
    above = np.maximum.accumulate(np.where(g != 0, rows, -1), axis=0)
    below = np.minimum.accumulate(np.where(g != 0, rows, h)[::-1], axis=0)[::-1]
    up = np.where(above >= 0, np.take_along_axis(g, np.maximum(above, 0), axis=0), 0)
    down = np.where(below < h, np.take_along_axis(g, np.minimum(below, h - 1), axis=0), 0)
    return np.where((g == 0) & (up == down), up, 0)


@primitive(cost=1.5, shape="keep")
def connect(g: Grid) -> Grid:
    """Join same-coloured cells that share a row or column with a line of their colour over zeros."""
    across = _between_down(g.T).T
    out = np.where(across != 0, across, g)
    down = _between_down(g)
    return np.where((out == 0) & (down != 0), down, out).astype(np.uint8)


@primitive(cost=2, shape="keep")
def connect_diagonal(g: Grid) -> Grid:
    """Join same-coloured cells on a shared diagonal with a line of their colour over zeros."""
    h, w = g.shape
    main = _unshear(_between_down(_shear(g)), h, w)
    out = np.where(main != 0, main, g)
    flipped = g[:, ::-1]
    anti = _unshear(_between_down(_shear(flipped)), h, w)[:, ::-1]
    return np.where((out == 0) & (anti != 0), anti, out).astype(np.uint8)


@primitive(cost=2, params=tuple((low, a) for low in (True, False) for a in (True, False)), shape="keep")
def elbow(g: Grid, from_low: bool, across_first: bool) -> Grid | None:
    """Join the only two cells (two colours) by an L path of marker colour, from the lower or higher colour."""
    ys, xs = np.nonzero(g)
    if len(ys) != 2 or g[ys[0], xs[0]] == g[ys[1], xs[1]]:
        return None
    a, b = sorted(((int(g[y, x]), int(y), int(x)) for y, x in zip(ys, xs, strict=True)), reverse=not from_low)
    (_, ay, ax), (_, by, bx) = a, b
    corner = (ay, bx) if across_first else (by, ax)
    out = g.copy()
    for (y0, x0), (y1, x1) in (((ay, ax), corner), (corner, (by, bx))):
        out[min(y0, y1):max(y0, y1) + 1, min(x0, x1):max(x0, x1) + 1] = MARKER
    out[ay, ax], out[by, bx] = g[ay, ax], g[by, bx]
    return out


@primitive(cost=2, params=((2,), (3,)), shape="keep")
def fill_empty_squares(g: Grid, k: int) -> Grid | None:
    """Paint marker colour over k x k blocks of zeros, taken in reading order without overlap."""
    h, w = g.shape
    if h < k or w < k:
        return None
    z = np.pad((g == 0).astype(np.int32), ((1, 0), (1, 0))).cumsum(0).cumsum(1)
    full = (z[k:, k:] - z[:-k, k:] - z[k:, :-k] + z[:-k, :-k]) == k * k  # block with top-left (y, x)
    if not full.any():
        return None
    free = (g == 0).tolist()  # plain lists: the greedy pass looks at a few cells per block
    span = range(k)
    ys, xs = np.nonzero(full)
    for y, x in zip(ys.tolist(), xs.tolist(), strict=True):
        rows = free[y:y + k]
        if all(row[x + j] for row in rows for j in span):
            for row in rows:
                row[x:x + k] = [False] * k
    return np.where((g == 0) & ~np.array(free), MARKER, g).astype(np.uint8)


@primitive(cost=1.5, shape="keep")
def flood_rooms(g: Grid) -> Grid | None:
    """Flood each room (walled off by the commonest non-zero colour) holding one other colour with it."""
    counts = np.bincount(g.ravel(), minlength=16)
    counts[0] = 0
    if not counts.any():
        return None
    wall = int(counts.argmax())
    lab, _ = ndimage.label(g != wall)
    out = g.copy()
    for i, region in enumerate(ndimage.find_objects(lab), 1):
        sub, mine = out[region], lab[region] == i
        colours = set(np.unique(sub[mine]).tolist()) - {0}
        if len(colours) == 1:
            sub[mine & (sub == 0)] = colours.pop()
    return out


@primitive(cost=2, shape="keep")
def mirror_at_line(g: Grid) -> Grid | None:
    """Reflect the drawing across the one full one-colour line (row or column), over zeros."""
    for t in (g, g.T):
        lines = [y for y in range(t.shape[0]) if t[y, 0] != 0 and (t[y] == t[y, 0]).all()]
        if len(lines) != 1:
            continue
        r, out = lines[0], t.copy()
        ys, xs = np.nonzero(t)
        keep = (ys != r) & (2 * r - ys >= 0) & (2 * r - ys < t.shape[0])
        my, mx = 2 * r - ys[keep], xs[keep]
        free = out[my, mx] == 0
        out[my[free], mx[free]] = t[ys[keep][free], xs[keep][free]]
        if np.array_equal(out, t):
            return None
        return out if t is g else out.T.copy()
    return None


@primitive(cost=2, shape="keep")
def centre_lines(g: Grid) -> Grid | None:
    """Draw a marker-coloured row and column over zeros through the centre of each object's box."""
    out = g.copy()
    for ys, xs in components(g, True, False):
        if (ys.min() + ys.max()) % 2 or (xs.min() + xs.max()) % 2:
            continue  # an even-sized box has no centre cell
        cy, cx = (ys.min() + ys.max()) // 2, (xs.min() + xs.max()) // 2
        for line in (out[cy], out[:, cx]):
            line[line == 0] = MARKER
    return out


@primitive(cost=1.5, shape="keep")
def frame_objects(g: Grid) -> Grid | None:
    """Draw a marker-coloured rectangle over zeros one cell outside each object's box (8-connected)."""
    comps = components(g, True, False)
    if not comps:
        return None
    h, w = g.shape
    out = g.copy()
    for ys, xs in comps:
        y0, y1, x0, x1 = ys.min() - 1, ys.max() + 1, xs.min() - 1, xs.max() + 1
        ring = np.zeros((h + 2, w + 2), dtype=bool)
        ring[y0 + 1:y1 + 2, x0 + 1:x1 + 2] = True
        ring[y0 + 2:y1 + 1, x0 + 2:x1 + 1] = False
        ring = ring[1:-1, 1:-1]
        out[ring & (out == 0)] = MARKER
    return out


@primitive(cost=1.5, shape="keep")
def outline(g: Grid) -> Grid:
    """Mark the non-zero cells that touch a zero cell or the edge (4-neighbours), clear the inside."""
    p = np.pad(g != 0, 1)
    inner = p[1:-1, 1:-1] & p[:-2, 1:-1] & p[2:, 1:-1] & p[1:-1, :-2] & p[1:-1, 2:]
    return np.where(inner, 0, g).astype(np.uint8)


@primitive(cost=1.5, shape="keep")
def interior(g: Grid) -> Grid | None:
    """Keep only the non-zero cells whose four neighbours are all non-zero (erode by one cell)."""
    p = np.pad(g != 0, 1)
    inner = p[1:-1, 1:-1] & p[:-2, 1:-1] & p[2:, 1:-1] & p[1:-1, :-2] & p[1:-1, 2:]
    return np.where(inner, g, 0).astype(np.uint8) if inner.any() else None


@primitive(cost=1.5, params=((False,), (True,)), shape="keep")
def dilate(g: Grid, diagonal: bool) -> Grid | None:
    """Grow every object by one cell: zero cells take the colour of a non-zero 4- (or 8-) neighbour."""
    h, w = g.shape
    p = np.pad(g, 1)
    out = g.copy()
    steps = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy or dx) and (diagonal or not (dy and dx))]
    for dy, dx in steps:
        near = p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
        free = (out == 0) & (near != 0)
        out[free] = near[free]
    return out


@primitive(cost=1.5, shape="keep")
def border(g: Grid) -> Grid:
    """Mark the outermost ring of cells."""
    out = g.copy()
    out[0, :] = out[-1, :] = MARKER
    out[:, 0] = out[:, -1] = MARKER
    return out


@primitive(cost=2, params=(("down",), ("up",), ("left",), ("right",)), shape="keep")
def slide_objects(g: Grid, direction: str) -> Grid:
    """Move the cells of the least frequent colour as one block until they touch something."""
    return _turned(g, direction, _slide_down)


def _slide_down(g: Grid) -> Grid:
    counts = np.bincount(g.ravel(), minlength=16)
    present = [c for c in range(1, 16) if counts[c]]
    if len(present) < 2:
        return g
    mover = min(present, key=lambda c: (counts[c], c))
    moving = g == mover
    rest = np.where(moving, 0, g)
    h = g.shape[0]
    step = 0
    while True:
        nxt = step + 1
        ys, xs = np.nonzero(moving)
        if (ys + nxt >= h).any() or rest[ys + nxt, xs].any():
            break
        step = nxt
    out = rest.copy()
    ys, xs = np.nonzero(moving)
    out[ys + step, xs] = mover
    return out.astype(np.uint8)


@primitive(cost=2, params="colours", shape="keep")
def slide_to(g: Grid, c: Color) -> Grid | None:
    """Move the cells of colour c as one block straight towards the other cells until they touch."""
    moving = g == c
    rest = np.where(moving, 0, g)
    if c == 0 or not moving.any() or not rest.any():
        return None
    my, mx = np.nonzero(moving)
    ry, rx = np.nonzero(rest)
    if my.max() < ry.min():
        direction = "down"
    elif my.min() > ry.max():
        direction = "up"
    elif mx.max() < rx.min():
        direction = "right"
    elif mx.min() > rx.max():
        direction = "left"
    else:
        return None
    k = _DIRS[direction]
    turned = np.rot90(g, k)
    out = np.rot90(_slide_colour_down(turned, c), -k)
    return np.ascontiguousarray(out)


def _slide_colour_down(g: Grid, c: Color) -> Grid:
    moving = g == c
    rest = np.where(moving, 0, g)
    ys, xs = np.nonzero(moving)
    step = 0
    while ys.max() + step + 1 < g.shape[0] and not rest[ys + step + 1, xs].any():
        step += 1
    out = rest.copy()
    out[ys + step, xs] = c
    return out.astype(np.uint8)


@primitive(cost=2, params=tuple((a, k) for a in ("centre", "colour") for k in (True, False)), shape="keep")
def copy_to_markers(g: Grid, align: str, keep: bool) -> Grid | None:
    """Copy the one multi-cell shape onto each one-cell marker (centred, or by its cell of that colour)."""
    # the original shape stays where it was (keep) or is removed
    comps = components(g, True, False)
    shapes = [c for c in comps if len(c[0]) > 1]
    marks = [c for c in comps if len(c[0]) == 1]
    if len(shapes) != 1 or not marks:
        return None
    ys, xs = shapes[0]
    y0, x0 = int(ys.min()), int(xs.min())
    out = g.copy()
    if not keep:
        out[ys, xs] = 0
    h, w = g.shape
    for (my,), (mx,) in marks:
        if align == "centre":
            bh, bw = int(ys.max()) - y0 + 1, int(xs.max()) - x0 + 1
            if bh % 2 == 0 or bw % 2 == 0:
                return None
            oy, ox = (bh // 2, bw // 2)
        else:
            hits = np.nonzero(g[ys, xs] == g[my, mx])[0]
            if len(hits) != 1:
                return None
            oy, ox = int(ys[hits[0]]) - y0, int(xs[hits[0]]) - x0
        ty, tx = ys - y0 + my - oy, xs - x0 + mx - ox
        ok = (ty >= 0) & (ty < h) & (tx >= 0) & (tx < w)
        out[ty[ok], tx[ok]] = g[ys[ok], xs[ok]]
    return out


@primitive(cost=1.5, params=((True,), (False,)), shape="keep")
def halo(g: Grid, diagonal: bool) -> Grid | None:
    """Mark the zero cells next to any non-zero cell (8- or 4-neighbours): a ring round each object."""
    nz = np.pad(g != 0, 1)
    h, w = g.shape
    steps = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy or dx) and (diagonal or not (dy and dx))]
    near = np.zeros((h, w), dtype=bool)
    for dy, dx in steps:
        near |= nz[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
    ring = near & (g == 0)
    if not ring.any():
        return None
    return np.where(ring, MARKER, g).astype(np.uint8)


def _swap_two(m: Grid) -> Grid:
    """The two non-zero colours of m exchanged (m itself when it has another number of colours)."""
    colours = np.unique(m[m != 0])
    if len(colours) != 2:
        return m
    a, b = colours
    return np.where(m == a, b, np.where(m == b, a, m)).astype(np.uint8)


# how each_object changes an object's box: flips and turns, "invert" (empty box cells take the
# object's colour, its cells empty), "swap" (its two colours exchanged); "fill_box" is in each_object
def _symmetric(m: Grid) -> Grid:
    """m filled from its mirror images (m itself when its cells agree with no symmetry)."""
    filled = mirror_fill(m)
    return m if filled is None else filled


_IN_PLACE = {
    "flip_lr": lambda m: m[:, ::-1],
    "flip_ud": lambda m: m[::-1],
    "rotate180": lambda m: m[::-1, ::-1],
    "transpose": lambda m: m.T if m.shape[0] == m.shape[1] else None,
    "invert": lambda m: np.where(m == 0, np.bincount(m.ravel(), minlength=16)[1:].argmax() + 1, 0).astype(np.uint8),
    "swap": _swap_two,
    "symmetric": _symmetric,
}


@primitive(cost=2, params=tuple((k,) for k in (*_IN_PLACE, "fill_box")), shape="keep")
def each_object(g: Grid, how: str) -> Grid | None:
    """Transform every object (8-connected, any colours) inside its own box, painted back in place."""
    comps = components(g, True, False)
    if not comps:
        return None
    out = g.copy()
    for ys, xs in comps:
        y0, x0 = ys.min(), xs.min()
        crop = np.zeros((ys.max() - y0 + 1, xs.max() - x0 + 1), dtype=np.uint8)
        crop[ys - y0, xs - x0] = g[ys, xs]
        if how == "fill_box":
            colours = np.bincount(g[ys, xs], minlength=MARKER + 6)
            new = np.where(crop == 0, int(np.argmax(colours)), crop).astype(np.uint8)
        else:
            new = _IN_PLACE[how](crop)
            if new is None:
                return None
        box = out[y0:y0 + crop.shape[0], x0:x0 + crop.shape[1]]
        box[crop != 0] = 0
        box[new != 0] = new[new != 0]
    return out


def _towards(ys: np.ndarray, xs: np.ndarray, by: np.ndarray, bx: np.ndarray, diagonal: bool) -> tuple | None:
    """The unit step from one cell set towards another: straight when they face each other, else diagonal."""
    if ys.max() >= by.min() and ys.min() <= by.max():
        return 0, (1 if xs.max() < bx.min() else -1 if xs.min() > bx.max() else 0)
    if xs.max() >= bx.min() and xs.min() <= bx.max():
        return (1 if ys.max() < by.min() else -1 if ys.min() > by.max() else 0), 0
    if not diagonal:
        return None
    return (1 if ys.max() < by.min() else -1), (1 if xs.max() < bx.min() else -1)


def _move_until_contact(out: Grid, ys: np.ndarray, xs: np.ndarray, dy: int, dx: int, trail: bool = False) -> None:
    """Move the cells (ys, xs) of out in steps of (dy, dx) while the next place is empty and inside
    (with `trail`, a copy stays at every place passed: a line drawn up to the contact)."""
    h, w = out.shape
    colours = out[ys, xs].copy()
    if not trail:
        out[ys, xs] = 0
    step = 0
    while True:
        ny, nx = ys + dy * (step + 1), xs + dx * (step + 1)
        if ny.min() < 0 or nx.min() < 0 or ny.max() >= h or nx.max() >= w or out[ny, nx].any():
            break
        step += 1
        if trail:
            out[ny, nx] = colours
    out[ys + dy * step, xs + dx * step] = colours


def _gap(a: tuple, b: tuple) -> float:
    return min(abs(a[0].mean() - b[0].mean()), abs(a[1].mean() - b[1].mean()))


@primitive(cost=2, shape="keep")
def attract(g: Grid) -> Grid | None:
    """Every object moves towards the largest one (straight if it faces it, else diagonally) until it touches."""
    comps = components(g)
    if not 2 <= len(comps) <= 40:
        return None
    sizes = [len(ys) for ys, _ in comps]
    big = int(np.argmax(sizes))
    if sizes.count(sizes[big]) > 1:
        return None
    out = g.copy()
    # the nearest objects first, so that the ones behind them stack up against them
    for k in sorted((k for k in range(len(comps)) if k != big), key=lambda k: _gap(comps[k], comps[big])):
        step = _towards(*comps[k], *comps[big], diagonal=True)
        if step != (0, 0):
            _move_until_contact(out, *comps[k], *step)
    return out


@primitive(cost=2, params="colours", shape="keep")
def attract_to(g: Grid, c: Color) -> Grid | None:
    """Every object of other colours in line with a shape of colour c moves straight to the nearest such one."""
    return _pull_to(g, c, trail=False)


@primitive(cost=2, params="colours", shape="keep")
def trail_to(g: Grid, c: Color) -> Grid | None:
    """Every object of other colours in line with a shape of colour c draws itself straight up to the nearest one."""
    return _pull_to(g, c, trail=True)


def _pull_to(g: Grid, c: Color, trail: bool) -> Grid | None:
    anchors = components(np.where(g == c, g, 0), True, False)
    movers = components(np.where(g == c, 0, g), True, False)
    if not anchors or not movers or len(anchors) * len(movers) > 400:
        return None
    out = g.copy()
    pulls = []
    for m in movers:
        facing = [a for a in anchors if _towards(*m, *a, diagonal=False) not in (None, (0, 0))]
        if facing:
            near = min(facing, key=lambda a: _gap(m, a))
            pulls.append((_gap(m, near), m, _towards(*m, *near, diagonal=False)))
    for _, m, step in sorted(pulls, key=lambda p: p[0]):
        _move_until_contact(out, *m, *step, trail=trail)
    return out


def _corner_box(g: Grid) -> tuple[int, int, int, int, int] | None:
    """(colour, top, left, bottom, right) of the one colour whose four cells are a rectangle's corners."""
    found = None
    for c in np.unique(g):
        ys, xs = np.nonzero(g == c)
        if c == 0 or len(ys) != 4:
            continue
        y0, y1, x0, x1 = ys.min(), ys.max(), xs.min(), xs.max()
        corners = {(y0, x0), (y0, x1), (y1, x0), (y1, x1)}
        if y1 - y0 >= 2 and x1 - x0 >= 2 and set(zip(ys.tolist(), xs.tolist(), strict=True)) == corners:
            if found is not None:
                return None
            found = (int(c), int(y0), int(x0), int(y1), int(x1))
    return found


@primitive(cost=2, shape="keep")
def move_into_corners(g: Grid) -> Grid | None:
    """Move everything else as one block to the middle of the box marked by four corner cells of one colour."""
    box = _corner_box(g)
    if box is None:
        return None
    c, y0, x0, y1, x1 = box
    ys, xs = np.nonzero((g != 0) & (g != c))
    if not len(ys):
        return None
    h, w = ys.max() - ys.min() + 1, xs.max() - xs.min() + 1
    if h > y1 - y0 - 1 or w > x1 - x0 - 1:
        return None
    ty, tx = y0 + 1 + (y1 - y0 - 1 - h) // 2, x0 + 1 + (x1 - x0 - 1 - w) // 2
    out = g.copy()
    out[ys, xs] = 0
    out[ys - ys.min() + ty, xs - xs.min() + tx] = g[ys, xs]
    return out


@primitive(cost=2, shape="keep")
def repeat_lines(g: Grid) -> Grid | None:
    """Two cells start lines across the grid's short side, repeated in turn at their spacing to the far edge."""
    ys, xs = np.nonzero(g)
    if len(ys) != 2:
        return None
    turn = g.shape[0] > g.shape[1]  # work with columns: lines run down, repeat to the right
    if turn:
        g, ys, xs = g.T, xs, ys
    a, b = np.argsort(xs, kind="stable")
    step = xs[b] - xs[a]
    if step == 0:
        return None
    out = np.zeros_like(g)
    colours = (g[ys[a], xs[a]], g[ys[b], xs[b]])
    for k, x in enumerate(range(xs[a], g.shape[1], step)):
        out[:, x] = colours[k % 2]
    return np.ascontiguousarray(out.T if turn else out)


@primitive(cost=2, shape="keep")
def gather_to_lines(g: Grid) -> Grid | None:
    """Each shape moves straight to touch the one line of its own colour; shapes with no such line vanish."""
    lines, rest = [], []
    for ys, xs in components(g, diagonal=False, by_colour=True):
        if len(ys) >= 3 and (ys == ys[0]).all():
            lines.append((g[ys[0], xs[0]], 0, ys[0], ys, xs))
        elif len(ys) >= 3 and (xs == xs[0]).all():
            lines.append((g[ys[0], xs[0]], 1, xs[0], ys, xs))
        else:
            rest.append((ys, xs))
    if not lines or not rest:
        return None
    out = np.zeros_like(g)
    for c, _, _, ys, xs in lines:
        out[ys, xs] = c
    for ys, xs in rest:
        c = g[ys[0], xs[0]]
        mine = [(axis, at) for colour, axis, at, _, _ in lines if colour == c]
        if len(mine) != 1:
            continue
        axis, at = mine[0]
        pos = (ys, xs)[axis]
        shift = at + 1 - pos.min() if pos.min() > at else at - 1 - pos.max() if pos.max() < at else None
        if shift is None:
            return None
        ny, nx = (ys + shift, xs) if axis == 0 else (ys, xs + shift)
        out[ny, nx] = c
    return out


@primitive(cost=2, shape="keep")
def mirror_at_marker(g: Grid) -> Grid | None:
    """A shape of two colours is mirrored onto the side where its rarer colour touches it (that colour goes)."""
    colours = [c for c in np.unique(g) if c]
    if len(colours) != 2:
        return None
    counts = [(g == c).sum() for c in colours]
    if counts[0] == counts[1]:
        return None
    mark, main = (colours[0], colours[1]) if counts[0] < counts[1] else (colours[1], colours[0])
    my, mx = np.nonzero(g == mark)
    sy, sx = np.nonzero(g == main)
    out = np.where(g == mark, 0, g)
    h, w = g.shape
    if mx.min() > sx.max():
        ny, nx = sy, 2 * mx.min() - 1 - sx
    elif mx.max() < sx.min():
        ny, nx = sy, 2 * mx.max() + 1 - sx
    elif my.min() > sy.max():
        ny, nx = 2 * my.min() - 1 - sy, sx
    elif my.max() < sy.min():
        ny, nx = 2 * my.max() + 1 - sy, sx
    else:
        return None
    if ny.min() < 0 or nx.min() < 0 or ny.max() >= h or nx.max() >= w:
        return None
    out[ny, nx] = main
    return out


@primitive(cost=1.5, shape="keep")
def mark_empty_lines(g: Grid) -> Grid | None:
    """Mark every row and every column that is all zeros."""
    rows, cols = ~g.any(axis=1), ~g.any(axis=0)
    if not rows.any() and not cols.any() or rows.all():
        return None
    out = g.copy()
    out[rows] = MARKER
    out[:, cols] = MARKER
    return out


@primitive(cost=1.5, shape="keep")
def fill_open_lines(g: Grid) -> Grid | None:
    """Mark the inside of every row and column that is empty between its two end cells."""
    h, w = g.shape
    if h < 3 or w < 3:
        return None
    rows = ~g[:, 1:-1].any(axis=1)
    cols = ~g[1:-1, :].any(axis=0)
    if not rows.any() and not cols.any():
        return None
    out = g.copy()
    out[rows, 1:-1] = MARKER
    out[1:-1, cols] = MARKER
    return out


@primitive(cost=2, params="colours", shape="keep")
def mark_in_box(g: Grid, c: Color) -> Grid | None:
    """Mark the cells of other non-zero colours inside the bounding box of colour c."""
    ys, xs = np.nonzero(g == c)
    if not len(ys):
        return None
    box = g[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    hit = (box != 0) & (box != c)
    if not hit.any():
        return None
    out = g.copy()
    out[ys.min():ys.max() + 1, xs.min():xs.max() + 1][hit] = MARKER
    return out


def _pattern_besides(g: Grid, c: Color) -> Grid | None:
    """The box of the cells of colours other than 0 and c (the pattern), or None when there are none or it holds c."""
    ys, xs = np.nonzero((g != 0) & (g != c))
    if not len(ys):
        return None
    pattern = g[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    return None if (pattern == c).any() else pattern


@primitive(cost=2, params="colours", shape="keep")
def fill_placeholders(g: Grid, c: Color) -> Grid | None:
    """Every solid block of colour c the size of the pattern (the cells of other colours) becomes a copy of it."""
    pattern = _pattern_besides(g, c)
    if pattern is None:
        return None
    out = g.copy()
    hit = False
    for by, bx in components(np.where(g == c, g, 0), False, False):
        y0, x0 = by.min(), bx.min()
        if (by.max() - y0 + 1, bx.max() - x0 + 1) == pattern.shape and len(by) == pattern.size:
            out[y0:y0 + pattern.shape[0], x0:x0 + pattern.shape[1]] = pattern
            hit = True
    return out if hit else None


def _repeat_rows(g: Grid, out: Grid) -> bool:
    done = False
    for y in range(g.shape[0]):
        xs = np.nonzero(g[y])[0]
        if len(xs) >= 2 and xs[-1] - xs[0] + 1 == len(xs):
            seg = g[y, xs[0]:xs[-1] + 1]
            out[y] = seg[(np.arange(g.shape[1]) - xs[0]) % len(xs)]
            done = True
    return done


@primitive(cost=2, shape="keep")
def repeat_segments(g: Grid) -> Grid | None:
    """Every unbroken run of cells that is alone in its row (or column) repeats along the whole row (or column)."""
    out = g.copy()
    rows = _repeat_rows(g, out)
    cols = _repeat_rows(np.ascontiguousarray(g.T), out.T)
    return out if rows or cols else None


@primitive(cost=2, params="colours", shape="keep")
def flood_from(g: Grid, c: Color) -> Grid | None:
    """Every empty region (4-connected) that touches a cell of colour c is flooded with c."""
    seeds = g == c
    if not seeds.any():
        return None
    lab, _ = ndimage.label(g == 0)
    near = ndimage.binary_dilation(seeds)  # cells beside a seed, sideways or up and down
    hit = np.unique(lab[near & (lab > 0)])
    return np.where(np.isin(lab, hit) & (lab > 0), c, g).astype(np.uint8)


def _repeat_block_down(g: Grid) -> Grid | None:
    rows = np.nonzero(g.any(axis=1))[0]
    if not len(rows):
        return None
    y0, y1 = rows[0], rows[-1] + 1
    block = g[y0:y1]
    return block[(np.arange(g.shape[0]) - y0) % (y1 - y0)]


@primitive(cost=2, params=((False,), (True,)), shape="keep")
def repeat_block(g: Grid, across: bool) -> Grid | None:
    """The band of rows holding all the content repeats up and down the grid (across: the band of columns)."""
    if across:
        out = _repeat_block_down(np.ascontiguousarray(g.T))
        return None if out is None else np.ascontiguousarray(out.T)
    return _repeat_block_down(g)


def _wall_runs(m: np.ndarray) -> list[tuple[int, int, int]]:
    """(row, first, last) of every run of three or more True cells along the rows of m."""
    runs = []
    for y, row in enumerate(m):
        xs = np.nonzero(row)[0]
        if len(xs) < 3:
            continue
        breaks = np.nonzero(np.diff(xs) > 1)[0]
        for a, b in zip(np.r_[0, breaks + 1], np.r_[breaks, len(xs) - 1], strict=True):
            if xs[b] - xs[a] >= 2:
                runs.append((y, int(xs[a]), int(xs[b])))
    return runs


@primitive(cost=2, shape="keep")
def reflect_over_walls(g: Grid) -> Grid | None:
    """Every shape not of the commonest colour is mirrored across the nearest wall line of it that it faces."""
    counts = np.bincount(g.ravel(), minlength=16)
    counts[0] = 0
    wall = int(counts.argmax())
    if not counts[wall]:
        return None
    lines = [(0, *r) for r in _wall_runs(g == wall)] + [(1, *r) for r in _wall_runs((g == wall).T)]
    movers = components(np.where(g == wall, 0, g), True, False)
    if not lines or not movers:
        return None
    out = np.where(g == wall, g, 0)
    h, w = g.shape
    for ys, xs in movers:
        best = None
        for axis, at, lo, hi in lines:
            along, across = (xs, ys) if axis == 0 else (ys, xs)
            if along.min() >= lo and along.max() <= hi and (across.min() > at or across.max() < at):
                gap = min(abs(across.min() - at), abs(across.max() - at))
                if best is None or gap < best[0]:
                    best = (gap, axis, at)
        ny, nx = ys, xs
        if best is not None:
            _, axis, at = best
            ny, nx = (2 * at - ys, xs) if axis == 0 else (ys, 2 * at - xs)
            if ny.min() < 0 or nx.min() < 0 or ny.max() >= h or nx.max() >= w:
                return None
        out[ny, nx] = g[ys, xs]
    return out


def _largest_empty_rect(free: np.ndarray) -> tuple[int, int, int, int, int] | None:
    """(area, top, left, bottom, right) of the largest all-True rectangle, 2 x 2 or more (a stack over
    column heights, row by row; the first found in reading order wins ties)."""
    h, w = free.shape
    heights = np.zeros(w, dtype=int)
    best = None
    for y in range(h):
        heights = np.where(free[y], heights + 1, 0)
        stack: list[int] = []
        for x in range(w + 1):
            cur = heights[x] if x < w else 0
            while stack and heights[stack[-1]] >= cur:
                top = stack.pop()
                left = stack[-1] + 1 if stack else 0
                hh, ww = heights[top], x - left
                if hh >= 2 and ww >= 2 and (best is None or hh * ww > best[0]):
                    best = (int(hh * ww), y - hh + 1, left, y, x - 1)
            stack.append(x)
    return best


@primitive(cost=2, shape="keep")
def mark_empty_rect(g: Grid) -> Grid | None:
    """Mark the largest rectangle of zeros (2 x 2 or more)."""
    best = _largest_empty_rect(g == 0)
    if best is None or best[0] == g.size:
        return None
    _, y0, x0, y1, x1 = best
    out = g.copy()
    out[y0:y1 + 1, x0:x1 + 1] = MARKER
    return out


def _bridge_down(g: Grid, comps: list, shrink: int, out: Grid) -> None:
    for ys, xs in comps:
        for by, bx in comps:
            lo, hi = max(xs.min(), bx.min()) + shrink, min(xs.max(), bx.max()) - shrink
            top, bottom = ys.max() + 1, by.min()
            if lo > hi or bottom <= top or g[ys[0], xs[0]] == g[by[0], bx[0]]:
                continue
            if not g[top:bottom, lo:hi + 1].any():
                out[top:bottom, lo:hi + 1] = MARKER


@primitive(cost=2, params=((0,), (1,)), shape="keep")
def bridge(g: Grid, shrink: int) -> Grid | None:
    """Mark the empty gap between two facing shapes of different colours, over their shared span less shrink."""
    comps = components(g, False, True)
    if not 2 <= len(comps) <= 30:
        return None
    out = g.copy()
    _bridge_down(g, comps, shrink, out)
    _bridge_down(g.T, [(xs, ys) for ys, xs in comps], shrink, out.T)  # the same shapes, transposed
    return out


@primitive(cost=2, shape="keep")
def complete_lines(g: Grid) -> Grid | None:
    """In the box of all shapes, mark the gaps of every row and column that is at least half filled."""
    ys, xs = np.nonzero(g)
    if len(ys) < 4:
        return None
    y0, y1, x0, x1 = ys.min(), ys.max(), xs.min(), xs.max()
    if y1 - y0 < 2 or x1 - x0 < 2:
        return None
    box = g[y0:y1 + 1, x0:x1 + 1]
    full = box != 0
    rows = full.mean(axis=1) >= 0.5
    cols = full.mean(axis=0) >= 0.5
    gaps = ~full & (rows[:, None] | cols[None, :])
    if not gaps.any():
        return g
    out = g.copy()
    out[y0:y1 + 1, x0:x1 + 1][gaps] = MARKER
    return out


@primitive(cost=2, shape="keep")
def sort_bars(g: Grid) -> Grid | None:
    """Stack the one-row bars at the bottom, right-aligned, longest lowest."""
    comps = components(g, False, True)
    if not 2 <= len(comps) <= 30 or any(ys.min() != ys.max() for ys, _ in comps):
        return None
    h, w = g.shape
    if len(comps) > h:
        return None
    bars = sorted(comps, key=lambda c: -len(c[1]))
    out = np.zeros_like(g)
    for i, (ys, xs) in enumerate(bars):
        out[h - 1 - i, w - len(xs):] = g[ys[0], xs[0]]
    return out


@primitive(cost=2, params="colours", shape="keep")
def align_to(g: Grid, c: Color) -> Grid | None:
    """Every other shape slides along its free axis until its top (or left) edge lines up with the shape of colour c."""
    ref = components(np.where(g == c, g, 0), True, False)
    movers = components(np.where(g == c, 0, g), True, False)
    if len(ref) != 1 or not movers or len(movers) > 30:
        return None
    ry, rx = ref[0]
    out = np.where(g == c, g, 0)
    h, w = g.shape
    for ys, xs in movers:
        colours = g[ys, xs]
        if xs.max() < rx.min() or xs.min() > rx.max():
            ys = ys + (ry.min() - ys.min())
        elif ys.max() < ry.min() or ys.min() > ry.max():
            xs = xs + (rx.min() - xs.min())
        if ys.max() >= h or xs.max() >= w:
            return None
        out[ys, xs] = colours
    return out


def _trail_to_bottom(g: Grid, out: Grid) -> None:
    edge = g[-1]
    c = np.bincount(edge).argmax()
    if c == 0 or (edge == c).sum() < 0.5 * len(edge):
        return
    for y, x in zip(*np.nonzero(g[1:-1, 1:-1] == c), strict=True):
        out[y + 1:-1, x + 1] = np.where(out[y + 1:-1, x + 1] == 0, c, out[y + 1:-1, x + 1])


@primitive(cost=2, shape="keep")
def trail_to_edges(g: Grid) -> Grid | None:
    """Every inner cell of an edge line's colour draws a line to that edge."""
    if min(g.shape) < 3:
        return None
    out = g.copy()
    for k in range(4):
        _trail_to_bottom(np.rot90(g, k), np.rot90(out, k))
    return out


@primitive(cost=2, shape="keep")
def rays_away(g: Grid) -> Grid | None:
    """Every tip of a shape of 3+ cells (a cell with one neighbour in it) shoots a ray away from that neighbour."""
    comps = components(g)
    if not comps or len(comps) > 30:
        return None
    h, w = g.shape
    out = g.copy()
    for ys, xs in comps:
        if len(ys) < 3:
            continue
        cells = set(zip(ys.tolist(), xs.tolist(), strict=True))
        for y, x in sorted(cells):
            near = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy or dx) and (y + dy, x + dx) in cells]
            if len(near) != 1:
                continue
            dy, dx = -near[0][0], -near[0][1]
            ny, nx = y + dy, x + dx
            while 0 <= ny < h and 0 <= nx < w and out[ny, nx] == 0:
                out[ny, nx] = g[y, x]
                ny, nx = ny + dy, nx + dx
    return out


@primitive(cost=2, shape="keep")
def continue_rows(g: Grid) -> Grid | None:
    """Every partly filled row becomes the first full row with its colours swapped as the filled cells show."""
    full = np.nonzero(g.all(axis=1))[0]
    if len(full) == 0 or g.shape[1] < 3:
        return None
    template = g[full[0]]
    out = g.copy()
    changed = False
    for y in np.nonzero(g.any(axis=1) & ~g.all(axis=1))[0]:
        known = g[y] != 0
        mapping = {}
        for a, b in zip(template[known].tolist(), g[y][known].tolist(), strict=True):
            if mapping.setdefault(a, b) != b:
                return None
        if set(template.tolist()) - set(mapping):
            return None
        out[y] = [mapping[v] for v in template.tolist()]
        changed = True
    return out if changed else None


@primitive(cost=2, shape="keep")
def match_shapes(g: Grid) -> Grid | None:
    """Shapes of the colour with the most shapes take the colour of an enclosed shape of the same form."""
    comps = components(g, True, True)
    if not 2 <= len(comps) <= 60:
        return None
    colours = [int(g[ys[0], xs[0]]) for ys, xs in comps]
    common = max(set(colours), key=colours.count)
    forms = [((ys - ys.min()).tobytes(), (xs - xs.min()).tobytes()) for ys, xs in comps]
    # an enclosed shape touches no zero cell that reaches the border
    near_outside = ndimage.binary_dilation(np.pad(_outside_zeros(g), 1), np.ones((3, 3), bool))[1:-1, 1:-1]
    templates: dict = {}
    for (ys, xs), form, c in zip(comps, forms, colours, strict=True):
        touches_edge = ys.min() == 0 or xs.min() == 0 or ys.max() == g.shape[0] - 1 or xs.max() == g.shape[1] - 1
        if c != common and not touches_edge and not near_outside[ys, xs].any():
            templates.setdefault(form, set()).add(c)
    out = g.copy()
    for (ys, xs), form, c in zip(comps, forms, colours, strict=True):
        if c == common and len(templates.get(form, ())) == 1:
            out[ys, xs] = next(iter(templates[form]))
    return out


@primitive(cost=2, params="colours", shape="keep")
def replace_shapes(g: Grid, c: Color) -> Grid | None:
    """The pattern (the cells of other colours) moves onto every shape of colour c of its form, leaving its place."""
    pattern = _pattern_besides(g, c)
    if pattern is None:
        return None
    form = pattern != 0
    out = np.where(g == c, g, 0)
    hit = False
    for by, bx in components(out, True, False):
        y0, x0 = by.min(), bx.min()
        if (by.max() - y0 + 1, bx.max() - x0 + 1) == pattern.shape and len(by) == form.sum():
            window = out[y0:y0 + pattern.shape[0], x0:x0 + pattern.shape[1]]
            if np.array_equal(window == c, form):
                window[form] = pattern[form]
                hit = True
    return out if hit else None


@primitive(cost=2, shape="keep")
def project_onto(g: Grid) -> Grid | None:
    """Every single cell in line with the largest shape paints its colour on the shape's nearest cell in that line."""
    comps = components(g, False, True)
    if not 2 <= len(comps) <= 40:
        return None
    big = max(comps, key=lambda c: len(c[0]))
    inside = np.zeros(g.shape, dtype=bool)
    inside[big] = True
    out = g.copy()
    hit = False
    for ys, xs in comps:
        if len(ys) != 1 or inside[ys[0], xs[0]]:
            continue
        y, x = int(ys[0]), int(xs[0])
        row, col = np.nonzero(inside[y])[0], np.nonzero(inside[:, x])[0]
        if len(row):
            out[y, row[0] if row[0] > x else row[-1]] = g[y, x]
            hit = True
        elif len(col):
            out[col[0] if col[0] > y else col[-1], x] = g[y, x]
            hit = True
    return out if hit else g


@primitive(cost=2, shape="keep")
def fill_colour_boxes(g: Grid) -> Grid | None:
    """Every colour with 2+ cells fills the box its cells span (larger boxes first, smaller on top)."""
    boxes = []
    for c in range(1, 10):
        ys, xs = np.nonzero(g == c)
        if len(ys) >= 2:
            area = (ys.max() - ys.min() + 1) * (xs.max() - xs.min() + 1)
            boxes.append((area, c, ys.min(), ys.max(), xs.min(), xs.max()))
    if not boxes:
        return None
    out = g.copy()
    for _, c, y0, y1, x0, x1 in sorted(boxes, reverse=True):
        out[y0:y1 + 1, x0:x1 + 1] = c
    return out


@primitive(cost=2, shape="keep")
def mirror_around(g: Grid) -> Grid | None:
    """Cells of other colours are mirrored across both centre lines of the smallest colour whose cells are symmetric."""
    centres = []
    for c in range(1, 10):
        m = g == c
        if not m.any():
            continue
        ys, xs = np.nonzero(m)
        box = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        if np.array_equal(box, box[::-1]) and np.array_equal(box, box[:, ::-1]):
            centres.append((box.size, c, ys.min() + ys.max(), xs.min() + xs.max()))  # twice the centre
    centres.sort()
    if not centres or len(centres) > 1 and centres[0][0] == centres[1][0]:
        return None
    _, c, cy2, cx2 = centres[0]
    ys, xs = np.nonzero((g != 0) & (g != c))
    if not len(ys):
        return None
    out = g.copy()
    h, w = g.shape
    for my, mx in ((cy2 - ys, xs), (ys, cx2 - xs), (cy2 - ys, cx2 - xs)):
        inside = (my >= 0) & (my < h) & (mx >= 0) & (mx < w)
        ty, tx, sy, sx = my[inside], mx[inside], ys[inside], xs[inside]
        free = out[ty, tx] == 0
        out[ty[free], tx[free]] = g[sy[free], sx[free]]
    return out


@primitive(cost=2.5, shape="keep", first=True)
def lift_objects(g: Grid) -> Grid | None:
    """Every shape moves up by its own height."""
    comps = components(g, False, True)
    if not comps or len(comps) > 30:
        return None
    out = np.zeros_like(g)
    for ys, xs in comps:
        ny = ys - (ys.max() - ys.min() + 1)
        if ny.min() < 0:
            return None
        out[ny, xs] = g[ys, xs]
    return out


@primitive(cost=2, shape="keep")
def shoot_through(g: Grid) -> Grid | None:
    """A shape's one cell of another colour fires a ray of its colour through the shape, over the zeros beyond."""
    comps = components(g)
    if not comps or len(comps) > 30:
        return None
    h, w = g.shape
    out = g.copy()
    hit = False
    for ys, xs in comps:
        colours = g[ys, xs]
        counts = np.bincount(colours)
        odd = np.nonzero(counts == 1)[0]
        if len(odd) != 1 or counts.max() == 1:
            continue
        i = int(np.nonzero(colours == odd[0])[0][0])
        dy, dx = ys.mean() - ys[i], xs.mean() - xs[i]
        step = (int(np.sign(dy)) if abs(dy) >= abs(dx) / 2 else 0, int(np.sign(dx)) if abs(dx) >= abs(dy) / 2 else 0)
        if step == (0, 0):
            continue
        y, x = ys[i] + step[0], xs[i] + step[1]
        while 0 <= y < h and 0 <= x < w:
            if out[y, x] == 0:
                out[y, x] = odd[0]
                hit = True
            y, x = y + step[0], x + step[1]
    return out if hit else g
