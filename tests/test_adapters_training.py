"""DPO pair mining, a GRPO reward and the retraining loop through a benchmark adapter other than ARC (GSM8K).

The model's answers are scripted where the test needs to know which are right; the tiny model runs
the trainers. The ARC path of each is tested in test_preference, test_grpo and test_retrain.
"""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

import shared.decoding  # noqa: E402
from shared.benchmarks import end_marker, get  # noqa: E402
from shared.models import load_model  # noqa: E402
from shared.train import grpo, preference, retrain  # noqa: E402


@pytest.fixture(scope="module")
def gsm():
    return get("gsm8k", source="offline")


@pytest.fixture(scope="module")
def tiny():
    return load_model("tiny", device="cpu")


def test_mined_pairs_judge_answers_by_the_adapters_headline_metric(monkeypatch, gsm, tiny):
    model, tok = tiny
    items = gsm.load("train", 3)
    gold = {gsm.prompt(tok, item, "plain"): gsm.reference(item) for item in items}
    order = list(gold)
    # item 0: greedy right, the sample wrong; item 1: greedy wrong (no ####), the sample right; item 2: both right
    greedy = {0: " So #### {}\n\n", 1: " It is {}.", 2: " #### {}"}
    sampled = {0: " #### 1000", 1: "\n #### {}<|endoftext|>", 2: " #### {}"}
    monkeypatch.setattr(shared.decoding, "generate_batch",
                        lambda m, t, prompts, n, *a: [greedy[order.index(p)].format(gold[p]) for p in prompts])
    monkeypatch.setattr(shared.decoding, "sample_batch",
                        lambda m, t, prompts, k, n, **kw: [[sampled[order.index(p)].format(gold[p])] * k
                                                            for p in prompts])
    mined = preference.mine_pairs(model, tok, gsm, items, n_samples=1, style="plain")
    eos = end_marker(tok, "plain")
    assert (mined.views, len(mined.pairs), mined.chosen_from_model, mined.all_correct) == (3, 2, 2, 1)
    first, second = mined.pairs
    assert first["source"] == items[0].id and first["prompt"] == order[0]
    # leading spaces stay (the plain target starts with one), trailing whitespace and end markers go
    assert first["chosen"] == f" So #### {gold[order[0]]}" + eos and first["rejected"] == " #### 1000" + eos
    assert second["chosen"] == f" #### {gold[order[1]]}" + eos  # loosely right is wrong under "strict"
    assert second["rejected"] == f" It is {gold[order[1]]}." + eos


def test_without_a_right_answer_the_adapters_target_is_chosen(monkeypatch, gsm, tiny):
    model, tok = tiny
    items = gsm.load("train", 2)
    monkeypatch.setattr(shared.decoding, "generate_batch", lambda m, t, prompts, n, *a: ["#### -1"] * len(prompts))
    mined = preference.mine_pairs(model, tok, gsm, items, style="plain")
    assert [p["chosen"] for p in mined.pairs] == [gsm.target(tok, item, "plain") for item in items]
    assert all(p["chosen_from"] == "expected" and p["rejected"] == "#### -1" + tok.eos_token for p in mined.pairs)
    assert "0 views answered right every time" in mined.summary()


def test_grpo_rows_and_the_adapter_reward(gsm, tiny):
    _, tok = tiny
    items = gsm.load("train", 2)
    rows = grpo.grpo_rows(gsm, items, tok, "plain")
    assert [r["item_id"] for r in rows] == [i.id for i in items]
    assert [r["expected"] for r in rows] == ["14", "22"]
    reward = grpo.adapter_reward(gsm, items)
    assert reward.__name__ == "gsm8k_strict_reward"
    ids = [items[0].id] * 4 + [items[1].id]
    completions = ["3 * 4 = 12\n#### 14", "#### 15", "the answer is 14", "", [{"role": "assistant",
                                                                              "content": "#### 22"}]]
    assert reward(["p"] * 5, completions, item_id=ids, expected=None, trainer_state=None) == [1.0, 0.0, 0.0, 0.0, 1.0]
    loose = grpo.adapter_reward(gsm, {i.id: i for i in items}, metric="flexible")
    assert loose.__name__ == "gsm8k_flexible_reward" and loose(None, completions, ids)[2] == 1.0
    with pytest.raises(ValueError, match="not 'exact'"):
        grpo.adapter_reward(gsm, items, metric="exact")


