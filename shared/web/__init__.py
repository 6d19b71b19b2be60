"""The web page: solve ARC tasks by hand, browse a run folder of `python -m shared solve`, and
replay the games of a run folder of `python -m shared play` (its frames files, step by step).

The page is static (static/index.html, app.js, style.css: no build step, no CDN). `serve`
runs it on 127.0.0.1 for one folder: its files under /run/ (read-only, nothing outside it;
a run when it holds results.jsonl), the task picker's sets and a person's submits under /api/
(see `api`: tasks go out without test outputs, answers are checked here and appended to the
folder's human.jsonl). `page_html` inlines the page with a run or a task embedded, and
`show_run` / `show_task` wrap that in an iframe for Jupyter and Colab, which needs no server.
"""

from __future__ import annotations

import argparse
import html
import json
import mimetypes
import sys
import threading
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from shared import human, runs
from shared.web import api

STATIC_DIR = Path(__file__).parent / "static"
STATIC_FILES = ("index.html", "app.js", "style.css")
RUN_PREFIX = "/run/"
# How the page names its own assets; page_html replaces these two tags by inline copies.
CSS_TAG = '<link rel="stylesheet" href="style.css">'
JS_TAG = '<script src="app.js"></script>'
DATA_MARK = "<!-- embedded data -->"


class PageHandler(SimpleHTTPRequestHandler):
    """GET/HEAD for the page's static files and the files inside the served folder, GET/POST for
    the /api/ routes; nothing else."""

    server_version = "arc-suite"
    run_dir: Path | None = None  # set per server by make_server: the served folder
    catalog: api.TaskCatalog | None = None
    quiet = True

    def _results_file(self) -> Path | None:
        return self.run_dir / human.HUMAN_FILE if self.run_dir is not None else None

    def _send_json(self, status: HTTPStatus, value: dict) -> None:
        body = json.dumps(value, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlsplit(self.path)
        if not url.path.startswith("/api/"):
            return super().do_GET()
        try:
            self._send_json(HTTPStatus.OK, api.get(self.catalog, self._results_file(), url.path, parse_qs(url.query),
                                                   self.run_dir))
        except api.ApiError as e:
            self._send_json(e.status, {"error": str(e)})
        except runs.RunFileError as e:  # a results file with a bad line in its middle
            self._send_json(HTTPStatus.UNPROCESSABLE_ENTITY, {"error": str(e)})

    def do_POST(self):
        url = urlsplit(self.path)
        if not url.path.startswith("/api/"):
            return self.send_error(HTTPStatus.METHOD_NOT_ALLOWED, "read-only")
        try:
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= api.MAX_BODY:
                raise api.ApiError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE if length else HTTPStatus.BAD_REQUEST,
                                   f"{url.path}: expected a JSON body of at most {api.MAX_BODY} bytes")
            try:
                body = json.loads(self.rfile.read(length))
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                raise api.ApiError(HTTPStatus.BAD_REQUEST, f"{url.path}: not JSON: {e}") from None
            self._send_json(HTTPStatus.OK, api.post(self.catalog, self._results_file(), url.path, body))
        except api.ApiError as e:
            self._send_json(e.status, {"error": str(e)})
        except (runs.RunFileError, OSError) as e:  # the results file cannot take the row: say so, keep serving
            self._send_json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"submit not recorded: {e}"})

    def send_head(self):
        path = unquote(urlsplit(self.path).path)
        target = self._resolve(path)
        if target is None:
            self.send_error(HTTPStatus.NOT_FOUND, "not found")
            return None
        try:
            f = open(target, "rb")  # the base class copies and closes it
        except OSError:
            self.send_error(HTTPStatus.NOT_FOUND, "not found")
            return None
        size = target.stat().st_size
        self.send_response(HTTPStatus.OK)
        ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if target.suffix == ".jsonl":
            ctype = "application/x-ndjson"
        if ctype.startswith("text/") or ctype.endswith(("javascript", "json", "ndjson")):
            ctype += "; charset=utf-8"
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(size))
        # a run being written changes under the page; never serve a stale copy
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        return f

    def _resolve(self, path: str) -> Path | None:
        """The file a URL path names, or None: a static file, or a file inside the run folder."""
        if "\x00" in path or "\\" in path:
            return None
        if path in ("/", "/index.html"):
            return STATIC_DIR / "index.html"
        if path.lstrip("/") in STATIC_FILES:
            return STATIC_DIR / path.lstrip("/")
        if not path.startswith(RUN_PREFIX) or self.run_dir is None:
            return None
        parts = path[len(RUN_PREFIX):].split("/")
        if any(p in ("", ".", "..") or p.startswith(".") for p in parts):
            return None
        root = self.run_dir.resolve()
        target = root.joinpath(*parts).resolve()  # resolve() follows links: check where it lands
        if not target.is_relative_to(root) or not target.is_file():
            return None
        return target

    def do_PUT(self):
        self.send_error(HTTPStatus.METHOD_NOT_ALLOWED, "read-only")

    do_DELETE = do_PATCH = do_PUT

    def log_message(self, format, *args):
        if not self.quiet:
            super().log_message(format, *args)


