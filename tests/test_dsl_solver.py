"""The DSL solver end to end on fixture tasks this project writes itself (not ARC tasks).

Each task is solved within its budget, its printed program re-executes to the same answers
(in this process and in a sandbox worker that preloads the DSL), the trace is JSON, and a
hostile 30x30 task finishes in budget with bounded memory.
"""

from __future__ import annotations

import json
import time
import tracemalloc

import numpy as np
import pytest

from shared.augment import Augmentation
from shared.grids import same
from shared.sandbox import SandboxPool
from shared.solvers import make_solver
from shared.solvers.dsl import DslSolver
from shared.solvers.dsl.primitives import colour_roles_back, flip_lr, orient_back, rotate180
from shared.solvers.dsl.program import INPUT, call, run, run_source, to_source
from shared.solvers.dsl.search import Candidate
from shared.solvers.dsl.solver import ColourRoles, Orientation, _unaugment, _wrap
from shared.tasks import Pair, Task


def _task(fn, make_input, n_train=3, n_test=1, seed=0, name="fixture") -> tuple[Task, list]:
    rng = np.random.default_rng(seed)
    ins = [make_input(rng) for _ in range(n_train + n_test)]
    outs = [fn(g) for g in ins]
    train = tuple(Pair(i, o) for i, o in zip(ins[:n_train], outs[:n_train], strict=True))
    test = tuple(Pair(i, None) for i in ins[n_train:])
    return Task(name, train, test), outs[n_train:]


def _sparse(rng, h=None, w=None, colours=(1, 2, 3), density=0.3):
    h = h or int(rng.integers(4, 9))
    w = w or int(rng.integers(4, 9))
    g = rng.choice(np.array(colours, dtype=np.uint8), size=(h, w))
    return np.where(rng.random((h, w)) < density, g, 0).astype(np.uint8)


def _boxes_scene(rng):
    """A scene of solid rectangles of distinct sizes and colours on a 0 background."""
    g = np.zeros((12, 12), dtype=np.uint8)
    for k, (size, colour) in enumerate(zip((4, 2, 1), rng.permutation([1, 2, 3, 5]), strict=False)):
        y, x = 4 * k, int(rng.integers(0, 12 - size))
        g[y:y + size, x:x + size] = colour
    return g


def _ring_scene(rng):
    g = np.zeros((9, 9), dtype=np.uint8)
    y, x = int(rng.integers(0, 4)), int(rng.integers(0, 4))
    h, w = int(rng.integers(3, 6)), int(rng.integers(3, 6))
    g[y:y + h, x:x + w] = 6
    g[y + 1:y + h - 1, x + 1:x + w - 1] = 0
    return g


def _fill_holes(g):
    out = g.copy()
    inside = np.zeros_like(g, dtype=bool)
    ys, xs = np.nonzero(g)
    inside[ys.min() + 1:ys.max(), xs.min() + 1:xs.max()] = True
    out[inside & (g == 0)] = 4
    return out


def _largest_box(g):
    ys, xs = np.nonzero(g == np.bincount(g.ravel(), minlength=10)[1:].argmax() + 1)
    return g[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy()


def _squares_scene(rng):
    """2x2 squares of colour 5, some against the edge of the grid and some inside."""
    g = np.zeros((10, 10), dtype=np.uint8)
    for y, x in ((0, int(rng.integers(0, 8))), (4, int(rng.integers(1, 6))), (int(rng.integers(3, 7)), 8)):
        g[y:y + 2, x:x + 2] = 5
    return g


def _recolour_edge_squares(g):
    out = g.copy()
    out[:2][g[:2] == 5] = 2
    out[:, 8:][g[:, 8:] == 5] = 2
    return out


def _shapes_scene(rng):
    """A bar, a big square and a small square, each its own colour, in random order down the grid."""
    g = np.zeros((13, 8), dtype=np.uint8)
    colours = rng.permutation([1, 2, 3, 4])
    shapes = [np.ones((1, 5)), np.ones((3, 3)), np.ones((2, 2))]
    y = 0
    for k in rng.permutation(3):
        sh = shapes[k]
        x = int(rng.integers(0, 8 - sh.shape[1] + 1))
        g[y:y + sh.shape[0], x:x + sh.shape[1]] = colours[k]
        y += sh.shape[0] + 1
    return g


def _widest(g):
    row = int(np.argmax((g != 0).sum(axis=1)))  # the bar is the only row with five cells
    return g[row:row + 1][:, g[row] != 0].copy()


def _mark_crowded_gaps(g):
    """Empty cells with two or more filled cells beside them (up, down, left, right) turn 8."""
    p = np.pad(g != 0, 1)
    beside = p[:-2, 1:-1].astype(int) + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:]
    return np.where((g == 0) & (beside >= 2), 8, g).astype(np.uint8)


