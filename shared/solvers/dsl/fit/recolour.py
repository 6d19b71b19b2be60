"""Recolour fits: one colour map for the whole grid, or a colour (or a move) per object by one of its properties.

`fit_recolor` is the cheapest finish of a right-sized state, and also the optional second step
after a resizing layout (its values are the built grids). `fit_recolor_objects` learns a table
property value -> colour (or KEEP) over the objects of one kind, refusing tables that memorise;
`fit_move_objects` likewise learns property value -> the step (dy, dx) each object moves by (`fit_move_by`:
a direction each object moves in by its size, height or width), and
`fit_halo_objects` property value -> the colour of the ring of empty cells round each object, and
`fit_lines_objects` property value -> the directions of the lines drawn from each object to the edge;
`fit_fill_rooms` learns a fill colour per enclosed empty region (a room) by one of the room's properties.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from shared.solvers.dsl.fit.common import MAX_OBJECTS
from shared.solvers.dsl.primitives.props import (
    KEEP,
    MOVE_BY_PROPERTIES,
    OBJECT_KINDS,
    PROPERTIES,
    ROOM_PROPERTIES,
    UNITS,
    fill_rooms,
    halo_objects,
    line_cells,
    lines_objects,
    move_by,
    move_objects,
    near8,
    object_ring,
    prop_key,
    properties,
    room_properties,
    rooms,
    scene_objects,
)
from shared.solvers.dsl.types import MARKER, Grid


def fit_recolor(values: list[Grid], outputs: list[Grid], tests: list[Grid]) -> dict | None:
    """The colour map that turns each value into its output, or None if none exists."""
    mapping: dict[int, int] = {}
    for v, o in zip(values, outputs, strict=True):
        pairs = np.unique(v.astype(np.int16) * 16 + o, return_counts=False)
        for p in pairs.tolist():
            a, b = divmod(p, 16)
            if mapping.setdefault(a, b) != b:
                return None
    for t in tests:
        for c in np.unique(t).tolist():
            if c not in mapping and c >= MARKER:
                return None
    # identity entries add nothing to the printed map
    return {a: b for a, b in mapping.items() if a != b}


def _object_explanations(values: list[Grid], outputs: list[Grid], kind: str) -> list | None:
    """Per demo, per object: the table values that would explain its output cells (None: no rule can)."""
    out = []
    for v, o in zip(values, outputs, strict=True):
        per = []
        for ys, xs in scene_objects(v, kind):
            before, after = v[ys, xs], o[ys, xs]
            ok = set()
            if np.array_equal(before, after):
                ok.add(KEEP)
                if (before == before[0]).all():
                    ok.add(int(before[0]))
            elif (after == after[0]).all():
                ok.add(int(after[0]))
            if not ok:
                return None
            per.append(ok)
        out.append(per)
    return out


def fit_recolor_objects(values: list[Grid], outputs: list[Grid], tests: list[Grid], limit: int = 2) -> list[tuple]:
    """(kind, prop, table) rules recolouring each object by one property that explain every demo.

    Background cells must stay as they are, some object must change, every test object's property
    must have been seen in the demos, and some property value must cover two objects or more (a
    table with one entry per object memorises rather than explains). Simplest properties first.
    """
    if any(v.shape != o.shape or (o[v == 0] != 0).any() for v, o in zip(values, outputs, strict=True)):
        return []
    if all(np.array_equal(v, o) for v, o in zip(values, outputs, strict=True)):
        return []
    found = []
    for kind in OBJECT_KINDS:
        explained = _object_explanations(values, outputs, kind)
        if explained is None:
            continue
        if max(len(per) for per in explained) > MAX_OBJECTS:
            continue
        for prop in PROPERTIES:
            table = _property_table(values, explained, tests, _reader(kind, prop),
                                    lambda ok: KEEP if KEEP in ok else min(ok), KEEP)
            if table is None:
                continue
            found.append((kind, prop, table))
            if len(found) == limit:
                return found
            break  # the simplest property for this kind of object; another kind may give a second
    return found


def _property_table(values: list[Grid], per_object: list[list[set]], tests: list[Grid], read, choose,
                    neutral) -> dict | None:
    """Property value (`read(grid)` gives one per object) -> one of the options every object with that value
    allows (`choose` picks it), or None: when some value allows none, when the table would hold an entry
    per object (memorising), when every entry is `neutral` (nothing changes), or when a test object's
    value is unseen and no default covers it (`_with_default`)."""
    options: dict[str, set] = {}
    for v, per in zip(values, per_object, strict=True):
        for value, ok in zip(read(v), per, strict=True):
            k = prop_key(value)
            options[k] = options[k] & ok if k in options else set(ok)
    if not options or any(not ok for ok in options.values()) or len(options) >= sum(map(len, per_object)):
        return None
    table = {k: choose(ok) for k, ok in options.items()}
    if all(c == neutral for c in table.values()):
        return None
    if any(prop_key(value) not in table for t in tests for value in read(t)):
        return _with_default(table)
    return table


def _reader(kind: str, prop: str):
    """A grid -> its objects' values of one property, as `_property_table` reads them."""
    return lambda g: properties(g, kind, prop)


