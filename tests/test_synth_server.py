"""The synthesis loop against a real HTTP server: `shared.agents.scripted` on loopback, answering
with scripted programs (right, wrong, malformed, slow, hostile) and faults. Every request body is
inspected: no test output of any task is ever sent to the model."""

from __future__ import annotations

import json

import pytest

from shared.agents import scripted
from shared.agents import synth as synth_cmd
from shared.agents import verify as verify_cmd
from shared.agents.backends import BackendError, OpenAIBackend
from shared.agents.evolve import evolve_task
from shared.agents.scripted import Fault, fenced
from shared.agents.synth import Budget, Library, run_synth
from shared.formats import grid_to_text
from shared.sandbox import SandboxPool
from shared.tasks import load

FLIP = "def solve(grid):\n    return [row[::-1] for row in grid]\n"
UPDOWN = "def solve(grid):\n    return grid[::-1]\n"
COPY = "def solve(grid):\n    return grid\n"
FLIP2 = "def solve(grid):\n    return [list(reversed(row)) for row in grid]\n"
HALF = "def solve(grid):\n    return [row[::-1] for row in grid] if len(grid) == 1 else grid\n"  # 3 of 7 cells
HALF_UD = "def solve(grid):\n    return grid[::-1] if len(grid) == 2 else grid\n"  # updown's demo 1 only
ZEROS = "def solve(grid):\n    return [[0] * len(row) for row in grid]\n"                        # 2 of 7 cells
LOOP = "def solve(grid):\n    while True:\n        pass\n"
PROSE = "I think the rule is to mirror the grid, but I am not sure how to write it."


def reads(path) -> str:
    """A program that reads the task file (with its test outputs) instead of computing."""
    return f"import json\n\n\ndef solve(grid):\n    return json.load(open({str(path)!r}))['test'][0]['output']\n"


def calls_home(url: str) -> str:
    """A program that asks the model server itself for the answer."""
    host, port = url.split("//")[1].split("/")[0].split(":")
    return (f"import socket\n\n\ndef solve(grid):\n    s = socket.create_connection(({host!r}, {port}))\n"
            "    s.sendall(b'POST /v1/chat/completions HTTP/1.0\\r\\n\\r\\n')\n    return grid\n")


KILLS_PARENT = "import os, signal\n\n\ndef solve(grid):\n    os.kill(os.getppid(), signal.SIGKILL)\n    return grid\n"


def mirror_task(test_input) -> dict:
    """Mirror left-right: demos of 2 rows and 1 row (3 of 7 demo cells for HALF, 2 for ZEROS)."""
    return {"train": [{"input": [[1, 2], [3, 4]], "output": [[2, 1], [4, 3]]},
                      {"input": [[5, 0, 0]], "output": [[0, 0, 5]]}],
            "test": [{"input": test_input, "output": [row[::-1] for row in test_input]}]}


def updown_task() -> dict:
    return {"train": [{"input": [[1, 1], [2, 2]], "output": [[2, 2], [1, 1]]},
                      {"input": [[3], [0], [0]], "output": [[0], [0], [3]]}],
            "test": [{"input": [[4, 6, 8], [7, 7, 1]], "output": [[7, 7, 1], [4, 6, 8]]}]}


@pytest.fixture
def task_set(task_folder):
    """Four tasks whose test outputs appear nowhere in their demos or test inputs."""
    folder, write = task_folder
    write("flip", mirror_task([[7, 8, 9], [6, 6, 1]]))
    write("flip2", mirror_task([[3, 9, 4], [8, 2, 2]]))
    write("updown", updown_task())
    write("hostile", mirror_task([[9, 5], [1, 3]]))
    return folder


def output_forms(tasks) -> list[str]:
    """Every way a test output grid could appear in a request: as the prompt's digit rows, as
    JSON lists (spaced or not)."""
    forms = []
    for t in tasks:
        for p in t.test:
            forms += [grid_to_text(p.output), json.dumps(p.output.tolist()),
                      json.dumps(p.output.tolist(), separators=(",", ":"))]
    return forms


