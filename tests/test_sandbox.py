"""The sandbox's ordinary behaviour: verdicts, validation, limits, worker reuse and isolation."""

from __future__ import annotations

import numpy as np
import pytest

from shared.sandbox import Job, SandboxPool, run_program, task_job
from shared.sandbox import pool as sandbox_pool
from shared.tasks import Pair, Task, TaskError

FLIP = "def solve(grid):\n    return [row[::-1] for row in grid]\n"
GRID = [[1, 2], [3, 4]]
FLIPPED = [[2, 1], [4, 3]]


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(workers=1, time_limit_s=1.0) as p:
        yield p


def test_right_program_is_ok_and_output_comes_back_as_a_grid(pool):
    v = pool.run(FLIP, [GRID], [FLIPPED])
    assert v.status == "ok" and v.ok
    assert v.outputs[0].dtype == np.uint8 and v.outputs[0].tolist() == FLIPPED


def test_wrong_output_is_wrong_with_the_cells_that_differ(pool):
    v = pool.run("def solve(grid):\n    return grid\n", [GRID], [FLIPPED])
    assert v.status == "wrong"
    assert v.outcomes[0].detail == "4 of 4 cells differ"
    assert v.outputs[0].tolist() == GRID


def test_wrong_size_is_named(pool):
    v = pool.run("def solve(grid):\n    return [[1]]\n", [GRID], [FLIPPED])
    assert v.status == "wrong" and "expected 2x2, got 1x1" in v.detail


def test_without_expected_a_valid_grid_is_ok(pool):
    assert pool.run(FLIP, [GRID]).status == "ok"


def test_integer_ndarray_return_is_accepted_float_is_not(pool):
    ok = pool.run("import numpy as np\ndef solve(grid):\n    return np.fliplr(np.array(grid))\n", [GRID], [FLIPPED])
    assert ok.status == "ok"
    bad = pool.run("import numpy as np\ndef solve(grid):\n    return np.array(grid, dtype=float)\n", [GRID])
    assert bad.status == "bad_output" and "dtype float64" in bad.detail


def test_ndarray_inputs_are_validated_like_lists(pool):
    assert pool.run(FLIP, [np.array(GRID)], [np.array(FLIPPED)]).status == "ok"
    with pytest.raises(TaskError, match="colour 12"):
        pool.run(FLIP, [[[12]]])


def test_error_names_the_exception_and_the_program_line(pool):
    v = pool.run("def solve(grid):\n    x = 1\n    return grid[5]\n", [GRID])
    assert v.status == "error"
    assert "IndexError" in v.detail and "line 3 of the program" in v.detail


def test_program_without_solve_is_an_error(pool):
    v = pool.run("def answer(grid):\n    return grid\n", [GRID])
    assert v.status == "error" and "no function solve" in v.detail


def test_syntax_error_is_an_error_with_its_line(pool):
    v = pool.run("import numpy\n\ndef solve(grid) return grid", [GRID])
    assert v.status == "error" and "SyntaxError" in v.detail and "line 3 of the program" in v.detail


def test_outcomes_are_per_input(pool):
    code = "def solve(grid):\n    if len(grid) > 1:\n        raise ValueError('tall')\n    return grid\n"
    v = pool.run(code, [[[1]], GRID, [[3]]], [[[1]], GRID, [[4]]])
    assert [o.status for o in v.outcomes] == ["ok", "error", "wrong"]
    assert v.status == "error"


def test_each_input_gets_its_own_copy(pool):
    code = "def solve(grid):\n    grid[0][0] = 9\n    return grid\n"
    v = pool.run(code, [GRID, GRID], [[[9, 2], [3, 4]], [[9, 2], [3, 4]]])
    assert v.status == "ok"


def test_clean_runs_reuse_the_worker():
    with SandboxPool(workers=1) as p:
        for _ in range(5):
            assert p.run(FLIP, [GRID], [FLIPPED]).ok
        assert p.spawned == 1 and p.replaced == 0


def test_run_many_keeps_order_across_workers():
    codes = [f"def solve(grid):\n    return [[{i}]]\n" for i in range(10)]
    with SandboxPool(workers=2) as p:
        verdicts = p.run_many([Job(c, [GRID]) for c in codes])
        assert p.spawned == 2
    assert [int(v.outputs[0][0, 0]) for v in verdicts] == list(range(10))


