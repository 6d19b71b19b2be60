"""Output-size inference, run before the search: which shapes the test outputs can have.

Simple rules read off the demos (same as input, a constant, a fixed scale, transposed); when
one holds for every demo it is trusted, and candidates answering another size are dropped.
"""

from __future__ import annotations

from fractions import Fraction

from shared.tasks import Task


def _rules(task: Task) -> dict:
    ins = [p.input.shape for p in task.train]
    outs = [p.output.shape for p in task.train]
    rules = {}
    if all(i == o for i, o in zip(ins, outs, strict=True)):
        rules["same"] = lambda s: s
    if len(set(outs)) == 1:
        rules["constant"] = lambda s, o=outs[0]: o
    if all((i[1], i[0]) == o for i, o in zip(ins, outs, strict=True)):
        rules["transposed"] = lambda s: (s[1], s[0])
    fy = {Fraction(o[0], i[0]) for i, o in zip(ins, outs, strict=True)}
    fx = {Fraction(o[1], i[1]) for i, o in zip(ins, outs, strict=True)}
    if len(fy) == 1 and len(fx) == 1 and "same" not in rules:
        ry, rx = fy.pop(), fx.pop()
        rules["scaled"] = lambda s, ry=ry, rx=rx: (s[0] * ry, s[1] * rx)
    return rules


def predict_sizes(task: Task) -> tuple[str, list[set]]:
    """The rule names that hold and, per test input, the shapes they allow (empty: no rule)."""
    rules = _rules(task)
    allowed = []
    for p in task.test:
        shapes = set()
        for f in rules.values():
            s = f(p.input.shape)
            if all(float(v).is_integer() and 1 <= v <= 30 for v in s):
                shapes.add((int(s[0]), int(s[1])))
        allowed.append(shapes)
    return "+".join(rules) or "unknown", allowed
