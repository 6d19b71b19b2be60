"""ARC-AGI-3 tests: they need Python >= 3.12 with arc-agi and arcengine (.ci/run makes such a venv).
Elsewhere (the 3.11 suite) they are not collected; tests/test_arc3_gate.py checks the message instead."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from shared.arc3 import missing

collect_ignore_glob = ["test_*.py"] if missing() else []

# a game that is won by ACTION1 three times per level, two levels; ACTION2 does nothing
STEPS_GAME = '''
from arcengine import ARCBaseGame, Camera, GameAction, Level, Sprite


class Tg01(ARCBaseGame):
    def __init__(self, seed: int = 0) -> None:
        levels = [Level(sprites=[Sprite([[8]], name="dot", x=0, y=0)], grid_size=(4, 4), data={}, name=str(i))
                  for i in range(2)]
        super().__init__("tg01", levels, Camera(width=4, height=4, background=5, letter_box=5),
                         available_actions=[1, 2], seed=seed)

    def step(self) -> None:
        if self.action.id == GameAction.ACTION1:
            dot = self.current_level.get_sprites_by_name("dot")[0]
            dot.set_position(dot.x + 1, 0)
            if dot.x == 3:
                self.next_level()
        self.complete_action()
'''

# a game whose step raises on the second step it runs: the first action after the reset
BOOM_GAME = '''
from arcengine import ARCBaseGame, Camera, Level, Sprite


class Bo01(ARCBaseGame):
    def __init__(self, seed: int = 0) -> None:
        self.n = 0
        level = Level(sprites=[Sprite([[8]], name="dot")], grid_size=(4, 4), data={}, name="only")
        super().__init__("bo01", [level], Camera(width=4, height=4), available_actions=[1], seed=seed)

    def step(self) -> None:
        self.n += 1
        if self.n >= 2:
            raise RuntimeError("the game broke on purpose")
        self.complete_action()
'''


def write_game(root: Path, game_id: str, source: str, baseline: list[int] | None = None) -> Path:
    folder = root / game_id
    folder.mkdir(parents=True)
    class_name = game_id.capitalize()
    (folder / f"{game_id}.py").write_text(textwrap.dedent(source))
    meta = {"game_id": game_id, "title": f"test game {game_id}", "class_name": class_name, "tags": ["test"]}
    if baseline:
        meta["baseline_actions"] = baseline
    (folder / "metadata.json").write_text(json.dumps(meta))
    return folder


@pytest.fixture
def test_games(tmp_path):
    """A folder with the steps game (baseline 3, 4 actions per level) and the game that raises."""
    root = tmp_path / "games"
    write_game(root, "tg01", STEPS_GAME, baseline=[3, 4])
    write_game(root, "bo01", BOOM_GAME)
    return root
