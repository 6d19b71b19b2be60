"""A scripted OpenAI-compatible chat server on loopback, for tests and notebook 08's offline run.

`serve(script, tasks)` starts it in a thread and returns the running `ScriptedServer`: its
`url` is the base URL for the `openai` backend, `requests` every request it received (path,
headers, parsed body, the task it matched). It answers POST /v1/chat/completions only.
A script maps a task id to that task's replies, used in order as requests come (one per
choice; past the end, the last repeats); the server tells tasks apart by their demo pairs
and test inputs in the prompt (`synth.task_blocks`). A list instead of a dict is one queue for every request.
An entry is a reply's text, or a `Fault` that answers the whole request: an HTTP status, a
delay, or a body that is not JSON. Usage is reported as characters / 4 tokens.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from shared.agents import examples
from shared.agents.backends import CHARS_PER_TOKEN
from shared.agents.synth import task_blocks
from shared.tasks import Task, load

NO_CODE = "I am not sure what the rule is."  # the reply once a task's script is spent with nothing to repeat


@dataclass(frozen=True)
class Fault:
    """A scripted misbehaviour for one request: wait `delay_s`, then answer with HTTP `status`,
    or with `body` (raw bytes, e.g. not JSON), or with `reply` as every choice."""

    status: int = 200
    delay_s: float = 0.0
    body: bytes | None = None
    reply: str = NO_CODE


class ScriptedServer:
    """The server; a context manager (`with serve(...) as server:`), or call `close()`."""

    def __init__(self, script: dict[str, list] | list, tasks: list[Task] = (), model: str = "scripted"):
        self.queues = {k: list(v) for k, v in script.items()} if isinstance(script, dict) else {"*": list(script)}
        self.last: dict[str, str | Fault] = {}
        self.fingerprints = {t.id: task_blocks(t) for t in tasks if t.id in self.queues}
        self.model = model
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="scripted-llm", daemon=True)

    def start(self) -> ScriptedServer:
        self.thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self if self.thread.is_alive() else self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def task_of(self, body: dict) -> str:
        """The scripted task whose demos and test inputs the request's user messages show ("*"
        for a list script; "" for none)."""
        if "*" in self.queues:
            return "*"
        text = "\n".join(m.get("content") or "" for m in body.get("messages", []) if isinstance(m, dict)
                         and m.get("role") == "user" and isinstance(m.get("content"), str))
        for task_id, blocks in self.fingerprints.items():
            if all(b in text for b in blocks):
                return task_id
        return ""

    def take(self, task_id: str, n: int) -> Fault | list[str]:
        """The next entries of a task's queue: a Fault alone, or n replies (fewer when a Fault
        comes next: the client asks again for the rest and meets it); a spent queue repeats its last."""
        with self.lock:
            queue = self.queues.get(task_id, [])
            if queue and isinstance(queue[0], Fault):
                return queue.pop(0)
            replies = []
            while queue and len(replies) < n and not isinstance(queue[0], Fault):
                replies.append(queue.pop(0))
            if replies:
                self.last[task_id] = replies[-1]
            if not queue:
                replies += [self.last.get(task_id, NO_CODE)] * (n - len(replies))
            return replies


def _handler(server: ScriptedServer):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw)
            except json.JSONDecodeError:
                body = None
            record = {"path": self.path, "auth": self.headers.get("Authorization"), "raw": raw.decode(errors="replace"),
                      "body": body, "task_id": None}
            server.requests.append(record)
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self.answer(404, {"error": f"no route {self.path}"})
            if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
                return self.answer(400, {"error": "expected a JSON object with messages"})
            record["task_id"] = task_id = server.task_of(body)
            got = server.take(task_id, max(1, int(body.get("n") or 1)))
            if isinstance(got, Fault):
                time.sleep(got.delay_s)
                if got.status != 200:
                    return self.answer(got.status, {"error": f"scripted HTTP {got.status}"})
                if got.body is not None:
                    return self.send(200, got.body)
                got = [got.reply] * max(1, int(body.get("n") or 1))
            prompt = sum(len(m.get("content") or "") for m in body["messages"] if isinstance(m, dict))
            completion = sum(len(r) for r in got)
            usage = {"prompt_tokens": prompt // CHARS_PER_TOKEN, "completion_tokens": completion // CHARS_PER_TOKEN}
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
            self.answer(200, {"object": "chat.completion", "model": body.get("model", server.model), "usage": usage,
                              "choices": [{"index": i, "finish_reason": "stop",
                                           "message": {"role": "assistant", "content": r}} for i, r in enumerate(got)]})

        def answer(self, status: int, data: dict) -> None:
            self.send(status, json.dumps(data).encode())

        def send(self, status: int, data: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout ran out while a Fault slept): nothing to answer

        def log_message(self, *args):
            pass

    return Handler


def serve(script: dict[str, list] | list, tasks: list[Task] = (), model: str = "scripted") -> ScriptedServer:
    """Start a scripted server on a free loopback port; returns it, running (`.url`, `.close()`)."""
    return ScriptedServer(script, tasks, model).start()


def fenced(code: str, note: str = "Here is my program.") -> str:
    """A reply as a model writes one: a sentence, then the program in a python block."""
    return f"{note}\n```python\n{code.rstrip()}\n```"


COPY = "def solve(grid):\n    return grid\n"
# the arc1/train tasks of `shared.agents.examples` and the program the script ends with for each
SCRIPTED_TASKS = {"3c9b0459": examples.ROT180, "67a3c6ac": examples.FLIP_LR, "68b16354": examples.FLIP_UD,
                  "74dd1130": examples.TRANSPOSE, "6150a2bd": examples.ROT180,
                  "ed36ccf7": examples.FLIP_UD}  # wrong: this task's rule is another, so it stays unsolved


def demo_script() -> dict[str, list]:
    """Notebook 08's script for its arc1/train example tasks (`SCRIPTED_TASKS`): per task, a
    copy of the input and a program that reads the answer key from disk (the sandbox refuses
    it); after feedback, the program of `shared.agents.examples` (right but for ed36ccf7)."""
    return {task_id: [fenced(COPY, "The output looks like the input."),
                      fenced(examples.PEEK, "The answers must be somewhere on disk."),
                      fenced(code, "The feedback shows the grid must be transformed.")]
            for task_id, code in SCRIPTED_TASKS.items()}


def demo_tasks() -> list[Task]:
    """The arc1/train tasks `demo_script` answers for, in id order."""
    by_id = load("arc1/train").by_id()
    return [by_id[i] for i in sorted(SCRIPTED_TASKS)]
