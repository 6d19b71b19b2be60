"""Search, pieces and ranking on small fixture tasks: dedup, guards, combination, attempts."""

from __future__ import annotations

import time

import numpy as np
import pytest

from shared.grids import D8_NAMES, same
from shared.solvers.dsl.combine import combine
from shared.solvers.dsl.primitives import PRIMITIVES
from shared.solvers.dsl.program import INPUT, call, run, run_source, to_source
from shared.solvers.dsl.ranking import rank
from shared.solvers.dsl.search import Candidate, Search
from shared.solvers.dsl.size import predict_sizes
from shared.tasks import Pair, Task


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """Every kernel compiled (or loaded) before the first search: on a cold cache the compile
    would otherwise fall inside the first search's seconds and end it before its answer."""
    from shared.solvers.dsl.primitives import preload

    preload()


def _grids(seed, n, h=6, w=6):
    rng = np.random.default_rng(seed)
    return [np.where(rng.random((h, w)) < 0.3, rng.integers(1, 4, (h, w)), 0).astype(np.uint8) for _ in range(n)]


def test_states_are_deduplicated_by_content():
    ins = _grids(0, 4)
    s = Search(ins[:3], _grids(9, 3), ins[3:], time.monotonic() + 1, max_depth=2)
    s.run()
    contents = set()
    for sid, st in enumerate(s.states[:400]):
        values = [run(s.node(sid), g) for g in ins]
        flat = [v if isinstance(v, tuple) else (v,) for v in values]
        contents.add(tuple((g.shape, g.tobytes()) for v in flat for g in v) + (st.kind,))
    # two programs that agree on every input are one state: rotate180 never also appears as two flips
    # (a state first met as a last step, whose grids were dropped, is kept again if met shallower)
    assert len(contents) >= min(400, len(s.states)) - s.stats.reopened
    assert len(s.seen) + s.stats.reopened == len(s.states)


def test_a_list_of_one_object_is_not_merged_with_the_same_grid():
    from shared.solvers.dsl.search import _key
    from shared.solvers.dsl.types import GRID, GRIDS

    # `objects` on a one-object input gives a one-item list whose cells equal the crop; if the two
    # states shared a key, whichever came second would be dropped with every program through it
    g = np.full((2, 3), 4, np.uint8)
    assert _key(GRID, (g, g)) != _key(GRIDS, ((g,), (g,)))
    assert _key(GRID, (g, g)) == _key(GRID, (g.copy(), g.copy()))


def test_finds_the_cheapest_program_first():
    ins = _grids(1, 4)
    start = time.monotonic()
    s = Search(ins[:3], [np.rot90(g).copy() for g in ins[:3]], ins[3:], start + 5, max_depth=2)
    cands = s.run()
    assert cands and min(cands, key=Candidate.rank).node == call("rotate90", INPUT)
    # after the answer the search looks on only briefly: it ends when costlier programs cannot win,
    # or when that short second look (not the 5 s budget) runs out on a slow machine
    assert s.stats.stopped == "solved" or (s.stats.stopped == "time" and s.deadline < start + 5)


def test_search_stops_at_its_deadline(step_clock):
    ins = _grids(2, 5, 30, 30)
    start = step_clock.now
    s = Search(ins[:4], _grids(3, 4, 30, 30), ins[4:], start + 0.5, max_depth=3)
    s.run()
    # the clock moves 1 ms a reading, whatever the machine's load: the search read it past its
    # deadline and stopped there, instead of running its depth out
    assert s.stats.stopped in ("time", "memory")
    assert step_clock.now - start < 0.5 + 0.1


def test_pieces_layer_partial_programs():
    ins = _grids(4, 5)
    # the demos' answer: each grid with its mirror image painted underneath
    outs = [np.where(g != 0, g, g[:, ::-1]).astype(np.uint8) for g in ins]
    s = Search(ins[:4], outs[:4], ins[4:], time.monotonic() + 3, max_depth=1)
    s.run()
    pieces = combine(s, time.monotonic() + 2)
    assert pieces and all(p.kind == "pieces" for p in pieces)
    piece = pieces[0]
    src = to_source(piece.node)
    assert "paint_over" in src
    for g, o in zip(ins, outs, strict=True):
        assert same(run_source(src, g), o)
    assert same(piece.preds[0], outs[4])


def test_pieces_stack_the_compiled_core_s_states_three_deep():
    from shared.solvers.dsl.core.search import CoreSearch, warm

    warm()  # a cold cache compiles before the core's clock starts, not inside its 30 s
    ins = _grids(5, 5)
    # each grid over its quarter turn over itself one row down: three layers of depth-1 states
    # (no one op lays two of them, as overlay_image lays a grid over its mirror)
    down = [np.vstack([np.zeros((1, g.shape[1]), np.uint8), g[:-1]]) for g in ins]
    outs = [np.where(g != 0, g, np.where(np.rot90(g) != 0, np.rot90(g), d)).astype(np.uint8)
            for g, d in zip(ins, down, strict=True)]
    core = CoreSearch(ins[:4], outs[:4], ins[4:], time.monotonic() + 30, max_depth=1, prune=False)
    core.run()
    assert not core.exact()
    empty = Search(ins[:4], outs[:4], ins[4:], time.monotonic() + 1, max_depth=1)  # not run: no sized states
    pieces = combine(empty, time.monotonic() + 10, core=core)
    assert pieces and all(p.kind == "pieces" for p in pieces)
    piece = pieces[0]
    src = to_source(piece.node)
    assert src.count("paint_over") == 2
    for g, o in zip(ins, outs, strict=True):
        assert same(run_source(src, g), o)
    assert same(piece.preds[0], outs[4])


def test_pieces_skip_core_states_with_no_real_colours_left():
    from shared.solvers.dsl import combine as C
    from shared.solvers.dsl.core.search import CoreSearch

    ins = _grids(6, 4)
    outs = [g[::-1].copy() for g in ins]
    core = CoreSearch(ins[:3], outs[:3], ins[3:], time.monotonic() + 30, max_depth=1, prune=False)
    core.run()
    core.bank[:] = 10  # every image of every state now holds a marker colour: no state may be a layer as it is
    layers = C._Layers(outs[:3])
    layers.add_core(core, time.monotonic() + 10)
    assert layers.where and not np.concatenate(layers.clean).any()
    # in one colour each paints every cell, and the outputs have more than one colour: no layering
    assert layers.stacks(6, time.monotonic() + 10) == []


