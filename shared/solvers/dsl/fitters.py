"""Learned last steps as one ordered list: which fit is tried on which state, and what it costs.

A search engine that has computed a state (one value per demo input, then per test input) calls
`fit_state`; it walks `FITTERS` in order and returns every program ending found, as `Found`:
the steps to append to the state's program, their kind, cost and test predictions. Each entry
names the learned primitive it fits, where it applies (`on`), the fit, the primitive that
applies the fitted arguments, and its cost rule. The engine builds its own candidates from the
results; the search (`search.Search`) and any other engine share this one path.

Where an entry applies, from the state's kind and its demo values beside the demo outputs:

- "grid": any grid state
- "sized": a grid state with the outputs' shapes that is not already exact
- "resizing": a grid state of other shapes
- "parts": a list state (objects, cells, parts of a split)

Limits that span a whole search (how many states the slow fits may take, the cell rules' time
allowance, the deadline) live in a `FitContext`, one per search.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from shared.solvers.dsl.fit import (
    fit_arrange,
    fit_cell_rule,
    fit_crop,
    fit_extend,
    fit_fill_rooms,
    fit_halo_objects,
    fit_lines_objects,
    fit_local_rule,
    fit_lookup,
    fit_move_by,
    fit_move_objects,
    fit_object_stamp,
    fit_overlay_order,
    fit_pad,
    fit_panels,
    fit_part_table,
    fit_recolor,
    fit_recolor_objects,
    fit_select_object,
    fit_select_part,
    fit_stamp,
    fit_stamp_templates,
    fit_trail_stamp,
    local_rule_kinds,
)
from shared.solvers.dsl.primitives.cellrule import cell_rule
from shared.solvers.dsl.primitives.learned import (
    arrange,
    crop_at,
    extend_pattern,
    fill_panels,
    local_rule,
    lookup,
    pad_to,
    recolor,
    stamp,
    trail_stamp,
)
from shared.solvers.dsl.primitives.parts import overlay_order
from shared.solvers.dsl.primitives.props import (
    fill_rooms,
    halo_objects,
    lines_objects,
    move_by,
    move_objects,
    object_stamp,
    part_table,
    recolor_objects,
    select_object,
    select_part,
    stamp_templates,
)
from shared.solvers.dsl.types import GRID, GRIDS, MARKER, Grid

MAX_RULE_FITS = 60             # local rules are the slowest fit; try them on the cheapest states
MAX_CELL_FITS = (3, 30)        # cell rules on 3 features for the 3 cheapest sized states, on 2 for 30
CELL_SHARE = 0.2               # of a search's time, the most that cell rule fits may take
MAX_SELECT_FITS = 60           # picking one object by a property: tried on the cheapest resizing states
MAX_LOCAL_RULES = 2            # a second rule of another kind is a second attempt; more is waste
QUOTAS = {"rule": MAX_RULE_FITS, "select": MAX_SELECT_FITS}  # states each shared quota may take


@dataclass
class FitContext:
    """The fits' limits and bookkeeping over one search: its deadline (the search may move it
    closer), how many states each quota has taken, and the cell rules' count and time."""

    deadline: float
    cell_allowance: float = 0.0    # seconds all cell rule fits together may take
    limits: dict = field(default_factory=lambda: dict(QUOTAS))
    used: dict = field(default_factory=dict)
    cell_fits: int = 0
    cell_time: float = 0.0

    @classmethod
    def start(cls, deadline: float) -> FitContext:
        """A context for a search starting now and ending at `deadline`."""
        return cls(deadline, cell_allowance=CELL_SHARE * max(0.0, deadline - time.monotonic()))

    def charge(self, quota: str) -> bool:
        """Take one state from the quota; False when it is spent."""
        n = self.used.get(quota, 0)
        if n >= self.limits[quota]:
            return False
        self.used[quota] = n + 1
        return True


