"""Error taxonomy of a run: why each test input was missed, in the order a grid can go wrong.

unparseable (no grid could be read) -> size (wrong shape) -> colours (right shape, another set
of colours) -> cells (right shape and colours, some cells wrong) -> correct: `scoring.outcome`
with colours split, under short labels, over a run's rows (`shared.runs`); a row that timed out
or failed counts as "error". Several runs side by side for stages.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from shared.runs import outcomes_per_test
from shared.scoring import outcome

KINDS = ("correct", "cells", "colours", "size", "unparseable", "no answer", "error")
KIND_COLOURS = {"correct": "#2ECC40", "cells": "#FFDC00", "colours": "#FF851B", "size": "#FF4136",
                "unparseable": "#AAAAAA", "no answer": "#DDDDDD", "error": "#111111"}

# this view's short labels for the outcomes of `scoring.outcome` and `runs.outcomes_per_test`
LABELS = {"wrong cells": "cells", "wrong colours": "colours", "wrong size": "size", "timeout": "error"}


def classify(attempts: list, expected, parsed: list[bool] | None = None) -> str:
    """The kind of one test input's outcome (see the module docstring); parsed: the views' parse flags."""
    kind = outcome(attempts, expected, parsed, colours=True)
    return LABELS.get(kind, kind)


def error_taxonomy(rows: list[dict]) -> Counter:
    """Counts of each kind over every scored test input of a run."""
    return Counter(LABELS.get(k, k) for r in rows for k in outcomes_per_test(r, colours=True))


def draw_error_taxonomy(ax, runs: dict[str, list[dict]], title: str = "error taxonomy") -> None:
    """On `ax`: one stacked bar per run (e.g. per training stage), test inputs by kind of outcome."""
    counts = {name: error_taxonomy(rows) for name, rows in runs.items()}
    bottom = np.zeros(len(runs))
    for kind in KINDS:
        vals = np.array([counts[n].get(kind, 0) for n in runs])
        if vals.any():
            ax.bar(list(runs), vals, bottom=bottom, label=kind, color=KIND_COLOURS[kind], edgecolor="white")
            bottom += vals
    ax.set_ylabel("test inputs")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)


def plot_error_taxonomy(runs: dict[str, list[dict]], title: str = "error taxonomy"):
    """A figure of `draw_error_taxonomy`."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.3 * len(runs) + 3.5, 3.2))
    draw_error_taxonomy(ax, runs, title)
    fig.tight_layout()
    return fig
