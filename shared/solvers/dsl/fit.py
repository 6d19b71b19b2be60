"""Fitting learned arguments from the demos: recolour maps and local rule tables.

Given what a program computes on each demo input (grids already the size of the demo
outputs) a fit finds the argument that turns every one into its demo output exactly, and
refuses when the test inputs would need something the demos never showed.
"""

from __future__ import annotations

import numpy as np

from shared.solvers.dsl.primitives.learned import FEATURE_KINDS, features, local_rule
from shared.solvers.dsl.types import MARKER, Grid

MAX_TABLE = 400  # a rule table larger than this memorises rather than explains


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


def _table(values: list[Grid], outputs: list[Grid], kind: str) -> dict | None:
    table: dict[tuple, int] = {}
    for v, o in zip(values, outputs, strict=True):
        f = features(v, kind)
        for key, out in zip(map(tuple, f.reshape(-1, f.shape[-1]).tolist()), o.ravel().tolist(), strict=True):
            if table.setdefault(key, out) != out:
                return None
        if len(table) > MAX_TABLE:
            return None
    return table


def fit_local_rule(values: list[Grid], outputs: list[Grid], tests: list[Grid], kind: str) -> dict | None:
    """A table feature-tuple -> colour consistent with every demo that also generalises.

    It generalises when it covers every test cell, or else when each demo is reproduced by the
    table learned from the other demos (unseen features keep their colour).
    """
    table = _table(values, outputs, kind)
    if table is None:
        return None
    covered = True
    for t in tests:
        f = features(t, kind)
        if any(k not in table for k in set(map(tuple, f.reshape(-1, f.shape[-1]).tolist()))):
            covered = False
            break
    if covered:
        return table
    if len(values) < 2:
        return None
    for i in range(len(values)):
        rest = _table(values[:i] + values[i + 1:], outputs[:i] + outputs[i + 1:], kind)
        if rest is None or not np.array_equal(local_rule(values[i], kind, rest), outputs[i]):
            return None
    return table


def local_rule_kinds() -> tuple[str, ...]:
    """Feature kinds from the simplest rule to the richest (the order fits are tried in)."""
    return FEATURE_KINDS


def fit_arrange(values: list[Grid], outputs: list[Grid]) -> tuple | None:
    """(ry, rx, layout) when every output is a block grid of dihedral copies of its value."""
    (h, w), (oh, ow) = values[0].shape, outputs[0].shape
    if oh % h or ow % w or (oh, ow) == (h, w):
        return None
    ry, rx = oh // h, ow // w
    if any(o.shape != (v.shape[0] * ry, v.shape[1] * rx) for v, o in zip(values, outputs, strict=True)):
        return None
    layout = []
    for i in range(ry * rx):
        y, x = divmod(i, rx)
        options = [-1] + list(range(8))
        for v, o in zip(values, outputs, strict=True):
            vh, vw = v.shape
            block = o[y * vh:(y + 1) * vh, x * vw:(x + 1) * vw]
            options = [k for k in options if (not block.any() if k < 0 else
                                              _same(np.rot90(v.T if k >= 4 else v, k % 4), block))]
        if not options:
            return None
        layout.append(options[0])
    return ry, rx, tuple(layout)


def _same(a: Grid, b: Grid) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a, b))