def leaks(requests: list[dict], tasks) -> list[str]:
    """The test output forms found in any request (in its raw bytes or its messages' text)."""
    forms = output_forms(tasks)
    found = []
    for r in requests:
        texts = [r["raw"]] + [m.get("content") or "" for m in (r["body"] or {}).get("messages", [])]
        found += [f for f in forms for text in texts if f in text]
    return found


def test_the_leak_detector_finds_a_test_output_in_a_body(task_set):
    tasks = list(load(task_set))
    shown = synth_cmd.task_prompt(tasks[0]) + "\n\n" + grid_to_text(tasks[0].test[0].output)
    assert leaks([{"raw": "", "body": {"messages": [{"role": "user", "content": shown}]}}], tasks)
    assert not leaks([{"raw": "", "body": {"messages": [{"role": "user",
                                                         "content": synth_cmd.task_prompt(tasks[0])}]}}], tasks)


def backend_for(server, timeout_s: float = 10.0, retries: int = 2) -> OpenAIBackend:
    return OpenAIBackend("served-model", base_url=server.url, api_key="k", timeout_s=timeout_s, retries=retries,
                         retry_wait_s=0.0)


def test_the_whole_loop_against_a_scripted_server(task_set, tmp_path):
    tasks = list(load(task_set))
    script = {
        "flip": [fenced(COPY), PROSE, fenced(FLIP), fenced(FLIP)],           # wrong and no code, then right
        "flip2": [Fault(status=503), fenced(FLIP)],                          # busy once: retried
        "updown": [Fault(delay_s=1.5, reply=fenced(UPDOWN)), fenced(COPY), fenced(COPY), fenced(HALF_UD)],  # slow
        "hostile": [fenced(reads(task_set / "hostile.json")), "```python\ndef solve(grid:\n```",  # malformed
                    fenced(KILLS_PARENT)],
    }
    out = tmp_path / "synth"
    with scripted.serve(script, tasks) as server:
        backend = backend_for(server, timeout_s=0.5)
        summary = run_synth(tasks, backend, out, samples=2, rounds=2, temperature=0.7, max_new_tokens=256,
                            time_limit_s=1.0, progress=False, examples=0)
        requests = list(server.requests)
    records = {r["task_id"]: r for r in synth_cmd.read_transcripts(out)}
    assert not leaks(requests, tasks), "a test output reached the model"
    assert all(r["path"] == "/v1/chat/completions" and r["auth"] == "Bearer k" for r in requests)
    # flip: round 0 (a wrong program, prose) -> feedback on the copy -> round 1 passes, no round 2
    flip = records["flip"]
    assert flip["status"] == "passes_demos" and flip["round"] == 1 and flip["stopped"] == "passes_demos"
    assert [s.get("status") for s in flip["samples"]] == ["wrong", None, "passes_demos", "passes_demos"]
    revision = [r["body"] for r in requests if r["task_id"] == "flip"][1]["messages"]
    assert revision[-2]["content"] == fenced(COPY)
    assert "Example 1: wrong output. 4 of 4 cells differ" in revision[-1]["content"]
    assert "Example 2: wrong output. 2 of 3 cells differ" in revision[-1]["content"]
    # flip2: an HTTP 503 is retried and the retry answers
    assert records["flip2"]["status"] == "passes_demos" and records["flip2"]["calls"] == 1
    # updown: the slow reply times out, the retry gets the next programs; never solved in 3 rounds
    up = records["updown"]
    assert up["status"] == "partial" and up["rounds_used"] == 2 and up["stopped"] == "rounds" and up["calls"] == 3
    assert summary["retries"] == 2
    # hostile: the sandbox refuses the read and the kill; a syntax error is an error; this process lives
    bad = records["hostile"]["samples"]
    assert [s.get("status") for s in bad[:4]] == ["error", "error", "error", "error"]
    assert "open" in bad[0]["detail"] and "os.kill" in bad[2]["detail"] and "SyntaxError" in bad[1]["detail"]
    assert records["hostile"]["status"] == "error"
    assert summary["statuses"] == {"passes_demos": 2, "partial": 1, "error": 1}
    assert summary["calls"] == sum(r["calls"] for r in records.values()) == 2 + 1 + 3 + 3
    assert summary["tokens"] > 0
    # the programs verify on the test outputs: the orchestrator's step, after the loop
    run = tmp_path / "verified"
    assert verify_cmd.main(["--tasks", str(task_set), "--programs", str(out / "programs.json"), "--out", str(run),
                            "--workers", "1"]) == 0
    verified = json.loads((run / "summary.json").read_text())
    assert verified["solved"] == 2 and verified["statuses"]["solved"] == 2 and (run / "report.html").exists()


