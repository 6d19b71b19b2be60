"""The language-model agent: the harness's loop, asking an OpenAI-compatible endpoint for each action.

Each turn the model gets a compact text view of the frame (the grid at the game's own cell size,
one hex digit per cell), levels completed, the action space and the last actions with whether
each changed the frame, and answers one action: `ACTION1`..`ACTION5`, `ACTION6 x y` (a cell of
the grid it was shown) or `RESET`. A reply that names no action the game can take now counts as
unparsed and a random action is played instead, so a weak model still finishes its budget. After
a GAME_OVER the agent RESETs without asking. The endpoint is `shared.agents.backends.OpenAIBackend`
(ARC_LLM_BASE_URL, else OPENAI_BASE_URL).
"""

from __future__ import annotations

import random
import re

from shared.agents.backends import OpenAIBackend
from shared.arc3.agents import CLICK, RESET, Action, Observation
from shared.arc3.frames import SIZE, cell_size, frame_hash, text_view

HISTORY = 12  # past actions shown each turn: enough to see what a key does, short enough for small models
MAX_TOKENS = 24  # one action is a few tokens; room for a short preamble
_REPLY = re.compile(r"\b(RESET|ACTION\s*([1-7]))\b(?:[^\d\n]{0,3}(\d+)[^\d\n]{1,3}(\d+))?", re.I)

SYSTEM = (
    "You play a turn-based game on a grid of coloured cells. Nobody tells you the rules: find out what the "
    "actions do and win each level in as few actions as you can. ACTION1 to ACTION5 are keys whose effect you "
    "must discover; ACTION6 x y clicks the cell at column x, row y (0-based) of the grid you are shown; RESET "
    "restarts the level. Reply with exactly one action, e.g. `ACTION1` or `ACTION6 3 5`, nothing else.")


def prompt(obs: Observation, history: list[str]) -> list[dict]:
    """The chat messages for one turn."""
    text, s = text_view(obs.frame)
    n = SIZE // s
    names = [f"ACTION{a}" + (" x y" if a == CLICK else "") for a in obs.available_actions] + ["RESET"]
    user = (f"Levels completed: {obs.levels_completed} of {obs.win_levels}. Actions taken: {obs.actions_taken}.\n"
            f"Available: {', '.join(names)}.\n"
            f"Frame ({n}x{n} cells, one hex digit per cell, colours 0-f; x is the column, y the row):\n{text}\n"
            f"Last actions, oldest first: {'; '.join(history[-HISTORY:]) or 'none yet'}.\n"
            "Your action:")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def parse_reply(reply: str, obs: Observation) -> Action | None:
    """The first action the reply names that the game can take now, in display cells; else None."""
    s = cell_size(obs.frame)
    for m in _REPLY.finditer(reply):
        if m[1].upper() == "RESET":
            return Action(RESET)
        a = int(m[2])
        if a not in obs.available_actions:
            continue
        if a != CLICK:
            return Action(a)
        if m[3] is None:
            continue
        x, y = int(m[3]), int(m[4])
        if 0 <= x < SIZE // s and 0 <= y < SIZE // s:
            return Action(CLICK, x * s + s // 2, y * s + s // 2)
    return None


class LLMAgent:
    name = "llm"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, seed: int = 0,
                 backend=None, temperature: float = 0.0):
        self.backend = backend or OpenAIBackend(model, base_url=base_url, api_key=api_key)
        self.seed = seed
        self.temperature = temperature

    def start(self, game_id: str, available_actions: list[int]) -> None:
        self.rng = random.Random(f"{self.seed}:{game_id}")
        self.history: list[str] = []
        self.last: tuple[str, str] | None = None  # (action printed, frame hash before it)
        self.asked = self.unparsed = 0

    def act(self, obs: Observation) -> Action:
        if self.last is not None:
            action, before = self.last
            self.history.append(f"{action} ({'no change' if frame_hash(obs.frame) == before else 'frame changed'})")
        if obs.state == "GAME_OVER":
            self.history.append("GAME_OVER")
            action = Action(RESET)
        else:
            self.asked += 1
            reply = self.backend.complete(prompt(obs, self.history), 1, self.temperature, MAX_TOKENS)[0]
            action = parse_reply(reply, obs)
            if action is None:
                self.unparsed += 1
                a = self.rng.choice(obs.available_actions)
                action = Action(CLICK, self.rng.randrange(SIZE), self.rng.randrange(SIZE)) if a == CLICK else Action(a)
        self.last = (str(action), frame_hash(obs.frame))
        return action

    def trace(self) -> dict:
        return {"asked": self.asked, "unparsed": self.unparsed}
