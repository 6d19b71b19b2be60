"""Rule fits: a colour per cell read off a table, keyed by the cell's neighbourhood or its features.

Local rules (`fit_local_rule`) key on a fixed neighbourhood kind (`local_rule_kinds`, simplest
first). Cell rules (`fit_cell_rule`) pick the fewest of `CELL_FEATURES` whose values explain
every demo cell; a cell's label is a literal colour or a copy of a colour-valued feature. The
helpers that turn demos into (features, cells) columns and label masks are shared with `tree`.
"""

from __future__ import annotations

import time
from itertools import combinations

import numpy as np

from shared.solvers.dsl.fit.common import MAX_TABLE
from shared.solvers.dsl.primitives.cellrule import CELL_FEATURES, COLOUR_FEATURES, apply_rule, cell_features
from shared.solvers.dsl.primitives.learned import FEATURE_KINDS, features, local_rule
from shared.solvers.dsl.types import Grid

MAX_CELL_RULES = 300  # cell rules kept per fit; many fitting at once is a sign of too few constraints


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


def feature_matrix(per: list[dict]) -> np.ndarray:
    """(features, cells) of every cell of every grid, in `CELL_FEATURES` order."""
    return np.stack([np.concatenate([f[n].ravel() for f in per]) for n in CELL_FEATURES]).astype(np.int64)


def _label_masks(feats: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per demo cell, a bit for each label that gives its output: literal colours (bits 0-9) and
    copies of colour-valued features (bit 10 + their index in `COLOUR_FEATURES`)."""
    masks = np.left_shift(1, target).astype(np.int64)
    for k, name in enumerate(COLOUR_FEATURES):
        masks |= np.where(feats[CELL_FEATURES.index(name)] == target, 1 << (10 + k), 0)
    return masks


# the label a group gets when several fit: keeping the colour, then literals, then other copies
LABEL_ORDER = [10, *range(10), *range(11, 10 + len(COLOUR_FEATURES))]


def label_of(mask: int) -> int | str:
    bit = next(b for b in LABEL_ORDER if mask >> b & 1)
    return bit if bit < 10 else COLOUR_FEATURES[bit - 10]


def demo_cells(values: list[Grid], outputs: list[Grid]) -> tuple | None:
    """The demo cells as (features, cells), their label masks and how many cells each column
    stands for: cells alike in every feature and label behave alike, so one of each is kept (often
    10x fewer). None when some cell's output no label gives."""
    demo = feature_matrix([cell_features(v) for v in values])
    masks = _label_masks(demo, np.concatenate([o.ravel() for o in outputs]).astype(np.int64))
    if (masks == 0).any():
        return None
    rows, counts = np.unique(np.vstack([demo, masks[None]]), axis=1, return_counts=True)
    return rows[:-1], rows[-1], counts


def fit_cell_rule(values: list[Grid], outputs: list[Grid], tests: list[Grid], max_features: int = 3,
                  limit: int = 2, deadline: float | None = None) -> list[tuple]:
    """Rules (names, table) over the fewest cell features that explain every demo cell and whose
    feature values cover every test cell; the fewest features and smallest tables first, distinct
    test answers only (one more feature is tried while fewer than `limit` answers are found)."""
    cells = demo_cells(values, outputs)
    if cells is None:
        return []
    demo, masks, _ = cells
    test_features = [cell_features(t) for t in tests]
    test = np.unique(feature_matrix(test_features), axis=1)
    n = len(CELL_FEATURES)
    found = []
    covered: set[tuple] = set()  # feature sets whose value tuples cover every test cell
    for size in range(1, max_features + 1):
        for names in combinations(range(n), size):
            # a set covers the tests only if every smaller set inside it does
            if size > 1 and any(sub not in covered for sub in combinations(names, size - 1)):
                continue
            if deadline is not None and time.monotonic() > deadline:
                return _distinct(found, test_features, limit)
            weights = 16 ** np.arange(size, dtype=np.int64)
            keys = weights @ demo[list(names)]
            order = np.argsort(keys, kind="stable")
            sk = keys[order]
            starts = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1]])
            if len(starts) > MAX_TABLE or not np.isin(weights @ test[list(names)], sk[starts]).all():
                continue
            covered.add(names)
            groups = np.bitwise_and.reduceat(masks[order], starts)
            if (groups == 0).any():
                continue
            cols = [CELL_FEATURES[i] for i in names]
            table = {}
            for key, mask in zip(sk[starts].tolist(), groups.tolist(), strict=True):
                table[tuple((key // 16 ** i) % 16 for i in range(size))] = label_of(mask)
            found.append((tuple(cols), table))
            if len(found) >= MAX_CELL_RULES:
                break
        if len(_distinct(found, test_features, limit)) == limit:
            break  # a rule on one more feature would only be a weaker second attempt
    return _distinct(found, test_features, limit)


def _distinct(found: list[tuple], test_features: list[dict], limit: int) -> list[tuple]:
    out, seen = [], set()
    for names, table in sorted(found, key=lambda r: (len(r[0]), len(r[1]))):
        preds = [apply_rule(f, names, table) for f in test_features]
        if any(p is None for p in preds):
            continue
        key = b"".join(p.tobytes() for p in preds)
        if key not in seen:
            seen.add(key)
            out.append((names, table))
            if len(out) == limit:
                break
    return out
