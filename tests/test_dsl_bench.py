"""`python -m shared dsl-bench` runs and reports what it measured (the figures themselves are a
benchmark's, never asserted)."""

import dataclasses
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


def test_dsl_bench_fits_times_each_fit_and_restores_the_fitters(tmp_path, capsys):
    from shared.solvers.dsl import fitters

    before = fitters.FITTERS
    out = tmp_path / "fits.jsonl"
    assert bench.main(["--tasks", "arc1/train", "--limit", "2", "--budget-s", "1", "--fits", "--out", str(out)]) == 0
    assert fitters.FITTERS is before  # the timers are gone once it returns
    lines = capsys.readouterr().out.splitlines()
    assert [x.split()[0] for x in lines[0:2]] == ["007bbfb7", "00d62c1b"]
    assert lines[2].split() == ["fit", "seconds", "calls", "found", "share"]
    assert lines[-1].startswith("all fits ") and "over 2 tasks" in lines[-1]
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["task_id"] for r in rows[:2]] == ["007bbfb7", "00d62c1b"]
    names = {f.name for f in before}
    for r in rows[:2]:
        assert r["fits"] and set(r["fits"]) <= names
        assert all(calls > 0 and secs >= 0 and found >= 0 for secs, calls, found in r["fits"].values())
    # 007bbfb7 is solved by a fitted or exact program: some fit found an ending on some state
    table = rows[2]["summary"]["fits"]
    assert {row[0] for row in table} == set().union(*(r["fits"] for r in rows[:2]))
    assert sum(row[2] for row in table) == sum(c for r in rows[:2] for _, c, _ in r["fits"].values())


def test_timed_fits_counts_what_a_fit_returns(monkeypatch):
    from collections import defaultdict

    from shared.solvers.dsl import fitters

    entry = dataclasses.replace(fitters.FITTERS[0], name="stand_in", fit=lambda ctx, demo, outputs, test: [(1,), (2,)])
    monkeypatch.setattr(fitters, "FITTERS", (entry,))
    totals = defaultdict(lambda: [0.0, 0, 0])
    with bench.timed_fits(totals):
        for _ in range(3):
            assert fitters.FITTERS[0].fit(None, [], [], []) == [(1,), (2,)]
    assert fitters.FITTERS == (entry,)
    assert list(totals) == ["stand_in"] and totals["stand_in"][1:] == [3, 6] and totals["stand_in"][0] >= 0
