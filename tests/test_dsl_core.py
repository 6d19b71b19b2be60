"""The compiled search core: kernels against themselves run as Python, the generated dispatch,
the bank and state dedup, programs found and re-run (plain and in the sandbox), the memory
stop, and the pure-Python path (numba off) finding the same programs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.sandbox import SandboxPool
from shared.solvers.dsl import jit
from shared.solvers.dsl.core import engine as E
from shared.solvers.dsl.core import kernels
from shared.solvers.dsl.core.search import CoreSearch, results, warm
from shared.solvers.dsl.primitives import PRIMITIVES
from shared.solvers.dsl.primitives.kernels import pack
from shared.solvers.dsl.primitives.registry import encode
from shared.solvers.dsl.program import run_source, to_source
from shared.tasks import Pair, Task

ROOT = Path(__file__).resolve().parents[1]
KERNELS = [n for n, p in PRIMITIVES.items() if p.kernel is not None]
GRID_KERNELS = [n for n in KERNELS if kernels.kind(n) == "grid"]
SPLITS = [n for n in KERNELS if kernels.kind(n) == "split"]
JOINS = [n for n in KERNELS if kernels.kind(n) == "join"]


def _arg_sets(name: str) -> list[tuple]:
    return PRIMITIVES[name].arg_sets([1, 2, 5])


grids = st.integers(1, 9).flatmap(
    lambda h: st.integers(1, 9).flatmap(
        lambda w: st.lists(st.integers(0, 9), min_size=h * w, max_size=h * w).map(
            lambda cells: np.array(cells, dtype=np.uint8).reshape(h, w))))
sparse = grids.map(lambda g: np.where(g > 6, g - 6, 0).astype(np.uint8))


@pytest.fixture(autouse=True, scope="module")
def _kernels_compiled_as_the_core_calls_them():
    """The tables first: the tests below call kernels directly, which would otherwise compile them
    for the types numba infers, a second entry in numba's cache index that a process compiling
    beside this one (a cold cache under pytest-xdist) can drop along with its own."""
    kernels.tables()


def test_the_core_tables_hold_every_kernel_once_by_kind_and_arity():
    t = kernels.tables()
    assert sorted(t.where) == sorted(KERNELS)
    assert SPLITS and JOINS
    for name, (kind, arity, i) in t.where.items():
        assert getattr(t, kind)[arity][i] is PRIMITIVES[name].kernel
        assert (kind, arity) == (kernels.kind(name), kernels.arity(name))
    for kind in ("grid", "split", "join"):
        listed = sum(len(g) for g in getattr(t, kind))
        stubs = sum(1 for a, g in enumerate(getattr(t, kind)) if g[0] is kernels.STUBS[kind][a])
        assert listed - stubs == sum(1 for n in KERNELS if kernels.kind(n) == kind)


def test_a_colour_and_more_parameters_expand_to_each_colour_with_each_rest():
    from shared.solvers.dsl.primitives.registry import search_ops

    p = PRIMITIVES["colour_corner_rays"]
    assert p.arg_sets([3, 7]) == [(3, 0), (3, 1), (3, 2), (3, 3), (7, 0), (7, 1), (7, 2), (7, 3)]
    assert kernels.arity("colour_corner_rays") == 2
    assert [op.args for op in search_ops([5]) if op.prim is p] == [(5, 0), (5, 1), (5, 2), (5, 3)]
    assert PRIMITIVES["keep_colour"].arg_sets([2, 4]) == [(2,), (4,)]


def _parts_of(g: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every split kernel's parts of g, packed, plus g's rows and a pair of g itself as parts."""
    out = []
    for name in SPLITS:
        for args in _arg_sets(name):
            buf, meta = PRIMITIVES[name].kernel(g, *[encode(a) for a in args])
            if meta.shape[0]:
                out.append((buf, meta))
    out.append(pack([g[i:i + 1] for i in range(g.shape[0])]))
    out.append(pack([g, g[::-1]]))
    return out


@pytest.mark.skipif(not jit.COMPILED, reason="numba is not available here: only the Python path runs")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=st.one_of(grids, sparse))
def test_every_kernel_matches_itself_run_as_python(g):
    for name in SPLITS:
        kern = PRIMITIVES[name].kernel
        for args in _arg_sets(name):
            enc = [encode(a) for a in args]
            (fb, fm), (sb, sm) = kern(g, *enc), kern.py_func(g.copy(), *enc)
            assert fb.dtype == np.uint8 and fm.dtype == np.int64 and fm.shape[1:] == (3,), name
            assert np.array_equal(fm, sm) and np.array_equal(fb, sb), (name, args, g.tolist())
    for buf, meta in _parts_of(g):
        for name in JOINS:
            kern = PRIMITIVES[name].kernel
            fast, slow = kern(buf, meta), kern.py_func(buf.copy(), meta.copy())
            assert fast.dtype == np.uint8 and fast.flags.c_contiguous, name
            assert fast.shape == slow.shape and np.array_equal(fast, slow), (name, g.tolist())
    for name in GRID_KERNELS:
        kern = PRIMITIVES[name].kernel
        for args in _arg_sets(name):
            enc = [encode(a) for a in args]
            fast, slow = kern(g, *enc), kern.py_func(g.copy(), *enc)
            assert fast.dtype == np.uint8 and fast.flags.c_contiguous, name
            assert fast.shape == slow.shape and np.array_equal(fast, slow), (name, args, g.tolist())


