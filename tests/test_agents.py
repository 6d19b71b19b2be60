"""Agents: code extraction, program files, curate, verify (status ladder, union, run folder), feedback."""

from __future__ import annotations

import json

import numpy as np
import pytest

from shared.agents import curate as curate_cmd
from shared.agents import extract_code
from shared.agents import verify as verify_cmd
from shared.agents.feedback import cell_diff, feedback
from shared.programs import Program, ProgramFileError, read_programs, write_programs
from shared.sandbox import SandboxPool, task_job
from shared.tasks import TaskError, load

FLIP = "def solve(grid):\n    return [row[::-1] for row in grid]\n"
COPY = "def solve(grid):\n    return grid\n"
# right on demo 1 only: flips single-row grids, copies the rest
HALF = "def solve(grid):\n    return [row[::-1] for row in grid] if len(grid) == 1 else grid\n"
BROKEN = "def solve(grid):\n    return grid[99]\n"
SLOW = "def solve(grid):\n    while True:\n        pass\n"


def flip_task(test_output=None) -> dict:
    """Mirror left-right; demos of 2 rows and 1 row."""
    return {"train": [{"input": [[1, 2], [3, 4]], "output": [[2, 1], [4, 3]]},
                      {"input": [[5, 0, 0]], "output": [[0, 0, 5]]}],
            "test": [{"input": [[7, 8, 9]], "output": test_output or [[9, 8, 7]]}]}


@pytest.fixture
def flip_tasks(task_folder):
    folder, write = task_folder
    write("flip_a", flip_task())
    write("flip_b", flip_task())
    # demos say flip, the test output says otherwise: a program can pass the demos only
    write("flip_c", flip_task(test_output=[[7, 8, 9]]))
    return folder


def test_extract_code_takes_the_last_python_block():
    reply = ("Idea:\n```python\ndef solve(grid):\n    return 1\n```\n"
             "Better:\n```python\ndef solve(grid):\n    return 2\n```")
    assert extract_code(reply) == "def solve(grid):\n    return 2\n"


def test_extract_code_accepts_plain_text_and_unclosed_blocks_and_refuses_prose():
    assert extract_code("def solve(grid):\n    return grid") == "def solve(grid):\n    return grid\n"
    assert extract_code("Sure!\n```python\ndef solve(grid):\n    return grid") == "def solve(grid):\n    return grid\n"
    assert extract_code("```python\nprint(1)\n```") is None
    assert extract_code("I would flip the grid.") is None


def test_program_files_are_validated_with_the_place(tmp_path):
    bad = tmp_path / "agent.json"
    bad.write_text(json.dumps([{"task_id": "a", "code": FLIP}, {"task_id": "b"}]))
    with pytest.raises(ProgramFileError, match=r"agent.json: item 1: 'code'"):
        read_programs(bad)
    write_programs(tmp_path / "ok" / "agent_x.json", [{"task_id": "a", "code": FLIP, "round": 2}])
    progs = read_programs(tmp_path / "ok")
    assert [(p.task_id, p.agent, p.extra) for p in progs] == [("a", "agent_x", {"round": 2})]


