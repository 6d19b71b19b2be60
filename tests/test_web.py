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
PARTIAL = "def solve(I):\n    O = I\n    return O\n"
TREE = "def solve(I):\n    O = cell_rule(I, ('colour',), {})\n    return O\n"


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


def half_wrong(grid):
    """The grid with its top half of rows painted 5: about half its cells wrong."""
    return [[5] * len(row) if r < len(grid) // 2 else row[:] for r, row in enumerate(grid)]


RESULTS = [
    result("a1b2c3d4", "solved", trace={"program": PROGRAM}),
    result("beef0001", "unsolved", attempts=[[one_wrong_cell(TEST1_OUT), [[0, 0], [0, 0]]], [TEST2_OUT]],
           trace={"kind": "partial", "kinds": ["partial", "tree"], "program": PARTIAL, "programs": [PARTIAL, TREE]}),
    result("cafe0002", "timeout", attempts=[[], []], time_s=10.0),
    result("dead0003", "solved", solver="ensemble", trace={"solver": "programs", "program": PROGRAM}),
    result("f00d0004", "error", attempts=[[], []], error="Traceback: ValueError: no primitive fits"),
    # sorts first by id, but comes closer than none but beef0001: the "closest" view must reorder it
    result("0bad0005", "unsolved", attempts=[[half_wrong(TEST1_OUT)], [half_wrong(TEST2_OUT)]]),
]
# a small folder of tasks for the picker: the fixture task, one the identity solves, one more
FOLDER_TASKS = {"a_first": {"train": [{"input": [[1]], "output": [[1]]}], "test": [{"input": [[3]], "output": [[3]]}]},
                "box_fill": TASK,
                "z_last": {"train": [{"input": [[1, 2]], "output": [[2, 1]]}],
                           "test": [{"input": [[3, 4]], "output": [[4, 3]]}]}}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    run = tmp_path_factory.mktemp("run")
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RESULTS))
    summary = {"solver": "dsl", "tasks": "fixture", "n_tasks": 6, "solved": 2, "pass_at_2": 0.3333, "wall_s": 12.0}
    (run / "summary.json").write_text(json.dumps(summary))
    (run / "notes").mkdir()
    (run / "notes" / "a.txt").write_text("nested file")
    (run.parent / "secret.txt").write_text("outside the run")
    os.symlink(run.parent / "secret.txt", run / "link.txt")
    return run


@pytest.fixture(scope="module")
def task_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("picker") / "my_tasks"
    folder.mkdir()
    for task_id, task in FOLDER_TASKS.items():
        (folder / f"{task_id}.json").write_text(json.dumps(task))
    return folder


@pytest.fixture(scope="module")
def server(run_dir, task_folder):
    srv = web.serve_in_thread(run_dir, tasks=[str(task_folder)])
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
    assert status == 200 and json.loads(body)["n_tasks"] == 6
    assert get(server, "/run/notes/a.txt")[:2] == (200, b"nested file")
    assert get(server, "/run/results.jsonl", method="POST")[0] == 405
    assert get(server, "/api/submit", method="PUT")[0] == 405
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
    # Ctrl-C's default action in the child, even when this process was started ignoring SIGINT (a
    # background job of a script, as CI may be): Python then turns it into KeyboardInterrupt
    proc = subprocess.Popen([sys.executable, "-m", "shared", "serve", str(run_dir), "--port", "0"],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = proc.stdout.readline()
        assert line.startswith("serving http://127.0.0.1:")
        host, port = line.split()[1].removeprefix("http://").rstrip("/").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        conn.request("GET", "/run/summary.json")
        assert conn.getresponse().status == 200
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        conn.request("GET", "/api/sets")
        assert "arc1/eval" in json.loads(conn.getresponse().read())["sets"]
        proc.send_signal(signal.SIGINT)  # Ctrl-C: a clean stop
        assert proc.wait(timeout=30) == 0 and "stopped" in proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)