def test_a_program_that_calls_the_server_gets_no_connection(task_set, tmp_path):
    tasks = [t for t in load(task_set) if t.id == "hostile"]
    with scripted.serve({"hostile": []}, tasks) as server:
        server.queues["hostile"] = [fenced(calls_home(server.url))]
        run_synth(tasks, backend_for(server), tmp_path / "s", samples=1, rounds=0, temperature=0.0,
                  max_new_tokens=64, progress=False)
        assert len(server.requests) == 1 and server.requests[0]["body"]["model"] == "served-model"
    record = synth_cmd.read_transcripts(tmp_path / "s")[0]
    assert record["samples"][0]["status"] == "error" and "socket" in record["samples"][0]["detail"]


def test_an_endless_program_times_out_and_the_next_task_still_runs(task_set, tmp_path):
    tasks = [t for t in load(task_set) if t.id in ("flip", "updown")]
    with scripted.serve({"flip": [fenced(LOOP)], "updown": [fenced(UPDOWN)]}, tasks) as server:
        summary = run_synth(tasks, backend_for(server), tmp_path / "s", samples=1, rounds=0, temperature=0.0,
                            max_new_tokens=64, time_limit_s=0.5, progress=False)
    assert summary["statuses"] == {"timeout": 1, "passes_demos": 1}


def test_budget_stops_a_task_by_calls_and_by_tokens(task_set, tmp_path):
    tasks = [t for t in load(task_set) if t.id == "flip"]
    with scripted.serve({"flip": [fenced(COPY)]}, tasks) as server:
        by_calls = run_synth(tasks, backend_for(server), tmp_path / "calls", samples=2, rounds=5, temperature=0.7,
                             max_new_tokens=64, progress=False, budget=Budget(calls=2))
        assert len(server.requests) == 2
        by_tokens = run_synth(tasks, backend_for(server), tmp_path / "tokens", samples=2, rounds=5,
                              temperature=0.7, max_new_tokens=64, progress=False, budget=Budget(tokens=1))
        assert len(server.requests) == 3  # the first request spends the budget: checked before each one
        evolved = run_synth(tasks, backend_for(server), tmp_path / "evolve", samples=2, rounds=5, temperature=0.7,
                            max_new_tokens=64, progress=False, budget=Budget(calls=3), strategy="evolve",
                            survivors=1)
        assert len(server.requests) == 6
    assert by_calls["stopped"] == by_tokens["stopped"] == evolved["stopped"] == {"budget": 1}
    assert (by_calls["calls"], by_tokens["calls"], evolved["calls"]) == (2, 1, 3)
    assert by_calls["budget"] == {"calls": 2, "tokens": None}


def test_http_errors_retry_only_when_transient():
    with scripted.serve([Fault(status=400), Fault(status=503), Fault(status=503), Fault(status=503),
                         Fault(body=b"<html>bad gateway</html>"), Fault(body=b'{"choices": []}'),
                         "fine"]) as server:
        backend = backend_for(server, retries=2)
        with pytest.raises(BackendError, match="HTTP 400"):
            backend.complete([{"role": "user", "content": "hi"}], 1, 0.0, 8)
        assert backend.usage.posts == 1 and backend.usage.retries == 0  # a bad request is not asked again
        with pytest.raises(BackendError, match=r"HTTP 503.*after 3 attempts"):
            backend.complete([{"role": "user", "content": "hi"}], 1, 0.0, 8)
        assert backend.usage.posts == 4 and backend.usage.retries == 2
        with pytest.raises(BackendError, match="no text choices"):  # not JSON (retried), then no choices
            backend.complete([{"role": "user", "content": "hi"}], 1, 0.0, 8)
        assert backend.complete([{"role": "user", "content": "hi"}], 1, 0.0, 8) == ["fine"]
        assert backend.usage.requests == 1 and len(server.requests) == 7


