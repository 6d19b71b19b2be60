"""Builders -> notebooks -> papermill: deterministic builds and a smoke run of every notebook."""

from __future__ import annotations

import json

import pytest

from shared import build, smoke


def test_build_is_byte_identical_and_committed_notebooks_are_current():
    for b, v, _ in build.targets():
        assert build.notebook_text(b, v) == build.notebook_text(b, v)
    assert build.build_all(check=True) == [], "notebooks/ is stale: run python -m shared build"
    built = {t.name for _, _, t in build.targets()}
    assert {p.name for p in build.NOTEBOOKS.glob("*.ipynb")} == built, "a notebook without a builder"


def test_notebook_shape():
    for b, v, _ in build.targets():
        nb = json.loads(build.notebook_text(b, v))
        cells = nb["cells"]
        assert "do not edit" in "".join(cells[0]["source"]) and b.name in "".join(cells[0]["source"])
        assert cells[1]["cell_type"] == "markdown" and "".join(cells[1]["source"]).startswith("# ")
        params = [i for i, c in enumerate(cells) if "parameters" in c.get("metadata", {}).get("tags", [])]
        assert len(params) == 1
        assert 'PROFILE = "auto"' in "".join(cells[params[0]]["source"])
        after = "".join(cells[params[0] + 1]["source"])
        if "LIBRARY = {" in after:  # the library inlined (Kaggle, offline): no setup cell, nothing to clone
            assert "REPO_URL" not in "".join(cells[params[0]]["source"])
        else:
            assert after == build.SETUP_CELL and "REPO_URL = " in "".join(cells[params[0]]["source"])
        assert all(c.get("outputs", []) == [] for c in cells)
        assert nb["metadata"]["accelerator"] == "GPU"
        assert [c["id"] for c in cells] == [f"cell-{i:02d}" for i in range(len(cells))]


def test_builder_without_parameters_cell_is_refused(tmp_path):
    b = tmp_path / "99_bad.py"
    b.write_text("# %%\nx = 1\n")
    with pytest.raises(build.BuildError, match="no cell tagged 'parameters'"):
        build.build_notebook(b)


def test_variants_make_one_notebook_per_value(tmp_path):
    b = tmp_path / "bench_pipeline.py"
    b.write_text('# %% [markdown]\n# # T\n\n# %% tags=["parameters"]\nPROFILE = "auto"\n'
                 'BENCHMARK = "gsm8k"  # variants: gsm8k, humaneval\n\n# %%\nprint(BENCHMARK)\n')
    vs = build.variants(b)
    assert [v[2] for v in vs] == ["bench_pipeline_gsm8k", "bench_pipeline_humaneval"]
    for v in vs:
        cells = json.loads(build.notebook_text(b, v))["cells"]
        params = "".join(next(c for c in cells if "parameters" in c["metadata"].get("tags", []))["source"])
        assert f'BENCHMARK = "{v[1]}"' in params and "variants:" not in params
    plain = tmp_path / "plain.py"
    plain.write_text('# %% tags=["parameters"]\nPROFILE = "auto"\n')
    assert build.variants(plain) == [None]


@pytest.mark.slow
@pytest.mark.parametrize("notebook", sorted(build.NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_notebook_runs_under_smoke_profile(notebook):
    out = smoke.run_notebook(notebook)
    executed = json.loads(out.read_text())
    errors = [o for c in executed["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
    assert executed["cells"][2]["source"]  # papermill injected or kept the parameters
