"""DslSolver: output sizes first, then program search, pieces, augmented passes, ranking, guesses.

`solve(task, budget_s)` returns at most two attempts per test input and a JSON trace whose
"program" is the winning program as straight-line Python. The time budget is split between
passes over the task with its background normalised to 0 (when it is not: one colour for the
whole task, or each pair's own when it changes between pairs), as given, with each grid's
colours by role and each pair turned to its input's orientation (when colours or directions
change between pairs), and transposed; later passes run only while the task is unsolved, and
answers are mapped back.
When programs give fewer than two answers, last guesses fill the free attempts: a decision
tree over cell features grown on the partial results closest to the demo outputs, and those
partial results themselves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from shared.augment import Augmentation
from shared.grids import d8, d8_inverse, grid_hash
from shared.solvers import Prediction
from shared.solvers.dsl import jit
from shared.solvers.dsl.combine import combine
from shared.solvers.dsl.core import search as coresearch
from shared.solvers.dsl.fit import fit_cell_tree
from shared.solvers.dsl.primitives import PRIMITIVES
from shared.solvers.dsl.primitives.cellrule import cell_rule
from shared.solvers.dsl.primitives.colour import background_from, background_to_zero
from shared.solvers.dsl.primitives.learned import colour_roles, orientation, role_perm
from shared.solvers.dsl.program import INPUT, Node, call, rebase, to_source
from shared.solvers.dsl.ranking import rank
from shared.solvers.dsl.search import Candidate, Search
from shared.solvers.dsl.size import predict_sizes
from shared.tasks import Pair, Task

# which primitive performs each dihedral element of shared.grids.d8, found by testing each kernel's
# own Python (its compiled form would be compiled here, at import, ahead of a cold cache's parallel compile)
_PROBE = np.arange(6, dtype=np.uint8).reshape(2, 3)
_D8_PRIM = {k: next(n for n in ("rotate90", "rotate180", "rotate270", "transpose", "flip_lr", "flip_ud",
                                 "anti_transpose")
                    if np.array_equal(getattr(PRIMITIVES[n].kernel, "py_func", PRIMITIVES[n].kernel)(_PROBE),
                                      d8(_PROBE, k)))
            for k in range(1, 8)}


FIRST_PASS_SHARE = 0.7  # of the budget; the later passes only run while the task is unsolved
OWN_BACKGROUND = 0.6    # share of its grid that each background must cover for a per-pair swap
MIN_DEEPER_S = 1.0      # a deeper search given less time than this would not get past the shallow part
CORE_SHARE = 0.4        # of a pass, the most the compiled core may take before the Python search
CORE_STRETCH = 0.7      # of a pass, how far the core's last level may run on when its pace says it ends by then
DEEPER_CORE_RATIO = 3.0  # a deeper core run only when the time left is this many times what the last one took
CORE_BEAM = 1000        # states of the core's last level climbed a step further, and again, with its time left
CORE_FIT_SHARE = 0.25   # of what is left then, the most the learned endings on the core's top states may take
PIECES_SHARE = 0.04     # of a pass, kept for stacking pieces after the searches (typically 0.01-0.2 s)
MAX_PIECES_S = 0.3
SEARCH_SHARE = 0.93     # of the budget (less 0.2 s) for the passes; then the last guesses, to GUESS_SHARE of it,
GUESS_SHARE = 0.975     # and the ranking and printing in what is left (at 10 s: 9.1 s, 9.75 s, returned by ~9.9 s)


@dataclass(frozen=True)
class OwnBackground:
    """Each grid's own background colour swapped with 0 (a demo output by its input's): the view
    of a task whose background colour changes from pair to pair. Answers swap back by their input."""

    id: str = "own-background"
    is_identity: bool = False
    forward, backward = "background_to_zero", "background_from"  # the primitives that print the view

    def args(self) -> tuple:
        return ()

    def apply(self, task: Task) -> Task:
        def pair(p: Pair) -> Pair:
            out = None if p.output is None else background_from(p.output, p.input)
            return Pair(background_to_zero(p.input), out)

        return Task(task.id, tuple(map(pair, task.train)), tuple(map(pair, task.test)), task.source)


@dataclass(frozen=True)
class ColourRoles:
    """Each grid's colours by role (`colour_roles`): the colours every demo input holds, and those
    only the outputs bring, keep theirs (`fixed`); each grid's other colours become the free ones,
    commonest first, and a demo output follows its input's map. The view of a task whose colours
    change from pair to pair (as the reference normalises colours). Answers map back by their input."""

    fixed: tuple
    id: str = "colour-roles"
    is_identity: bool = False
    forward, backward = "colour_roles", "colour_roles_back"

    def args(self) -> tuple:
        return (self.fixed,)

    @staticmethod
    def plan(task: Task) -> ColourRoles | None:
        """The view when it brings the demo inputs' colours closer together (fewer in all), else None."""
        ins = [set(np.unique(p.input).tolist()) for p in task.train]
        before = set().union(*ins)
        outs = set().union(*(np.unique(p.output).tolist() for p in task.train))
        fixed = tuple(sorted(set.intersection(*ins) | {0} | (outs - before)))
        after = set().union(*(np.unique(colour_roles(p.input, fixed)).tolist() for p in task.train))
        return ColourRoles(fixed) if len(after) < len(before) else None

    def apply(self, task: Task) -> Task:
        def pair(p: Pair) -> Pair:
            perm = role_perm(p.input, self.fixed)
            return Pair(perm[p.input], None if p.output is None else perm[p.output])

        return Task(task.id, tuple(map(pair, task.train)), tuple(map(pair, task.test)), task.source)