def test_no_kernel_indexes_past_an_array_on_the_placeholder_colour():
    """The search's images may hold 10 (`mask`, `border`, rays: cells a later step colours), and
    compiled code checks no bounds, so a kernel that indexes a table of ten colours by a cell
    writes past it there. Run as Python, where such an index raises."""
    rng = np.random.default_rng(10)
    for _ in range(6):
        h, w = rng.integers(2, 10, 2)
        g = np.where(rng.random((h, w)) < 0.5, rng.integers(1, 10, (h, w)), 0).astype(np.uint8)
        g[rng.random((h, w)) < 0.3] = 10
        for name in KERNELS:
            py = getattr(PRIMITIVES[name].kernel, "py_func", PRIMITIVES[name].kernel)
            for args in _arg_sets(name):
                enc = [encode(a) for a in args]
                try:
                    py(*pack([g, g[::-1].copy()]), *enc) if kernels.kind(name) == "join" else py(g.copy(), *enc)
                except IndexError as e:
                    raise AssertionError(f"{name}{args} on {g.tolist()}: {e}") from e


def test_kernels_never_change_their_input():
    g = np.array([[0, 1, 2, 0], [3, 0, 0, 4], [0, 5, 5, 0]], dtype=np.uint8)
    for name in GRID_KERNELS + SPLITS:
        for args in _arg_sets(name):
            before = g.copy()
            PRIMITIVES[name].kernel(g, *[encode(a) for a in args])
            assert np.array_equal(g, before), name
    for buf, meta in _parts_of(g):
        b0, m0 = buf.copy(), meta.copy()
        for name in JOINS:
            out = PRIMITIVES[name].kernel(buf, meta)
            assert np.array_equal(buf, b0) and np.array_equal(meta, m0), name
            if out.size:
                out[...] = 15  # the answer is the join's own array, not a view into the parts
                assert np.array_equal(buf, b0), name


def test_the_bank_stores_each_image_once_and_tells_shapes_apart():
    cs = CoreSearch([np.zeros((1, 1), np.uint8)], [np.zeros((1, 1), np.uint8)], [], time.monotonic() + 5)
    a = np.array([[1, 2, 3, 4]], dtype=np.uint8)
    i = cs._intern(a)
    assert cs._intern(a.copy()) == i
    assert cs._intern(a.reshape(2, 2)) != i  # the same bytes in another shape are another image
    assert cs._intern(a.reshape(4, 1)) not in (i, cs._intern(a.reshape(2, 2)))
    assert np.array_equal(cs.image(i), a)


def _task(fn, grids_in, n_test=1) -> Task:
    pairs = [Pair(g, fn(g)) for g in grids_in]
    return Task("fixture", tuple(pairs[:-n_test]), tuple(pairs[-n_test:]), "test")


def _inputs(seed: int, n: int = 3, side=(3, 5)) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        h, w = rng.integers(*side, size=2)
        g = np.where(rng.random((h, w)) < 0.35, rng.integers(1, 6, (h, w)), 0).astype(np.uint8)
        g[0, 0] = 3
        out.append(g)
    return out


