"""Activation patching between two demo pairs of one task.

Two prompts share the task's other pairs as demos and differ only in the test input: demo pair
a's input (clean) or demo pair b's input of the same shape (corrupt). The residual stream of the
clean run is copied into the corrupt run at one layer and one position at a time; how much of
log p(a's output) comes back says where, and at which depth, the answer's information flows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from shared.formats import format_example
from shared.interpret.capture import capture, char_labels, find_test_input, style_of
from shared.tasks import Pair, Task


def patchable_pair(task: Task) -> tuple[int, int] | None:
    """Two demo pairs whose inputs (and outputs) have the same shapes, or None."""
    for a in range(len(task.train)):
        for b in range(a + 1, len(task.train)):
            pa, pb = task.train[a], task.train[b]
            if pa.input.shape == pb.input.shape and pa.output.shape == pb.output.shape \
                    and not np.array_equal(pa.input, pb.input):
                return a, b
    return None


def smallest_patchable(tasks) -> Task | None:
    """The task with the fewest cells among those with a patchable pair (patching costs a forward
    pass per layer and position), or None."""
    found = [t for t in tasks if patchable_pair(t) is not None]
    return min(found, key=lambda t: sum(p.input.size + (0 if p.output is None else p.output.size)
                                        for p in t.train + t.test), default=None)


def demo_swap(task: Task, a: int, b: int) -> tuple[Task, Task]:
    """(clean, corrupt): the other known pairs as demos; test input = pair a's or pair b's input,
    the answer always pair a's output."""
    context = tuple(p for i, p in enumerate(task.train) if i not in (a, b))
    context += tuple(p for p in task.test if p.output is not None)
    pa, pb = task.train[a], task.train[b]
    return (Task(f"{task.id}:clean", context, (pa,)),
            Task(f"{task.id}:corrupt", context, (Pair(pb.input, pa.output),)))


@dataclass
class Patching:
    effect: np.ndarray  # [layers + 1, positions]: share of the clean-vs-corrupt gap restored
    labels: list[str]  # the token at each patched position (corrupt prompt)
    clean: float  # log p(answer) in the clean run
    corrupt: float


def _stream_modules(model) -> list:
    """Modules whose outputs are `hidden_states[0..L]`: the embeddings, every layer but the last,
    then the final norm (Hugging Face returns the last layer's state after the norm)."""
    from shared.interpret.lens import final_norm

    base = model.get_decoder() if hasattr(model, "get_decoder") else model.model
    return [base.embed_tokens, *list(base.layers)[:-1], final_norm(model)]


def _answer_logprob(logits: torch.Tensor, ids: torch.Tensor, n_prompt: int) -> torch.Tensor:
    """Per row of a batch: sum of log p(answer tokens)."""
    logp = torch.log_softmax(logits.float(), dim=-1)
    pos = torch.arange(n_prompt, ids.shape[1], device=ids.device)
    return logp[:, pos - 1].gather(-1, ids[:, pos][..., None])[..., 0].sum(-1)


def _patched_logprobs(model, module, ids: torch.Tensor, positions: list[int], source: torch.Tensor,
                      n_prompt: int) -> np.ndarray:
    """log p(answer) of the corrupt run `ids`, once per position, with `module`'s output there replaced by `source`."""
    batch = ids[None].repeat(len(positions), 1)
    rows = torch.arange(len(positions))
    source = source.to(model.device)

    def hook(_module, _inputs, output):
        hidden = (output[0] if isinstance(output, tuple) else output).clone()
        hidden[rows, positions] = source.to(hidden.dtype)
        return (hidden, *output[1:]) if isinstance(output, tuple) else hidden

    handle = module.register_forward_hook(hook)
    try:
        with torch.inference_mode():
            logits = model(input_ids=batch).logits
    finally:
        handle.remove()
    return _answer_logprob(logits, batch, n_prompt).float().cpu().numpy()


def activation_patching(model, tokenizer, task: Task, a: int, b: int, style: str | None = None,
                        batch_size: int = 32, max_positions: int = 128) -> Patching:
    """Patch the clean run's residual stream into the corrupt run at every (layer, test-input position).

    Each patched position is one row of a batch of `batch_size` corrupt runs (memory: rows x tokens);
    a test input of more than `max_positions` tokens is patched at evenly spaced positions.
    """
    style = style_of(model, tokenizer, style)
    clean_task, corrupt_task = demo_swap(task, a, b)
    clean_p, completion = format_example(tokenizer, clean_task, 0, style)
    corrupt_p, _ = format_example(tokenizer, corrupt_task, 0, style)
    clean = capture(model, tokenizer, clean_p, completion)
    corrupt = capture(model, tokenizer, corrupt_p, completion)
    if len(clean.ids) != len(corrupt.ids):
        raise ValueError(f"task {task.id}: pairs {a} and {b} tokenize to different lengths; cannot patch")
    first = next(i for i, (s, e) in enumerate(corrupt.offsets) if e > find_test_input(corrupt_p, corrupt_task, 0))
    positions = list(range(first, corrupt.n_prompt))
    if len(positions) > max_positions:
        positions = [positions[int(k)] for k in np.linspace(0, len(positions) - 1, max_positions)]
    ids = corrupt.ids.to(model.device)
    base_clean = float(_answer_logprob(clean.logits[None], clean.ids[None], clean.n_prompt)[0])
    base_corrupt = float(_answer_logprob(corrupt.logits[None], corrupt.ids[None], corrupt.n_prompt)[0])
    modules = _stream_modules(model)
    gap = base_clean - base_corrupt
    scale = gap if abs(gap) > 1e-6 else 1.0  # no gap to restore: report the raw change instead
    effect = np.zeros((len(modules), len(positions)))
    for li, module in enumerate(modules):
        for start in range(0, len(positions), batch_size):
            chunk = positions[start:start + batch_size]
            patched = _patched_logprobs(model, module, ids, chunk, clean.hidden[li][chunk], corrupt.n_prompt)
            effect[li, start:start + len(chunk)] = (patched - base_corrupt) / scale
    return Patching(effect, char_labels(tokenizer, corrupt.ids[positions]), base_clean, base_corrupt)


def plot_patching(model, tokenizer, task: Task, pair: tuple[int, int] | None = None, style: str | None = None):
    """Heatmap: layer x test-input position, share of log p(clean answer) restored by patching there."""
    import matplotlib.pyplot as plt

    pair = pair or patchable_pair(task)
    if pair is None:
        raise ValueError(f"task {task.id}: no two demo pairs of the same shapes to patch between")
    res = activation_patching(model, tokenizer, task, *pair, style)
    fig, ax = plt.subplots(figsize=(min(14, 0.3 * len(res.labels) + 3), 0.5 * len(res.effect) + 1.8))
    lim = max(1.0, float(np.abs(res.effect).max()))
    im = ax.imshow(res.effect, aspect="auto", origin="lower", cmap="RdBu_r", vmin=-lim, vmax=lim,
                   interpolation="nearest")
    ax.set_xticks(range(len(res.labels)), res.labels, fontsize=7)
    ax.set_yticks(range(len(res.effect)), ["emb"] + [f"L{i}" for i in range(1, len(res.effect))])
    ax.set_xlabel("position in the test input (corrupt prompt)")
    ax.set_title(f"{task.id}: patching demo {pair[0]} (clean) into demo {pair[1]} (corrupt); "
                 f"log p clean {res.clean:.1f}, corrupt {res.corrupt:.1f}", fontsize=8)
    fig.colorbar(im, ax=ax, fraction=0.03, label="share restored")
    fig.tight_layout()
    return fig
