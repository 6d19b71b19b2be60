"""ruff over the whole repository (configured in pyproject.toml)."""

import shutil
import subprocess

import pytest

from shared.build import REPO


def test_ruff_clean():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.fail("ruff is not installed (pip install -r requirements.txt)")
    res = subprocess.run([ruff, "check", str(REPO)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