def test_pieces_colour_a_layer_s_shape():
    from shared.solvers.dsl.core.search import CoreSearch, warm

    warm()
    ins = _grids(7, 5)
    # each grid over its left-right mirror's shape in colour 5, a colour no input has
    outs = [np.where(g != 0, g, np.where(g[:, ::-1] != 0, 5, 0)).astype(np.uint8) for g in ins]
    core = CoreSearch(ins[:4], outs[:4], ins[4:], time.monotonic() + 30, max_depth=1, prune=False)
    core.run()
    assert not core.exact()
    empty = Search(ins[:4], outs[:4], ins[4:], time.monotonic() + 1, max_depth=1)
    pieces = combine(empty, time.monotonic() + 10, core=core)
    assert pieces and all(p.kind == "pieces" for p in pieces)
    piece = pieces[0]
    src = to_source(piece.node)
    assert "colour_shape" in src and "paint_over" in src
    for g, o in zip(ins, outs, strict=True):
        assert same(run_source(src, g), o)
    assert same(piece.preds[0], outs[4])


def test_pieces_kernels_give_the_same_layers_compiled_and_as_plain_python():
    from shared.solvers.dsl import combine as C
    from shared.solvers.dsl import jit

    rng = np.random.default_rng(3)
    n, cells = 300, 150
    target = rng.integers(0, 3, cells).astype(np.uint8)
    vals = np.where(rng.random((n, cells)) < 0.8, target, rng.integers(0, 3, (n, cells))).astype(np.uint8)
    vals[rng.random((n, cells)) < 0.6] = 0
    part = rng.integers(0, 3, cells)
    for j in range(3):  # three clean layers that together are the target
        vals[100 + j] = np.where(part == j, target, 0)
    words = (cells + 63) // 64
    paint, wrong = C._pack(vals != 0, words), C._pack(vals != target, words)
    # the bitsets as the core builds them from its bank, against numpy's packing
    bank = np.ascontiguousarray(vals.ravel())
    offs = np.arange(n, dtype=np.int64) * cells
    nodes = np.arange(n, dtype=np.int32)[:, None]
    kb = [np.zeros((n, words), np.uint64), np.zeros((n, words), np.uint64), np.zeros(n, np.bool_)]
    fns = [C._core_bits] + ([C._core_bits.py_func] if jit.COMPILED else [])
    for fn in fns:
        got = [np.zeros_like(a) for a in kb]
        fn(np.arange(n, dtype=np.int64), nodes, 1, bank, offs, np.ones(n, np.int64), np.full(n, cells, np.int64),
           target, *got)
        assert np.array_equal(got[0], paint) and np.array_equal(got[1], wrong) and got[2].all()
    cost = rng.random(n)
    runs = []
    # the middle layer holds a marker colour where the target is 2: only its shape, in colour 2, fits
    vals[101] = np.where((part == 1) & (target == 2), 12, 0)
    vals[102] = np.where(part == 2, target, np.where((part == 1) & (target == 1), 1, 0))
    paint, wrong = C._pack(vals != 0, words), C._pack(vals != target, words)
    clean = (vals < 10).all(axis=1)
    same = C._pack(target[None, :] == np.array([[1], [2]], np.uint8), words)
    for fn in [C._stack] + ([C._stack.py_func] if jit.COMPILED else []):
        open_ = C._pack(np.ones((1, cells), bool), words)[0].copy()
        nonzero = C._pack((target != 0)[None, :], words)[0].copy()
        everywhere = np.full(words, ~np.uint64(0), np.uint64)
        layers, colours, k = fn(paint, wrong, clean, cost, same, open_, nonzero, everywhere, 6)
        runs.append((list(layers), list(colours), int(k)))
    assert all(r == runs[0] for r in runs)
    layers, colours, k = runs[0]
    assert k >= 2
    canvas = np.zeros(cells, np.uint8)
    for i, c in zip(layers[:k][::-1], colours[:k][::-1], strict=True):  # bottom first
        assert c >= 0 or clean[i]
        top = vals[i] if c < 0 else np.where(vals[i] != 0, c + 1, 0)
        canvas = np.where(top != 0, top, canvas)
    assert np.array_equal(canvas, target)


def test_ranking_prefers_simple_kinds_and_distinct_answers():
    a, b = np.zeros((2, 2), np.uint8), np.ones((2, 2), np.uint8)
    cands = [Candidate(INPUT, "rule", 1.0, [a]), Candidate(INPUT, "exact", 5.0, [a]),
             Candidate(INPUT, "pieces", 0.5, [b]), Candidate(INPUT, "exact", 6.0, [a])]
    best = rank(cands, [set()])
    assert [c.kind for c in best] == ["exact", "pieces"]
    # a trusted size rule drops wrong-sized answers, but for an exact or fitted program, which
    # only fills attempts that answers of the predicted size leave free
    assert rank(cands, [{(3, 3)}], off_size=False) == []
    assert [c.kind for c in rank(cands, [{(3, 3)}])] == ["exact"]
    c3 = Candidate(INPUT, "rule", 9.0, [np.zeros((3, 3), np.uint8)])
    assert [c.kind for c in rank(cands + [c3], [{(3, 3)}])] == ["rule", "exact"]
    # a fitted ending and a learned rule both learn from the demos: the cheaper one first
    fits = [Candidate(INPUT, "fitted", 4.0, [a]), Candidate(INPUT, "rule", 3.0, [b]),
            Candidate(INPUT, "pieces", 1.0, [c3.preds[0]])]
    assert [c.kind for c in rank(fits, [set()])] == ["rule", "fitted"]


def test_a_learned_ending_on_a_climbed_state_ranks_after_pieces_and_ends_nothing():
    a, b, c = (np.full((2, 2), v, np.uint8) for v in (1, 2, 3))
    climbed = [Candidate(INPUT, "fitted", 1.0, [a], climbed=True), Candidate(INPUT, "rule", 0.5, [b], climbed=True)]
    others = [Candidate(INPUT, "pieces", 9.0, [c]), Candidate(INPUT, "tree", 0.1, [np.zeros((2, 2), np.uint8)])]
    assert [x.kind for x in rank(climbed + others, [set()], keep=4)] == ["pieces", "rule", "fitted", "tree"]
    # the same ending on a state of the enumerated depths is as firm as ever, ahead of pieces
    plain = Candidate(INPUT, "fitted", 1.0, [a])
    assert plain.firm and not climbed[0].firm and not climbed[1].firm
    assert rank([plain] + others, [set()])[0] is plain
    # nor does it fill an attempt off the size rule, as a firm program may
    assert rank(climbed, [{(3, 3)}]) == [] and rank([plain], [{(3, 3)}]) == [plain]


