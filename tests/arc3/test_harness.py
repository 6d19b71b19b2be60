"""The harness: scripted wins are counted right, runs resume, broken games and bad agents are reported."""

from __future__ import annotations

import json

import numpy as np
import pytest

from shared import runs
from shared.arc3 import GAMES_DIR, harness, scorecard
from shared.arc3.agents import Action, InvalidAction, ScriptedAgent, parse_action


def play(games, agent, out, **kw):
    return harness.run_play(games, agent, out, **kw)


def test_a_scripted_win_records_win_and_the_right_counts(test_games, tmp_path):
    # level 1: a no-op, then three steps right (4 actions); level 2: three steps (3)
    script = [Action(2), Action(1), Action(1), Action(1), Action(1), Action(1), Action(1)]
    summary = play(test_games, ScriptedAgent(script), tmp_path / "run", only=["tg01"])
    (row,) = runs.read_rows(tmp_path / "run" / "results.jsonl")
    assert (row["status"], row["state"], row["stop"]) == ("won", "WIN", "win")
    assert row["levels_completed"] == row["win_levels"] == 2
    assert row["actions"] == 7 and row["level_actions"] == [4, 3]
    assert [a for a, _ in row["log"]] == ["A2"] + ["A1"] * 6
    hashes = [row["start_hash"]] + [h for _, h in row["log"]]
    # the no-op leaves the frame; level 2 starts where level 1 did; the win shows the dot at x=3
    x0, x1, x2, x3 = hashes[0], hashes[2], hashes[3], hashes[-1]
    assert hashes == [x0, x0, x1, x2, x0, x1, x2, x3] and len({x0, x1, x2, x3}) == 4
    assert row["level_ratios"] == [0.75, 1.333] and row["efficiency"] == pytest.approx((0.75 + 1.0) / 2)
    assert scorecard.closing_line(summary).startswith("won 2/2 levels in 7 actions (")
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["levels_won"] == 2
    assert "tg01" in (tmp_path / "run" / "report.md").read_text()


def test_resume_skips_a_finished_game(test_games, tmp_path):
    out = tmp_path / "run"
    play(test_games, ScriptedAgent([Action(1)] * 6), out, only=["tg01"])
    first = runs.read_rows(out / "results.jsonl")
    with open(out / "results.jsonl", "a") as f:
        f.write('{"game_id": "bo01", "torn')  # a killed run's half-written last line
    summary = play(test_games, ScriptedAgent([]), out)  # an agent that could not win tg01 again
    rows = runs.read_rows(out / "results.jsonl")
    assert rows[0] == first[0] and [r["game_id"] for r in rows] == ["tg01", "bo01"]
    assert summary["n_games"] == 2 and summary["levels_won"] == 2


def test_a_game_that_raises_in_step_is_an_error_and_the_run_goes_on(test_games, tmp_path):
    summary = play(test_games, ScriptedAgent([Action(1)] * 6), tmp_path / "run")
    rows = {r["game_id"]: r for r in runs.read_rows(tmp_path / "run" / "results.jsonl")}
    boom = rows["bo01"]
    assert boom["status"] == "error" and boom["stop"] == "error"
    assert "step 1 (A1) raised" in boom["error"] and "the game broke on purpose" in boom["error"]
    assert rows["tg01"]["status"] == "won"  # played after the broken game (ids sort bo01 first)
    assert summary["errors"] == 1 and summary["n_games"] == 2


def test_budget_stops_a_game_and_resets_count_as_actions(test_games, tmp_path):
    summary = play(test_games, ScriptedAgent([Action(1), Action(0), Action(1)]), tmp_path / "run", only=["tg01"],
                   max_actions=5)
    (row,) = runs.read_rows(tmp_path / "run" / "results.jsonl")
    assert (row["status"], row["stop"], row["actions"], row["resets"]) == ("played", "max_actions", 5, 3)
    assert row["levels_completed"] == 0 and row["efficiency"] == 0.0 and summary["actions"] == 5


@pytest.mark.parametrize("bad, says", [
    (Action(3), r"A3: not in the action space \[1, 2\]"),
    (Action(6, 1, 1), r"not in the action space"),
    ("A1", r"returned 'A1', not an shared.arc3.agents.Action"),
    (Action(1, 2, 3), r"only ACTION6 \(the click\) takes x and y"),
])
def test_an_invalid_action_is_a_clear_error(test_games, tmp_path, bad, says):
    with pytest.raises(InvalidAction, match=rf"agent 'scripted' on tg01 at action 2 .*{says}"):
        play(test_games, ScriptedAgent([Action(1), bad]), tmp_path / "run", only=["tg01"])