@dataclass(frozen=True)
class Orientation:
    """Each pair turned to its input's canonical orientation by one feature (`orientation`: the
    long side, the spread of one colour, where one colour lies from another): the view of a task
    whose direction changes from pair to pair (as the reference normalises orientation). A demo
    output turns with its input; answers turn back by theirs."""

    feature: tuple
    id: str = "orientation"
    is_identity: bool = False
    forward, backward = "orient", "orient_back"

    def args(self) -> tuple:
        return (self.feature,)

    @staticmethod
    def plan(task: Task) -> Orientation | None:
        """The first feature every input shows clearly and that turns the demos differently, else None."""
        grids = [p.input for p in task.train + task.test]
        common = set.intersection(*(set(np.unique(g).tolist()) for g in grids)) - {0}
        features = [("aspect",)] + [("axis", c) for c in sorted(common)] + \
            [("towards", a, b) for a in sorted(common) for b in sorted(common) if a < b]
        for f in features:
            ks = [orientation(g, f) for g in grids]
            if None not in ks and len(set(ks[:len(task.train)])) > 1:
                return Orientation(f)
        return None

    def apply(self, task: Task) -> Task:
        def pair(p: Pair) -> Pair:
            k = orientation(p.input, self.feature)
            return Pair(d8(p.input, k), None if p.output is None else d8(p.output, k))

        return Task(task.id, tuple(map(pair, task.train)), tuple(map(pair, task.test)), task.source)


@dataclass(frozen=True)
class Chained:
    """A view (colour roles, orientation) of the task as another augmentation (a background
    swap) left it; answers map back through both, the view first."""

    outer: object
    inner: object
    is_identity: bool = False

    @property
    def id(self) -> str:
        return f"{self.outer.id}+{self.inner.id}"

    def apply(self, task: Task) -> Task:
        return self.inner.apply(self.outer.apply(task))


def _views(first, task: Task) -> list:
    """The colour-roles and orientation views that apply to the task as `first` leaves it."""
    seen = first.apply(task)
    views = [ColourRoles.plan(seen), Orientation.plan(seen)]
    return [v if first.is_identity else Chained(first, v) for v in views if v is not None]


def _passes(task: Task) -> list:
    """Search passes in order: the task as given, or first with its background swapped to 0
    (primitives treat 0 as background; each pair's own when it changes between pairs and covers
    most of every grid); the colour-roles and orientation views of that first pass's task, where
    they apply; the task as given, when the first pass swapped its background; then transposed
    (reading order, row-first splits)."""
    counts = np.bincount(np.concatenate([p.input.ravel() for p in task.train]), minlength=10)
    bg = int(np.argmax(counts))
    if bg == 0:
        first = Augmentation()
    else:
        own = [np.bincount(p.input.ravel()) for p in task.train + task.test]
        if len({int(c.argmax()) for c in own}) > 1 and all(c.max() > OWN_BACKGROUND * c.sum() for c in own):
            first = OwnBackground()
        else:
            perm = list(range(10))
            perm[0], perm[bg] = bg, 0
            first = Augmentation(0, tuple(perm))
    return [first] + _views(first, task) + ([] if first.is_identity else [Augmentation()]) + [Augmentation(4)]


