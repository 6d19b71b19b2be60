"""Programs as a small DAG of primitive calls: run them, and print them as straight-line Python.

A Node is one call `name(inputs..., literals...)`; the leaf `I` is the task input. Printing
gives `def solve(I): x1 = ...; O = ...; return O` that runs on its own after
`from shared.solvers.dsl.primitives import *`; `run_source` re-executes that text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shared.solvers.dsl.primitives import PRIMITIVES

HEADER = "from shared.solvers.dsl.primitives import *\n\n\n"


@dataclass(frozen=True)
class Node:
    name: str                      # a primitive's name, or "I" for the input
    inputs: tuple = ()             # Nodes
    args: tuple = ()               # literal arguments after the inputs

    def __hash__(self):
        return hash((self.name, self.inputs, repr(self.args)))

    def __eq__(self, other):
        return isinstance(other, Node) and (self.name, self.inputs, repr(self.args)) == (
            other.name, other.inputs, repr(other.args))

    def size(self) -> int:
        """Number of distinct calls in the program."""
        return len(_order(self)) - 1


INPUT = Node("I")


def call(name: str, *inputs: Node, args: tuple = ()) -> Node:
    if name not in PRIMITIVES:
        raise KeyError(f"no primitive named {name!r}")
    return Node(name, tuple(inputs), tuple(args))


def _order(root: Node) -> list[Node]:
    seen: dict[Node, None] = {}

    def visit(n: Node):
        if n in seen:
            return
        for i in n.inputs:
            visit(i)
        seen[n] = None

    visit(root)
    return list(seen)


def run(root: Node, grid: np.ndarray):
    """Evaluate the program on one input grid (None when a step does not apply)."""
    values: dict[Node, object] = {INPUT: grid}
    for n in _order(root):
        if n is INPUT or n == INPUT:
            continue
        ins = [values[i] for i in n.inputs]
        if any(v is None for v in ins):
            return None
        values[n] = PRIMITIVES[n.name].fn(*ins, *n.args)
    return values[root]


def _literal(a) -> str:
    if isinstance(a, dict):
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in sorted(a.items())) + "}"
    return repr(a)


def to_source(root: Node) -> str:
    """Straight-line Python for the program, one call per line."""
    names: dict[Node, str] = {INPUT: "I"}
    lines = []
    order = [n for n in _order(root) if n != INPUT]
    for k, n in enumerate(order, 1):
        var = "O" if n is order[-1] else f"x{k}"
        names[n] = var
        parts = [names[i] for i in n.inputs] + [_literal(a) for a in n.args]
        lines.append(f"    {var} = {n.name}({', '.join(parts)})")
    if not order:
        lines.append("    O = I")
    return HEADER + "def solve(I):\n" + "\n".join(lines) + "\n    return O\n"


def run_source(source: str, grid: np.ndarray):
    """Execute printed program text on a grid (the text's own imports only)."""
    namespace: dict = {}
    exec(compile(source, "<dsl program>", "exec"), namespace)  # noqa: S102 - our own printed programs
    return namespace["solve"](grid)


def rebase(root: Node, new_input: Node) -> Node:
    """The same program reading `new_input` wherever it read I (to prefix an augmentation)."""
    memo: dict[Node, Node] = {}

    def walk(n: Node) -> Node:
        if n == INPUT:
            return new_input
        if n not in memo:
            memo[n] = Node(n.name, tuple(walk(i) for i in n.inputs), n.args)
        return memo[n]

    return walk(root)
