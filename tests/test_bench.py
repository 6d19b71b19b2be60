"""The runner: budgets enforced, crashes contained, resume without redoing, run folder written."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from shared import bench, runs, slots
from shared.scoring import read_submission, validate_submission
from shared.solvers import Prediction
from shared.tasks import load

from .conftest import task_dict

SCRIPTED = "tests.fixture_solvers:ScriptedSolver"
MARK_THEN_SLEEP = "tests.test_bench:MarkThenSleep"


def rows_by_id(run_dir):
    return {r["task_id"]: r for r in runs.read_results(run_dir)}


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
    assert runs.closing_line(summary).startswith("solved 1/5 tasks (20.0%) in ")


def test_one_worker_builds_its_solver_before_the_others_start(task_folder, tmp_path):
    """A solver's on-disk caches (numba's compiled kernels) are made by the first worker alone."""
    folder, write = task_folder
    for name in ("sleep1", "sleep2", "good1", "good2"):  # the sleepers keep a worker busy past its budget
        write(name)
    log = tmp_path / "starts.log"
    summary = bench.run(load(folder), tmp_path / "run", "tests.fixture_solvers:LoggedStartSolver", budget_s=0.5,
                        workers=3, options={"log": str(log), "build_s": 0.3}, progress=False)
    assert summary["solved"] == 2 and summary["statuses"]["timeout"] == 2
    lines = log.read_text().split()
    events = list(zip(lines[::2], lines[1::2], strict=True))
    first = events[0][1]
    assert events[0] == ("start", first) and events[1] == ("built", first)  # the first built alone
    assert len({pid for _, pid in events if pid != first}) >= 2  # then the others, and restarts


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


# -- an overall deadline -----------------------------------------------------------------

class FakeClock:
    """bench's clock, moved past any deadline on demand: deadlines are tested without waiting."""

    def __init__(self, jump_when=lambda: False):
        self.offset, self.jump_when = 0.0, jump_when

    def monotonic(self) -> float:
        return time.monotonic() + self.offset + (10_000.0 if self.jump_when() else 0.0)


def use_clock(monkeypatch, clock: FakeClock) -> None:
    fake = types.SimpleNamespace(monotonic=clock.monotonic, perf_counter=time.perf_counter)
    for module in (bench, slots):  # the runner, and the scheduling it shares with the Ray engine
        monkeypatch.setattr(module, "time", fake)


class MarkThenSleep:
    """In a worker: the first task it meets writes the marker and sleeps; once the marker exists,
    tasks are answered at once (with the first demo output)."""

    name = "mark_then_sleep"

    def __init__(self, marker: str):
        self.marker = Path(marker)

    def solve(self, task, budget_s):
        if not self.marker.exists():
            self.marker.write_text(task.id)
            time.sleep(3600)
        return Prediction([[task.train[0].output] for _ in task.test])


class ClockJumper:
    """In process: each task moves the clock past the deadline and records the budget it got."""

    name = "clock_jumper"

    def __init__(self, clock: FakeClock):
        self.clock, self.budgets = clock, []

    def solve(self, task, budget_s):
        self.budgets.append(budget_s)
        self.clock.offset += 10_000.0
        return Prediction([[task.train[0].output] for _ in task.test])


def assert_complete_submission(out, tasks):
    sub = read_submission(out / "submission.json")
    assert validate_submission(sub, tasks) == []
    return json.loads((out / "submission.json").read_text())


def test_deadline_passed_starts_nothing_and_a_rerun_resumes(task_folder, tmp_path):
    folder, write = task_folder
    for i in range(3):
        write(f"good{i}")
    tasks, out = load(folder), tmp_path / "run"
    summary = bench.run(tasks, out, SCRIPTED, budget_s=5, workers=1, progress=False, deadline=time.monotonic() - 1)
    assert runs.read_results(out) == [] and summary["not_started"] == 3
    sub = assert_complete_submission(out, tasks)
    assert all(e == {"attempt_1": [[7]], "attempt_2": [[7]]} for t in tasks for e in sub[t.id])  # the test input
    summary = bench.run(tasks, out, SCRIPTED, budget_s=5, workers=1, progress=False)
    assert sorted(rows_by_id(out)) == ["good0", "good1", "good2"] and summary["solved"] == 3


