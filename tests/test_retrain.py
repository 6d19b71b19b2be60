"""The retraining loop: the plateau rule, signals and mining, the mix, and resume after a kill."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("peft")

from shared.benchmarks import arc  # noqa: E402
from shared.models import load_model  # noqa: E402
from shared.tasks import Pair, Task  # noqa: E402
from shared.train import retrain  # noqa: E402

g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731


@pytest.mark.parametrize("scores, patience, min_gain, stop", [
    ([0.1, 0.2, 0.3], 2, 0.01, False),  # still improving
    ([0.3, 0.3, 0.3], 2, 0.01, True),  # flat for 2 rounds
    ([0.3, 0.305, 0.309], 2, 0.01, True),  # gains under min_gain do not count
    ([0.3, 0.2, 0.32], 2, 0.01, False),  # the best of the window beats the best before it by 0.02
    ([0.3, 0.2, 0.29], 1, 0.01, True),
    ([0.3, 0.2, 0.35], 1, 0.01, False),
    ([0.3], 1, 0.0, False),  # too few rounds to judge
    ([0.5, 0.1, 0.1, 0.1], 3, 0.0, True),
    ([0.5, 0.1, 0.1, 0.6], 3, 0.0, False),
])
def test_plateau_rule(scores, patience, min_gain, stop):
    assert retrain.plateaued(scores, patience, min_gain) is stop


def test_signals_and_calibration():
    scores = [{"exact": 1.0, "partial": 1.0, "format": 1.0, "confidence": 1.0},
              {"exact": 0.0, "partial": 0.5, "format": 1.0, "confidence": 0.0}]
    sig = retrain.signals(scores)
    assert sig == {"exact": 0.5, "partial": 0.75, "format": 1.0, "calibration": 1.0}
    overconfident = retrain.signals([{**scores[1], "confidence": 1.0}])
    assert overconfident["calibration"] == 0.0
    assert 0 <= retrain.combined(sig) <= 1


def test_hard_tasks_are_failed_or_low_margin_hardest_first():
    scores = [{"group": "easy", "exact": 1.0, "margin": 3.0},
              {"group": "close", "exact": 1.0, "margin": 0.2},
              {"group": "failed", "exact": 0.0, "margin": -1.0}]
    assert retrain.hard_tasks(scores, margin_floor=1.0) == ["failed", "close"]


def copy_task(k: int) -> Task:
    pairs = tuple(Pair(g([[k, i]]), g([[k, i]])) for i in range(3))
    return Task(f"copy{k}", pairs[:2], pairs[2:])


ARC = arc.ArcBenchmark()


def test_training_mix_repeats_hard_tasks():
    _, tok = load_model("tiny", device="cpu")
    items = arc.task_items([copy_task(1), copy_task(2)])
    plain = retrain.training_mix(ARC, items, {}, tok, "plain", 512, 1)
    weighted = retrain.training_mix(ARC, items, {"copy2": 3}, tok, "plain", 512, 1)
    assert len(plain) == 6 and len(weighted) == 3 + 3 * 3
    assert sum(ex["source"].startswith("copy2") for ex in weighted.items) == 9


def test_margin_is_positive_exactly_when_greedy_reproduces_the_answer():
    from shared.decoding import generate_batch

    model, tok = load_model("tiny", device="cpu")
    prompt = "input:\n12\noutput:\n"
    greedy = generate_batch(model, tok, [prompt], 3)[0][:3]
    assert retrain.answer_margin(model, tok, prompt, greedy) > 0
    other = "".join("9" if c != "9" else "8" for c in greedy)
    assert retrain.answer_margin(model, tok, prompt, other) < 0


def test_small_tasks_filter():
    big = Task("big", (Pair(np.zeros((7, 7), np.uint8), np.zeros((1, 1), np.uint8)),), ())
    assert [t.id for t in retrain.small_tasks([copy_task(1), big], 36)] == ["copy1"]
    assert len(retrain.small_tasks([copy_task(1), big], 0)) == 2


CFG = retrain.LoopConfig(rounds=3, steps_per_round=2, batch_size=2, lr=5e-3, max_len=256, max_new_tokens=6,
                         n_augment=1, lora_r=4, patience=5, min_gain=0.0)


class Killed(Exception):
    pass


def test_a_killed_loop_resumes_from_its_log_and_matches_an_uninterrupted_one(tmp_path):
    train, val = arc.task_items([copy_task(k) for k in (1, 2, 3)]), arc.task_items([copy_task(4)])
    whole = retrain.run_loop("tiny", ARC, train, val, tmp_path / "whole", CFG, device="cpu")
    assert [r["round"] for r in whole.rows] == [0, 1, 2] and whole.stopped == "3 rounds"

    def kill_after_round_1(row):
        if row["round"] == 1:
            raise Killed

    with pytest.raises(Killed):
        retrain.run_loop("tiny", ARC, train, val, tmp_path / "cut", CFG, on_round=kill_after_round_1, device="cpu")
    log = tmp_path / "cut" / retrain.LOG
    with open(log, "a") as f:
        f.write('{"round": 2, "sig')  # a line torn by the kill
    resumed = retrain.run_loop("tiny", ARC, train, val, tmp_path / "cut", CFG, device="cpu")
    assert resumed.resumed_after == 1
    assert [r["round"] for r in resumed.rows] == [0, 1, 2]
    assert [json.loads(line)["round"] for line in log.read_text().splitlines()] == [0, 1, 2]
    for a, b in zip(whole.rows, resumed.rows, strict=True):
        assert a["signals"] == pytest.approx(b["signals"], abs=1e-4)
        assert a["hard"] == b["hard"]
    done = retrain.run_loop("tiny", ARC, train, val, tmp_path / "cut", CFG, device="cpu")
    assert [r["round"] for r in done.rows] == [0, 1, 2] and done.stopped == "3 rounds (already)"
    assert not (tmp_path / "cut" / "round-2" / "checkpoints").exists()  # a logged round keeps its adapter only


def test_the_loop_stops_on_a_plateau(tmp_path):
    cfg = retrain.LoopConfig(**{**CFG.__dict__, "rounds": 5, "patience": 1, "min_gain": 10.0})
    train, val = arc.task_items([copy_task(1)]), arc.task_items([copy_task(4)])
    res = retrain.run_loop("tiny", ARC, train, val, tmp_path, cfg, device="cpu")
    assert len(res.rows) == 2 and res.stopped.startswith("plateau")
    again = retrain.run_loop("tiny", ARC, train, val, tmp_path, cfg, device="cpu")
    assert again.stopped == "plateau (already)" and len(again.rows) == 2
    import matplotlib

    matplotlib.use("Agg")
    assert retrain.plot_loop(res.rows, 1, 10.0) is not None
    assert list(retrain.loop_table(res.rows).index) == [0, 1]