def test_output_size_rules():
    g = np.zeros((2, 3), np.uint8)
    same_size = Task("t", (Pair(g, g), Pair(g.T.copy(), g.T.copy())), (Pair(np.zeros((4, 5), np.uint8)),))
    assert predict_sizes(same_size) == ("same", [{(4, 5)}])
    doubled = Task("t", (Pair(g, np.zeros((4, 6), np.uint8)),), (Pair(np.zeros((3, 3), np.uint8)),))
    rule, sizes = predict_sizes(doubled)
    assert "scaled" in rule and (6, 6) in sizes[0]


def test_every_searched_primitive_has_a_positive_cost():
    assert all(p.cost > 0 for p in PRIMITIVES.values())
    node = call("flip_lr", INPUT)
    assert same(run(node, np.array([[1, 2]], np.uint8)), np.array([[2, 1]], np.uint8))


def _bars(lengths, width=8):
    """One horizontal bar of colour 5 per length, on every other row."""
    g = np.zeros((2 * len(lengths), width), np.uint8)
    for i, n in enumerate(lengths):
        g[2 * i, :n] = 5
    return g


def test_object_recolour_rule_learns_a_property_table_with_an_exception():
    from shared.solvers.dsl.fit import fit_recolor_objects
    from shared.solvers.dsl.primitives.props import recolor_objects

    def answer(g):  # bars of three cells turn 2, every other bar 1
        out = g.copy()
        for row in out:
            row[row == 5] = 2 if (row == 5).sum() == 3 else 1
        return out

    ins = [_bars([3, 1, 4]), _bars([2, 3, 5]), _bars([6, 3])]
    test = _bars([3, 7])  # a length no demo showed: the rule's "everything else" covers it
    rules = fit_recolor_objects(ins, [answer(g) for g in ins], [test])
    assert rules and rules[0][1] == "size" and rules[0][2] == {"3": 2, "*": 1}
    assert same(recolor_objects(test, *rules[0]), answer(test))
    # a demo the property cannot explain (two bars of one length, two colours) gives no rule
    bad = answer(_bars([2, 2]))
    bad[2, :2] = 2
    assert fit_recolor_objects([_bars([2, 2])], [bad], [test]) == []


def test_select_object_fit_finds_the_property_that_picks_the_answer():
    from shared.solvers.dsl.fit import fit_select_object
    from shared.solvers.dsl.primitives.props import select_object

    ins = [_bars([3, 1, 4]), _bars([2, 5, 1]), _bars([6, 3, 2])]
    outs = [np.full((1, max(row)), 5, np.uint8) for row in ([3, 1, 4], [2, 5, 1], [6, 3, 2])]
    found = fit_select_object(ins, outs)
    assert found is not None and found[1] in ("size", "width") and found[2] == "max"
    assert same(select_object(_bars([2, 7, 1]), *found), np.full((1, 7), 5, np.uint8))


def test_select_object_fit_answers_one_cell_with_the_picked_objects_colour():
    from shared.solvers.dsl.fit import fit_select_object
    from shared.solvers.dsl.primitives.props import select_object

    def coloured(lengths, colours):
        g = _bars(lengths)
        for i, c in enumerate(colours):
            g[2 * i][g[2 * i] != 0] = c
        return g

    ins = [coloured([3, 1, 4], [2, 3, 4]), coloured([2, 5, 1], [6, 7, 8]), coloured([6, 3, 2], [1, 2, 3])]
    outs = [np.full((1, 1), c, np.uint8) for c in (4, 7, 1)]  # the colour of the longest bar
    found = fit_select_object(ins, outs)
    assert found is not None and found[2] == "max" and found[3] == "colour"
    assert same(select_object(coloured([2, 7, 1], [9, 5, 6]), *found), np.full((1, 1), 5, np.uint8))
    # no property picks a colour that differs from every object's: no fit
    assert fit_select_object(ins, [np.full((1, 1), 9, np.uint8)] * 3) is None


def test_select_part_fit_picks_the_part_by_a_property_value():
    from shared.solvers.dsl.fit import fit_select_part
    from shared.solvers.dsl.primitives.props import select_part

    def sym(a, b):  # the same about its diagonal
        return np.array([[a, b], [b, a]], np.uint8)

    def odd(a, b):
        return np.array([[a, a], [b, a]], np.uint8)

    demos = [(sym(1, 2), odd(3, 4), sym(5, 6)), (odd(1, 7), sym(2, 8)), (sym(9, 1), sym(3, 2), odd(4, 2), sym(5, 1))]
    outputs = [odd(3, 4), odd(1, 7), odd(4, 2)]  # the part that is not symmetric about its diagonal
    found = fit_select_part(demos, outputs, [(sym(6, 2), odd(8, 3), sym(7, 1))])
    assert found == ("transpose", "min")
    assert same(select_part((sym(6, 2), odd(8, 3), sym(7, 1)), *found), odd(8, 3))
    # an output that is no part: no fit; a test with two odd parts: no pick, no fit
    assert fit_select_part(demos, [odd(3, 4), odd(1, 7), sym(4, 4)], [(sym(1, 2), odd(3, 4))]) is None
    assert fit_select_part(demos, outputs, [(odd(1, 2), odd(3, 4), sym(5, 6))]) is None


