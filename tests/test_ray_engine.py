"""The Ray engine: the same rows as the local pool, budgets and crashes contained, stop and resume.

One private Ray (2 CPUs, loopback, no dashboard) serves the module; the runner finds it
initialised and leaves it running. The command-line tests start Ray in a child of their own.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shared import bench, ray_engine, runs
from shared.solvers import Prediction
from shared.tasks import load

from .conftest import task_dict

SCRIPTED = "tests.fixture_solvers:ScriptedSolver"
LOGGING = "tests.test_ray_engine:LoggingSolver"
# rows of the two engines differ only in these: how long, on which worker, with how much memory
RUNNER_FIELDS = {"time_s", "worker", "peak_rss_mb"}
SUMMARY_RUNNER_FIELDS = {"wall_s", "time_per_task_s", "peak_rss_mb_per_worker", "peak_rss_mb"}


class LoggingSolver:
    """In a worker: appends each task id it is given to `log` (one line), then answers with the
    first demo output; the log shows which tasks a run really solved."""

    name = "logging"

    def __init__(self, log: str):
        self.log = Path(log)

    def solve(self, task, budget_s):
        with open(self.log, "a") as f:
            f.write(task.id + "\n")
        return Prediction([[task.train[0].output] for _ in task.test])


@pytest.fixture(scope="module")
def ray_up():
    ray = ray_engine.start_private_ray(num_cpus=2)
    yield ray
    ray.shutdown()


def rows_by_id(run_dir) -> dict[str, dict]:
    return {r["task_id"]: r for r in runs.read_results(run_dir)}


def without(d: dict, keys: set[str]) -> dict:
    return {k: v for k, v in d.items() if k not in keys}


def wait_for(condition, what: str, limit_s: float = 120.0) -> None:
    """Poll until condition() holds; a guard against a hang, not a measure of speed."""
    end = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > end:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.1)


def write_mixed(write) -> list[str]:
    """Ten tasks: solved, unsolved, a solver error and a malformed answer."""
    ids = [f"good{i}" for i in range(6)] + ["wrong1", "wrong2", "raise1", "bad1"]
    for tid in ids:
        write(tid, task_dict(solvable=not tid.startswith("wrong")))
    return ids


# -- without a cluster -------------------------------------------------------------------

def test_missing_ray_is_a_clear_error_and_writes_nothing(task_folder, tmp_path, monkeypatch, capsys):
    folder, write = task_folder
    write("good1")
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError, as when not installed
    out = tmp_path / "run"
    with pytest.raises(bench.BenchError, match=r"pip install 'arc-suite\[ray\]'"):
        bench.run(load(folder), out, SCRIPTED, workers=1, progress=False, engine="ray")
    assert not out.exists()
    assert bench.main(["--solver", SCRIPTED, "--tasks", str(folder), "--out", str(out), "--engine", "ray",
                       "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: --engine ray needs the ray package") and "--engine local" in err[-1]
    assert not out.exists()


def test_engine_arguments_are_checked_before_anything_is_written(task_folder, tmp_path):
    folder, write = task_folder
    write("good1")
    out = tmp_path / "run"
    with pytest.raises(ValueError, match="engine 'spark': expected one of local, ray"):
        bench.run(load(folder), out, SCRIPTED, progress=False, engine="spark")
    with pytest.raises(ValueError, match="an address is for --engine ray"):
        bench.run(load(folder), out, SCRIPTED, progress=False, address="127.0.0.1:6379")
    with pytest.raises(ValueError, match="1 or more --workers"):
        bench.run(load(folder), out, SCRIPTED, workers=0, progress=False, engine="ray")
    assert not out.exists()


def test_cli_address_with_no_cluster_fails_fast_with_how_to_start_one(task_folder, tmp_path):
    folder, write = task_folder
    write("good1")
    res = subprocess.run([sys.executable, "-m", "shared", "solve", "--solver", SCRIPTED, "--tasks", str(folder),
                          "--out", str(tmp_path / "run"), "--engine", "ray", "--address", "127.0.0.1:1",
                          "--no-progress"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("error: no Ray cluster answers at '127.0.0.1:1'") and "ray start --head" in last


# -- on the module's Ray -----------------------------------------------------------------

def test_ten_tasks_give_the_local_engines_rows_and_run_folder(ray_up, task_folder, tmp_path):
    folder, write = task_folder
    ids = write_mixed(write)
    tasks = load(folder)
    local = bench.run(tasks, tmp_path / "local", SCRIPTED, budget_s=5, workers=2, progress=False)
    on_ray = bench.run(tasks, tmp_path / "ray", SCRIPTED, budget_s=5, workers=2, progress=False, engine="ray")
    rows_local, rows_ray = rows_by_id(tmp_path / "local"), rows_by_id(tmp_path / "ray")
    assert sorted(rows_ray) == sorted(ids)
    assert {t for t, r in rows_ray.items() if r["status"] == "solved"} == {f"good{i}" for i in range(6)}
    for tid in ids:
        assert without(rows_ray[tid], RUNNER_FIELDS) == without(rows_local[tid], RUNNER_FIELDS), tid
    assert rows_ray["raise1"]["status"] == "error" and "scripted failure" in rows_ray["raise1"]["error"]
    assert all(r["peak_rss_mb"] > 0 and r["worker"] in (0, 1) for r in rows_ray.values())
    assert without(on_ray, SUMMARY_RUNNER_FIELDS) == without(local, SUMMARY_RUNNER_FIELDS)
    assert len(on_ray["peak_rss_mb_per_worker"]) == 2 and on_ray["peak_rss_mb"] > 0
    for name in ("submission.json", "run.json"):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), name
    assert "good1" in (tmp_path / "ray" / "report.html").read_text()


def test_over_budget_is_a_timeout_a_dead_worker_an_error_and_memory_bounded(ray_up, task_folder, tmp_path):
    folder, write = task_folder
    for tid in ("sleep1", "crash1", "mem1", "good1", "good2", "good3"):
        write(tid)
    out = tmp_path / "run"
    summary = bench.run(load(folder), out, SCRIPTED, budget_s=0.5, workers=2, max_mem_gb=1.0, progress=False,
                        engine="ray")
    rows = rows_by_id(out)
    assert rows["sleep1"]["status"] == "timeout" and "over budget (0.5 s)" in rows["sleep1"]["error"]
    assert rows["crash1"]["status"] == "error" and "worker died" in rows["crash1"]["error"]
    assert rows["mem1"]["status"] == "error" and "MemoryError" in rows["mem1"]["error"]
    # the killed and the dead workers were replaced: every other task still ran
    assert all(rows[f"good{i}"]["status"] == "solved" for i in (1, 2, 3))
    assert summary["statuses"] == {"solved": 3, "timeout": 1, "error": 2} and summary["n_tasks"] == 6


def test_a_run_stopped_after_five_tasks_resumes_without_redoing_them(ray_up, task_folder, tmp_path, monkeypatch,
                                                                     capsys):
    folder, write = task_folder
    ids = [f"good{i}" for i in range(10)]
    for tid in ids:
        write(tid)
    out, log = tmp_path / "run", tmp_path / "solved.log"
    args = ["--solver", LOGGING, "--option", f"log={json.dumps(str(log))}", "--tasks", str(folder),
            "--out", str(out), "--workers", "2", "--engine", "ray", "--no-progress"]
    real_append, written = runs.append, []

    def append_then_interrupt(f, row):  # Ctrl+C as the fifth row lands
        real_append(f, row)
        written.append(row["task_id"])
        if len(written) == 5:
            raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(runs, "append", append_then_interrupt)
        assert bench.main(args) == 130
    assert "interrupted: finished tasks are kept" in capsys.readouterr().err
    first = sorted(rows_by_id(out))
    assert first == sorted(written) and len(first) == 5
    # the stopped run's actors are gone: both CPUs are free again
    wait_for(lambda: ray_up.available_resources().get("CPU", 0) == 2, "the stopped run's actors to go")
    solved_before = len(log.read_text().splitlines())
    assert bench.main(args) == 0
    rows = [r["task_id"] for r in runs.read_results(out)]
    assert sorted(rows) == ids  # each task once
    resolved = log.read_text().splitlines()[solved_before:]
    assert sorted(resolved) == sorted(set(ids) - set(first))  # the rerun solved only what had no row
    assert json.loads((out / "summary.json").read_text())["solved"] == 10


def test_deadline_already_passed_starts_no_actor(ray_up, task_folder, tmp_path):
    folder, write = task_folder
    write("good1")
    out = tmp_path / "run"
    summary = bench.run(load(folder), out, SCRIPTED, workers=2, progress=False, engine="ray",
                        deadline=time.monotonic() - 1)
    assert runs.read_results(out) == [] and summary["not_started"] == 1
    assert set(json.loads((out / "submission.json").read_text())) == {"good1"}


# -- Ctrl+C on the command line, with a private Ray in the child ------------------------

def session_processes(sid: int) -> list[int]:
    """Pids of live processes in session sid (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:  # gone while we looked
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def test_ctrl_c_on_the_cli_stops_ray_and_its_workers_and_a_rerun_resumes(task_folder, tmp_path):
    folder, write = task_folder
    for tid in ("a1", "a2", "a3", "sleep1", "sleep2"):
        write(tid)
    out = tmp_path / "run"
    # SIGINT raises KeyboardInterrupt in the child even when this process was started ignoring it
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from shared.__main__ import main; sys.exit(main(sys.argv[1:]))")
    cmd = [sys.executable, "-c", code, "solve", "--solver", SCRIPTED, "--tasks", str(folder), "--out", str(out),
           "--workers", "2", "--engine", "ray", "--no-progress"]
    repo = Path(__file__).resolve().parents[1]
    child = subprocess.Popen([*cmd, "--budget-s", "600"], start_new_session=True, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=repo)
    try:
        wait_for(lambda: len(runs.read_results(out)) == 3, "the three quick tasks' rows")
        os.killpg(child.pid, signal.SIGINT)  # what a terminal's Ctrl+C does: the whole process group
        _, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130 and "interrupted" in err
    assert sorted(rows_by_id(out)) == ["a1", "a2", "a3"]  # the sleepers were in flight: no row, left for a rerun
    wait_for(lambda: session_processes(child.pid) == [], "Ray's processes to exit", limit_s=60)
    res = subprocess.run([*cmd, "--budget-s", "0.1"], capture_output=True, text=True, timeout=300, cwd=repo)
    assert res.returncode == 0 and res.stdout.strip().startswith("solved 3/5 tasks")
    rows = rows_by_id(out)
    assert sorted(rows) == ["a1", "a2", "a3", "sleep1", "sleep2"]
    assert rows["sleep1"]["status"] == rows["sleep2"]["status"] == "timeout"
