"""A person's results: the server's task routes and submits (HTTP, no browser), and `human-report`."""

from __future__ import annotations

import http.client
import json

import pytest

from shared import human, runs, web
from shared.tasks import NAMED_SETS
from tests.conftest import task_dict

ANSWER = [[1, 2], [3, 4]]  # task_dict()'s every answer


@pytest.fixture
def served(tmp_path, task_folder):
    folder, write = task_folder
    write("t1")
    write("t2", {"train": task_dict()["train"], "test": [{"input": [[1]], "output": ANSWER},
                                                          {"input": [[2]], "output": [[5]]}]})
    out = tmp_path / "served"
    out.mkdir()
    servers = []

    def start():
        srv = web.serve_in_thread(out, tasks=[str(folder)])
        servers.append(srv)
        return srv

    yield out, str(folder), start
    for srv in servers:
        srv.shutdown()
        srv.server_close()


def call(server, method, path, body=None, raw: bytes | None = None):
    conn = http.client.HTTPConnection(*server.server_address[:2], timeout=5)
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    answer = json.loads(response.read())
    conn.close()
    return response.status, answer


def submit(server, set_name, task_id, grid, test=0, **extra):
    return call(server, "POST", "/api/submit", {"set": set_name, "id": task_id, "test": test, "grid": grid,
                                                "seconds": 4.5, "edits": 3, **extra})


def test_the_picker_routes_list_sets_and_send_tasks_without_test_outputs(served):
    out, folder, start = served
    srv = start()
    status, sets = call(srv, "GET", "/api/sets")
    assert status == 200 and sets["sets"] == [*NAMED_SETS, folder] and sets["recording"].endswith("human.jsonl")
    assert call(srv, "GET", f"/api/tasks?set={folder}") == (200, {"set": folder, "ids": ["t1", "t2"]})
    status, task = call(srv, "GET", f"/api/task?set={folder}&id=t2")
    assert status == 200 and all("output" in p for p in task["task"]["train"])
    assert [sorted(p) for p in task["task"]["test"]] == [["input"], ["input"]]
    status, task = call(srv, "GET", "/api/task?set=arc1/eval&id=00576224")
    assert status == 200 and "output" not in json.dumps(task["task"]["test"])
    assert call(srv, "GET", "/api/task?set=nosuch&id=x")[1]["error"].startswith("no task set 'nosuch'")
    assert call(srv, "GET", f"/api/task?set={folder}&id=zz") == (404, {"error": f"task 'zz' is not in {folder}"})
    assert call(srv, "GET", "/api/task?set=arc1/eval")[0] == 400


def test_each_submit_adds_one_line_and_the_file_survives_a_restart(served):
    out, folder, start = served
    srv = start()
    assert submit(srv, folder, "t1", [[0]]) == (200, {"correct": False, "attempt": 1, "recorded": True})
    assert submit(srv, folder, "t1", ANSWER) == (200, {"correct": True, "attempt": 2, "recorded": True})
    assert submit(srv, folder, "t2", ANSWER, test=1)[1] == {"correct": False, "attempt": 1, "recorded": True}
    first = (out / human.HUMAN_FILE).read_text()
    assert len(first.splitlines()) == 3
    srv.shutdown()
    srv.server_close()

    srv = start()  # a new server on the same folder: the file is appended to, attempts go on
    assert submit(srv, folder, "t1", ANSWER)[1]["attempt"] == 3
    text = (out / human.HUMAN_FILE).read_text()
    assert text.startswith(first) and len(text.splitlines()) == 4
    row = json.loads(text.splitlines()[-1])
    assert {k: row[k] for k in ("task_set", "task_id", "test", "n_tests", "attempt", "correct", "seconds", "edits",
                                "checked_by")} == {"task_set": folder, "task_id": "t1", "test": 0, "n_tests": 1,
                                                   "attempt": 3, "correct": True, "seconds": 4.5, "edits": 3,
                                                   "checked_by": "server"}


def test_a_submit_checked_by_the_page_is_kept_apart(served):
    out, folder, start = served
    srv = start()
    body = {"set": "file:mine", "id": "x", "test": 0, "n_tests": 1, "grid": [[1]], "correct": True,
            "seconds": 1, "edits": 1}
    assert call(srv, "POST", "/api/record", body)[1] == {"correct": True, "attempt": 1, "recorded": True}
    status, answer = call(srv, "POST", "/api/record", dict(body, set=folder))  # a served set is checked here only
    assert status == 400 and "use /api/submit" in answer["error"]
    assert json.loads((out / human.HUMAN_FILE).read_text())["checked_by"] == "page"


