"""The cell tree: a last-resort cell rule grown as a decision tree, when no small table explains the demos.

The solver grows it on the partial results closest to the demo outputs (see `solver._guesses`);
the tree is flattened into the same (names, table) a cell rule takes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from shared.solvers.dsl.fit.rules import LABEL_ORDER, demo_cells, feature_matrix, label_of
from shared.solvers.dsl.primitives.cellrule import CELL_FEATURES, COLOUR_FEATURES, apply_rule, cell_features
from shared.solvers.dsl.types import Grid

MAX_TREE_DEPTH = 10  # splits on the way to a leaf of a cell tree
MAX_TREE_SPLITS = 60  # a tree needing more splits than this memorises the demos


def fit_cell_tree(values: list[Grid], outputs: list[Grid], tests: list[Grid], max_depth: int = MAX_TREE_DEPTH,
                  deadline: float | None = None) -> tuple | None:
    """A last-resort cell rule (names, table) grown as a decision tree over `CELL_FEATURES`: split
    greedily, preferring features whose values at the node cover its test cells, then those whose
    branches are purest (see `_grow`), until every leaf has a label that explains all its cells.
    Test cells with a value no demo cell showed at a split take that split's most common colour.
    None when the tree cannot explain the demos within `max_depth` and `MAX_TREE_SPLITS` splits,
    or by the deadline."""
    found = demo_cells(values, outputs)
    if found is None:
        return None
    demo, masks, counts = found
    bits = ((masks[:, None] >> np.arange(10 + len(COLOUR_FEATURES))) & 1).astype(np.float64)
    test_features = [cell_features(t) for t in tests]
    test = np.unique(feature_matrix(test_features), axis=1)
    try:
        data = _TreeData(demo, _onehot(demo).astype(np.float64), _onehot(test), bits, counts.astype(np.float64),
                         test, deadline)
        tree = _grow(data, np.arange(demo.shape[1]), np.arange(test.shape[1]), max_depth, [MAX_TREE_SPLITS])
    except TimeoutError:
        return None
    if tree is None:
        return None
    used = sorted(_tree_features(tree))
    cells = np.unique(np.hstack([demo, test]), axis=1)
    labels = _tree_labels(tree, cells, np.arange(cells.shape[1]))
    table = {tuple(col): label_of(1 << bit) for col, bit in zip(cells[used].T.tolist(), labels.tolist(), strict=True)}
    names = tuple(CELL_FEATURES[i] for i in used)
    if any(apply_rule(f, names, table) is None for f in test_features):
        return None
    return names, table


@dataclass
class _TreeData:
    demo: np.ndarray      # (features, demo cells)
    onehot: np.ndarray    # (features * 16, demo cells): 1 where the feature has that value
    test_onehot: np.ndarray  # the same for the test cells
    bits: np.ndarray      # (demo cells, labels): 1 where the label gives the cell's output
    weights: np.ndarray   # demo cells merged into each column
    test: np.ndarray      # (features, test cells)
    deadline: float | None


def _onehot(cells: np.ndarray) -> np.ndarray:
    return (cells[:, None, :] == np.arange(16)[None, :, None]).reshape(-1, cells.shape[1])


def _grow(data: _TreeData, idx: np.ndarray, tidx: np.ndarray, depth: int, splits: list[int]) -> tuple | None:
    """A tree for the demo cells `idx` (and test cells `tidx`): ("leaf", label bit) or
    ("split", feature, {value: tree}, fallback bit). `splits` holds how many more splits the
    whole tree may make."""
    here = data.bits[idx]
    common = here.min(axis=0) > 0
    if common.any():
        return ("leaf", next(b for b in LABEL_ORDER if common[b]))
    if depth == 0 or splits[0] == 0:
        return None
    if data.deadline is not None and time.monotonic() > data.deadline:
        raise TimeoutError
    splits[0] -= 1
    weights = data.weights[idx]
    totals = weights @ here
    # for unseen values: the most common of keeping the colour and the literals (a copied feature
    # may look outside the grid)
    fallback = max(LABEL_ORDER[:11], key=lambda b: totals[b])
    n = data.demo.shape[0]
    onehot = data.onehot[:, idx]
    seen = onehot.any(axis=1).reshape(n, 16)
    values = seen.sum(axis=1)
    # per feature and branch: the cells its best label explains, times that share of its cells
    # to the power 0.5 (so a purer branch gains even where no majority changes), less 1% of the
    # node's cells for each branch
    sizes = (onehot @ weights).reshape(n, 16)
    best = (onehot @ (here * weights[:, None])).reshape(n, 16, -1).max(axis=2)
    explained = (best * np.sqrt(best / np.maximum(sizes, 1))).sum(axis=1) - 0.01 * weights.sum() * values
    explained = np.round(explained, 6)  # equal splits tie whatever the rounding of their sums
    covers = ~(data.test_onehot[:, tidx].any(axis=1).reshape(n, 16) & ~seen).any(axis=1)
    keys = [(bool(covers[f]), float(explained[f]), -int(values[f]), -f) for f in range(n) if values[f] > 1]
    if not keys:
        return None
    f = -max(keys)[3]
    branches = {}
    for v in np.flatnonzero(seen[f]).tolist():
        sub = _grow(data, idx[data.demo[f, idx] == v], tidx[data.test[f, tidx] == v], depth - 1, splits)
        if sub is None:
            return None
        branches[v] = sub
    return ("split", f, branches, fallback)


def _tree_features(tree: tuple) -> set[int]:
    if tree[0] == "leaf":
        return set()
    return {tree[1]}.union(*(_tree_features(t) for t in tree[2].values()))


def _tree_labels(tree: tuple, cells: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The label bit the tree gives each of the cells `idx` (columns of `cells`)."""
    out = np.empty(len(idx), dtype=np.int64)
    if tree[0] == "leaf":
        out[:] = tree[1]
        return out
    _, f, branches, fallback = tree
    vals = cells[f, idx]
    known = np.isin(vals, list(branches))
    out[~known] = fallback
    for v, sub in branches.items():
        sel = vals == v
        if sel.any():
            out[sel] = _tree_labels(sub, cells, idx[sel])
    return out