def test_object_stamp_fit_marks_every_object_alike_by_its_colours():
    from shared.solvers.dsl.fit import fit_object_stamp
    from shared.solvers.dsl.primitives.props import object_stamp

    def scene(dots):  # 2x2 blocks of colour c with its top-left cell marked by colour m
        g = np.zeros((9, 9), np.uint8)
        for y, x, c, m in dots:
            g[y:y + 2, x:x + 2] = c
            g[y, x] = m
        return g

    def answer(dots):  # a cell of the marker colour right of each block's top row, a 5 above its first column
        g = scene(dots)
        for y, x, _, m in dots:
            g[y, x + 2] = m
            if y:
                g[y - 1, x] = 5
        return g

    demos = [[(1, 1, 2, 3), (5, 4, 4, 6)], [(0, 0, 7, 1), (4, 5, 2, 8), (7, 1, 3, 9)]]
    found = fit_object_stamp([scene(d) for d in demos], [answer(d) for d in demos], [scene([(2, 3, 6, 4)])])
    assert found is not None and found[:2] == ("any8", 1)
    assert same(object_stamp(scene([(2, 3, 6, 4), (6, 6, 1, 2)]), *found), answer([(2, 3, 6, 4), (6, 6, 1, 2)]))
    # a test object of a box size no demo showed twice: no fit
    wide = scene([(2, 3, 6, 4)])
    wide[2:4, 5] = 6
    assert fit_object_stamp([scene(d) for d in demos], [answer(d) for d in demos], [wide]) is None
    # marks that disagree between two objects of one size: no fit
    clash = [answer(d) for d in demos]
    clash[1][0, 2] = 0
    assert fit_object_stamp([scene(d) for d in demos], clash, [scene([(2, 3, 6, 4)])]) is None


def test_cell_rule_fit_picks_the_fewest_features_that_cover_the_test():
    from shared.solvers.dsl.fit import fit_cell_rule
    from shared.solvers.dsl.primitives.cellrule import cell_rule

    def answer(g):  # every empty cell inside a ring turns 4
        out = g.copy()
        out[1:-1, 1:-1][g[1:-1, 1:-1] == 0] = 4
        return out

    def ring(h, w, c):
        g = np.zeros((h, w), np.uint8)
        g[0, :], g[-1, :], g[:, 0], g[:, -1] = c, c, c, c
        return np.pad(g, 1)

    ins = [ring(4, 5, 2), ring(5, 3, 1), ring(3, 3, 2)]
    test = ring(6, 4, 1)
    rules = fit_cell_rule(ins, [answer(g) for g in ins], [test])
    assert rules and rules[0][0] == ("hole",) and rules[0][1] == {(0,): "colour", (1,): 4}
    assert same(cell_rule(test, *rules[0]), answer(test))
    # a test ring of a colour no demo showed: the colour itself may not be a feature, holes still work
    assert same(cell_rule(ring(3, 4, 6), *rules[0]), answer(ring(3, 4, 6)))
    # demos that contradict each other cell for cell admit no rule at all
    assert fit_cell_rule([ins[0], ins[0]], [answer(ins[0]), ins[0]], [test]) == []


def test_cell_rule_fit_recolours_cells_by_what_they_touch():
    from shared.solvers.dsl.fit import fit_cell_rule
    from shared.solvers.dsl.primitives.cellrule import cell_rule

    def answer(g):  # a 3 touching another colour turns 8 and a 2 touching another colour goes
        t = np.pad(g, 1)
        touch = np.zeros(g.shape, bool)
        for dy, dx in ((0, 1), (2, 1), (1, 0), (1, 2)):
            q = t[dy:dy + g.shape[0], dx:dx + g.shape[1]]
            touch |= (q != 0) & (q != g)
        out = g.copy()
        out[(g == 3) & touch], out[(g == 2) & touch] = 8, 0
        return out

    rng = np.random.default_rng(5)

    def scene():
        g = np.zeros((7, 7), np.uint8)
        for _ in range(5):
            y, x = rng.integers(0, 6, 2)
            g[y, x], g[y, x + 1] = rng.choice([2, 3], 2)  # a pair: the same colour twice, or touching
        return g

    ins, test = [scene() for _ in range(4)], scene()
    rules = fit_cell_rule(ins, [answer(g) for g in ins], [test])
    assert rules and {"touch", "touchc"} & set(rules[0][0]), rules
    assert same(cell_rule(test, *rules[0]), answer(test))


def test_cell_rule_screen_agrees_with_a_plain_table_per_feature_set():
    from shared.solvers.dsl.fit.common import MAX_TABLE
    from shared.solvers.dsl.fit.rules import _screen, demo_cells, feature_matrix
    from shared.solvers.dsl.primitives.cellrule import cell_features

    rng = np.random.default_rng(5)
    ins = [(rng.random((h, w)) < 0.5) * rng.integers(1, 4, (h, w)).astype(np.uint8) for h, w in ((6, 7), (7, 6))]
    outs = [np.where(g == 1, 2, g).astype(np.uint8) for g in ins]
    test = (rng.random((6, 6)) < 0.5) * rng.integers(1, 4, (6, 6)).astype(np.uint8)
    demo, masks, _ = demo_cells(ins, outs)
    tests = np.unique(feature_matrix([cell_features(test)]), axis=1)
    sets = np.array([sorted(rng.choice(demo.shape[0], size=3, replace=False)) for _ in range(400)])
    covers, agrees, screened = _screen(demo, masks, tests, sets, None)
    assert screened and covers.any() and (~covers).any() and (covers & agrees).any() and (covers & ~agrees).any()
    for row, c, a in zip(sets, covers, agrees, strict=True):  # the same verdicts, one dict per set
        shared_labels: dict[tuple, int] = {}
        for col in range(demo.shape[1]):
            key = tuple(demo[row, col])
            shared_labels[key] = shared_labels.get(key, -1) & int(masks[col])
        seen = all(tuple(tests[row, col]) in shared_labels for col in range(tests.shape[1]))
        assert c == (seen and len(shared_labels) <= MAX_TABLE)
        if c:
            assert a == all(m != 0 for m in shared_labels.values())
    _, _, screened = _screen(demo, masks, tests, sets, time.monotonic() - 1)
    assert not screened  # a deadline already past stops the screen


