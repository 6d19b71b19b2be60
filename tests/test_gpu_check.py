"""The GPU check runs end to end on the CPU at small settings (so it works when a GPU is lent)."""

import json

from shared.gpu_check import check


def test_gpu_check_runs_every_stage_on_cpu(tmp_path):
    out = tmp_path / "check.json"
    report = check(steps=2, n_tasks=1, budget_s=3, layers=1, hidden=32, batch_size=2, max_len=512,
                   max_new_tokens=8, ttt_steps=1, n_views=2, out=str(out))
    assert report["device"]["device"] == "cpu" and report["device"]["dtype"] == "torch.float32"
    assert report["train"]["ok"] and report["train"]["steps"] == 2 and report["train"]["examples"] > 0
    assert not report["four_bit"]["ok"] and "needs CUDA" in report["four_bit"]["error"]
    assert report["ttt"]["ok"] and report["ttt"]["tasks"] == 1
    assert json.loads(out.read_text())["train"]["steps"] == 2
