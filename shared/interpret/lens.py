"""Logit lens: read every layer's hidden state through the final norm and the unembedding.

For each answer token, the probability the model would give the right token if it stopped at
layer l shows where in depth the answer forms. The last hidden state a Hugging Face model returns
is already normed, so only the earlier layers get the final norm here.
"""

from __future__ import annotations

import numpy as np
import torch

from shared.grids import Grid
from shared.interpret.capture import Capture, capture, char_labels, example_text, style_of
from shared.tasks import Task


def final_norm(model):
    """The norm applied before the unembedding (Llama / Qwen / Mistral: `model.model.norm`)."""
    base = model.get_decoder() if hasattr(model, "get_decoder") else model.model
    norm = getattr(base, "norm", None) or getattr(base, "final_layernorm", None)
    if norm is None:
        raise ValueError(f"{type(model).__name__}: no final norm found for the logit lens")
    return norm


def lens_probs(model, cap: Capture) -> np.ndarray:
    """[layers + 1, answer tokens]: p(the answer token) read from each layer's hidden state."""
    norm, head = final_norm(model), model.get_output_embeddings()
    pos = torch.arange(cap.n_prompt, len(cap.ids))
    target = cap.ids[pos]
    rows = []
    with torch.inference_mode():
        for li, h in enumerate(cap.hidden):
            x = h[pos - 1].to(model.device, dtype=head.weight.dtype)
            if li < len(cap.hidden) - 1:
                x = norm(x)
            p = torch.softmax(head(x).float(), dim=-1)
            rows.append(p[torch.arange(len(pos)), target.to(p.device)].cpu().numpy())
    return np.stack(rows)


def logit_lens(model, tokenizer, task: Task, test_index: int = 0, answer: Grid | None = None,
               style: str | None = None) -> tuple[np.ndarray, list[str]]:
    """(probabilities [layers + 1, answer tokens], token labels) for the expected (or given) answer."""
    style = style_of(model, tokenizer, style)
    prompt, completion = example_text(tokenizer, task, test_index, style, answer)
    cap = capture(model, tokenizer, prompt, completion)
    return lens_probs(model, cap), char_labels(tokenizer, cap.answer_ids)


def plot_logit_lens(model, tokenizer, task: Task, test_index: int = 0, answer: Grid | None = None,
                    style: str | None = None, max_tokens: int = 60):
    """Heatmap: layer (rows, embeddings at the bottom) x answer token, p(right token) from that layer."""
    import matplotlib.pyplot as plt

    probs, labels = logit_lens(model, tokenizer, task, test_index, answer, style)
    probs, labels = probs[:, :max_tokens], labels[:max_tokens]
    fig, ax = plt.subplots(figsize=(min(14, 0.25 * len(labels) + 2.5), 0.5 * len(probs) + 1.5))
    im = ax.imshow(probs, aspect="auto", origin="lower", cmap="magma", vmin=0, vmax=1, interpolation="nearest")
    ax.set_xticks(range(len(labels)), labels, fontsize=7)
    ax.set_yticks(range(len(probs)), ["emb"] + [f"L{i}" for i in range(1, len(probs))])
    ax.set_xlabel("answer token")
    ax.set_title(f"{task.id}: logit lens, p(right token) read at each layer")
    fig.colorbar(im, ax=ax, fraction=0.03)
    fig.tight_layout()
    return fig