def _scenes(seed: int, n: int = 4) -> list[np.ndarray]:
    """Grids with one large object among single cells (so "the largest object" is one)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        g = np.zeros((8, 9), dtype=np.uint8)
        y, x = rng.integers(0, 4), rng.integers(0, 5)
        g[y:y + 3, x:x + 4] = np.where(rng.random((3, 4)) < 0.8, rng.integers(1, 5), 0)
        g[y, x] = g[y + 2, x + 3] = 6  # corners set: the block is one 8-connected object, bigger than any dot
        g[y + 1, x:x + 4] = 6
        for _ in range(3):
            py, px = rng.integers(0, 8), rng.integers(0, 9)
            if g[max(0, py - 1):py + 2, max(0, px - 1):px + 2].any() == 0:
                g[py, px] = 7
        out.append(g)
    return out


# programs the project writes itself, each a composition of kernel primitives
FIXTURES = {
    "rotate_then_flip": lambda g: PRIMITIVES["flip_lr"].fn(PRIMITIVES["rotate90"].fn(g)),
    "crop_then_transpose": lambda g: PRIMITIVES["transpose"].fn(PRIMITIVES["crop_content"].fn(g)),
    "shift_down_twice_then_flip": lambda g: PRIMITIVES["flip_ud"].fn(
        PRIMITIVES["shift"].fn(PRIMITIVES["shift"].fn(g, 1, 0), 1, 0)),
    "largest_object_flipped": lambda g: PRIMITIVES["flip_lr"].fn(PRIMITIVES["largest"].fn(PRIMITIVES["objects"].fn(g))),
}
INPUTS = {"largest_object_flipped": _scenes}


def _search(task: Task, depth: int = 3, budget_s: float = 60.0) -> CoreSearch:
    warm()  # a cold cache's compile (a minute or more) before the clock starts, not inside the budget
    cs = CoreSearch([p.input for p in task.train], [p.output for p in task.train], [p.input for p in task.test],
                    time.monotonic() + budget_s, depth)
    cs.run()
    return cs


@pytest.fixture(scope="module")
def dsl_pool():
    warm()
    with SandboxPool(workers=1, time_limit_s=10.0, library="dsl") as p:
        yield p


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_core_finds_the_program_and_it_reruns_plain_and_sandboxed(name, dsl_pool):
    task = _task(FIXTURES[name], INPUTS.get(name, _inputs)(len(name)))
    cs = _search(task)
    found, pool = results(cs, time.monotonic() + 30)
    exact = [c for c in found if c.kind == "exact"]
    assert exact, (cs.stats, name)
    best = exact[0]
    assert np.array_equal(best.preds[0], task.test[0].output)
    source = to_source(best.node)
    for p in task.train + task.test:
        assert np.array_equal(run_source(source, p.input), p.output), source
    inputs = [p.input for p in task.train + task.test]
    verdict = dsl_pool.run(source, inputs, [p.output for p in task.train + task.test])
    assert verdict.status == "ok", (verdict.detail, source)
    assert all(s.origin is cs for s in pool)


def test_a_split_and_its_join_take_two_steps_of_the_depth():
    task = _task(FIXTURES["largest_object_flipped"], _scenes(4))
    one = _search(task, depth=1)
    assert one.stats.stopped == "exhausted" and max(one.st_depth[: one.n_states()]) == 1
    assert not any(len(one.steps(s)) > 1 for s in range(one.n_states()))
    two = _search(task, depth=2)
    joined = [s for s in range(two.n_states()) if len(two.steps(s)) == 2 and
              two.steps(s)[0].prim.tout == "grids"]
    assert joined and all(two.st_depth[s] == 2 for s in joined)
    for s in joined:  # each is what its split and join make of every input
        split, join = two.steps(s)
        for a, p in zip(two.grids(s), task.train + task.test, strict=True):
            assert np.array_equal(a, join(split(p.input))), (split.label, join.label)
    picked = [PRIMITIVES["largest"].fn(PRIMITIVES["objects"].fn(p.input)) for p in task.train + task.test]
    assert any(all(np.array_equal(a, b) for a, b in zip(two.grids(s), picked, strict=True))
               for s in range(two.n_states()))
    three = _search(task, depth=3)
    assert three.exact()


def test_a_finishing_crop_is_free_of_depth_after_a_last_step_too_big():
    scale_up, crop_content = PRIMITIVES["scale_up"].fn, PRIMITIVES["crop_content"].fn
    task = _task(lambda g: crop_content(scale_up(g, 2)), [np.pad(g, ((1, 2), (2, 1))) for g in _inputs(0, 4)])
    plain = _search(task, depth=1)
    assert plain.stats.stopped == "exhausted" and not plain.exact()
    cs = CoreSearch([p.input for p in task.train], [p.output for p in task.train], [p.input for p in task.test],
                    time.monotonic() + 60, 1, finish=True)
    cs.run()
    found = [[op.label for op in cs.steps(s)] for s in cs.exact()]
    assert ["scale_up 2", "crop_content"] in found
    s = cs.exact()[found.index(["scale_up 2", "crop_content"])]
    # no deeper than the limit; its parent is the last step's own (too big, so not sized) images
    assert cs.st_depth[s] == 1 and cs.st_parent[s] > 0 and not cs.st_flags[cs.st_parent[s]] & E.SIZED
    assert np.array_equal(cs.grids(s)[-1], task.test[0].output)
    assert np.array_equal(run_source(to_source(cs.node(s)), task.test[0].input), task.test[0].output)


def test_the_beam_climbs_past_the_depth_from_the_states_closest_to_the_outputs():
    flip_lr, remove_colour = PRIMITIVES["flip_lr"].fn, PRIMITIVES["remove_colour"].fn
    inputs = _inputs(7, 4, side=(5, 7))
    for g in inputs:
        g[-1, -1] = 2  # the colour the second step removes, in every grid
    task = _task(lambda g: remove_colour(flip_lr(g), 2), inputs)
    args = ([p.input for p in task.train], [p.output for p in task.train], [p.input for p in task.test])
    plain = CoreSearch(*args, time.monotonic() + 60, 1)
    plain.run()
    assert plain.stats.stopped == "exhausted" and not plain.exact() and plain.stats.max_depth_reached == 1
    cs = CoreSearch(*args, time.monotonic() + 60, 1, beam=50, beam_levels=2)
    cs.run()
    assert cs.stats.stopped == "exhausted" and cs.exact()
    s = cs.exact()[0]
    assert cs.st_depth[s] == 2 and sorted(op.prim.name for op in cs.steps(s)) == ["flip_lr", "remove_colour"]
    assert np.array_equal(run_source(to_source(cs.node(s)), task.test[0].input), task.test[0].output)
    # a state the climb kept has the outputs' shape and more of the first demo right than its parent
    n = cs.n_states()
    for t in np.nonzero(cs.st_depth[:n] == 2)[0]:
        assert cs.st_flags[t] & E.SIZED
        parent, out, mine = cs.grids(int(cs.st_parent[t]))[0], task.train[0].output, cs.grids(int(t))[0]
        maps = all(len(np.unique(out[mine == c])) == 1 for c in np.unique(mine))  # one colour map to it
        assert (mine == out).sum() > (parent == out).sum() or maps


def test_learned_endings_see_the_enumerated_states_and_mark_those_on_climbed_ones(monkeypatch):
    import shared.solvers.dsl.core.search as coresearch

    flip_lr, remove_colour = PRIMITIVES["flip_lr"].fn, PRIMITIVES["remove_colour"].fn
    inputs = _inputs(7, 4, side=(5, 7))
    for g in inputs:
        g[-1, -1] = 2
    task = _task(lambda g: remove_colour(flip_lr(g), 2), inputs)
    cs = CoreSearch([p.input for p in task.train], [p.output for p in task.train], [p.input for p in task.test],
                    time.monotonic() + 60, 1, beam=50, beam_levels=2)
    cs.run()
    climbed, plain = cs.sized(climbed=True), cs.sized(climbed=False)
    assert climbed and plain and sorted(climbed + plain) == sorted(cs.sized())
    assert all(cs.climbed(s) and cs.st_depth[s] > 1 for s in climbed) and not any(map(cs.climbed, plain))
    # the climbed states score highest: by score alone they would crowd the enumerated ones out
    assert cs.sized(1) == climbed[:1]

    class Fit:  # a stand-in ending (one more step) on every state offered, so each is seen
        def __init__(self, test):
            self.steps, self.kind, self.cost, self.explained = [("flip_lr", ())], "fitted", 1.0, 0
            self.preds = [flip_lr(t) for t in test]

    seen = []
    monkeypatch.setattr(coresearch, "fit_state", lambda ctx, kind, demo, test, outputs, cost: seen.append(
        [g.tobytes() for g in test]) or [Fit(test)])
    cands, _ = results(cs, time.monotonic() + 30)
    learned = [c for c in cands if c.kind == "fitted"]
    assert any(c.climbed for c in learned) and any(not c.climbed for c in learned)
    assert all(c.climbed == (c.node.size() > 2) for c in learned)  # a climbed base is deeper than the depth, 1
    tests_of = {s: [g.tobytes() for g in cs.grids(s)[cs.n_demo:]] for s in plain[:coresearch.TOP_SIZED]}
    assert all(t in seen for t in tests_of.values())  # the best enumerated states were all fitted on


@pytest.mark.skipif(not jit.COMPILED, reason="as plain Python, depth 3 does not end within the search's minute")
@pytest.mark.parametrize("name", ["rotate_then_flip", "largest_object_flipped"])
def test_pruned_last_steps_lose_no_exact_program(name):
    task = _task(FIXTURES[name], INPUTS.get(name, _inputs)(len(name)))
    runs = {}
    for prune in (False, True):
        cs = CoreSearch([p.input for p in task.train], [p.output for p in task.train], [p.input for p in task.test],
                        time.monotonic() + 60, 3, prune=prune)
        cs.run()
        assert cs.stats.stopped == "exhausted"
        runs[prune] = cs
    full, pruned = runs[False], runs[True]
    assert full.stats.pruned == 0 and pruned.stats.pruned > 0
    assert pruned.stats.generated < full.stats.generated
    assert pruned.exact() and [full.steps(s) for s in full.exact()] == [pruned.steps(s) for s in pruned.exact()]
    # what is dropped is a last step no better than its state on the first demo, never a shallower state
    def images(cs, s):
        return tuple((g.shape, g.tobytes()) for g in cs.grids(s))

    kept = {images(pruned, s) for s in range(pruned.n_states())}
    assert all(images(full, s) in kept for s in range(full.n_states()) if full.st_depth[s] < 3)
    # a pruned last step is judged before it is interned: the child cache marks it instead (so
    # the bank holds fewer images), and only where the step really is no better than the first
    # demo's image it came from
    marked = np.nonzero(pruned.ch_val == E.LEAF_PRUNED)[0]
    assert 0 < len(marked) <= pruned.stats.pruned
    assert pruned.stats.images < full.stats.images
    out0 = task.train[0].output
    n_ops = len(pruned.ops)
    for slot in marked:
        node, k = divmod(int(pruned.ch_key[slot]), n_ops)
        g = pruned.image(node)
        child = g
        for op in pruned.ops[k]:
            child = op(child)
        assert child is not None and child.shape == out0.shape
        before = (g == out0).sum() if g.shape == out0.shape else 0
        recolours = all(len(set(out0[child == c].tolist())) == 1 for c in np.unique(child))
        assert (child == out0).sum() <= before and not recolours


def test_core_counts_match_what_it_kept():
    task = _task(FIXTURES["rotate_then_flip"], _inputs(3))
    cs = _search(task, depth=2)
    st_ = cs.stats
    assert st_.stopped == "exhausted" and st_.max_depth_reached == 2
    assert st_.states == cs.n_states() and 1 < st_.states <= st_.generated + 1
    # every kept state is distinct over the inputs
    rows = {tuple(r) for r in cs.st_nodes[: cs.n_states()].tolist()}
    assert len(rows) == cs.n_states()
    # the image ops run are the child table's entries, one per (image, op), every one-step op on the first input
    assert st_.computed == int((cs.ch_key != E.EMPTY).sum())
    assert st_.computed >= sum(len(steps) == 1 for steps in cs.ops)
    assert st_.computed >= st_.images - cs.st_nodes.shape[1] - len(task.train)  # all but the inputs and outputs
    # a state's depth and cost are its program's; its images are what the program computes
    for s in range(cs.n_states()):
        steps = cs.steps(s)
        assert cs.st_depth[s] == len(steps) and cs.cost(s) == pytest.approx(sum(op.prim.cost for op in steps))
    # of the one-step programs that make the same images, the cheapest is the one kept
    inputs = [p.input for p in task.train + task.test]
    cheapest: dict = {}
    for steps in cs.ops:
        if len(steps) == 1:
            outs = [steps[0](g) for g in inputs]
            if all(o is not None for o in outs):
                key = tuple(o.tobytes() + bytes(o.shape) for o in outs)
                cheapest[key] = min(cheapest.get(key, 99.0), steps[0].prim.cost)
    kept = {tuple(o.tobytes() + bytes(o.shape) for o in cs.grids(s)): cs.cost(s)
            for s in range(1, cs.n_states()) if cs.st_depth[s] == 1}
    shared_images = [k for k in kept if k in cheapest]
    assert len(shared_images) > 10
    assert all(kept[k] == cheapest[k] for k in shared_images)
    costs = [sum(op.prim.cost for op in steps) for steps in cs.ops if len(steps) == 1]
    assert costs == sorted(costs)  # grid ops come cheapest first
    for s in range(0, cs.n_states(), max(1, cs.n_states() // 25)):
        source = to_source(cs.node(s))
        for g, want in zip([p.input for p in task.train + task.test], cs.grids(s), strict=True):
            assert np.array_equal(run_source(source, g), want), source


def test_core_stops_at_its_memory_cap_with_what_it_found():
    task = _task(FIXTURES["rotate_then_flip"], _inputs(5, side=(12, 16)))
    args = [p.input for p in task.train], [p.output for p in task.train], [p.input for p in task.test]
    # the cap: what the first level takes (it grows with the primitives), and half a megabyte more
    first = CoreSearch(*args, time.monotonic() + 60, 1)
    assert first.run().stopped == "exhausted"
    cap = first.nbytes() + 500_000
    cs = CoreSearch(*args, time.monotonic() + 60, 4, max_bytes=cap)
    st_ = cs.run()
    assert st_.stopped == "memory"
    assert cs.nbytes() <= cap
    assert cs.exact(), "the shallow program was found before the cap"


def test_core_stops_at_its_deadline():
    task = _task(FIXTURES["rotate_then_flip"], _inputs(7))
    cs = CoreSearch([p.input for p in task.train], [p.output for p in task.train], [p.input for p in task.test],
                    time.monotonic() - 1, 3)
    assert cs.run().stopped == "time"


@pytest.mark.skipif(not jit.COMPILED, reason="as plain Python, depth 3 does not end within the search's minute")
def test_the_last_level_runs_on_to_the_stretch_only_when_its_pace_says_it_ends_by_then(monkeypatch):
    from types import SimpleNamespace

    from shared.solvers.dsl.core import search as coresearch

    task = _task(FIXTURES["rotate_then_flip"], _inputs(7))
    full = _search(task, depth=3)
    assert full.stats.stopped == "exhausted"
    before_last = sum(b - a for a, b in full.levels[:2])  # states expanded before the last level starts
    assert full.levels[2][1] - full.levels[2][0] > 8  # the last level has more than one first batch

    def run(stretch):
        cs = CoreSearch([p.input for p in task.train], [p.output for p in task.train],
                        [p.input for p in task.test], 5.0, 3, stretch=stretch)
        # a clock that stands at 0 until the last level has expanded its first batch, then reads
        # 10 (past the deadline of 5) and creeps on: that level's pace is 10 s for one batch
        ticks = iter(range(10 ** 9))
        clock = SimpleNamespace(monotonic=lambda: 0.0 if cs.stats.expanded <= before_last
                                else 10.0 + next(ticks) * 1e-9)
        monkeypatch.setattr(coresearch, "time", clock)
        st_ = cs.run()
        monkeypatch.undo()
        return cs, st_

    cs, st_ = run(None)
    assert (st_.stopped, st_.stretched) == ("time", False)
    cs, st_ = run(11.0)  # the pace says the rest takes far longer than one more second
    assert (st_.stopped, st_.stretched) == ("time", False)
    cs, st_ = run(1e9)
    assert (st_.stopped, st_.stretched) == ("exhausted", True)
    assert [cs.steps(s) for s in cs.exact()] == [full.steps(s) for s in full.exact()]


PURE_SCRIPT = """
import json, sys, time
import numpy as np
from shared.solvers.dsl import jit
from shared.solvers.dsl.core.search import CoreSearch, results
from shared.solvers.dsl.program import to_source
data = json.loads(sys.stdin.read())
train = [(np.array(a, np.uint8), np.array(b, np.uint8)) for a, b in data["train"]]
test = [np.array(a, np.uint8) for a in data["test"]]
cs = CoreSearch([a for a, _ in train], [b for _, b in train], test, time.monotonic() + 600, 2)
cs.run()
found, _ = results(cs, time.monotonic() + 60)
print(json.dumps({"compiled": jit.COMPILED, "states": cs.n_states(),
                  "programs": [to_source(c.node) for c in found if c.kind == "exact"][:3]}))
