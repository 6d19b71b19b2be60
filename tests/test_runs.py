"""The run folder's format: one reader (a torn last line dropped, a bad line elsewhere refused),
one row schema for the runner and the verifier, appending that resumes, the closing line."""

from __future__ import annotations

import json

import pytest

from shared import bench, runs
from shared.agents import verify
from shared.interpret import errors
from shared.report import error_kinds
from shared.tasks import load, task_from_json

from .conftest import task_dict

ROW_A, ROW_B = {"task_id": "a", "status": "solved"}, {"task_id": "b", "status": "unsolved"}


def lines(*rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def test_a_torn_last_line_is_dropped(tmp_path):
    path = tmp_path / runs.RESULTS
    path.write_text(lines(ROW_A) + '{"task_id": "b", "sta')  # killed mid-write
    assert runs.read_rows(path) == [ROW_A]
    path.write_text(lines(ROW_A) + '{"task_id": "b", "sta\n\n')  # blank lines after it change nothing
    assert runs.read_results(tmp_path) == [ROW_A]


def test_a_bad_line_before_the_last_is_refused_naming_file_and_line(tmp_path):
    path = tmp_path / runs.RESULTS
    path.write_text(lines(ROW_A) + "\n" + '{"task_id": "b", "sta\n' + lines(ROW_B))
    with pytest.raises(runs.RunFileError, match=rf"{path}: line 3: not valid JSON"):
        runs.read_rows(path)
    path.write_text(lines(ROW_A, [1, 2], ROW_B))
    with pytest.raises(runs.RunFileError, match=r"line 2: expected a JSON object, got list"):
        runs.read_rows(path)
    path.write_text(lines(ROW_A, "done"))  # whole and still not a row, even last
    with pytest.raises(ValueError, match=r"line 2: expected a JSON object, got str"):
        runs.read_rows(path)


def test_no_file_is_no_rows(tmp_path):
    assert runs.read_rows(tmp_path / "missing.jsonl") == [] and runs.read_results(tmp_path) == []


def test_append_then_resume_after_a_kill(tmp_path):
    path = tmp_path / "log.jsonl"
    runs.append(path, ROW_A)
    with open(path, "a") as f:
        runs.append(f, ROW_B)
        f.write('{"task_id": "c"')  # the kill
    runs.drop_torn_tail(path)
    assert path.read_text() == lines(ROW_A, ROW_B).replace(": ", ":").replace(", ", ",")
    runs.append(path, {"task_id": "c"})
    assert [r["task_id"] for r in runs.read_rows(path)] == ["a", "b", "c"]
    runs.drop_torn_tail(tmp_path / "none.jsonl")  # nothing to cut, nothing made
    assert not (tmp_path / "none.jsonl").exists()


def test_bench_and_verify_rows_have_the_same_fields(task_folder, tmp_path):
    folder, write = task_folder
    write("t1")
    bench.run(load(folder), tmp_path / "run", "identity", workers=0, progress=False)
    (ran,) = runs.read_results(tmp_path / "run")
    task = load(folder)[0]
    checked = verify.task_row(task, [], [])
    assert list(checked) == list(ran)
    assert checked["task"] == ran["task"] and checked["expected"] == ran["expected"] == [[[1, 2], [3, 4]]]
    assert ran["status"] == "unsolved" and ran["correct"] == [False] and ran["worker"] == 0
    assert checked["status"] == "no_program" and checked["worker"] is None and checked["peak_rss_mb"] is None
    assert "output" not in json.dumps(ran["task"]["test"])  # the answers live in "expected" only


def test_the_row_builder_judges_attempts_only_when_asked():
    task = task_from_json(task_dict(), "t")
    block = [[1, 2], [3, 4]]
    assert runs.result_row(task, "s", None, [[[[9]], block]])["status"] == "solved"  # second attempt
    assert runs.result_row(task, "s", None, [[[[9]]]])["correct"] == [False]
    failed = runs.result_row(task, "s", "timeout", None, error="over budget")
    assert failed["correct"] is None and failed["attempts"] == [[]] and failed["error"] == "over budget"
    unscored = task_from_json({"train": task_dict()["train"], "test": [{"input": [[7]]}]}, "u")
    row = runs.result_row(unscored, "s", None, [[block]])
    assert row["status"] == "unscored" and row["correct"] is None and row["expected"] is None


def test_closing_lines():
    summary = {"n_tasks": 8, "solved": 3, "passes_demos": 5, "wall_s": 12.34}
    assert runs.closing_line(summary) == "solved 3/8 tasks (37.5%) in 12.3 s"
    assert (runs.closing_line(summary, "passes_demos", note="4/6 replies held a program")
            == "passes every demo on 5/8 tasks (62.5%) in 12.3 s (4/6 replies held a program)")
    assert runs.closing_line({"n_tasks": 0, "solved": 0, "wall_s": 0}) == "solved 0/0 tasks (0.0%) in 0.0 s"
    with pytest.raises(ValueError, match="not 'wrong'"):
        runs.closing_line(summary, "wrong")


def test_report_and_interpret_count_the_same_outcomes():
    exp = [[1, 2], [2, 1]]
    rows = [{"status": "unsolved", "expected": [exp, exp, exp], "trace": {"parsed": [[True], [True], [False]]},
             "attempts": [[[[1, 2]]], [[[1, 3], [2, 1]]], []], "task": {"test": [{}, {}, {}]}},
            {"status": "timeout", "expected": [exp], "attempts": [[]], "trace": {}, "task": {"test": [{}]}},
            {"status": "unscored", "expected": None, "attempts": [[exp]], "trace": {}, "task": {"test": [{}]}}]
    assert runs.outcomes_per_test(rows[0], colours=True) == ["wrong size", "wrong colours", "unparseable"]
    assert error_kinds(rows) == {"wrong size": 1, "wrong cells": 1, "unparseable": 1, "timeout": 1}
    assert errors.error_taxonomy(rows) == {"size": 1, "colours": 1, "unparseable": 1, "error": 1}
