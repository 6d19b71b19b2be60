"""Benchmark-generic stages: train/eval item splits, evaluation with pass@k, resumable results.

The training examples of any adapter (`shared.train.data.adapter_examples`) are tested in test_train_data.
"""

from __future__ import annotations

import json
from math import comb

import pytest

from shared import runs, tasks
from shared.benchmarks import arc, get, gsm8k, stages
from shared.models import load_model, tiny_tokenizer


@pytest.fixture(scope="module")
def tok():
    return tiny_tokenizer()


def test_humaneval_trains_on_problems_it_does_not_measure():
    adapter = get("humaneval")
    train, heldout = stages.train_and_eval_items(adapter, n_train=10, n_eval=6)
    assert len(train) == 10 and len(heldout) == 6
    assert not {i.id for i in train} & {i.id for i in heldout}
    again = stages.train_and_eval_items(adapter, n_train=10, n_eval=6)
    assert [i.id for i in again[1]] == [i.id for i in heldout]  # seeded: the same problems every run


def test_split_items_keeps_a_group_together():
    items = arc.task_items(tasks.load("arc1/eval")[:40])
    train, held = stages.split_items(items, 5, seed=1)
    assert len({i.group_id for i in held}) == 5 and len(train) + len(held) == len(items)
    assert not {i.group_id for i in train} & {i.group_id for i in held}


@pytest.mark.parametrize("n, c, k, expected", [
    (10, 0, 1, 0.0),
    (10, 10, 5, 1.0),
    (4, 1, 1, 0.25),
    (4, 2, 2, 5 / 6),          # 1 - C(2,2)/C(4,2)
    (10, 3, 5, 1 - 21 / 252),  # 1 - C(7,5)/C(10,5)
    (6, 4, 3, 1.0),            # n - c < k: every 3 of 6 holds a correct one
])
def test_pass_at_k_is_human_evals_estimator_on_known_values(n, c, k, expected):
    assert stages.pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)
    assert stages.pass_at_k(n, c, k) == pytest.approx(1 - comb(n - c, k) / comb(n, k), abs=1e-12)
    assert isinstance(stages.pass_at_k(n, c, k), float)


@pytest.mark.parametrize("n, c, k", [(5, 6, 1), (5, -1, 1), (5, 1, 0), (5, 1, 6)])
def test_pass_at_k_refuses_impossible_counts(n, c, k):
    with pytest.raises(ValueError):
        stages.pass_at_k(n, c, k)


def scripted(answers_for):
    """A stand-in for the model: `answers_for(prompt, n)` gives the n completions of each prompt."""
    def answer(model, tokenizer, prompts, n_samples, *args):
        return [answers_for(p, n_samples) for p in prompts]
    return answer


def test_evaluate_scores_through_the_adapter_and_reports_pass_at_k(monkeypatch, tmp_path, tok):
    adapter = gsm8k.Gsm8kBenchmark(source="offline")
    items = adapter.load("test", 3)
    right = {adapter.prompt(tok, i, "plain"): adapter.reference(i) for i in items}
    # item 0: 2 of 4 samples right; item 1: 1 of 4 (only loosely: no ####); item 2: none
    plans = {0: ["#### {}", "#### {}", "#### 0", "no idea"], 1: ["it is {}", "#### 1", "#### 2", "#### 3"],
             2: ["#### 1", "#### 1", "#### 1", "#### 1"]}
    index = {p: n for n, p in enumerate(right)}

    def answers_for(prompt, n):
        return [text.format(right[prompt]) for text in plans[index[prompt]]][:n]

    monkeypatch.setattr(stages, "_answers", scripted(answers_for))
    result = stages.evaluate(adapter, None, tok, items, n_samples=4, k=(1, 2), style="plain", out_dir=tmp_path)
    assert result.pass_at("strict", 1) == pytest.approx((2 / 4 + 0 + 0) / 3)
    assert result.pass_at("strict", 2) == pytest.approx((1 - 1 / 6 + 0 + 0) / 3)  # 1 - C(2,2)/C(4,2)
    assert result.pass_at("flexible", 1) == pytest.approx((2 / 4 + 1 / 4 + 0) / 3)
    assert result.groups_solved("flexible") == (2, 3)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["strict pass@2"] == pytest.approx(result.pass_at("strict", 2)) and summary["items"] == 3
    assert "strict pass@1" in result.line() and len(result.table()) == 3


def test_evaluate_resumes_from_its_results_file(monkeypatch, tmp_path, tok):
    adapter = gsm8k.Gsm8kBenchmark(source="offline")
    items = adapter.load("test", 4)
    asked: list[str] = []

    def answers_for(prompt, n):
        asked.append(prompt)
        return ["#### 1"] * n

    monkeypatch.setattr(stages, "_answers", scripted(answers_for))
    stages.evaluate(adapter, None, tok, items[:2], style="plain", out_dir=tmp_path)
    assert len(asked) == 2
    result = stages.evaluate(adapter, None, tok, items, style="plain", out_dir=tmp_path)
    assert len(asked) == 4 and [r["id"] for r in result.rows] == [i.id for i in items]
    assert len(runs.read_results(tmp_path)) == 4  # one line per item, none repeated
    with open(tmp_path / runs.RESULTS, "a") as f:
        f.write('{"id": "torn')  # killed mid-write
    again = stages.evaluate(adapter, None, tok, items, style="plain", out_dir=tmp_path)
    assert len(asked) == 4 and len(again.rows) == 4 and len(runs.read_results(tmp_path)) == 4


def test_evaluate_refuses_k_above_the_number_of_samples(tok):
    with pytest.raises(ValueError, match="n_samples=1"):
        stages.evaluate(get("gsm8k", source="offline"), None, tok, [], n_samples=1, k=(1, 5), style="plain")


@pytest.mark.parametrize("n_samples", [1, 2])
def test_evaluate_with_the_tiny_model_end_to_end(n_samples):
    """A random model scores nothing, but every stage runs: generate (greedy or sampled), parse, sandbox."""
    model, tokenizer = load_model("tiny", device="cpu")
    for name in ("gsm8k", "humaneval"):
        adapter = get(name, source="offline")
        items = adapter.load("test", 2)
        result = stages.evaluate(adapter, model, tokenizer, items, n_samples=n_samples, k=(1, n_samples),
                                 max_new_tokens=6, seed=3)
        assert [len(r["completions"]) for r in result.rows] == [n_samples, n_samples]
        assert result.pass_at(adapter.metrics[0], n_samples) == 0.0
