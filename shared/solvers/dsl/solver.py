"""DslSolver: output sizes first, then program search, pieces, augmented passes, ranking.

`solve(task, budget_s)` returns at most two attempts per test input and a JSON trace whose
"program" is the winning program as straight-line Python. The time budget is split between
the plain task and, when it is still unsolved, an augmented copy (background normalised to
0, or transposed) whose answers are mapped back.
"""

from __future__ import annotations

import time

import numpy as np

from shared.augment import Augmentation
from shared.grids import d8
from shared.solvers import Prediction
from shared.solvers.dsl.combine import combine
from shared.solvers.dsl.primitives import PRIMITIVES
from shared.solvers.dsl.program import INPUT, Node, call, rebase, to_source
from shared.solvers.dsl.ranking import rank
from shared.solvers.dsl.search import Candidate, Search
from shared.solvers.dsl.size import predict_sizes
from shared.tasks import Task

# which primitive performs each dihedral element of shared.grids.d8, found by testing
_PROBE = np.arange(6, dtype=np.uint8).reshape(2, 3)
_D8_PRIM = {k: next(n for n in ("rotate90", "rotate180", "rotate270", "transpose", "flip_lr", "flip_ud",
                                 "anti_transpose") if np.array_equal(PRIMITIVES[n].fn(_PROBE), d8(_PROBE, k)))
            for k in range(1, 8)}


def _augmentations(task: Task) -> list[Augmentation]:
    """Augmented passes worth a share of the budget, most useful first."""
    counts = np.bincount(np.concatenate([p.input.ravel() for p in task.train]), minlength=10)
    out = []
    bg = int(np.argmax(counts))
    if bg != 0:
        perm = list(range(10))
        perm[0], perm[bg] = bg, 0
        out.append(Augmentation(0, tuple(perm)))
    out.append(Augmentation(4))
    return out


def _wrap(node: Node, aug: Augmentation) -> Node:
    """A program for the augmented task as one for the original: augment I, run, undo."""
    pre = INPUT
    if aug.transform:
        pre = call(_D8_PRIM[aug.transform], pre)
    perm = {i: p for i, p in enumerate(aug.perm) if i != p}
    if perm:
        pre = call("recolor", pre, args=(perm,))
    out = rebase(node, pre)
    if perm:
        out = call("recolor", out, args=({p: i for i, p in perm.items()},))
    if aug.transform:
        inv = (4 - aug.transform) % 4 if aug.transform < 4 else aug.transform
        out = call(_D8_PRIM[inv], out)
    return out


class DslSolver:
    name = "dsl"

    def __init__(self, max_depth: int = 3, augment: bool = True):
        self.max_depth = max_depth  # depth 3 fills a 30 s budget on a laptop core
        self.augment = augment

    def _search(self, task: Task, deadline: float) -> tuple[list[Candidate], Search]:
        search = Search([p.input for p in task.train], [p.output for p in task.train],
                        [p.input for p in task.test], deadline, self.max_depth)
        cands = list(search.run())
        if not cands:
            piece = combine(search, deadline)
            if piece is not None:
                cands.append(piece)
        return cands, search

    def solve(self, task: Task, budget_s: float) -> Prediction:
        start = time.monotonic()
        end = start + max(0.2, budget_s * 0.9 - 0.2)  # leave room to rank, print and return
        rule, sizes = predict_sizes(task)
        trace = {"size_rule": rule, "passes": []}

        candidates: list[Candidate] = []
        outputs = [p.output for p in task.train]
        if all(np.array_equal(o, outputs[0]) for o in outputs[1:]) and len(outputs) > 1:
            const = call("constant", INPUT, args=(outputs[0].tolist(),))
            candidates.append(Candidate(const, "exact", 1.0, [outputs[0].copy() for _ in task.test], len(outputs)))

        augs = _augmentations(task) if self.augment else []
        plain_share = 0.6 if augs else 1.0
        cands, search = self._search(task, start + (end - start) * plain_share)
        candidates += cands
        trace["passes"].append(self._pass_trace("t0.p0123456789", search))
        best_search = search
        for i, aug in enumerate(augs):
            if rank(candidates, sizes) or time.monotonic() > end - 0.5:
                break
            share = (end - time.monotonic()) / (len(augs) - i)
            aug_task = aug.apply(task)
            cands, search = self._search(aug_task, time.monotonic() + share)
            trace["passes"].append(self._pass_trace(aug.id, search))
            for c in cands:
                preds = [aug.invert_grid(p) if p is not None else None for p in c.preds]
                candidates.append(Candidate(_wrap(c.node, aug), c.kind, c.cost + 0.5, preds, c.explained))

        best = rank(candidates, sizes)
        if not best:
            guess = _partial(best_search)
            if guess is not None:
                best = rank([guess], sizes) or [guess]
        attempts = [[c.preds[i] for c in best if c.preds[i] is not None] for i in range(len(task.test))]
        trace.update({
            "program": to_source(best[0].node) if best else "",
            "programs": [to_source(c.node) for c in best],
            "kind": best[0].kind if best else "none",
            "depth": best[0].node.size() if best else 0,
            "demos_explained": best[0].explained if best else 0,
            "candidates_tried": sum(p["generated"] for p in trace["passes"]),
            "solutions_found": len(candidates),
            "seconds": round(time.monotonic() - start, 3),
        })
        return Prediction(attempts, trace)

    @staticmethod
    def _pass_trace(aug_id: str, search: Search) -> dict:
        s = search.stats
        return {"augmentation": aug_id, "expanded": s.expanded, "generated": s.generated,
                "states": len(search.states), "stopped": s.stopped, "max_depth": s.max_depth_reached,
                "stored_mb": round(s.stored_bytes / 1e6, 1), "op_errors": s.op_errors}


def _partial(search: Search) -> Candidate | None:
    """No program explains the demos: the sized state closest to them, as a last guess."""
    best, best_score = None, -1.0
    for s in search.sized:
        if any(t.max() > 9 for t in s.test):
            continue
        score = sum(float((d == o).mean()) for d, o in zip(s.demo, search.outputs, strict=True)) - 0.01 * s.cost
        if score > best_score:
            best, best_score = s, score
    if best is None:
        return None
    explained = sum(bool(np.array_equal(d, o)) for d, o in zip(best.demo, search.outputs, strict=True))
    return Candidate(search.node(best.state), "partial", best.cost, best.test, explained)
