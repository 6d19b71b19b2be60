"""`python -m shared dsl-bench` runs and reports what it measured (the figures themselves are a
benchmark's, never asserted)."""

import json

import pytest

from shared.solvers.dsl import bench, jit


def test_dsl_bench_prints_a_line_per_task_and_medians_and_appends_rows(tmp_path, capsys):
    out = tmp_path / "bench.jsonl"
    assert bench.main(["--tasks", "arc1/train", "--limit", "2", "--budget-s", "0.5", "--cap-s", "0.5",
                       "--out", str(out), "--no-compile"]) == 0
    lines = capsys.readouterr().out.splitlines()
    if not jit.COMPILED:
        assert lines[0].startswith("compiled core: no, numba unavailable")
        lines = lines[1:]
    assert [x.split()[0] for x in lines[0:2]] == ["007bbfb7", "00d62c1b"]
    assert lines[-1].startswith("median over 2 tasks: solver ")
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["task_id"] for r in rows[:2]] == ["007bbfb7", "00d62c1b"] and "summary" in rows[2]
    for r in rows[:2]:
        assert [d["depth"] for d in r["depths"]] == [2, 3]
        assert all(d["stopped"] in ("exhausted", "time", "memory", "solved") for d in r["depths"])
        assert all((d["exhausted_s"] is not None) == (d["stopped"] == "exhausted") for d in r["depths"])
        assert all(d["computed"] > 0 and d["images_per_s"] > 0 for d in r["depths"])
    assert rows[2]["summary"]["tasks"] == 2
    assert rows[2]["summary"]["compile_cold_s"] is None  # --no-compile


def test_compile_times_are_read_in_fresh_processes(monkeypatch):
    calls = []

    def fake_run(cmd, env, **kw):
        calls.append((cmd, env["ARC_DSL_CACHE"]))

    monkeypatch.setattr(bench.subprocess, "run", fake_run)
    cold, cached = bench.compile_times()
    assert len(calls) == 2 and calls[0][1] == calls[1][1]  # the second process reads the first one's cache
    assert "warm()" in calls[0][0][-1]
    assert cold >= 0 and cached >= 0


def test_dsl_bench_refuses_a_budget_that_is_not_positive(capsys):
    with pytest.raises(SystemExit) as e:
        bench.main(["--limit", "1", "--budget-s", "0"])
    assert e.value.code == 2
    assert "--budget-s and --cap-s must be positive" in capsys.readouterr().err
