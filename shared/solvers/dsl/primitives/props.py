"""Rules learned from the demos per object (recolour, move, ring, draw lines, pick) or enclosed region (fill).

An object here is a connected component of one colour (8- or 4-connected) or of any non-zero
colours (8-connected). A property is a small hashable fact about one object in its scene
(its size, shape, colour, holes, whether it touches the edge, its size rank, ...). The search
fits which property explains the demos (see `dsl.fit`), so a rule reads as a table from
property values to colours, or as "the object whose property is largest / smallest / unique".
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from shared.grids import cached_by_grid, d8
from shared.solvers.dsl.primitives.objects import components
from shared.solvers.dsl.primitives.registry import primitive
from shared.solvers.dsl.types import GRID, GRIDS, Grid, Grids

OBJECT_KINDS = {"colour8": (True, True), "colour4": (False, True), "any8": (True, False)}
KEEP = -1  # in a recolour table: the object keeps its colours


def scene_objects(g: Grid, kind: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The objects of g of the given kind, as (ys, xs) cell arrays in reading order."""
    diagonal, by_colour = OBJECT_KINDS[kind]
    return components(g, diagonal, by_colour)


def _mask(ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    m = np.zeros((ys.max() - ys.min() + 1, xs.max() - xs.min() + 1), dtype=bool)
    m[ys - ys.min(), xs - xs.min()] = True
    return m


def _holes(mask: np.ndarray) -> int:
    """Background regions (4-connected) inside the object's box that do not reach the box edge."""
    regions = components((~mask).astype(np.uint8), False, False)
    h, w = mask.shape
    return sum(1 for ys, xs in regions if ys.min() > 0 and xs.min() > 0 and ys.max() < h - 1 and xs.max() < w - 1)


def _canonical(mask: np.ndarray) -> bytes:
    forms = [np.rot90(m, k) for m in (mask, mask.T) for k in range(4)]
    return min(bytes(f.shape) + f.tobytes() for f in forms)


def _rank(value: int, values: list[int]) -> int:
    """0 for the strict largest, 1 for the strict smallest, 2 otherwise (ties, middles)."""
    big, small = max(values), min(values)
    if big == small:
        return 2
    if value == big and values.count(big) == 1:
        return 0
    if value == small and values.count(small) == 1:
        return 1
    return 2


PROPERTIES = ("colour", "size", "rank", "holes", "border", "shape_d8", "shape", "height", "width",
              "repeats", "colour_size", "solid", "symmetric", "size_order", "path")


def properties(g: Grid, kind: str, prop: str) -> list:
    """One value of `prop` per object of `kind` in g, in the order of `scene_objects`."""
    return list(_cached_properties(g, kind, prop))


@cached_by_grid(8192)
def _cached_properties(g: Grid, kind: str, prop: str) -> tuple:
    """`properties` as a tuple, cached by grid (several object fits read the same state's properties)."""
    return tuple(_properties(g, kind, prop))


def _properties(g: Grid, kind: str, prop: str) -> list:
    objs = scene_objects(g, kind)
    h, w = g.shape
    if prop == "colour":
        return [tuple(sorted(set(g[ys, xs].tolist()))) for ys, xs in objs]
    if prop == "size":
        return [len(ys) for ys, _ in objs]
    if prop == "rank":
        sizes = [len(ys) for ys, _ in objs]
        return [_rank(s, sizes) for s in sizes]
    if prop == "holes":
        return [min(_holes(_mask(ys, xs)), 2) for ys, xs in objs]
    if prop == "border":
        return [bool(ys.min() == 0 or xs.min() == 0 or ys.max() == h - 1 or xs.max() == w - 1) for ys, xs in objs]
    if prop == "shape":
        return [bytes(m.shape) + m.tobytes() for m in (_mask(ys, xs) for ys, xs in objs)]
    if prop == "shape_d8":
        return [_canonical(_mask(ys, xs)) for ys, xs in objs]
    if prop == "height":
        return [int(ys.max() - ys.min() + 1) for ys, _ in objs]
    if prop == "width":
        return [int(xs.max() - xs.min() + 1) for _, xs in objs]
    if prop == "repeats":  # does another object have the same shape (any colour)?
        keys = properties(g, kind, "shape")
        counts = Counter(keys)
        return [counts[k] > 1 for k in keys]
    if prop == "solid":  # fills its box
        return [bool(len(ys) == (ys.max() - ys.min() + 1) * (xs.max() - xs.min() + 1)) for ys, xs in objs]
    if prop == "symmetric":  # its shape is its own mirror image, left-right or up-down
        masks = [_mask(ys, xs) for ys, xs in objs]
        return [bool(np.array_equal(m, m[:, ::-1]) or np.array_equal(m, m[::-1])) for m in masks]
    if prop == "size_order":  # 0 for the largest size, 1 for the next, ... (capped at 4)
        sizes = sorted({len(ys) for ys, _ in objs}, reverse=True)
        return [min(sizes.index(len(ys)), 4) for ys, _ in objs]
    if prop == "path":
        return [_path(ys, xs) for ys, xs in objs]
    if prop == "colour_size":
        return list(zip(properties(g, kind, "colour"), properties(g, kind, "size"), strict=True))
    raise ValueError(f"unknown object property {prop!r}")


def _path(ys: np.ndarray, xs: np.ndarray) -> int | str:
    """How a thin object runs, by each cell's 4-neighbours in it: "branched" (a cell with 3 or more),
    "closed" (no end cell), else a path with this many bends (capped at 3)."""
    m = np.pad(_mask(ys, xs), 1)
    core = m[1:-1, 1:-1]
    up, down, left, right = m[:-2, 1:-1], m[2:, 1:-1], m[1:-1, :-2], m[1:-1, 2:]
    n = up.astype(int) + down + left + right
    if (core & (n >= 3)).any():
        return "branched"
    if not (core & (n == 1)).any():
        return "closed"
    return min(int((core & (n == 2) & ((up | down) & (left | right))).sum()), 3)


def prop_key(value) -> str:
    """A property value as a short printable table key (shapes as hex)."""
    return value.hex() if isinstance(value, bytes) else repr(value)


def _paint(g: Grid, regions: list, values: list, table: dict) -> Grid | None:
    """g with each region's cells ((ys, xs)) painted table[its value] (KEEP: left as they are; "*": the rest);
    None when some value has no entry."""
    out = g.copy()
    for cells, value in zip(regions, values, strict=True):
        colour = table.get(prop_key(value), table.get("*"))
        if colour is None:
            return None
        if colour != KEEP:
            out[cells] = colour
    return out


@primitive(search=False, shape="keep")
def recolor_objects(g: Grid, kind: str, prop: str, table: dict) -> Grid | None:
    """Recolour each object by table[its property] (-1 keeps it; "*" for the rest, else refuse)."""
    return _paint(g, scene_objects(g, kind), properties(g, kind, prop), table)


@primitive(search=False, shape="keep")
def move_objects(g: Grid, kind: str, prop: str, table: dict) -> Grid | None:
    """Move each object by table[its property] ((dy, dx); "*" for the rest, else refuse) onto an empty grid."""
    out = np.zeros_like(g)
    h, w = g.shape
    for (ys, xs), value in zip(scene_objects(g, kind), properties(g, kind, prop), strict=True):
        step = table.get(prop_key(value), table.get("*"))
        if step is None:
            return None
        ny, nx = ys + step[0], xs + step[1]
        inside = (ny >= 0) & (ny < h) & (nx >= 0) & (nx < w)
        out[ny[inside], nx[inside]] = g[ys[inside], xs[inside]]
    return out


def near8(mask: np.ndarray) -> np.ndarray:
    """Where a cell has a True cell among its eight neighbours."""
    p = np.pad(mask, 1)
    h, w = mask.shape
    return np.any([p[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3) if (dy, dx) != (1, 1)], axis=0)


def object_ring(g: Grid, ys: np.ndarray, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The zero cells of g among the eight neighbours of an object's cells, as (ys, xs)."""
    h, w = g.shape
    y0, x0 = max(int(ys.min()) - 1, 0), max(int(xs.min()) - 1, 0)
    y1, x1 = min(int(ys.max()) + 2, h), min(int(xs.max()) + 2, w)
    cells = np.zeros((y1 - y0, x1 - x0), dtype=bool)
    cells[ys - y0, xs - x0] = True
    ry, rx = np.nonzero(near8(cells) & (g[y0:y1, x0:x1] == 0))
    return ry + y0, rx + x0


@primitive(search=False, shape="keep")
def halo_objects(g: Grid, kind: str, prop: str, table: dict) -> Grid | None:
    """Paint the empty cells round each object with table[its property] (-1: none; "*" for the rest, else refuse)."""
    rings = [object_ring(g, ys, xs) for ys, xs in scene_objects(g, kind)]
    return _paint(g, rings, properties(g, kind, prop), table)


def line_cells(shape: tuple, ys: np.ndarray, xs: np.ndarray, direction: str) -> np.ndarray:
    """A mask of the cells from each object cell to the grid's edge in a direction ("u", "d", "l" or "r")."""
    h, w = shape
    along, across, n = (ys, xs, h) if direction in "ud" else (xs, ys, w)
    lanes = np.full(h if direction in "lr" else w, -1)
    if direction in "ul":  # each lane runs from the edge to its farthest object cell
        np.maximum.at(lanes, across, along)
        m = np.arange(n)[None, :] < lanes[:, None]
    else:  # from its nearest object cell to the far edge
        lanes[:] = n
        np.minimum.at(lanes, across, along)
        m = np.arange(n)[None, :] > lanes[:, None]
    return m.T if direction in "ud" else m


@primitive(search=False, shape="keep")
def lines_objects(g: Grid, kind: str, prop: str, table: dict, last: str) -> Grid | None:
    """Draw each object's lines to the edge in its colour, directions ("udlr") by table[its property] ("*": rest)."""
    # lines cross everything but the objects; `last` says which lie on top, the vertical ("v") or horizontal ones
    out = g.copy()
    keep = g != 0
    plan = []
    for (ys, xs), value in zip(scene_objects(g, kind), properties(g, kind, prop), strict=True):
        dirs = table.get(prop_key(value), table.get("*"))
        if dirs is None:
            return None
        plan.append((ys, xs, dirs))
    for top in (False, True):
        for ys, xs, dirs in plan:
            for d in dirs:
                if ((d in "ud") == (last == "v")) == top:
                    out[line_cells(g.shape, ys, xs, d) & ~keep] = g[ys[0], xs[0]]
    return out


ROOM_PROPERTIES = ("all", "size", "height", "width", "size_parity", "height_parity", "width_parity", "solid", "square")


def rooms(g: Grid, diagonal: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """The enclosed regions of g: connected zero regions (8- or 4-connected) that do not reach the edge."""
    h, w = g.shape
    return [(ys, xs) for ys, xs in components((g == 0).astype(np.uint8), diagonal, False)
            if ys.min() > 0 and xs.min() > 0 and ys.max() < h - 1 and xs.max() < w - 1]


def room_properties(g: Grid, diagonal: bool, prop: str) -> list:
    """One value of `prop` (one of ROOM_PROPERTIES; "all" is the same for every room) per room of g."""
    out = []
    for ys, xs in rooms(g, diagonal):
        height, width, size = int(ys.max() - ys.min() + 1), int(xs.max() - xs.min() + 1), len(ys)
        facts = {"all": 0, "size": size, "height": height, "width": width, "size_parity": size % 2,
                 "height_parity": height % 2, "width_parity": width % 2, "solid": size == height * width,
                 "square": size == height * width and height == width}
        if prop not in facts:
            raise ValueError(f"unknown room property {prop!r}")
        out.append(facts[prop])
    return out


@primitive(search=False, shape="keep")
def fill_rooms(g: Grid, diagonal: bool, prop: str, table: dict) -> Grid | None:
    """Fill each enclosed zero region with table[its property] (-1 leaves it; "*" for the rest, else refuse)."""
    return _paint(g, rooms(g, diagonal), room_properties(g, diagonal, prop), table)


MOVE_BY_PROPERTIES = ("size", "height", "width")  # the numeric properties an object may move by
UNITS = {"down": (1, 0), "up": (-1, 0), "left": (0, -1), "right": (0, 1)}


@primitive(search=False, shape="keep")
def move_by(g: Grid, kind: str, prop: str, direction: str) -> Grid | None:
    """Move each object in a direction by as many cells as its property's value (its size, height or width)."""
    dy, dx = UNITS[direction]
    steps = {prop_key(v): (dy * v, dx * v) for v in properties(g, kind, prop)}
    return move_objects(g, kind, prop, steps)


MAX_STAMPED = 30  # objects a per-object stamp is fitted on, per grid


@cached_by_grid(4096)  # a fit reads them again when it checks its stamps
def stamp_anchors(g: Grid, kind: str) -> tuple[tuple, ...] | None:
    """Per object: its box (y0, x0, y1, x1) and its colours ranked by count (ties: the lower colour),
    the roles a stamp names them by; None when there are none, too many, or one spans the grid."""
    out = []
    for ys, xs in scene_objects(g, kind):
        y0, x0, y1, x1 = int(ys.min()), int(xs.min()), int(ys.max()) + 1, int(xs.max()) + 1
        if (y1 - y0, x1 - x0) == g.shape:
            return None
        counts = np.bincount(g[ys, xs], minlength=16)
        ranked = tuple(sorted(np.flatnonzero(counts).tolist(), key=lambda c: (-counts[c], c)))
        out.append(((y0, x0, y1, x1), ranked))
    return tuple(out) if 0 < len(out) <= MAX_STAMPED else None


@primitive(search=False, shape="keep")
def object_stamp(g: Grid, kind: str, margin: int, table: dict) -> Grid | None:
    """Paint table[box size] = ((dy, dx, colour), ...) around each object; colour -r: its r-th commonest."""
    # dy, dx count from the box's top-left corner less the margin, (y0 - margin, x0 - margin)
    anchors = stamp_anchors(g, kind)
    if anchors is None:
        return None
    out = g.copy()
    h, w = g.shape
    for (y0, x0, y1, x1), ranked in anchors:
        marks = table.get((y1 - y0, x1 - x0))
        if marks is None:
            return None
        for dy, dx, colour in marks:
            y, x = y0 - margin + dy, x0 - margin + dx
            if colour < 0:
                if -colour > len(ranked):
                    return None
                colour = ranked[-colour - 1]
            if 0 <= y < h and 0 <= x < w:
                out[y, x] = colour
    return out


def markers_and_templates(g: Grid) -> tuple[list[tuple[int, int, int]], list[Grid]]:
    """g's one-cell objects (y, x, colour) and its larger objects (any colours, 8-connected) cut to their boxes."""
    markers, templates = [], []
    for ys, xs in components(g, True, False):
        if len(ys) == 1:
            markers.append((int(ys[0]), int(xs[0]), int(g[ys[0], xs[0]])))
        else:
            cut = np.zeros((ys.max() - ys.min() + 1, xs.max() - xs.min() + 1), dtype=g.dtype)
            cut[ys - ys.min(), xs - xs.min()] = g[ys, xs]
            templates.append(cut)
    return markers, templates


def template_for(templates: list[Grid], colour: int) -> Grid | None:
    """The one template holding exactly one cell of `colour` (its anchor), or None (none, or several)."""
    found = [t for t in templates if np.count_nonzero(t == colour) == 1]
    return found[0] if len(found) == 1 else None


def place_template(out: Grid, template: Grid, y: int, x: int, colour: int) -> None:
    """Paint template's non-zero cells into out with its `colour` cell on (y, x); cells off the grid are lost."""
    h, w = out.shape
    (ay,), (ax,) = np.nonzero(template == colour)
    ty, tx = np.nonzero(template)
    ny, nx = ty - ay + y, tx - ax + x
    inside = (ny >= 0) & (ny < h) & (nx >= 0) & (nx < w)
    out[ny[inside], nx[inside]] = template[ty[inside], tx[inside]]


@primitive(search=False, shape="keep")
def stamp_templates(g: Grid, table: dict) -> Grid | None:
    """Copy onto each one-cell marker the shape with one cell of its colour, turned by d8 table[colour] (-1: none)."""
    # a marker whose colour some template anchors must have an entry: an unseen colour refuses
    markers, templates = markers_and_templates(g)
    out = g.copy()
    for y, x, colour in markers:
        template = template_for(templates, colour)
        turn = table.get(colour)
        if template is None:
            if turn not in (None, KEEP):
                return None
            continue
        if turn is None:
            return None
        if turn != KEEP:
            place_template(out, d8(template, turn), y, x, colour)
    return out


def choose(values: list, how: str) -> int | None:
    """Index of the one value that is largest, smallest or unique (unique only for unordered ones)."""
    if not values or (how != "unique" and isinstance(values[0], str)):
        return None
    if how == "unique":
        counts = Counter(values)
        odd = [i for i, v in enumerate(values) if counts[v] == 1]
        return odd[0] if len(odd) == 1 and len(values) > 2 else None
    best = max(values) if how == "max" else min(values)
    hits = [i for i, v in enumerate(values) if v == best]
    return hits[0] if len(hits) == 1 else None


SELECT_PROPERTIES = ("size", "height", "width", "holes", "colour", "shape_d8", "border", "colour_count", "ncolours",
                     *(f"cells_{c}" for c in range(1, 10)))


def select_values(g: Grid, kind: str, prop: str) -> list:
    """Property values used to pick an object (orderable for max / min)."""
    if prop == "colour_count":  # how many cells of the object's colour the whole grid has
        counts = np.bincount(g.ravel(), minlength=256)
        return [int(counts[g[ys[0], xs[0]]]) for ys, xs in scene_objects(g, kind)]
    if prop == "ncolours":  # distinct colours in the object
        return [len(np.unique(g[ys, xs])) for ys, xs in scene_objects(g, kind)]
    if prop.startswith("cells_"):  # how many cells of one colour the object has
        c = int(prop[6:])
        return [int((g[ys, xs] == c).sum()) for ys, xs in scene_objects(g, kind)]
    values = properties(g, kind, prop)
    return [prop_key(v) if isinstance(v, bytes | tuple) else int(v) for v in values]


@primitive(search=False)
def select_object(g: Grid, kind: str, prop: str, how: str, box: bool | str) -> Grid | None:
    """The one object whose property is largest, smallest or unique: its cells, its box, or ("colour") its colour."""
    objs = scene_objects(g, kind)
    if len(objs) < 2:
        return None
    i = choose(select_values(g, kind, prop), how)
    if i is None:
        return None
    return _cut(g, objs[i], box)


def _cut(g: Grid, obj: tuple, box: bool | str) -> Grid:
    ys, xs = obj
    if box == "colour":
        return np.full((1, 1), np.bincount(g[ys, xs]).argmax(), dtype=np.uint8)
    y0, x0, y1, x1 = ys.min(), xs.min(), ys.max() + 1, xs.max() + 1
    if box:
        return g[y0:y1, x0:x1].copy()
    out = np.zeros((y1 - y0, x1 - x0), dtype=np.uint8)
    out[ys - y0, xs - x0] = g[ys, xs]
    return out


def cut_objects(g: Grid, kind: str, box: bool) -> list[Grid]:
    """Every object of g cut as `select_object` would cut it: for fitting which one a demo picked."""
    return [_cut(g, obj, box) for obj in scene_objects(g, kind)]


PICK_PROPERTIES = ("cells", "zeros", "ncolours", "pieces", "height", "width", "lr", "ud", "transpose", "rot180",
                   "symmetric", *(f"cells_{c}" for c in range(1, 10)))


def pick_value(part: Grid, prop: str) -> int:
    """An orderable fact about one part: non-zero or zero cells, colours, one-colour pieces, height,
    width, whether it is mirror symmetric (left-right, up-down, about the diagonal, turned 180
    degrees, any of the first three), or its count of one colour."""
    if prop == "cells":
        return int((part != 0).sum())
    if prop == "zeros":
        return int((part == 0).sum())
    if prop == "ncolours":
        return len(set(part.ravel().tolist()) - {0})
    if prop == "pieces":
        return len(components(part, True, True))
    if prop in ("height", "width"):
        return part.shape[prop == "width"]
    if prop.startswith("cells_"):
        return int((part == int(prop[6:])).sum())
    flips = {"lr": part[:, ::-1], "ud": part[::-1], "rot180": part[::-1, ::-1], "transpose": part.T}
    if prop == "symmetric":
        return int(any(np.array_equal(part, flips[k]) for k in ("lr", "ud", "transpose")))
    if prop not in flips:
        raise ValueError(f"unknown pick property {prop!r}")
    return int(np.array_equal(part, flips[prop]))


def pick_index(values: list[int], how: str | int) -> int | None:
    """Index of the one value that is largest, smallest, unique, or equal to `how` when it is a number."""
    if isinstance(how, str):
        return choose(values, how)
    hits = [i for i, v in enumerate(values) if v == how]
    return hits[0] if len(hits) == 1 else None


@primitive(GRIDS, GRID, search=False)
def select_part(parts: Grids, prop: str, how: str | int) -> Grid | None:
    """The one part whose property (`pick_value`) is largest, smallest, unique, or the learned value."""
    if len(parts) < 2:
        return None
    i = pick_index([pick_value(p, prop) for p in parts], how)
    return None if i is None else parts[i].copy()


PART_PROPERTIES = ("count", "colour", "ncolours", "pattern")


def part_value(part: Grid, prop: str):
    """One small fact about a part (a cell of a split grid, an object): the key of a part table."""
    if prop in ("count", "ncolours"):
        return pick_value(part, "cells" if prop == "count" else prop)
    if prop == "colour":
        counts = np.bincount(part.ravel(), minlength=10)
        counts[0] = 0
        return int(np.argmax(counts)) if counts.any() else 0
    if prop == "pattern":
        return bytes(part.shape) + (part != 0).tobytes()
    raise ValueError(f"unknown part property {prop!r}")


@primitive(GRIDS, GRID, search=False)
def part_table(parts: Grids, prop: str, table: dict, shape: tuple, stretch: tuple = (1, 1)) -> Grid | None:
    """One cell per part, coloured table[the part's property], laid out h x w (0: as many as fit), cells stretched."""
    values = [table.get(prop_key(part_value(p, prop))) for p in parts]
    if not parts or None in values:
        return None
    h, w = shape
    h, w = (h or len(parts) // w, w or len(parts) // h)
    if h * w != len(parts):
        return None
    return np.kron(np.array(values, dtype=np.uint8).reshape(h, w), np.ones(stretch, dtype=np.uint8))
