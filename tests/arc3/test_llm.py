"""The llm agent against a scripted OpenAI-compatible server on loopback (the test starts it)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from shared import runs
from shared.arc3 import GAMES_DIR, harness
from shared.arc3.agents import Observation
from shared.arc3.llm import LLMAgent, parse_reply


@pytest.fixture
def scripted_server():
    """A chat endpoint answering each request with the next reply of `server.replies`."""
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            server.requests.append(body)
            reply = server.replies.pop(0) if server.replies else "RESET"
            data = json.dumps({"choices": [{"message": {"role": "assistant", "content": reply}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    server.requests, server.replies = [], []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_llm_agent_plays_what_the_endpoint_says_and_wins(scripted_server, tmp_path):
    # sw01 is 16x16 cells of 4 display pixels: the walkthrough's display clicks as grid cells, with
    # chatter around them, one reply that names no action, one out of the action space
    clicks = [("8,52", "2 13"), ("28,52", "7 13"), ("8,52", "2 13"), ("48,52", "12 13"),
              ("24,52", "6 13"), ("56,52", "14 13"), ("8,52", "2 13"), ("40,52", "10 13"),
              ("40,52", "10 13"), ("16,52", "4 13"), ("52,52", "13 13"), ("4,52", "1 13"), ("28,52", "7 13")]
    scripted_server.replies = ["I am not sure yet.", "ACTION1"] + [f"Let me try ACTION6 {c}." for _, c in clicks]
    base = f"http://127.0.0.1:{scripted_server.server_port}/v1"
    agent = LLMAgent("scripted-model", base_url=base)
    harness.run_play(GAMES_DIR, agent, tmp_path / "run", agent_name="llm", only=["sw01"], max_actions=40)
    (row,) = runs.read_rows(tmp_path / "run" / "results.jsonl")
    assert row["status"] == "won" and row["levels_completed"] == 3
    assert row["trace"] == {"asked": 15, "unparsed": 2}
    played = [a for a, _ in row["log"]][2:]
    # a grid cell is clicked at its middle: cell (2, 13) -> display (10, 54), on the same switch as (8, 52)
    assert played == [f"A6@{int(c.split()[0]) * 4 + 2},{int(c.split()[1]) * 4 + 2}" for _, c in clicks]
    first = scripted_server.requests[0]
    assert first["model"] == "scripted-model"
    user = first["messages"][1]["content"]
    assert "Frame (16x16 cells" in user and "Available: ACTION6 x y, RESET" in user and "none yet" in user
    assert "55555555" in user  # the background row, one hex digit per cell
    later = scripted_server.requests[4]["messages"][1]["content"]
    assert "A6@30,54 (frame changed)" in later  # the history says what each action did


def test_parse_reply_maps_grid_cells_to_display_cells():
    import numpy as np

    frame = np.repeat(np.repeat(np.arange(256).reshape(16, 16) % 16, 4, axis=0), 4, axis=1)
    obs = Observation("g", [frame], "NOT_FINISHED", 0, 1, [1, 6])
    assert str(parse_reply("ACTION6 (3, 5)", obs)) == "A6@14,22"
    assert str(parse_reply("action1 please", obs)) == "A1"
    assert str(parse_reply("reset", obs)) == "RESET"
    assert parse_reply("ACTION2", obs) is None  # not in the action space
    assert parse_reply("ACTION6 16 0", obs) is None  # off the 16x16 grid
    assert parse_reply("nothing", obs) is None