def _mark_inner_even_cells(g):
    """Filled cells on even rows and columns, away from the edge, turn 5: four features at once,
    beyond the cell rules' three, so only the last-resort cell tree finds it."""
    ys, xs = np.indices(g.shape)
    inner = (ys > 0) & (xs > 0) & (ys < g.shape[0] - 1) & (xs < g.shape[1] - 1)
    return np.where((g != 0) & (ys % 2 == 0) & (xs % 2 == 0) & inner, 5, g).astype(np.uint8)


def _fall_on_own_background(g):
    """Cells of 5 fall to the bottom through a background whose colour is the grid's commonest."""
    bg = np.bincount(g.ravel(), minlength=10).argmax()
    return np.where(np.sort(g == 5, axis=0), 5, bg).astype(np.uint8)


def _fives_on(rng):
    """Scattered cells of 5 on a background of 6, 7, 8 or 9, chosen for each grid."""
    return np.where(_sparse(rng, colours=(5,)) == 0, rng.choice([6, 7, 8, 9]), 5).astype(np.uint8)


FIXTURES = {
    "mirror": (lambda g: g[:, ::-1].copy(), _sparse),
    "recolour": (lambda g: np.array([0, 2, 1, 3], dtype=np.uint8)[g], _sparse),
    "scale_then_flip": (lambda g: np.kron(g, np.ones((2, 2), dtype=np.uint8))[::-1].copy(),
                        lambda rng: _sparse(rng, 3, 3)),
    "largest_object": (_largest_box, _boxes_scene),
    "fill_holes": (_fill_holes, _ring_scene),
    "recolour_objects_on_the_edge": (_recolour_edge_squares, _squares_scene),
    "pick_the_widest": (_widest, _shapes_scene),
    "mark_crowded_gaps": (_mark_crowded_gaps, lambda rng: _sparse(rng, 9, 9, density=0.5)),
    "mark_inner_even_cells": (_mark_inner_even_cells, lambda rng: _sparse(rng, 9, 9, density=0.6)),
    # one colour, so sorting each column is exactly letting its cells fall
    "fall_down": (lambda g: np.sort(g, axis=0), lambda rng: _sparse(rng, colours=(5,))),
    # the same on a background of 7: solved on the pass that swaps the background to 0
    "fall_down_on_7": (lambda g: np.where(np.sort(g % 7, axis=0) == 0, 7, 5).astype(np.uint8),
                       lambda rng: np.where(_sparse(rng, colours=(5,)) == 0, 7, 5).astype(np.uint8)),
    # the background colour changes from pair to pair: solved with each grid's own swapped to 0
    "fall_down_on_own_background": (_fall_on_own_background, _fives_on),
}


@pytest.fixture(scope="module")
def solver():
    return DslSolver()


# Found only by the last guesses, which run after the searches and stop at a share of the budget:
# on a loaded machine (CI's other worker compiling the kernels) a full-depth search overran into
# that share and left the tree no time. One step deep, in one pass, with no beam, the searches end
# in about a second unloaded, so the guesses start long before their deadline even on a slow machine.
LAST_GUESS = {"mark_inner_even_cells"}


@pytest.fixture(scope="module")
def shallow_solver():
    return DslSolver(max_depth=1, deepest=1, core_depth=1, core_deepest=1, core_beam=0, augment=False)


