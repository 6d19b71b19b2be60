"""The ARC-AGI-3 harness: play an agent over a folder of games with the toolkit in offline mode.

`python -m shared play --agent explorer --games DIR --out DIR` finds every game (a folder with a
metadata.json and its class's file) under DIR, plays each for at most --max-actions actions and
--max-seconds, and appends one row per game to OUT/results.jsonl as it finishes: every action
with the hash of the frame it led to, levels completed, actions per level won, the human
baseline and the efficiency against it. Each distinct frame a game showed goes once, by its hash,
to OUT/frames/<game_id>.json.gz (written just before the game's row, so every row's hashes are
there), for the page's replay (`python -m shared serve OUT`). A rerun skips the games already
there. A game that raises inside its step is recorded as an error and the run goes on; an agent
that returns an action the game cannot take stops the run with InvalidAction. Then summary.json, report.md and
scorecard.png, and the closing line `won X/Y levels in N actions (T s)`. Needs Python >= 3.12
and `pip install arc-agi arcengine`; the toolkit is imported only when a game is played.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shared import runs
from shared.arc3 import GAMES_DIR, MAX_ACTIONS, MAX_SECONDS, ToolkitMissing, require, scorecard
from shared.arc3.agents import (
    AGENTS,
    RESET,
    Action,
    Agent,
    InvalidAction,
    Observation,
    check_action,
    make_agent,
    parse_action,
)
from shared.arc3.frames import frame_hash
from shared.play_frames import write_frames

RESULTS = runs.RESULTS
WALKTHROUGH = "walkthrough.json"  # in a game's folder: {"levels": [[action, ...], ...]}, how its baseline was played


@dataclass(frozen=True)
class GameInfo:
    game_id: str
    title: str
    folder: Path
    baseline_actions: list[int] | None  # a human's actions per level, when the game carries them


class _Errors(logging.Handler):
    """Keeps what the toolkit logs at ERROR: it catches a game's exception and returns None."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            e = record.exc_info[1]
            text = f"{type(e).__name__}: {e}"
        self.messages.append(text)


@dataclass
class Toolkit:
    """The toolkit's Arcade over a folder of games, and what it logged at ERROR."""

    arcade: object
    errors: _Errors


def open_toolkit(games_dir: str | Path) -> Toolkit:
    """The toolkit's Arcade over `games_dir`, offline, logging into a handler the harness reads."""
    require()
    from arc_agi import Arcade, OperationMode

    logging.getLogger("arc_agi.scorecard").setLevel(logging.WARNING)  # it prints to stdout at INFO
    logger = logging.getLogger(f"shared.arc3.toolkit.{id(games_dir)}")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    errors = _Errors()
    logger.handlers = [errors]
    return Toolkit(Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=str(games_dir), logger=logger), errors)


def load_games(games_dir: str | Path = GAMES_DIR, toolkit: Toolkit | None = None) -> list[GameInfo]:
    """Every game under `games_dir` (sorted by id); ValueError when there is none."""
    games_dir = Path(games_dir)
    if not games_dir.is_dir():
        raise ValueError(f"{games_dir}: no such folder of games")
    toolkit = toolkit or open_toolkit(games_dir)
    infos = [GameInfo(e.game_id, e.title or e.game_id, Path(e.local_dir), e.baseline_actions or None)
             for e in toolkit.arcade.get_environments()]
    if not infos:
        raise ValueError(f"{games_dir}: no game in it (a game is a folder with metadata.json and its class's .py)")
    return sorted(infos, key=lambda g: g.game_id)


def walkthroughs(games: list[GameInfo]) -> dict[str, list[Action]]:
    """Each game's recorded walkthrough (the play its human baseline counts), flattened."""
    out = {}
    for g in games:
        path = g.folder / WALKTHROUGH
        if path.exists():
            out[g.game_id] = [parse_action(a) for level in json.loads(path.read_text())["levels"] for a in level]
    return out