@pytest.mark.parametrize("argv, message", [
    (["{tmp}/missing"], "missing: no such folder"),
    (["{tmp}", "--tasks", "{tmp}/nosuch"], "--tasks {tmp}/nosuch: no such folder or file"),
    (["{tmp}", "--solutions", "{tmp}/s.json"], "--solutions goes with exactly one --tasks"),
    (["{tmp}", "--port", "70000"], "--port must be 0-65535"),
])
def test_cli_refuses_bad_arguments(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as stop:
        web.main([a.format(tmp=tmp_path) for a in argv])
    assert stop.value.code == 2 and message.format(tmp=tmp_path) in capsys.readouterr().err
    assert not (tmp_path / "missing").exists()


def test_cli_names_a_bad_task_folder(tmp_path, capsys):
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "broken.json").write_text("{")
    assert web.main([str(tmp_path), "--tasks", str(tmp_path / "tasks")]) == 2
    assert "broken.json: not valid JSON" in capsys.readouterr().err


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


def submit(page) -> str:
    """Click Submit and wait for its verdict (the server may be checking it)."""
    page.click("#submit")
    return page.wait_for_selector("#verdict:not(:empty)").inner_text()


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
    assert submit(page) == "Wrong"
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
    assert submit(page) == "Correct!"
    assert page.inner_text("#attempts") == "attempts: 2"

    # next test input: select a rectangle and click a colour to fill it, then paint one cell
    page.click("#next-test")
    assert page.inner_text("#test-index") == "2 of 2" and page.is_disabled("#next-test")
    assert output_grid(page) == [[0] * 3] * 3 and page.inner_text("#verdict") == ""
    page.click("#copy-input")
    drag_select(page, "output", (2, 2), (2, 3))
    page.click('#palette .swatch[data-colour="4"]')
    page.check('input[name="tool"][value="edit"]')
    page.click('#palette .swatch[data-colour="2"]')  # the Edit tool: picking a colour fills nothing
    assert output_grid(page)[2] == [0, 1, 4, 4, 1, 0]
    cell(page, "output", 4, 5).click()
    assert output_grid(page) == TEST2_OUT
    assert submit(page) == "Correct!"
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
    summary = page.inner_text("#run-summary")
    assert "solved 2/6" in summary and "pass@2 33.3%" in summary and "time 12.0 s" in summary  # wall_s
    assert len(listed_ids(page)) == 6
    page.select_option("#filter-status", "solved")
    assert listed_ids(page) == ["a1b2c3d4", "dead0003"]
    page.select_option("#filter-solver", "programs")  # the ensemble's trace names the solver
    assert listed_ids(page) == ["dead0003"]
    page.select_option("#filter-status", "")
    page.select_option("#filter-solver", "dsl")
    assert listed_ids(page) == ["a1b2c3d4", "beef0001", "cafe0002", "f00d0004", "0bad0005"]
    page.select_option("#filter-solver", "")
    page.select_option("#filter-status", "timeout")
    assert listed_ids(page) == ["cafe0002"]
    page.select_option("#filter-status", "unsolved")
    assert listed_ids(page) == ["beef0001", "0bad0005"]
    page.select_option("#filter-status", "")
    page.fill("#search", "EF00")
    assert listed_ids(page) == ["beef0001"]
    assert page.inner_text("#task-count") == "1 of 6 tasks"
    page.fill("#search", "")

    # the kind of answer and how close it came, in the list; every attempt's program in the detail
    beef = page.locator('#task-list li[data-id="beef0001"] .meta').inner_text()
    assert "partial" in beef and "99% cells right" in beef  # (55/56 + 56/56) / 2 of the cells
    page.click('#task-list li[data-id="beef0001"]')
    assert "partial" in page.inner_text("#answer-kind") and "closest the search came" in page.inner_text("#answer-kind")
    first = page.locator('#task-detail .test-row[data-test="0"]')
    assert first.locator(".cell.wrong").count() == 1
    captions = first.locator(".caption").all_inner_texts()
    assert "attempt 1 (partial): 1 wrong cell" in captions and "attempt 2 (tree): size 2x2, expected 7x8" in captions
    programs = page.locator("#task-detail pre.program")
    assert programs.all_inner_texts() == [PARTIAL, TREE]
    assert "Program of attempt 2" in page.locator("#task-detail h3").all_inner_texts()[-1]
    assert page.locator('#task-detail .test-row[data-test="1"] .cell.wrong').count() == 0
    shot(page, "run-unsolved")

    page.click('#task-list li[data-id="dead0003"]')
    assert "fill_enclosed" in page.inner_text("#task-detail pre.program")
    assert page.locator("#task-detail pre.program").count() == 1 and page.locator("#answer-kind").count() == 0

    # the failed tasks, the closest first: id order would put 0bad0005 first
    page.select_option("#sort-by", "closest")
    assert listed_ids(page) == ["beef0001", "0bad0005", "cafe0002", "f00d0004"]
    shot(page, "run-closest")
    page.select_option("#sort-by", "id")
    page.click('#task-list li[data-id="f00d0004"]')
    assert "no primitive fits" in page.inner_text("#task-detail")
    page.click('#task-list li[data-id="a1b2c3d4"]')
    shot(page, "run-solved")
    page.click("#solve-this")  # from a run into the solve view, with the run's expected outputs
    assert page.is_visible("#view-solve") and page.inner_text("#task-name") == "a1b2c3d4"
    page.click("#copy-input")
    assert submit(page) == "Wrong"


