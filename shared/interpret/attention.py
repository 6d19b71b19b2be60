"""Attention from the cells of an output grid to the cells of the test input, per layer and head.

With the expected answer appended to the prompt (teacher forcing), each output cell's attention
weights over the test input's cells are read from every layer and head; the figure shows, per
layer (rows) and head (columns), where the output as a whole (or one chosen cell) looks.
"""

from __future__ import annotations

import numpy as np

from shared.grids import Grid
from shared.interpret.capture import answer_start, capture, cell_positions, example_text, find_test_input, style_of
from shared.tasks import Task


def output_to_input_attention(model, tokenizer, task: Task, test_index: int = 0, answer: Grid | None = None,
                              style: str | None = None) -> np.ndarray:
    """[layers, heads, output cells, input rows, input cols]: attention weight from each output cell
    (the position that predicts it, i.e. the token before it) to each test-input cell."""
    style = style_of(model, tokenizer, style)
    prompt, completion = example_text(tokenizer, task, test_index, style, answer)
    cap = capture(model, tokenizer, prompt, completion, attentions=True)
    out_grid = answer if answer is not None else task.test[test_index].output
    in_pos = cell_positions(cap, task.test[test_index].input, find_test_input(prompt, task, test_index))
    # a cell's token is predicted from the position before it: that is where its choice is made
    out_pos = cell_positions(cap, out_grid, answer_start(cap)).reshape(-1) - 1
    attn = np.stack([a.numpy() for a in cap.attentions])  # [L, H, T, T]
    h, w = in_pos.shape
    picked = attn[:, :, out_pos][:, :, :, in_pos.reshape(-1)]
    return picked.reshape(attn.shape[0], attn.shape[1], len(out_pos), h, w)


def plot_attention(model, tokenizer, task: Task, test_index: int = 0, answer: Grid | None = None,
                   cell: tuple[int, int] | None = None, style: str | None = None):
    """Per layer and head: attention mass on each test-input cell, summed over the output cells
    (or from one output `cell` (row, col)). The test input and output are drawn on the left."""
    import matplotlib.pyplot as plt

    from shared.report import draw_grid

    weights = output_to_input_attention(model, tokenizer, task, test_index, answer, style)
    out_grid = np.asarray(answer if answer is not None else task.test[test_index].output)
    if cell is not None:
        maps = weights[:, :, cell[0] * out_grid.shape[1] + cell[1]]
        what = f"from output cell {cell}"
    else:
        maps = weights.mean(axis=2)
        what = "mean over output cells"
    layers, heads = maps.shape[:2]
    fig, axes = plt.subplots(layers, heads + 2, figsize=(1.9 * (heads + 2), 1.9 * layers + 0.6), squeeze=False)
    for li in range(layers):
        draw_grid(axes[li][0], task.test[test_index].input, "test input" if li == 0 else "")
        draw_grid(axes[li][1], out_grid, "output" if li == 0 else "")
        for hi in range(heads):
            ax = axes[li][2 + hi]
            ax.imshow(maps[li, hi], cmap="viridis", vmin=0, interpolation="nearest")
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(f"L{li} H{hi}  {maps[li, hi].sum():.2f}", fontsize=8)
    fig.suptitle(f"{task.id}: attention to test-input cells, {what} (title: total mass)", fontsize=9)
    fig.tight_layout()
    return fig