def test_environment_is_scrubbed(pool, monkeypatch):
    monkeypatch.setenv("ARC_LLM_API_KEY", "secret-key")
    code = "import os\ndef solve(grid):\n    return [[len(os.environ) % 10, int('ARC_LLM_API_KEY' in os.environ)]]\n"
    with SandboxPool(workers=1) as fresh:  # a worker started after the variable was set
        v = fresh.run(code, [GRID])
    assert v.ok and v.outputs[0][0, 1] == 0


def test_files_may_be_written_in_the_temporary_directory_and_are_gone_next_call(pool):
    write = "def solve(grid):\n    open('note.txt', 'w').write('x')\n    return [[len(open('note.txt').read())]]\n"
    assert pool.run(write, [GRID], [[[1]]]).status == "ok"
    check = "import os\ndef solve(grid):\n    return [[int(os.path.exists('note.txt'))]]\n"
    assert pool.run(check, [GRID], [[[0]]]).status == "ok"


def test_imports_of_the_stdlib_still_work(pool):
    code = ("import collections, itertools, typing, fractions\nfrom dataclasses import dataclass\n"
            "P = collections.namedtuple('P', 'r c')\n"
            "def solve(grid):\n    return [[fractions.Fraction(4, 2).numerator]]\n")
    assert pool.run(code, [GRID], [[[2]]]).status == "ok"


def test_run_program_uses_a_shared_pool():
    assert run_program(FLIP, [GRID], [FLIPPED]).ok


def test_task_job_checks_demos_then_tests():
    task = Task("t", (Pair(np.array(GRID, np.uint8), np.array(FLIPPED, np.uint8)),),
                (Pair(np.array([[5, 6]], np.uint8), np.array([[6, 5]], np.uint8)),))
    job = task_job(FLIP, task)
    assert len(job.inputs) == 2 and job.expected[1].tolist() == [[6, 5]]
    assert task_job(FLIP, task, test_outputs=False).expected[1] is None


@pytest.mark.parametrize("value", [[[True]], [[1.0]], [[1, 2], [3]], [[1] * 31], [[-1]], [[10]], [[2**70]], [1, 2],
                                   "12", np.zeros((2, 2), dtype=float), np.zeros((1, 31), dtype=int)])
def test_fast_grid_check_refuses_what_as_grid_refuses(value):
    from shared.sandbox.pool import checked_grid

    with pytest.raises(TaskError):
        checked_grid(value, "output 0")


def test_fast_grid_check_accepts_lists_and_integer_arrays():
    from shared.sandbox.pool import checked_grid

    for value in (GRID, np.array(GRID, dtype=np.int64), np.array(GRID, dtype=np.uint8), [[np.int32(9)]]):
        g = checked_grid(value, "grid")
        assert g.dtype == np.uint8 and g.tolist() == np.asarray(value).tolist()


