"""Ranking candidates into at most two attempts per test input.

Only programs that reproduce every demo output count; among them the simplest kind of
program first (exact, then a fitted recolour or layout, local rule, pieces, cell tree), then
lowest cost. Candidates whose test answers break a trusted output-size rule are dropped. The
two attempts come from the two best candidates with distinct predictions; when programs give
fewer, last guesses (a cell tree, the closest partial results) fill the rest.
"""

from __future__ import annotations

from shared.grids import grid_hash
from shared.solvers.dsl.search import Candidate


def _valid(c: Candidate, sizes: list[set]) -> bool:
    for p, allowed in zip(c.preds, sizes, strict=True):
        if p is None or p.max() > 9 or (allowed and p.shape not in allowed):
            return False
    return True


def rank(candidates: list[Candidate], sizes: list[set], keep: int = 2) -> list[Candidate]:
    """The best `keep` candidates with distinct test predictions, best first."""
    out, seen = [], set()
    for c in sorted(candidates, key=Candidate.rank):
        if not _valid(c, sizes):
            continue
        key = tuple(grid_hash(p) for p in c.preds)
        if key in seen:
            continue
        seen.add(key)
        out.append(c)
        if len(out) == keep:
            break
    return out
