"""Ray primitives: rays from cells and shapes, in a direction, to the edge, round or through what they meet.

Background is colour 0. A primitive that does not apply to its input returns None. Every
primitive here is a compiled kernel (`kernel=True`): a direction arrives as its index in
`registry.WORDS` (DOWN, UP, LEFT, RIGHT), a boolean as 0 / 1, and "does not apply" is `empty()`.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.jit import njit
from shared.solvers.dsl.primitives.kernels import (
    argmax_count,
    biggest_object,
    counts,
    empty,
    label,
    label_boxes,
    object_cells,
    swap_zero,
    two_colours,
)
from shared.solvers.dsl.primitives.registry import DOWN, LEFT, RIGHT, UP, ColoursWith, primitive
from shared.solvers.dsl.types import MARKER, Color, Grid

_DIRECTIONS = (("down",), ("up",), ("left",), ("right",))


@njit
def _step(direction, diagonal):
    """The unit step (dy, dx) of a ray in a direction; diagonal: down-right turned like "down" is."""
    if diagonal:
        if direction == DOWN:
            return 1, 1
        if direction == LEFT:
            return 1, -1
        if direction == UP:
            return -1, -1
        return -1, 1
    if direction == DOWN:
        return 1, 0
    if direction == LEFT:
        return 0, -1
    if direction == UP:
        return -1, 0
    return 0, 1


@njit
def carry(g, dy, dx):
    """For each cell, the colour of the nearest non-zero cell at or behind it along (dy, dx) (0: none)
    and how many steps back it lies."""
    h, w = g.shape
    col = np.zeros((h, w), dtype=np.uint8)
    dist = np.zeros((h, w), dtype=np.int64)
    for i in range(h):
        y = i if dy >= 0 else h - 1 - i
        for j in range(w):
            x = j if dx >= 0 else w - 1 - j
            if g[y, x] != 0:
                col[y, x] = g[y, x]
                continue
            py = y - dy
            px = x - dx
            if 0 <= py < h and 0 <= px < w and col[py, px] != 0:
                col[y, x] = col[py, px]
                dist[y, x] = dist[py, px] + 1
    return col, dist


@njit
def _any(g):
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            if g[y, x] != 0:
                return True
    return False


@primitive(cost=2, params=_DIRECTIONS, shape="keep", kernel=True)
def rays(g: Grid, direction: str) -> Grid:
    """Extend every non-zero cell in a direction over zero cells (each cell's colour wins)."""
    dy, dx = _step(direction, False)
    col, _ = carry(g, dy, dx)
    return col


@primitive(cost=2, params=tuple((d, right) for d in ("down", "up", "left", "right") for right in (True, False)),
           shape="keep", kernel=True)
def sidestep_rays(g: Grid, direction: str, right: bool) -> Grid | None:
    """Rays from the cells on the edge behind a direction, stepping one cell aside (right or left) at each obstacle."""
    # a ray about to meet a non-zero cell steps one cell to its right as it travels (or its left) and goes on;
    # it stops where it cannot step aside
    dy, dx = _step(direction, False)
    sy, sx = (dx, -dy) if right else (-dx, dy)  # the traveller's right of (dy, dx) is (dx, -dy)
    h, w = g.shape
    n = w if dy != 0 else h
    out = g.copy()
    turned = False
    for i in range(n):
        if dy != 0:
            y, x = (h - 1 if dy < 0 else 0), i
        else:
            y, x = i, (w - 1 if dx < 0 else 0)
        c = g[y, x]
        if c == 0:
            continue
        steps = 0
        while steps < h * w:
            steps += 1
            ny, nx = y + dy, x + dx
            if not (0 <= ny < h and 0 <= nx < w):
                break
            if g[ny, nx] != 0:  # step aside, if the cell there is free
                ay, ax = y + sy, x + sx
                if not (0 <= ay < h and 0 <= ax < w) or g[ay, ax] != 0:
                    break
                y, x = ay, ax
                turned = True
            else:
                y, x = ny, nx
            if out[y, x] == 0:
                out[y, x] = c
    if not turned:
        return empty()  # plain rays are `rays`
    return out


@primitive(cost=2, params=_DIRECTIONS, shape="keep", kernel=True)
def marked_rays(g: Grid, direction: str) -> Grid | None:
    """Mark the zero cells that a ray from some non-zero cell in a direction passes over."""
    if not _any(g):
        return empty()
    dy, dx = _step(direction, False)
    col, _ = carry(g, dy, dx)
    out = g.copy()
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            if g[y, x] == 0 and col[y, x] != 0:
                out[y, x] = MARKER
    return out


@primitive(cost=2, params=_DIRECTIONS, shape="keep", kernel=True)
def dotted_rays(g: Grid, direction: str) -> Grid | None:
    """Extend every non-zero cell in a direction over zeros, every other cell of the ray marked."""
    if not _any(g):
        return empty()
    dy, dx = _step(direction, False)
    col, dist = carry(g, dy, dx)
    out = col.copy()
    h, w = g.shape
    for y in range(h):
        for x in range(w):
            if g[y, x] == 0 and col[y, x] != 0 and dist[y, x] % 2 == 1:
                out[y, x] = MARKER
    return out


@primitive(cost=2, params=((False,), (True,)), shape="keep", kernel=True)
def star(g: Grid, diagonal: bool) -> Grid:
    """Extend every non-zero cell over zeros in all four straight (or all four diagonal) directions."""
    return _star(g, diagonal)


@primitive(cost=2.5, shape="keep", kernel=True)
def star_on_major(g: Grid) -> Grid:
    """Extend every cell not of the grid's commonest colour (0 counted) over that colour in four directions."""
    # `star` on a grid whose background is another colour (`star` itself where it is 0)
    m = argmax_count(counts(g))
    if m == 0:
        return _star(g, False)
    return swap_zero(_star(swap_zero(g, m), False), m)


@njit
def _star(g, diagonal):
    out = g.copy()
    h, w = g.shape
    for direction in (DOWN, LEFT, UP, RIGHT):  # the earlier direction wins a cell
        dy, dx = _step(direction, diagonal != 0)
        col, _ = carry(g, dy, dx)
        for y in range(h):
            for x in range(w):
                if out[y, x] == 0:
                    out[y, x] = col[y, x]
    return out


@primitive(cost=3, params=_DIRECTIONS, shape="keep", kernel=True)
def diagonal_rays(g: Grid, direction: str) -> Grid:
    """Extend every non-zero cell diagonally (down-right turned by the direction) over zeros."""
    dy, dx = _step(direction, True)
    col, _ = carry(g, dy, dx)
    return col


@njit
def _in_order(box, h, w):
    """The component numbers in `components`' order: by the box's top-left corner, then the first cell."""
    n = box.shape[0] - 1
    keys = np.empty(n, dtype=np.int64)
    for i in range(1, n + 1):
        keys[i - 1] = ((box[i, 0] * w + box[i, 1]) * h + box[i, 5]) * w + box[i, 6]
    return np.argsort(keys) + 1


@njit
def _shapes(g, by_colour):
    """The shapes (8-connected; of one colour with `by_colour`) for the ray kernels: labels, boxes (see
    `label_boxes`) and the shape numbers in `_in_order`; none (an empty order) past 30 shapes."""
    labels, n = label(g, True, by_colour)
    box = label_boxes(labels, n)
    if n > 30:
        return labels, box, np.empty(0, dtype=np.int64)
    return labels, box, _in_order(box, g.shape[0], g.shape[1])


@primitive(cost=2, shape="keep", kernel=True)
def trail_to_edges(g: Grid) -> Grid | None:
    """Every inner cell of an edge line's colour draws a line to that edge."""
    h, w = g.shape
    if min(h, w) < 3:
        return empty()
    out = g.copy()
    tally = np.zeros(256, dtype=np.int64)
    for side in range(4):  # bottom, left, top, right: an earlier edge's line wins a cell
        tally[:] = 0
        n = w if side % 2 == 0 else h
        for i in range(n):
            if side == 0:
                tally[g[h - 1, i]] += 1
            elif side == 1:
                tally[g[i, 0]] += 1
            elif side == 2:
                tally[g[0, i]] += 1
            else:
                tally[g[i, w - 1]] += 1
        c = np.argmax(tally)
        if c == 0 or 2 * tally[c] < n:
            continue
        for y in range(1, h - 1):
            for x in range(1, w - 1):
                if g[y, x] != c:
                    continue
                if side == 0:
                    for k in range(y, h - 1):
                        if out[k, x] == 0:
                            out[k, x] = c
                elif side == 1:
                    for k in range(1, x + 1):
                        if out[y, k] == 0:
                            out[y, k] = c
                elif side == 2:
                    for k in range(1, y + 1):
                        if out[k, x] == 0:
                            out[k, x] = c
                else:
                    for k in range(x, w - 1):
                        if out[y, k] == 0:
                            out[y, k] = c
    return out


@primitive(cost=2, shape="keep", kernel=True)
def rays_away(g: Grid) -> Grid | None:
    """Every tip of a shape of 3+ cells (a cell with one neighbour in it) shoots a ray away from that neighbour."""
    labels, box, order = _shapes(g, False)
    if order.size == 0:
        return empty()
    h, w = g.shape
    out = g.copy()
    for i in order:  # the order matters: a ray stops at an earlier one
        if box[i, 4] < 3:
            continue
        for y in range(box[i, 0], box[i, 2] + 1):
            for x in range(box[i, 1], box[i, 3] + 1):
                if labels[y, x] != i:
                    continue
                near, ny0, nx0 = 0, 0, 0  # a non-zero 8-neighbour is in the same shape
                for dy in range(-1, 2):
                    for dx in range(-1, 2):
                        if (dy or dx) and 0 <= y + dy < h and 0 <= x + dx < w and g[y + dy, x + dx] != 0:
                            near += 1
                            ny0, nx0 = dy, dx
                if near != 1:
                    continue
                ny, nx = y - ny0, x - nx0
                while 0 <= ny < h and 0 <= nx < w and out[ny, nx] == 0:
                    out[ny, nx] = g[y, x]
                    ny, nx = ny - ny0, nx - nx0
    return out


@njit
def _corner_ray(out, labels, box, i, corner, filled, c):
    """A diagonal ray over zeros, outward from one corner of shape i's box (0-3: top-left, top-right,
    bottom-left, bottom-right), where that corner is a cell of the shape (`filled`) or is not, in
    colour c (-1: the corner cell's own); whether it painted a cell."""
    h, w = out.shape
    cy = box[i, 0] if corner < 2 else box[i, 2]
    cx = box[i, 1] if corner % 2 == 0 else box[i, 3]
    if (labels[cy, cx] == i) != filled:
        return False
    if c < 0:
        c = out[cy, cx]
    dy = -1 if corner < 2 else 1
    dx = -1 if corner % 2 == 0 else 1
    y, x = cy + dy, cx + dx
    hit = False
    while 0 <= y < h and 0 <= x < w and out[y, x] == 0:
        out[y, x] = c
        hit = True
        y, x = y + dy, x + dx
    return hit


@primitive(cost=2, params=((False,), (True,)), shape="keep", kernel=True)
def corner_rays(g: Grid, notch: bool) -> Grid | None:
    """Shapes of 2+ cells shoot diagonal rays outward from the box corners they fill (`notch`: leave empty)."""
    labels, box, order = _shapes(g, False)
    if order.size == 0:
        return empty()
    out = g.copy()
    hit = False
    for i in order:  # the order matters: a ray stops at an earlier one
        if box[i, 4] < 2:
            continue
        colour = g[box[i, 5], box[i, 6]] if notch else -1
        for corner in range(4):
            hit |= _corner_ray(out, labels, box, i, corner, not notch, colour)
    return out if hit else empty()


@primitive(cost=2, params=ColoursWith(((0,), (1,), (2,), (3,))), shape="keep", kernel=True)
def colour_corner_rays(g: Grid, c: Color, corner: int) -> Grid | None:
    """Shapes of colour c shoot a diagonal ray from a filled box corner (0-3: top-left, -right, bottom-left, -right)."""
    labels, box, order = _shapes(g, True)
    out = g.copy()
    hit = False
    for i in order:  # the order matters: a ray stops at an earlier one
        if g[box[i, 5], box[i, 6]] == c:
            hit |= _corner_ray(out, labels, box, i, corner, True, -1)
    return out if hit else empty()


@primitive(cost=2, shape="keep", kernel=True)
def frame_rays(g: Grid) -> Grid | None:
    """A shape whose box holds another shoots diagonal rays from the box corners it fills, in the held one's colour."""
    labels, box, order = _shapes(g, True)
    if order.size == 0:
        return empty()
    out = g.copy()
    hit = False
    for i in order:
        held = -1
        for j in order:
            if j != i and box[i, 0] <= box[j, 0] and box[j, 2] <= box[i, 2] and box[i, 1] <= box[j, 1] \
                    and box[j, 3] <= box[i, 3]:
                held = g[box[j, 5], box[j, 6]]
        if held < 0:
            continue
        for corner in range(4):
            hit |= _corner_ray(out, labels, box, i, corner, True, held)
    return out if hit else empty()


@njit
def _bounce(g, through):
    """`bounce_rays`, where cells of colour `through` are no wall: a ray crosses them and paints them."""
    labels, box, order = _shapes(g, True)
    if order.size == 0:
        return empty()
    h, w = g.shape
    out = g.copy()
    hit = False
    for i in order:
        k = box[i, 4]
        if k < 2 or box[i, 2] - box[i, 0] + 1 != k or box[i, 3] - box[i, 1] + 1 != k:
            continue  # not k cells on one diagonal of a k x k box
        y0, x0 = box[i, 5], box[i, 6]  # the first cell: the top end
        sx = 1 if x0 == box[i, 1] else -1  # the line runs down-right, or down-left
        if labels[y0 + k - 1, x0 + sx * (k - 1)] != i:
            continue
        for end in range(2):
            y, x = (y0, x0) if end == 0 else (y0 + k - 1, x0 + sx * (k - 1))
            dy, dx = (-1, -sx) if end == 0 else (1, sx)
            for _ in range(4 * (h + w)):  # a ray caught between walls stops in time
                ny, nx = y + dy, x + dx
                if not (0 <= ny < h and 0 <= nx < w):
                    break
                if g[ny, nx] != 0 and g[ny, nx] != through:  # a wall: turn off it (a ray crosses rays)
                    wy = g[ny, x] != 0 and g[ny, x] != through
                    wx = g[y, nx] != 0 and g[y, nx] != through
                    if wy == wx:
                        break  # head on into a corner or a lone cell: no way to turn
                    if wy:
                        dy = -dy
                    else:
                        dx = -dx
                    ny, nx = y + dy, x + dx
                    if not (0 <= ny < h and 0 <= nx < w) or (g[ny, nx] != 0 and g[ny, nx] != through):
                        break
                out[ny, nx] = MARKER
                hit = True
                y, x = ny, nx
    return out if hit else empty()


@primitive(cost=2, shape="keep", kernel=True)
def bounce_rays(g: Grid) -> Grid | None:
    """Diagonal lines of one colour go on from both ends in the marker colour, turning off walls, to the grid's edge."""
    return _bounce(g, -1)


@primitive(cost=2, shape="keep", kernel=True)
def shoot_through(g: Grid) -> Grid | None:
    """A shape's one cell of another colour fires a ray of its colour through the shape, over the zeros beyond."""
    labels, box, order = _shapes(g, False)
    if order.size == 0:
        return empty()
    h, w = g.shape
    out = g.copy()
    hit = False
    tally = np.zeros(256, dtype=np.int64)
    for i in order:  # the order matters: a later ray paints only what is still 0
        tally[:] = 0
        sy, sx = 0, 0
        for y in range(box[i, 0], box[i, 2] + 1):
            for x in range(box[i, 1], box[i, 3] + 1):
                if labels[y, x] == i:
                    tally[g[y, x]] += 1
                    sy += y
                    sx += x
        odd, ones, most = 0, 0, 0
        for c in range(256):
            if tally[c] == 1:
                odd = c
                ones += 1
            most = max(most, tally[c])
        if ones != 1 or most == 1:
            continue
        oy, ox = 0, 0
        for y in range(box[i, 0], box[i, 2] + 1):
            for x in range(box[i, 1], box[i, 3] + 1):
                if labels[y, x] == i and g[y, x] == odd:
                    oy, ox = y, x
        dy, dx = sy / box[i, 4] - oy, sx / box[i, 4] - ox
        sdy = 0 if abs(dy) < abs(dx) / 2 else (1 if dy > 0 else -1 if dy < 0 else 0)
        sdx = 0 if abs(dx) < abs(dy) / 2 else (1 if dx > 0 else -1 if dx < 0 else 0)
        if sdy == 0 and sdx == 0:
            continue
        y, x = oy + sdy, ox + sdx
        while 0 <= y < h and 0 <= x < w:
            if out[y, x] == 0:
                out[y, x] = odd
                hit = True
            y, x = y + sdy, x + sdx
    return out if hit else g.copy()


@njit
def _edge_of(g, c):
    """The one edge holding every cell of colour c (0 top, 1 bottom, 2 left, 3 right; the first
    such when a lone corner cell lies on two), or -1."""
    h, w = g.shape
    ok = np.ones(4, dtype=np.bool_)
    any_cell = False
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                any_cell = True
                ok[0] &= y == 0
                ok[1] &= y == h - 1
                ok[2] &= x == 0
                ok[3] &= x == w - 1
    if any_cell:
        for e in range(4):
            if ok[e]:
                return e
    return -1


@njit
def _inward(e):
    """The unit step (dy, dx) from edge e (0 top, 1 bottom, 2 left, 3 right) into the grid."""
    if e == 0:
        return 1, 0
    if e == 1:
        return -1, 0
    return (0, 1) if e == 2 else (0, -1)


@primitive(cost=2, params=((True,), (False,)), shape="keep", kernel=True)
def jog_rays(g: Grid, low: bool) -> Grid | None:
    """Rays from one colour's edge cells cross the grid, stepping away from the other colour's edge at its lines."""
    # the ray colour (the lower of the two colours, or the higher) lines one edge, the marker colour
    # an edge across it; at the line of each marker the rays jog one cell away from the markers' edge
    h, w = g.shape
    a, b = two_colours(counts(g))
    if a == 0:
        return empty()
    ray, mark = (a, b) if low else (b, a)
    e, f = _edge_of(g, ray), _edge_of(g, mark)
    if e < 0 or f < 0 or (e < 2) == (f < 2):
        return empty()
    dy, dx = _inward(e)
    sy, sx = _inward(f)  # away from the markers
    out = g.copy()
    drawn = False
    for y in range(h):
        for x in range(w):
            if g[y, x] != ray:
                continue
            cy, cx = y + dy, x + dx
            while 0 <= cy < h and 0 <= cx < w:
                # a marker on this line (its row when the rays run down or up, else its column)
                marked = g[cy, 0 if f == 2 else w - 1] == mark if dy != 0 else g[0 if f == 0 else h - 1, cx] == mark
                if marked:
                    cy, cx = cy + sy, cx + sx
                    if not (0 <= cy < h and 0 <= cx < w):
                        break
                if g[cy, cx] == 0:
                    out[cy, cx] = ray
                    drawn = True
                cy, cx = cy + dy, cx + dx
    return out if drawn else empty()


@primitive(cost=2.5, params="colours", shape="keep", kernel=True)
def bounce_rays_past(g: Grid, c: Color) -> Grid | None:
    """`bounce_rays`, but the rays cross the cells of colour c (painting them) instead of turning off them."""
    return _bounce(g, c)


@njit
def _open_side(g, labels, i, y0, x0, y1, x1):
    """(side, a, b) for object i in its box: the one side of the box (0 top, 1 bottom, 2 left, 3 right)
    with empty cells, which run unbroken from a to b (inclusive, along the side) short of its ends;
    side -1 when no side or several sides are open, or a gap is broken or reaches a corner."""
    side, a, b = -1, -1, -1
    for s in range(4):
        m = x1 - x0 + 1 if s < 2 else y1 - y0 + 1
        first, last, gaps = -1, -1, 0
        for k in range(m):
            y = (y0 if s == 0 else y1) if s < 2 else y0 + k
            x = x0 + k if s < 2 else (x0 if s == 2 else x1)
            if g[y, x] == 0:
                if first < 0:
                    first = k
                last = k
                gaps += 1
            elif labels[y, x] != i:
                return -1, -1, -1
        if gaps == 0:
            continue
        if side >= 0 or first == 0 or last == m - 1 or gaps != last - first + 1:
            return -1, -1, -1
        side, a, b = s, first, last
    return side, a, b


@njit
def _cups(g, by_colour):
    """(labels, cups): the objects (`label`, 8-connected) open on exactly one side of their box (see _open_side),
    one row each: label, top, left, bottom, right, side, a, b."""
    labels, n = label(g, True, by_colour)
    box = label_boxes(labels, n)
    cups = np.zeros((n, 8), dtype=np.int64)
    m = 0
    for i in range(1, n + 1):
        y0, x0, y1, x1 = box[i, 0], box[i, 1], box[i, 2], box[i, 3]
        if y1 - y0 < 2 or x1 - x0 < 2:
            continue
        side, a, b = _open_side(g, labels, i, y0, x0, y1, x1)
        if side >= 0:
            cups[m, 0], cups[m, 1], cups[m, 2], cups[m, 3], cups[m, 4] = i, y0, x0, y1, x1
            cups[m, 5], cups[m, 6], cups[m, 7] = side, a, b
            m += 1
    return labels, cups[:m]


@njit
def _fill_zeros(out, g, y0, x0, y1, x1, colour):
    """Paint colour on the zero cells of g in rows y0..y1 and columns x0..x1 (inclusive; clipped to the grid)."""
    h, w = g.shape
    for y in range(max(y0, 0), min(y1, h - 1) + 1):
        for x in range(max(x0, 0), min(x1, w - 1) + 1):
            if g[y, x] == 0:
                out[y, x] = colour


@primitive(cost=2, params=((True,), (False,)), shape="keep", kernel=True)
def cup_beam(g: Grid, spread: bool) -> Grid | None:
    """A cup open on one side fills (a marker) and shines out of its gap (`spread`: a diagonal ray at each end too)."""
    h, w = g.shape
    _, cups = _cups(g, False)
    out = g.copy()
    for j in range(cups.shape[0]):
        y0, x0, y1, x1, side, a, b = cups[j, 1], cups[j, 2], cups[j, 3], cups[j, 4], cups[j, 5], cups[j, 6], cups[j, 7]
        _fill_zeros(out, g, y0, x0, y1, x1, MARKER)
        iy, ix = _inward(side)
        dy, dx = -iy, -ix  # out of the cup
        ay, ax = (0, 1) if side < 2 else (1, 0)  # along the open side
        sy = (y0 if side == 0 else y1) if side < 2 else y0
        sx = x0 if side < 2 else (x0 if side == 2 else x1)
        for k in range(a, b + 1):
            y, x = sy + ay * k + dy, sx + ax * k + dx
            while 0 <= y < h and 0 <= x < w and g[y, x] == 0:
                out[y, x] = MARKER
                y, x = y + dy, x + dx
        for k, ey, ex in ((a, dy - ay, dx - ax), (b, dy + ay, dx + ax)):
            y, x = sy + ay * k + ey, sx + ax * k + ex
            while spread and 0 <= y < h and 0 <= x < w and g[y, x] == 0:
                out[y, x] = MARKER
                y, x = y + ey, x + ex
    return out if cups.shape[0] else empty()


@primitive(cost=2, params=((True,), (False,)), shape="keep", kernel=True)
def cup_fill_seed(g: Grid, lid: bool) -> Grid | None:
    """A cup open on one side fills with the one other colour it holds (`lid`: so does the line past its open side)."""
    labels, cups = _cups(g, True)
    out = g.copy()
    filled = False
    for j in range(cups.shape[0]):
        i, y0, x0, y1, x1, side = cups[j, 0], cups[j, 1], cups[j, 2], cups[j, 3], cups[j, 4], cups[j, 5]
        seed = 0
        for y in range(y0 + 1, y1):
            for x in range(x0 + 1, x1):
                v = g[y, x]
                if v != 0 and labels[y, x] != i:
                    if seed != 0 and v != seed:
                        return empty()
                    seed = v
        if seed == 0:
            continue
        _fill_zeros(out, g, y0, x0, y1, x1, seed)
        if lid:  # the box's open side, moved one cell out of the cup
            iy, ix = _inward(side)
            _fill_zeros(out, g, (y0 if side != 1 else y1) - iy, (x0 if side != 3 else x1) - ix,
                        (y1 if side != 0 else y0) - iy, (x1 if side != 2 else x0) - ix, seed)
        filled = True
    return out if filled else empty()


@primitive(cost=2, shape="keep", kernel=True)
def marks_under(g: Grid) -> Grid | None:
    """Under each one-colour arch (odd width, open at its bottom middle), a marker on the bottom row below it."""
    h, w = g.shape
    labels, n = label(g, True, True)
    if n == 0:
        return empty()
    box = label_boxes(labels, n)
    out = g.copy()
    for i in range(1, n + 1):
        left, bottom, right = box[i, 1], box[i, 2], box[i, 3]
        if (right - left) % 2 or bottom >= h - 1:
            return empty()
        x = (left + right) // 2
        if g[bottom, x] != 0:
            return empty()
        for y in range(bottom + 1, h):
            if g[y, x] != 0:
                return empty()
        out[h - 1, x] = MARKER
    return out


@primitive(cost=2, shape="keep", kernel=True)
def shelter_columns(g: Grid) -> Grid | None:
    """Under the biggest object, each column holding a cell of the other colour below it fills down to the edge."""
    # two colours: the biggest object (8-connected, one colour) is the shelter, the other colour falls
    # beneath it; a column fills from just under the shelter's lowest cell in it
    a, b = two_colours(counts(g))
    if a == 0:
        return empty()
    n, start, cells = object_cells(g, True, True)
    big = biggest_object(start, n)
    if big < 0:
        return empty()
    h, w = g.shape
    first = cells[start[big]]
    d = b if g[first // w, first % w] == a else a
    low = np.full(w, -1, dtype=np.int64)
    for k in range(start[big], start[big + 1]):
        low[cells[k] % w] = max(low[cells[k] % w], cells[k] // w)
    out = g.copy()
    hit = False
    for x in range(w):
        if low[x] < 0:
            continue
        y = low[x] + 1
        while y < h and g[y, x] != d:
            y += 1
        if y == h:
            continue  # no cell of the other colour below the shelter in this column
        for y in range(low[x] + 1, h):
            if out[y, x] == 0:
                out[y, x] = d
                hit = True
    return out if hit else empty()


@njit
def _segment_ends(g, c):
    """(y0, x0, y1, x1, horizontal) of the cells of colour c when they form one straight run of two or
    more cells; y0 = -1 when they do not."""
    h, w = g.shape
    y0, x0, y1, x1, n = h, w, -1, -1, 0
    for y in range(h):
        for x in range(w):
            if g[y, x] == c:
                y0, x0, y1, x1, n = min(y0, y), min(x0, x), max(y1, y), max(x1, x), n + 1
    if n < 2 or (y0 != y1 and x0 != x1) or n != (y1 - y0) + (x1 - x0) + 1:
        return -1, 0, 0, 0, False
    return y0, x0, y1, x1, y0 == y1


@primitive(cost=2, params="colours", shape="keep", kernel=True)
def branching_ray(g: Grid, c: Color) -> Grid | None:
    """A straight run of colour c goes on from both ends; where a ray meets a wall it splits both ways across."""
    # a ray stops at the grid's edge; one that meets a wall on its first step ends there; the cells
    # of colour c are no wall
    y0, x0, y1, x1, horizontal = _segment_ends(g, c)
    if y0 < 0 or c == 0:
        return empty()
    h, w = g.shape
    out = g.copy()
    seen = np.zeros((h, w, 4), dtype=np.bool_)
    # y, x, dy, dx; each (cell, direction) starts a ray once and pushes at most two: the stack never overflows
    stack = np.zeros((8 * h * w + 2, 4), dtype=np.int64)
    if horizontal:
        stack[0] = (y0, x0, 0, -1)
        stack[1] = (y1, x1, 0, 1)
    else:
        stack[0] = (y0, x0, -1, 0)
        stack[1] = (y1, x1, 1, 0)
    top, hit = 2, False
    while top > 0:
        top -= 1
        y, x, dy, dx = stack[top]
        d = dy + 1 if dy else dx + 2  # 0 up, 1 left, 2 down, 3 right
        if seen[y, x, d]:
            continue
        seen[y, x, d] = True
        moved = False
        while True:
            ny, nx = y + dy, x + dx
            if ny < 0 or ny >= h or nx < 0 or nx >= w:
                break
            if g[ny, nx] != 0 and g[ny, nx] != c:
                if moved:  # split across
                    stack[top] = (y, x, dx, dy)
                    stack[top + 1] = (y, x, -dx, -dy)
                    top += 2
                break
            if out[ny, nx] == 0:
                out[ny, nx] = c
                hit = True
            y, x, moved = ny, nx, True
    return out if hit else empty()