def test_run_from_picked_files_and_embedded(page, run_dir):
    page.set_content(web.page_html())
    page.wait_for_selector("body[data-ready]")
    page.click("#tab-run")
    assert page.is_visible("#run-empty")
    page.set_input_files("#run-files", [str(run_dir / "results.jsonl"), str(run_dir / "summary.json")])
    page.wait_for_selector("#task-list li")
    assert len(listed_ids(page)) == 6 and "pass@2 33.3%" in page.inner_text("#run-summary")

    page.goto("about:blank")  # a fresh document, as each notebook iframe is
    page.set_content(web.page_html(run=run_dir))  # what show_run puts in a notebook
    page.wait_for_selector("#task-list li")
    assert len(listed_ids(page)) == 6
    page.click('#task-list li[data-id="beef0001"]')
    shot(page, "run-embedded")


# ---------------------------------------------------------------- solve view: editing as a person does

def test_colour_fills_the_selection_undo_redo_hover_and_test_inputs(page):
    page.set_content(web.page_html(task=TASK, task_id="inline"))
    page.wait_for_selector("body[data-ready]")
    assert page.is_disabled("#prev-test") and page.is_disabled("#undo")
    page.click("#copy-input")
    drag_select(page, "output", (3, 3), (4, 4))
    page.click('#palette .swatch[data-colour="4"]')  # as in the original: selected cells take the colour
    filled = [row[:] for row in TEST1_IN]
    for r in (3, 4):
        filled[r][3:5] = [4, 4]
    assert output_grid(page) == filled
    page.keyboard.press("Control+z")
    assert output_grid(page) == TEST1_IN
    page.keyboard.press("Control+y")
    assert output_grid(page) == filled
    page.keyboard.press("0")  # a digit key fills the selection too
    assert output_grid(page) == TEST1_IN
    page.keyboard.press("Control+z")
    page.click("#undo")
    page.click("#undo")  # back before "Copy from input"
    assert output_grid(page) == [[0] * 3] * 3 and page.is_disabled("#undo")
    page.click("#redo")
    page.click("#redo")
    assert output_grid(page) == filled and page.is_enabled("#redo")

    # a drag with the Edit tool is one step of the history
    page.check('input[name="tool"][value="edit"]')
    cell(page, "output", 6, 0).hover()
    page.mouse.down()
    cell(page, "output", 6, 1).hover()
    cell(page, "output", 6, 2).hover()
    page.mouse.up()
    assert output_grid(page)[6][:3] == [0, 0, 0]  # colour 0 was picked last
    page.click('#palette .swatch[data-colour="3"]')
    cell(page, "output", 6, 0).hover()
    page.mouse.down()
    cell(page, "output", 6, 2).hover()
    page.mouse.up()
    assert output_grid(page)[6][:3] == [3, 0, 3]
    page.keyboard.press("Control+z")
    assert output_grid(page) == filled and page.is_disabled("#redo") is False

    # hover: which grid, which cell, its size
    cell(page, "output", 5, 6).hover()
    assert page.inner_text("#hover") == "output: row 5, col 6 of 7x8"
    cell(page, "input", 0, 1).hover()
    assert page.inner_text("#hover") == "test input: row 0, col 1 of 7x8"
    page.locator('#demos .grid[data-label="demo 2 output"] .cell[data-r="4"][data-c="5"]').hover()
    assert page.inner_text("#hover") == "demo 2 output: row 4, col 5 of 6x6"
    assert page.inner_text("#input-size") == "7x8"

    # each test input keeps its own output and history
    page.click("#next-test")
    assert page.inner_text("#input-size") == "5x6" and page.is_enabled("#prev-test")
    assert output_grid(page) == [[0] * 3] * 3 and page.is_disabled("#undo")
    cell(page, "output", 0, 0).click()
    page.click("#prev-test")
    assert page.inner_text("#test-index") == "1 of 2" and output_grid(page) == filled and page.is_enabled("#undo")
    page.click("#next-test")
    assert output_grid(page)[0][0] == 3
    shot(page, "solve-editing")


