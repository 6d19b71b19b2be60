"""How sure the model is: per-cell confidence of a grid, entropy along a generation, per-token loss.

Cell confidence is p(the cell's token) with the grid fed as the answer (teacher forcing); the
entropy view generates greedily and records the entropy of each next-token distribution; the
loss view puts the per-token loss of the right answer beside that of a wrong one.
"""

from __future__ import annotations

import numpy as np
import torch

from shared.formats import build_prompt
from shared.grids import Grid
from shared.interpret.capture import answer_start, capture, cell_positions, char_labels, example_text, style_of
from shared.tasks import Task


def cell_confidence(model, tokenizer, task: Task, grid: Grid, test_index: int = 0,
                    style: str | None = None) -> np.ndarray:
    """p(each cell's token | everything before it) with `grid` as the answer, shaped like the grid."""
    style = style_of(model, tokenizer, style)
    prompt, completion = example_text(tokenizer, task, test_index, style, grid)
    cap = capture(model, tokenizer, prompt, completion)
    pos = cell_positions(cap, grid, answer_start(cap))
    probs = torch.softmax(cap.logits, dim=-1)
    flat = pos.reshape(-1)
    return probs[flat - 1, cap.ids[flat]].numpy().reshape(pos.shape)


def plot_cell_confidence(model, tokenizer, task: Task, grid: Grid | None, test_index: int = 0,
                         style: str | None = None):
    """The predicted grid, its per-cell confidence, and the expected grid with wrong cells crossed."""
    import matplotlib.pyplot as plt

    from shared.report import draw_grid

    expected = task.test[test_index].output
    fig, axes = plt.subplots(1, 3, figsize=(9, 3.2))
    if grid is None:
        for ax in axes:
            ax.axis("off")
        axes[1].text(0.5, 0.5, "no parseable answer", ha="center", va="center")
        return fig
    grid = np.asarray(grid)
    conf = cell_confidence(model, tokenizer, task, grid, test_index, style)
    draw_grid(axes[0], grid, "predicted")
    im = axes[1].imshow(conf, cmap="RdYlGn", vmin=0, vmax=1, interpolation="nearest")
    axes[1].set_xticks([])
    axes[1].set_yticks([])
    axes[1].set_title(f"p(cell), mean {conf.mean():.2f}", fontsize=8)
    fig.colorbar(im, ax=axes[1], fraction=0.046)
    if expected is not None:
        draw_grid(axes[2], expected, "expected (x: predicted cell wrong)")
        if np.asarray(expected).shape == grid.shape:
            for r, c in zip(*np.nonzero(np.asarray(expected) != grid), strict=True):
                axes[2].text(c, r, "x", ha="center", va="center", color="white", fontsize=8)
    else:
        axes[2].axis("off")
    fig.suptitle(f"{task.id}: per-cell confidence")
    fig.tight_layout()
    return fig


def entropy(logits: torch.Tensor) -> torch.Tensor:
    """Entropy in nats of each row's softmax."""
    logp = torch.log_softmax(logits.float(), dim=-1)
    return -(logp.exp() * logp).sum(-1)


def generation_entropy(model, tokenizer, prompt: str, max_new_tokens: int) -> tuple[list[str], np.ndarray]:
    """Greedy generation from `prompt`: (token labels, entropy of the distribution each came from)."""
    enc = tokenizer(prompt, return_tensors="pt", add_special_tokens=False).to(model.device)
    with torch.inference_mode():
        out = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False, output_scores=True,
                             return_dict_in_generate=True, pad_token_id=tokenizer.pad_token_id,
                             temperature=None, top_p=None, top_k=None)
    new = out.sequences[0, enc["input_ids"].shape[1]:]
    ent = torch.stack([entropy(s[0]) for s in out.scores]).cpu().numpy() if out.scores else np.zeros(0)
    return char_labels(tokenizer, new), ent


def plot_entropy(model, tokenizer, task: Task, max_new_tokens: int, test_index: int = 0,
                 style: str | None = None):
    """Entropy of each generated token's distribution; high where the model hesitates."""
    import matplotlib.pyplot as plt

    style = style_of(model, tokenizer, style)
    labels, ent = generation_entropy(model, tokenizer, build_prompt(tokenizer, task, test_index, style),
                                     max_new_tokens)
    fig, ax = plt.subplots(figsize=(min(14, 0.25 * len(labels) + 2.5), 3))
    ax.plot(range(len(ent)), ent, marker="o", ms=3)
    ax.set_xticks(range(len(labels)), labels, fontsize=7)
    vocab = model.get_output_embeddings().weight.shape[0]
    ax.axhline(np.log(vocab), color="grey", ls="--", lw=0.8, label="uniform")
    ax.set_ylabel("entropy (nats)")
    ax.set_xlabel("generated token")
    ax.set_title(f"{task.id}: entropy along the greedy answer")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def token_losses(model, tokenizer, task: Task, grid: Grid, test_index: int = 0,
                 style: str | None = None) -> tuple[list[str], np.ndarray]:
    """(token labels, -log p of each answer token) with `grid` as the answer, end marker included."""
    style = style_of(model, tokenizer, style)
    prompt, completion = example_text(tokenizer, task, test_index, style, grid)
    cap = capture(model, tokenizer, prompt, completion)
    return char_labels(tokenizer, cap.answer_ids), -cap.token_logprobs().numpy()


def perturb(grid: Grid, seed: int = 0) -> np.ndarray:
    """The grid with one cell recoloured: a wrong answer that differs from the right one minimally."""
    g = np.array(grid, dtype=np.uint8)
    rng = np.random.default_rng(seed)
    r, c = rng.integers(g.shape[0]), rng.integers(g.shape[1])
    g[r, c] = (int(g[r, c]) + 1 + rng.integers(9)) % 10
    return g


def plot_token_loss(model, tokenizer, task: Task, wrong: Grid | None = None, test_index: int = 0,
                    style: str | None = None):
    """Per-token loss of the expected answer (top) and of a wrong one (bottom; default: one cell changed)."""
    import matplotlib.pyplot as plt

    expected = task.test[test_index].output
    wrong = perturb(expected) if wrong is None else np.asarray(wrong)
    rows = [("correct", expected), ("incorrect", wrong)]
    fig, axes = plt.subplots(2, 1, figsize=(min(14, 0.25 * max(np.size(expected), np.size(wrong)) + 4), 4.5))
    for ax, (name, grid) in zip(axes, rows, strict=True):
        labels, loss = token_losses(model, tokenizer, task, grid, test_index, style)
        ax.bar(range(len(loss)), loss, color="#2ECC40" if name == "correct" else "#FF4136")
        ax.set_xticks(range(len(labels)), labels, fontsize=7)
        ax.set_ylabel("-log p")
        ax.set_title(f"{name} answer: total {loss.sum():.1f} nats, mean {loss.mean():.2f}", fontsize=9)
    fig.suptitle(f"{task.id}: per-token loss")
    fig.tight_layout()
    return fig