def _with_default(table: dict) -> dict | None:
    """A table where one value is the exception and 3+ others agree: that agreement becomes "*"."""
    counts = Counter(table.values())
    if len(counts) != 2:
        return None
    (common, n), (_, m) = counts.most_common()
    if m != 1 or n < 3:
        return None
    return {**{k: c for k, c in table.items() if c != common}, "*": common}


def _object_steps(v: Grid, o: Grid, objs: list) -> list[set] | None:
    """Per object of v: the steps (dy, dx) that put its cells, colours and all, on cells of o that hold
    them (None when some object has none)."""
    h, w = v.shape
    per = []
    for ys, xs in objs:
        colours = v[ys, xs]
        ty, tx = np.nonzero(o == colours[0])  # where its first cell can land
        steps = set()
        for dy, dx in zip((ty - ys[0]).tolist(), (tx - xs[0]).tolist(), strict=True):
            ny, nx = ys + dy, xs + dx
            if ny.min() >= 0 and nx.min() >= 0 and ny.max() < h and nx.max() < w and \
                    np.array_equal(o[ny, nx], colours):
                steps.add((dy, dx))
        if not steps:
            return None
        per.append(steps)
    return per


def fit_move_objects(values: list[Grid], outputs: list[Grid], tests: list[Grid], limit: int = 1) -> list[tuple]:
    """(kind, prop, table) rules moving each object by a step (dy, dx) chosen by one property, onto an
    empty grid, that explain every demo: as `fit_recolor_objects`, some object must move, a test
    object's property must have been seen, and the table must hold fewer entries than there are objects."""
    if all(np.array_equal(v, o) for v, o in zip(values, outputs, strict=True)):
        return []
    if any(v.shape != o.shape or np.count_nonzero(v) != np.count_nonzero(o)
           for v, o in zip(values, outputs, strict=True)):
        return []
    found = []
    for kind in OBJECT_KINDS:
        objs = [scene_objects(v, kind) for v in values]
        if not all(objs) or max(len(per) for per in objs) > MAX_OBJECTS:
            continue
        steps = []
        for v, o, per in zip(values, outputs, objs, strict=True):
            s = _object_steps(v, o, per)
            if s is None:
                break
            steps.append(s)
        else:
            # the shortest step of each value (the lowest of equals)
            rule = _simplest_rule(values, outputs, tests, kind, steps,
                                  lambda ok: min(ok, key=lambda d: (abs(d[0]) + abs(d[1]), d)), (0, 0), move_objects)
            if rule is not None:
                found.append(rule)
                if len(found) == limit:
                    return found
    return found


def _simplest_rule(values: list[Grid], outputs: list[Grid], tests: list[Grid], kind: str, options: list, choose,
                   neutral, apply) -> tuple | None:
    """(kind, prop, table) for the first property in PROPERTIES whose `_property_table` over the objects' options
    turns every demo into its output through apply(grid, kind, prop, table); None when none does."""
    for prop in PROPERTIES:
        table = _property_table(values, options, tests, _reader(kind, prop), choose, neutral)
        if table is not None and all(np.array_equal(apply(v, kind, prop, table), o)
                                     for v, o in zip(values, outputs, strict=True)):
            return kind, prop, table
    return None