def make_server(run_dir: str | Path | None = None, port: int = 0, quiet: bool = True,
                tasks: list[str] | None = None, solutions: str | None = None) -> ThreadingHTTPServer:
    """A server on 127.0.0.1 (port 0: any free port); call serve_forever() or use serve_in_thread.

    run_dir: the served folder (a run's files, and human.jsonl, which submits are appended to;
    None: submits are checked but kept nowhere). tasks: sets the picker offers beside the
    installed ones (folders, task files, Kaggle challenges files); solutions: a Kaggle
    solutions file for the one challenges file in `tasks`."""
    run = Path(run_dir) if run_dir is not None else None
    handler = type("RunPageHandler", (PageHandler,), {"run_dir": run, "quiet": quiet,
                                                       "catalog": api.TaskCatalog(tasks, solutions)})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server


def server_url(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}/"


def serve_in_thread(run_dir: str | Path | None = None, port: int = 0, tasks: list[str] | None = None,
                    solutions: str | None = None) -> ThreadingHTTPServer:
    """Start a server in a daemon thread and return it; stop it with server.shutdown()."""
    server = make_server(run_dir, port, tasks=tasks, solutions=solutions)
    threading.Thread(target=server.serve_forever, name="arc-web", daemon=True).start()
    return server


def read_run(run_dir: str | Path) -> dict:
    """A run folder's results (one dict per task, read by `runs.read_results`) and summary, as the
    page expects them; a folder without results is not a run (FileNotFoundError)."""
    run = Path(run_dir)
    if not (run / runs.RESULTS).is_file():
        raise FileNotFoundError(f"{run}: not a run folder (no {runs.RESULTS})")
    results = runs.read_results(run)
    summary_path = run / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else None
    return {"name": run.name, "results": results, "summary": summary}


def _script_json(value) -> str:
    # "</" would end the <script> element early; "\u003c/" is the same string to JSON
    return json.dumps(value, separators=(",", ":")).replace("</", "\\u003c/").replace("<!--", "\\u003c!--")


def page_html(run: dict | str | Path | None = None, task: dict | None = None, task_id: str = "task") -> str:
    """The page as one self-contained HTML string, optionally with a run or a task embedded.

    run: a run folder or read_run()'s dict; it opens in the run view. task: an ARC task dict
    ({"train": [...], "test": [...]}); it opens in the solve view.
    """
    page = (STATIC_DIR / "index.html").read_text()
    css = (STATIC_DIR / "style.css").read_text()
    js = (STATIC_DIR / "app.js").read_text()
    for tag in (CSS_TAG, JS_TAG, DATA_MARK):
        if tag not in page:
            raise RuntimeError(f"index.html lacks {tag!r}; page_html cannot inline it")
    if run is not None and not isinstance(run, dict):
        run = read_run(run)
    data = ""
    if run is not None:
        data += f"<script>window.ARC_RUN = {_script_json(run)};</script>\n"
    if task is not None:
        data += f"<script>window.ARC_TASK = {_script_json({'id': task_id, 'task': task})};</script>\n"
    page = page.replace(CSS_TAG, f"<style>\n{css}</style>")
    page = page.replace(DATA_MARK, data)
    return page.replace(JS_TAG, "<script>\n" + js.replace("</script", "<\\/script") + "</script>")


