"""What every fit shares: the grid equality test and the limits past which a rule memorises.

A fit looks at what a program computes on each demo (its "values") beside the demo outputs and
returns the argument of one learned primitive, or None; these few pieces keep the families alike.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.types import Grid

MAX_TABLE = 400  # a rule table larger than this memorises rather than explains
MAX_OBJECTS = 60  # per-object rules on scenes of more objects than this are noise, and slow


def same(a: Grid | None, b: Grid) -> bool:
    """True when `a` is a grid equal to `b` in shape and every cell."""
    return a is not None and a.shape == b.shape and bool(np.array_equal(a, b))
