"""Every grid primitive of the DSL, by family, and the registry the search reads.

`from shared.solvers.dsl.primitives import *` gives a printed program all it needs: the
primitive functions by name, plus `np`.
"""

import numpy as np

from shared.solvers.dsl.primitives import (
    cellrule,
    colour,
    completion,
    drawing,
    geometry,
    learned,
    objects,
    parts,
    props,
)
from shared.solvers.dsl.primitives.registry import PRIMITIVES, Op, Primitive, primitive, search_ops

for _name, _prim in PRIMITIVES.items():
    globals()[_name] = _prim.fn

__all__ = ["np", "PRIMITIVES", "Op", "Primitive", "primitive", "search_ops", *PRIMITIVES]
_FAMILIES = (cellrule, colour, completion, drawing, geometry, learned, objects, parts, props)
