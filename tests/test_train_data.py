"""Training examples: leave-one-out counts, completion masks, augmentation round trips, length filter."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("transformers")

from shared.augment import Augmentation  # noqa: E402
from shared.formats import format_example, parse_grid  # noqa: E402
from shared.models import tiny_tokenizer  # noqa: E402
from shared.tasks import Pair, Task, load, training_for  # noqa: E402
from shared.train import data  # noqa: E402

g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731


def three_demo_task() -> Task:
    train = (Pair(g([[1, 2]]), g([[2, 1]])), Pair(g([[3, 4, 5]]), g([[5, 4, 3]])), Pair(g([[6], [7]]), g([[6], [7]])))
    return Task("loo", train, (Pair(g([[8, 9]]), g([[9, 8]])),))


@pytest.fixture(scope="module")
def tok():
    return tiny_tokenizer()


def test_leave_one_out_holds_out_each_known_pair_once():
    task = three_demo_task()
    loo = data.leave_one_out(task)
    assert len(loo) == 4  # 3 demos + 1 test with a known output
    pairs = data.known_pairs(task)
    for i, t in enumerate(loo):
        assert len(t.train) == 3 and len(t.test) == 1
        assert np.array_equal(t.test[0].output, pairs[i].output)
        assert not any(np.array_equal(d.input, pairs[i].input) for d in t.train)
    assert len(data.leave_one_out(task, use_test=False)) == 3
    one = Task("one", task.train[:1], (Pair(g([[1]])),))
    assert data.leave_one_out(one) == []  # no demo would be left


def test_views_multiply_by_augmentations_and_start_with_identity():
    task = three_demo_task()
    vs = data.views(task, n_augment=3, seed=1)
    assert len(vs) == 4 * 3
    assert vs[0].aug.is_identity
    assert len({(v.target, v.aug.id) for v in vs}) == len(vs)


def test_augmented_example_inverts_back_to_the_held_out_pair(tok):
    task = three_demo_task()
    pairs = data.known_pairs(task)
    for v in data.views(task, n_augment=4, seed=3):
        aug = Augmentation.parse(v.aug.id)  # the id written in the example's source round-trips
        target = aug.invert_grid(v.task.test[0].output)
        assert np.array_equal(target, pairs[v.target].output)
        ex = data.tokenize_example(tok, *format_example(tok, v.task, 0, "plain"))
        answer = tok.decode([t for t, m in zip(ex["input_ids"], ex["completion_mask"], strict=True) if m])
        assert np.array_equal(aug.invert_grid(parse_grid(answer)), pairs[v.target].output)


def test_the_mask_covers_exactly_the_answer_and_eos(tok):
    exs = data.build_examples([three_demo_task()], tok, "plain", max_len=4096)
    for ex in exs.items:
        mask, ids = ex["completion_mask"], ex["input_ids"]
        assert len(mask) == len(ids) and set(mask) == {0, 1}
        n_prompt = mask.index(1)
        assert mask == [0] * n_prompt + [1] * (len(ids) - n_prompt)  # one boundary, answer last
        assert ids[-1] == tok.eos_token_id
        assert tok.decode(ids[:n_prompt]).endswith("output:\n")
        assert data.labels(ex) == [data.IGNORE] * n_prompt + ids[n_prompt:]


def test_the_boundary_is_exact_where_the_tokenizer_would_merge_across_it():
    class Merging:
        """Tokenizes "ab" as one id when it is whole: prompt "a" + completion "b" must not merge."""

        def __call__(self, text, add_special_tokens=False):
            ids, i = [], 0
            while i < len(text):
                if text.startswith("ab", i):
                    ids.append(99)
                    i += 2
                else:
                    ids.append(ord(text[i]))
                    i += 1
            return {"input_ids": ids}

    ex = data.tokenize_example(Merging(), "xa", "b")
    assert ex == {"input_ids": [ord("x"), ord("a"), ord("b")], "completion_mask": [0, 0, 1]}
    assert Merging()("xab")["input_ids"] == [ord("x"), 99]  # what tokenizing prompt + completion whole gives


def test_long_examples_are_dropped_and_counted(tok):
    small = three_demo_task()
    big = Task("big", tuple(Pair(g(np.full((5, 5), i)), g(np.full((5, 5), i + 1))) for i in range(3)), ())
    everything = data.build_examples([small, big], tok, "plain", max_len=10_000)
    cut = min(len(x["input_ids"]) for x in everything.items if x["source"].startswith("big"))
    kept = data.build_examples([small, big], tok, "plain", max_len=cut - 1)
    assert all(len(x["input_ids"]) <= cut for x in kept.items)
    assert len(kept) + kept.dropped_too_long == len(everything) and kept.dropped_too_long > 0
    assert f"{kept.dropped_too_long} dropped" in kept.summary()


def test_collate_pads_ids_labels_and_mask(tok):
    exs = data.build_examples([three_demo_task()], tok, "plain", max_len=4096)
    batch = data.collate([exs[0], exs[1]], tok.pad_token_id)
    lens = [len(exs[0]["input_ids"]), len(exs[1]["input_ids"])]
    assert batch["input_ids"].shape == (2, max(lens))
    assert batch["attention_mask"].sum(1).tolist() == lens
    short = int(np.argmin(lens))
    assert (batch["labels"][short, min(lens):] == data.IGNORE).all()
    assert (batch["input_ids"][short, min(lens):] == tok.pad_token_id).all()
    assert batch["labels"][0, :lens[0]].tolist() == data.labels(exs[0])


def test_default_training_pool_excludes_the_evaluation_set():
    ev = load("arc1/eval")
    pool = training_for(ev)
    ev_ids, ev_keys = {t.id for t in ev}, {t.content_key() for t in ev}
    assert pool and not any(t.id in ev_ids or t.content_key() in ev_keys for t in pool)
    train, held = data.split_tasks(pool[:20], 5, seed=0)
    assert len(held) == 5 and len(train) == 15 and not {t.id for t in train} & {t.id for t in held}


def test_profile_split_takes_the_profile_defaults():
    from shared import config

    pool = load("arc1/train")[:30]
    smoke = config.profile("smoke")
    train, held = data.profile_split(pool, smoke)
    assert len(held) == smoke.n_tasks and len(train) == smoke.train_tasks
    assert not {t.id for t in train} & {t.id for t in held}
    train, held = data.profile_split(pool, smoke, n_heldout=5, n_train=3)
    assert (len(train), len(held)) == (3, 5)
    assert len(data.profile_split(pool, config.profile("smoke", train_tasks=0))[0]) == 30 - smoke.n_tasks