def _wrap(node: Node, aug: Augmentation) -> Node:
    """A program for the augmented task as one for the original: augment I, run, undo."""
    pre = INPUT
    if aug.transform:
        pre = call(_D8_PRIM[aug.transform], pre)
    perm = {i: p for i, p in enumerate(aug.perm) if i != p}
    if perm:
        pre = call("recolor", pre, args=(perm,))
    out = rebase(node, pre)
    if perm:
        out = call("recolor", out, args=({p: i for i, p in perm.items()},))
    if aug.transform:
        out = call(_D8_PRIM[d8_inverse(aug.transform)], out)
    return out


def _unaugment(c: Candidate, aug, tests: list[np.ndarray]) -> Candidate:
    """A candidate found on an augmented task, as one for the original task (whose test inputs are `tests`)."""
    if aug.is_identity:
        return c
    if isinstance(aug, Chained):
        seen = aug.outer.apply(Task("", (), tuple(Pair(t, None) for t in tests)))  # the tests as the view got them
        return _unaugment(_unaugment(c, aug.inner, [p.input for p in seen.test]), aug.outer, tests)
    if isinstance(aug, (OwnBackground, ColourRoles, Orientation)):  # views each test input undoes
        back, args = PRIMITIVES[aug.backward].fn, aug.args()
        preds = [back(p, t, *args) if p is not None else None for p, t in zip(c.preds, tests, strict=True)]
        node = call(aug.backward, rebase(c.node, call(aug.forward, INPUT, args=args)), INPUT, args=args)
        return replace(c, node=node, cost=c.cost + 0.5, preds=preds)
    preds = [aug.invert_grid(p) if p is not None else None for p in c.preds]
    return replace(c, node=_wrap(c.node, aug), cost=c.cost + 0.5, preds=preds)


