"""Every registered DSL primitive has its own worked example here; a meta-test enforces it."""

from __future__ import annotations

import numpy as np
import pytest

from shared.solvers.dsl.primitives import PRIMITIVES
from shared.solvers.dsl.primitives.learned import FEATURE_KINDS, features
from shared.solvers.dsl.types import MARKER as M


def G(*rows):
    return np.array(rows, dtype=np.uint8)


A = G([1, 2, 0], [0, 3, 0])          # 2x3, asymmetric
SQ = G([1, 2], [3, 4])
SCENE = G([0, 0, 0, 0, 0, 0],
          [0, 5, 5, 0, 0, 0],
          [0, 5, 5, 0, 2, 0],
          [0, 0, 0, 0, 0, 0],
          [0, 0, 3, 3, 3, 0],
          [0, 0, 0, 3, 0, 0])
TWO = G([4, 4, 0, 1, 4, 0, 0], [0, 0, 4, 1, 0, 4, 0])  # split by a column of 1s into two 2x3 halves
LEFT, RIGHT = G([4, 4, 0], [0, 0, 4]), G([4, 0, 0], [0, 4, 0])
RING = G([2, 2, 2, 0], [2, 0, 2, 0], [2, 2, 2, 0])
PARTS = (G([1, 0], [1, 1]), G([0, 2], [0, 0]))
OBJS = (G([1, 1], [1, 1]), G([2]), G([3, 3]), G([2]))

