"""Ranking candidates into at most two attempts per test input.

Only programs that reproduce every demo output count; among them the simplest kind of
program first (exact; then fitted endings and learned rules together, whose costs count the
literals they learned; pieces; a learned ending on a state the core's greedy climb past its depth
reached, the weakest evidence of a program; cell tree), then lowest cost. Candidates whose test answers
break a trusted output-size rule come after every candidate that keeps it; of those, only
exact and fitted programs are kept (`off_size`): the rule is read off the demos, and a program
that reproduces each of them is the stronger evidence. The two attempts come from the two best
candidates with distinct predictions; when programs give fewer, last guesses (a cell tree, the
closest partial results) fill the rest.
"""

from __future__ import annotations

from shared.grids import grid_hash
from shared.solvers.dsl.search import Candidate


def _valid(c: Candidate, sizes: list[set], check_size: bool = True) -> bool:
    for p, allowed in zip(c.preds, sizes, strict=True):
        if p is None or p.max() > 9 or (check_size and allowed and p.shape not in allowed):
            return False
    return True


def rank(candidates: list[Candidate], sizes: list[set], keep: int = 2, off_size: bool = True) -> list[Candidate]:
    """The best `keep` candidates with distinct test predictions, best first; with `off_size`,
    exact and fitted programs that break the size rule fill what the others leave."""
    ordered = sorted(candidates, key=Candidate.rank)
    right = [c for c in ordered if _valid(c, sizes)]
    if off_size:
        right += [c for c in ordered if c.firm and _valid(c, sizes, False) and not _valid(c, sizes)]
    out, seen = [], set()
    for c in right:
        key = tuple(grid_hash(p) for p in c.preds)
        if key in seen:
            continue
        seen.add(key)
        out.append(c)
        if len(out) == keep:
            break
    return out
