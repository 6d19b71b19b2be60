"""The CPU solver: a typed DSL of grid primitives and a budgeted program search over it.

`DslSolver` is the entry point; `primitives` holds the registry (one module per family),
`search` enumerates programs, `fitters` lists the learned last steps tried on each state and
`fit` learns their arguments (one module per family), `combine` stacks pieces,
`ranking` picks two attempts, and `program` prints winners as straight-line Python.
"""

from shared.solvers.dsl.solver import DslSolver

__all__ = ["DslSolver"]