@pytest.mark.parametrize("body, status, message", [
    ({"grid": [[12]]}, 400, "submit: grid: cell (0,0) has colour 12"),
    ({"grid": [[1, 2], [3]]}, 400, "submit: grid"),
    ({"test": 3}, 400, "has 1 test inputs, not 4"),
    ({"test": "0"}, 400, "'test' must be int"),
    ({"id": "nosuch"}, 404, "task 'nosuch' is not in"),
    ({"set": "arc9/train"}, 404, "no task set 'arc9/train'"),
    ({"seconds": -1}, 400, "seconds and edits must be numbers >= 0"),
])
def test_a_bad_submit_is_refused_and_writes_nothing(served, body, status, message):
    out, folder, start = served
    srv = start()
    got_status, answer = call(srv, "POST", "/api/submit", {"set": folder, "id": "t1", "test": 0, "grid": ANSWER,
                                                           **body})
    assert got_status == status and message in answer["error"]
    assert not (out / human.HUMAN_FILE).exists()


def test_a_body_that_is_not_a_submit_is_refused(served):
    out, folder, start = served
    srv = start()
    assert call(srv, "POST", "/api/submit", raw=b"{not json")[0] == 400
    assert call(srv, "POST", "/api/submit", raw=b"x" * 70000)[0] == 413
    assert call(srv, "POST", "/api/elsewhere", {"a": 1})[0] == 404
    assert not (out / human.HUMAN_FILE).exists()


# ---------------------------------------------------------------- human-report

def write_results(path):
    """Three tasks: one solved at the first try of both tests, one at the third try, one never."""
    def row(task_id, test, attempt, correct, seconds, n_tests=1):
        return {"task_set": "arc1/eval", "task_id": task_id, "test": test, "n_tests": n_tests, "attempt": attempt,
                "correct": correct, "seconds": seconds, "edits": 2, "grid": [[0]], "checked_by": "server"}

    rows = [row("aaa", 0, 1, True, 30.0, 2), row("aaa", 1, 1, False, 40.0, 2), row("aaa", 1, 2, True, 50.0, 2),
            row("bbb", 0, 1, False, 10.0), row("bbb", 0, 2, False, 20.0), row("bbb", 0, 3, True, 90.0),
            row("ccc", 0, 1, False, 5.0)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_human_report_prints_per_task_and_overall_and_plots(tmp_path, capsys):
    path = tmp_path / "human.jsonl"
    write_results(path)
    run = tmp_path / "run"
    run.mkdir()
    (run / runs.RESULTS).write_text("".join(json.dumps({"task_id": t, "solver": "dsl", "status": s}) + "\n"
                                            for t, s in (("aaa", "unsolved"), ("bbb", "solved"), ("zzz", "solved"))))
    assert human.main([str(path), "--run", str(run)]) == 0
    out = capsys.readouterr().out.splitlines()
    by_task = {line.split()[0]: line.split() for line in out if line.startswith("arc1/eval/")}
    assert by_task["arc1/eval/aaa"][1:] == ["2", "3", "1,2", "yes", "yes", "50.0"]
    assert by_task["arc1/eval/bbb"][1:] == ["1", "3", "3", "no", "yes", "90.0"]
    assert by_task["arc1/eval/ccc"][1:] == ["1", "1", "-", "no", "no", "5.0"]
    assert ("tasks tried 3; solved within 2 attempts 1/3 (33.3%), within 3 2/3 (66.7%), at all 2/3 (66.7%); "
            "median time to solve 70.0 s") in out
    assert ("on the 2 tasks the run also holds: person (within 2) 1/2 (50.0%), solver dsl (pass@2) 1/2 (50.0%)"
            in out)
    png = tmp_path / "human.png"
    assert out[-1] == f"plot: {png}" and png.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("content, message", [
    (None, "no such results file"),
    ("", "no submits yet"),
    ('{"task_id": "x", "status": "solved"}\n', "not a results file of the page (line 1"),
    ('{"broken\n{"task_set": "a"}\n', "line 1: not valid JSON"),
])
def test_human_report_refuses_what_it_cannot_read(tmp_path, capsys, content, message):
    path = tmp_path / "human.jsonl"
    if content is not None:
        path.write_text(content)
    assert human.main([str(path)]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""
    assert not (tmp_path / "human.png").exists()


def test_record_submit_counts_attempts_past_a_torn_last_line(tmp_path):
    path = tmp_path / human.HUMAN_FILE
    human.record_submit(path, task_set="s", task_id="t", test=0, n_tests=1, grid=[[1]], correct=False,
                        seconds=1, edits=1, checked_by="server")
    with open(path, "a") as f:
        f.write('{"task_set": "s", "ta')  # a server killed mid-write
    row = human.record_submit(path, task_set="s", task_id="t", test=0, n_tests=1, grid=[[1]], correct=True,
                              seconds=2, edits=1, checked_by="server")
    assert row["attempt"] == 2 and [r["attempt"] for r in runs.read_rows(path)] == [1, 2]
