"""Fitting learned arguments from the demos: recolour maps and local rule tables.

Given what a program computes on each demo input (grids already the size of the demo
outputs) a fit finds the argument that turns every one into its demo output exactly, and
refuses when the test inputs would need something the demos never showed.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, permutations

import numpy as np

from shared.solvers.dsl.primitives.cellrule import CELL_FEATURES, COLOUR_FEATURES, apply_rule, cell_features
from shared.solvers.dsl.primitives.learned import (
    FEATURE_KINDS,
    crop_at,
    extend_pattern,
    features,
    grid_key,
    local_rule,
    stamp,
)
from shared.solvers.dsl.primitives.parts import overlay_order
from shared.solvers.dsl.primitives.props import (
    KEEP,
    OBJECT_KINDS,
    PART_PROPERTIES,
    PICK_PROPERTIES,
    PROPERTIES,
    SELECT_PROPERTIES,
    choose,
    cut_objects,
    object_stamp,
    part_value,
    pick_index,
    pick_value,
    prop_key,
    properties,
    scene_objects,
    select_values,
    stamp_anchors,
)
from shared.solvers.dsl.types import MARKER, Grid

MAX_TABLE = 400  # a rule table larger than this memorises rather than explains
MAX_CELL_RULES = 300  # cell rules kept per fit; many fitting at once is a sign of too few constraints
MAX_OBJECTS = 60  # per-object rules on scenes of more objects than this are noise, and slow


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
    """(ry, rx, layout) when every output is (up to a recolour) a block grid of dihedral copies of its value."""
    (h, w), (oh, ow) = values[0].shape, outputs[0].shape
    # copies of a single cell are a plain fill, not a layout
    if oh % h or ow % w or (oh, ow) == (h, w) or any(v.size == 1 for v in values):
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
                                              _same(np.rot90(v.T if k >= 4 else v, k % 4) != 0, block != 0))]
        if not options:
            return None
        layout.append(options[0])
    return ry, rx, tuple(layout)


def _same(a: Grid | None, b: Grid) -> bool:
    return a is not None and a.shape == b.shape and bool(np.array_equal(a, b))


def fit_extend(values: list[Grid], outputs: list[Grid]) -> tuple | None:
    """(ry, rx) as fractions when every output continues (up to a recolour) its value's pattern to a larger size."""
    pairs = list(zip(values, outputs, strict=True))
    if any(o.shape[0] < v.shape[0] or o.shape[1] < v.shape[1] or o.shape == v.shape for v, o in pairs):
        return None
    ratios = {(Fraction(o.shape[0], v.shape[0]), Fraction(o.shape[1], v.shape[1])) for v, o in pairs}
    if len(ratios) != 1:
        return None
    fy, fx = ratios.pop()
    if fy < 1 or fx < 1 or fy == fx == 1:
        return None
    args = ((fy.numerator, fy.denominator), (fx.numerator, fx.denominator))
    for v, o in zip(values, outputs, strict=True):
        if not _same(extend_pattern(v, *args) != 0, o != 0):
            return None
    return args


def fit_crop(values: list[Grid], outputs: list[Grid]) -> tuple | None:
    """(y, x, h, w) when every output is the same-sized window of its value at a fixed corner offset."""
    h, w = outputs[0].shape
    if any(o.shape != (h, w) for o in outputs) or any(v.shape[0] < h or v.shape[1] < w for v in values):
        return None
    if all(v.shape == (h, w) for v in values):
        return None
    # where the first demo's answer sits in its value; each hit, counted from either edge, is a guess
    windows = np.lib.stride_tricks.sliding_window_view(values[0], (h, w))
    hits = np.argwhere((windows == outputs[0]).all(axis=(2, 3)))
    gh, gw = values[0].shape
    guesses = sorted({(y, x) for y0, x0 in hits.tolist() for y in (y0, y0 - (gh - h) - 1)
                      for x in (x0, x0 - (gw - w) - 1)}, key=lambda yx: (abs(yx[0]) + abs(yx[1]), yx))
    for y, x in guesses:
        if all(_same(crop_at(v, y, x, h, w), o) for v, o in zip(values, outputs, strict=True)):
            return y, x, h, w
    return None


