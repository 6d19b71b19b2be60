"""ARC-AGI-3: interactive grid games played offline by the suite's agents, scored against humans.

The harness (`harness`) plays an agent (`agents`: random, scripted, explorer, llm) over a folder
of games through the ARC-AGI-3 toolkit in offline mode and writes a run folder; `scorecard`
scores it against the games' human action counts; `games/` holds the project's own games.
The toolkit (`arc-agi`, `arcengine`) needs Python >= 3.12: this module imports neither, so the
rest of the suite (Python 3.11) imports it freely, and `require()` says clearly what is missing.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

MIN_PYTHON = (3, 12)  # arc-agi 0.9.9 and arcengine 0.9.3 declare Requires-Python >= 3.12
PACKAGES = ("arc_agi", "arcengine")  # import names of the pip packages arc-agi and arcengine
GAMES_DIR = Path(__file__).parent / "games"  # the project's own games, one folder each
NEEDS = "ARC-AGI-3 needs Python >= 3.12 and `pip install arc-agi arcengine`"
# the notebook's action budget per game: the explorer wins every project game in under 1,300 actions
# (tests/arc3/test_explorer.py), so 2,000 leaves it room and gives random the same chance
MAX_ACTIONS = 2000
MAX_SECONDS = 120.0  # wall time per game: 2,000 actions take about a second, so only a slow agent (llm) meets it


class ToolkitMissing(RuntimeError):
    """The ARC-AGI-3 toolkit cannot run here: Python too old or the packages not installed."""


def missing() -> str | None:
    """Why the toolkit cannot run here (the message `require` raises), or None when it can."""
    if sys.version_info < MIN_PYTHON:
        return f"{NEEDS}; this is Python {sys.version.split()[0]}"
    absent = [name for name in PACKAGES if importlib.util.find_spec(name) is None]
    if absent:
        return f"{NEEDS}; not installed here: {', '.join(absent)}"
    return None


def available() -> bool:
    return missing() is None


def require() -> None:
    """Raise ToolkitMissing with a clear message unless the toolkit can run in this interpreter."""
    reason = missing()
    if reason:
        raise ToolkitMissing(reason)


def install_toolkit(quiet: bool = True) -> str:
    """pip-install arc-agi and arcengine when this Python is new enough and they are absent.
    Returns what happened, in a line; never installs on an older Python (pip would refuse)."""
    if sys.version_info < MIN_PYTHON:
        return f"{NEEDS}; this is Python {sys.version.split()[0]}, so the games are skipped"
    if available():
        return "ARC-AGI-3 toolkit: already installed"
    subprocess.run([sys.executable, "-m", "pip", "install", *(["-q"] if quiet else []), "arc-agi", "arcengine"],
                   check=True)
    importlib.invalidate_caches()
    require()
    return "ARC-AGI-3 toolkit: installed arc-agi and arcengine"


def notebook_plan(profile, n_games: int, agents: list[str], max_actions: int):
    """The plan notebook 09 prints: each agent plays every game to at most `max_actions`."""
    from shared import plan

    return plan.notebook("09_arc_agi_3", profile, agents=tuple(agents), n_games=n_games, max_actions=max_actions)
