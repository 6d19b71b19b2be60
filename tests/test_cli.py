"""The command line as people use it: the command list, every --help, bad arguments (a message on
stderr, exit 2, nothing written), score's streams, the progress bar, the arc-suite entry point."""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import subprocess

import pytest

from shared import bench, scoring
from shared.__main__ import COMMANDS, main, usage
from shared.tasks import TaskSet, task_from_json
from tests.conftest import task_dict

OWNED = list(COMMANDS)  # every command: each of its flags has help


def test_usage_lists_every_command_aligned_and_the_entry_point(capsys):
    assert main([]) == 0
    text = capsys.readouterr().out
    assert text == usage() + "\n" and "arc-suite <command>" in text
    rows = text.split("commands:\n")[1].split("\n\n")[0].splitlines()
    assert [r.split()[0] for r in rows] == list(COMMANDS)
    columns = {len(r) - len(r[2:].split(None, 1)[1]) for r in rows}  # where each help text starts
    assert len(columns) == 1, rows


def test_an_unknown_command_is_named_on_stderr(capsys):
    assert main(["nosuch"]) == 2
    captured = capsys.readouterr()
    assert "unknown command 'nosuch'" in captured.err and captured.out == ""


class _Parsed(Exception):
    pass


def parser_of(name, monkeypatch) -> argparse.ArgumentParser:
    """The parser a command's main builds, caught at parse_args before the command does anything."""
    def catch(self, *args, **kwargs):
        raise _Parsed(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", catch)
    module = importlib.import_module(COMMANDS[name][0])
    with pytest.raises(_Parsed) as caught:
        module.main([])
    return caught.value.args[0]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_help_names_its_own_command(name, monkeypatch):
    assert parser_of(name, monkeypatch).prog == f"python -m shared {name}"


@pytest.mark.parametrize("name", OWNED)
def test_every_flag_has_help(name, monkeypatch):
    parser = parser_of(name, monkeypatch)
    bare = [a.option_strings or [a.dest] for a in parser._actions if not a.help]
    assert not bare, f"{name}: no help for {bare}"


@pytest.mark.parametrize("args, message", [
    (["--budget-s", "-5"], "--budget-s must be a number > 0, got -5"),
    (["--budget-s", "0"], "--budget-s must be a number > 0, got 0"),
    (["--budget-s", "nan"], "--budget-s must be a number > 0, got nan"),
    (["--deadline-s", "-1"], "--deadline-s must be a number >= 0, got -1"),
    (["--max-mem-gb", "-1"], "--max-mem-gb must be a number > 0"),
    (["--workers", "-1"], "--workers must be >= 0"),
    (["--limit", "0"], "--limit must be >= 1"),
    (["--solver", "nosuch"], "--solver 'nosuch': no such solver; available: "),
    (["--option", "novalue"], "--option 'novalue': expected KEY=VALUE"),
])
def test_solve_refuses_bad_arguments_before_writing(tmp_path, capsys, args, message):
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as stop:
        main(["solve", "--tasks", "arc1/train", "--limit", "1", "--out", str(out), *args])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""
    assert not out.exists()


def test_solve_names_a_missing_task_set_and_leaves_no_folder(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["solve", "--tasks", str(tmp_path / "nosuch"), "--out", str(out)]) == 2
    assert "no such task set" in capsys.readouterr().err and not out.exists()


def test_solve_names_unknown_ids_and_leaves_no_folder(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["solve", "--tasks", "arc1/train", "--ids", "007bbfb7,nosuch", "--out", str(out)]) == 2
    assert "task ids not in arc1/train: nosuch" in capsys.readouterr().err and not out.exists()


def test_the_console_entry_point_runs_the_same_command_line(tmp_path):
    exe = shutil.which("arc-suite")
    if exe is None:
        pytest.skip("the arc-suite console command is not installed (pip install -e .)")
    usage_run = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    assert usage_run.returncode == 0 and "human-report" in usage_run.stdout
    out = tmp_path / "run"
    bad = subprocess.run([exe, "solve", "--solver", "nosuch", "--tasks", "arc1/train", "--out", str(out)],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "no such solver" in bad.stderr and bad.stdout == "" and not out.exists()


# ---------------------------------------------------------------- score

@pytest.fixture
def scored_folder(task_folder):
    folder, write = task_folder
    write("t1")
    write("t2")
    return folder


def test_score_errors_go_to_stderr(tmp_path, scored_folder, capsys):
    assert scoring.main([str(tmp_path / "missing.json"), "--tasks", str(scored_folder)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "error:" in captured.err and "missing.json" in captured.err

    unsolved = tmp_path / "unsolved"
    unsolved.mkdir()
    (unsolved / "u.json").write_text(json.dumps({"train": task_dict()["train"], "test": [{"input": [[1]]}]}))
    sub = tmp_path / "sub.json"
    sub.write_text(json.dumps({"u": [{"attempt_1": [[1]], "attempt_2": [[1]]}]}))
    assert scoring.main([str(sub), "--tasks", str(unsolved)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "no test outputs to score against" in captured.err


def test_score_warnings_on_stderr_and_the_score_on_stdout(tmp_path, scored_folder, capsys):
    sub = tmp_path / "sub.json"
    sub.write_text(json.dumps({"t1": [{"attempt_1": [[1, 2], [3, 4]], "attempt_2": [[0]]}]}))
    assert scoring.main([str(sub), "--tasks", str(scored_folder)]) == 0
    captured = capsys.readouterr()
    assert "warning: task t2: missing" in captured.err and "warning" not in captured.out
    assert captured.out.startswith("solved 1/2")


# ---------------------------------------------------------------- the progress bar

@pytest.mark.parametrize("solvable_outputs, shown, hidden", [(True, "solved=0", "answered="),
                                                              (False, "answered=1", "solved=")])
def test_the_progress_bar_counts_solved_or_answered(tmp_path, capsys, solvable_outputs, shown, hidden):
    data = task_dict()
    if not solvable_outputs:  # an unscored set: no test outputs, so nothing can count as solved
        data = {"train": data["train"], "test": [{"input": p["input"]} for p in data["test"]]}
    tasks = TaskSet([task_from_json(data, "t1")], "fixture")  # identity answers [[7]]: wrong, but an answer
    bench.run(tasks, tmp_path / "run", "identity", budget_s=5, workers=0, progress=True)
    err = capsys.readouterr().err
    assert shown in err and hidden not in err
