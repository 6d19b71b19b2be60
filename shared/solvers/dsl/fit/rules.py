"""Rule fits: a colour per cell read off a table, keyed by the cell's neighbourhood or its features.

Local rules (`fit_local_rule`) key on a fixed neighbourhood kind (`local_rule_kinds`, simplest
first). Cell rules (`fit_cell_rule`) pick the fewest of `CELL_FEATURES` whose values explain
every demo cell; a cell's label is a literal colour or a copy of a colour-valued feature. The
helpers that turn demos into (features, cells) columns and label masks are shared with `tree`.
"""

from __future__ import annotations

import time
from functools import lru_cache
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


FEATURE_VALUES = 16  # every cell feature's value lies in 0..15: a feature set's key is its values in base 16
SCREEN_SLOTS = 1 << 20  # table slots one screening chunk may use
SCREEN_KEYS = 1 << 21  # (set, demo column) keys one screening chunk may compute: a few MB of arrays a chunk


@lru_cache(maxsize=8)
def _combos(n: int, size: int) -> np.ndarray:
    """Every `size`-subset of range(n) as rows, in `combinations` order."""
    return np.array(list(combinations(range(n), size)), dtype=np.int64).reshape(-1, size)


def _candidates(n: int, size: int, covered: np.ndarray) -> np.ndarray:
    """The feature sets of `size` worth trying, in `combinations` order: a set covers the tests
    only if every smaller set inside it does (`covered` holds the sets of size - 1 that do)."""
    combos = _combos(n, size)
    if size == 1:
        return combos
    ok = np.ones(len(combos), dtype=bool)
    for drop in range(size):
        sub = np.delete(combos, drop, axis=1)
        ok &= covered[tuple(sub.T)]
    return combos[ok]


def _dense(demo: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each feature's values renumbered 0.. over the demo and test columns together, and how many
    values each feature takes (a feature set's tuples then fit in the product of those counts)."""
    both = np.concatenate([demo, test], axis=1)
    dense = np.zeros(both.shape, dtype=np.int32)
    counts = np.ones(len(both), dtype=np.int32)
    for f, row in enumerate(both):
        values, dense[f] = np.unique(row, return_inverse=True)
        counts[f] = len(values)
    return dense[:, :demo.shape[1]], dense[:, demo.shape[1]:], counts


def _screen(demo: np.ndarray, masks: np.ndarray, test: np.ndarray, sets: np.ndarray,
            deadline: float | None) -> tuple[np.ndarray, np.ndarray, bool]:
    """For each feature set (a row of `sets`): whether its value tuples stay within MAX_TABLE and
    cover every test column, and whether each tuple's demo cells share some label; and whether
    every set was screened before the deadline (those after it read False). One table per set,
    addressed by the tuple in mixed radix, the sets' tables laid end to end, a chunk at a time."""
    d, t, counts = _dense(demo, test)
    strides = np.cumprod(np.concatenate([np.ones((len(sets), 1), dtype=np.int32), counts[sets[:, :-1]]], axis=1),
                         axis=1, dtype=np.int32)
    slots = (strides[:, -1] * counts[sets[:, -1]]).astype(np.int64)
    ends = np.cumsum(slots)
    covers = np.zeros(len(sets), dtype=bool)
    agrees = np.zeros(len(sets), dtype=bool)
    per_chunk = max(1, SCREEN_KEYS // demo.shape[1])
    a = 0
    while a < len(sets):
        if deadline is not None and time.monotonic() > deadline:
            return covers, agrees, False
        b = max(a + 1, min(a + per_chunk, int(np.searchsorted(ends, ends[a] - slots[a] + SCREEN_SLOTS, side="right"))))
        start = ends[a] - slots[a]
        offset = (ends[a:b] - slots[a:b] - start).astype(np.int32)[:, None]
        keys, test_keys = offset + d[sets[a:b, 0]], offset + t[sets[a:b, 0]]
        for j in range(1, sets.shape[1]):
            keys += d[sets[a:b, j]] * strides[a:b, j, None]
            test_keys += t[sets[a:b, j]] * strides[a:b, j, None]
        seen = np.zeros(int(ends[b - 1] - start), dtype=bool)
        seen[keys] = True
        ok = (np.add.reduceat(seen, offset[:, 0]) <= MAX_TABLE) & seen[test_keys].all(axis=1)
        covers[a:b] = ok
        rows = np.flatnonzero(ok)
        if len(rows):
            labels = np.full(len(seen), -1, dtype=np.int64)
            np.bitwise_and.at(labels, keys[rows].ravel(), np.broadcast_to(masks, (len(rows), len(masks))).ravel())
            agrees[a + rows] = (labels[keys[rows]] != 0).all(axis=1)
        a = b
    return covers, agrees, True


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
    if demo.min() < 0 or test.min() < 0 or max(demo.max(), test.max()) >= FEATURE_VALUES:
        raise ValueError(f"a cell feature's value lies outside 0..{FEATURE_VALUES - 1}")
    n = len(CELL_FEATURES)
    found = []
    covered = np.zeros((n,), dtype=bool)  # by feature set: its value tuples cover every test cell
    for size in range(1, max_features + 1):
        sets = _candidates(n, size, covered)
        covers, agrees, screened = _screen(demo, masks, test, sets, deadline)
        good = np.flatnonzero(covers & agrees)[:max(MAX_CELL_RULES - len(found), 1)]
        found.extend(_rule(demo, masks, names) for names in sets[good].tolist())
        # too many rules: the sets after the last one kept count as not tried
        tried = good[-1] + 1 if len(good) and len(found) >= MAX_CELL_RULES else len(sets)
        covered = np.zeros((n,) * size, dtype=bool)
        covered[tuple(sets[:tried][covers[:tried]].T)] = True
        if size == 1:  # a feature one value on every demo cell adds nothing to a set but a copy of its rules
            covered &= (demo != demo[:, :1]).any(axis=1)
        if not screened or len(_distinct(found, test_features, limit)) == limit:
            break  # a rule on one more feature would only be a weaker second attempt
    return _distinct(found, test_features, limit)


def _rule(demo: np.ndarray, masks: np.ndarray, names: list[int]) -> tuple:
    """The rule (feature names, table) of a feature set whose value tuples each share a label."""
    weights = FEATURE_VALUES ** np.arange(len(names), dtype=np.int64)
    keys = weights @ demo[names]
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    starts = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1]])
    groups = np.bitwise_and.reduceat(masks[order], starts)
    table = {tuple((key // FEATURE_VALUES ** i) % FEATURE_VALUES for i in range(len(names))): label_of(mask)
             for key, mask in zip(sk[starts].tolist(), groups.tolist(), strict=True)}
    return tuple(CELL_FEATURES[i] for i in names), table


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
