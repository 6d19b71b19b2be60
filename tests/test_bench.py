"""The runner: budgets enforced, crashes contained, resume without redoing, run folder written."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from shared import bench
from shared.tasks import load

SCRIPTED = "tests.fixture_solvers:ScriptedSolver"


def rows_by_id(run_dir):
    return {r["task_id"]: r for r in bench.read_results(run_dir)}


def test_statuses_and_run_folder(task_folder, tmp_path):
    folder, write = task_folder
    write("good1")
    write("sleep1")
    write("crash1")
    write("raise1")
    write("bad1")
    out = tmp_path / "run"
    summary = bench.run(load(folder), out, SCRIPTED, budget_s=0.5, workers=2, progress=False)
    rows = rows_by_id(out)
    assert rows["good1"]["status"] == "solved" and rows["good1"]["correct"] == [True]
    assert rows["sleep1"]["status"] == "timeout"
    assert rows["crash1"]["status"] == "error" and "worker died" in rows["crash1"]["error"]
    assert rows["raise1"]["status"] == "error" and "scripted failure" in rows["raise1"]["error"]
    assert rows["bad1"]["status"] == "error" and "colour 12" in rows["bad1"]["error"]
    assert summary["solved"] == 1 and summary["n_tasks"] == 5
    assert summary["statuses"] == {"solved": 1, "timeout": 1, "error": 3}
    sub = json.loads((out / "submission.json").read_text())
    assert set(sub) == {"good1", "sleep1", "crash1", "raise1", "bad1"}
    assert all({"attempt_1", "attempt_2"} <= set(e) for entries in sub.values() for e in entries)
    report = (out / "report.html").read_text()
    assert "good1" in report and "<script>" in report
    assert bench.closing_line(summary).startswith("solved 1/5 tasks (20.0%) in ")


def test_memory_limit_is_an_error_not_a_crash(task_folder, tmp_path):
    folder, write = task_folder
    write("mem1")
    write("good1")
    out = tmp_path / "run"
    bench.run(load(folder), out, SCRIPTED, budget_s=5, workers=1, max_mem_gb=1.0, progress=False)
    rows = rows_by_id(out)
    assert rows["mem1"]["status"] == "error" and "MemoryError" in rows["mem1"]["error"]
    assert rows["good1"]["status"] == "solved"


def test_resume_skips_finished_tasks(task_folder, tmp_path):
    folder, write = task_folder
    for i in range(3):
        write(f"good{i}")
    tasks = load(folder)
    out = tmp_path / "run"
    bench.run(tasks[:2], out, SCRIPTED, budget_s=5, workers=1, progress=False, tasks_name="fixture")
    # a run killed mid-write leaves a torn line; resume ignores it and redoes nothing finished
    with open(out / "results.jsonl", "a") as f:
        f.write('{"task_id": "good2", "stat')
    summary = bench.run(tasks, out, SCRIPTED, budget_s=5, workers=1, progress=False, tasks_name="fixture")
    ids = [json.loads(line)["task_id"] for line in (out / "results.jsonl").read_text().splitlines()
           if line.endswith("}")]
    assert ids.count("good0") == 1 and ids.count("good1") == 1 and ids.count("good2") == 1
    assert summary["n_tasks"] == 3 and summary["solved"] == 3


def test_resume_refuses_another_solver(task_folder, tmp_path):
    folder, write = task_folder
    write("good1")
    out = tmp_path / "run"
    bench.run(load(folder), out, "identity", workers=0, progress=False)
    with pytest.raises(bench.BenchError, match="holds a run of solver 'identity'"):
        bench.run(load(folder), out, SCRIPTED, workers=0, progress=False)
    with pytest.raises(bench.BenchError, match="with options {}"):
        bench.run(load(folder), out, "identity", workers=0, progress=False, options={"x": 1})


def test_unscored_tasks(task_folder, tmp_path):
    folder, write = task_folder
    data = {"train": [{"input": [[1]], "output": [[2]]}], "test": [{"input": [[3]]}]}
    write("nosol", data)
    summary = bench.run(load(folder), tmp_path / "run", "identity", workers=0, progress=False)
    assert summary["statuses"] == {"unscored": 1} and summary["solved"] == 0


def test_cli_closing_line_and_second_run_skips(task_folder, tmp_path):
    folder, write = task_folder
    write("a1")
    write("a2", {"train": [{"input": [[1]], "output": [[1]]}], "test": [{"input": [[4]], "output": [[4]]}]})
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "shared", "solve", "--solver", "identity", "--tasks", str(folder),
           "--out", str(out), "--no-progress"]
    first = subprocess.run(cmd, capture_output=True, text=True, check=True)
    lines = first.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("solved 1/2 tasks (50.0%) in ")
    subprocess.run(cmd, capture_output=True, text=True, check=True)
    assert len((out / "results.jsonl").read_text().splitlines()) == 2


def test_cli_bad_task_file_is_one_line_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"train": [{"input": [[1, 2], [3]], "output": [[1]]}], "test": [{"input": [[1]]}]}))
    res = subprocess.run([sys.executable, "-m", "shared", "solve", "--solver", "identity", "--tasks", str(bad),
                          "--out", str(tmp_path / "run")], capture_output=True, text=True)
    assert res.returncode == 2
    err = res.stderr.strip().splitlines()
    assert len(err) == 1
    assert "bad.json" in err[0] and "train pair 0 input" in err[0] and "not rectangular" in err[0]


def test_network_is_blocked_in_tests():
    import socket

    with pytest.raises(OSError, match="tests must run offline"):
        socket.create_connection(("192.0.2.1", 80), timeout=1)