class DslSolver:
    name = "dsl"

    def __init__(self, max_depth: int = 3, deepest: int = 5, augment: bool = True, core: bool = True,
                 core_depth: int = 3, core_share: float = CORE_SHARE, core_finish: bool = False,
                 core_prune: bool = True, core_deepest: int = 3, core_stretch: float = CORE_STRETCH,
                 core_beam: int = CORE_BEAM):
        self.max_depth = max_depth  # depth 3 with last-step pruning fills ~20 s on a laptop core
        self.deepest = deepest      # when a whole depth is exhausted early, search one deeper, up to this
        self.augment = augment
        self.core = core            # the compiled enumeration of kernel primitives first
        self.core_depth = core_depth
        if not 0.0 < core_share <= 1.0:
            raise ValueError(f"core_share must be in (0, 1], got {core_share}")
        self.core_share = core_share  # of a pass, the most the core may take before the Python search
        if not core_share <= core_stretch <= 1.0:
            raise ValueError(f"core_stretch must be in [core_share ({core_share}), 1], got {core_stretch}")
        self.core_stretch = core_stretch  # of a pass, where a core about to exhaust its depth may run to
        self.core_finish = core_finish  # the core's crops after a last step too big, free of depth
        self.core_prune = core_prune    # the core's last steps no better than their state on demo 1 stop there
        if core_deepest < core_depth:
            raise ValueError(f"core_deepest ({core_deepest}) must be at least core_depth ({core_depth})")
        self.core_deepest = core_deepest  # a core that exhausts its depth early searches again one deeper, up to this
        if core_beam < 0:
            raise ValueError(f"core_beam must be 0 (off) or more, got {core_beam}")
        self.core_beam = core_beam  # the states a core that exhausted its depth with time left climbs on from
        self.last_candidates: list[Candidate] = []  # of the last `solve`
        jit.say_once()
        # compile (or load) before any task's clock starts; without the core too, since loading
        # the core's tables is what brings in the kernels as the Python search calls them (left
        # to the first task, those compiles ate most of its budget)
        coresearch.warm()

    def _core(self, demo_in, demo_out, tests, core_end: float, stretch_end: float | None = None):
        """The compiled enumeration to `core_end`: to core_depth, then, while a whole depth was
        exhausted with no exact program and most of the time still left, again from scratch one deeper (the deeper run
        replaces it only once it has exhausted the shallower depth: it holds every program that had).
        The first run's last level may go on to `stretch_end` when its pace says it is exhausted by then."""
        depth = self.core_depth
        cs = coresearch.CoreSearch(demo_in, demo_out, tests, core_end, depth, finish=self.core_finish,
                                   prune=self.core_prune, stretch=stretch_end, beam=self.core_beam)
        st = cs.run()
        while st.stopped == "exhausted" and depth < self.core_deepest and not cs.exact() and \
                core_end - time.monotonic() > DEEPER_CORE_RATIO * st.seconds:
            depth += 1
            deeper = coresearch.CoreSearch(demo_in, demo_out, tests, core_end, depth, finish=self.core_finish,
                                           prune=self.core_prune)
            dst = deeper.run()
            if depth - 1 not in dst.depth_seconds:
                break
            cs, st = deeper, dst
        return cs, st

    def _search(self, task: Task, deadline: float) -> tuple[list[Candidate], Search, dict | None]:
        demo_in, demo_out, tests = [p.input for p in task.train], [p.output for p in task.train], \
            [p.input for p in task.test]
        cands, pool, core_trace, cs = [], [], None, None
        if self.core:
            now = time.monotonic()
            core_end = now + self.core_share * (deadline - now)
            cs, st = self._core(demo_in, demo_out, tests, core_end, now + self.core_stretch * (deadline - now))
            now = time.monotonic()
            cands, pool = coresearch.results(cs, now + CORE_FIT_SHARE * max(0.0, deadline - now))
            core_trace = {"generated": st.generated, "expanded": st.expanded, "states": st.states,
                          "images": st.images, "stopped": st.stopped, "depth_s": st.depth_seconds,
                          "seconds": st.seconds, "stretched": st.stretched, "depth": cs.max_depth,
                          "mb": round(cs.nbytes() / 1e6, 1)}
            # an exact program ends the pass; a learned ending on a deep state may be a coincidence,
            # so the Python search (lists, and the fits on its own cheapest states) still looks
            if any(c.kind == "exact" for c in cands):
                search = Search(demo_in, demo_out, tests, deadline, self.max_depth)  # not run: the core solved it
                search.sized.extend(pool)
                return cands, search, core_trace
        depth = self.max_depth
        # the pieces get the last share of the pass (they stack what the searches found)
        search_end = deadline - min(MAX_PIECES_S, PIECES_SHARE * max(0.0, deadline - time.monotonic()))
        while True:
            search = Search(demo_in, demo_out, tests, search_end, depth)
            found = list(search.run())
            # every program up to this depth tried with time to spare: go one deeper from scratch
            # (cheap shallow programs come first again, so the repeat costs little); a learned rule
            # alone may be a coincidence, so it does not stop the deeper look
            if any(c.firm for c in found) or search.stats.stopped != "exhausted" or \
                    depth >= self.deepest or search_end - time.monotonic() < MIN_DEEPER_S:
                break
            depth += 1
        cands += found
        search.sized.extend(pool)  # the core's sized states: pieces and guesses too
        if not any(c.firm for c in cands):
            cands += combine(search, deadline, core=cs)
        return cands, search, core_trace

    def solve(self, task: Task, budget_s: float) -> Prediction:
        start = time.monotonic()
        end = start + max(0.2, budget_s * SEARCH_SHARE - 0.2)  # leave room to guess, rank, print and return
        rule, sizes = predict_sizes(task)
        trace = {"size_rule": rule, "passes": []}

        candidates: list[Candidate] = []
        outputs = [p.output for p in task.train]
        if all(np.array_equal(o, outputs[0]) for o in outputs[1:]) and len(outputs) > 1:
            const = call("constant", INPUT, args=(outputs[0].tolist(),))
            candidates.append(Candidate(const, "exact", 1.0, [outputs[0].copy() for _ in task.test], len(outputs)))

        passes = _passes(task) if self.augment else [Augmentation()]
        tests = [p.input for p in task.test]
        best_search = None
        for i, aug in enumerate(passes):
            # a learned rule or a fitted ending alone may be a coincidence: the other passes still
            # look for a plain program (of the outputs' predicted size)
            if i and (rank([c for c in candidates if c.kind == "exact"], sizes, off_size=False)
                      or time.monotonic() > end - 0.5):
                break
            # the first pass gets most of the budget; the rest share what is left
            share = FIRST_PASS_SHARE if i == 0 and len(passes) > 1 else 1 / (len(passes) - i)
            pass_end = time.monotonic() + (end - time.monotonic()) * share
            cands, search, core_trace = self._search(aug.apply(task), pass_end)
            trace["passes"].append(self._pass_trace(aug.id, search, core_trace))
            if best_search is None:
                best_search, best_aug = search, aug
            candidates += [_unaugment(c, aug, tests) for c in cands]

        best, pool = rank(candidates, sizes), candidates
        if len(best) < 2:
            # too few answers: guesses fill the free attempts
            guesses = [_unaugment(g, best_aug, tests) for g in _guesses(best_search, start + budget_s * GUESS_SHARE)]
            pool = candidates + guesses
            best = rank(pool, sizes) or guesses[:1]
        self.last_candidates = pool  # everything the attempts were ranked from (`dsl-headroom` reads it)
        attempts = [[c.preds[i] for c in best if c.preds[i] is not None] for i in range(len(task.test))]
        trace.update({
            "program": to_source(best[0].node) if best else "",
            "programs": [to_source(c.node) for c in best],
            "kinds": [c.kind for c in best],  # of every attempt, as "kind" is of the first
            "kind": best[0].kind if best else "none",
            "depth": best[0].node.size() if best else 0,
            "demos_explained": best[0].explained if best else 0,
            "candidates_tried": sum(p["generated"] for p in trace["passes"]),
            "solutions_found": len(candidates),
            "seconds": round(time.monotonic() - start, 3),
        })
        return Prediction(attempts, trace)

    @staticmethod
    def _pass_trace(aug_id: str, search: Search, core_trace: dict | None = None) -> dict:
        """A pass's figures; "generated" and "expanded" count the core's states and the Python search's."""
        s = search.stats
        c = core_trace or {}
        return {"augmentation": aug_id, "search_depth": search.max_depth,
                "expanded": s.expanded + c.get("expanded", 0), "generated": s.generated + c.get("generated", 0),
                "states": len(search.states), "stopped": s.stopped, "max_depth": s.max_depth_reached,
                "stored_mb": round(s.stored_bytes / 1e6, 1), "op_errors": s.op_errors, "core": core_trace}


