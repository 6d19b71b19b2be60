"""The explorer: wins every project game within the budget, prunes no-ops, beats random."""

from __future__ import annotations

import pytest

from shared import runs
from shared.arc3 import GAMES_DIR, MAX_ACTIONS, harness
from shared.arc3.agents import RandomAgent
from shared.arc3.explorer import ExplorerAgent

GAMES = [g.game_id for g in harness.load_games(GAMES_DIR)]
BUDGET = 1300  # what MAX_ACTIONS's comment promises: every project game is won in fewer


@pytest.fixture(scope="module")
def explorer_rows(tmp_path_factory):
    out = tmp_path_factory.mktemp("explorer")
    summary = harness.run_play(GAMES_DIR, ExplorerAgent(), out, max_actions=BUDGET)
    return summary, {r["game_id"]: r for r in runs.read_rows(out / "results.jsonl")}


@pytest.mark.parametrize("game_id", GAMES)
def test_explorer_wins_each_project_game_within_its_budget(explorer_rows, game_id):
    row = explorer_rows[1][game_id]
    assert row["status"] == "won", (row["levels_completed"], row["actions"])
    assert row["actions"] < BUDGET <= MAX_ACTIONS
    sizes = row["trace"]["levels"]
    assert len(sizes) == row["win_levels"] - 1  # the graph was reset at every level-up
    assert all(s["states"] >= 2 and s["winning_path"] >= 1 for s in sizes)


def test_no_op_actions_are_pruned_per_state(explorer_rows):
    for game_id, row in explorer_rows[1].items():
        before = row["start_hash"]
        seen_noops = set()
        # the winning action is not judged: the agent sees no frame after the game is won (and in
        # mz01 stepping into the last exit leaves the frame as it was)
        for action, after in row["log"][:-1]:
            if action == "RESET":
                before = after
                continue
            assert (before, action) not in seen_noops, f"{game_id}: {action} retried where it changed nothing"
            if after == before:
                seen_noops.add((before, action))
            before = after
        trace = row["trace"]
        pruned = sum(s["noops_pruned"] for s in trace["levels"]) + trace["unfinished_level"]["noops_pruned"]
        assert pruned == len(seen_noops), game_id


def test_maze_start_blocks_two_directions_and_the_explorer_learns_it():
    # mz01 level 1 starts in a corner: up and left change nothing there
    toolkit = harness.open_toolkit(GAMES_DIR)
    (game,) = [g for g in harness.load_games(GAMES_DIR, toolkit) if g.game_id == "mz01"]
    agent = ExplorerAgent()
    row = harness.play_game(toolkit, game, agent, "explorer", max_actions=14)
    assert row["levels_completed"] == 0
    start = agent.nodes[row["start_hash"]]
    # it tried up first (nothing), then down (a move) and went on from there
    assert {str(a) for a in start.noops} == {"A1"} and {str(a) for a in start.edges} == {"A2"}
    assert "A1" not in {str(a) for a in start.untried}
    for node in agent.nodes.values():  # every action is untried, an edge or pruned, never two of them
        tried = [str(a) for a in node.edges] + [str(a) for a in node.noops]
        assert len(tried) == len(set(tried)) and not set(tried) & {str(a) for a in node.untried}
    at_start = [a for (a, h), before in zip(row["log"], [row["start_hash"]] + [h for _, h in row["log"]],
                                           strict=False) if before == row["start_hash"]]
    assert at_start.count("A1") == 1


def test_clicks_go_to_objects_not_to_every_cell():
    toolkit = harness.open_toolkit(GAMES_DIR)
    (game,) = [g for g in harness.load_games(GAMES_DIR, toolkit) if g.game_id == "sw01"]
    agent = ExplorerAgent()
    harness.play_game(toolkit, game, agent, "explorer", max_actions=1)
    (start,) = agent.nodes.values()
    # three switches, three bars, the background: one click each (one was just taken)
    assert len(start.untried) + 1 == 7


def test_explorer_beats_random_at_the_same_budget(explorer_rows, tmp_path):
    explorer = explorer_rows[0]
    rand = harness.run_play(GAMES_DIR, RandomAgent(seed=0), tmp_path / "random", max_actions=BUDGET)
    assert explorer["levels_won"] > rand["levels_won"]
    assert explorer["actions_per_level_won"] < rand["actions_per_level_won"]