def test_cell_tree_fit_grows_a_rule_on_many_features():
    from shared.solvers.dsl.fit import fit_cell_tree
    from shared.solvers.dsl.primitives.cellrule import cell_rule

    def answer(g):  # filled cells on even rows and even columns, away from the edge, turn 5
        out = g.copy()
        ys, xs = np.indices(g.shape)
        out[(g != 0) & (ys % 2 == 0) & (xs % 2 == 0) & (ys > 0) & (xs > 0) & (ys < g.shape[0] - 1)
            & (xs < g.shape[1] - 1)] = 5
        return out

    rng = np.random.default_rng(11)
    ins = [(rng.random((h, w)) < 0.6) * rng.integers(1, 4, (h, w)).astype(np.uint8) for h, w in
           ((7, 9), (9, 8), (8, 7), (9, 9))]
    test = (rng.random((9, 7)) < 0.6) * rng.integers(1, 4, (9, 7)).astype(np.uint8)
    names, table = fit_cell_tree(ins, [answer(g) for g in ins], [test])
    for g in ins:  # every demo reproduced, cell for cell
        assert same(cell_rule(g, names, table), answer(g))
    assert same(cell_rule(test, names, table), answer(test))
    # contradicting demos admit no tree; neither does noise, which would need a leaf per cell
    assert fit_cell_tree([ins[0], ins[0]], [answer(ins[0]), ins[0]], [test]) is None
    noise = [rng.integers(0, 10, (12, 12)).astype(np.uint8) for _ in range(3)]
    assert fit_cell_tree(noise, [rng.integers(0, 10, (12, 12)).astype(np.uint8) for _ in noise], noise[:1]) is None


def test_part_table_fit_colours_each_part_by_a_property():
    from shared.solvers.dsl.fit import fit_part_table

    def parts(*counts):  # 2x2 parts with the given numbers of filled cells
        return tuple(np.array([1] * n + [0] * (4 - n), np.uint8).reshape(2, 2) for n in counts)

    ins = [parts(2, 1, 0, 2), parts(1, 1, 2, 0), parts(2, 2, 1, 1)]
    outs = [np.array([[int(v) for v in row] for row in np.array(c).reshape(2, 2) == 2], np.uint8)
            for c in ((2, 1, 0, 2), (1, 1, 2, 0), (2, 2, 1, 1))]
    found = fit_part_table(ins, outs, [parts(0, 2, 2, 1)])
    assert found is not None and found[0] == "count" and found[2] == (2, 2)
    # a test part with a count no demo showed: no table
    assert fit_part_table(ins, outs, [parts(0, 2, 3, 1)]) is None


def test_part_table_fit_stretches_one_row_per_part():
    from shared.solvers.dsl.fit import fit_part_table
    from shared.solvers.dsl.primitives.props import part_table

    def parts(*counts):
        return tuple(np.array([1] * n + [0] * (4 - n), np.uint8).reshape(2, 2) for n in counts)

    def answer(counts):  # one 3-wide row per part: 4 for two cells, 6 otherwise
        return np.repeat(np.array([[4 if n == 2 else 6] for n in counts], np.uint8), 3, axis=1)

    demos = [(2, 1, 2), (1, 2, 0), (0, 2, 2)]
    found = fit_part_table([parts(*c) for c in demos], [answer(c) for c in demos], [parts(2, 0, 1)])
    assert found is not None and found[0] == "count" and found[3] == (1, 3)
    assert same(part_table(parts(2, 0, 1), *found), answer((2, 0, 1)))
    # rows that are not one colour each are not a stretched layout
    bad = [answer(c) for c in demos]
    bad[0][0, 1] = 9
    assert fit_part_table([parts(*c) for c in demos], bad, [parts(2, 0, 1)]) is None


def test_overlay_order_fit_learns_which_part_wins():
    from shared.solvers.dsl.fit import fit_overlay_order

    rng = np.random.default_rng(3)
    ins, outs = [], []
    for _ in range(3):
        parts = tuple(np.where(rng.random((3, 3)) < 0.5, c, 0).astype(np.uint8) for c in (4, 5, 6))
        out = np.where(parts[0] != 0, 4, np.where(parts[2] != 0, 6, parts[1]))  # 4 over 6 over 5
        ins.append(parts)
        outs.append(out.astype(np.uint8))
    assert fit_overlay_order(ins, outs) == (1, 2, 0)
    assert fit_overlay_order([p[:2] for p in ins], outs) is None  # two parts are searched, not fitted


def test_candidates_that_leave_marker_colour_in_an_answer_are_dropped():
    # a learned last step can keep marker cells it never saw in the demos; such an answer is no grid
    ins = _grids(0, 2)
    s = Search(ins[:1], ins[:1], ins[1:], time.monotonic() + 1, max_depth=1)
    marked = ins[1].copy()
    marked[0, 0] = 10
    for preds in ([marked], [None], [ins[1]]):
        s._offer(Candidate(INPUT, "fitted", 1.0, preds, 1))
    assert len(s.candidates) == 1 and s.candidates[0].preds[0] is ins[1]


def test_object_properties_for_solid_symmetric_and_size_order():
    from shared.solvers.dsl.primitives.props import properties

    g = np.array([[1, 1, 0, 2], [1, 1, 0, 2], [0, 0, 0, 0], [3, 3, 0, 0], [0, 3, 0, 0]], dtype=np.uint8)
    assert properties(g, "colour8", "solid") == [True, True, False]
    assert properties(g, "colour8", "symmetric") == [True, True, False]
    assert properties(g, "colour8", "size_order") == [0, 2, 1]


def test_path_property_tells_bends_branches_and_loops():
    from shared.solvers.dsl.fit import fit_recolor_objects
    from shared.solvers.dsl.primitives.props import properties, scene_objects

    # a bar, an L, a U, a T and a ring, apart from each other
    g = np.zeros((12, 12), dtype=np.uint8)
    g[0, 0:4] = 3
    g[2:5, 0] = 3
    g[4, 0:3] = 3
    g[6:9, 0] = g[8, 0:3] = g[6:9, 2] = 3
    g[0, 6:9] = 3
    g[0:3, 7] = 3
    g[5:8, 6:9] = 3
    g[6, 7] = 0
    assert properties(g, "colour8", "path") == [0, "branched", 1, "closed", 2]  # boxes in reading order
    # recolour by it: paths by their bends, branched shapes alike
    colour = {0: 4, 1: 1, 2: 6, "branched": 2, "closed": 7}
    out = g.copy()
    for (ys, xs), p in zip(scene_objects(g, "colour8"), properties(g, "colour8", "path"), strict=True):
        out[ys, xs] = colour[p]
    # the same five classes drawn as other shapes: no one shape table explains both demos
    g2 = np.zeros((12, 12), dtype=np.uint8)
    g2[0:2, 0] = 3
    g2[3:7, 0] = g2[6, 0:4] = 3
    g2[0, 5:10] = g2[0:4, 7] = 3
    g2[8:11, 5] = g2[10, 5:10] = g2[8:11, 9] = 3
    g2[8:12, 0:4] = 3
    g2[9:11, 1:3] = 0
    assert sorted(map(str, properties(g2, "colour8", "path"))) == ["0", "1", "2", "branched", "closed"]
    out2 = g2.copy()
    for (ys, xs), p in zip(scene_objects(g2, "colour8"), properties(g2, "colour8", "path"), strict=True):
        out2[ys, xs] = colour[p]
    rules = fit_recolor_objects([g, g2], [out, out2], [g])
    assert rules and rules[0][1] == "path"