def test_deadline_kills_the_task_in_flight_and_leaves_the_rest(task_folder, tmp_path, monkeypatch):
    folder, write = task_folder
    write("a1")
    write("a2")
    tasks, out, marker = load(folder), tmp_path / "run", tmp_path / "started"
    options = {"marker": str(marker)}
    with monkeypatch.context() as m:
        # the deadline passes once a1 is in flight (its solver wrote the marker), not before
        use_clock(m, FakeClock(jump_when=marker.exists))
        bench.run(tasks, out, MARK_THEN_SLEEP, budget_s=100, workers=1, options=options, progress=False,
                  deadline=time.monotonic() + 1_000)
    rows = rows_by_id(out)
    assert list(rows) == ["a1"] and marker.read_text() == "a1"
    assert rows["a1"]["status"] == "timeout" and "deadline" in rows["a1"]["error"]
    assert set(assert_complete_submission(out, tasks)) == {"a1", "a2"}
    bench.run(tasks, out, MARK_THEN_SLEEP, budget_s=100, workers=1, options=options, progress=False)
    rows = rows_by_id(out)
    assert rows["a1"]["status"] == "timeout" and rows["a2"]["status"] == "solved"  # resumed: only a2 ran


def test_deadline_in_process_cuts_the_budget_and_stops(task_folder, tmp_path, monkeypatch):
    folder, write = task_folder
    for i in range(3):
        write(f"good{i}")
    tasks, out = load(folder), tmp_path / "run"
    clock = FakeClock()
    use_clock(monkeypatch, clock)
    solver = ClockJumper(clock)
    summary = bench.run(tasks, out, solver, budget_s=50_000, workers=0, progress=False,
                        deadline=clock.monotonic() + 1_000)
    assert len(solver.budgets) == 1 and 0 < solver.budgets[0] <= 1_000  # the time left, not the run's budget
    assert list(rows_by_id(out)) == ["good0"] and summary["not_started"] == 2
    assert set(assert_complete_submission(out, tasks)) == {"good0", "good1", "good2"}
    bench.run(tasks, out, solver, budget_s=50_000, workers=0, progress=False)
    assert solver.budgets[1:] == [50_000, 50_000] and sorted(rows_by_id(out)) == ["good0", "good1", "good2"]


def test_cli_deadline_s(task_folder, tmp_path):
    folder, write = task_folder
    write("good1")
    out = tmp_path / "run"
    args = ["--solver", SCRIPTED, "--tasks", str(folder), "--out", str(out), "--workers", "1", "--no-progress"]
    assert bench.main([*args, "--deadline-s", "0"]) == 0
    assert runs.read_results(out) == [] and set(json.loads((out / "submission.json").read_text())) == {"good1"}
    assert bench.main(args) == 0
    assert rows_by_id(out)["good1"]["status"] == "solved"


def test_lenient_run_answers_every_id_of_a_challenges_file(tmp_path):
    good = task_dict()
    good = {"train": good["train"], "test": [{"input": [[7]]}, {"input": [[8, 8]]}]}
    malformed = {"train": [{"input": [[1, 2], [3]], "output": [[1]]}], "test": [{"input": [[1]]}] * 3}
    challenges = tmp_path / "arc-agi_test_challenges.json"
    challenges.write_text(json.dumps({"aaa": good, "bbb": malformed, "ccc": good}))
    out = tmp_path / "run"
    assert bench.main(["--solver", "identity", "--tasks", str(challenges), "--lenient", "--workers", "0",
                       "--out", str(out), "--no-progress"]) == 0
    sub = json.loads((out / "submission.json").read_text())
    assert set(sub) == {"aaa", "bbb", "ccc"}
    assert [len(sub[i]) for i in ("aaa", "bbb", "ccc")] == [2, 3, 2]
    assert all(set(e) == {"attempt_1", "attempt_2"} for entries in sub.values() for e in entries)
    assert validate_submission(read_submission(out / "submission.json"), load(challenges, lenient=True)) == []
    assert set(rows_by_id(out)) == {"aaa", "ccc"}  # the malformed task is answered, never run