def fit_lookup(values: list[Grid], outputs: list[Grid], tests: list[Grid]) -> dict | None:
    """A table value -> output when values repeat across the demos and every test value was seen."""
    # cheap refusal first: without two equal demo values there is nothing to look up
    if len({bytes(v.shape) + v.tobytes() for v in values}) == len(values):
        return None
    table: dict = {}
    for v, o in zip(values, outputs, strict=True):
        if table.setdefault(grid_key(v), grid_key(o)) != grid_key(o):
            return None
    # a table with one entry per demo explains nothing; demand that some demo repeats another
    if len(table) == len(values) or any(grid_key(t) not in table for t in tests):
        return None
    return table


STAMP_REACH = 2  # stamps cover the 5x5 square around a cell


def fit_stamp(values: list[Grid], outputs: list[Grid]) -> dict | None:
    """Per-colour stamps painted on zero cells around each cell of that colour, if they explain the demos."""
    # stamps only paint zero cells: every non-zero cell must already be as in the output
    if any((o[v != 0] != v[v != 0]).any() for v, o in zip(values, outputs, strict=True)):
        return None
    stamps: dict[int, tuple] = {}
    colours = sorted({int(c) for v in values for c in np.unique(v)} - {0})
    offsets = [(dy, dx) for dy in range(-STAMP_REACH, STAMP_REACH + 1) for dx in range(-STAMP_REACH, STAMP_REACH + 1)
               if (dy, dx) != (0, 0)]
    for c in colours:
        marks = []
        for dy, dx in offsets:
            seen, support = set(), 0
            for v, o in zip(values, outputs, strict=True):
                ys, xs = np.nonzero(v == c)
                ty, tx = ys + dy, xs + dx
                ok = (ty >= 0) & (ty < v.shape[0]) & (tx >= 0) & (tx < v.shape[1])
                ty, tx = ty[ok], tx[ok]
                free = v[ty, tx] == 0
                seen.update(o[ty[free], tx[free]].tolist())
                support += int(free.sum())
            # a mark seen once may be a neighbour's stamp; demand it around two cells at least
            if len(seen) == 1 and 0 not in seen and support >= 2:
                marks.append((dy, dx, seen.pop()))
        if marks:
            stamps[c] = tuple(marks)
    if not stamps or not all(_same(stamp(v, stamps), o) for v, o in zip(values, outputs, strict=True)):
        return None
    return stamps


OBJECT_STAMP_MARGINS = (0, 1, 2, 3)  # how far past its object's box a stamp may reach
_UNSEEN, _CLASH = -1, -2


def fit_object_stamp(values: list[Grid], outputs: list[Grid], tests: list[Grid]) -> tuple | None:
    """(kind, margin, table) when every object, by the size of its box, gets the same marks around
    it in every demo (colours by role, so a mark may take the object's own colour); the smallest
    margin, and each box size backed by two objects or more, seen again in the tests."""
    for kind in OBJECT_KINDS:
        anchors = [stamp_anchors(v, kind) for v in values]
        test_anchors = [stamp_anchors(t, kind) for t in tests]
        if any(a is None for a in anchors + test_anchors):
            continue
        sizes = Counter((y1 - y0, x1 - x0) for a in anchors for (y0, x0, y1, x1), _ in a)
        if any(sizes[(y1 - y0, x1 - x0)] < 2 for a in test_anchors for (y0, x0, y1, x1), _ in a):
            continue
        for margin in OBJECT_STAMP_MARGINS:
            table = _stamp_table(values, outputs, anchors, margin)
            if table is not None and all(_same(object_stamp(v, kind, margin, table), o)
                                         for v, o in zip(values, outputs, strict=True)):
                return kind, margin, table
    return None


