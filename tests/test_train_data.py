"""Training examples: completion masks, augmentation round trips, length filter, source tags, every path's builder.

The leave-one-out views themselves are tested in test_augment.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("transformers")

from shared.augment import Augmentation, known_pairs, views  # noqa: E402
from shared.benchmarks import arc, gsm8k  # noqa: E402
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


def test_augmented_example_inverts_back_to_the_held_out_pair(tok):
    task = three_demo_task()
    pairs = known_pairs(task)
    for v in views(task, n_augment=4, seed=3):
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


def test_tokenize_examples_tags_each_kept_triple_and_counts_the_dropped(tok):
    triples = [("a", "x", "1" * 5), ("b", "y", "2" * 500), ("c", "z", "3")]
    ids = [data.tokenize_example(tok, p, c)["input_ids"] for _, p, c in triples]
    exs = data.tokenize_examples(triples, tok, max_len=len(ids[0]))
    assert [x["source"] for x in exs.items] == ["a", "c"] and exs.dropped_too_long == 1
    assert [x["input_ids"] for x in exs.items] == [ids[0], ids[2]] and exs.max_len == len(ids[0])


def test_arc_examples_through_the_adapter_equal_the_arc_training_data(tok):
    """The ARC adapter wraps the ARC path: same examples, same order, same augmentations, same tags."""
    task_list = load("arc1/train")[:3]
    direct = data.build_examples(task_list, tok, "plain", 2048, n_augment=2, seed=5)
    through = data.adapter_examples(arc.ArcBenchmark(), arc.task_items(task_list), tok, "plain", 2048, n_augment=2,
                                    seed=5)
    assert len(direct) == len(through) > 0 and direct.dropped_too_long == through.dropped_too_long > 0
    for a, b in zip(direct.items, through.items, strict=True):
        assert a == b


def test_gsm8k_examples_put_the_loss_on_the_answer_only(tok):
    adapter = gsm8k.Gsm8kBenchmark(source="offline")
    items = adapter.load("train", 4)
    examples = data.adapter_examples(adapter, items, tok, "plain", max_len=2048)
    assert len(examples) == 4 and [e["source"] for e in examples.items] == [i.id for i in items]
    first = examples[0]
    n_prompt = first["completion_mask"].count(0)
    assert first["completion_mask"][n_prompt:] == [1] * (len(first["input_ids"]) - n_prompt)
    assert tok.decode(first["input_ids"][:n_prompt]) == adapter.prompt(tok, items[0], "plain")
    assert tok.decode(data.labels(first)[n_prompt:]).endswith("#### 14<|endoftext|>")
    short = data.adapter_examples(adapter, items, tok, "plain", max_len=150)
    assert len(short) + short.dropped_too_long == 4 and short.dropped_too_long > 0


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
