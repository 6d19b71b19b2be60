"""Selection fits: the one object, or the one part of a list, that a property picks as the answer.

`fit_select_object` picks from a grid's objects (a resizing finish: the answer is smaller than
the grid); `fit_select_part` picks from a list state (the parts of a split).
"""

from __future__ import annotations

from shared.solvers.dsl.fit.common import MAX_OBJECTS, same
from shared.solvers.dsl.primitives.props import (
    OBJECT_KINDS,
    PICK_PROPERTIES,
    SELECT_PROPERTIES,
    choose,
    cut_objects,
    pick_index,
    pick_value,
    scene_objects,
    select_values,
)
from shared.solvers.dsl.types import Grid


def fit_select_object(values: list[Grid], outputs: list[Grid]) -> tuple | None:
    """(kind, prop, how, box) when each output is the one object picked by a property extreme or oddity
    (box "colour": a single cell of its commonest colour, for outputs that are one cell)."""
    if all(o.shape == (1, 1) for o in outputs):
        return _select_colour(values, outputs)
    for kind in OBJECT_KINDS:
        scenes = []
        for v, o in zip(values, outputs, strict=True):
            objs = scene_objects(v, kind)
            # only objects whose box has the output's shape can be it
            fits = [i for i, (ys, xs) in enumerate(objs)
                    if (ys.max() - ys.min() + 1, xs.max() - xs.min() + 1) == o.shape]
            if not fits or len(objs) > MAX_OBJECTS:
                break
            scenes.append(fits)
        else:
            for box in (False, True):
                targets = []
                for v, o, fits in zip(values, outputs, scenes, strict=True):
                    cuts = cut_objects(v, kind, box)
                    hits = [i for i in fits if same(cuts[i], o)]
                    if not hits:
                        break
                    targets.append(hits)
                else:
                    for prop in SELECT_PROPERTIES:
                        for how in ("max", "min", "unique"):
                            if all(choose(select_values(v, kind, prop), how) in hits
                                   for v, hits in zip(values, targets, strict=True)):
                                return kind, prop, how, box
    return None


def _select_colour(values: list[Grid], outputs: list[Grid]) -> tuple | None:
    for kind in OBJECT_KINDS:
        scenes = [scene_objects(v, kind) for v in values]
        if any(not 2 <= len(objs) <= MAX_OBJECTS for objs in scenes):
            continue
        colours = [[int(cell[0, 0]) for cell in cut_objects(v, kind, "colour")] for v in values]
        for prop in SELECT_PROPERTIES:
            scores = [select_values(v, kind, prop) for v in values]
            for how in ("max", "min", "unique"):
                picks = [choose(vals, how) for vals in scores]
                if all(i is not None and cs[i] == o[0, 0] for i, cs, o in zip(picks, colours, outputs, strict=True)):
                    return kind, prop, how, "colour"
    return None


def fit_select_part(values: list, outputs: list[Grid], tests: list) -> tuple | None:
    """(prop, how) when every demo output is the part that a property picks: its largest, smallest
    or unique value, or one value every demo picked by; and it picks one part of every test."""
    if any(len(parts) < 2 for parts in values + tests):
        return None
    right = []
    for parts, o in zip(values, outputs, strict=True):
        hits = {i for i, p in enumerate(parts) if same(p, o)}
        if not hits:
            return None
        right.append(hits)
    for prop in PICK_PROPERTIES:
        table = [[pick_value(p, prop) for p in parts] for parts in values]
        test_table = [[pick_value(p, prop) for p in parts] for parts in tests]
        picked = {table[k][min(hits)] for k, hits in enumerate(right)}
        for how in ("max", "min", "unique", *([picked.pop()] if len(picked) == 1 else [])):
            if all(pick_index(vals, how) in hits for vals, hits in zip(table, right, strict=True)) and \
                    all(pick_index(vals, how) is not None for vals in test_table):
                return prop, how
    return None