def test_move_objects_learns_a_step_per_colour_and_refuses_what_the_demos_never_showed():
    from shared.solvers.dsl.fit import fit_move_objects
    from shared.solvers.dsl.primitives.props import move_objects

    steps = {1: (0, 2), 2: (-1, 0), 3: (0, 0)}  # colour 1 moves two right, 2 one up, 3 stays

    def scene(cells):
        g = np.zeros((8, 8), dtype=np.uint8)
        for y, x, c in cells:
            g[y, x] = c
        return g

    def answer(cells):
        return scene([(y + steps[c][0], x + steps[c][1], c) for y, x, c in cells])

    demos = [[(2, 1, 1), (2, 2, 1), (5, 5, 2), (7, 0, 3)], [(0, 0, 1), (4, 3, 2), (6, 6, 2), (3, 7, 3)]]
    test = [(6, 2, 1), (3, 3, 2), (1, 5, 3), (7, 4, 2)]
    rules = fit_move_objects([scene(d) for d in demos], [answer(d) for d in demos], [scene(test)])
    assert rules
    kind, prop, table = rules[0]
    assert prop == "colour" and table == {"(1,)": (0, 2), "(2,)": (-1, 0), "(3,)": (0, 0)}
    assert same(move_objects(scene(test), *rules[0]), answer(test))
    # a colour the demos never moved has no step: the primitive refuses it
    assert move_objects(scene([(1, 1, 4)]), *rules[0]) is None
    # an output that loses a cell is no move at all
    lost = answer(demos[0])
    lost[2, 3] = 0
    assert fit_move_objects([scene(demos[0])], [lost], [scene(test)]) == []


def test_move_by_learns_that_each_object_falls_as_far_as_it_is_big():
    from shared.solvers.dsl.fit import fit_move_by
    from shared.solvers.dsl.primitives.props import move_by

    def scene(bars, fall=False):
        # each bar (y, x, length, colour) lies along a row; falling moves it down by its length
        g = np.zeros((12, 10), dtype=np.uint8)
        for y, x, n, c in bars:
            g[y + (n if fall else 0), x:x + n] = c
        return g

    demos = [[(0, 0, 3, 2), (1, 5, 1, 4)], [(2, 1, 2, 3), (0, 6, 4, 2), (6, 4, 1, 1)]]
    test = [(1, 2, 5, 6), (3, 8, 2, 4)]  # a length the demos never showed falls as far as it is long
    rules = fit_move_by([scene(d) for d in demos], [scene(d, fall=True) for d in demos], [scene(test)])
    assert rules == [("colour8", "size", "down")]
    assert same(move_by(scene(test), *rules[0]), scene(test, fall=True))
    # an output with a cell more than the input is no move
    extra = scene(demos[0], fall=True)
    extra[11, 9] = 5
    assert fit_move_by([scene(demos[0])], [extra], [scene(test)]) == []


def test_halo_objects_rings_what_one_property_picks_and_offers_each_reading_of_the_objects():
    from shared.solvers.dsl.fit import fit_halo_objects
    from shared.solvers.dsl.primitives.props import halo_objects

    def scene(cells):
        g = np.zeros((9, 9), dtype=np.uint8)
        for y, x in cells:
            g[y, x] = 2
        return g

    def answer(cells, pairs):
        # each pair of side-by-side cells gets a ring of 3s; a lone cell gets none
        g = scene(cells)
        for group in pairs:
            for y, x in group:
                for dy in (-1, 0, 1):
                    for dx in (-1, 0, 1):
                        if 0 <= y + dy < 9 and 0 <= x + dx < 9 and g[y + dy, x + dx] == 0:
                            g[y + dy, x + dx] = 3
        return g

    demos = [([(1, 1), (1, 2), (5, 6), (7, 2)], [[(1, 1), (1, 2)]]),
             ([(2, 5), (3, 5), (6, 1), (0, 8), (7, 7), (8, 7)], [[(2, 5), (3, 5)], [(7, 7), (8, 7)]])]
    test = [(1, 1), (2, 2), (5, 5), (5, 6)]  # a diagonal pair: one object read 8-connected, two read 4-connected
    rules = fit_halo_objects([scene(c) for c, _ in demos], [answer(c, p) for c, p in demos], [scene(test)])
    assert [(kind, prop) for kind, prop, _ in rules] == [("colour8", "size"), ("colour4", "size")]
    assert all(table == {"1": -1, "2": 3} for _, _, table in rules)
    assert same(halo_objects(scene(test), *rules[1]), answer(test, [[(5, 5), (5, 6)]]))
    assert not same(halo_objects(scene(test), *rules[0]), answer(test, [[(5, 5), (5, 6)]]))
    # an output that changes an object's own cell is no ring
    changed = answer(*demos[0])
    changed[1, 1] = 4
    assert fit_halo_objects([scene(demos[0][0])], [changed], [scene(test)]) == []


def test_lines_objects_learns_directions_by_colour_and_which_lines_lie_on_top():
    from shared.solvers.dsl.fit import fit_lines_objects
    from shared.solvers.dsl.primitives.props import lines_objects

    def scene(cells):
        g = np.zeros((7, 7), dtype=np.uint8)
        for y, x, c in cells:
            g[y, x] = c
        return g

    def answer(cells, rows_on_top):
        # colour 1 draws its row, colour 2 its column, over all but the dots; the later kind lies on top
        g = scene(cells)
        for line in ("col", "row") if rows_on_top else ("row", "col"):
            for y, x, c in cells:
                if line == "row" and c == 1:
                    g[y, :] = 1
                elif line == "col" and c == 2:
                    g[:, x] = 2
        return np.where(scene(cells) != 0, scene(cells), g)

    demos = [[(1, 5, 1), (4, 2, 2)], [(2, 1, 2), (5, 4, 1), (3, 6, 1)]]
    test = [(0, 3, 2), (6, 0, 1), (2, 2, 1)]
    for rows_on_top, last in ((True, "h"), (False, "v")):
        rules = fit_lines_objects([scene(d) for d in demos], [answer(d, rows_on_top) for d in demos], [scene(test)])
        assert rules == [("colour8", "colour", {"(1,)": "lr", "(2,)": "ud"}, last)]
        assert same(lines_objects(scene(test), *rules[0]), answer(test, rows_on_top))
    # a colour the demos never showed: no rule
    assert fit_lines_objects([scene(d) for d in demos], [answer(d, True) for d in demos],
                             [scene([(3, 3, 4)])]) == []