@dataclass(frozen=True)
class Fitter:
    """One learned last step: the primitive `name`, fitted by `fit` on states where it applies.

    `fit(ctx, demo, outputs, test)` gives argument tuples (none when it does not fit); each one is
    applied to the test values as `apply(value, *args)`. `cost(state cost, *args)` is the program's
    cost. With `recolor`, the built demo grids must also match the outputs up to a colour map,
    which becomes a second step `recolor` when it maps anything; `cost` then takes the map.
    `when(demo, outputs)` narrows where it applies; a `quota` (of `FitContext.limits`) is charged
    once per state for all the entries sharing it, and a spent one skips them; a `final` entry
    that finds something ends the state's fitting.
    """

    name: str                          # the learned primitive the program ends in (a recolour may follow)
    on: str                            # "grid", "sized", "resizing" or "parts": see the module's docstring
    fit: Callable[..., list]           # (ctx, demo, outputs, test) -> [args, ...]
    apply: Callable[..., Grid | None]  # the primitive itself: (value, *args) -> grid, None where it refuses
    kind: str                          # the candidate's kind: "fitted", or "rule" (a coincidence more often)
    cost: Callable[..., float]         # (state cost, *args) -> cost; with `recolor`, (state cost, map)
    recolor: bool = False
    when: Callable[[list, list], bool] | None = None
    quota: str | None = None
    final: bool = False


@dataclass
class Found:
    """A learned ending for a state: append `steps` ((primitive name, args) pairs, in order) to
    the state's program to get a program of this `kind` and `cost` that reproduces `explained`
    demos; `preds` are its test answers (grids, but possibly holding marker colours)."""

    steps: tuple
    kind: str
    cost: float
    preds: list
    explained: int

    @property
    def usable(self) -> bool:
        """Every test answer a real grid: no marker colour left over."""
        return all(p.max() < MARKER for p in self.preds)


# the fits, each giving a list of argument tuples for its primitive

def _one(fit):
    """A fit that returns one argument or None, as an entry's fit."""
    def fit_one(ctx, demo, outputs, test):
        found = fit(demo, outputs, test)
        return [] if found is None else [(found,)]
    return fit_one


def _layout(fit):
    def fit_layout(ctx, demo, outputs, test):
        found = fit(demo, outputs)
        return [] if found is None else [found]
    return fit_layout


def _select_object(ctx, demo, outputs, test):
    found = fit_select_object(demo, outputs)
    return [] if found is None else [found]


def _rules(fit):
    """A fit that already returns its list of argument tuples, as an entry's fit."""
    def fit_rules(ctx, demo, outputs, test):
        return fit(demo, outputs, test)
    return fit_rules


def _stamp(ctx, demo, outputs, test):
    stamps = fit_stamp(demo, outputs)
    return [] if stamps is None else [(stamps,)]


def _trail_stamp(ctx, demo, outputs, test):
    trails = fit_trail_stamp(demo, outputs)
    return [] if trails is None else [(trails,)]


def _object_stamp(ctx, demo, outputs, test):
    found = fit_object_stamp(demo, outputs, test)
    return [] if found is None else [found]


def _cell_rule(ctx, demo, outputs, test):
    """Cell rules on 3 features for the first states, on 2 after, within the time allowance."""
    if ctx.cell_fits >= MAX_CELL_FITS[1] or ctx.cell_time >= ctx.cell_allowance:
        return []
    wide = ctx.cell_fits < MAX_CELL_FITS[0]
    ctx.cell_fits += 1
    start = time.monotonic()
    stop = min(ctx.deadline, start + ctx.cell_allowance - ctx.cell_time)
    rules = fit_cell_rule(demo, outputs, test, 3 if wide else 2, deadline=stop)
    ctx.cell_time += time.monotonic() - start
    return rules