def _observation(game_id: str, fd, frames: list[np.ndarray], taken: int, history: list[str]) -> Observation:
    return Observation(game_id, frames, fd.state.name, fd.levels_completed, fd.win_levels,
                       [a for a in fd.available_actions], taken, history)


def play_game(toolkit: Toolkit, game: GameInfo, agent: Agent, agent_name: str, max_actions: int = MAX_ACTIONS,
              max_seconds: float = MAX_SECONDS, seed: int = 0, keep_frames: bool = False,
              seen: dict[str, np.ndarray] | None = None) -> dict:
    """Play one game; return its row (see the module's doc). keep_frames adds "frames": the last
    frame after the reset and after every action (not written to results). seen, when given, is
    filled with each distinct such frame by its hash (what the frames file holds)."""
    from arcengine import GameAction

    errors = toolkit.errors
    t0 = time.perf_counter()
    row = {"game_id": game.game_id, "title": game.title, "agent": agent_name, "status": "error", "state": None,
           "levels_completed": 0, "win_levels": 0, "actions": 0, "resets": 0, "level_actions": [],
           "baseline_actions": game.baseline_actions, "stop": "error", "error": None, "start_hash": None,
           "log": [], "trace": {}}
    del errors.messages[:]
    env = toolkit.arcade.make(game.game_id, seed=seed)
    fd = env.observation_space if env is not None else None
    if fd is None or not fd.frame:
        row["error"] = f"{game.game_id} did not load: {'; '.join(errors.messages) or 'no frame after reset'}"
        return _finish(row, t0)
    frames = [np.asarray(f) for f in fd.frame]
    kept = [frames[-1]] if keep_frames else None
    row.update(start_hash=frame_hash(frames[-1]), win_levels=fd.win_levels, state=fd.state.name)
    if seen is not None:
        seen.setdefault(row["start_hash"], frames[-1])
    agent.start(game.game_id, list(fd.available_actions))
    history: list[str] = []
    level_start, levels = 0, 0
    while True:
        if fd.state.name == "WIN":
            row.update(status="won", stop="win")
            break
        if len(history) >= max_actions:
            row.update(status="played", stop="max_actions")
            break
        if time.perf_counter() - t0 > max_seconds:
            row.update(status="played", stop="max_seconds")
            break
        obs = _observation(game.game_id, fd, frames, len(history), history)
        action = check_action(agent.act(obs), obs, agent_name)
        del errors.messages[:]
        step = env.step(GameAction.from_id(action.id), data=action.data)
        history.append(str(action))
        if step is None:
            row["error"] = f"{game.game_id}: step {len(history)} ({action}) raised: {'; '.join(errors.messages)}"
            break
        fd = step
        if fd.frame:
            frames = [np.asarray(f) for f in fd.frame]
        row["log"].append([str(action), frame_hash(frames[-1])])
        if seen is not None:
            seen.setdefault(row["log"][-1][1], frames[-1])
        row["resets"] += action.id == RESET
        if fd.levels_completed > levels:
            row["level_actions"].append(len(history) - level_start)
            level_start, levels = len(history), fd.levels_completed
        if keep_frames:
            kept.append(frames[-1])
    row.update(levels_completed=fd.levels_completed, state=fd.state.name, actions=len(history), trace=agent.trace())
    if keep_frames:
        row["frames"] = kept
    return _finish(row, t0)


def _finish(row: dict, t0: float) -> dict:
    row["wall_s"] = round(time.perf_counter() - t0, 3)
    row.update(scorecard.game_score(row))
    return row


