"""The page's JSON routes: the task picker's sets, one task without its test outputs, submits, and
the games of a play run (`python -m shared play`) for the replay view.

GET  /api/sets                 the installed sets and those `serve --tasks` named, and where submits go
GET  /api/tasks?set=S          the task ids of set S, sorted
GET  /api/task?set=S&id=T      task T of S with test outputs removed: the page never holds an answer
POST /api/submit               {set, id, test, grid, seconds, edits}: checked here against the
                               expected output, appended to the served folder's human.jsonl
POST /api/record               {set, id, test, n_tests, grid, correct, seconds, edits}: a submit the
                               page checked itself (a task file the person picked), appended the same way
GET  /api/play/games           a served play run's games (no logs) and summary; 404 when it is not one
GET  /api/play/game?id=G       game G's row (every action and the hash it led to) and its frames
                               {hash: 64x64 colours 0-15}, with the palette to draw them in
Each answer is (status, JSON object); a refused request says why in {"error": ...}.
"""

from __future__ import annotations

import json
import threading
from http import HTTPStatus
from pathlib import Path

from shared import human, runs
from shared.play_frames import palette_hex, read_frames
from shared.tasks import NAMED_SETS, Task, TaskError, as_grid, load, strip_test_outputs

MAX_BODY = 64 * 1024  # a 30x30 grid as JSON is under 3 KB; anything far larger is not a submit


class ApiError(Exception):
    def __init__(self, status: HTTPStatus, message: str):
        super().__init__(message)
        self.status = status


class TaskCatalog:
    """The task sets the picker offers, each loaded when first asked for and kept."""

    def __init__(self, extra: list[str] | None = None, solutions: str | None = None):
        self.names = list(NAMED_SETS) + [s for s in extra or [] if s not in NAMED_SETS]
        self.solutions = solutions  # for the one extra set, a Kaggle challenges file
        self._sets: dict[str, dict[str, Task]] = {}
        self.skipped: dict[str, list[str]] = {}  # per set read, the tasks left out and why
        self._lock = threading.Lock()

    def tasks(self, name: str) -> dict[str, Task]:
        if name not in self.names:
            raise ApiError(HTTPStatus.NOT_FOUND, f"no task set {name!r} here; sets: {', '.join(self.names)}")
        with self._lock:
            if name not in self._sets:
                sols = self.solutions if name not in NAMED_SETS else None
                try:
                    ts = load(name, solutions=sols, lenient=True)  # one bad task does not hide the rest
                except TaskError as e:
                    raise ApiError(HTTPStatus.UNPROCESSABLE_ENTITY, str(e)) from None
                if not len(ts):
                    raise ApiError(HTTPStatus.UNPROCESSABLE_ENTITY,
                                   f"{name}: no task in it could be read; first problem: {ts.skipped[0]}")
                self._sets[name], self.skipped[name] = ts.by_id(), ts.skipped
            return self._sets[name]

    def task(self, name: str, task_id: str) -> Task:
        tasks = self.tasks(name)
        if task_id not in tasks:
            raise ApiError(HTTPStatus.NOT_FOUND, f"task {task_id!r} is not in {name}")
        return tasks[task_id]


def _field(body: dict, key: str, kind: type):
    value = body.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ApiError(HTTPStatus.BAD_REQUEST, f"submit: {key!r} must be {kind.__name__}, got {value!r}")
    return value


def _grid(body: dict) -> list:
    try:
        return as_grid(body.get("grid"), "submit: grid").tolist()
    except TaskError as e:
        raise ApiError(HTTPStatus.BAD_REQUEST, str(e)) from None


# what a row of the play harness has and a row of `solve` has not
PLAY_FIELDS = ("game_id", "log", "start_hash", "levels_completed")
GAME_SUMMARY = ("game_id", "title", "agent", "status", "state", "stop", "levels_completed", "win_levels", "actions",
                "error", "efficiency")


def is_play_run(run_dir: Path | None) -> bool:
    """Whether a folder is a run of the play harness: its results' rows carry the play fields."""
    if run_dir is None or not (run_dir / runs.RESULTS).is_file():
        return False
    rows = runs.read_results(run_dir)
    return bool(rows) and all(all(k in r for k in PLAY_FIELDS) for r in rows)


