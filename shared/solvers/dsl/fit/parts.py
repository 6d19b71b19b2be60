"""Part fits on a list state: the parts painted over each other in a learned order, or one output cell per part.

`fit_overlay_order` finds the order that stacks 3 or 4 equal-sized parts into the output;
`fit_part_table` colours one output cell per part by a property of that part.
"""

from __future__ import annotations

from itertools import permutations

from shared.solvers.dsl.fit.common import same
from shared.solvers.dsl.primitives.parts import overlay_order
from shared.solvers.dsl.primitives.props import PART_PROPERTIES, part_value, prop_key
from shared.solvers.dsl.types import Grid


def fit_part_table(values: list, outputs: list[Grid], tests: list) -> tuple | None:
    """(prop, table, shape) that gives each demo output one cell per part, coloured by a property
    of the part, when some property value recurs and every test part's value was seen. Outputs
    whose rows (or columns) are each one colour, one per part, are fitted as a column (row) of
    cells stretched to their width (height): (prop, table, shape, stretch)."""
    stretch = (1, 1)
    if not all(len(v) == o.size for v, o in zip(values, outputs, strict=True)):
        wide = {o.shape[1] for o in outputs}
        tall = {o.shape[0] for o in outputs}
        pairs = list(zip(values, outputs, strict=True))
        if len(wide) == 1 and all(len(v) == o.shape[0] and (o == o[:, :1]).all() for v, o in pairs):
            stretch, outputs = (1, wide.pop()), [o[:, :1] for o in outputs]
        elif len(tall) == 1 and all(len(v) == o.shape[1] and (o == o[:1]).all() for v, o in pairs):
            stretch, outputs = (tall.pop(), 1), [o[:1] for o in outputs]
        else:
            return None
    shapes = {o.shape for o in outputs}
    if len(shapes) == 1:
        shape = next(iter(shapes))
    elif all(o.shape[1] == 1 for o in outputs):
        shape = (0, 1)
    elif all(o.shape[0] == 1 for o in outputs):
        shape = (1, 0)
    else:
        return None
    if 0 not in shape and any(len(t) != shape[0] * shape[1] for t in tests):
        return None
    n = sum(len(v) for v in values)
    for prop in PART_PROPERTIES:
        table: dict = {}
        if all(table.setdefault(prop_key(part_value(p, prop)), c) == c
               for v, o in zip(values, outputs, strict=True) for p, c in zip(v, o.ravel().tolist(), strict=True)):
            covered = all(prop_key(part_value(p, prop)) in table for t in tests for p in t)
            if covered and len(table) < n:
                return (prop, table, shape) if stretch == (1, 1) else (prop, table, shape, stretch)
    return None


def fit_overlay_order(values: list, outputs: list[Grid]) -> tuple | None:
    """The painting order of 3 or 4 parts (2 are searched both ways) that gives every demo output."""
    n = len(values[0])
    if not 3 <= n <= 4 or any(len(v) != n or any(p.shape != o.shape for p in v)
                               for v, o in zip(values, outputs, strict=True)):
        return None
    for order in permutations(range(n)):
        if all(same(overlay_order(v, order), o) for v, o in zip(values, outputs, strict=True)):
            return order
    return None