@pytest.fixture(scope="module")
def dsl_pool():
    with SandboxPool(workers=1, time_limit_s=10.0, library="dsl") as p:
        yield p


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_solves_fixture_within_budget(solver, shallow_solver, dsl_pool, name):
    fn, make = FIXTURES[name]
    task, answers = _task(fn, make, seed=len(name))
    pred = (shallow_solver if name in LAST_GUESS else solver).solve(task, 8.0)
    assert len(pred.attempts) == len(task.test)
    assert any(same(a, answers[0]) for a in pred.attempts[0]), pred.trace
    trace = json.loads(json.dumps(pred.trace))
    assert trace["demos_explained"] == len(task.train)
    assert trace["candidates_tried"] > 0 and trace["depth"] >= 1 and trace["passes"]
    assert trace["program"].startswith("from shared.solvers.dsl.primitives import *")
    for i, p in enumerate(task.test):
        rerun = run_source(trace["program"], p.input)
        assert same(rerun, pred.attempts[i][0]), trace["program"]
    for pair in task.train:
        assert same(run_source(trace["program"], pair.input), pair.output)
    # the same text in the sandbox: every demo output, then the first answers
    inputs = [p.input for p in task.train + task.test]
    expected = [p.output for p in task.train] + [a[0] for a in pred.attempts]
    verdict = dsl_pool.run(trace["program"], inputs, expected)
    assert verdict.status == "ok", verdict.detail


def test_a_background_that_changes_between_pairs_is_swapped_per_pair(solver):
    task, answers = _task(_fall_on_own_background, _fives_on, seed=4)
    backgrounds = {int(np.bincount(p.input.ravel()).argmax()) for p in task.train + task.test}
    assert len(backgrounds) > 1
    pred = solver.solve(task, 8.0)
    assert pred.trace["passes"][0]["augmentation"] == "own-background"
    assert same(pred.attempts[0][0], answers[0])
    assert "background_to_zero(I)" in pred.trace["program"]
    assert same(run_source(pred.trace["program"], task.test[0].input), answers[0])


def _three_colours(rng):
    """12, 7 and 3 cells of three colours drawn afresh for each grid."""
    h, w = int(rng.integers(6, 10)), int(rng.integers(6, 10))
    g = np.zeros(h * w, dtype=np.uint8)
    cells = rng.permutation(h * w)
    for c, lo, hi in zip(rng.choice(np.arange(1, 10), size=3, replace=False), (0, 12, 19), (12, 19, 22), strict=True):
        g[cells[lo:hi]] = c
    return g.reshape(h, w)


def _remove_middle_colour(g):
    counts = np.bincount(g.ravel(), minlength=10)
    counts[0] = 0
    return np.where(g == np.argsort(-counts, kind="stable")[1], 0, g).astype(np.uint8)


def test_colours_that_change_between_pairs_are_searched_by_their_role(solver, dsl_pool):
    task, answers = _task(_remove_middle_colour, _three_colours, seed=3)
    assert len({c for p in task.train for c in np.unique(p.input)}) > 4  # each pair its own colours
    pred = solver.solve(task, 8.0)
    assert "colour-roles" in [p["augmentation"] for p in pred.trace["passes"]]
    assert same(pred.attempts[0][0], answers[0]), pred.trace["program"]
    assert "colour_roles(I, (0,))" in pred.trace["program"]
    for pair in task.train + task.test:
        want = pair.output if pair.output is not None else answers[0]
        assert same(run_source(pred.trace["program"], pair.input), want)
    verdict = dsl_pool.run(pred.trace["program"], [task.test[0].input], answers)
    assert verdict.status == "ok", verdict.detail


def test_colour_roles_also_view_a_task_whose_background_was_swapped_to_zero(solver):
    def on_grey(rng):
        g = _three_colours(rng)
        while (g == 8).any():
            g = _three_colours(rng)
        return np.where(g == 0, 8, g).astype(np.uint8)

    task, answers = _task(lambda g: np.where(_remove_middle_colour(np.where(g == 8, 0, g)) == 0, 8, g)
                          .astype(np.uint8), on_grey, seed=3)
    pred = solver.solve(task, 8.0)
    ids = [p["augmentation"] for p in pred.trace["passes"]]
    assert ids[0].startswith("t0.p8") and ids[1] == ids[0] + "+colour-roles", ids
    assert same(pred.attempts[0][0], answers[0]), pred.trace["program"]
    assert "colour_roles(" in pred.trace["program"]
    assert same(run_source(pred.trace["program"], task.test[0].input), answers[0])


def _view_round_trip(task: Task, view) -> Task:
    """A program found in the view as one for the task: its answers and its printed text agree.
    The program, a half turn, commutes with recolouring and with every turn or flip, so mapped
    back it is a half turn of the task's own inputs."""
    seen = view.apply(task)
    tests = [p.input for p in task.test]
    c = Candidate(call("rotate180", INPUT), "exact", 1.0, [rotate180(p.input) for p in seen.test], len(task.train))
    back = _unaugment(c, view, tests)
    for p, t in zip(back.preds, tests, strict=True):
        assert same(p, rotate180(t))
        assert same(run_source(to_source(back.node), t), p)
    return seen