"""


def _run_script(task: Task, pure: bool) -> dict:
    data = {"train": [[p.input.tolist(), p.output.tolist()] for p in task.train],
            "test": [p.input.tolist() for p in task.test]}
    env = dict(os.environ, PYTHONPATH=str(ROOT), ARC_DSL_PURE="1" if pure else "0")
    out = subprocess.run([sys.executable, "-c", PURE_SCRIPT], input=json.dumps(data), capture_output=True,
                         text=True, env=env, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    if pure:  # the hashes' intended 64-bit wrap-around is not reported as numpy's overflow warning
        assert "RuntimeWarning" not in out.stderr, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not jit.COMPILED, reason="compares the plain Python path with the compiled one")
def test_pure_python_path_finds_the_same_programs():
    rng = np.random.default_rng(11)
    ins = [np.where(rng.random((3, 3)) < 0.5, rng.integers(1, 4, (3, 3)), 0).astype(np.uint8) for _ in range(3)]
    for g in ins:
        g[0, 1] = 2
    task = _task(FIXTURES["rotate_then_flip"], ins)
    pure = _run_script(task, pure=True)
    compiled = _run_script(task, pure=False)
    assert pure["compiled"] is False
    assert compiled["compiled"] is jit.COMPILED
    assert pure["programs"] and pure["programs"] == compiled["programs"]
    assert pure["states"] == compiled["states"]


def test_flags_and_scores_of_states():
    out = np.array([[1, 2], [3, 4]], dtype=np.uint8)
    cs = CoreSearch([out.copy()], [out], [out], time.monotonic() + 5, 1)
    cs.run()
    assert cs.st_flags[0] & E.EXACT and cs.st_flags[0] & E.SIZED
    recol = CoreSearch([np.where(out == 1, 7, out).astype(np.uint8)], [out], [out], time.monotonic() + 5, 1)
    recol.run()
    assert recol.st_flags[0] & E.RECOLOUR and not recol.st_flags[0] & E.EXACT
    assert recol.st_score[0] == 3
    assert 0 in recol.recolourable()


@pytest.mark.skipif(not jit.COMPILED or jit.fcntl is None, reason="the compile lock needs numba and fcntl")
def test_a_second_process_waits_for_the_compile_lock_and_one_process_may_take_it_twice(tmp_path):
    started, got = tmp_path / "started", tmp_path / "got"
    code = ("import pathlib, sys; from shared.solvers.dsl import jit\n"
            f"pathlib.Path({str(started)!r}).touch()\n"
            f"with jit.compiling(): pathlib.Path({str(got)!r}).touch()\n")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    with jit.compiling():
        with jit.compiling():  # re-entrant: the same process does not wait on itself
            child = subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE, text=True)
            for _ in range(600):
                if started.exists() or child.poll() is not None:
                    break
                time.sleep(0.05)
            assert started.exists(), "the child never started"
            time.sleep(0.5)
            assert not got.exists(), "the child took the lock while this process held it"
        assert not got.exists()
    _, err = child.communicate(timeout=60)
    assert child.returncode == 0 and got.exists()
    assert "another process is compiling the kernels" in err  # it said why it waited


@pytest.mark.skipif(not jit.COMPILED, reason="numba's cache exists only with numba")
def test_the_cold_cache_check_looks_in_the_folder_numba_keeps_for_these_sources(monkeypatch, tmp_path):
    kernels.tables()
    names = kernels.names()
    assert not kernels._cache_is_cold(names)
    # a copy of the library elsewhere gets a folder of its own from numba: empty, so cold
    monkeypatch.setattr(PRIMITIVES[names[0]].kernel._cache, "_cache_path", str(tmp_path / "elsewhere"))
    assert kernels._cache_is_cold(names)


@pytest.mark.skipif(not jit.COMPILED, reason="the parallel compile runs only with numba")
def test_compile_workers_share_the_jobs_each_runs_once_and_kernels_go_by_module(monkeypatch, tmp_path):
    names = kernels.names()
    jobs = kernels._jobs(names, ("jobmod:mark",))
    assert jobs[0] == ("jobmod:mark", ["jobmod:mark"])
    groups = jobs[1:]
    assert sorted(n for _, g in groups for n in g) == sorted(names)  # every kernel once
    for module, g in groups:  # a job is some kernels of one module (they share helpers)
        assert 0 < len(g) <= kernels.JOB_KERNELS
        assert {PRIMITIVES[n].kernel.py_func.__module__ for n in g} == {module}
    order = list(dict.fromkeys(m for m, _ in groups))  # each module's jobs together, the longest kernels first
    assert [m for m, _ in groups] == sorted((m for m, _ in groups), key=order.index)
    mean = {m: np.mean([kernels._source_length(n) for k, g in groups if k == m for n in g]) for m in order}
    assert [mean[m] for m in order] == sorted(mean.values(), reverse=True)
    assert min(mean.values()) > 0  # each kernel's source was read
    # two workers on one claims folder: each job runs in exactly one of them, and leaves its mark
    (tmp_path / "jobmod.py").write_text(
        f"def mark():\n    open({str(tmp_path / 'marks')!r}, 'a').write('x')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    compiled = []
    monkeypatch.setattr(kernels, "compile_kernels", lambda which: compiled.append(list(which)))
    claims = tmp_path / "claims"
    claims.mkdir()
    some = [("jobmod:mark", ["jobmod:mark"]), ("m", ["a", "b"]), ("m", ["c"])]
    kernels._run_jobs(str(claims), some)
    kernels._run_jobs(str(claims), some)  # the second worker finds every job claimed
    assert (tmp_path / "marks").read_text() == "x"
    assert compiled == [["a", "b"], ["c"]]
    assert sorted(p.name for p in claims.glob("*.done")) == ["0.done", "1.done", "2.done"]


def test_a_compile_worker_keeps_to_its_module_then_starts_a_fresh_one_then_helps(monkeypatch, tmp_path):
    compiled = []
    monkeypatch.setattr(kernels, "compile_kernels", lambda which: compiled.append(list(which)))
    jobs = [("m1", ["a"]), ("m1", ["b"]), ("m2", ["c"]), ("m2", ["d"]), ("m3", ["e"])]
    (tmp_path / "0").touch()  # another worker has begun m1
    kernels._run_jobs(str(tmp_path), jobs)
    # m2 and m3 are fresh: each taken whole before the rest of m1 (whose helpers the other worker has)
    assert compiled == [["c"], ["d"], ["e"], ["b"]]


@pytest.mark.skipif(not jit.COMPILED, reason="the parallel compile runs only with numba")
def test_the_parent_loads_each_kernel_job_once_as_its_done_mark_lands(monkeypatch):
    loaded = []
    monkeypatch.setattr(kernels, "compile_kernels", lambda which: loaded.append(list(which)))
    monkeypatch.setattr(kernels.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(kernels.time, "sleep", lambda s: None)
    names = kernels.names()[:9]
    jobs = kernels._jobs(names, ("jobmod:mark",))

    class Worker:  # stands in for a compile worker: marks every job done, then ends
        def __init__(self, cmd, **kwargs):
            self.claims = cmd[2].split("_run_jobs(")[1].split(",")[0].strip("'\"")
            self.polls = 0

        def poll(self):
            self.polls += 1
            if self.polls == 1:
                for i in range(len(jobs)):
                    Path(self.claims, f"{i}.done").touch()
                return None
            return 0

    monkeypatch.setattr(kernels.subprocess, "Popen", Worker)
    kernels._compile_in_parallel(names, ("jobmod:mark",))
    # the kernel jobs, each loaded once (the called job "jobmod:mark" has nothing to load)
    assert loaded == [what for group, what in jobs if ":" not in group]
    assert sorted(n for w in loaded for n in w) == sorted(names)


@pytest.mark.skipif(not jit.COMPILED, reason="stub tables share the kernels' types only when compiled")
def test_the_core_compiled_against_stub_tables_is_the_one_the_kernels_tables_call():
    from shared.solvers.dsl.core.search import _tiny

    warm()
    stub = _tiny(kernels.stub_tables())
    assert stub.n_main == 0 and stub.tables.where == {}  # no kernel: nothing but the core compiled
    # the same argument types: one compiled expand serves both (a stub type would add a signature)
    assert len(E.expand.signatures) == 1
    real = _tiny()
    assert real.n_main > 0 and len(E.expand.signatures) == 1

    # the tables' list function is compiled for tuples of function pointers, never for the kernels' own types
    # (which linked every kernel of a group into it)
    assert all(str(args[0]).startswith("UniTuple(FunctionType[") for args in kernels._typed_list.signatures)
    held = {(k, a): sum(1 for w in real.tables.where.values() if w[:2] == (k, a))
            for k, n in kernels.ARITIES.items() for a in range(n)}
    assert kernels.group_sizes() == {ka: max(1, n) for ka, n in held.items()}  # what the parallel compile prepares


@pytest.mark.skipif(not jit.COMPILED, reason="object code exists only with numba")
def test_the_symbols_read_off_an_object_file_are_those_its_bitcode_defines():
    import numba

    add = numba.njit(lambda a, b: a + b)
    assert add(1, 2) == 3
    library = add.overloads[add.signatures[0]].library
    _, kind, (obj, bitcode) = library.serialize_using_object_code()
    names = jit.elf_defined(obj)
    if names is None:
        pytest.skip("not an ELF object file (only Linux loads lazily)")
    module = numba.core.codegen.ll.parse_bitcode(bitcode)
    defined = {g.name for gs in (module.functions, module.global_variables) for g in gs if not g.is_declaration}
    assert {n for n in defined if not n.startswith("switch.table.")} <= names  # private tables have no symbol
    assert add.overloads[add.signatures[0]].fndesc.llvm_func_name in names
    assert jit.elf_defined(b"MZ not an elf file") is None


LAZY_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
import numba
from shared.solvers.dsl import jit
import lazy_helper
first = int(lazy_helper.inc(41))
library = lazy_helper.inc.overloads[lazy_helper.inc.signatures[0]].library
lazy = "_lazy_bitcode" in library.__dict__
outer = numba.njit(lambda x: lazy_helper.inc(x) * 2)  # not cached: compiling it links inc's module
print(json.dumps({"patched": jit.LAZY_LOADS, "first": first, "lazy": lazy, "linked": int(outer(4)),
                  "parsed": "_lazy_bitcode" not in library.__dict__}))
"""