def test_a_grpo_step_passes_item_ids_to_the_adapter_reward(gsm, tmp_path):
    from shared.train.sft import add_lora

    model, tok = load_model("tiny", device="cpu")
    items = gsm.load("train", 2)
    rows = grpo.grpo_rows(gsm, items, tok, "plain")
    seen: list[str] = []
    reward = grpo.adapter_reward(gsm, items)

    def logged(prompts, completions, item_id, **kwargs):
        seen.extend(item_id)
        return reward(prompts, completions, item_id, **kwargs)

    logged.__name__ = reward.__name__
    res = grpo.grpo_train(add_lora(model, r=4, alpha=8), tok, rows, tmp_path / "grpo", steps=1, batch_size=4,
                          num_generations=4, max_completion_length=4, lr=1e-3, reward_funcs=[logged])
    assert res.global_step == 1 and set(seen) <= {i.id for i in items} and len(seen) == 4
    assert set(grpo.reward_curves(res.log_history)) == {"gsm8k_strict_reward"}


def test_training_mix_repeats_hard_items(gsm, tiny):
    _, tok = tiny
    items = gsm.load("train", 3)
    mix = retrain.training_mix(gsm, items, {items[1].id: 3}, tok, "plain", 1024, 1)
    assert [ex["source"] for ex in mix.items] == [items[0].id] + [items[1].id] * 3 + [items[2].id]


def test_a_loop_round_on_gsm8k_logs_its_line_and_resumes(gsm, tmp_path):
    train, val = gsm.load("train", 3), gsm.load("test", 2)
    cfg = retrain.LoopConfig(rounds=1, steps_per_round=1, batch_size=2, lr=5e-3, max_len=1024, max_new_tokens=4,
                             n_augment=1, lora_r=4, patience=5, min_gain=0.0)
    first = retrain.run_loop("tiny", gsm, train, val, tmp_path, cfg, device="cpu")
    row = first.rows[0]
    assert first.stopped == "1 rounds" and first.resumed_after is None
    assert (row["benchmark"], row["metric"], row["n_train"], row["n_val"], row["mined"]) == ("gsm8k", "strict", 3, 2, 3)
    assert set(row["signals"]) == {"exact", "calibration"}  # no grid signals outside ARC
    assert row["signals"]["exact"] == 0.0 and row["hard"] and set(row["hard"]) <= {i.id for i in train}
    assert row["score"] == pytest.approx(retrain.combined(row["signals"], retrain.signal_weights(gsm)))
    more = retrain.LoopConfig(**{**cfg.__dict__, "rounds": 2})
    resumed = retrain.run_loop("tiny", gsm, train, val, tmp_path, more, device="cpu")
    assert resumed.resumed_after == 0 and [r["round"] for r in resumed.rows] == [0, 1]
    log = [json.loads(line) for line in (tmp_path / retrain.LOG).read_text().splitlines()]
    assert [r["round"] for r in log] == [0, 1] and log[1]["weights"] == {h: cfg.hard_weight for h in log[1]["hard"]}
    import matplotlib

    matplotlib.use("Agg")
    assert retrain.plot_loop(resumed.rows) is not None and "partial" not in retrain.loop_table(resumed.rows)


def test_humaneval_pairs_keep_indentation_and_score_in_one_sandbox_batch(monkeypatch, tiny):
    model, tok = tiny
    adapter = get("humaneval")
    items = adapter.load("test", 2)
    body = {adapter.prompt(tok, item, "plain"): item.record["canonical_solution"] for item in items}
    monkeypatch.setattr(shared.decoding, "generate_batch", lambda m, t, prompts, n, *a: [body[p] for p in prompts])
    monkeypatch.setattr(shared.decoding, "sample_batch",
                        lambda m, t, prompts, k, n, **kw: [["    return None\n"] * k for _ in prompts])
    batches: list[int] = []
    score_many = adapter.score_many
    monkeypatch.setattr(adapter, "score_many", lambda its, preds: batches.append(len(its)) or score_many(its, preds))
    mined = preference.mine_pairs(model, tok, adapter, items, n_samples=1, style="plain")
    assert batches == [4]  # every answer of every view in one sandbox run
    assert mined.chosen_from_model == 2 and len(mined.pairs) == 2
    for pair, item in zip(mined.pairs, items, strict=True):
        # a body starts indented: stripping its first line's indent would make it a syntax error
        assert pair["chosen"] == item.record["canonical_solution"].rstrip() + tok.eos_token
        assert pair["chosen"].startswith("    ") and pair["rejected"] == "    return None" + tok.eos_token