def run_play(games_dir: str | Path, agent: Agent, out: str | Path, agent_name: str | None = None,
             max_actions: int = MAX_ACTIONS, max_seconds: float = MAX_SECONDS, seed: int = 0,
             only: list[str] | None = None) -> dict:
    """Play every game of `games_dir` (or the ids in `only`) not yet in OUT/results.jsonl; write
    the summary, report and plot over all rows; return the summary."""
    name = agent_name or agent.name
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    toolkit = open_toolkit(games_dir)
    games = load_games(games_dir, toolkit)
    if only:
        unknown = sorted(set(only) - {g.game_id for g in games})
        if unknown:
            have = ", ".join(g.game_id for g in games)
            raise ValueError(f"{games_dir}: no game {', '.join(unknown)} (it has {have})")
        games = [g for g in games if g.game_id in only]
    results = out / RESULTS
    runs.drop_torn_tail(results)
    done = {r["game_id"] for r in runs.read_rows(results)}
    t0 = time.perf_counter()
    for game in games:
        if game.game_id in done:
            continue
        seen: dict[str, np.ndarray] = {}
        row = play_game(toolkit, game, agent, name, max_actions, max_seconds, seed, seen=seen)
        if seen:  # before the row: a killed run leaves at most a frames file its rerun rewrites
            write_frames(out, game.game_id, {h: f.tolist() for h, f in seen.items()})
        runs.append(results, row)
    rows = [r for r in runs.read_rows(results) if r["game_id"] in {g.game_id for g in games}]
    summary = scorecard.summarize(rows, agent=name, max_actions=max_actions, wall_s=time.perf_counter() - t0)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    scorecard.write_report(rows, summary, out)
    return summary


def replay(games_dir: str | Path, game_id: str, actions: list[str | Action]) -> list[np.ndarray]:
    """The last frame after the reset and after each action of a recorded play (games are
    deterministic, so a row's log is enough to see it again)."""
    from arcengine import GameAction

    toolkit = open_toolkit(games_dir)
    env = toolkit.arcade.make(game_id)
    if env is None or env.observation_space is None:
        raise ValueError(f"{games_dir}: game {game_id} did not load")
    frames = [np.asarray(env.observation_space.frame[-1])]
    for a in actions:
        action = a if isinstance(a, Action) else parse_action(a)
        fd = env.step(GameAction.from_id(action.id), data=action.data)
        if fd is None:
            raise RuntimeError(f"{game_id}: replaying {action} raised: {'; '.join(toolkit.errors.messages)}")
        if fd.frame:
            frames.append(np.asarray(fd.frame[-1]))
        else:
            frames.append(frames[-1])
    return frames


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m shared play", description=__doc__.splitlines()[0])
    p.add_argument("--agent", required=True, choices=AGENTS, help="who plays: " + ", ".join(AGENTS))
    p.add_argument("--games", default=str(GAMES_DIR), help="folder of games (default: the project's own)")
    p.add_argument("--out", required=True, help="run folder (a rerun skips the games already in it)")
    p.add_argument("--max-actions", type=int, default=MAX_ACTIONS, help="actions per game, RESETs included")
    p.add_argument("--max-seconds", type=float, default=MAX_SECONDS, help="wall time per game")
    p.add_argument("--only", default="", help="comma-separated game ids")
    p.add_argument("--seed", type=int, default=0, help="the agent's random seed (default 0)")
    p.add_argument("--model", default="", help="llm: the model name the endpoint serves")
    p.add_argument("--base-url", default=None, help="llm: OpenAI-compatible base URL (else ARC_LLM_BASE_URL)")
    args = p.parse_args(argv)
    try:
        require()
        scripts = walkthroughs(load_games(args.games)) if args.agent == "scripted" else None
        agent = make_agent(args.agent, seed=args.seed, scripts=scripts, model=args.model, base_url=args.base_url)
        summary = run_play(args.games, agent, args.out, args.agent, args.max_actions, args.max_seconds, args.seed,
                           [g for g in args.only.split(",") if g] or None)
    except (ToolkitMissing, InvalidAction, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(scorecard.table(runs.read_rows(Path(args.out) / RESULTS)))
    print(scorecard.closing_line(summary))
    return 0
