"""Fitting learned arguments from the demos, one module per family of learned last steps.

Given what a program computes on each demo input (its values) beside the demo outputs, a fit
finds the argument of one learned primitive that turns every value into its output exactly, and
refuses (None, or an empty list) when the test inputs would need something the demos never showed.

- `recolour`: a colour map for the whole grid; a colour, move, ring or lines per object (a fill per enclosed
  region) by one property
- `rules`: local rules (a table over a neighbourhood) and cell rules (a table over a few cell features)
- `tree`: the cell tree, a last-resort cell rule grown as a decision tree
- `stamps`: marks around cells of a colour, or around objects by their box size; shapes copied onto markers
- `select`: the object, or the part of a list, that a property picks
- `parts`: parts painted in a learned order; one output cell per part by a property
- `layouts`: block layouts, pattern continuation, fixed windows, padding, whole-grid lookups, panel fills
- `common`: the grid equality test and shared limits

Which fit the search tries on which state, in what order, at what cost, is `dsl.fitters`.
"""

from shared.solvers.dsl.fit.layouts import fit_arrange, fit_crop, fit_extend, fit_lookup, fit_pad, fit_panels
from shared.solvers.dsl.fit.parts import fit_overlay_order, fit_part_table
from shared.solvers.dsl.fit.recolour import (
    fit_fill_rooms,
    fit_halo_objects,
    fit_lines_objects,
    fit_move_by,
    fit_move_objects,
    fit_recolor,
    fit_recolor_objects,
)
from shared.solvers.dsl.fit.rules import fit_cell_rule, fit_local_rule, local_rule_kinds
from shared.solvers.dsl.fit.select import fit_select_object, fit_select_part
from shared.solvers.dsl.fit.stamps import fit_object_stamp, fit_stamp, fit_stamp_templates, fit_trail_stamp
from shared.solvers.dsl.fit.tree import fit_cell_tree

__all__ = [
    "fit_arrange", "fit_cell_rule", "fit_cell_tree", "fit_crop", "fit_extend", "fit_fill_rooms", "fit_halo_objects",
    "fit_lines_objects", "fit_local_rule", "fit_lookup", "fit_move_by", "fit_move_objects", "fit_object_stamp",
    "fit_overlay_order", "fit_pad", "fit_panels", "fit_part_table", "fit_recolor", "fit_recolor_objects",
    "fit_select_object", "fit_select_part", "fit_stamp", "fit_stamp_templates", "fit_trail_stamp", "local_rule_kinds",
]