_ANY_COLOUR = frozenset(range(1, 10)) | {KEEP}  # an object with no empty cell round it allows any entry


def _ring_options(v: Grid, o: Grid, objs: list) -> list[set]:
    """Per object of v: {c, KEEP} when o paints its whole ring colour c, else {KEEP} (others may paint part of it)."""
    per = []
    for ys, xs in objs:
        ring = o[object_ring(v, ys, xs)]
        if not ring.size:
            per.append(set(_ANY_COLOUR))
        elif ring[0] != 0 and (ring == ring[0]).all():
            per.append({int(ring[0]), KEEP})
        else:
            per.append({KEEP})
    return per


def fit_halo_objects(values: list[Grid], outputs: list[Grid], tests: list[Grid], limit: int = 2) -> list[tuple]:
    """(kind, prop, table) rules painting the empty cells round each object (its eight neighbours) a colour
    chosen by one property, that explain every demo; the tables refuse as `fit_recolor_objects`'s do.
    Kinds of object may read the same demos differently (a diagonal pair is one object or two), so up to
    `limit` kinds each give their simplest rule."""
    if any(v.shape != o.shape or (v[v != 0] != o[v != 0]).any() for v, o in zip(values, outputs, strict=True)):
        return []
    if all(np.array_equal(v, o) for v, o in zip(values, outputs, strict=True)):
        return []
    if any((o != v).any() and not near8(v != 0)[o != v].all() for v, o in zip(values, outputs, strict=True)):
        return []  # a changed cell no object touches
    found = []
    for kind in OBJECT_KINDS:
        objs = [scene_objects(v, kind) for v in values]
        if not all(objs) or max(len(per) for per in objs) > MAX_OBJECTS:
            continue
        options = [_ring_options(v, o, per) for v, o, per in zip(values, outputs, objs, strict=True)]
        rule = _simplest_rule(values, outputs, tests, kind, options,
                              lambda ok: min(ok - {KEEP}) if ok - {KEEP} else KEEP, KEEP, halo_objects)
        if rule is not None:
            found.append(rule)
            if len(found) == limit:
                return found
    return found


def _in_lines(v: Grid, o: Grid) -> bool:
    """Whether o keeps every non-zero cell of v and changes only cells in a row or a column of one."""
    set_ = v != 0
    if (o[set_] != v[set_]).any():
        return False
    ys, xs = np.nonzero(o != v)
    return bool((set_.any(axis=1)[ys] | set_.any(axis=0)[xs]).all())


def _line_evidence(v: Grid, o: Grid, objs: list) -> list[tuple[set, set]]:
    """Per object of v: the directions whose line o shows (some cell of it in the object's colour) and those it
    allows (every cell on it that v leaves empty is set in o)."""
    per = []
    for ys, xs in objs:
        colour = v[ys[0], xs[0]]
        shown, allowed = set(), set()
        for d in "udlr":
            cells = o[line_cells(v.shape, ys, xs, d) & (v == 0)]
            if (cells != 0).all():
                allowed.add(d)
                if (cells == colour).any():
                    shown.add(d)
        per.append((shown, allowed))
    return per


def fit_lines_objects(values: list[Grid], outputs: list[Grid], tests: list[Grid]) -> list[tuple]:
    """(kind, prop, table, last) rules drawing lines from each object to the edge, their directions chosen by
    one property, that explain every demo. A value's directions are every line some object with it shows, and
    each of them must be allowed for all such objects (lines cross, so one may hide part of another); a test
    object's value must have been seen, and the table must hold fewer entries than there are objects."""
    if any(v.shape != o.shape or not _in_lines(v, o) for v, o in zip(values, outputs, strict=True)):
        return []
    if all(np.array_equal(v, o) for v, o in zip(values, outputs, strict=True)):
        return []
    for kind in ("colour8", "colour4"):
        objs = [scene_objects(v, kind) for v in values]
        if not all(objs) or max(len(per) for per in objs) > MAX_OBJECTS:
            continue
        evidence = [_line_evidence(v, o, per) for v, o, per in zip(values, outputs, objs, strict=True)]
        if not any(shown for per in evidence for shown, _ in per):
            continue
        for prop in PROPERTIES:
            shown: dict[str, set] = {}
            allowed: dict[str, set] = {}
            for v, per in zip(values, evidence, strict=True):
                for value, (s, a) in zip(properties(v, kind, prop), per, strict=True):
                    k = prop_key(value)
                    shown.setdefault(k, set()).update(s)
                    allowed[k] = allowed[k] & a if k in allowed else set(a)
            if not any(shown.values()) or any(not shown[k] <= allowed[k] for k in shown) or \
                    len(shown) >= sum(map(len, evidence)):
                continue
            table = {k: "".join(d for d in "udlr" if d in s) for k, s in shown.items()}
            if any(prop_key(value) not in table for t in tests for value in properties(t, kind, prop)):
                continue
            for last in ("v", "h"):
                if all(np.array_equal(lines_objects(v, kind, prop, table, last), o)
                       for v, o in zip(values, outputs, strict=True)):
                    return [(kind, prop, table, last)]
    return []