def test_fill_rooms_learns_a_colour_by_room_shape_and_refuses_unseen_or_mixed_fills():
    from shared.solvers.dsl.fit import fit_fill_rooms
    from shared.solvers.dsl.primitives.props import fill_rooms

    def scene(boxes):
        # each box (y, x, inner height, inner width) is a ring of 5s round an empty room
        g = np.zeros((12, 12), dtype=np.uint8)
        for y, x, h, w in boxes:
            g[y:y + h + 2, x:x + w + 2] = 5
            g[y + 1:y + h + 1, x + 1:x + w + 1] = 0
        return g

    def answer(boxes):
        # odd-sized rooms are filled with 7, even-sized ones with 2
        g = scene(boxes)
        for y, x, h, w in boxes:
            g[y + 1:y + h + 1, x + 1:x + w + 1] = 7 if h * w % 2 else 2
        return g

    demos = [[(0, 0, 1, 1), (0, 5, 2, 2), (6, 0, 3, 3)], [(1, 1, 2, 1), (5, 6, 3, 1), (0, 7, 1, 2)]]
    test = [(0, 0, 4, 4), (7, 7, 1, 3)]
    rules = fit_fill_rooms([scene(d) for d in demos], [answer(d) for d in demos], [scene(test)])
    assert rules == [(False, "size_parity", {"1": 7, "0": 2})]
    assert same(fill_rooms(scene(test), *rules[0]), answer(test))
    # a room filled with two colours is no fill
    mixed = answer(demos[0])
    mixed[7, 1] = 3
    assert fit_fill_rooms([scene(demos[0])], [mixed], [scene(test)]) == []


def test_trail_stamp_repeats_marks_from_a_cell_by_a_fixed_step_to_the_edge():
    from shared.solvers.dsl.fit import fit_trail_stamp
    from shared.solvers.dsl.primitives.learned import trail_stamp

    def scene(h, w, seeds):
        g = np.zeros((h, w), np.uint8)
        for y, x in seeds:
            g[y, x] = 3
        return g

    def answer(h, w, seeds):  # a staircase of 6s up and right from each 3: up one, right one, again to the edge
        g = scene(h, w, seeds)
        for y, x in seeds:
            k = 0
            while True:
                for dy, dx in ((-1, 0), (-1, 1)):
                    ty, tx = y + dy - k, x + dx + k
                    if 0 <= ty < h and 0 <= tx < w and g[ty, tx] == 0:
                        g[ty, tx] = 6
                if y - k < 0 or x + k >= w:
                    break
                k += 1
        return g

    demos = [(9, 9, [(7, 1)]), (8, 10, [(6, 3)])]
    trails = fit_trail_stamp([scene(*d) for d in demos], [answer(*d) for d in demos])
    assert trails is not None and list(trails) == [3]
    assert same(trail_stamp(scene(10, 10, [(9, 0), (8, 5)]), trails), answer(10, 10, [(9, 0), (8, 5)]))
    # a demo whose staircase breaks off: no fit
    broken = [answer(*d) for d in demos]
    broken[1][2, 7] = 0
    assert fit_trail_stamp([scene(*d) for d in demos], broken) is None
    # changes all next to the cell are a plain stamp's, not a trail's
    near = [scene(*d) for d in demos]
    for g, (_, _, [(y, x)]) in zip(near, demos, strict=True):
        g[y - 1, x] = 6
    assert fit_trail_stamp([scene(*d) for d in demos], near) is None


def test_stamp_templates_learns_how_each_anchor_colour_turns_its_shape_onto_the_markers():
    from shared.solvers.dsl.fit import fit_stamp_templates
    from shared.solvers.dsl.primitives.props import stamp_templates

    shapes = {2: np.array([[2, 1, 1], [1, 0, 0]], np.uint8), 3: np.array([[4, 3, 4]], np.uint8)}

    def scene(templates, markers):
        g = np.zeros((12, 12), dtype=np.uint8)
        for y, x, c in templates:
            h, w = shapes[c].shape
            g[y:y + h, x:x + w] = shapes[c]
        for y, x, c in markers:
            g[y, x] = c
        return g

    def answer(templates, markers):
        # a 2 marker gets the 2-shape mirrored left-right, a 3 marker the 3-shape as it is
        g = scene(templates, markers)
        for y, x, c in markers:
            if c == 2:
                g[y, x - 2:x + 1] = [1, 1, 2]
                g[y + 1, x] = 1
            else:
                g[y, x - 1:x + 2] = [4, 3, 4]
        return g

    demos = [([(0, 0, 2)], [(5, 5, 2), (9, 2, 2)]), ([(1, 1, 3), (8, 8, 2)], [(4, 6, 3), (5, 2, 2)])]
    test = ([(0, 8, 3), (10, 0, 2)], [(3, 3, 2), (6, 8, 3), (9, 6, 3)])
    table = fit_stamp_templates([scene(*d) for d in demos], [answer(*d) for d in demos], [scene(*test)])
    assert table == {2: D8_NAMES.index("flip_lr"), 3: 0}
    assert same(stamp_templates(scene(*test), table), answer(*test))
    # a marker colour no demo stamped, with a shape to copy in the test: no rule
    shapes[5] = np.array([[5, 6]], np.uint8)
    assert fit_stamp_templates([scene(*d) for d in demos], [answer(*d) for d in demos],
                               [scene([(0, 0, 5)], [(6, 6, 5)])]) is None


def _layer_state(a: list, b: list, test: list, cost: float):
    """A sized state of one-row grids, two demos and one test, as the pieces read one."""
    from types import SimpleNamespace

    return SimpleNamespace(demo=[np.array([a], np.uint8), np.array([b], np.uint8)],
                           test=[np.array([test], np.uint8)], cost=cost)


