"""`python -m shared dsl-bench` runs and reports what it measured (the figures themselves are a
benchmark's, never asserted)."""

import json

import pytest

from shared.solvers.dsl import bench


def test_dsl_bench_prints_a_line_per_task_and_medians_and_appends_rows(tmp_path, capsys):
    out = tmp_path / "bench.jsonl"
    assert bench.main(["--tasks", "arc1/train", "--limit", "2", "--budget-s", "0.5", "--cap-s", "0.5",
                       "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("compiled core: none")
    assert [x.split()[0] for x in lines[1:3]] == ["007bbfb7", "00d62c1b"]
    assert lines[-1].startswith("median over 2 tasks: solver ")
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["task_id"] for r in rows[:2]] == ["007bbfb7", "00d62c1b"] and "summary" in rows[2]
    for r in rows[:2]:
        assert [d["depth"] for d in r["depths"]] == [2, 3]
        assert all(d["stopped"] in ("exhausted", "time", "memory", "solved") for d in r["depths"])
        assert all((d["exhausted_s"] is not None) == (d["stopped"] == "exhausted") for d in r["depths"])
    assert rows[2]["summary"]["tasks"] == 2


def test_dsl_bench_refuses_a_budget_that_is_not_positive(capsys):
    with pytest.raises(SystemExit) as e:
        bench.main(["--limit", "1", "--budget-s", "0"])
    assert e.value.code == 2
    assert "--budget-s and --cap-s must be positive" in capsys.readouterr().err