def _stamp_table(values: list[Grid], outputs: list[Grid], anchors: list, margin: int) -> dict | None:
    """Per box size, the marks every object of that size agrees on (None on a clash): a cell is
    marked where some demo changed it; its code is a colour, or 16 + r for the object's r-th colour."""
    codes: dict[tuple, np.ndarray] = {}
    kept: dict[tuple, np.ndarray] = {}
    pad = max(OBJECT_STAMP_MARGINS)
    for v, o, objs in zip(values, outputs, anchors, strict=True):
        pv = np.pad(v.astype(np.int16), pad, constant_values=-1)
        po = np.pad(o.astype(np.int16), pad, constant_values=-1)
        for (y0, x0, y1, x1), ranked in objs:
            size = (y1 - y0, x1 - x0)
            sl = np.s_[pad + y0 - margin:pad + y1 + margin, pad + x0 - margin:pad + x1 + margin]
            wv, wo = pv[sl], po[sl]
            role = np.full(17, -1, dtype=np.int16)
            role[ranked] = 16 + np.arange(1, len(ranked) + 1)
            by_role = role[wo.clip(0)]  # outside the grid reads colour 0, which no object has
            code = np.where(wo < 0, _UNSEEN, np.where(by_role > 0, by_role, wo))
            if size not in codes:
                codes[size] = np.full(wv.shape, _UNSEEN, dtype=np.int16)
                kept[size] = np.ones(wv.shape, dtype=bool)
            known = codes[size]
            inside = wo >= 0
            kept[size] &= ~inside | (wo == wv)
            fresh = inside & (known == _UNSEEN)
            known[fresh] = code[fresh]
            known[inside & (known != code)] = _CLASH
    table = {}
    for size, known in codes.items():
        marked = ~kept[size] & (known != _UNSEEN)
        if (known[marked] == _CLASH).any():
            return None
        ys, xs = np.nonzero(marked)
        table[size] = tuple((int(y), int(x), int(c) if c < 16 else 16 - int(c))
                            for y, x, c in zip(ys, xs, known[ys, xs], strict=True))
    return table if any(table.values()) else None


def _object_explanations(values: list[Grid], outputs: list[Grid], kind: str) -> list | None:
    """Per demo, per object: the table values that would explain its output cells (None: no rule can)."""
    out = []
    for v, o in zip(values, outputs, strict=True):
        per = []
        for ys, xs in scene_objects(v, kind):
            before, after = v[ys, xs], o[ys, xs]
            ok = set()
            if np.array_equal(before, after):
                ok.add(KEEP)
                if (before == before[0]).all():
                    ok.add(int(before[0]))
            elif (after == after[0]).all():
                ok.add(int(after[0]))
            if not ok:
                return None
            per.append(ok)
        out.append(per)
    return out


def fit_recolor_objects(values: list[Grid], outputs: list[Grid], tests: list[Grid], limit: int = 2) -> list[tuple]:
    """(kind, prop, table) rules recolouring each object by one property that explain every demo.

    Background cells must stay as they are, some object must change, every test object's property
    must have been seen in the demos, and some property value must cover two objects or more (a
    table with one entry per object memorises rather than explains). Simplest properties first.
    """
    if any(v.shape != o.shape or (o[v == 0] != 0).any() for v, o in zip(values, outputs, strict=True)):
        return []
    if all(np.array_equal(v, o) for v, o in zip(values, outputs, strict=True)):
        return []
    found = []
    for kind in OBJECT_KINDS:
        explained = _object_explanations(values, outputs, kind)
        if explained is None:
            continue
        n_objects = sum(len(per) for per in explained)
        if max(len(per) for per in explained) > MAX_OBJECTS:
            continue
        for prop in PROPERTIES:
            options: dict[str, set] = {}
            for v, per in zip(values, explained, strict=True):
                for value, ok in zip(properties(v, kind, prop), per, strict=True):
                    k = prop_key(value)
                    options[k] = options[k] & ok if k in options else set(ok)
            if not options or any(not ok for ok in options.values()) or len(options) >= n_objects:
                continue
            table = {k: (KEEP if KEEP in ok else min(ok)) for k, ok in options.items()}
            if all(c == KEEP for c in table.values()):
                continue
            if any(prop_key(value) not in table for t in tests for value in properties(t, kind, prop)):
                table = _with_default(table)
                if table is None:
                    continue
            found.append((kind, prop, table))
            if len(found) == limit:
                return found
            break  # the simplest property for this kind of object; another kind may give a second
    return found


