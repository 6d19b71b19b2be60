"""The synthesis loop and its backends, against a local server speaking the OpenAI chat protocol."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from shared.agents import synth as synth_cmd
from shared.agents import verify as verify_cmd
from shared.agents.backends import BackendError, OpenAIBackend, TransformersBackend
from shared.programs import read_programs

WRONG = "Let me copy the grid.\n```python\ndef solve(grid):\n    return grid\n```"
RIGHT = "Mirror each row.\n```python\ndef solve(grid):\n    return [row[::-1] for row in grid]\n```"


def flip_task() -> dict:
    return {"train": [{"input": [[1, 2], [3, 4]], "output": [[2, 1], [4, 3]]},
                      {"input": [[5, 0, 0]], "output": [[0, 0, 5]]}],
            "test": [{"input": [[7, 8, 9]], "output": [[9, 8, 7]]}]}


class ChatServer:
    """A canned /v1/chat/completions: a wrong program first, the right one once it sees feedback."""

    def __init__(self, choices_cap: int | None = None, fail_with: int | None = None):
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                if fail_with:
                    self.send_response(fail_with)
                    self.end_headers()
                    self.wfile.write(b'{"error": "model not loaded"}')
                    return
                revised = any("does not solve the examples" in m["content"] for m in body["messages"]
                              if m["role"] == "user")
                n = min(body.get("n", 1), choices_cap or 99)
                reply = {"choices": [{"index": i, "message": {"role": "assistant", "content": RIGHT if revised
                                                              else WRONG}} for i in range(n)]}
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_synth_revises_after_feedback_and_stops_at_the_first_passing_program(task_folder, tmp_path, monkeypatch):
    folder, write = task_folder
    write("flip", flip_task())
    out = tmp_path / "synth"
    with ChatServer() as server:
        monkeypatch.setenv("ARC_LLM_BASE_URL", server.url)
        monkeypatch.setenv("ARC_LLM_API_KEY", "test-key")
        args = ["--tasks", str(folder), "--backend", "openai", "--model", "served-model", "--samples", "2",
                "--rounds", "3", "--out", str(out), "--no-progress"]
        assert synth_cmd.main(args) == 0
        assert len(server.requests) == 2  # the first round fails, the first revision passes: no third
        first, second = (r["body"] for r in server.requests)
        assert server.requests[0]["path"] == "/v1/chat/completions" and server.requests[0]["auth"] == "Bearer test-key"
        assert first["model"] == "served-model" and first["n"] == 2
        asked = second["messages"][-1]["content"]
        assert second["messages"][-2] == {"role": "assistant", "content": WRONG}
        assert "2 of 2 fail." in asked and "Example 1: wrong output. 4 of 4 cells differ" in asked
        assert "Example 2: wrong output. 2 of 3 cells differ" in asked
        assert "9, 8, 7" not in json.dumps(first) and "987" not in json.dumps(first)  # no test output is shown
        assert synth_cmd.main(args) == 0 and len(server.requests) == 2  # a rerun resumes: nothing to do
    record = json.loads((out / "transcripts.jsonl").read_text().splitlines()[0])
    assert record["status"] == "passes_demos" and record["round"] == 1
    assert [s["status"] for s in record["samples"]] == ["wrong", "wrong", "passes_demos", "passes_demos"]
    programs = read_programs(out / "programs.json")
    assert programs[0].code.startswith("def solve(grid):\n    return [row[::-1]")
    run = tmp_path / "verified"
    assert verify_cmd.main(["--tasks", str(folder), "--programs", str(out / "programs.json"), "--out", str(run),
                            "--workers", "1"]) == 0
    assert json.loads((run / "summary.json").read_text())["solved"] == 1


def test_backend_asks_again_when_a_server_ignores_n():
    with ChatServer(choices_cap=1) as server:
        replies = OpenAIBackend("m", base_url=server.url).complete([{"role": "user", "content": "hi"}], 3, 0.5, 64)
        assert replies == [WRONG] * 3 and [r["body"]["n"] for r in server.requests] == [3, 2, 1]


def test_backend_http_error_is_a_backend_error():
    with ChatServer(fail_with=503) as server:
        with pytest.raises(BackendError, match="HTTP 503.*model not loaded"):
            OpenAIBackend("m", base_url=server.url, retry_wait_s=0.0).complete([{"role": "user", "content": "hi"}],
                                                                               1, 0.0, 8)
        assert len(server.requests) == 3  # a busy server is asked twice more before giving up


def test_backend_without_an_endpoint_says_which_variable_to_set(monkeypatch):
    for var in ("ARC_LLM_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(BackendError, match="ARC_LLM_BASE_URL"):
        OpenAIBackend("m")


def test_openai_variables_are_the_fallback(monkeypatch):
    monkeypatch.delenv("ARC_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("ARC_LLM_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", "k2")
    b = OpenAIBackend("m")
    assert (b.base_url, b.api_key) == ("http://127.0.0.1:1/v1", "k2")


def test_unreachable_server_is_recorded_not_raised(task_folder, tmp_path):
    folder, write = task_folder
    write("flip", flip_task())
    with ChatServer() as server:
        url = server.url
    backend = OpenAIBackend("m", base_url=url, timeout_s=2, retry_wait_s=0.0)  # the server is gone
    summary = synth_cmd.run_synth(list(synth_cmd.load(folder)), backend, tmp_path / "s", 1, 1, 0.0, 16,
                                  progress=False)
    record = json.loads((tmp_path / "s" / "transcripts.jsonl").read_text())
    assert summary["statuses"] == {"skipped": 1} and record["error"]


def test_transformers_backend_samples_n_replies_from_the_tiny_model():
    backend = TransformersBackend("tiny", device="cpu")
    replies = backend.complete([{"role": "user", "content": "Write solve(grid)."}], 2, 0.8, 8)
    assert len(replies) == 2 and all(isinstance(r, str) for r in replies)
    greedy = backend.complete([{"role": "user", "content": "Write solve(grid)."}], 2, 0.0, 8)
    assert greedy[0] == greedy[1]
