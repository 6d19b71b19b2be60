"""Pieces: stack partial results into one answer when no single program explains every demo.

Each sized state is right on some cells of the demo outputs. Working from the top layer down,
pick the state whose non-zero cells are all right on the cells still open and that covers the
most of them; repeat until a base layer (or plain zeros) accounts for the rest. The answer
paints the layers bottom-up with `paint_over`, so it prints as one straight-line program.
"""

from __future__ import annotations

import time

import numpy as np

from shared.solvers.dsl.primitives.learned import paint_over
from shared.solvers.dsl.program import call
from shared.solvers.dsl.search import Candidate, Search

MAX_PIECES = 4
MAX_POOL = 3000  # sized states considered, cheapest first


def combine(search: Search, deadline: float, extra: list | None = None) -> Candidate | None:
    """The cheapest layering of sized states that reproduces every demo output, if any: over the
    search's own and `extra` (sized states of another search over the same task, such as the core's)."""
    pool = sorted(search.sized + list(extra or ()), key=lambda s: s.cost)[:MAX_POOL]
    pool = [s for s in pool if all(t.max() < 10 for t in s.test) and all(d.max() < 10 for d in s.demo)]
    if len(pool) < 2:
        return None
    target = np.concatenate([o.ravel() for o in search.outputs])
    vals = np.stack([np.concatenate([d.ravel() for d in s.demo]) for s in pool])
    painted = vals != 0
    right = vals == target[None, :]
    open_ = np.ones(target.shape, dtype=bool)
    layers: list[int] = []  # top first
    while len(layers) < MAX_PIECES:
        if time.monotonic() > deadline:
            return None
        # a base explains every open cell, zeros included: done
        base_ok = right[:, open_].all(axis=1)
        if base_ok.any():
            layers.append(int(np.argmax(base_ok)))
            break
        if not (target[open_] != 0).any():
            break  # what is left is background: the zero canvas explains it
        new = painted & open_[None, :]
        clean = ~(new & ~right).any(axis=1)
        gain = np.where(clean, new.sum(axis=1), 0)
        best = int(np.argmax(gain))
        if gain[best] == 0:
            return None
        layers.append(best)
        open_ &= ~painted[best]
    else:
        return None
    if len(layers) < 2:
        return None
    chosen = [pool[i] for i in reversed(layers)]  # bottom first
    node = (chosen[0].origin or search).node(chosen[0].state)
    preds = [t.copy() for t in chosen[0].test]
    for piece in chosen[1:]:
        node = call("paint_over", node, (piece.origin or search).node(piece.state))
        preds = [paint_over(p, t) for p, t in zip(preds, piece.test, strict=True)]
    if any(p is None for p in preds):
        return None
    cost = sum(p.cost for p in chosen) + 2 * len(chosen)
    return Candidate(node, "pieces", cost, preds, search.n_demo)
