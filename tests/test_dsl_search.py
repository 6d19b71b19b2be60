"""Search, pieces and ranking on small fixture tasks: dedup, guards, combination, attempts."""

from __future__ import annotations

import time

import numpy as np

from shared.grids import same
from shared.solvers.dsl.combine import combine
from shared.solvers.dsl.primitives import PRIMITIVES
from shared.solvers.dsl.program import INPUT, call, run, run_source, to_source
from shared.solvers.dsl.ranking import rank
from shared.solvers.dsl.search import Candidate, Search
from shared.solvers.dsl.size import predict_sizes
from shared.tasks import Pair, Task


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
    assert len(contents) == min(400, len(s.states))
    assert len(s.seen) == len(s.states)


def test_finds_the_cheapest_program_first():
    ins = _grids(1, 4)
    s = Search(ins[:3], [np.rot90(g).copy() for g in ins[:3]], ins[3:], time.monotonic() + 5, max_depth=2)
    cands = s.run()
    assert cands and min(cands, key=Candidate.rank).node == call("rotate90", INPUT)
    assert s.stats.stopped == "solved"


def test_search_stops_at_its_deadline():
    ins = _grids(2, 5, 30, 30)
    start = time.monotonic()
    s = Search(ins[:4], _grids(3, 4, 30, 30), ins[4:], start + 0.5, max_depth=3)
    s.run()
    assert time.monotonic() - start < 1.5
    assert s.stats.stopped in ("time", "memory")


def test_pieces_layer_partial_programs():
    ins = _grids(4, 5)
    # the demos' answer: each grid with its mirror image painted underneath
    outs = [np.where(g != 0, g, g[:, ::-1]).astype(np.uint8) for g in ins]
    s = Search(ins[:4], outs[:4], ins[4:], time.monotonic() + 3, max_depth=1)
    s.run()
    piece = combine(s, time.monotonic() + 2)
    assert piece is not None and piece.kind == "pieces"
    src = to_source(piece.node)
    assert "paint_over" in src
    for g, o in zip(ins, outs, strict=True):
        assert same(run_source(src, g), o)
    assert same(piece.preds[0], outs[4])


def test_ranking_prefers_simple_kinds_and_distinct_answers():
    a, b = np.zeros((2, 2), np.uint8), np.ones((2, 2), np.uint8)
    cands = [Candidate(INPUT, "rule", 1.0, [a]), Candidate(INPUT, "exact", 5.0, [a]),
             Candidate(INPUT, "pieces", 0.5, [b]), Candidate(INPUT, "exact", 6.0, [a])]
    best = rank(cands, [set()])
    assert [c.kind for c in best] == ["exact", "pieces"]
    assert rank(cands, [{(3, 3)}]) == []  # a trusted size rule drops wrong-sized answers


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
