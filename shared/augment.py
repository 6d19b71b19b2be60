"""Augmentations of a whole task with exact inverses, named by an id string that round-trips.

An augmentation is (dihedral element, colour permutation, demo order). Its id reads
`t3.p0123456789` (transform 3, colour c -> perm[c]) with an optional `.o2-0-1` for the
demo order; `Augmentation.parse(a.id) == a`. Test pairs keep their order so that answers map
back to the right test input. Training views: each known pair of a task held out once with the
others as demos (leave-one-out), under augmentations; every trainer and adapter takes them from here.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from shared.grids import Grid, apply_colour_map, d8, d8_inverse, invert_perm
from shared.tasks import Pair, Task

IDENTITY_PERM = tuple(range(10))
_ID = re.compile(r"^t([0-7])\.p([0-9]{10})(?:\.o(\d+(?:-\d+)*))?$")


@dataclass(frozen=True)
class Augmentation:
    transform: int = 0
    perm: tuple[int, ...] = IDENTITY_PERM
    order: tuple[int, ...] | None = None  # demo order; None keeps it

    def __post_init__(self):
        if not 0 <= self.transform < 8:
            raise ValueError(f"transform must be 0-7, got {self.transform}")
        if sorted(self.perm) != list(range(10)):
            raise ValueError(f"perm must be a permutation of 0-9, got {self.perm}")
        if self.order is not None and sorted(self.order) != list(range(len(self.order))):
            raise ValueError(f"order must be a permutation of 0..n-1, got {self.order}")

    @property
    def id(self) -> str:
        s = f"t{self.transform}.p{''.join(map(str, self.perm))}"
        if self.order is not None:
            s += ".o" + "-".join(map(str, self.order))
        return s

    @classmethod
    def parse(cls, text: str) -> Augmentation:
        m = _ID.match(text)
        if not m:
            raise ValueError(f"not an augmentation id: {text!r} (expected like 't3.p0123456789')")
        perm = tuple(int(c) for c in m.group(2))
        order = tuple(int(x) for x in m.group(3).split("-")) if m.group(3) else None
        return cls(int(m.group(1)), perm, order)

    @property
    def is_identity(self) -> bool:
        return self.transform == 0 and self.perm == IDENTITY_PERM and (
            self.order is None or self.order == tuple(range(len(self.order))))

    def grid(self, g: Grid) -> Grid:
        return apply_colour_map(d8(g, self.transform), self.perm)

    def invert_grid(self, g: Grid) -> Grid:
        return d8(apply_colour_map(g, invert_perm(self.perm)), d8_inverse(self.transform))

    def _pair(self, p: Pair) -> Pair:
        return Pair(self.grid(p.input), None if p.output is None else self.grid(p.output))

    def apply(self, task: Task) -> Task:
        train = [self._pair(p) for p in task.train]
        if self.order is not None:
            if len(self.order) != len(train):
                raise ValueError(f"order {self.order} does not fit {len(train)} demos of {task.id}")
            train = [train[i] for i in self.order]
        return Task(task.id, tuple(train), tuple(self._pair(p) for p in task.test), task.source)

    def invert(self, task: Task) -> Task:
        inv_pair = lambda p: Pair(self.invert_grid(p.input),  # noqa: E731
                                  None if p.output is None else self.invert_grid(p.output))
        train = [inv_pair(p) for p in task.train]
        if self.order is not None:
            back = [None] * len(train)
            for new_pos, old_pos in enumerate(self.order):
                back[old_pos] = train[new_pos]
            train = back
        return Task(task.id, tuple(train), tuple(inv_pair(p) for p in task.test), task.source)


def random_perm(rng: random.Random, keep_background: bool = True) -> tuple[int, ...]:
    """A random colour permutation; keep_background leaves colour 0 fixed."""
    rest = list(range(1, 10)) if keep_background else list(range(10))
    rng.shuffle(rest)
    return tuple([0] + rest) if keep_background else tuple(rest)


def random_augmentations(task: Task, n: int, seed: int = 0, keep_background: bool = True,
                         shuffle_demos: bool = True, include_identity: bool = True) -> list[Augmentation]:
    """n distinct augmentations of a task: all 8 transforms cycled, random colours and orders."""
    rng = random.Random(seed)
    out: list[Augmentation] = [Augmentation()] if include_identity and n > 0 else []
    seen = {a.id for a in out}
    k = len(out)
    attempts = 0
    while len(out) < n and attempts < 50 * n:
        attempts += 1
        order = None
        if shuffle_demos and len(task.train) > 1:
            order = list(range(len(task.train)))
            rng.shuffle(order)
            order = tuple(order)
        a = Augmentation(k % 8, random_perm(rng, keep_background), order)
        k += 1
        if a.id not in seen:
            seen.add(a.id)
            out.append(a)
    return out


def known_pairs(task: Task, use_test: bool = True) -> list[Pair]:
    """The pairs with outputs: the demos, plus test pairs whose outputs are known (training tasks)."""
    pairs = list(task.train)
    if use_test:
        pairs += [p for p in task.test if p.output is not None]
    return pairs


def leave_one_out(task: Task, use_test: bool = True) -> list[Task]:
    """One task per known pair: that pair as the single test, all the others as demos.

    A task with fewer than two known pairs gives nothing (no demo would be left).
    """
    pairs = known_pairs(task, use_test)
    if len(pairs) < 2:
        return []
    return [Task(f"{task.id}#{i}", tuple(pairs[:i] + pairs[i + 1:]), (pairs[i],), task.source)
            for i in range(len(pairs))]


@dataclass(frozen=True)
class View:
    """One training example before tokenizing: a leave-one-out task seen under an augmentation."""

    task_id: str
    target: int  # index of the held-out pair among the known pairs
    aug: Augmentation
    task: Task  # augmented, demos = the other pairs, test = the held-out pair

    @property
    def id(self) -> str:
        """`<task id>#<held-out pair>:<augmentation id>`, the source tag its training example carries."""
        return f"{self.task_id}#{self.target}:{self.aug.id}"


def views(task: Task, n_augment: int = 1, seed: int = 0, use_test: bool = True) -> list[View]:
    """Every leave-one-out example of `task` under `n_augment` augmentations (the first is identity).

    Demo order is drawn per leave-one-out task, so each example has its own shuffled context.
    """
    out = []
    for target, loo in enumerate(leave_one_out(task, use_test)):
        augs = random_augmentations(loo, n_augment, seed=seed * 1000 + target)
        out += [View(task.id, target, a, a.apply(loo)) for a in augs]
    return out


def task_views(tasks, n_augment: int = 1, seed: int = 0, use_test: bool = True) -> list[View]:
    """The views of many tasks, in order, the i-th task's drawn with seed + i (so tasks differ)."""
    return [v for t_i, task in enumerate(tasks) for v in views(task, n_augment, seed + t_i, use_test)]