def test_a_click_off_the_screen_is_a_clear_error():
    from shared.arc3.agents import Observation, check_action

    obs = Observation("g", [], "NOT_FINISHED", 0, 1, [6])
    with pytest.raises(InvalidAction, match=r"click at \(64, 0\): x and y must be ints in 0..63"):
        check_action(Action(6, 64, 0), obs, "me")
    lost = Observation("g", [], "GAME_OVER", 0, 1, [6])
    with pytest.raises(InvalidAction, match="only RESET continues a lost game"):
        check_action(Action(6, 1, 1), lost, "me")


def test_unknown_games_and_empty_folders_are_refused(test_games, tmp_path):
    with pytest.raises(ValueError, match="no game zz01"):
        play(test_games, ScriptedAgent([]), tmp_path / "run", only=["zz01"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no game in it"):
        harness.load_games(tmp_path / "empty")


def test_each_walkthrough_wins_its_game_in_its_baseline_actions(tmp_path):
    games = harness.load_games(GAMES_DIR)
    assert len(games) >= 4
    scripts = harness.walkthroughs(games)
    assert sorted(scripts) == sorted(g.game_id for g in games)
    play(GAMES_DIR, ScriptedAgent(scripts), tmp_path / "run")
    for row in runs.read_rows(tmp_path / "run" / "results.jsonl"):
        assert row["status"] == "won", row["game_id"]
        assert row["win_levels"] >= 2
        assert row["level_actions"] == row["baseline_actions"], row["game_id"]


def test_replay_shows_a_recorded_play_again(tmp_path):
    play(GAMES_DIR, ScriptedAgent(harness.walkthroughs(harness.load_games(GAMES_DIR))), tmp_path / "run",
         only=["mz01"])
    (row,) = runs.read_rows(tmp_path / "run" / "results.jsonl")
    frames = harness.replay(GAMES_DIR, "mz01", [a for a, _ in row["log"]])
    from shared.arc3.frames import frame_hash

    assert [frame_hash(f) for f in frames] == [row["start_hash"]] + [h for _, h in row["log"]]


def test_the_command_line_plays_and_resumes(tmp_path, capsys):
    from shared.__main__ import main

    out = tmp_path / "cli"
    assert main(["play", "--agent", "scripted", "--out", str(out), "--only", "sw01,fl01"]) == 0
    text = capsys.readouterr().out
    assert text.strip().splitlines()[-1].startswith("won 6/6 levels in 29 actions (")
    assert main(["play", "--agent", "random", "--out", str(out), "--only", "sw01,fl01"]) == 0  # all done: skipped
    assert "won 6/6 levels in 29 actions" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["play", "--agent", "nobody", "--out", str(out)])


def test_actions_print_and_parse_back():
    for a in (Action(0), Action(1), Action(5), Action(6, 0, 63)):
        assert parse_action(str(a)) == a
    for text in ("A6", "A1@2,3", "ACTION1", "A8"):
        with pytest.raises(ValueError, match="not an action"):
            parse_action(text)


def test_a_run_keeps_every_frame_its_actions_recorded_once(tmp_path):
    from shared.arc3.explorer import ExplorerAgent
    from shared.arc3.frames import frame_hash
    from shared.play_frames import FRAMES_DIR, read_frames

    out = tmp_path / "run"
    play(GAMES_DIR, ExplorerAgent(), out, only=["sw01", "mz01"], max_actions=300)
    rows = runs.read_rows(out / "results.jsonl")
    assert sorted(p.name for p in (out / FRAMES_DIR).iterdir()) == ["mz01.json.gz", "sw01.json.gz"]
    for row in rows:
        frames = read_frames(out, row["game_id"])
        recorded = {row["start_hash"]} | {h for _, h in row["log"]}
        assert set(frames) == recorded, row["game_id"]  # every hash there, and only distinct frames
        assert len(frames) < len(row["log"]) + 1  # games revisit frames: fewer stored than steps
        for h, frame in frames.items():
            assert len(frame) == len(frame[0]) == 64 and all(0 <= v <= 15 for r in frame for v in r)
            assert frame_hash(np.array(frame)) == h
    first = (out / FRAMES_DIR / "sw01.json.gz").read_bytes()
    play(GAMES_DIR, ExplorerAgent(), out)  # the rerun plays the other games and leaves these alone
    assert (out / FRAMES_DIR / "sw01.json.gz").read_bytes() == first
    assert {p.name for p in (out / FRAMES_DIR).iterdir()} == {f"{r['game_id']}.json.gz" for r in
                                                                 runs.read_rows(out / "results.jsonl")}
