"""DPO pair mining on ARC (chosen / rejected rules, with a scripted model) and a short DPO run on the tiny model.

Mining through the other adapters: tests/test_adapters_training.py.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from shared.benchmarks import arc  # noqa: E402
from shared.decoding import completion_logprobs, sample_batch  # noqa: E402
from shared.models import load_model  # noqa: E402
from shared.tasks import Pair, Task  # noqa: E402
from shared.train import preference  # noqa: E402
from shared.train.sft import add_lora  # noqa: E402

g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731
EXPECTED = g([[1, 2], [3, 4]])
END = "<|endoftext|>"


def test_a_correct_answer_is_chosen_over_a_wrong_one():
    pair = preference.pair_from_answers("P", EXPECTED, ["12\n33", "12\n34\n"], END)
    assert pair == {"prompt": "P", "chosen": "12\n34" + END, "rejected": "12\n33" + END, "chosen_from": "model"}


def test_without_a_correct_answer_the_expected_output_is_chosen():
    pair = preference.pair_from_answers("P", EXPECTED, ["9", "99"], END)
    assert (pair["chosen"], pair["rejected"], pair["chosen_from"]) == ("12\n34" + END, "9" + END, "expected")


def test_unparseable_text_is_rejected_as_written():
    pair = preference.pair_from_answers("P", EXPECTED, ["12\n3x "], END)
    assert pair["rejected"] == "12\n3x" + END and pair["chosen_from"] == "expected"


def test_all_answers_right_gives_no_pair():
    assert preference.pair_from_answers("P", EXPECTED, ["12\n34", "12\n34<|im_end|>"], END) is None


def test_end_marker_is_the_eos_for_plain_prompts():
    _, tok = load_model("tiny", device="cpu")
    task = Task("t", (Pair(g([[1]]), g([[2]])),), (Pair(g([[3]]), g([[4]])),))
    assert preference.end_marker(tok, task, "plain") == tok.eos_token


def copy_task() -> Task:
    """Output = input; four known pairs, so four leave-one-out views."""
    pairs = tuple(Pair(g([[i, i + 1]]), g([[i, i + 1]])) for i in range(1, 5))
    return Task("copy", pairs[:3], pairs[3:])


def test_mining_with_a_scripted_model(monkeypatch):
    import shared.decoding

    model, tok = load_model("tiny", device="cpu")

    def scripted(m, t, prompts, max_new_tokens, *args):
        # right on the views whose test input starts with 1 or 2 (copy the input), wrong elsewhere
        out = []
        for p in prompts:
            test_input = p.rstrip("\n").split("\n")[-2]
            out.append(test_input if test_input[0] in "12" else "77")
        return out

    monkeypatch.setattr(shared.decoding, "generate_batch", scripted)
    mined = preference.mine_pairs(model, tok, arc.ArcBenchmark(), arc.task_items([copy_task()]), max_new_tokens=8)
    assert mined.views == 4
    assert (mined.all_correct, mined.chosen_expected, len(mined.pairs)) == (2, 2, 2)
    for p in mined.pairs:
        assert p["rejected"] == "77" + tok.eos_token
        assert p["chosen"] != p["rejected"] and p["prompt"].endswith("output:\n")
        # the same pair as ARC's own grid rule gives
        test_input = p["prompt"].rstrip("\n").split("\n")[-2]
        assert preference.pair_from_answers(p["prompt"], g([[int(c) for c in test_input]]), ["77"],
                                            tok.eos_token) == {k: p[k] for k in p if k != "source"}
    assert "2 pairs from 4 views" in mined.summary()


def test_sampled_answers_are_seeded():
    model, tok = load_model("tiny", device="cpu")
    a = sample_batch(model, tok, ["input:\n1\noutput:\n"] * 2, 3, 5, seed=1)
    assert len(a) == 2 and all(len(x) == 3 for x in a)
    assert a == sample_batch(model, tok, ["input:\n1\noutput:\n"] * 2, 3, 5, seed=1)


def test_dpo_raises_the_chosen_answer_over_the_rejected_and_resumes(tmp_path):
    model, tok = load_model("tiny", device="cpu")
    pairs = [{"prompt": f"input:\n{i}{i}\noutput:\n", "chosen": f"{i}{i}" + END, "rejected": "70" + END}
             for i in range(1, 5)]

    def margin(m) -> float:
        good = completion_logprobs(m, tok, [(p["prompt"], p["chosen"]) for p in pairs])
        bad = completion_logprobs(m, tok, [(p["prompt"], p["rejected"]) for p in pairs])
        return float(np.mean(np.array(good) - np.array(bad)))

    before = margin(model)
    model = add_lora(model, r=8, alpha=16)
    res = preference.dpo_train(model, tok, pairs, tmp_path / "dpo", steps=6, batch_size=2, lr=5e-3, max_length=64)
    assert res.global_step == 6 and res.resumed_from is None
    assert any("rewards/margins" in r for r in res.log_history)
    assert margin(model) > before + 0.5
    assert model.generation_config.eos_token_id == [2, 4]  # both stop ids kept
    again = preference.dpo_train(model, tok, pairs, tmp_path / "dpo", steps=6, batch_size=2, lr=5e-3, max_length=64)
    assert again.resumed_from is not None and again.global_step == 6 and again.seconds == 0.0
    with pytest.raises(ValueError, match="no preference pairs"):
        preference.dpo_train(model, tok, [], tmp_path / "x", steps=1, batch_size=1)
