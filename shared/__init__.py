"""The ARC suite's shared library: tasks, grids, augmentations, formats, scoring, solvers.

The core modules (tasks, grids, augment, formats, scoring) import no torch; models and
training import it only when a model is asked for.
"""

__version__ = "0.1.0"