def _local_rule(ctx, demo, outputs, test):
    """Local rules of the simplest kinds that fit (cell features are `cell_rule`'s), until the deadline."""
    found = []
    for kind in local_rule_kinds():
        if kind == "cell":
            continue
        if time.monotonic() > ctx.deadline:
            break
        table = fit_local_rule(demo, outputs, test, kind)
        if table is not None:
            found.append((kind, table))
            if len(found) == MAX_LOCAL_RULES:
                break
    return found


def _overlay_order(ctx, demo, outputs, test):
    order = fit_overlay_order(demo, outputs)
    return [] if order is None else [(order,)]


def _select_part(ctx, demo, outputs, test):
    found = fit_select_part(demo, outputs, test)
    return [] if found is None else [found]


def _part_table(ctx, demo, outputs, test):
    found = fit_part_table(demo, outputs, test)
    return [] if found is None else [found]


def _marks(stamps: dict) -> int:
    return sum(len(m) for m in stamps.values())


def _shrinks(demo: list, outputs: list) -> bool:
    return all(v.size > o.size for v, o in zip(demo, outputs, strict=True))


FITTERS: tuple[Fitter, ...] = (
    Fitter("lookup", "grid", _one(fit_lookup), lookup, "fitted", lambda c, table: c + 3 + len(table)),
    Fitter("arrange", "resizing", _layout(fit_arrange), arrange, "fitted",
           lambda c, mapping: c + 1 + 0.3 * len(mapping), recolor=True),
    Fitter("extend_pattern", "resizing", _layout(fit_extend), extend_pattern, "fitted",
           lambda c, mapping: c + 1 + 0.3 * len(mapping), recolor=True),
    Fitter("crop_at", "resizing", _layout(fit_crop), crop_at, "fitted",
           lambda c, mapping: c + 1 + 0.3 * len(mapping), recolor=True),
    Fitter("pad_to", "resizing", _rules(lambda demo, outputs, test: fit_pad(demo, outputs)), pad_to, "fitted",
           lambda c, mapping: c + 1.5 + 0.3 * len(mapping), recolor=True),
    Fitter("select_object", "resizing", _select_object, select_object, "fitted", lambda c, *args: c + 2,
           when=_shrinks, quota="select"),
    Fitter("fill_panels", "sized", _layout(fit_panels), fill_panels, "fitted",
           lambda c, layout: c + 1 + 0.3 * len(layout)),
    Fitter("recolor", "sized", _one(fit_recolor), recolor, "fitted", lambda c, mapping: c + 0.5 + 0.3 * len(mapping),
           final=True),
    Fitter("recolor_objects", "sized", _rules(fit_recolor_objects), recolor_objects, "fitted",
           lambda c, kind, prop, table: c + 1.5 + 0.2 * len(table), quota="rule"),
    Fitter("move_objects", "sized", _rules(fit_move_objects), move_objects, "fitted",
           lambda c, kind, prop, table: c + 1.5 + 0.2 * len(table), quota="rule"),
    Fitter("move_by", "sized", _rules(fit_move_by), move_by, "fitted", lambda c, kind, prop, direction: c + 1.5,
           quota="rule"),
    Fitter("halo_objects", "sized", _rules(fit_halo_objects), halo_objects, "fitted",
           lambda c, kind, prop, table: c + 1.5 + 0.2 * len(table), quota="rule"),
    Fitter("lines_objects", "sized", _rules(fit_lines_objects), lines_objects, "fitted",
           lambda c, kind, prop, table, last: c + 1.5 + 0.2 * len(table), quota="rule"),
    Fitter("fill_rooms", "sized", _rules(fit_fill_rooms), fill_rooms, "fitted",
           lambda c, diagonal, prop, table: c + 1.5 + 0.2 * len(table), quota="rule"),
    Fitter("stamp", "sized", _stamp, stamp, "fitted", lambda c, stamps: c + 1 + 0.1 * _marks(stamps), quota="rule"),
    Fitter("trail_stamp", "sized", _trail_stamp, trail_stamp, "fitted",
           lambda c, trails: c + 1.5 + 0.1 * sum(len(m) for groups in trails.values() for _, m in groups),
           quota="rule"),
    Fitter("stamp_templates", "sized", _one(fit_stamp_templates), stamp_templates, "fitted",
           lambda c, table: c + 1.5 + 0.2 * len(table), quota="rule"),
    Fitter("object_stamp", "sized", _object_stamp, object_stamp, "fitted",
           lambda c, kind, margin, table: c + 1.5 + 0.05 * _marks(table), quota="rule"),
    Fitter("cell_rule", "sized", _cell_rule, cell_rule, "rule",
           lambda c, names, table: c + 2 + 0.5 * len(names) + len(table) / 50, quota="rule"),
    Fitter("local_rule", "sized", _local_rule, local_rule, "rule",
           lambda c, kind, table: c + 2 + 0.5 * local_rule_kinds().index(kind) + len(table) / 50, quota="rule"),
    Fitter("overlay_order", "parts", _overlay_order, overlay_order, "fitted", lambda c, order: c + 1.5),
    Fitter("select_part", "parts", _select_part, select_part, "fitted", lambda c, *args: c + 1.5),
    Fitter("part_table", "parts", _part_table, part_table, "fitted",
           lambda c, prop, table, *_: c + 1.5 + 0.2 * len(table)),
)