# ---------------------------------------------------------------- the task picker

def opened(page) -> str:
    return page.wait_for_selector("#task-name:not(:empty)").inner_text()


def test_picker_by_address_search_next_previous_and_random(page, server, task_folder):
    root = web.server_url(server)
    page.goto(root + "#task=arc1/train/007bbfb7")  # a URL per task opens it directly
    page.wait_for_selector("body[data-ready]")
    assert page.inner_text("#task-name") == "007bbfb7" and page.input_value("#set-picker") == "arc1/train"
    assert page.inner_text("#set-count") == "400 tasks"
    # the page holds no test output: the server checks answers
    assert page.evaluate("() => state.task.test.every(pair => !('output' in pair))")
    assert page.evaluate("() => state.expected.every(e => e === null)")
    sets = page.locator("#set-picker option").all_inner_texts()
    assert sets == ["arc1/train", "arc1/eval", "arc2/train", "arc2/eval", str(task_folder)]

    page.select_option("#set-picker", str(task_folder))
    page.wait_for_function("document.querySelector('#set-count').textContent === '3 tasks'")
    page.fill("#task-search", "box")
    assert page.locator("#picker-matches li").all_inner_texts() == ["box_fill"]
    page.click('#picker-matches li[data-id="box_fill"]')
    page.wait_for_function("document.querySelector('#task-name').textContent === 'box_fill'")
    assert page.evaluate("location.hash") == f"#task={task_folder}/box_fill"
    page.click("#next-task")
    page.wait_for_function("document.querySelector('#task-name').textContent === 'z_last'")
    assert page.is_disabled("#next-task")
    page.click("#prev-task")
    page.click("#prev-task")
    page.wait_for_function("document.querySelector('#task-name').textContent === 'a_first'")
    assert page.is_disabled("#prev-task") and page.evaluate("location.hash").endswith("/a_first")
    # two steps asked for before the first task's answer arrives go two tasks on, not one
    page.evaluate("() => { stepTask(1); stepTask(1); }")
    page.wait_for_function("document.querySelector('#task-name').textContent === 'z_last'")
    assert page.evaluate("location.hash").endswith("/z_last")
    page.click("#random-task")
    assert opened(page) in FOLDER_TASKS
    page.fill("#task-search", "z_")
    page.press("#task-search", "Enter")  # Enter opens the first match
    page.wait_for_function("document.querySelector('#task-name').textContent === 'z_last'")
    page.fill("#task-search", "nothing-like-it")
    assert "no task id holds" in page.inner_text("#picker-matches")

    # a new address in the same page opens its task; an unknown one is named
    page.evaluate("id => { location.hash = 'task=arc2/eval/' + id; }", "0934a4d8")
    page.wait_for_function("document.querySelector('#task-name').textContent === '0934a4d8'")
    page.goto(root + "#task=arc1/eval/nosuch")
    page.wait_for_selector("#message.error")
    assert "task 'nosuch' is not in arc1/eval" in page.inner_text("#message")
    shot(page, "picker")


def test_a_kaggle_challenges_file_and_a_folder_become_sets(page, tmp_path):
    page.set_content(web.page_html())
    page.wait_for_selector("body[data-ready]")
    challenges = {tid: {"train": t["train"], "test": [{"input": p["input"]} for p in t["test"]]}
                  for tid, t in FOLDER_TASKS.items()}
    solutions = {tid: [p["output"] for p in t["test"]] for tid, t in FOLDER_TASKS.items()}
    (tmp_path / "arc-agi_test_challenges.json").write_text(json.dumps(challenges))
    (tmp_path / "arc-agi_test_solutions.json").write_text(json.dumps(solutions))
    page.set_input_files("#task-file", [str(tmp_path / "arc-agi_test_challenges.json"),
                                        str(tmp_path / "arc-agi_test_solutions.json")])
    page.wait_for_function("document.querySelector('#task-name').textContent === 'a_first'")
    assert page.input_value("#set-picker") == "arc-agi_test_challenges" and page.inner_text("#set-count") == "3 tasks"
    page.click("#copy-input")  # a_first's answer is its input; the solutions file says so
    assert submit(page) == "Correct!"
    page.click("#next-task")
    page.wait_for_function("document.querySelector('#task-name').textContent === 'box_fill'")
    page.click("#copy-input")
    assert submit(page) == "Wrong"

    folder = tmp_path / "picked_folder"
    folder.mkdir()
    for tid in ("a_first", "z_last"):
        (folder / f"{tid}.json").write_text(json.dumps(FOLDER_TASKS[tid]))
    page.set_input_files("#task-folder", str(folder))
    page.wait_for_function("document.querySelector('#set-picker').value === 'picked_folder'")
    assert page.inner_text("#set-count") == "2 tasks" and opened(page) == "a_first"


