"""The web page: the server's file serving, and the page itself driven in headless Chromium.

Browser tests use Playwright (Python) with Debian's /usr/bin/chromium and skip, saying why,
when either is missing. Screenshots for a person to look at go to outputs/web/.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from shared import web

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "outputs" / "web"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# A task made for these tests: fill the inside of each blue box with yellow, and copy the
# red block of the top-left corner into the bottom-right corner.
TEST1_IN = [[2, 2, 0, 0, 0, 0, 0, 0],
            [2, 2, 0, 0, 0, 0, 0, 0],
            [0, 0, 1, 1, 1, 1, 0, 0],
            [0, 0, 1, 0, 0, 1, 0, 0],
            [0, 0, 1, 0, 0, 1, 0, 0],
            [0, 0, 1, 1, 1, 1, 0, 0],
            [0, 0, 0, 0, 0, 0, 0, 0]]
TEST1_OUT = [[2, 2, 0, 0, 0, 0, 0, 0],
             [2, 2, 0, 0, 0, 0, 0, 0],
             [0, 0, 1, 1, 1, 1, 0, 0],
             [0, 0, 1, 4, 4, 1, 0, 0],
             [0, 0, 1, 4, 4, 1, 0, 0],
             [0, 0, 1, 1, 1, 1, 2, 2],
             [0, 0, 0, 0, 0, 0, 2, 2]]
TEST2_IN = [[2, 0, 0, 0, 0, 0],
            [0, 1, 1, 1, 1, 0],
            [0, 1, 0, 0, 1, 0],
            [0, 1, 1, 1, 1, 0],
            [0, 0, 0, 0, 0, 0]]
TEST2_OUT = [[2, 0, 0, 0, 0, 0],
             [0, 1, 1, 1, 1, 0],
             [0, 1, 4, 4, 1, 0],
             [0, 1, 1, 1, 1, 0],
             [0, 0, 0, 0, 0, 2]]
TASK = {
    "train": [
        {"input": [[2, 0, 0, 0, 0], [0, 1, 1, 1, 0], [0, 1, 0, 1, 0], [0, 1, 1, 1, 0], [0, 0, 0, 0, 0]],
         "output": [[2, 0, 0, 0, 0], [0, 1, 1, 1, 0], [0, 1, 4, 1, 0], [0, 1, 1, 1, 0], [0, 0, 0, 0, 2]]},
        {"input": [[2, 2, 0, 0, 0, 0], [2, 2, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0],
                   [1, 0, 0, 1, 0, 0], [1, 1, 1, 1, 0, 0]],
         "output": [[2, 2, 0, 0, 0, 0], [2, 2, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0],
                    [1, 4, 4, 1, 2, 2], [1, 1, 1, 1, 2, 2]]},
    ],
    "test": [{"input": TEST1_IN, "output": TEST1_OUT}, {"input": TEST2_IN, "output": TEST2_OUT}],
}
SOLVER_TASK = {"train": TASK["train"], "test": [{"input": TEST1_IN}, {"input": TEST2_IN}]}
PROGRAM = "def solve(I):\n    x1 = fill_enclosed(I, 4)\n    O = copy_corner(x1)\n    return O\n"


def result(task_id, status, solver="dsl", attempts=None, trace=None, error=None, time_s=0.5):
    attempts = [[TEST1_OUT], [TEST2_OUT]] if attempts is None else attempts
    expected = [TEST1_OUT, TEST2_OUT]
    correct = [bool(a) and a[0] == e for a, e in zip(attempts, expected, strict=True)]
    return {"task_id": task_id, "solver": solver, "status": status, "time_s": time_s, "attempts": attempts,
            "correct": correct, "expected": expected, "task": SOLVER_TASK, "trace": trace or {}, "error": error}


def one_wrong_cell(grid):
    wrong = [row[:] for row in grid]
    wrong[0][0] = 5
    return wrong


RESULTS = [
    result("a1b2c3d4", "solved", trace={"program": PROGRAM}),
    result("beef0001", "unsolved", attempts=[[one_wrong_cell(TEST1_OUT), [[0, 0], [0, 0]]], [TEST2_OUT]]),
    result("cafe0002", "timeout", attempts=[[], []], time_s=10.0),
    result("dead0003", "solved", solver="ensemble", trace={"solver": "programs", "program": PROGRAM}),
    result("f00d0004", "error", attempts=[[], []], error="Traceback: ValueError: no primitive fits"),
]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    run = tmp_path_factory.mktemp("run")
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RESULTS))
    summary = {"solver": "dsl", "tasks": "fixture", "n_tasks": 5, "solved": 2, "pass_at_2": 0.4, "time_s": 12.0}
    (run / "summary.json").write_text(json.dumps(summary))
    (run / "notes").mkdir()
    (run / "notes" / "a.txt").write_text("nested file")
    (run.parent / "secret.txt").write_text("outside the run")
    os.symlink(run.parent / "secret.txt", run / "link.txt")
    return run


@pytest.fixture(scope="module")
def server(run_dir):
    srv = web.serve_in_thread(run_dir)
    yield srv
    srv.shutdown()
    srv.server_close()


def get(server, path, method="GET"):
    """Send the path as written (no client-side normalising of '..'); return status and body."""
    conn = http.client.HTTPConnection(*server.server_address[:2], timeout=5)
    conn.request(method, path)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, body, response


# ---------------------------------------------------------------- server

def test_serves_the_page_and_its_assets(server):
    status, body, _ = get(server, "/")
    assert status == 200 and b'<script src="app.js">' in body
    for name, ctype in (("app.js", "javascript"), ("style.css", "text/css"), ("index.html", "text/html")):
        status, body, response = get(server, f"/{name}")
        assert status == 200 and body == (web.STATIC_DIR / name).read_bytes()
        assert ctype in response.getheader("Content-Type")


def test_serves_the_run_folder_read_only(server, run_dir):
    status, body, _ = get(server, "/run/results.jsonl")
    assert status == 200 and body == (run_dir / "results.jsonl").read_bytes()
    status, body, _ = get(server, "/run/summary.json?x=1")
    assert status == 200 and json.loads(body)["n_tasks"] == 5
    assert get(server, "/run/notes/a.txt")[:2] == (200, b"nested file")
    assert get(server, "/run/results.jsonl", method="POST")[0] == 405
    assert get(server, "/run/results.jsonl", method="PUT")[0] == 405


@pytest.mark.parametrize("path", [
    "/run/../secret.txt", "/run/%2e%2e/secret.txt", "/run/..%2fsecret.txt", "/run/notes/../../secret.txt",
    "/../secret.txt", "/run//etc/passwd", "/run/%2fetc%2fpasswd", "/run/link.txt", "/run/notes",
    "/run/missing.json", "/run/", "/secret.txt", "/shared/web/__init__.py", "/static/app.js", "/run/.hidden",
    "/run/notes%5c..%5c..%5csecret.txt",
])
def test_refuses_anything_outside_the_run_and_the_page(server, path):
    status, body, _ = get(server, path)
    assert status == 404
    assert b"outside the run" not in body and b"root:" not in body


def test_without_a_run_folder_run_paths_are_404():
    srv = web.serve_in_thread(None)
    try:
        assert get(srv, "/run/results.jsonl")[0] == 404
        assert get(srv, "/")[0] == 200
    finally:
        srv.shutdown()
        srv.server_close()


def test_cli_prints_the_url_and_serves(run_dir):
    proc = subprocess.Popen([sys.executable, "-m", "shared", "serve", str(run_dir), "--port", "0"],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("serving http://127.0.0.1:")
        host, port = line.split()[1].removeprefix("http://").rstrip("/").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        conn.request("GET", "/run/summary.json")
        assert conn.getresponse().status == 200
        proc.send_signal(signal.SIGINT)  # Ctrl-C: a clean stop
        assert proc.wait(timeout=5) == 0 and "stopped" in proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)


def test_cli_refuses_a_folder_without_results(tmp_path, capsys):
    assert web.main([str(tmp_path)]) == 2
    assert "not a run folder" in capsys.readouterr().err


def test_read_run_tolerates_a_half_written_last_line(tmp_path):
    (tmp_path / "results.jsonl").write_text(json.dumps(RESULTS[0]) + "\n" + '{"task_id": "x", "sol')
    run = web.read_run(tmp_path)
    assert [r["task_id"] for r in run["results"]] == ["a1b2c3d4"] and run["summary"] is None
    (tmp_path / "results.jsonl").write_text('{"broken\n' + json.dumps(RESULTS[0]) + "\n")
    with pytest.raises(ValueError, match="line 1"):
        web.read_run(tmp_path)


def test_page_html_inlines_everything_and_escapes_script_ends(run_dir):
    nasty = dict(RESULTS[0], task_id="</script><b>x")
    page = web.page_html(run={"name": "r", "results": [nasty], "summary": None})
    assert 'src="app.js"' not in page and 'href="style.css"' not in page
    assert page.count("</script>") == 2  # the data script and the inlined app.js, nothing else
    assert "window.ARC_RUN" in page and "\\u003c/script>" in page


def test_show_run_returns_an_iframe(run_dir):
    pytest.importorskip("IPython", reason="IPython is needed only in notebooks")
    shown = web.show_run(run_dir, height=500)
    assert "<iframe srcdoc=" in shown.data and "height:500px" in shown.data
    assert "&lt;script&gt;" in shown.data and "beef0001" in shown.data


# ---------------------------------------------------------------- browser

@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.skip(f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium)")
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(5000)
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def cell(page, grid, r, c):
    return page.locator(f'.grid[data-grid="{grid}"] .cell[data-r="{r}"][data-c="{c}"]')


def output_grid(page):
    """The output editor's cells read back from the DOM's colour classes."""
    return page.evaluate("""() => {
        const g = document.querySelector('.grid[data-grid="output"]');
        const [rows, cols] = g.dataset.size.split('x').map(Number);
        const out = Array.from({length: rows}, () => new Array(cols).fill(-1));
        g.querySelectorAll('.cell').forEach(c => {
            out[c.dataset.r][c.dataset.c] = Number(c.className.match(/c(\\d)/)[1]);
        });
        return out;
    }""")


def drag_select(page, grid, start, end):
    page.check('input[name="tool"][value="select"]')
    cell(page, grid, *start).hover()
    page.mouse.down()
    cell(page, grid, *end).hover()
    page.mouse.up()


def load_task_file(page, tmp_path):
    path = tmp_path / "box_fill.json"
    path.write_text(json.dumps(TASK))
    page.set_input_files("#task-file", str(path))
    page.wait_for_selector('.grid[data-grid="input"]')


def test_solve_by_hand_wrong_then_right(page, server, tmp_path):
    web_root = web.server_url(server)
    page.goto(web_root)
    page.wait_for_selector("body[data-ready]")
    page.click("#tab-solve")
    load_task_file(page, tmp_path)
    assert page.inner_text("#task-name") == "box_fill"
    assert page.locator("#demos .pair").count() == 2
    assert page.inner_text("#test-index") == "1 of 2"

    # a wrong answer: the default 3x3 resized to 2x2
    page.fill("#size", "2x2")
    page.click("#resize")
    assert output_grid(page) == [[0, 0], [0, 0]]
    page.click("#submit")
    assert page.inner_text("#verdict") == "Wrong"
    assert page.inner_text("#attempts") == "attempts: 1"

    # the right one: copy the input, flood-fill the box, copy the red block and paste it
    page.click("#copy-input")
    page.click('#palette .swatch[data-colour="4"]')
    page.check('input[name="tool"][value="flood"]')
    cell(page, "output", 3, 3).click()
    drag_select(page, "input", (0, 0), (1, 1))
    page.keyboard.press("c")
    cell(page, "output", 5, 6).click()
    page.keyboard.press("v")
    shot(page, "solve-before-submit")
    assert output_grid(page) == TEST1_OUT
    page.click("#submit")
    assert page.inner_text("#verdict") == "Correct!"
    assert page.inner_text("#attempts") == "attempts: 2"

    # next test input: select a rectangle and fill it, then paint one cell
    page.click("#next-test")
    assert page.inner_text("#test-index") == "2 of 2" and page.is_disabled("#next-test")
    assert output_grid(page) == [[0] * 3] * 3 and page.inner_text("#verdict") == ""
    page.click("#copy-input")
    drag_select(page, "output", (2, 2), (2, 3))
    page.click("#fill")
    page.click('#palette .swatch[data-colour="2"]')
    page.check('input[name="tool"][value="edit"]')
    cell(page, "output", 4, 5).click()
    assert output_grid(page) == TEST2_OUT
    page.click("#submit")
    assert page.inner_text("#verdict") == "Correct!"
    shot(page, "solve-correct")


def test_paste_from_the_output_and_reset(page, tmp_path):
    page.set_content(web.page_html(task=TASK, task_id="inline"))
    page.wait_for_selector("body[data-ready]")
    assert page.inner_text("#task-name") == "inline"  # a task embedded for a notebook
    page.click("#copy-input")
    drag_select(page, "output", (0, 0), (1, 1))
    page.click("#copy")
    cell(page, "output", 5, 6).click()  # the Select tool: one cell marks where to paste
    page.click("#paste")
    assert [row[6:] for row in output_grid(page)[5:]] == [[2, 2], [2, 2]]
    page.click("#reset")
    assert output_grid(page) == [[0] * 3] * 3
    page.fill("#size", "40x2")
    page.click("#resize")
    assert "each 1-30" in page.inner_text("#message")


def test_a_bad_task_file_is_named(page, tmp_path):
    page.set_content(web.page_html())
    page.wait_for_selector("body[data-ready]")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"train": [{"input": [[1, 2], [3]], "output": [[1]]}], "test": [{"input": [[1]]}]}))
    page.set_input_files("#task-file", str(bad))
    page.wait_for_selector("#message.error")
    assert "bad: train pair 0 input: row 1" in page.inner_text("#message")


def test_drop_a_task_on_the_page(page):
    page.set_content(web.page_html())
    page.wait_for_selector("body[data-ready]")
    transfer = page.evaluate_handle("""text => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([text], "dropped.json", {type: "application/json"}));
        return transfer;
    }""", json.dumps(TASK))
    page.dispatch_event("main", "drop", {"dataTransfer": transfer})
    page.wait_for_selector('.grid[data-grid="input"]')
    assert page.inner_text("#task-name") == "dropped"


def listed_ids(page):
    return page.locator("#task-list li").evaluate_all("items => items.map(li => li.dataset.id)")


def test_run_view_filters_search_and_detail(page, server):
    page.goto(web.server_url(server))
    page.wait_for_selector("#task-list li")
    assert page.is_visible("#view-run")
    assert "solved 2/5" in page.inner_text("#run-summary") and "pass@2 40.0%" in page.inner_text("#run-summary")
    assert len(listed_ids(page)) == 5
    page.select_option("#filter-status", "solved")
    assert listed_ids(page) == ["a1b2c3d4", "dead0003"]
    page.select_option("#filter-solver", "programs")  # the ensemble's trace names the solver
    assert listed_ids(page) == ["dead0003"]
    page.select_option("#filter-status", "")
    page.select_option("#filter-solver", "dsl")
    assert listed_ids(page) == ["a1b2c3d4", "beef0001", "cafe0002", "f00d0004"]
    page.select_option("#filter-solver", "")
    page.select_option("#filter-status", "timeout")
    assert listed_ids(page) == ["cafe0002"]
    page.select_option("#filter-status", "unsolved")
    assert listed_ids(page) == ["beef0001"]
    page.select_option("#filter-status", "")
    page.fill("#search", "EF00")
    assert listed_ids(page) == ["beef0001"]
    assert page.inner_text("#task-count") == "1 of 5 tasks"
    page.fill("#search", "")

    page.click('#task-list li[data-id="beef0001"]')
    first = page.locator('#task-detail .test-row[data-test="0"]')
    assert first.locator(".cell.wrong").count() == 1
    captions = first.locator(".caption").all_inner_texts()
    assert "attempt 1: 1 wrong cell" in captions and "attempt 2: size 2x2, expected 7x8" in captions
    assert page.locator('#task-detail .test-row[data-test="1"] .cell.wrong').count() == 0
    shot(page, "run-unsolved")

    page.click('#task-list li[data-id="dead0003"]')
    assert "fill_enclosed" in page.inner_text("#task-detail pre.program")
    page.click('#task-list li[data-id="f00d0004"]')
    assert "no primitive fits" in page.inner_text("#task-detail")
    page.click('#task-list li[data-id="a1b2c3d4"]')
    shot(page, "run-solved")
    page.click("#solve-this")  # from a run into the solve view, with the run's expected outputs
    assert page.is_visible("#view-solve") and page.inner_text("#task-name") == "a1b2c3d4"
    page.click("#copy-input")
    page.click("#submit")
    assert page.inner_text("#verdict") == "Wrong"


def test_run_from_picked_files_and_embedded(page, run_dir):
    page.set_content(web.page_html())
    page.wait_for_selector("body[data-ready]")
    page.click("#tab-run")
    assert page.is_visible("#run-empty")
    page.set_input_files("#run-files", [str(run_dir / "results.jsonl"), str(run_dir / "summary.json")])
    page.wait_for_selector("#task-list li")
    assert len(listed_ids(page)) == 5 and "pass@2 40.0%" in page.inner_text("#run-summary")

    page.goto("about:blank")  # a fresh document, as each notebook iframe is
    page.set_content(web.page_html(run=run_dir))  # what show_run puts in a notebook
    page.wait_for_selector("#task-list li")
    assert len(listed_ids(page)) == 5
    page.click('#task-list li[data-id="beef0001"]')
    shot(page, "run-embedded")