TREE_BASES = 3  # the closest sized states a cell tree is grown on


def _guesses(search: Search, deadline: float) -> list[Candidate]:
    """Last guesses when programs give too few answers: a decision tree over cell features grown
    on the input (when it has the outputs' size) and the sized states closest to the demo outputs,
    then those states as they are."""
    closest = _closest(search)
    out = []
    # the input itself (state 0) first, when it has the outputs' size: a tree over its own cells is the plainest guess
    for s in sorted(closest, key=lambda s: s.state != 0)[:TREE_BASES]:
        tree = fit_cell_tree(s.demo, search.outputs, s.test, deadline=deadline)
        if tree is not None:
            node = call("cell_rule", (s.origin or search).node(s.state), args=tree)
            preds = [cell_rule(t, *tree) for t in s.test]
            out.append(Candidate(node, "tree", s.cost + 10 + len(tree[1]) / 10, preds, search.n_demo))
    for s in closest[:2]:
        explained = sum(bool(np.array_equal(d, o)) for d, o in zip(s.demo, search.outputs, strict=True))
        out.append(Candidate((s.origin or search).node(s.state), "partial", s.cost, s.test, explained))
    return out


def _closest(search: Search, limit: int = TREE_BASES + 2) -> list:
    """Up to `limit` sized states with distinct test answers, the closest to the demo outputs
    first: the most demos reproduced exactly, then cell for cell (a little for cost); the input
    (state 0) as well, wherever it ranks. Scored with one comparison per demo over every state
    at once: a pool holds thousands."""
    states = [s for s in search.sized if all(t.max() <= 9 for t in s.test)]
    if not states:
        return []
    right = np.stack([(np.stack([s.demo[i] for s in states]) == o).mean(axis=(1, 2))
                      for i, o in enumerate(search.outputs)], axis=1)  # (states, demos)
    cost = np.array([s.cost for s in states])
    score = right.sum(axis=1) - 0.01 * cost
    order = np.lexsort((np.arange(len(states)), cost, -score, -(right == 1.0).sum(axis=1)))
    out, seen, have_input = [], set(), False
    for k in order:
        s = states[k]
        if len(out) >= limit and (have_input or s.state != 0):
            # full: only the input (state 0) is still looked for, past states it must not repeat
            seen.add(tuple(grid_hash(t) for t in s.test))
            continue
        key = tuple(grid_hash(t) for t in s.test)
        if key not in seen:
            seen.add(key)
            out.append(s)
            have_input |= s.state == 0
            if len(out) >= limit and have_input:
                break
    return out