def situation(kind: str, demo: list, outputs: list[Grid]) -> str:
    """Where a state stands: "parts" (a list state), "exact" (it already is every demo output),
    "sized" (the outputs' shapes), "resizing" (other shapes), or "none" (a kind no entry takes)."""
    if kind == GRIDS:
        return "parts"
    if kind != GRID:
        return "none"  # a kind no entry knows
    if [v.shape for v in demo] != [o.shape for o in outputs]:
        return "resizing"
    if all(np.array_equal(v, o) for v, o in zip(demo, outputs, strict=True)):
        return "exact"
    return "sized"


def fit_state(ctx: FitContext, kind: str, demo: list, test: list, outputs: list[Grid], cost: float, *,
              where: str | None = None) -> list[Found]:
    """Every learned ending of one state, in `FITTERS` order: `kind` is the state's (GRID or GRIDS),
    `demo` and `test` its values on the demo and test inputs, `cost` its program's cost. `where` is
    `situation(kind, demo, outputs)` when the caller has it already. An exact state gets only the
    "grid" entries: that it is exact is the caller's candidate."""
    where = where or situation(kind, demo, outputs)
    found: list[Found] = []
    charged: dict[str, bool] = {}
    for f in FITTERS:
        if f.on != where and not (f.on == "grid" and kind == GRID):
            continue
        if f.when is not None and not f.when(demo, outputs):
            continue
        if f.quota is not None:
            if f.quota not in charged:
                charged[f.quota] = ctx.charge(f.quota)
            if not charged[f.quota]:
                continue
        before = len(found)
        for args in f.fit(ctx, demo, outputs, test):
            found += _build(f, args, demo, test, outputs, cost)
        if f.final and len(found) > before:
            break
    return found


def _build(f: Fitter, args: tuple, demo: list, test: list, outputs: list[Grid], cost: float) -> list[Found]:
    """The ending that entry `f` with fitted `args` gives (none when a test value refuses it)."""
    preds = [f.apply(t, *args) for t in test]
    steps = ((f.name, args),)
    if f.recolor:
        built = [f.apply(v, *args) for v in demo]
        mapping = fit_recolor(built, outputs, [p for p in preds if p is not None])
        if mapping is None or any(p is None for p in preds):
            return []
        if mapping:
            steps += (("recolor", (mapping,)),)
            preds = [recolor(p, mapping) for p in preds]
        price = f.cost(cost, mapping)
    else:
        price = f.cost(cost, *args)
    if any(p is None for p in preds):
        return []
    return [Found(steps, f.kind, price, preds, len(demo))]
