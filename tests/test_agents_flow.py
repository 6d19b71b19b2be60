"""The agents' flow without the leak: curated chunks carry their own demos-only check, nothing an
agent is told about reads a set with test outputs, and `verify --curated` is the orchestrator's step."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from shared.agents import curate as curate_cmd
from shared.agents import verify as verify_cmd
from shared.agents.feedback import demo_cells
from shared.programs import write_programs
from shared.sandbox import SandboxPool, task_job
from shared.tasks import load

FLIP = "def solve(grid):\n    return [row[::-1] for row in grid]\n"
COPY = "def solve(grid):\n    return grid\n"
HALF = "def solve(grid):\n    return [row[::-1] for row in grid] if len(grid) == 1 else grid\n"
SHRINK = "def solve(grid):\n    return [row[:1] for row in grid]\n"
TEST_CRASH = "def solve(grid):\n    assert len(grid[0]) < 4, 'too wide'\n    return [row[::-1] for row in grid]\n"


def mirror_task(test_input) -> dict:
    return {"train": [{"input": [[1, 2], [3, 4]], "output": [[2, 1], [4, 3]]},
                      {"input": [[5, 0, 0]], "output": [[0, 0, 5]]}],
            "test": [{"input": test_input, "output": [row[::-1] for row in test_input]}]}


@pytest.fixture
def tasks_with_outputs(task_folder):
    folder, write = task_folder
    write("m_one", mirror_task([[7, 8, 9], [6, 6, 1]]))
    write("m_two", mirror_task([[3, 9, 4], [8, 2, 2]]))
    write("m_wide", mirror_task([[1, 7, 7, 2]]))
    write("m_three", mirror_task([[9, 5], [1, 3]]))
    return folder


def commands_in(text: str) -> list[list[str]]:
    """Every `python -m shared ...` command in a text, split into words."""
    return [shlex.split(m) for m in re.findall(r"python -m shared [^\n`]+", text)]


def named_sets(cmd: list[str]) -> list[str]:
    return [cmd[i + 1] for i, word in enumerate(cmd[:-1]) if word == "--tasks"]


def test_no_prompt_or_printed_command_names_a_set_with_test_outputs(tasks_with_outputs, tmp_path, capsys):
    cur = tmp_path / "curated"
    assert curate_cmd.main(["--tasks", str(tasks_with_outputs), "--agents", "2", "--out", str(cur)]) == 0
    printed = capsys.readouterr().out
    texts = {f.name: f.read_text() for f in cur.iterdir() if f.suffix == ".md"} | {"(printed)": printed}
    assert len(texts) == 3
    checks = 0
    for name, text in texts.items():
        if name != "(printed)":  # the orchestrator's own output may say where the tasks came from
            assert str(tasks_with_outputs) not in text and "arc1/" not in text, name
        for cmd in commands_in(text):
            for spec in named_sets(cmd):
                checks += 1
                assert not any(t.has_solutions() for t in load(cur / spec)), f"{name}: {shlex.join(cmd)}"
    assert checks == 2  # each prompt's own check, on its chunk; the printed next step has no --tasks
    assert "python -m shared verify --curated" in printed
    # and no test output is anywhere in the folder, in any encoding
    everything = "".join(f.read_text() for f in cur.iterdir())
    for t in load(tasks_with_outputs):
        out = t.test[0].output.tolist()
        assert json.dumps(out, separators=(",", ":")) not in everything and json.dumps(out) not in everything


def test_an_agent_s_check_on_its_chunk_says_demos_only_and_shows_the_failing_pairs(tasks_with_outputs, tmp_path,
                                                                                 capsys, monkeypatch):
    cur = tmp_path / "curated"
    curate_cmd.main(["--tasks", str(tasks_with_outputs), "--out", str(cur)])
    write_programs(cur / "programs_01.json", [{"task_id": "m_one", "code": FLIP}, {"task_id": "m_two", "code": HALF},
                                              {"task_id": "m_three", "code": SHRINK},
                                              {"task_id": "m_wide", "code": TEST_CRASH}])
    capsys.readouterr()
    monkeypatch.chdir(cur)  # the prompt says: from this folder
    check = commands_in((cur / "PROMPT_01.md").read_text())[0]
    assert check[:4] == ["python", "-m", "shared", "verify"]
    assert verify_cmd.main(check[4:] + ["--workers", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    text = "\n".join(lines)
    assert "m_one: passes every demo (test outputs not available)" in lines
    assert "m_two: partial: 1 of 2 demos right (programs_01.json item 1)" in lines
    assert "    Example 1: wrong output. 4 of 4 cells differ: (0,0) want 2 got 1" in text
    assert "m_three: wrong: 0 of 2 demos right" in text and "Example 2: wrong size: expected 1x3, got 1x1." in text
    assert "Test input 1: raised: AssertionError" in text  # m_wide passes its demos, not its wider test input
    assert lines[-1].startswith("passes every demo on 2/4 tasks") and "(test outputs not available)" in lines[-1]
    assert "solved" not in text and "pass@2" not in text
    summary = json.loads((cur / "check_01" / "summary.json").read_text())
    assert summary["demos_only"] and summary["solved"] == 0 and summary["passes_demos"] == 2


def test_verify_curated_records_what_came_back_and_reports_every_task(tasks_with_outputs, tmp_path, capsys):
    cur = tmp_path / "curated"
    curate_cmd.main(["--tasks", str(tasks_with_outputs), "--agents", "2", "--out", str(cur)])
    manifest = json.loads((cur / "manifest.json").read_text())
    first = manifest["chunks"]["tasks_01.json"]["task_ids"]
    write_programs(cur / "programs_01.json", [{"task_id": i, "code": FLIP} for i in first])
    run = tmp_path / "verified"
    capsys.readouterr()
    assert verify_cmd.main(["--curated", str(cur), "--out", str(run), "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    assert "answers returned: 1 of 2 files, 2 programs; missing programs_02.json" in printed
    assert f"solved {len(first)}/4 tasks" in printed and "submission pass@2" in printed
    after = json.loads((cur / "manifest.json").read_text())
    assert after["returned"]["programs_02.json"] == {"returned": False}
    got = after["returned"]["programs_01.json"]
    assert got["returned"] and got["programs"] == 2 and got["size"] == (cur / "programs_01.json").stat().st_size
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", got["mtime"]) and "verified_at" in after
    summary = json.loads((run / "summary.json").read_text())
    assert summary["n_tasks"] == 4 and summary["statuses"]["no_program"] == 2
    assert summary["returned"] == after["returned"]


def test_verify_curated_refuses_a_run_folder_the_agents_could_read(tasks_with_outputs, tmp_path, capsys):
    cur = tmp_path / "curated"
    curate_cmd.main(["--tasks", str(tasks_with_outputs), "--out", str(cur)])
    assert verify_cmd.main(["--curated", str(cur), "--out", str(cur / "verified")]) == 2
    assert "holds test results; write it outside" in capsys.readouterr().err
    assert not (cur / "verified").exists()


def test_verify_with_test_outputs_still_says_solved(tasks_with_outputs, tmp_path, capsys):
    write_programs(tmp_path / "a.json", [{"task_id": "m_one", "code": FLIP}])
    assert verify_cmd.main(["--tasks", str(tasks_with_outputs), "--programs", str(tmp_path / "a.json"),
                            "--out", str(tmp_path / "run"), "--workers", "1"]) == 0
    assert "solved 1/1 tasks" in capsys.readouterr().out


def test_demo_cells_gives_partial_credit_and_none_for_the_wrong_size_or_forbidden(tasks_with_outputs):
    task = load(tasks_with_outputs).by_id()["m_one"]
    with SandboxPool(workers=1) as pool:
        got = pool.run_many([task_job(c, task, test_outputs=False) for c in
                             (FLIP, COPY, HALF, SHRINK, "def solve(grid):\n    open('/etc/hostname')\n")])
    assert [demo_cells(task, v) for v in got] == [(7, 7), (1, 7), (3, 7), (0, 7), (0, 7)]
