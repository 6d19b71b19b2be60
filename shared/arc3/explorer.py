"""The explorer: a graph of the game's states, keyed by frame hashes, searched breadth first.

Each state (a frame hash) keeps its untried actions: the keys of the action space and one click
per object (a 4-connected region, `frames.regions`) instead of all 4096 cells. An action that
leaves the frame unchanged is pruned for that state (a no-op); one that changes it becomes an
edge. When the current state has nothing left to try, the agent walks the shortest known path
to the nearest state that has, and RESETs to the level's start when no such state is reachable
(a pushed block cannot be pulled back). A level-up (levels_completed rising) resets the graph;
the kinds of action on the path that won the level (a key, or a click on a colour) are tried
first on the next. An action kind tried twice in a level without ever changing a frame is put
last everywhere (clicks on the background), so the search spends its budget on what moves.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

from shared.arc3.agents import CLICK, RESET, Action, Observation
from shared.arc3.frames import frame_hash, regions

DEAD = "game-over"  # the destination of an action that lost the game
MAX_CLICKS = 48  # objects clicked per state, smallest first: the background and big panels come last
SHY_AFTER = 2  # an action kind tried this often in a level without changing anything is put last


@dataclass
class Node:
    untried: list[Action]
    colours: dict[Action, int]  # a click's colour under the cursor, for the kinds that won
    edges: dict[Action, str] = field(default_factory=dict)  # action -> the state it led to
    noops: set[Action] = field(default_factory=set)  # actions pruned here: they changed nothing


class ExplorerAgent:
    name = "explorer"

    def __init__(self, seed: int = 0, max_clicks: int = MAX_CLICKS):
        self.seed = seed
        self.max_clicks = max_clicks

    def start(self, game_id: str, available_actions: list[int]) -> None:
        self.level = 0
        self.won_kinds: Counter = Counter()  # (action id, clicked colour) on the last winning path
        self.graph_sizes: list[dict] = []  # per level finished: states, edges, no-ops pruned
        self.resets = 0
        self._new_level()

    def _new_level(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.start_key: str | None = None
        self.prev: tuple[str, Action] | None = None
        self.plan: deque[tuple[Action, str]] = deque()  # the walk in progress: (action, state it leads to)
        self.expect: str | None = None  # the state the walk's last action should have led to
        self.noops = 0
        self.effect: dict[str, list[int]] = {}  # printed action -> [times it changed the frame, times tried]

    # -- the loop --------------------------------------------------------------------------------
    def act(self, obs: Observation) -> Action:
        if obs.levels_completed > self.level:
            self._level_won(obs.levels_completed)
        key = frame_hash(obs.frame)
        if obs.state == "GAME_OVER":
            if self.prev is not None:
                self.nodes[self.prev[0]].edges[self.prev[1]] = DEAD
            return self._reset()
        if key not in self.nodes:
            self.nodes[key] = self._node(obs)
        if self.start_key is None:
            self.start_key = key
        if self.prev is not None:
            self._record(*self.prev, key)
        action = self._choose(key, obs)
        self.prev = None if action.id == RESET else (key, action)
        return action

    def _record(self, before: str, action: Action, after: str) -> None:
        stats = self.effect.setdefault(str(action), [0, 0])
        stats[1] += 1
        if after == before:
            self.noops += 1  # pruned: it was taken off the untried list and gets no edge
            self.nodes[before].noops.add(action)
            return
        stats[0] += 1
        self.nodes[before].edges[action] = after

    def _choose(self, key: str, obs: Observation) -> Action:
        if self.expect is not None and key != self.expect:
            self.plan.clear()  # the walk went somewhere unexpected: plan again from here
        self.expect = None
        if self.plan:
            action, self.expect = self.plan.popleft()
            return action
        for shy in (False, True):  # first what has changed something, then what never did
            node = self.nodes[key]
            if self._promising(node, shy):
                return self._take(node, shy)
            path = self._path_to_untried(key, shy)
            if path:
                self.plan = deque(path)
                action, self.expect = self.plan.popleft()
                return action
        if key != self.start_key and any(n.untried for n in self.nodes.values()):
            return self._reset()
        # everything reachable is tried and the level is not won: cycle the keys (keeps the run going)
        keys = [Action(a) for a in obs.available_actions if a != CLICK] or list(self.nodes[key].edges)
        return keys[obs.actions_taken % len(keys)] if keys else Action(CLICK, 0, 0)

    def _reset(self) -> Action:
        self.prev = None
        self.plan.clear()
        self.expect = None
        self.resets += 1
        return Action(RESET)

    # -- states ----------------------------------------------------------------------------------
    def _node(self, obs: Observation) -> Node:
        untried = [Action(a) for a in obs.available_actions if a != CLICK]
        colours: dict[Action, int] = {}
        if CLICK in obs.available_actions:
            for r in regions(obs.frame)[: self.max_clicks]:
                a = Action(CLICK, r.x, r.y)
                untried.append(a)
                colours[a] = r.colour
        return Node(untried, colours)

    def _shy(self, action: Action) -> bool:
        changed, tried = self.effect.get(str(action), (0, 0))
        return tried >= SHY_AFTER and changed == 0

    def _promising(self, node: Node, shy: bool) -> bool:
        return any(shy or not self._shy(a) for a in node.untried)

    def _take(self, node: Node, shy: bool) -> Action:
        def rank(a: Action) -> tuple:
            kind = (a.id, node.colours.get(a))
            changed, tried = self.effect.get(str(a), (0, 0))
            return (-self.won_kinds[kind], -(changed + 1) / (tried + 1))

        options = [a for a in node.untried if shy or not self._shy(a)]
        best = min(options, key=rank)  # min keeps the first of equals: keys, then small objects
        node.untried.remove(best)
        return best

    def _path_to_untried(self, key: str, shy: bool) -> list[tuple[Action, str]]:
        """The shortest known walk (action, state reached) to the nearest other state with an
        action left to try; empty when none is reachable."""
        back: dict[str, tuple[str, Action] | None] = {key: None}
        queue = deque([key])
        while queue:
            here = queue.popleft()
            if here != key and self._promising(self.nodes[here], shy):
                path = []
                while back[here] is not None:
                    before, action = back[here]
                    path.append((action, here))
                    here = before
                return path[::-1]
            for action, there in self.nodes[here].edges.items():
                if there != DEAD and there not in back:
                    back[there] = (here, action)
                    queue.append(there)
        return []

    # -- levels ----------------------------------------------------------------------------------
    def _level_won(self, levels_completed: int) -> None:
        won = self._winning_path()
        self.won_kinds = Counter((a.id, colour) for a, colour in won)
        self.graph_sizes.append({"states": len(self.nodes), "edges": sum(len(n.edges) for n in self.nodes.values()),
                                 "noops_pruned": self.noops, "winning_path": len(won)})
        self.level = levels_completed
        self._new_level()

    def _winning_path(self) -> list[tuple[Action, int | None]]:
        """(action, clicked colour) along the shortest known path from the level's start to the
        state the winning action was taken in, then that action."""
        if self.prev is None or self.start_key is None:
            return []
        goal, last = self.prev
        back: dict[str, tuple[str, Action] | None] = {self.start_key: None}
        queue = deque([self.start_key])
        while queue and goal not in back:
            here = queue.popleft()
            for action, there in self.nodes[here].edges.items():
                if there != DEAD and there not in back:
                    back[there] = (here, action)
                    queue.append(there)
        path = [(last, self.nodes[goal].colours.get(last))]
        here = goal
        while back.get(here) is not None:
            before, action = back[here]
            path.append((action, self.nodes[before].colours.get(action)))
            here = before
        return path[::-1]

    def trace(self) -> dict:
        current = {"states": len(self.nodes), "edges": sum(len(n.edges) for n in self.nodes.values()),
                   "noops_pruned": self.noops}
        return {"levels": self.graph_sizes, "unfinished_level": current, "resets": self.resets}
