"""ARC-AGI-3 on the suite's own Python: without the toolkit (Python < 3.12, or arc-agi and arcengine
not installed) the part imports, and says clearly what it needs instead of failing on an import.
The games themselves are tested in tests/arc3 under Python 3.12 (.ci/run makes that venv)."""

from __future__ import annotations

import sys

import pytest

from shared import arc3


@pytest.fixture
def old_python(monkeypatch):
    monkeypatch.setattr(sys, "version_info", (3, 11, 7, "final", 0))


def test_every_module_imports_without_the_toolkit():
    from shared.arc3 import agents, explorer, frames, harness, llm, scorecard  # noqa: F401

    assert "arcengine" not in sys.modules or arc3.available()


def test_require_names_the_python_and_the_packages(old_python):
    with pytest.raises(arc3.ToolkitMissing, match=r"^ARC-AGI-3 needs Python >= 3\.12 and `pip install arc-agi "
                                                  r"arcengine`; this is Python \d"):
        arc3.require()
    assert not arc3.available()
    assert "games are skipped" in arc3.install_toolkit()  # never runs pip on a Python it cannot serve


def test_play_command_fails_with_the_clear_message(old_python, tmp_path, capsys):
    from shared.__main__ import main

    assert main(["play", "--agent", "explorer", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "error: ARC-AGI-3 needs Python >= 3.12 and `pip install arc-agi arcengine`" in err
    assert not (tmp_path / "run").exists()


def test_the_project_games_are_there_for_the_toolkit():
    import json

    metas = sorted(arc3.GAMES_DIR.glob("*/metadata.json"))
    assert len(metas) >= 4
    for m in metas:
        meta = json.loads(m.read_text())
        assert (m.parent / f"{meta['class_name'].lower()}.py").exists()
        assert len(meta["baseline_actions"]) >= 2 and all(n > 0 for n in meta["baseline_actions"])
        walk = json.loads((m.parent / "walkthrough.json").read_text())
        assert [len(level) for level in walk["levels"]] == meta["baseline_actions"]