def test_a_backend_error_on_the_first_request_skips_the_task(task_set, tmp_path):
    tasks = [t for t in load(task_set) if t.id == "flip"]
    with scripted.serve({"flip": [Fault(status=401)]}, tasks) as server:
        summary = run_synth(tasks, backend_for(server), tmp_path / "s", samples=1, rounds=3, temperature=0.0,
                            max_new_tokens=64, progress=False)
    record = synth_cmd.read_transcripts(tmp_path / "s")[0]
    assert summary["statuses"] == {"skipped": 1} and "HTTP 401" in record["error"]
    assert record["stopped"] == "backend_error"


def test_evolve_keeps_the_best_scoring_program_and_feeds_back_its_failures(task_set, tmp_path):
    task = next(t for t in load(task_set) if t.id == "flip")
    script = {"flip": [fenced(COPY), fenced(HALF), fenced(ZEROS), fenced(COPY), fenced(FLIP), fenced(ZEROS)]}
    with scripted.serve(script, [task]) as server, SandboxPool(workers=1) as pool:
        record = evolve_task(task, backend_for(server), pool, population=3, generations=3, temperature=0.8,
                             max_new_tokens=256, survivors=1)
        bodies = [r["body"] for r in server.requests]
    assert [s["score"] for s in record["samples"]] == [round(1 / 7, 4), round(3 / 7, 4), round(2 / 7, 4),
                                                       round(1 / 7, 4), 1.0, round(2 / 7, 4)]
    assert len(bodies) == 2 and bodies[0]["n"] == 3 and bodies[1]["n"] == 3
    # the survivor is HALF (3 of 7 cells), fed back with its score and its failing pair
    assert bodies[1]["messages"][-2]["content"] == fenced(HALF)
    assert "3 of 7 example cells right" in bodies[1]["messages"][-1]["content"]
    assert "Example 1: wrong output" in bodies[1]["messages"][-1]["content"]
    assert all(s["parent"] == 1 for s in record["samples"][3:])
    assert record["status"] == "passes_demos" and record["round"] == 1 and record["stopped"] == "passes_demos"
    assert record["best_by_generation"] == [round(3 / 7, 4), 1.0]
    assert record["messages"][-1]["content"] == fenced(FLIP)


def test_the_library_offers_accepted_programs_of_other_tasks(task_set, tmp_path):
    tasks = [t for t in load(task_set) if t.id in ("flip", "flip2", "updown")]
    seeded = Library([{"task_id": "updown", "code": "# updown's own program\n"},
                      {"task_id": "elsewhere", "code": "# an older program\n"}])
    script = {"flip": [fenced(FLIP)], "flip2": [fenced(FLIP2)], "updown": [fenced(UPDOWN)]}
    with scripted.serve(script, tasks) as server:
        summary = run_synth(tasks, backend_for(server), tmp_path / "s", samples=1, rounds=0, temperature=0.0,
                            max_new_tokens=64, progress=False, strategy="evolve", library=seeded, examples=2)
        prompts = {r["task_id"]: r["body"]["messages"][1]["content"] for r in server.requests}
    assert "# an older program" in prompts["flip"] and "# updown's own program" in prompts["flip"]
    assert "# updown's own program" not in prompts["updown"]  # never a task's own program
    assert FLIP2.rstrip() in prompts["updown"] and "# an older program" not in prompts["updown"]  # the 2 newest
    assert summary["passes_demos"] == 3 and summary["library"] == 5
    assert [r["examples"] for r in synth_cmd.read_transcripts(tmp_path / "s")] == [
        ["updown", "elsewhere"], ["elsewhere", "flip"], ["flip", "flip2"]]


