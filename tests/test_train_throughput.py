"""The throughput command and the comparison tables the training notebooks show."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")

from shared.train import compare, sft, throughput, ttt  # noqa: E402


def test_throughput_command_prints_training_and_generation_speed(capsys):
    assert throughput.main(["--profile", "smoke", "--tasks", "2", "--steps", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    progress = [x for x in lines if x.startswith("step ")]  # the trainer's progress lines, one per step here
    assert [x.split(" · ")[0] for x in progress] == ["step 1/2", "step 2/2"]
    out = [x for x in lines if x not in progress]
    assert out[0].startswith("profile smoke, model tiny")
    assert out[1].startswith("train: ") and "tokens/s (2 LoRA steps" in out[1]
    assert out[2].startswith("generate: ") and "tokens/s" in out[2]


def row(task_id: str, status: str, seconds: float, losses=None) -> dict:
    trace = {"ttt": {"examples": 6, "losses": losses}} if losses is not None else {}
    return {"task_id": task_id, "status": status, "time_s": seconds, "trace": trace}


def test_ttt_table_puts_both_runs_of_a_task_in_one_row():
    without = [row("a", "unsolved", 1.0), row("b", "solved", 2.0)]
    with_ttt = [row("a", "solved", 3.0, [4.0, 2.5]), row("b", "solved", 4.0, [])]
    table = ttt.ttt_table(without, with_ttt)
    assert list(table.index) == ["a", "b"]
    assert table.loc["a", "without solved"] == False and table.loc["a", "with TTT solved"] == True  # noqa: E712
    assert table.loc["b", "with TTT s"] == 4.0
    assert table.loc["a", "TTT loss first"] == 4.0 and table.loc["a", "TTT loss last"] == 2.5


def test_runs_table_adds_measured_columns():
    summary = {"n_tasks": 4, "solved": 1, "pass_at_2": 0.25, "time_per_task_s": {"mean": 1.5}}
    table = compare.runs_table({"teacher": summary, "student": summary}, {"student": {"tokens/s": 80.0}})
    assert table.loc["teacher", "pass@2"] == 0.25 and table.loc["student", "tokens/s"] == 80.0


def test_run_folders_differ_by_profile_and_model(tmp_path, monkeypatch):
    assert sft.run_name("smoke", "tiny") == "smoke-tiny"
    assert sft.run_name("t4", "Qwen/Qwen2.5-0.5B-Instruct") == "t4-Qwen2.5-0.5B-Instruct"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "outputs" / "a" / "model").mkdir(parents=True)
    (tmp_path / "outputs" / "b" / "model").mkdir(parents=True)
    assert sft.run_name("t4", "outputs/a/model/") == "t4-outputs_a_model" != sft.run_name("t4", "outputs/b/model")
