"""Builders -> notebooks -> papermill: deterministic builds and a smoke run of every notebook."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from shared import build, smoke

# every notebook's text, built in a fresh interpreter: what a second machine or a later run would write
BUILD_ALL = ("import json; from shared import build; "
             "print(json.dumps({t.name: build.notebook_text(b, v) for b, v, t in build.targets()}))")


def build_in_a_new_process(hash_seed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}  # set and dict orders differ between the two
    return subprocess.run([sys.executable, "-c", BUILD_ALL], cwd=build.REPO, env=env, capture_output=True,
                          check=True).stdout


def test_two_processes_build_the_same_bytes_and_committed_notebooks_are_current():
    first, second = build_in_a_new_process("1"), build_in_a_new_process("2")
    assert first == second, "two builds differ: a notebook depends on hash order, time or the process"
    built = json.loads(first)
    assert sorted(built) == sorted(t.name for _, _, t in build.targets())
    stale = [name for name, text in built.items() if (build.NOTEBOOKS / name).read_text() != text]
    assert stale == [], "notebooks/ is stale: run python -m shared build"
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


# what the last cell of each notebook prints when the run got through (papermill only says nothing raised)
CLOSING = {
    "04_ttt": r"mean seconds per task: without \d+\.\d+, with TTT \d+\.\d+",
    "07_auto_retrain": r"round \d+: \d+ of \d+ training tasks hard; the mix had \d+ examples",
    "09_arc_agi_3": r"(random: won \d+/\d+ levels|skipped the games: ARC-AGI-3 needs Python >= 3\.12)",
    "08_program_synthesis": r"reports: \S+handwritten_run/report\.html and \S+synth_verified/report\.html",
    "bench_pipeline": r"\{'before': \{'benchmark': '\w+', 'items': [1-9]\d*.*'after': \{",
    "kaggle_submission": r"wrote \S+submission\.json: [1-9]\d* tasks",
}


def printed(cell: dict) -> str:
    """The text a cell showed: its printed streams and the plain-text form of what it displayed."""
    parts = []
    for o in cell.get("outputs", []):
        parts.append("".join(o.get("text", "")))
        parts.append("".join(o.get("data", {}).get("text/plain", "")))
    return "".join(parts)


@pytest.mark.slow
@pytest.mark.parametrize("notebook", sorted(build.NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_notebook_runs_under_smoke_profile_and_prints_its_plan_and_result(notebook, monkeypatch):
    if notebook.stem == "kaggle_submission":
        # its inlined library lives in a fresh folder, which numba's cache does not know: the kernels
        # would all compile again (minutes); the compiled path is the DSL tests' subject, the flow this one's
        monkeypatch.setenv("ARC_DSL_PURE", "1")
    executed = json.loads(smoke.run_notebook(notebook).read_text())
    code = [c for c in executed["cells"] if c["cell_type"] == "code"]
    stem = re.sub(r"_(gsm8k|humaneval)$", "", notebook.stem)  # a variant prints its builder's plan
    if stem != "kaggle_submission":  # offline and fixed-size: it has no plan to print
        text = "".join(printed(c) for c in code)
        assert re.search(rf"^plan of {stem} on profile smoke \(.+\):$", text, re.M), \
            "no plan printed, or not the smoke profile papermill passed in"
        assert re.search(r"^  total \(estimate\) +\S+", text, re.M)
    last = printed(code[-1])
    assert last.strip(), f"the last cell of {notebook.name} showed nothing"
    if stem in CLOSING:
        assert re.search(CLOSING[stem], last), f"{notebook.name} did not close with {CLOSING[stem]!r}:\n{last[-500:]}"