def _play_rows(run_dir: Path | None) -> list[dict]:
    if not is_play_run(run_dir):
        raise ApiError(HTTPStatus.NOT_FOUND, "the served folder is not a play run (python -m shared play --out DIR)")
    return runs.read_results(run_dir)


def play_games(run_dir: Path | None) -> dict:
    """The games of a served play run, in the order played, without their logs; and summary.json."""
    rows = _play_rows(run_dir)
    summary_path = run_dir / "summary.json"
    try:
        summary = json.loads(summary_path.read_text()) if summary_path.is_file() else None
    except json.JSONDecodeError:
        summary = None  # being rewritten as the run goes on: the games are what the page needs
    return {"name": run_dir.name, "summary": summary, "games": [{k: r.get(k) for k in GAME_SUMMARY} for r in rows]}


def play_game(run_dir: Path | None, game_id: str) -> dict:
    """One game of a served play run: its row, its frames by hash, and the palette."""
    rows = {r["game_id"]: r for r in _play_rows(run_dir)}
    if game_id not in rows:
        raise ApiError(HTTPStatus.NOT_FOUND, f"no game {game_id!r} in this run; games: {', '.join(rows)}")
    try:
        frames = read_frames(run_dir, game_id)
    except ValueError as e:
        raise ApiError(HTTPStatus.UNPROCESSABLE_ENTITY, str(e)) from None
    return {"game": rows[game_id], "frames": frames, "palette": palette_hex()}


def get(catalog: TaskCatalog, results: Path | None, route: str, query: dict[str, list[str]],
        run_dir: Path | None = None) -> dict:
    def arg(key: str) -> str:
        if not query.get(key):
            raise ApiError(HTTPStatus.BAD_REQUEST, f"{route}: missing ?{key}=")
        return query[key][0]

    if route == "/api/sets":
        return {"sets": catalog.names, "recording": str(results) if results else None}
    if route == "/api/tasks":
        return {"set": arg("set"), "ids": sorted(catalog.tasks(arg("set")))}
    if route == "/api/task":
        task = catalog.task(arg("set"), arg("id"))
        return {"set": arg("set"), "id": task.id, "task": strip_test_outputs(task).to_json()}
    if route == "/api/play/games":
        return play_games(run_dir)
    if route == "/api/play/game":
        return play_game(run_dir, arg("id"))
    raise ApiError(HTTPStatus.NOT_FOUND, f"no route {route}")


def post(catalog: TaskCatalog, results: Path | None, route: str, body) -> dict:
    if route not in ("/api/submit", "/api/record"):
        raise ApiError(HTTPStatus.NOT_FOUND, f"no route {route}")
    if not isinstance(body, dict):
        raise ApiError(HTTPStatus.BAD_REQUEST, f"{route}: expected a JSON object")
    set_name, task_id, test = _field(body, "set", str), _field(body, "id", str), _field(body, "test", int)
    grid = _grid(body)
    seconds, edits = body.get("seconds", 0), body.get("edits", 0)
    if not isinstance(seconds, (int, float)) or not isinstance(edits, int) or seconds < 0 or edits < 0:
        raise ApiError(HTTPStatus.BAD_REQUEST, f"{route}: seconds and edits must be numbers >= 0")
    if route == "/api/submit":
        task = catalog.task(set_name, task_id)
        if not 0 <= test < len(task.test):
            raise ApiError(HTTPStatus.BAD_REQUEST, f"task {task_id} has {len(task.test)} test inputs, not {test + 1}")
        n_tests, correct, checked_by = len(task.test), human.check_answer(task.test[test].output, grid), "server"
    else:
        if set_name in catalog.names:
            raise ApiError(HTTPStatus.BAD_REQUEST, f"{set_name} is checked here: use /api/submit")
        n_tests, correct, checked_by = _field(body, "n_tests", int), body.get("correct"), "page"
        if (correct is not None and not isinstance(correct, bool)) or not 0 <= test < n_tests:
            raise ApiError(HTTPStatus.BAD_REQUEST, f"{route}: 'correct' must be true, false or null, "
                                                   "and 0 <= test < n_tests")
    row = {"attempt": None, "correct": correct}
    if results is not None:
        row = human.record_submit(results, task_set=set_name, task_id=task_id, test=test, n_tests=n_tests,
                                  grid=grid, correct=correct, seconds=seconds, edits=edits, checked_by=checked_by)
    return {"correct": row["correct"], "attempt": row["attempt"], "recorded": results is not None}
