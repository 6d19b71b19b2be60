"""The CPU solver: a typed DSL of grid primitives and a budgeted program search over it.

`DslSolver` is the entry point; `primitives` holds the registry (one module per family),
`search` enumerates programs, `fit` learns recolours and local rules, `combine` stacks pieces,
`ranking` picks two attempts, and `program` prints winners as straight-line Python.
"""

from shared.solvers.dsl.solver import DslSolver

__all__ = ["DslSolver"]
