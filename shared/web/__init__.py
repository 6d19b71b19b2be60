"""The web page: solve ARC tasks by hand, and browse a run folder of `python -m shared solve`.

The page is static (static/index.html, app.js, style.css: no build step, no CDN). `serve`
runs it on 127.0.0.1 with the run folder's files under /run/ (read-only, nothing outside
it); `page_html` inlines the page with a run or a task embedded, and `show_run` /
`show_task` wrap that in an iframe for Jupyter and Colab, which needs no server.
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
from urllib.parse import unquote, urlsplit

from shared import runs

STATIC_DIR = Path(__file__).parent / "static"
STATIC_FILES = ("index.html", "app.js", "style.css")
RUN_PREFIX = "/run/"
# How the page names its own assets; page_html replaces these two tags by inline copies.
CSS_TAG = '<link rel="stylesheet" href="style.css">'
JS_TAG = '<script src="app.js"></script>'
DATA_MARK = "<!-- embedded data -->"


class PageHandler(SimpleHTTPRequestHandler):
    """GET/HEAD for the page's static files and the files inside one run folder; nothing else."""

    server_version = "arc-suite"
    run_dir: Path | None = None  # set per server by make_server
    quiet = True

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

    def do_POST(self):
        self.send_error(HTTPStatus.METHOD_NOT_ALLOWED, "read-only")

    do_PUT = do_DELETE = do_PATCH = do_POST

    def log_message(self, format, *args):
        if not self.quiet:
            super().log_message(format, *args)


def make_server(run_dir: str | Path | None = None, port: int = 0, quiet: bool = True) -> ThreadingHTTPServer:
    """A server on 127.0.0.1 (port 0: any free port); call serve_forever() or use serve_in_thread."""
    run = Path(run_dir) if run_dir is not None else None
    handler = type("RunPageHandler", (PageHandler,), {"run_dir": run, "quiet": quiet})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server


def server_url(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}/"


def serve_in_thread(run_dir: str | Path | None = None, port: int = 0) -> ThreadingHTTPServer:
    """Start a server in a daemon thread and return it; stop it with server.shutdown()."""
    server = make_server(run_dir, port)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shared serve",
                                     description="Serve the solve-by-hand and run-browser page on 127.0.0.1.")
    parser.add_argument("run_dir", nargs="?", help="a run folder of `python -m shared solve` (results.jsonl)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: any free port)")
    parser.add_argument("--open", action="store_true", help="also open the page in a web browser")
    parser.add_argument("--log", action="store_true", help="log each request to stderr")
    args = parser.parse_args(argv)
    if args.run_dir is not None and not (Path(args.run_dir) / runs.RESULTS).is_file():
        print(f"{args.run_dir}: not a run folder (no {runs.RESULTS})", file=sys.stderr)
        return 2
    try:
        server = make_server(args.run_dir, args.port, quiet=not args.log)
    except OSError as e:
        print(f"cannot listen on 127.0.0.1:{args.port}: {e.strerror}", file=sys.stderr)
        return 1
    url = server_url(server)
    print(f"serving {url}" + (f" (run: {args.run_dir})" if args.run_dir else ""), flush=True)
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