def _with_default(table: dict) -> dict | None:
    """A table where one value is the exception and 3+ others agree: that agreement becomes "*"."""
    counts = Counter(table.values())
    if len(counts) != 2:
        return None
    (common, n), (_, m) = counts.most_common()
    if m != 1 or n < 3:
        return None
    return {**{k: c for k, c in table.items() if c != common}, "*": common}


def fit_select_object(values: list[Grid], outputs: list[Grid]) -> tuple | None:
    """(kind, prop, how, box) when each output is the one object picked by a property extreme or oddity
    (box "colour": a single cell of its commonest colour, for outputs that are one cell)."""
    if all(o.shape == (1, 1) for o in outputs):
        return _select_colour(values, outputs)
    for kind in OBJECT_KINDS:
        scenes = []
        for v, o in zip(values, outputs, strict=True):
            objs = scene_objects(v, kind)
            # only objects whose box has the output's shape can be it
            fits = [i for i, (ys, xs) in enumerate(objs)
                    if (ys.max() - ys.min() + 1, xs.max() - xs.min() + 1) == o.shape]
            if not fits or len(objs) > MAX_OBJECTS:
                break
            scenes.append(fits)
        else:
            for box in (False, True):
                targets = []
                for v, o, fits in zip(values, outputs, scenes, strict=True):
                    cuts = cut_objects(v, kind, box)
                    hits = [i for i in fits if _same(cuts[i], o)]
                    if not hits:
                        break
                    targets.append(hits)
                else:
                    for prop in SELECT_PROPERTIES:
                        for how in ("max", "min", "unique"):
                            if all(choose(select_values(v, kind, prop), how) in hits
                                   for v, hits in zip(values, targets, strict=True)):
                                return kind, prop, how, box
    return None


def _select_colour(values: list[Grid], outputs: list[Grid]) -> tuple | None:
    for kind in OBJECT_KINDS:
        scenes = [scene_objects(v, kind) for v in values]
        if any(not 2 <= len(objs) <= MAX_OBJECTS for objs in scenes):
            continue
        colours = [[int(cell[0, 0]) for cell in cut_objects(v, kind, "colour")] for v in values]
        for prop in SELECT_PROPERTIES:
            scores = [select_values(v, kind, prop) for v in values]
            for how in ("max", "min", "unique"):
                picks = [choose(vals, how) for vals in scores]
                if all(i is not None and cs[i] == o[0, 0] for i, cs, o in zip(picks, colours, outputs, strict=True)):
                    return kind, prop, how, "colour"
    return None


def _feature_matrix(per: list[dict]) -> np.ndarray:
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
_LABEL_ORDER = [10, *range(10), *range(11, 10 + len(COLOUR_FEATURES))]


def _label(mask: int) -> int | str:
    bit = next(b for b in _LABEL_ORDER if mask >> b & 1)
    return bit if bit < 10 else COLOUR_FEATURES[bit - 10]