def _iframe(page: str, height: int):
    from IPython.display import HTML  # lazily: the library must import without IPython

    # wrapped in a div: IPython warns about a bare <iframe> and suggests IFrame, which needs a URL
    return HTML(f'<div><iframe srcdoc="{html.escape(page, quote=True)}" style="width:100%;height:{int(height)}px;'
                'border:1px solid #ccc" sandbox="allow-scripts"></iframe></div>')


def show_run(run_dir: str | Path, height: int = 800):
    """The run view inline in a notebook (Jupyter, Colab), with the run's data embedded."""
    return _iframe(page_html(run=run_dir), height)


def show_task(task, height: int = 800):
    """The solve-by-hand view inline in a notebook, for a Task or an ARC task dict."""
    if hasattr(task, "to_json"):
        return _iframe(page_html(task=task.to_json(), task_id=task.id), height)
    return _iframe(page_html(task=task), height)


DEFAULT_FOLDER = Path("outputs") / "human"  # where a person's submits go when serve is given no folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shared serve",
                                     description="Serve the solve-by-hand and run-browser page on 127.0.0.1.")
    parser.add_argument("folder", nargs="?",
                        help="the folder to serve: a run folder of `python -m shared solve` opens in the run view, "
                             "one of `python -m shared play` in the replay view; "
                             f"submits are appended to its {human.HUMAN_FILE} (default: {DEFAULT_FOLDER}, created)")
    parser.add_argument("--tasks", action="append", default=[], metavar="SPEC",
                        help="a folder of task JSON, a task file or a Kaggle challenges file for the task picker, "
                             "beside the installed arc1/arc2 sets (repeatable)")
    parser.add_argument("--solutions", help="Kaggle solutions file for the one challenges file given to --tasks")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: any free port)")
    parser.add_argument("--open", action="store_true", help="also open the page in a web browser")
    parser.add_argument("--log", action="store_true", help="log each request to stderr")
    args = parser.parse_args(argv)
    if args.folder is not None and not Path(args.folder).is_dir():
        parser.error(f"{args.folder}: no such folder")
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be 0-65535, got {args.port}")
    if args.solutions is not None and len(args.tasks) != 1:
        parser.error("--solutions goes with exactly one --tasks (its challenges file)")
    for spec in args.tasks:
        if not Path(spec).exists():
            parser.error(f"--tasks {spec}: no such folder or file (arc1/arc2 sets are offered anyway)")
    if args.solutions is not None and not Path(args.solutions).is_file():
        parser.error(f"--solutions {args.solutions}: no such file")
    folder = Path(args.folder) if args.folder is not None else DEFAULT_FOLDER
    try:
        folder.mkdir(parents=True, exist_ok=True)
        server = make_server(folder, args.port, quiet=not args.log, tasks=args.tasks, solutions=args.solutions)
    except OSError as e:
        print(f"cannot serve {folder} on 127.0.0.1:{args.port}: {e.strerror}", file=sys.stderr)
        return 1
    for spec in args.tasks:  # read now, so a bad file is named here and not on the page later
        catalog = server.RequestHandlerClass.catalog
        try:
            catalog.tasks(spec)
        except api.ApiError as e:
            server.server_close()
            print(f"error: --tasks {spec}: {e}", file=sys.stderr)
            return 2
        for problem in catalog.skipped[spec]:
            print(f"skipped: {problem}", file=sys.stderr)
    url = server_url(server)
    kind = "play run" if api.is_play_run(folder) else "run" if (folder / runs.RESULTS).is_file() else "folder"
    print(f"serving {url} ({kind}: {folder}; submits go to {folder / human.HUMAN_FILE})", flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped")
    finally:
        server.server_close()
    return 0
