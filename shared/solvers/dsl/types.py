"""Type aliases and small value types shared by the DSL's primitives, search and printing.

A search value holds one item per example (every demo input, then every test input): either
a Grid or a tuple of Grids (objects, cells of a split). Colours above 9 are markers that only
a learned recolouring at the end of a program may turn back into real colours.
"""

from __future__ import annotations

import numpy as np

Grid = np.ndarray          # 2-d uint8, colours 0-9 (10+ = markers inside a program)
Grids = tuple              # tuple[Grid, ...]: objects, cells or parts, in a defined order
Color = int

GRID = "grid"
GRIDS = "grids"
MARKER = 10                # first marker colour: painted by primitives, resolved by a recolour

MAX_SIDE = 60              # intermediate grids may exceed 30 (tiling) but never this
MAX_PARTS = 40             # a list of objects/cells longer than this is not worth searching
