"""Augmentations: exact inverses over all 8 transforms x random permutations x random grids; training views."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared import augment
from shared.augment import Augmentation, random_augmentations, random_perm
from shared.grids import d8, d8_inverse, same
from shared.tasks import Pair, Task, load

grids = st.integers(1, 30).flatmap(lambda h: st.integers(1, 30).flatmap(
    lambda w: st.lists(st.integers(0, 9), min_size=h * w, max_size=h * w).map(
        lambda cells: np.array(cells, dtype=np.uint8).reshape(h, w))))
perms = st.permutations(list(range(10))).map(tuple)


@settings(max_examples=200, deadline=None)
@given(grid=grids, k=st.integers(0, 7), perm=perms)
def test_grid_round_trip(grid, k, perm):
    a = Augmentation(k, perm)
    assert same(a.invert_grid(a.grid(grid)), grid)


@pytest.mark.parametrize("k", range(8))
def test_each_transform_is_what_its_name_says(k):
    g = np.arange(6, dtype=np.uint8).reshape(2, 3)
    expected = [g, np.rot90(g), np.rot90(g, 2), np.rot90(g, 3), g.T, np.flipud(g), np.rot90(g, 2).T, np.fliplr(g)]
    assert same(d8(g, k), expected[k])
    assert same(d8(d8(g, k), d8_inverse(k)), g)


def test_eight_transforms_are_distinct():
    g = np.arange(12, dtype=np.uint8).reshape(3, 4) % 10
    assert len({d8(g, k).tobytes() + bytes(d8(g, k).shape) for k in range(8)}) == 8


@settings(max_examples=100, deadline=None)
@given(k=st.integers(0, 7), perm=perms, order_seed=st.integers(0, 1000))
def test_id_round_trips(k, perm, order_seed):
    order = list(range(4))
    random.Random(order_seed).shuffle(order)
    for o in (None, tuple(order)):
        a = Augmentation(k, perm, o)
        assert Augmentation.parse(a.id) == a


def test_id_format_and_bad_ids():
    assert Augmentation(3, (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)).id == "t3.p0123456789"
    for bad in ("t8.p0123456789", "t1.p012345678", "t1.p0123456789.o", "x"):
        with pytest.raises(ValueError):
            Augmentation.parse(bad)
    with pytest.raises(ValueError, match="permutation of 0-9"):
        Augmentation(0, (0, 0, 2, 3, 4, 5, 6, 7, 8, 9))


def test_task_round_trip_with_demo_order():
    task = load("arc1/train")[3]
    rng = random.Random(0)
    for a in random_augmentations(task, 16, seed=1):
        back = a.invert(a.apply(task))
        for p, q in zip(task.train + task.test, back.train + back.test, strict=True):
            assert same(p.input, q.input) and same(p.output, q.output)
    a = Augmentation(5, random_perm(rng), tuple(reversed(range(len(task.train)))))
    moved = a.apply(task)
    assert same(moved.train[0].input, a.grid(task.train[-1].input))


def test_keep_background_and_distinct_ids():
    rng = random.Random(3)
    assert all(random_perm(rng)[0] == 0 for _ in range(50))
    task = Task("t", (Pair(np.zeros((1, 1), np.uint8), np.zeros((1, 1), np.uint8)),) * 3,
                (Pair(np.zeros((1, 1), np.uint8)),))
    augs = random_augmentations(task, 20, seed=2)
    assert len({a.id for a in augs}) == 20 and augs[0].is_identity
    assert {a.transform for a in augs} == set(range(8))


g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731


def three_demo_task() -> Task:
    train = (Pair(g([[1, 2]]), g([[2, 1]])), Pair(g([[3, 4, 5]]), g([[5, 4, 3]])), Pair(g([[6], [7]]), g([[6], [7]])))
    return Task("loo", train, (Pair(g([[8, 9]]), g([[9, 8]])),))


def test_leave_one_out_holds_out_each_known_pair_once():
    task = three_demo_task()
    loo = augment.leave_one_out(task)
    assert len(loo) == 4  # 3 demos + 1 test with a known output
    pairs = augment.known_pairs(task)
    for i, t in enumerate(loo):
        assert len(t.train) == 3 and len(t.test) == 1
        assert np.array_equal(t.test[0].output, pairs[i].output)
        assert not any(np.array_equal(d.input, pairs[i].input) for d in t.train)
    assert len(augment.leave_one_out(task, use_test=False)) == 3
    one = Task("one", task.train[:1], (Pair(g([[1]])),))
    assert augment.leave_one_out(one) == []  # no demo would be left


def test_views_multiply_by_augmentations_and_start_with_identity():
    task = three_demo_task()
    vs = augment.views(task, n_augment=3, seed=1)
    assert len(vs) == 4 * 3
    assert vs[0].aug.is_identity
    assert len({(v.target, v.aug.id) for v in vs}) == len(vs)
    assert vs[4].id == f"loo#{vs[4].target}:{vs[4].aug.id}"


def test_view_ids_name_the_held_out_pair_and_an_augmentation_that_maps_it_back():
    task = three_demo_task()
    pairs = augment.known_pairs(task)
    for v in augment.views(task, n_augment=4, seed=3):
        task_id, rest = v.id.split("#")
        target, aug_id = rest.split(":")
        aug = Augmentation.parse(aug_id)  # the id written in an example's source round-trips
        assert task_id == "loo" and int(target) == v.target
        assert np.array_equal(aug.invert_grid(v.task.test[0].output), pairs[v.target].output)


def test_task_views_draw_each_task_with_its_own_seed():
    a, b = three_demo_task(), Task("other", three_demo_task().train, ())
    both = augment.task_views([a, b], n_augment=3, seed=5)
    assert [v.id for v in both] == [v.id for v in augment.views(a, 3, 5) + augment.views(b, 3, 6)]
    assert [v.id for v in augment.views(b, 3, 5)] != [v.id for v in augment.views(b, 3, 6)]  # the seed matters