def test_submits_are_checked_on_the_server_and_kept(page, server, run_dir, task_folder):
    results = run_dir / "human.jsonl"
    before = results.read_text().splitlines() if results.exists() else []
    page.goto(web.server_url(server) + f"#task={task_folder}/box_fill")
    page.wait_for_function("document.querySelector('#task-name').textContent === 'box_fill'")
    assert "human.jsonl" in page.inner_text("#recording")
    assert submit(page) == "Wrong"
    assert page.inner_text("#attempts") == "attempts: 1"
    page.click("#copy-input")
    page.click('#palette .swatch[data-colour="4"]')
    page.check('input[name="tool"][value="flood"]')
    cell(page, "output", 3, 3).click()
    drag_select(page, "input", (0, 0), (1, 1))
    page.keyboard.press("c")
    cell(page, "output", 5, 6).click()
    page.keyboard.press("v")
    assert submit(page) == "Correct!"
    assert page.inner_text("#attempts") == "attempts: 2"
    lines = results.read_text().splitlines()
    assert lines[:len(before)] == before and len(lines) == len(before) + 2  # appended, one line a submit
    rows = [json.loads(line) for line in lines[len(before):]]
    assert [(r["task_set"], r["task_id"], r["test"], r["attempt"], r["correct"], r["checked_by"]) for r in rows] == [
        (str(task_folder), "box_fill", 0, 1, False, "server"), (str(task_folder), "box_fill", 0, 2, True, "server")]
    assert rows[1]["grid"] == TEST1_OUT and rows[1]["edits"] == 3 and rows[1]["seconds"] >= rows[0]["seconds"]


# ---------------------------------------------------------------- replay a play run

def play_frame(colour_at: dict[tuple[int, int], int]) -> list[list[int]]:
    """A 64x64 frame of colour 5 (black) with a few cells set."""
    frame = [[5] * 64 for _ in range(64)]
    for (r, c), v in colour_at.items():
        frame[r][c] = v
    return frame


# two games as the play harness writes them: actions with the hash of the frame each led to
PLAY_FRAMES = {"aaaa00000000": play_frame({}), "bbbb00000000": play_frame({(0, 0): 8}),
               "cccc00000000": play_frame({(0, 0): 8, (0, 1): 14})}
PLAY_ROWS = [
    {"game_id": "tg01", "title": "steps", "agent": "explorer", "status": "won", "state": "WIN", "levels_completed": 2,
     "win_levels": 2, "actions": 3, "resets": 0, "level_actions": [2, 1], "baseline_actions": [2, 1], "stop": "win",
     "error": None, "start_hash": "aaaa00000000",
     "log": [["A1", "bbbb00000000"], ["A6@1,0", "cccc00000000"], ["A1", "aaaa00000000"]], "trace": {},
     "wall_s": 0.01, "efficiency": 1.0},
    {"game_id": "zz02", "title": "no frames kept", "agent": "explorer", "status": "played", "state": "NOT_FINISHED",
     "levels_completed": 0, "win_levels": 1, "actions": 1, "resets": 0, "level_actions": [], "baseline_actions": None,
     "stop": "max_actions", "error": None, "start_hash": "dddd00000000", "log": [["A2", "dddd00000000"]], "trace": {},
     "wall_s": 0.01, "efficiency": 0.0},
]


@pytest.fixture(scope="module")
def play_server(tmp_path_factory):
    import gzip

    run = tmp_path_factory.mktemp("play")
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in PLAY_ROWS))
    (run / "summary.json").write_text(json.dumps({"agent": "explorer", "n_games": 2}))
    (run / "frames").mkdir()
    (run / "frames" / "tg01.json.gz").write_bytes(gzip.compress(json.dumps(PLAY_FRAMES).encode()))
    srv = web.serve_in_thread(run)
    yield srv
    srv.shutdown()
    srv.server_close()