def test_pieces_found_care_first_for_each_demo_are_other_answers_that_explain_every_demo():
    from shared.solvers.dsl import combine as C

    outs = [np.array([[1, 1, 0, 0]], np.uint8), np.array([[2, 2, 2, 0]], np.uint8)]

    # p paints most of demo 2 (and nothing of demo 1), q all of demo 1 and one cell of demo 2
    p = _layer_state([0, 0, 0, 0], [2, 2, 2, 0], [3, 3, 0, 0], 1.0)
    q = _layer_state([1, 1, 0, 0], [0, 2, 0, 0], [0, 4, 4, 0], 2.0)
    layers = C._Layers(outs)
    layers.add_grids([p, q])
    got = layers.stacks(6, time.monotonic() + 10)
    # over all demos p gains more and goes on top; demo 1 first puts q on top; demo 2 first is the first again
    assert got == [[(1, None), (0, None)], [(0, None), (1, None)]]
    for chosen in got:
        for d, o in enumerate(outs):
            canvas = np.zeros_like(o)
            for row, _ in chosen:  # bottom first
                top = [p, q][row].demo[d]
                canvas = np.where(top != 0, top, canvas)
            assert np.array_equal(canvas, o)
    # past the deadline only the first order is tried
    assert layers.stacks(6, time.monotonic() - 1) == got[:1]


def test_pieces_clear_below_a_layer_s_zero_cells_when_no_layer_paints_right():
    from shared.solvers.dsl import combine as C
    from shared.solvers.dsl.primitives.learned import clear_outside

    outs = [np.array([[1, 2, 0, 0]], np.uint8), np.array([[3, 0, 4, 0]], np.uint8)]

    # the colours are right where the outputs have any, but paint their zero cells too; the
    # shape is right nowhere as it is nor in any one colour: only clearing with it fits
    full = _layer_state([1, 2, 5, 5], [3, 6, 4, 6], [7, 7, 7, 7], 1.0)
    shape = _layer_state([9, 9, 0, 0], [9, 0, 9, 0], [9, 0, 0, 9], 1.0)
    layers = C._Layers(outs)
    layers.add_grids([full, shape])
    got = layers.stacks(6, time.monotonic() + 10)
    assert got == [[(0, None), (1, C.CLEAR)]]  # bottom first: the colours, then the clearing
    for d, o in enumerate(outs):
        assert np.array_equal(clear_outside(full.demo[d], shape.demo[d]), o)
    # without the shape the stack is stuck
    alone = C._Layers(outs)
    alone.add_grids([full, _layer_state([0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], 2.0)])
    assert alone.stacks(6, time.monotonic() + 10) == []


def test_pieces_drop_a_layer_the_demos_do_not_need_and_keep_the_greedy_s_layering_after_it():
    from shared.solvers.dsl import combine as C

    outs = [np.array([[1, 2, 0, 3]], np.uint8), np.array([[1, 2, 0, 3]], np.uint8)]
    full = _layer_state([1, 2, 5, 3], [1, 2, 5, 3], [4, 4, 4, 4], 1.0)  # right but for one cell that should be 0
    shape = _layer_state([9, 9, 0, 9], [9, 9, 0, 9], [9, 9, 9, 9], 1.0)  # clears that cell
    # a dear layer that happens to be right on the one cell it paints: the greedy puts it on top
    extra = _layer_state([0, 2, 0, 0], [0, 2, 0, 0], [0, 6, 0, 0], 5.0)
    layers = C._Layers(outs)
    layers.add_grids([full, shape, extra])
    got = layers.stacks(6, time.monotonic() + 10)
    assert got == [[(0, None), (1, C.CLEAR)], [(0, None), (1, C.CLEAR), (2, None)]]
    for d, o in enumerate(outs):  # the pruned layering explains each demo without the extra layer
        assert np.array_equal(C.clear_outside(full.demo[d], shape.demo[d]), o)


def test_fit_panels_learns_the_turn_of_the_fullest_panel_for_each_place():
    from shared.solvers.dsl.fit import fit_panels

    def demo(src):  # a 2x2 source, then two empty panels between columns of 5
        g = np.zeros((2, 8), np.uint8)
        g[:, 2] = g[:, 5] = 5
        g[:, :2] = src
        out = g.copy()
        out[:, 3:5], out[:, 6:8] = np.rot90(src, 1), np.rot90(src, 2)
        return g, out

    pairs = [demo(np.array([[1, 2], [3, 4]])), demo(np.array([[6, 0], [7, 7]]))]
    assert fit_panels([v for v, _ in pairs], [o for _, o in pairs]) == ((-1, 1, 2),)
    # a separator changed by the output, or an output the input already is, is no panel fill
    v, o = pairs[0]
    moved = o.copy()
    moved[0, 2] = 0
    assert fit_panels([v], [moved]) is None and fit_panels([v], [v]) is None


def test_pad_fit_puts_each_value_in_a_corner_of_the_fixed_output_and_recolours_it():
    from shared.solvers.dsl.fit import fit_pad
    from shared.solvers.dsl.fitters import FitContext, fit_state
    from shared.solvers.dsl.types import GRID

    # a row of k marker cells (a count) is the start of a 1 x 5 row of 1s, the rest 0
    values = [np.full((1, k), 10, np.uint8) for k in (2, 4, 1)]
    outputs = [np.array([[1] * k + [0] * (5 - k)], np.uint8) for k in (2, 4, 1)]
    assert (0, 1, 5, 0) in fit_pad(values, outputs)  # top left (bottom left is the same row)
    assert (1, 1, 5, 0) not in fit_pad(values, outputs)  # the right end is not all 0
    found = fit_state(FitContext.start(time.monotonic() + 5), GRID, values, [np.full((1, 3), 10, np.uint8)],
                      outputs, 1.0)
    pads = [f for f in found if f.steps[0][0] == "pad_to"]
    assert pads and same(pads[0].preds[0], np.array([[1, 1, 1, 0, 0]], np.uint8))
    assert pads[0].steps[1] == ("recolor", ({10: 1},))
    # outputs whose cells outside the value differ are no padding
    outputs[1] = np.array([[1, 1, 1, 1, 2]], np.uint8)
    assert fit_pad(values, outputs) == []