def test_sandbox_bench_command_prints_both_figures(capsys):
    from shared.sandbox import bench

    assert bench.main(["--n", "20", "--tasks", "5", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "verifications/s on 1 workers; plain exec:" in out and "(ceiling)" in out


def test_a_dsl_library_pool_runs_printed_dsl_programs_and_a_plain_pool_does_not():
    from shared.solvers.dsl.program import INPUT, call, to_source

    src = to_source(call("recolor", call("flip_lr", call("crop_content", INPUT)), args=({1: 7},)))
    grid, answer = [[0, 0, 0], [0, 1, 2]], [[2, 7]]
    with SandboxPool(workers=1, library="dsl") as dsl:
        assert dsl.run(src, [grid], [answer]).status == "ok"
    plain = run_program(src, [grid], [answer])
    assert plain.status == "error" and "No module named 'shared'" in plain.detail


def test_dsl_library_workers_get_the_cache_folder_and_the_pure_switch(monkeypatch):
    from shared.solvers.dsl import jit
    from shared.solvers.dsl.primitives import worker_env

    monkeypatch.setenv("ARC_DSL_CACHE", "/somewhere/cache")
    monkeypatch.setenv("ARC_DSL_PURE", "1")
    env = worker_env()
    assert env["ARC_DSL_CACHE"] == "/somewhere/cache" and env["ARC_DSL_PURE"] == "1"
    assert (env.get(jit.PRELOADED) == "1") == jit.COMPILED  # only compiled kernels are preloaded
    monkeypatch.delenv("ARC_DSL_CACHE")
    monkeypatch.delenv("ARC_DSL_PURE")
    assert "ARC_DSL_CACHE" not in worker_env() and "ARC_DSL_PURE" not in worker_env()


def test_workers_that_cannot_start_fail_the_jobs_and_say_why(monkeypatch, tmp_path):
    with SandboxPool(workers=1) as pool:  # a library the worker cannot import: it exits at once
        pool.config["library"] = {"path": "/nonexistent", "package": "nowhere", "modules": ["nowhere.at_all"]}
        verdict = pool.run(FLIP, [GRID])
    assert verdict.status == "crash"
    assert "workers fail to start (3 tries; the last: one failed to set up: ModuleNotFoundError: No module named " \
           "'nowhere')" in verdict.detail
    quitter = tmp_path / "quits.py"
    quitter.write_text("raise SystemExit(3)\n")
    monkeypatch.setattr(sandbox_pool, "WORKER", quitter)  # a worker that exits without a word
    with SandboxPool(workers=1) as pool:
        assert "the last: one exited while starting (exit code 3))" in pool.run(FLIP, [GRID]).detail
    monkeypatch.undo()
    monkeypatch.setattr(sandbox_pool, "START_TIMEOUT_S", 0.0)  # no worker is ready that soon
    with SandboxPool(workers=2) as pool:
        verdicts = pool.run_many([Job(FLIP, [GRID]), Job(FLIP, [GRID])])
    assert all(v.status == "crash" and "the last: one was not ready within 0 s" in v.detail for v in verdicts)


def test_dsl_library_workers_start_while_another_process_holds_the_compile_lock():
    """The pool's own process compiles every kernel before it starts workers, so they load them
    without the compile lock: they start even while another process holds it (a second test
    worker compiling on a cold cache held it for minutes, past the workers' start timeout)."""
    fcntl = pytest.importorskip("fcntl")
    from shared.solvers.dsl import jit
    from shared.solvers.dsl.primitives import preload

    if not jit.COMPILED:
        pytest.skip("without numba there is no compile lock")
    preload()  # this process's tables are built: the pool's own preload needs no lock
    jit.cache_dir().mkdir(parents=True, exist_ok=True)
    with open(jit.cache_dir() / "compile.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # held as another process would: flock locks per open file
        with SandboxPool(workers=1, library="dsl") as pool:
            verdict = pool.run("from shared.solvers.dsl.primitives import *\ndef solve(I):\n    return flip_lr(I)\n",
                               [GRID], [FLIPPED])
    assert verdict.status == "ok", verdict.detail


@pytest.mark.parametrize("attack", [
    # a primitive written in Python (the kernel ones are wrappers over compiled code)
    "import shared.solvers.dsl.primitives.props as m\nm.part_table.__code__ = (lambda g: None).__code__",
    "import shared.solvers.dsl.primitives as m\nm.flip_lr = m.transpose",
    "from shared.solvers.dsl.primitives import PRIMITIVES\nPRIMITIVES.pop('flip_lr')",
    "import shared.solvers.dsl.solver as m\nm._PROBE[0, 0] = 9",
])
def test_a_program_that_changes_the_library_is_forbidden_and_the_next_one_sees_it_intact(attack):
    use = "from shared.solvers.dsl.primitives import *\nfrom shared.solvers.dsl.primitives import PRIMITIVES\n" \
          "def solve(I):\n    assert 'flip_lr' in PRIMITIVES and I.dtype == np.uint8\n" \
          "    assert part_table.__code__.co_name == 'part_table'\n    return flip_lr(I)\n"
    with SandboxPool(workers=1, library="dsl") as pool:
        bad = pool.run(attack + "\ndef solve(grid):\n    return grid\n", [GRID])
        assert bad.status == "forbidden" and "preloaded library" in bad.detail
        assert pool.run(use, [GRID], [FLIPPED]).status == "ok"


def test_an_unknown_library_is_named():
    with pytest.raises(ValueError, match="no sandbox library named 'dls'; known: dsl"):
        SandboxPool(library="dls")