def test_the_colour_roles_view_gives_each_grid_its_colours_by_role_and_maps_answers_back():
    task, _ = _task(flip_lr, _three_colours, seed=1)
    roles = ColourRoles.plan(task)
    assert roles is not None and roles.fixed == (0,)
    seen = _view_round_trip(task, roles)
    # by role: the commonest colour of every grid is 1, the next 2, the least common 3
    for p in seen.train + seen.test:
        counts = np.bincount(p.input.ravel(), minlength=4)
        assert list(counts[1:4]) == [12, 7, 3] and counts[4:].sum() == 0
    for p, q in zip(task.train, seen.train, strict=True):
        assert same(colour_roles_back(q.output, p.input, roles.fixed), p.output)
    # colours shared by every demo input keep theirs: no view when nothing changes between pairs
    same_colours, _ = _task(flip_lr, lambda rng: _sparse(rng, colours=(1, 2)), seed=2)
    assert ColourRoles.plan(same_colours) is None


def _bar(rng):
    """A bar of colour 3 lying across or down, with a few cells of colour 1."""
    g = _sparse(rng, 9, 9, colours=(1,), density=0.1)
    at, lo = int(rng.integers(0, 9)), int(rng.integers(0, 3))
    if rng.random() < 0.5:
        g[at, lo:lo + 6] = 3
    else:
        g[lo:lo + 6, at] = 3
    return g


def test_the_orientation_view_lays_each_pair_the_same_way_and_turns_answers_back():
    task, _ = _task(flip_lr, _bar, n_train=4, seed=6)
    assert len({bool((p.input == 3).any(axis=1).sum() == 1) for p in task.train}) == 2  # both ways in the demos
    turn = Orientation.plan(task)
    assert turn is not None and turn.feature == ("axis", 3)
    seen = _view_round_trip(task, turn)
    for p in seen.train + seen.test:
        assert (p.input == 3).any(axis=1).sum() == 1  # every bar lies across in the view
    for p, q in zip(task.train, seen.train, strict=True):
        assert same(orient_back(q.output, p.input, turn.feature), p.output)


def test_an_exhausted_depth_deepens_the_search():
    fn, make = FIXTURES["scale_then_flip"]
    task, answers = _task(fn, make, seed=5)
    pred = DslSolver(max_depth=1, deepest=2, core=False).solve(task, 8.0)  # the Python search deepens
    assert pred.trace["passes"][0]["search_depth"] == 2
    assert same(pred.attempts[0][0], answers[0])


def test_a_core_that_exhausts_its_depth_early_searches_one_deeper():
    fn, make = FIXTURES["scale_then_flip"]
    task, answers = _task(fn, make, seed=5)
    pred = DslSolver(core_depth=1, core_deepest=2, core_beam=0).solve(task, 8.0)  # no climb: it searches again
    core = pred.trace["passes"][0]["core"]
    assert core["depth"] == 2 and core["stopped"] == "exhausted"
    assert pred.trace["kind"] == "exact" and same(pred.attempts[0][0], answers[0])
    # with the climb, the depth-1 search reaches the two-step program itself, one level past its depth
    pred = DslSolver(core_depth=1, core_deepest=2).solve(task, 8.0)
    core = pred.trace["passes"][0]["core"]
    assert core["depth"] == 1 and 2 in core["depth_s"]
    assert pred.trace["kind"] == "exact" and same(pred.attempts[0][0], answers[0])
    with pytest.raises(ValueError, match="core_beam"):
        DslSolver(core_beam=-1)
    with pytest.raises(ValueError, match="core_deepest"):
        DslSolver(core_depth=3, core_deepest=2)


def test_registered_under_its_name():
    assert isinstance(make_solver("dsl"), DslSolver)


def test_unsolvable_task_still_answers_within_budget(solver, step_clock):
    rng = np.random.default_rng(7)
    train = tuple(Pair(_sparse(rng), _sparse(rng)) for _ in range(3))
    task = Task("noise", train, (Pair(_sparse(rng)),))
    start = step_clock.now
    pred = solver.solve(task, 2.0)
    assert step_clock.now - start < 2.0  # on the stand-in clock (1 ms a reading), so load cannot fail it
    assert len(pred.attempts) == 1 and len(pred.attempts[0]) <= 2
    json.dumps(pred.trace)