@pytest.mark.skipif(not jit.COMPILED, reason="numba's cache exists only with numba")
def test_a_function_loaded_from_the_cache_without_its_bitcode_still_links_into_a_new_compile(tmp_path):
    (tmp_path / "lazy_helper.py").write_text("from shared.solvers.dsl.jit import njit\n\n\n@njit\n"
                                             "def inc(x):\n    return x + 1\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), ARC_DSL_CACHE=str(tmp_path / "cache"))

    def run() -> dict:
        out = subprocess.run([sys.executable, "-c", LAZY_SCRIPT, str(tmp_path)], env=env, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        return json.loads(out.stdout.strip().splitlines()[-1])

    compiled, loaded = run(), run()  # the second process loads inc from the cache the first wrote
    assert compiled["first"] == loaded["first"] == 42 and compiled["linked"] == loaded["linked"] == 10
    assert not compiled["lazy"]
    if jit.LAZY_LOADS and sys.platform.startswith("linux"):  # numba's loader is the known one, objects are ELF
        assert loaded["patched"] and loaded["lazy"] and loaded["parsed"]  # no bitcode parsed until linked


def _doubled_or_not(x, flag):
    return x * 2 if flag else x


@pytest.mark.skipif(not jit.COMPILED, reason="literal arguments are a numba typing matter")
def test_a_function_called_from_compiled_code_with_constants_compiles_once_for_their_plain_types():
    import numba

    inner = jit._unliteral_calls(numba.njit(_doubled_or_not))
    outer = numba.njit(lambda x: inner(x, True) + inner(x, False))
    assert outer(3) == 9
    assert [str(s) for s in inner.signatures] == ["(int64, bool)"]  # not one per literal True and False


def test_paste_writes_a_grid_at_a_place_and_leaves_out_what_falls_past_the_edges():
    from shared.solvers.dsl.primitives.kernels import paste

    src = np.arange(1, 7, dtype=np.uint8).reshape(2, 3)
    out = np.zeros((3, 4), dtype=np.uint8)
    paste(out, 1, 1, src)
    assert out.tolist() == [[0, 0, 0, 0], [0, 1, 2, 3], [0, 4, 5, 6]]
    out = np.zeros((3, 4), dtype=np.uint8)
    paste(out, 2, 2, src)  # only the top-left 1 x 2 of src fits
    assert out.tolist() == [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 2]]
    out = np.zeros((3, 4), dtype=np.uint8)
    paste(out, -1, -2, src)  # only src's bottom-right cell lands, at the top-left corner
    assert out.tolist() == [[6, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]


def test_the_cache_fingerprint_covers_the_kernels_and_what_they_import_not_the_drivers(tmp_path):
    root = Path(jit.__file__).resolve().parent
    got = {f.relative_to(root).as_posix() for f in jit.kernel_sources()}
    with_njit = {f.relative_to(root).as_posix() for f in root.rglob("*.py") if "njit" in f.read_text()}
    assert with_njit <= got
    assert "types.py" in got  # no kernel of its own, but kernels import its constants
    assert not {"solver.py", "core/search.py", "bench.py"} & got
    # on a copy: a driver's edit keeps the fingerprint, a kernel's or an imported constant's changes it
    copy = tmp_path / "dsl"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__"))

    def print_of(edit: str) -> str:
        (copy / edit).write_text((copy / edit).read_text() + "\n# edited\n")
        return jit.fingerprint(copy)

    before = jit.fingerprint(copy)
    assert before == jit.fingerprint()
    assert print_of("solver.py") == before
    assert print_of("types.py") != before


@pytest.mark.skipif(not jit.COMPILED, reason="numba unavailable")
def test_processes_that_compile_into_one_cache_number_their_functions_apart():
    # the cold cache is compiled by several processes at once; numba names a compiled function by
    # its qualified name and a per-process counter, so counters that all start at 1 gave two
    # different sort helpers one name, and a process loading both ran the wrong one
    code = ("import numba; from shared.solvers.dsl import jit; "
            "print(next(numba.core.bytecode.FunctionIdentity._unique_ids))")
    root = Path(jit.__file__).resolve().parents[3]
    env = dict(os.environ, PYTHONPATH=str(root))
    starts = [int(subprocess.run([sys.executable, "-c", code], env=env, cwd=root, check=True, capture_output=True,
                                 text=True).stdout) for _ in range(2)]
    assert starts[0] != starts[1]
    assert min(starts) > 10 ** 6  # far from where another process's counter runs


def test_the_fingerprint_is_remembered_by_a_hash_of_the_sources(tmp_path, monkeypatch):
    root = Path(jit.__file__).resolve().parent
    copy = tmp_path / "dsl"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__"))
    base = tmp_path / "cache"
    first = jit._remembered_fingerprint(base, copy)
    assert first == jit.fingerprint(copy) and (base / jit.MEMO).exists()
    parsed = []
    real = jit.fingerprint
    monkeypatch.setattr(jit, "fingerprint", lambda r=None: parsed.append(r) or real(r))
    assert jit._remembered_fingerprint(base, copy) == first and parsed == []  # from the memo, no parse
    (copy / "types.py").write_text((copy / "types.py").read_text() + "\n# edited\n")
    assert jit._remembered_fingerprint(base, copy) == real(copy) != first and len(parsed) == 1
    (copy / "solver.py").write_text((copy / "solver.py").read_text() + "\n# edited\n")
    second = jit._remembered_fingerprint(base, copy)  # a driver's edit: parsed again, the same print
    assert second == real(copy) and len(parsed) == 2
    (base / jit.MEMO).write_text("not json")  # a torn memo costs a parse, never a wrong print
    assert jit._remembered_fingerprint(base, copy) == second and len(parsed) == 3


@pytest.mark.skipif(not jit.COMPILED, reason="numba's cache exists only with numba")
def test_the_compiler_smoke_check_is_cached_so_a_start_compiles_nothing(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), ARC_DSL_CACHE=str(tmp_path), ARC_DSL_PURE="0")
    code = "from shared.solvers.dsl import jit; assert jit.COMPILED, jit.REASON"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=ROOT, timeout=300)
    saved = list(tmp_path.rglob("jit._smoke_add-*.nbc"))
    assert len(saved) == 1
    stamp = saved[0].stat().st_mtime_ns
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=ROOT, timeout=300)
    assert saved[0].stat().st_mtime_ns == stamp  # loaded, not compiled and saved again