def fit_fill_rooms(values: list[Grid], outputs: list[Grid], tests: list[Grid]) -> list[tuple]:
    """(diagonal, prop, table) rules filling each enclosed empty region of the input with one colour (or none)
    chosen by one of its properties, that explain every demo; the tables refuse as `fit_recolor_objects`'s
    do, save that one colour for every room ("all") is allowed whenever two rooms or more share it."""
    if any(v.shape != o.shape or ((v != 0) & (o != v)).any() for v, o in zip(values, outputs, strict=True)):
        return []
    if all(np.array_equal(v, o) for v, o in zip(values, outputs, strict=True)):
        return []
    for diagonal in (False, True):
        options = []
        for v, o in zip(values, outputs, strict=True):
            filled = [o[ys, xs] for ys, xs in rooms(v, diagonal)]
            if any((f != f[0]).any() for f in filled):
                break
            options.append([{KEEP} if f[0] == 0 else {int(f[0])} for f in filled])
        else:
            for prop in ROOM_PROPERTIES:
                table = _property_table(values, options, tests,
                                        lambda g, d=diagonal, p=prop: room_properties(g, d, p), min, KEEP)
                if table is not None and all(np.array_equal(fill_rooms(v, diagonal, prop, table), o)
                                             for v, o in zip(values, outputs, strict=True)):
                    return [(diagonal, prop, table)]
    return []


def _lands(v: Grid, o: Grid, obj: tuple, dy: int, dx: int) -> bool:
    """Whether some cell of the object, moved by (dy, dx), lands inside on a cell of o with its colour."""
    ys, xs = obj
    ny, nx = ys + dy, xs + dx
    inside = (ny >= 0) & (ny < o.shape[0]) & (nx >= 0) & (nx < o.shape[1])
    return bool((o[ny[inside], nx[inside]] == v[ys[inside], xs[inside]]).any())


def fit_move_by(values: list[Grid], outputs: list[Grid], tests: list[Grid]) -> list[tuple]:
    """(kind, prop, direction) rules moving each object in one direction by its size, height or width, onto an
    empty grid, that explain every demo where objects move different distances (else a step table is simpler)."""
    if any(v.shape != o.shape or np.count_nonzero(o) > np.count_nonzero(v)  # cells may leave or cover others
           for v, o in zip(values, outputs, strict=True)):
        return []
    if all(np.array_equal(v, o) for v, o in zip(values, outputs, strict=True)):
        return []
    for kind in OBJECT_KINDS:
        objs = [scene_objects(v, kind) for v in values]
        if not all(objs) or max(len(per) for per in objs) > MAX_OBJECTS:
            continue
        for prop in MOVE_BY_PROPERTIES:
            amounts = [properties(v, kind, prop) for v in values]
            if len({a for per in amounts for a in per}) < 2:
                continue
            for direction, (dy, dx) in UNITS.items():
                # a cheap test first: some cell of each object lands on its colour (a later one may cover the rest)
                if all(_lands(v, o, obj, dy * a, dx * a) for v, o, per, amount in zip(values, outputs, objs, amounts,
                                                                                      strict=True)
                       for obj, a in zip(per, amount, strict=True)) and \
                        all(np.array_equal(move_by(v, kind, prop, direction), o)
                            for v, o in zip(values, outputs, strict=True)):
                    return [(kind, prop, direction)]
    return []