def test_hostile_task_finishes_in_budget_with_bounded_memory(solver, step_clock):
    step_clock.step = 0.02  # the search reads the clock rarely on 30x30 grids: 150 readings make 3 s
    rng = np.random.default_rng(3)

    def big(_):
        return rng.integers(0, 10, size=(30, 30)).astype(np.uint8)

    train = tuple(Pair(big(0), big(0)) for _ in range(4))
    task = Task("hostile", train, (Pair(big(0)), Pair(big(0))))
    tracemalloc.start()
    start = step_clock.now
    pred = solver.solve(task, 3.0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert step_clock.now - start < 4.5  # on the stand-in clock (20 ms a reading), so load cannot fail it
    assert peak < 1_000_000_000
    assert len(pred.attempts) == 2
    json.dumps(pred.trace)


def test_printed_program_runs_on_its_own():
    node = call("recolor", call("flip_lr", call("crop_content", INPUT)), args=({1: 7},))
    src = to_source(node)
    assert src.splitlines()[-1] == "    return O" and "    O = recolor(x2, {1: 7})" in src
    g = np.array([[0, 0, 0], [0, 1, 2]], dtype=np.uint8)
    assert same(run_source(src, g), np.array([[2, 7]], dtype=np.uint8))
    assert same(run(node, g), run_source(src, g))


@pytest.mark.parametrize("transform", range(8))
def test_augmented_programs_map_back_to_the_original_task(transform):
    aug = Augmentation(transform, (0, 2, 1, 3, 4, 5, 6, 7, 8, 9))
    node = call("gravity", INPUT, args=("down",))
    g = np.array([[1, 0, 0], [0, 2, 0]], dtype=np.uint8)
    expected = aug.invert_grid(run(node, aug.grid(g)))
    wrapped = _wrap(node, aug)
    assert same(run(wrapped, g), expected)
    assert same(run_source(to_source(wrapped), g), expected)


def test_the_first_tree_guess_grows_on_the_input_itself():
    from shared.solvers.dsl.search import Search, Sized
    from shared.solvers.dsl.solver import _guesses

    def answer(g):  # cells with exactly two non-zero side neighbours turn 5
        p = np.pad(g != 0, 1)
        around = p[:-2, 1:-1].astype(int) + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:]
        return np.where(around == 2, 5, g).astype(np.uint8)

    rng = np.random.default_rng(11)
    ins = [_sparse(rng, 7, 7, density=0.4) for _ in range(5)]
    search = Search(ins[:4], [answer(g) for g in ins[:4]], ins[4:], time.monotonic() + 1.0)
    search.run()
    # more states closer to the demo outputs than the input is (each one cell off, with their own
    # answers) than the guesses take: the input is still among them, and first
    for k in range(8):
        near = [answer(g) for g in ins[:4]]
        near[k % 4][k // 4, 0] = 9
        search.sized.append(Sized(k + 1, 5.0, near, [np.full((7, 7), k + 1, np.uint8)]))
    guesses = _guesses(search, time.monotonic() + 2.0)
    assert guesses[0].kind == "tree"
    assert "= cell_rule(I," in to_source(guesses[0].node)
    assert same(guesses[0].preds[0], answer(ins[4]))


def test_partial_guesses_put_demos_reproduced_exactly_before_cells_right():
    from shared.solvers.dsl.search import Search, Sized
    from shared.solvers.dsl.solver import _closest

    outs = [np.full((4, 4), 3, np.uint8), np.full((4, 4), 4, np.uint8)]
    search = Search(outs, outs, outs[:1], time.monotonic() + 1.0)  # not run: only the states below
    one_exact = [outs[0].copy(), np.zeros((4, 4), np.uint8)]   # demo 1 exactly, demo 2 all wrong: 16 of 32 cells
    close = [o.copy() for o in outs]
    close[0][0, 0] = close[1][0, 0] = 0                           # no demo exactly, 30 of 32 cells right
    search.sized += [Sized(1, 1.0, close, [np.full((4, 4), 1, np.uint8)]),
                     Sized(2, 1.0, one_exact, [np.full((4, 4), 2, np.uint8)])]
    assert [s.state for s in _closest(search)] == [2, 1]
