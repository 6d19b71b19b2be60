"""Agents for ARC-AGI-3 games behind one interface, and the actions they return.

An agent sees an `Observation` (the frames of its last action, the game state, levels completed,
the action space) and returns an `Action`: RESET (0), ACTION1-5, or ACTION6 with the display cell
(x, y) it clicks. `start` is called once per game. Here: `random` (the floor) and `scripted` (a
fixed action list: walkthroughs, tests); `explorer` and `llm` live in their own modules. Actions
print as `RESET`, `A3`, `A6@12,40`, and `parse_action` reads that form back.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from shared.arc3.frames import SIZE

RESET, CLICK = 0, 6
_ACTION = re.compile(r"^(RESET|A([1-7])(?:@(\d+),(\d+))?)$")


class InvalidAction(ValueError):
    """An agent returned something the game cannot take; the message names agent, game and step."""


@dataclass(frozen=True)
class Action:
    id: int  # 0 = RESET, 1-7 = ACTION1-7 (6 is the click)
    x: int | None = None  # the click's display cell, 0-63 (ACTION6 only)
    y: int | None = None

    def __str__(self) -> str:
        if self.id == RESET:
            return "RESET"
        return f"A{self.id}@{self.x},{self.y}" if self.id == CLICK else f"A{self.id}"

    @property
    def data(self) -> dict:
        """The toolkit's action data: the click's cell, else nothing."""
        return {"x": self.x, "y": self.y} if self.id == CLICK else {}


def parse_action(text: str) -> Action:
    """`RESET`, `A1`..`A7` or `A6@x,y` back to an Action; ValueError naming the text otherwise."""
    m = _ACTION.match(text.strip())
    if not m:
        raise ValueError(f"not an action: {text!r} (expected RESET, A1..A7 or A6@x,y)")
    if m[1] == "RESET":
        return Action(RESET)
    cell = (int(m[3]), int(m[4])) if m[3] else (None, None)
    action = Action(int(m[2]), *cell)
    if (action.id == CLICK) != (m[3] is not None):
        raise ValueError(f"not an action: {text!r} (A6 and only A6 takes a cell, A6@x,y)")
    return action


@dataclass
class Observation:
    game_id: str
    frames: list[np.ndarray]  # what the last action showed, in order (1..N frames of 64x64)
    state: str  # NOT_FINISHED, WIN or GAME_OVER
    levels_completed: int
    win_levels: int
    available_actions: list[int]  # the action space: ids among 1-7 (RESET is always allowed)
    actions_taken: int = 0
    history: list[str] = field(default_factory=list)  # the actions so far, printed

    @property
    def frame(self) -> np.ndarray:
        return self.frames[-1]


class Agent(Protocol):
    name: str

    def start(self, game_id: str, available_actions: list[int]) -> None: ...

    def act(self, obs: Observation) -> Action: ...

    def trace(self) -> dict: ...


def check_action(action: object, obs: Observation, agent: str) -> Action:
    """The action, if the game can take it now; InvalidAction saying why otherwise."""
    where = f"agent {agent!r} on {obs.game_id} at action {obs.actions_taken + 1}"
    if not isinstance(action, Action):
        raise InvalidAction(f"{where} returned {action!r}, not an shared.arc3.agents.Action")
    if action.id != RESET and action.id not in obs.available_actions:
        raise InvalidAction(f"{where} returned {action}: not in the action space {obs.available_actions} (or RESET)")
    if obs.state == "GAME_OVER" and action.id != RESET:
        raise InvalidAction(f"{where} returned {action} after GAME_OVER: only RESET continues a lost game")
    if action.id == CLICK:
        if not all(isinstance(v, int) and 0 <= v < SIZE for v in (action.x, action.y)):
            raise InvalidAction(f"{where} returned a click at ({action.x}, {action.y}): x and y must be ints in 0..63")
    elif action.x is not None or action.y is not None:
        raise InvalidAction(f"{where} returned {action.id} with a cell: only ACTION6 (the click) takes x and y")
    return action


class RandomAgent:
    """Uniform over the action space, clicks at a uniform cell of 4096; RESET after a loss. The floor."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def start(self, game_id: str, available_actions: list[int]) -> None:
        self.rng = random.Random(f"{self.seed}:{game_id}")  # the same play for the same game and seed

    def act(self, obs: Observation) -> Action:
        if obs.state == "GAME_OVER":
            return Action(RESET)
        a = self.rng.choice(obs.available_actions)
        if a == CLICK:
            return Action(CLICK, self.rng.randrange(SIZE), self.rng.randrange(SIZE))
        return Action(a)

    def trace(self) -> dict:
        return {}


class ScriptedAgent:
    """Plays a fixed list of actions (per game id, or one list for every game); then repeats RESET."""

    name = "scripted"

    def __init__(self, actions: dict[str, list[Action]] | list[Action]):
        self.actions = actions

    def start(self, game_id: str, available_actions: list[int]) -> None:
        script = self.actions if isinstance(self.actions, list) else self.actions.get(game_id)
        if script is None:
            raise ValueError(f"scripted agent has no actions for game {game_id!r} (it has {sorted(self.actions)})")
        self.todo = list(script)

    def act(self, obs: Observation) -> Action:
        return self.todo.pop(0) if self.todo else Action(RESET)

    def trace(self) -> dict:
        return {"left_unplayed": len(self.todo)}


AGENTS = ("random", "scripted", "explorer", "llm")


def make_agent(name: str, seed: int = 0, scripts: dict[str, list[Action]] | None = None, model: str = "",
               base_url: str | None = None) -> Agent:
    """An agent by name. scripted takes `scripts` (game id -> actions); llm takes `model` and
    `base_url` (else ARC_LLM_BASE_URL / OPENAI_BASE_URL)."""
    if name == "random":
        return RandomAgent(seed)
    if name == "scripted":
        if scripts is None:
            raise ValueError("the scripted agent needs scripts (game id -> actions), e.g. the games' walkthroughs")
        return ScriptedAgent(scripts)
    if name == "explorer":
        from shared.arc3.explorer import ExplorerAgent

        return ExplorerAgent(seed)
    if name == "llm":
        from shared.arc3.llm import LLMAgent

        return LLMAgent(model or "default", base_url=base_url, seed=seed)
    raise ValueError(f"unknown agent {name!r}; choose from {', '.join(AGENTS)}")