# name -> list of (input, extra args, expected output; None means "does not apply")
CASES = {
    "dotted_rays": [(G([0, 3, 0, 0, 0], [0, 0, 0, 0, 0]), ("right",), G([0, 3, M, 3, M], [0, 0, 0, 0, 0])),
                    (np.zeros((2, 2), np.uint8), ("up",), None)],
    "shoot_through": [(G([0, 0, 0, 0, 0], [0, 2, 2, 1, 0]), (), G([0, 0, 0, 0, 0], [1, 2, 2, 1, 0])),
                      (G([0, 2, 2, 0]), (), G([0, 2, 2, 0])), (np.zeros((2, 2), np.uint8), (), None)],
    "lift_objects": [(G([0, 0, 0], [0, 0, 0], [0, 0, 2], [3, 0, 2]), (), G([0, 0, 2], [0, 0, 2], [3, 0, 0], [0, 0, 0])),
                     (A, (), None)],
    "key_paint": [((G([1, 2]), G([5, 0, 5, 5], [5, 5, 0, 5])), (), G([1, 0, 2, 2], [1, 1, 0, 2])),
                  ((G([1, 0]), G([5, 0, 5, 5], [5, 5, 0, 5])), (), None)],
    "gather_at": [(G([1, 5, 0, 0, 0], [0, 0, 0, 5, 0], [0, 0, 0, 0, 2]), (5,), G([0, 0, 0], [1, 5, 0], [0, 0, 2])),
                  (G([1, 5, 2, 5, 0]), (5,), None), (A, (5,), None)],
    "mirror_around": [(G([2, 2, 0, 0, 0], [2, 0, 0, 0, 0], [0, 0, 4, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]), (),
                       G([2, 2, 0, 2, 2], [2, 0, 0, 0, 2], [0, 0, 4, 0, 0], [2, 0, 0, 0, 2], [2, 2, 0, 2, 2])),
                      (A, (), None)],
    "connect_cells": [(G([2, 5, 0, 5, 2], [5, 5, 5, 5, 5], [0, 5, 0, 5, 0]), (),
                       G([2, 5, 2, 5, 2], [5, 5, 5, 5, 5], [0, 5, 0, 5, 0])), (A, (), None)],
    "fill_colour_boxes": [(G([1, 0, 0], [0, 0, 1], [2, 0, 0]), (), G([1, 1, 1], [1, 1, 1], [2, 0, 0])),
                          (G([1, 2]), (), None)],
    "fill_fullest_cells": [(G([1, 0, 5, 2, 2], [1, 0, 5, 0, 3]), (), G([0, 0, 5, 2, 2], [0, 0, 5, 2, 2])),
                           (A, (), None)],
    "replace_shapes": [(G([1, 2, 0, 0, 0], [0, 0, 0, 5, 5], [5, 5, 0, 0, 0]), (5,),
                        G([0, 0, 0, 0, 0], [0, 0, 0, 1, 2], [1, 2, 0, 0, 0])), (A, (9,), None)],
    "project_onto": [(G([0, 0, 0, 0], [3, 0, 5, 5], [0, 0, 5, 5], [0, 0, 0, 0], [0, 0, 4, 0]), (),
                      G([0, 0, 0, 0], [3, 0, 3, 5], [0, 0, 4, 5], [0, 0, 0, 0], [0, 0, 4, 0])), (G([1]), (), None)],
    "match_shapes": [(G([5, 5, 5, 0, 1], [5, 2, 5, 0, 0], [5, 5, 5, 0, 1]), (),
                      G([5, 5, 5, 0, 2], [5, 2, 5, 0, 0], [5, 5, 5, 0, 2])), (G([1]), (), None)],
    "cycle_layers": [(G([3, 3, 3], [3, 2, 3], [3, 3, 3]), (False,), G([2, 2, 2], [2, 3, 2], [2, 2, 2])),
                     (G([1, 1, 1, 1, 1], [1, 2, 2, 2, 1], [1, 2, 3, 2, 1], [1, 2, 2, 2, 1], [1, 1, 1, 1, 1]), (True,),
                      G([3, 3, 3, 3, 3], [3, 2, 2, 2, 3], [3, 2, 1, 2, 3], [3, 2, 2, 2, 3], [3, 3, 3, 3, 3])),
                     (G([1, 1], [1, 1]), (False,), None)],
    "swap_crossing": [(G([0, 4, 0], [2, 4, 2], [0, 4, 0]), (), G([0, 4, 0], [2, 2, 2], [0, 4, 0])), (A, (), None)],
    "keep_middle": [(G([1, 2, 3], [4, 5, 6]), (False,), G([0, 2, 0], [0, 5, 0])), (A, (True,), None)],
    "marked_rays": [(G([0, 0, 0], [0, 2, 0], [0, 0, 0]), ("down",), G([0, 0, 0], [0, 2, 0], [0, M, 0])),
                    (np.zeros((2, 2), np.uint8), ("up",), None)],
    "continue_rows": [(G([1, 2, 1, 2], [0, 0, 0, 0], [3, 4, 0, 0]), (), G([1, 2, 1, 2], [0, 0, 0, 0], [3, 4, 3, 4])),
                      (G([1, 2, 1, 2], [3, 0, 0, 0]), (), None), (G([1, 2, 1, 2], [3, 4, 4, 0]), (), None)],
    "complete_turns": [(G([1, 0, 1], [0, 2, 0], [0, 0, 0]), (True,), G([1, 0, 1], [0, 2, 0], [M, 0, M])),
                       (G([1, 0, 1], [0, 2, 0], [0, 0, 0]), (False,), G([1, 0, 1], [0, 2, 0], [1, 0, 1])),
                       (G([1, 2, 0], [0, 0, 0], [0, 0, 0]), (True,), None)],
    "rays_away": [(G([0, 0, 0, 0, 0], [0, 1, 1, 0, 0], [0, 1, 1, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 0]), (),
                   G([0, 0, 0, 0, 0], [0, 1, 1, 0, 0], [0, 1, 1, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1])),
                  (G([2, 0], [0, 0]), (), G([2, 0], [0, 0])), (np.zeros((2, 2), np.uint8), (), None)],
    "mark_empty_rect": [(G([1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0], [1, 0, 1, 0]), (),
                         G([1, M, M, 0], [0, M, M, 1], [0, M, M, 0], [1, 0, 1, 0])), (G([1, 0], [1, 1]), (), None)],
    "bridge": [(G([2, 2, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0], [3, 3, 3, 3]), (1,),
                G([2, 2, 2, 0], [0, M, 0, 0], [0, M, 0, 0], [3, 3, 3, 3])),
               (G([2, 0, 0], [0, 0, 0], [0, 0, 3]), (0,), G([2, 0, 0], [0, 0, 0], [0, 0, 3])), (RING, (0,), None)],
    "complete_lines": [(G([1, 0, 1, 1], [1, 0, 0, 0], [1, 1, 0, 1]), (), G([1, M, 1, 1], [1, 0, 0, M], [1, 1, M, 1])),
                       (A, (), None)],
    "sort_bars": [(G([0, 2, 0, 0], [0, 0, 0, 0], [3, 3, 3, 0], [0, 0, 0, 0], [0, 0, 4, 4]), (),
                   G([0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2], [0, 0, 4, 4], [0, 3, 3, 3])), (SCENE, (), None)],
    "align_to": [(G([0, 0, 0, 0], [2, 0, 0, 0], [0, 0, 1, 0], [0, 0, 1, 0]), (1,),
                  G([0, 0, 0, 0], [0, 0, 0, 0], [2, 0, 1, 0], [0, 0, 1, 0])), (A, (9,), None)],
    "crop_lines": [(G([0, 3, 0, 4, 0], [5, 3, 5, 4, 5], [0, 3, 2, 4, 0], [6, 3, 6, 4, 6], [0, 3, 0, 4, 0]), (),
                    G([3, 5, 4], [3, 2, 4], [3, 6, 4])), (A, (), None)],
    "trail_to_edges": [(G([3, 3, 3, 3], [0, 0, 2, 2], [0, 3, 0, 2], [0, 0, 0, 2]), (),
                        G([3, 3, 3, 3], [0, 3, 2, 2], [0, 3, 0, 2], [0, 0, 0, 2])), (G([1, 2]), (), None)],
    "rotate90": [(A, (), G([0, 0], [2, 3], [1, 0]))],
    "rotate180": [(A, (), G([0, 3, 0], [0, 2, 1]))],
    "rotate270": [(A, (), G([0, 1], [3, 2], [0, 0]))],
    "flip_lr": [(A, (), G([0, 2, 1], [0, 3, 0]))],
    "flip_ud": [(A, (), G([0, 3, 0], [1, 2, 0]))],
    "transpose": [(A, (), G([1, 0], [2, 3], [0, 0]))],
    "anti_transpose": [(A, (), G([0, 0], [3, 2], [0, 1]))],
    "shift": [(A, (0, 1), G([0, 1, 2], [0, 0, 3])), (A, (-1, 0), G([0, 3, 0], [0, 0, 0]))],
    "crop_content": [(SCENE, (), SCENE[1:, 1:5]), (G([0]), (), None)],
    "crop_minor": [(SCENE, (), G([2])), (G([1]), (), None)],
    "pad_edges": [(SQ, (), G([0, 1, 2, 0], [1, 1, 2, 2], [3, 3, 4, 4], [0, 3, 4, 0]))],
    "trim": [(G([1, 1, 1], [1, 5, 1], [1, 1, 1]), (), G([5])), (SQ, (), None)],
    "crop_colour": [(SCENE, (3,), G([3, 3, 3], [0, 3, 0])), (SCENE, (7,), None)],
    "scale_up": [(SQ, (2,), G([1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]))],
    "scale_by_colours": [(G([1, 2]), (), G([1, 1, 2, 2], [1, 1, 2, 2])), (G([1, 0]), (), None)],
    "scale_down": [(G([1, 1, 2, 2], [1, 1, 2, 2]), (2,), G([1, 2])), (A, (2,), None)],
    "period_tile": [(G([1, 2, 1, 2], [3, 4, 3, 4]), (), SQ), (G([5, 5], [6, 6], [5, 5]), (), G([5], [6])),
                    (SQ, (), None)],
    "diagonal": [(G([3, 4]), (), G([3, 0], [0, 4])), (G([3], [4]), (), G([3, 0], [0, 4])), (SQ, (), None)],
    "crop_frame": [(G([0, 0, 0, 0, 0], [0, 4, 4, 4, 4], [0, 4, 1, 0, 4], [0, 4, 4, 4, 4]), (True,), G([1, 0])),
                   (RING, (True,), G([0])), (RING, (False,), RING[:, :3]), (SQ, (True,), None)],
    "compress": [(G([1, 1, 2], [1, 1, 2], [3, 3, 3]), (), G([1, 2], [3, 3]))],
    "tile": [(SQ, (1, 2), G([1, 2, 1, 2], [3, 4, 3, 4]))],
    "mirror_right": [(SQ, (), G([1, 2, 2, 1], [3, 4, 4, 3]))],
    "mirror_down": [(SQ, (), G([1, 2], [3, 4], [3, 4], [1, 2]))],
    "mirror_four": [(G([1, 2]), (), G([1, 2, 2, 1], [1, 2, 2, 1]))],
    "rotate_four": [(SQ, (), G([1, 2, 3, 1], [3, 4, 4, 2], [2, 4, 4, 3], [1, 3, 2, 1])), (A, (), None)],
    "self_tile_on": [(G([2, 1], [0, 2]), (2,), G([2, 1, 0, 0], [0, 2, 0, 0], [0, 0, 2, 1], [0, 0, 0, 2])),
                     (G([2, 1], [0, 2]), (3,), None)],
    "self_tile_common": [(G([5, 0], [5, 3]), (), G([5, 0, 0, 0], [5, 3, 0, 0], [5, 0, 0, 0], [5, 3, 0, 0]))],
    "self_tile": [(G([1, 0], [0, 1]), (), G([1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]))],
    "keep_colour": [(A, (2,), G([0, 2, 0], [0, 0, 0])), (A, (7,), None)],
    "remove_colour": [(A, (2,), G([1, 0, 0], [0, 3, 0]))],
    "keep_major": [(G([1, 1, 2]), (), G([1, 1, 0])), (G([1, 1]), (), None)],
    "keep_minor": [(G([1, 1, 2]), (), G([0, 0, 2]))],
    "remove_major": [(G([1, 1, 2]), (), G([0, 0, 2]))],
    "paint_major": [(G([1, 1, 2, 0]), (), G([1, 1, 1, 0]))],
    "paint_minor": [(G([1, 1, 2, 0]), (), G([2, 2, 2, 0]))],
    "fill_major": [(G([0, 0, 2]), (), G([0, 0, 0])), (G([3, 0, 3]), (), G([3, 3, 3]))],
    "mask": [(A, (), G([M, M, 0], [0, M, 0]))],
    "invert_mask": [(A, (), G([0, 0, M], [M, 0, M]))],
    "swap_top_two": [(G([1, 1, 2, 3, 3, 3]), (), G([3, 3, 2, 1, 1, 1]))],
    "major_colour_cell": [(G([1, 1, 2]), (), G([1]))],
    "minor_colour_cell": [(G([1, 1, 2]), (), G([2]))],
    "background_to_zero": [(G([3, 3, 0], [3, 1, 3]), (), G([0, 0, 3], [0, 1, 0])), (A, (), A)],
    "background_from": [(G([0, 0, 3], [0, 1, 0]), (G([3, 3], [3, 0]),), G([3, 3, 0], [3, 1, 3])),
                        (A, (G([0, 1]),), A)],
    "recolour_nearest": [(G([1, 0, 5, 5, 0, 0, 2], [0, 0, 0, 0, 5, 0, 0]), (5,),
                          G([1, 0, 1, 5, 0, 0, 2], [0, 0, 0, 0, 2, 0, 0])),
                         (A, (5,), None)],
    "attract": [(G([0, 0, 0, 0, 0, 0], [3, 0, 0, 5, 5, 0], [0, 0, 0, 5, 5, 0], [0, 0, 0, 0, 0, 0],
                   [0, 0, 0, 0, 2, 0]), (),
                 G([0, 0, 0, 0, 0, 0], [0, 0, 3, 5, 5, 0], [0, 0, 0, 5, 5, 0], [0, 0, 0, 0, 2, 0], [0, 0, 0, 0, 0, 0])),
                (G([0, 0, 0, 0, 0], [0, 5, 5, 0, 0], [0, 5, 5, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 7]), (),
                 G([0, 0, 0, 0, 0], [0, 5, 5, 0, 0], [0, 5, 5, 0, 0], [0, 0, 0, 7, 0], [0, 0, 0, 0, 0])),
                (A, (), None)],
    "attract_to": [(G([3, 0, 0, 5, 0, 0, 0, 3], [0, 0, 0, 0, 0, 0, 0, 0], [0, 4, 0, 0, 0, 0, 0, 0]), (5,),
                    G([0, 0, 3, 5, 3, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 4, 0, 0, 0, 0, 0, 0])), (A, (9,), None)],
    "trail_to": [(G([3, 0, 0, 5, 0, 0, 0, 3], [0, 0, 0, 0, 0, 0, 0, 0], [0, 4, 0, 0, 0, 0, 0, 0]), (5,),
                  G([3, 3, 3, 5, 3, 3, 3, 3], [0, 0, 0, 0, 0, 0, 0, 0], [0, 4, 0, 0, 0, 0, 0, 0])), (A, (9,), None)],
    "fill_placeholders": [(G([1, 2, 0, 5, 5], [0, 0, 0, 0, 0], [5, 5, 0, 0, 0]), (5,),
                           G([1, 2, 0, 1, 2], [0, 0, 0, 0, 0], [1, 2, 0, 0, 0])), (A, (3,), None)],
    "repeat_segments": [(G([0, 1, 2, 0, 0], [0, 0, 0, 0, 0]), (), G([2, 1, 2, 1, 2], [0, 0, 0, 0, 0])),
                        (G([1, 0, 1]), (), None)],
    "flood_from": [(G([1, 0, 2, 0], [0, 0, 2, 0], [2, 2, 2, 0]), (1,), G([1, 1, 2, 0], [1, 1, 2, 0], [2, 2, 2, 0])),
                   (A, (4,), None)],
    "repeat_block": [(G([0, 0], [1, 2], [3, 0], [0, 0], [0, 0]), (False,), G([3, 0], [1, 2], [3, 0], [1, 2], [3, 0])),
                     (G([0, 1, 0, 0]), (True,), G([1, 1, 1, 1])), (G([0, 0]), (False,), None)],
    "reflect_over_walls": [(G([0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [0, 0, 5, 0, 0], [0, 0, 0, 0, 0]), (),
                            G([0, 0, 5, 0, 0], [2, 2, 2, 2, 2], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0])), (A, (), None)],
    "move_into_corners": [(G([4, 0, 0, 0, 4], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [4, 0, 0, 0, 4], [1, 1, 0, 0, 0]), (),
                           G([4, 0, 0, 0, 4], [0, 1, 1, 0, 0], [0, 0, 0, 0, 0], [4, 0, 0, 0, 4], [0, 0, 0, 0, 0])),
                          (A, (), None)],
    "repeat_lines": [(G([1, 0, 0, 0, 0, 0, 0], [0, 0, 2, 0, 0, 0, 0]), (),
                      G([1, 0, 2, 0, 1, 0, 2], [1, 0, 2, 0, 1, 0, 2])),
                     (G([0, 3], [0, 0], [4, 0], [0, 0], [0, 0]), (), G([3, 3], [0, 0], [4, 4], [0, 0], [3, 3])),
                     (A, (), None)],
    "gather_to_lines": [(G([0, 0, 2, 0], [0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0], [0, 3, 0, 1]), (),
                         G([0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0])),
                        (A, (), None)],
    "symmetrize": [(G([0, 0, 0, 0], [0, 1, 0, 1], [0, 0, 2, 0], [0, 1, 0, 0]), (),
                    G([0, 0, 0, 0], [0, 1, 0, 1], [0, 0, 2, 0], [0, 1, 0, 1])),
                   (A, (), G([1, 2, 0], [2, 3, 0])), (G([1, 2], [3, 4]), (), None)],
    "mirror_at_marker": [(G([0, 0, 0, 0, 0], [4, 4, 2, 0, 0], [0, 4, 2, 0, 0]), (),
                          G([0, 0, 0, 0, 0], [4, 4, 4, 4, 0], [0, 4, 4, 0, 0])), (A, (), None)],
    "stamp_first_cell": [(G([3, 0, 5, 0, 0], [0, 3, 5, 2, 0]), (), G([3, 0, 5, 5, 0], [0, 3, 5, 2, 5])),
                         (A, (), None)],
    "mark_empty_lines": [(G([1, 0, 1], [0, 0, 0], [1, 0, 0]), (), G([1, M, 1], [M, M, M], [1, M, 0])),
                         (G([0, 0]), (), None)],
    "fill_open_lines": [(G([1, 1, 1, 1], [2, 0, 0, 2], [2, 0, 1, 2], [1, 0, 1, 1]), (),
                         G([1, 1, 1, 1], [2, M, M, 2], [2, M, 1, 2], [1, 0, 1, 1])), (G([1, 2]), (), None)],
    "mark_in_box": [(G([4, 0, 1, 4], [1, 0, 4, 1]), (4,), G([4, 0, M, 4], [M, 0, 4, M])), (A, (5,), None)],
    "stretch_square": [(G([1], [2]), (), G([1, 1], [2, 2])), (G([1, 2]), (), G([1, 2], [1, 2])), (A, (), None)],
    "block_colours": [(G([1, 1, 0, 2], [1, 3, 0, 2], [0, 0, 0, 0], [4, 0, 0, 5]), (), G([1, 2], [4, 5])),
                      (G([1, 2], [3, 4]), (), None)],
    "canvas": [(G([1, 2]), (2,), G([1, 2, 0, 0], [0, 0, 0, 0])), (np.zeros((21, 2), dtype=np.uint8), (3,), None)],
    "kron_parts": [((G([8, 0], [8, 8]), G([2, 0], [0, 3])), (),
                    G([2, 0, 0, 0], [2, 2, 0, 0], [0, 0, 3, 0], [0, 0, 3, 3])), (PARTS, (), None)],
    "recolor": [(A, ({1: 5, 3: 0},), G([5, 2, 0], [0, 0, 0])), (G([M]), ({},), None)],
    "constant": [(A, ([[7, 7]],), G([7, 7]))],
    "arrange": [(SQ, (1, 2, (0, 7)), G([1, 2, 2, 1], [3, 4, 4, 3])),
                (SQ, (2, 1, (-1, 2)), G([0, 0], [0, 0], [4, 3], [2, 1])), (A, (1, 2, (0, 1)), None)],
    "extend_pattern": [(G([1, 2, 1, 2]), ((1, 1), (3, 2)), G([1, 2, 1, 2, 1, 2])),
                       (G([1], [2]), ((3, 2), (1, 1)), G([1], [2], [1])), (G([1]), ((3, 2), (1, 1)), None)],
    "crop_at": [(SCENE, (1, 1, 2, 2), G([5, 5], [5, 5])), (SCENE, (-1, -2, 2, 3), G([3, 3, 3], [0, 3, 0])),
                (SQ, (0, 0, 3, 3), None)],
    "lookup": [(SQ, ({((1, 2), (3, 4)): ((7,),)},), G([7])), (A, ({},), None)],
    "stamp": [(G([0, 0, 0], [0, 2, 0], [0, 0, 5]), ({2: ((-1, -1, 4), (1, 1, 4), (0, 1, 7))},),
               G([4, 0, 0], [0, 2, 7], [0, 0, 5]))],
    "paint_over": [(A, (G([0, 0, 9], [9, 0, 0]),), G([1, 2, 9], [9, 3, 0])), (A, (SQ,), None)],
    "colour_shape": [(A, (7,), G([7, 7, 0], [0, 7, 0])), (G([0, 12], [5, 0]), (4,), G([0, 4], [4, 0]))],
    "local_rule": [(G([1, 0]), ("cell", {(1,): 2, (0,): 0}), G([2, 0])), (G([3]), ("cell", {(1,): 2}), G([3])),
                   (G([M]), ("cell", {}), None)],
    "cell_rule": [(G([0, 2, 0], [2, 0, 2], [0, 2, 0]), (("hole",), {(0,): "colour", (1,): 4}),
                   G([0, 2, 0], [2, 4, 2], [0, 2, 0])),
                  (G([3, 0, 0]), (("colour",), {(3,): "colour", (0,): "w"}), G([3, 3, 0])),
                  (A, (("colour", "x2"), {(1, 0): 5}), None)],
    "overlay_order": [((G([1, 0]), G([2, 2]), G([0, 3])), ((1, 2, 0),), G([1, 3])),
                      ((G([1, 0]), G([2, 2])), ((0, 1, 2),), None)],
    "part_table": [((G([5, 5]), G([0, 5]), G([5, 0]), G([0, 0])), ("count", {"2": 1, "1": 0, "0": 0}, (2, 2)),
                    G([1, 0], [0, 0])),
                   ((G([3]), G([4])), ("colour", {"3": 7, "4": 8}, (0, 1)), G([7], [8])),
                   ((G([3]), G([4])), ("colour", {"3": 7}, (0, 1)), None),
                   ((G([3]), G([4])), ("colour", {"3": 7, "4": 8}, (0, 1), (1, 2)), G([7, 7], [8, 8]))],
    "select_part": [((G([1, 2], [2, 1]), G([3, 4], [3, 3]), G([5, 0], [0, 5])), ("transpose", 0), G([3, 4], [3, 3])),
                    ((G([1, 2], [2, 1]), G([3, 4], [3, 3]), G([5, 0], [0, 5])), ("cells", "max"), None),
                    ((G([1, 2], [2, 1]), G([3, 4], [3, 3]), G([5, 0], [0, 5])), ("cells", "min"), G([5, 0], [0, 5])),
                    ((G([1]),), ("cells", "max"), None)],
    "object_stamp": [(G([0, 0, 0, 0], [0, 3, 0, 0], [0, 0, 0, 0]), ("colour8", 1, {(1, 1): ((0, 1, -1), (2, 1, 6))}),
                      G([0, 3, 0, 0], [0, 3, 0, 0], [0, 6, 0, 0])),
                     (G([0, 0, 0], [0, 3, 0], [0, 0, 0]), ("colour8", 0, {(2, 2): ((0, 0, 1),)}), None),
                     (G([0, 0, 0], [0, 3, 0], [0, 0, 0]), ("colour8", 0, {(1, 1): ((0, 0, -2),)}), None)],
    "recolor_objects": [(SCENE, ("colour8", "size", {"4": 7, "1": -1}),
                         np.where(SCENE > 2, 7, SCENE).astype(np.uint8)),
                        (SCENE, ("colour8", "size", {"4": 7}), None),
                        (SCENE, ("colour8", "size", {"1": 4, "*": 7}),
                         np.where(SCENE > 2, 7, SCENE // 2 * 4).astype(np.uint8))],
    "select_object": [(SCENE, ("colour8", "size", "min", False), G([2])),
                      (SCENE, ("colour8", "size", "max", False), None),
                      (SCENE, ("any8", "width", "max", True), G([3, 3, 3], [0, 3, 0])),
                      (G([1, 1, 0, 1, 2], [1, 2, 0, 2, 2]), ("any8", "cells_2", "max", False), G([1, 2], [2, 2])),
                      (G([1, 1, 0, 1, 2], [1, 2, 0, 2, 2]), ("any8", "ncolours", "max", False), None)],
    "colour_column": [(G([1, 1, 2, 3, 3, 3]), (False, 0), G([3], [1], [2])),
                      (G([1, 1, 2, 3, 3, 3]), (True, 1), G([1], [3])),
                      (G([0]), (False, 0), None)],
    "stripe_vote": [(G([1, 1, 2], [3, 3, 3], [4, 1, 4]), (), G([1, 1, 1], [3, 3, 3], [4, 4, 4])),
                    (G([1, 2], [5, 2], [1, 2]), (), G([1, 2], [1, 2], [1, 2]))],
    "histogram": [(G([2, 2, 1], [2, 3, 1], [1, 1, 1]), (), G([1, 2, 3], [1, 2, 0], [1, 2, 0], [1, 0, 0], [1, 0, 0])),
                  (G([0]), (), None)],
    "colour_sequence": [(G([2, 2, 0, 1], [2, 0, 1, 1], [0, 3, 3, 1]), (), G([2, 3, 1])),
                        (G([5, 5], [0, 5], [7, 7]), (), G([5], [7])), (G([0, 4]), (), None)],
    "cells_row": [(G([0, 4], [4, 0]), (), G([4, 4])), (G([0]), (), None)],
    "part_colours": [(OBJS, (), G([1], [2], [3], [2])), ((G([0]),), (), None)],
    # a 3x3 shape copied onto the 5 marker, centred (kept, or moved) or by its cell of colour 5
    "copy_to_markers": [(G([1, 2, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 5, 0], [0, 0, 0, 0, 0, 0]),
                         ("centre", True), None),
                        (G([1, 2, 0, 0, 0], [2, 1, 2, 0, 0], [0, 2, 0, 0, 0], [0, 0, 0, 5, 0], [0, 0, 0, 0, 0]),
                         ("centre", False),
                         G([0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 1, 2, 0], [0, 0, 2, 1, 2], [0, 0, 0, 2, 0])),
                        (G([1, 5, 0, 0], [0, 0, 0, 0], [0, 0, 0, 5]), ("colour", True),
                         G([1, 5, 0, 0], [0, 0, 0, 0], [0, 0, 1, 5]))],
    "halo": [(G([0, 0, 0], [0, 4, 0], [0, 0, 0]), (True,), G([M, M, M], [M, 4, M], [M, M, M])),
             (G([0, 0, 0], [0, 4, 0], [0, 0, 0]), (False,), G([0, M, 0], [M, 4, M], [0, M, 0])),
             (G([1]), (True,), None)],
    "each_object": [(G([1, 2, 0, 0], [0, 0, 0, 3], [0, 0, 3, 3]), ("flip_lr",),
                     G([2, 1, 0, 0], [0, 0, 3, 0], [0, 0, 3, 3])),
                    (G([1, 0, 0], [0, 1, 0], [0, 0, 0]), ("fill_box",), G([1, 1, 0], [1, 1, 0], [0, 0, 0])),
                    (G([1, 2, 0]), ("transpose",), None), (G([5, 0], [0, 0]), ("flip_ud",), G([5, 0], [0, 0])),
                    (G([1, 1, 0, 0], [0, 1, 0, 0], [0, 0, 0, 4]), ("invert",),
                     G([0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0])),
                    (G([1, 2, 0, 0], [0, 2, 0, 3]), ("swap",), G([2, 1, 0, 0], [0, 1, 0, 3])),
                    (G([4, 0, 4, 0, 0], [0, 4, 0, 0, 0], [4, 0, 0, 0, 6]), ("symmetric",),
                     G([4, 0, 4, 0, 0], [0, 4, 0, 0, 0], [4, 0, 4, 0, 6]))],
    "objects": [(SCENE, (), (G([5, 5], [5, 5]), G([2]), G([3, 3, 3], [0, 3, 0]))), (G([0]), (), None)],
    "objects4": [(G([1, 0], [0, 1]), (), (G([1]), G([1])))],
    "colour_objects": [(G([1, 2]), (), (G([1]), G([2])))],
    "colour_objects4": [(G([1, 0], [0, 1], [0, 2]), (), (G([1]), G([1]), G([2])))],
    "boxes": [(G([1, 0], [0, 1], [0, 0]), (), (G([1, 0], [0, 1]),))],
    "colour_boxes": [(G([1, 2, 0], [0, 0, 2]), (), (G([1]), G([2, 0], [0, 2])))],
    "colour_layers": [(A, (), (G([1, 0, 0], [0, 0, 0]), G([0, 2, 0], [0, 0, 0]), G([0, 0, 0], [0, 3, 0])))],
    "keep_largest": [(G([1, 1, 0, 2]), (), G([1, 1, 0, 0])), (SCENE, (), None), (G([1]), (), None)],
    "remove_small": [(SCENE, (), np.where(SCENE == 2, 0, SCENE).astype(np.uint8))],
    "largest": [(OBJS, (), OBJS[0])],
    "smallest": [(OBJS[:3], (), OBJS[1]), (OBJS, (), OBJS[1])],
    "biggest_box": [(OBJS, (), OBJS[0])],
    "most_colourful": [((G([1, 2]), G([3])), (), G([1, 2]))],
    "least_colourful": [((G([1, 2]), G([3])), (), G([3]))],
    "unique_colour": [((G([1, 1]), G([2]), G([2])), (), G([1, 1])), (OBJS, (), None)],
    "unique_shape": [((G([1, 1]), G([2, 2]), G([3])), (), G([3]))],
    "unique_symmetry": [((G([1, 2], [2, 1]), G([5, 6], [6, 5]), G([1, 2], [3, 4])), (), G([1, 2], [3, 4])),
                        (OBJS, (), G([3, 3])), ((G([1]), G([2])), (), None)],
    "unique_part": [(OBJS, (), None), ((G([1]), G([1]), G([2])), (), G([2]))],
    "most_common": [(OBJS, (), G([2]))],
    "first": [(OBJS, (), OBJS[0])],
    "last": [(OBJS, (), OBJS[3])],
    "most_cells_of_minor": [((G([1, 1, 2]), G([1, 2, 2]), G([1, 1, 1])), (), G([1, 2, 2]))],
    "sort_by_size": [(OBJS[1:3], (), (OBJS[2], OBJS[1]))],
    "count_cells": [(OBJS, (), G([M, M, M, M]))],
    "spread_cell": [(G([0, 5, 3], [5, 5, 5], [0, 5, 0]), (), G([3, 5, 3], [5, 5, 5], [3, 5, 3])),
                    (G([1, 5, 3], [5, 5, 5], [0, 5, 0]), (), None)],
    "cell_colours": [(G([1, 1, 5, 2], [5, 5, 5, 5], [3, 0, 5, 0]), (), G([1, 2], [0, 0])), (SQ, (), None)],
    "split_lines": [(TWO, (), (LEFT, RIGHT)), (SQ, (), None)],
    "split_grid": [(TWO, (1, 2), (LEFT, RIGHT)), (G([1, 2, 3, 4]), (1, 2), (G([1, 2]), G([3, 4])))],
    "overlay": [(PARTS, (), G([1, 2], [1, 1])), ((G([1, 1]), G([2, 0])), (), G([2, 1]))],
    "overlay_reversed": [((G([1, 1]), G([2, 0])), (), G([1, 1]))],
    "and_parts": [(PARTS, (), G([0, 0], [0, 0])), ((LEFT, RIGHT), (), G([M, 0, 0], [0, 0, 0])),
                  ((G([1, 1]), G([1, 0]), G([1, 1])), (), G([M, 0]))],
    "or_parts": [(PARTS, (), G([M, M], [M, M])), ((LEFT, RIGHT), (), G([M, M, 0], [0, M, M]))],
    "xor_parts": [((LEFT, RIGHT), (), G([0, M, 0], [0, M, M]))],
    "nor_parts": [((LEFT, RIGHT), (), G([0, 0, M], [M, 0, 0]))],
    "vote_parts": [((G([1, 2]), G([1, 3]), G([4, 3])), (), G([1, 3])), (PARTS, (), None)],
    "diff_parts": [((LEFT, RIGHT), (), G([0, M, 0], [0, 0, M]))],
    "stack_across": [(PARTS, (), G([1, 0, 0, 2], [1, 1, 0, 0])), ((G([1]), G([1, 1], [1, 1])), (), None)],
    "stack_down": [(PARTS, (), G([1, 0], [1, 1], [0, 2], [0, 0]))],
    "gravity": [(G([1, 0], [0, 0], [0, 2]), ("down",), G([0, 0], [0, 0], [1, 2])),
                (G([0, 1, 0, 2]), ("left",), G([1, 2, 0, 0]))],
    "fill_enclosed": [(RING, (), G([2, 2, 2, 0], [2, M, 2, 0], [2, 2, 2, 0])), (A, (), A)],
    "rays": [(G([0, 3, 0, 0], [0, 0, 0, 0]), ("right",), G([0, 3, 3, 3], [0, 0, 0, 0])),
             (G([4, 0], [0, 0], [0, 2]), ("down",), G([4, 0], [4, 0], [4, 2]))],
    "diagonal_rays": [(G([5, 0, 0], [0, 0, 0], [0, 0, 0]), ("down",), G([5, 0, 0], [0, 5, 0], [0, 0, 5]))],
    "connect_diagonal": [(G([3, 0, 0], [0, 0, 0], [0, 0, 3]), (), G([3, 0, 0], [0, 3, 0], [0, 0, 3])),
                         (G([0, 0, 4], [0, 0, 0], [4, 0, 0]), (), G([0, 0, 4], [0, 4, 0], [4, 0, 0]))],
    "connect": [(G([6, 0, 0, 6], [0, 0, 0, 0], [6, 0, 0, 0]), (), G([6, 6, 6, 6], [6, 0, 0, 0], [6, 0, 0, 0])),
                (A, (), A)],
    "symmetry_complete": [(G([1, 2, 2, 1], [3, 4, 9, 3]), (9,), G([1, 2, 2, 1], [3, 4, 4, 3]))],
    "symmetry_patch": [(G([1, 2, 2, 1], [3, 4, 9, 3]), (9,), G([4]))],
    "pattern_complete": [(G([1, 2, 1, 2, 1, 0]), (0,), G([1, 2, 1, 2, 1, 2])),
                         (G([1, 2, 3, 0], [2, 3, 0, 0], [3, 0, 0, 0]), (0,),
                          G([1, 2, 3, 1], [2, 3, 1, 2], [3, 1, 2, 3]))],
    "complete_zeros": [(G([1, 2, 1, 2, 1, 0]), ("pattern",), G([1, 2, 1, 2, 1, 2])),
                       (G([1, 2, 0, 1]), ("symmetry",), G([1, 2, 2, 1]))],
    "pattern_patch": [(G([1, 2, 1, 9, 9, 2]), (9,), G([2, 1]))],
    "star": [(G([0, 0, 0], [0, 4, 0], [0, 0, 0]), (True,), G([4, 0, 4], [0, 4, 0], [4, 0, 4])),
             (G([0, 0, 0], [0, 4, 0], [0, 0, 0]), (False,), G([0, 4, 0], [4, 4, 4], [0, 4, 0]))],
    "fill_empty_squares": [(G([1, 0, 0, 0], [0, 0, 0, 2], [0, 0, 1, 0]), (2,),
                            G([1, M, M, 0], [0, M, M, 2], [0, 0, 1, 0])), (G([1, 0], [0, 1]), (2,), None)],
    "flood_rooms": [(G([0, 5, 0, 0], [3, 5, 0, 4], [5, 5, 5, 5], [0, 0, 5, 0]), (),
                     G([3, 5, 4, 4], [3, 5, 4, 4], [5, 5, 5, 5], [0, 0, 5, 0])),
                    (G([5, 5], [0, 5]), (), G([5, 5], [0, 5]))],
    "frame_objects": [(G([0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 3]), (),
                       G([M, M, M, 0], [M, 2, M, 0], [M, M, M, M], [0, 0, M, 3])), (G([0, 0]), (), None)],
    "fill_square_holes": [(G([2, 2, 2, 0, 0], [2, 0, 2, 0, 2], [2, 2, 2, 2, 0]), (),
                           G([2, 2, 2, 0, 0], [2, M, 2, 0, 2], [2, 2, 2, 2, 0])),
                          (G([2] * 4, [2, 0, 0, 2], [2] * 4), (), G([2] * 4, [2, 0, 0, 2], [2] * 4))],
    "fill_holes_own": [(G([3, 3, 3, 0], [3, 0, 3, 0], [3, 3, 3, 0]), (), G([3, 3, 3, 0], [3, 3, 3, 0], [3, 3, 3, 0])),
                       (RING[:, :3].copy(), (), G([2, 2, 2], [2, 2, 2], [2, 2, 2])), (SQ, (), None)],
    "centre_lines": [(G([0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 3, 0, 0]), (),
                      G([0, M, 0, 0], [0, M, 0, 0], [0, M, 0, 0], [M, 3, M, M])),
                     (G([1, 1], [0, 0]), (), G([1, 1], [0, 0]))],
    "mirror_at_line": [(G([1, 0, 0], [0, 2, 0], [5, 5, 5], [0, 0, 0], [0, 0, 0]), (),
                        G([1, 0, 0], [0, 2, 0], [5, 5, 5], [0, 2, 0], [1, 0, 0])),
                       (G([1, 5, 0], [0, 5, 0], [0, 5, 3]), (), G([1, 5, 1], [0, 5, 0], [3, 5, 3])), (SQ, (), None)],
    "interior": [(G([2, 2, 2, 0], [2, 2, 2, 0], [2, 2, 2, 0]), (), G([0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0])),
                 (SQ, (), None)],
    "dilate": [(G([0, 0, 0], [0, 3, 0], [0, 0, 0]), (False,), G([0, 3, 0], [3, 3, 3], [0, 3, 0])),
               (G([0, 0, 0], [0, 3, 0], [0, 0, 0]), (True,), G([3, 3, 3], [3, 3, 3], [3, 3, 3])), (SQ, (True,), SQ)],
    "elbow": [(G([2, 0, 0], [0, 0, 0], [0, 0, 3]), (True, True), G([2, M, M], [0, 0, M], [0, 0, 3])),
              (G([2, 0, 0], [0, 0, 0], [0, 0, 3]), (False, True), G([2, 0, 0], [M, 0, 0], [M, M, 3])),
              (G([2, 0], [0, 2]), (True, True), None)],
    "outline": [(G([1, 1, 1], [1, 1, 1], [1, 1, 1]), (), G([1, 1, 1], [1, 0, 1], [1, 1, 1])), (A, (), A)],
    "border": [(G([0, 0, 0], [0, 0, 0], [0, 0, 0]), (), G([M, M, M], [M, 0, M], [M, M, M]))],
    "slide_to": [(G([2, 0, 0, 5]), (2,), G([0, 0, 2, 5])), (G([5], [0], [0], [2]), (2,), G([5], [2], [0], [0])),
                 (G([2, 5]), (7,), None)],
    "slide_objects": [(G([2, 0], [0, 0], [0, 0], [1, 1]), ("down",), G([0, 0], [0, 0], [2, 0], [1, 1]))],
}


def _equal(a, b) -> bool:
    if b is None or a is None:
        return a is b
    if isinstance(b, tuple):
        return isinstance(a, tuple) and len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return isinstance(a, np.ndarray) and a.shape == b.shape and bool(np.array_equal(a, b))


def test_every_primitive_has_its_own_test():
    assert sorted(set(PRIMITIVES) - set(CASES)) == []
    assert sorted(set(CASES) - set(PRIMITIVES)) == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_primitive(name):
    prim = PRIMITIVES[name]
    assert prim.fn.__doc__.strip() and "\n" not in prim.fn.__doc__.strip()
    for value, args, expected in CASES[name]:
        got = prim.fn(value, *args)
        assert _equal(got, expected), f"{name}{args}: got {got!r}, expected {expected!r}"
        if isinstance(got, np.ndarray):
            assert got.dtype == np.uint8 and got.ndim == 2


def test_shape_flags_hold_on_every_example():
    for name, cases in CASES.items():
        flag = PRIMITIVES[name].shape
        for value, _, expected in cases:
            if flag != "any" and isinstance(expected, np.ndarray):
                assert (expected.shape == value.shape) == (flag == "keep"), name


def test_primitives_do_not_modify_their_input():
    for name, cases in CASES.items():
        for value, args, _ in cases:
            before = [v.copy() for v in value] if isinstance(value, tuple) else value.copy()
            PRIMITIVES[name].fn(value, *args)
            after = list(value) if isinstance(value, tuple) else value
            assert _equal(tuple(after) if isinstance(value, tuple) else after,
                          tuple(before) if isinstance(value, tuple) else before), name


def test_local_rule_features_have_one_vector_per_cell():
    g = G([0, 1, 0], [2, 0, 3])
    for kind in FEATURE_KINDS:
        f = features(g, kind)
        assert f.shape[:2] == g.shape and f.ndim == 3
    assert features(g, "rays")[0, 0].tolist() == [0, 2, 0, 0, 1]  # down, left, up, right: below 2, right 1
    corner = G([1, 1, 0], [1, 0, 0], [0, 0, 0])
    sym = features(corner, "square_sym")
    # the same corner turned round gives the same symmetric feature at the matching cell
    assert sym[1, 1].tolist() == features(np.rot90(corner).copy(), "square_sym")[1, 1].tolist()


def test_cell_features_are_small_per_cell_values():
    from shared.solvers.dsl.primitives.cellrule import CELL_FEATURES, COLOUR_FEATURES, cell_features

    g = G([0, 1, 0, 0], [2, 0, 3, 3], [0, 0, 0, 1])
    f = cell_features(g)
    assert set(f) == set(CELL_FEATURES) and set(COLOUR_FEATURES) <= set(CELL_FEATURES)
    assert all(v.shape == g.shape and v.max() < 16 for v in f.values())
    assert f["ray_e"][1, 1] == 3 and f["ray_w"][1, 1] == 2 and f["ray_n"][2, 1] == 1
    assert f["ray_se"][0, 0] == 0 and f["ray_se"][0, 2] == 3 and f["ray_ne"][2, 0] == 0
    assert f["objsize"][1, 2] == 2 and f["objsize"][0, 1] == 1 and f["big"][1, 3] == 1
    assert f["rowsame"].tolist() == [[0] * 4] * 3 and f["ncol"][0, 0] == 3
    assert f["nmask"][1, 1] == 0b1101 and f["samemask"][1, 2] == 0b1000 and f["crank"][1, 2] == 2
    assert f["raymask"][0, 0] == 0b1001 and f["nz"].sum() == 5
    # contact with another non-zero colour, and which colour when only one (0 where several)
    assert f["touch"][1].tolist() == [0, 1, 0, 1] and f["touchc"][1].tolist() == [0, 0, 0, 1]
    assert f["touchc"][0, 3] == 3 and f["touch"][2, 2] == 1 and f["touchc"][2, 2] == 0
    cross = G([0, 5, 0], [5, 5, 5], [0, 5, 1])  # one separator row and one separator column
    bands = cell_features(cross)
    assert bands["band_y"][:, 0].tolist() == [0, 0, 1] and bands["band_rx"][0].tolist() == [1, 0, 0]
    # a ring of 5 with one hole, a marker 4 touching it, and a lone 6
    ring = G([5, 5, 5, 4, 0], [5, 0, 5, 0, 0], [5, 5, 5, 0, 6])
    r = cell_features(ring)
    assert r["objholes"][0, 0] == 1 and r["objholes"][0, 3] == 0 and r["objholes"][1, 1] == 0
    assert r["mixc"][0, 0] == 4 and r["mixc"][0, 3] == 5 and r["mixc"][2, 4] == 0 and r["mixc"][1, 1] == 0


def test_gravity_and_rays_match_a_cell_by_cell_reference():
    rng = np.random.default_rng(0)
    for _ in range(100):
        g = np.where(rng.random((6, 5)) < 0.3, rng.integers(1, 5, (6, 5)), 0).astype(np.uint8)
        fall, ray = np.zeros_like(g), g.copy()
        for x in range(g.shape[1]):
            col = g[:, x][g[:, x] != 0]
            fall[g.shape[0] - len(col):, x] = col
            colour = 0
            for y in range(g.shape[0]):
                colour = g[y, x] or colour
                ray[y, x] = g[y, x] or colour
        assert np.array_equal(PRIMITIVES["gravity"].fn(g, "down"), fall)
        assert np.array_equal(PRIMITIVES["rays"].fn(g, "down"), ray)