def test_play_routes_serve_games_actions_and_frames(play_server, server):
    status, body, _ = get(play_server, "/api/play/games")
    games = json.loads(body)
    assert status == 200 and [g["game_id"] for g in games["games"]] == ["tg01", "zz02"]
    assert "log" not in games["games"][0] and games["summary"]["agent"] == "explorer"
    status, body, _ = get(play_server, "/api/play/game?id=tg01")
    game = json.loads(body)
    assert status == 200 and game["game"]["log"] == PLAY_ROWS[0]["log"] and game["frames"] == PLAY_FRAMES
    assert len(game["palette"]) == 16 and game["palette"][0] == "#ffffff" and game["palette"][5] == "#000000"
    status, body, _ = get(play_server, "/api/play/game?id=zz02")
    assert status == 200 and json.loads(body)["frames"] == {}  # no frames file: the actions still show
    status, body, _ = get(play_server, "/api/play/game?id=nope")
    assert status == 404 and "no game 'nope'" in json.loads(body)["error"]
    status, body, _ = get(server, "/api/play/games")  # a solve run is not a play run
    assert status == 404 and "not a play run" in json.loads(body)["error"]


def frame_pixel(page, r, c):
    """The RGB the canvas shows at frame cell (r, c)."""
    return page.evaluate("""([r, c]) => {
        const canvas = document.getElementById('play-frame');
        const cell = canvas.width / 64;
        return Array.from(canvas.getContext('2d').getImageData(c * cell + 1, r * cell + 1, 1, 1).data.slice(0, 3));
    }""", [r, c])


def test_replay_steps_through_frames_with_the_arrow_keys(page, play_server):
    page.goto(web.server_url(play_server))
    page.wait_for_selector("body[data-ready]")
    assert page.is_visible("#view-play") and not page.is_visible("#view-run")
    page.wait_for_selector('#play-actions li.current[data-step="0"]')
    assert page.locator("#play-actions li").count() == 4  # the reset, then three actions
    assert "won" in page.inner_text("#play-outcome") and "levels 2/2" in page.inner_text("#play-outcome")
    assert page.get_attribute("#play-frame", "data-hash") == "aaaa00000000"
    assert frame_pixel(page, 0, 0) == [0, 0, 0]  # colour 5 is black in the toolkit's palette
    before = page.evaluate("document.getElementById('play-frame').toDataURL()")

    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#play-frame", "data-hash") == "bbbb00000000"
    assert page.inner_text("#play-actions li.current").startswith("A1")
    assert page.get_attribute("#play-actions li.current", "data-step") == "1"
    assert frame_pixel(page, 0, 0) == [0xF9, 0x3C, 0x31]  # colour 8
    assert page.evaluate("document.getElementById('play-frame').toDataURL()") != before
    assert "levels 0/2" in page.inner_text("#play-at")

    page.keyboard.press("ArrowRight")
    assert page.inner_text("#play-actions li.current").startswith("A6@1,0")
    assert frame_pixel(page, 0, 1) == [0x4F, 0xCC, 0x30]  # colour 14
    assert "levels 1/2" in page.inner_text("#play-at")  # level 1 took two actions
    page.keyboard.press("End")
    assert page.is_disabled("#play-next") and "levels 2/2" in page.inner_text("#play-at")
    page.keyboard.press("ArrowLeft")
    assert page.get_attribute("#play-actions li.current", "data-step") == "2"
    page.click("#play-first")
    assert page.input_value("#play-step") == "0" and page.is_disabled("#play-prev")
    page.click('#play-actions li[data-step="3"]')
    assert page.get_attribute("#play-frame", "data-hash") == "aaaa00000000"
    page.fill("#play-step", "1")  # the slider
    assert page.get_attribute("#play-actions li.current", "data-step") == "1"
    shot(page, "replay")

    page.select_option("#play-game", "zz02")  # a game without a frames file: actions, and a note
    page.wait_for_selector("#play-missing:not([hidden])")
    assert page.locator("#play-actions li").count() == 2 and "played" in page.inner_text("#play-outcome")
    page.click("#tab-solve")  # the other views are still there
    assert page.is_visible("#view-solve")