def test_the_agents_flow_curate_synth_per_chunk_verify_curated(task_set, tmp_path, capsys):
    """Two agents (sample and evolve) each work on their own chunk, answering into the curated
    folder; a third run covers every task; the orchestrator verifies and unions them all."""
    from shared.agents import curate as curate_cmd

    cur = tmp_path / "curated"
    assert curate_cmd.main(["--tasks", str(task_set), "--agents", "2", "--out", str(cur)]) == 0
    all_tasks = list(load(task_set))
    script = {"flip": [fenced(FLIP)], "flip2": [fenced(COPY)], "updown": [fenced(UPDOWN)],
              "hostile": [fenced(reads(task_set / "hostile.json"))]}
    with scripted.serve(script, all_tasks) as server:
        for i, strategy in ((1, "sample"), (2, "evolve")):
            assert synth_cmd.main(["--curated", str(cur), "--ids",
                                   ",".join(json.loads((cur / "manifest.json").read_text())["chunks"]
                                            [f"tasks_{i:02d}.json"]["task_ids"]),
                                   "--backend", "openai", "--base-url", server.url, "--model", "m",
                                   "--strategy", strategy, "--samples", "1", "--rounds", "0",
                                   "--answers", str(cur / f"programs_{i:02d}.json"),
                                   "--out", str(tmp_path / f"agent_{i}"), "--no-progress"]) == 0
        requests = list(server.requests)
    with scripted.serve({"flip2": [fenced(FLIP)]}, all_tasks) as server:
        assert synth_cmd.main(["--curated", str(cur), "--backend", "openai", "--base-url", server.url,
                               "--samples", "1", "--rounds", "0", "--out", str(tmp_path / "agent_3"),
                               "--no-progress"]) == 0
        requests += server.requests
    assert not leaks(requests, all_tasks)
    capsys.readouterr()
    run = tmp_path / "verified"
    assert verify_cmd.main(["--curated", str(cur), "--programs", str(tmp_path / "agent_3" / "programs.json"),
                            "--out", str(run), "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    assert "answers returned: 2 of 2 files" in printed and "solved 3/4 tasks" in printed
    rows = {r["task_id"]: r for r in (json.loads(line) for line in (run / "results.jsonl").read_text().splitlines())}
    assert rows["flip2"]["status"] == "solved" and set(rows["flip2"]["trace"]["agents"].values()) == {"wrong",
                                                                                                      "solved"}
    assert rows["hostile"]["status"] == "error"
    manifest = json.loads((cur / "manifest.json").read_text())
    assert set(manifest["returned"]) == {"programs_01.json", "programs_02.json"}
    assert all(r["returned"] and r["size"] > 0 and r["mtime"].endswith("Z") for r in manifest["returned"].values())
    assert sum(r["programs"] for r in manifest["returned"].values()) == 4


def test_the_command_line_takes_the_budget_and_the_strategy(task_set, tmp_path, capsys):
    tasks = list(load(task_set))
    with scripted.serve({"updown": [fenced(COPY)]}, tasks) as server:
        assert synth_cmd.main(["--tasks", str(task_set), "--ids", "updown", "--backend", "openai",
                               "--base-url", server.url, "--strategy", "evolve", "--population", "3",
                               "--generations", "4", "--max-calls", "2", "--out", str(tmp_path / "s"),
                               "--no-progress"]) == 0
        # every program is the same copy: one distinct survivor, which gets all 3 children
        assert [r["body"]["n"] for r in server.requests] == [3, 3]
    summary = json.loads((tmp_path / "s" / "synth_summary.json").read_text())
    assert summary["strategy"] == "evolve" and summary["samples"] == 3 and summary["stopped"] == {"budget": 1}
    assert "stopped: {'budget': 1}; 2 requests" in capsys.readouterr().out


def test_the_notebook_script_ends_with_a_program_that_passes_the_demos(tmp_path):
    from shared.sandbox import task_job

    tasks = scripted.demo_tasks()
    script = scripted.demo_script()
    with SandboxPool(workers=1) as pool:
        verdicts = pool.run_many([task_job(synth_cmd.extract_code(script[t.id][-1]), t, test_outputs=False)
                                  for t in tasks])
    passing = {t.id for t, v in zip(tasks, verdicts, strict=True) if v.outcomes and all(
        o.status == "ok" for o in v.outcomes[:len(t.train)])}
    assert passing == set(scripted.SCRIPTED_TASKS) - {"ed36ccf7"}