def _demo_cells(values: list[Grid], outputs: list[Grid]) -> tuple | None:
    """The demo cells as (features, cells), their label masks and how many cells each column
    stands for: cells alike in every feature and label behave alike, so one of each is kept (often
    10x fewer). None when some cell's output no label gives."""
    demo = _feature_matrix([cell_features(v) for v in values])
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
    cells = _demo_cells(values, outputs)
    if cells is None:
        return []
    demo, masks, _ = cells
    test_features = [cell_features(t) for t in tests]
    test = np.unique(_feature_matrix(test_features), axis=1)
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
                table[tuple((key // 16 ** i) % 16 for i in range(size))] = _label(mask)
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


def fit_part_table(values: list, outputs: list[Grid], tests: list) -> tuple | None:
    """(prop, table, shape) that gives each demo output one cell per part, coloured by a property
    of the part, when some property value recurs and every test part's value was seen. Outputs
    whose rows (or columns) are each one colour, one per part, are fitted as a column (row) of
    cells stretched to their width (height): (prop, table, shape, stretch)."""
    stretch = (1, 1)
    if not all(len(v) == o.size for v, o in zip(values, outputs, strict=True)):
        wide = {o.shape[1] for o in outputs}
        tall = {o.shape[0] for o in outputs}
        pairs = list(zip(values, outputs, strict=True))
        if len(wide) == 1 and all(len(v) == o.shape[0] and (o == o[:, :1]).all() for v, o in pairs):
            stretch, outputs = (1, wide.pop()), [o[:, :1] for o in outputs]
        elif len(tall) == 1 and all(len(v) == o.shape[1] and (o == o[:1]).all() for v, o in pairs):
            stretch, outputs = (tall.pop(), 1), [o[:1] for o in outputs]
        else:
            return None
    shapes = {o.shape for o in outputs}
    if len(shapes) == 1:
        shape = next(iter(shapes))
    elif all(o.shape[1] == 1 for o in outputs):
        shape = (0, 1)
    elif all(o.shape[0] == 1 for o in outputs):
        shape = (1, 0)
    else:
        return None
    if 0 not in shape and any(len(t) != shape[0] * shape[1] for t in tests):
        return None
    n = sum(len(v) for v in values)
    for prop in PART_PROPERTIES:
        table: dict = {}
        if all(table.setdefault(prop_key(part_value(p, prop)), c) == c
               for v, o in zip(values, outputs, strict=True) for p, c in zip(v, o.ravel().tolist(), strict=True)):
            covered = all(prop_key(part_value(p, prop)) in table for t in tests for p in t)
            if covered and len(table) < n:
                return (prop, table, shape) if stretch == (1, 1) else (prop, table, shape, stretch)
    return None


def fit_select_part(values: list, outputs: list[Grid], tests: list) -> tuple | None:
    """(prop, how) when every demo output is the part that a property picks: its largest, smallest
    or unique value, or one value every demo picked by; and it picks one part of every test."""
    if any(len(parts) < 2 for parts in values + tests):
        return None
    right = []
    for parts, o in zip(values, outputs, strict=True):
        hits = {i for i, p in enumerate(parts) if _same(p, o)}
        if not hits:
            return None
        right.append(hits)
    for prop in PICK_PROPERTIES:
        table = [[pick_value(p, prop) for p in parts] for parts in values]
        test_table = [[pick_value(p, prop) for p in parts] for parts in tests]
        picked = {table[k][min(hits)] for k, hits in enumerate(right)}
        for how in ("max", "min", "unique", *([picked.pop()] if len(picked) == 1 else [])):
            if all(pick_index(vals, how) in hits for vals, hits in zip(table, right, strict=True)) and \
                    all(pick_index(vals, how) is not None for vals in test_table):
                return prop, how
    return None


def fit_overlay_order(values: list, outputs: list[Grid]) -> tuple | None:
    """The painting order of 3 or 4 parts (2 are searched both ways) that gives every demo output."""
    n = len(values[0])
    if not 3 <= n <= 4 or any(len(v) != n or any(p.shape != o.shape for p in v)
                               for v, o in zip(values, outputs, strict=True)):
        return None
    for order in permutations(range(n)):
        if all(_same(overlay_order(v, order), o) for v, o in zip(values, outputs, strict=True)):
            return order
    return None


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
    demo_cells = _demo_cells(values, outputs)
    if demo_cells is None:
        return None
    demo, masks, counts = demo_cells
    bits = ((masks[:, None] >> np.arange(10 + len(COLOUR_FEATURES))) & 1).astype(np.float64)
    test_features = [cell_features(t) for t in tests]
    test = np.unique(_feature_matrix(test_features), axis=1)
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
    table = {tuple(col): _label(1 << bit) for col, bit in zip(cells[used].T.tolist(), labels.tolist(), strict=True)}
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
        return ("leaf", next(b for b in _LABEL_ORDER if common[b]))
    if depth == 0 or splits[0] == 0:
        return None
    if data.deadline is not None and time.monotonic() > data.deadline:
        raise TimeoutError
    splits[0] -= 1
    weights = data.weights[idx]
    totals = weights @ here
    # for unseen values: the most common of keeping the colour and the literals (a copied feature
    # may look outside the grid)
    fallback = max(_LABEL_ORDER[:11], key=lambda b: totals[b])
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
