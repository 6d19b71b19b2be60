"""GRPO: each reward function on answers whose score is known, the prompt rows, and a short run."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from shared.benchmarks import arc  # noqa: E402
from shared.models import load_model  # noqa: E402
from shared.tasks import Pair, Task  # noqa: E402
from shared.train import grpo  # noqa: E402

EXPECTED = "12\n34"
ANSWERS = ["12\n34", "12\n34<|im_end|>", "12\n33", "11\n11", "123\n456", "12\n3", "the answer", ""]


def test_exact_match_reward():
    assert grpo.exact_match_reward(None, ANSWERS, [EXPECTED] * len(ANSWERS)) == [1, 1, 0, 0, 0, 0, 0, 0]


def test_partial_credit_reward_is_size_then_share_of_cells():
    got = grpo.partial_credit_reward(None, ANSWERS, [EXPECTED] * len(ANSWERS))
    assert got == [1.0, 1.0, 0.875, 0.625, 0.0, 0.0, 0.0, 0.0]


def test_format_reward_only_checks_well_formedness():
    assert grpo.format_reward(None, ANSWERS, [EXPECTED] * len(ANSWERS)) == [1, 1, 1, 1, 1, 0, 0, 0]


def test_rewards_read_chat_completions_and_ignore_extra_columns():
    chat = [[{"role": "assistant", "content": "12\n34"}], [{"role": "assistant", "content": "x"}]]
    for f in grpo.REWARDS:
        assert f(["p", "p"], chat, expected=[EXPECTED] * 2, completion_ids=None, trainer_state=None)[1] == 0.0
    assert grpo.exact_match_reward(["p"] * 2, chat, [EXPECTED] * 2)[0] == 1.0


def test_rows_are_leave_one_out_views_with_expected_text():
    g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731
    task = Task("t", (Pair(g([[1]]), g([[2]])), Pair(g([[3]]), g([[4]]))), (Pair(g([[5]]), g([[6]])),))
    _, tok = load_model("tiny", device="cpu")
    adapter, items = arc.ArcBenchmark(), arc.task_items([task])
    rows = grpo.grpo_rows(adapter, items, tok, "plain")
    assert [r["expected"] for r in rows] == ["2", "4", "6"]
    assert all(r["prompt"].endswith("output:\n") for r in rows)
    assert [r["item_id"] for r in rows] == [r["source"] for r in rows] == ["t#0:t0.p0123456789",
                                                                           "t#1:t0.p0123456789", "t#2:t0.p0123456789"]
    assert grpo.grpo_rows(adapter, items, tok, "plain", max_prompt_tokens=5) == []


def test_the_arc_adapter_reward_agrees_with_exact_match():
    g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731
    task = Task("t", (Pair(g([[1]]), g([[2]])),), (Pair(g([[1, 2], [3, 4]]), g([[1, 2], [3, 4]])),))
    adapter, items = arc.ArcBenchmark(), arc.task_items([task])
    reward = grpo.adapter_reward(adapter, items)
    assert reward.__name__ == "arc_exact_reward"
    ids = [items[0].id] * len(ANSWERS)
    assert reward(None, ANSWERS, item_id=ids) == grpo.exact_match_reward(None, ANSWERS, [EXPECTED] * len(ANSWERS))


def test_a_short_grpo_run_logs_each_named_reward(tmp_path):
    from shared.train.sft import add_lora

    model, tok = load_model("tiny", device="cpu")
    model = add_lora(model, r=4, alpha=8)
    rows = [{"prompt": "input:\n12\noutput:\n", "expected": "12"}, {"prompt": "input:\n3\noutput:\n", "expected": "3"}]
    res = grpo.grpo_train(model, tok, rows, tmp_path / "grpo", steps=2, batch_size=4, num_generations=4,
                          max_completion_length=4, lr=1e-3)
    assert res.global_step == 2
    curves = grpo.reward_curves(res.log_history)
    assert set(curves) == {"exact_match_reward", "partial_credit_reward", "format_reward"}
    assert all(len(steps) == 2 for steps, _ in curves.values())
    assert model.generation_config.eos_token_id == [2, 4]
    import matplotlib

    matplotlib.use("Agg")
    assert grpo.plot_rewards(res.log_history) is not None
    with pytest.raises(ValueError, match="multiple of num_generations"):
        grpo.grpo_train(model, tok, rows, tmp_path / "x", steps=1, batch_size=3, num_generations=2,
                        max_completion_length=4)