def test_curate_strips_test_outputs_and_writes_a_prompt_per_chunk(flip_tasks, tmp_path):
    out = tmp_path / "curated"
    assert curate_cmd.main(["--tasks", str(flip_tasks), "--agents", "2", "--max-size", "3", "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["task_ids"] == ["flip_a", "flip_b", "flip_c"]
    assert len(manifest["chunks"]) == 2
    seen = []
    for name, chunk in manifest["chunks"].items():
        data = json.loads((out / name).read_text())
        assert sorted(data) == chunk["task_ids"]
        seen += list(data)
        for task in data.values():
            assert all(set(p) == {"input"} for p in task["test"])
            assert all("output" in p for p in task["train"])
        prompt = (out / chunk["prompt"]).read_text()
        assert name in prompt and chunk["answers"] in prompt and "def solve(grid)" in prompt
    assert sorted(seen) == manifest["task_ids"]
    # agents may answer into the curated folder: verify reads only their files from it
    write_programs(out / "programs_01.json", [{"task_id": "flip_a", "code": FLIP}])
    assert [p.source for p in read_programs(out)] == [str(out / "programs_01.json")]


def test_curate_max_size_filters(flip_tasks, tmp_path, capsys):
    assert curate_cmd.main(["--tasks", str(flip_tasks), "--max-size", "2", "--out", str(tmp_path / "c")]) == 2
    assert "no task is left" in capsys.readouterr().err


def test_curate_drops_tasks_a_solver_solves(task_folder, tmp_path):
    folder, write = task_folder
    write("copy", {"train": [{"input": [[1]], "output": [[1]]}], "test": [{"input": [[2]], "output": [[2]]}]})
    write("flip", flip_task())
    out = tmp_path / "c"
    assert curate_cmd.main(["--tasks", str(folder), "--unsolved-by", "identity", "--workers", "0",
                            "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["task_ids"] == ["flip"] and manifest["filters"]["unsolved_by"]["dropped"] == 1
    assert (out / "identity" / "results.jsonl").exists()


def test_verify_ladder_union_and_run_folder(flip_tasks, tmp_path, capsys):
    progs = tmp_path / "programs"
    write_programs(progs / "agent_1.json", [{"task_id": "flip_a", "code": COPY},
                                            {"task_id": "flip_b", "code": HALF},
                                            {"task_id": "flip_c", "code": FLIP}])
    write_programs(progs / "agent_2.json", [{"task_id": "flip_a", "code": FLIP},
                                            {"task_id": "flip_b", "code": BROKEN}])
    out = tmp_path / "run"
    code = verify_cmd.main(["--tasks", str(flip_tasks), "--programs", str(progs), "--out", str(out),
                            "--workers", "1", "--time-limit-s", "1"])
    assert code == 0
    rows = {json.loads(line)["task_id"]: json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()}
    assert rows["flip_a"]["status"] == "solved"          # agent_2's flip beats agent_1's copy
    assert rows["flip_a"]["trace"]["agents"] == {"agent_1": "wrong", "agent_2": "solved"}
    assert rows["flip_b"]["status"] == "partial"         # half right beats an error
    assert rows["flip_c"]["status"] == "passes_demos"    # the test output disagrees with the demos
    assert rows["flip_a"]["attempts"] == [[[[9, 8, 7]]]] and rows["flip_a"]["correct"] == [True]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["solved"] == 1 and summary["n_tasks"] == 3
    assert summary["agents"]["agent_2"]["solved"] == 1
    sub = json.loads((out / "submission.json").read_text())
    assert sub["flip_a"][0]["attempt_1"] == [[9, 8, 7]]
    assert (out / "report.html").exists()
    assert "solved 1/3 tasks" in capsys.readouterr().out


def test_verify_reruns_a_dsl_run_s_printed_programs_in_the_sandbox(flip_tasks, tmp_path, capsys):
    from shared import bench

    run = tmp_path / "dsl_flips"
    assert bench.main(["--solver", "dsl", "--tasks", str(flip_tasks), "--budget-s", "3", "--workers", "0",
                       "--no-progress", "--out", str(run)]) == 0
    programs = read_programs(run)
    assert {p.task_id for p in programs} == {"flip_a", "flip_b", "flip_c"}
    assert {p.agent for p in programs} == {"dsl_flips"} and all("def solve(I):" in p.code for p in programs)
    out = tmp_path / "verified"
    assert verify_cmd.main(["--tasks", str(flip_tasks), "--programs", str(run), "--library", "dsl",
                            "--workers", "1", "--out", str(out)]) == 0
    # each task as the run scored it: its programs reproduce the demos and the run's answers
    ran = {json.loads(line)["task_id"]: json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()}
    rows = {json.loads(line)["task_id"]: json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()}
    assert rows["flip_a"]["status"] == rows["flip_b"]["status"] == "solved"
    # every printed program explains the demos, so a task the run left unsolved passes its demos only
    # (flip_c: its test output disagrees with them)
    assert ran["flip_c"]["status"] == "unsolved" and rows["flip_c"]["status"] == "passes_demos"
    assert {k: r["status"] for k, r in rows.items()} == {
        k: {"unsolved": "passes_demos"}.get(r["status"], r["status"]) for k, r in ran.items()}
    assert all(r["attempts"] == ran[k]["attempts"] for k, r in rows.items())
    # without the library the same programs cannot import the DSL
    assert verify_cmd.main(["--tasks", str(flip_tasks), "--programs", str(run / "results.jsonl"),
                            "--workers", "1", "--out", str(tmp_path / "plain")]) == 0
    assert "solved 0/3 tasks" in capsys.readouterr().out


def test_a_run_s_results_name_a_bad_row_and_drop_a_torn_last_line(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    row = {"task_id": "a", "trace": {"program": "def solve(I):\n    return I\n"}}
    (run / "results.jsonl").write_text(json.dumps(row) + "\n" + '{"task_id": "b", "tr')  # killed mid-write
    assert [p.task_id for p in read_programs(run)] == ["a"]
    (run / "results.jsonl").write_text(json.dumps(row) + "\n" + json.dumps({"trace": {}}) + "\n")
    with pytest.raises(ProgramFileError, match=r"results.jsonl: row 2: expected a results row with a 'task_id'"):
        read_programs(run)


def test_verify_counts_curated_tasks_without_programs(flip_tasks, tmp_path):
    curate_cmd.main(["--tasks", str(flip_tasks), "--out", str(tmp_path / "cur")])
    write_programs(tmp_path / "p.json", [{"task_id": "flip_a", "code": FLIP}])
    out = tmp_path / "run"
    verify_cmd.main(["--tasks", str(flip_tasks), "--programs", str(tmp_path / "p.json"), "--curated",
                     str(tmp_path / "cur"), "--out", str(out), "--workers", "1"])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_tasks"] == 3 and summary["statuses"] == {"solved": 1, "no_program": 2}


def test_program_status_timeout_and_forbidden_rank_below_errors(flip_tasks):
    task = load(flip_tasks).by_id()["flip_a"]
    with SandboxPool(workers=1, time_limit_s=0.5) as pool:
        slow, peek, broken = pool.run_many([task_job(SLOW, task),
                                            task_job("def solve(grid):\n    open('/etc/hostname')\n", task),
                                            task_job(BROKEN, task)])
    row = verify_cmd.task_row(task, placeholders(task.id, 3), [slow, peek, broken])
    assert [p["status"] for p in row["trace"]["programs"]] == ["error", "error", "timeout"]
    assert row["status"] == "error"


def placeholders(task_id: str, n: int) -> list[Program]:
    """Program records for verdicts computed directly (the code is not rerun)."""
    return [Program(task_id, f"# program {i}", f"agent_{i}.json", 0) for i in range(n)]


def test_feedback_names_the_failing_pair_with_a_cell_diff(flip_tasks):
    task = load(flip_tasks).by_id()["flip_a"]
    with SandboxPool(workers=1) as pool:
        v = pool.run_many([task_job(HALF, task, test_outputs=False)])[0]
    text = feedback(task, v)
    assert "1 of 2 fail (right: example 2)." in text
    assert "Example 1: wrong output. 4 of 4 cells differ" in text
    assert "Example 2" not in text


def test_feedback_for_errors_and_missing_code(flip_tasks):
    task = load(flip_tasks).by_id()["flip_a"]
    with SandboxPool(workers=1) as pool:
        v = pool.run(BROKEN, [p.input for p in task.train], [p.output for p in task.train])
    assert "Example 1: raised: IndexError" in feedback(task, v)
    assert "no ```python block" in feedback(task, None)


def test_cell_diff_marks_right_cells_with_dots():
    got, want = np.array([[1, 2], [3, 4]]), np.array([[1, 0], [3, 4]])
    assert cell_diff(got, want) == ("1 of 4 cells differ: (0,1) want 0 got 2\n"
                                    "your output with correct cells as '.':\n.2\n..")


def test_verify_selects_the_named_tasks_in_the_order_given_and_names_unknown_ones():
    tasks = load("arc1/train")[:3]
    ids = [t.id for t in tasks]
    progs = [Program(ids[0], "def solve(g): return g", "a.json", 0), Program("zzz", "x", "a.json", 1)]
    chosen, unknown = verify_cmd.select_tasks(tasks, progs, [ids[2], ids[0]])
    assert [t.id for t in chosen] == [ids[2], ids[0]] and unknown == ["zzz"]
    chosen, _ = verify_cmd.select_tasks(tasks, progs, None)
    assert [t.id for t in chosen] == [ids[0]]
    with pytest.raises(TaskError, match="task ids not in arc1/train: nosuch"):
        verify_cmd.select_tasks(tasks, progs, [ids[1], "nosuch"])
