"""Linear probes on hidden states for task properties, and PCA of task embeddings.

A task's embedding at layer l is the mean hidden state over its prompt's tokens. Properties of
the answer the model must produce (output size equals input size, number of colours, symmetry)
are probed with a softmax regression fit on part of the tasks and scored on the rest against
the best constant guess: a probe that beats chance on held-out tasks found the property
linearly present at that layer; one that does not, did not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from shared.formats import build_prompt
from shared.interpret.capture import capture, style_of
from shared.tasks import Task

MAX_COLOURS = 4  # colour counts of 4 or more share a class, so the classes stay populated
PROPERTIES = ("same_size", "n_colours", "symmetric")


def task_properties(task: Task, test_index: int = 0) -> dict[str, int]:
    """Labels of the answer to test input `test_index`: same size as the input (0/1), number of
    colours (1..MAX_COLOURS, capped), symmetric under a left-right or up-down mirror (0/1)."""
    inp, out = np.asarray(task.test[test_index].input), np.asarray(task.test[test_index].output)
    return {"same_size": int(inp.shape == out.shape),
            "n_colours": int(min(len(np.unique(out)), MAX_COLOURS)),
            "symmetric": int(bool((out == out[:, ::-1]).all() or (out == out[::-1]).all()))}


def task_embeddings(model, tokenizer, tasks: list[Task], test_index: int = 0, style: str | None = None) -> np.ndarray:
    """[tasks, layers + 1, hidden]: mean hidden state over each task's prompt at every layer."""
    style = style_of(model, tokenizer, style)
    out = []
    for t in tasks:
        cap = capture(model, tokenizer, build_prompt(tokenizer, t, test_index, style))
        out.append(torch.stack([h.mean(0) for h in cap.hidden]).numpy())
    return np.stack(out)


@dataclass
class ProbeResult:
    name: str
    train_accuracy: float
    heldout_accuracy: float
    chance: float  # accuracy of the best constant guess on the held-out tasks (their commonest class)
    n_train: int
    n_heldout: int

    @property
    def lift(self) -> float:
        return self.heldout_accuracy - self.chance


def split(n: int, heldout_frac: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(train indices, held-out indices), seeded; at least one of each when n >= 2."""
    order = np.random.default_rng(seed).permutation(n)
    k = min(max(1, round(heldout_frac * n)), n - 1)
    return order[k:], order[:k]


def fit_probe(features: np.ndarray, labels, name: str = "probe", heldout_frac: float = 0.3, seed: int = 0,
              l2: float = 1e-2, steps: int = 100) -> ProbeResult:
    """Softmax regression on standardised features, fit on a seeded split, scored on the rest."""
    x = np.asarray(features, dtype=np.float32)
    classes, y = np.unique(np.asarray(labels), return_inverse=True)
    tr, te = split(len(x), heldout_frac, seed)
    mu, sd = x[tr].mean(0), x[tr].std(0) + 1e-6
    xt = torch.tensor((x - mu) / sd)
    yt = torch.tensor(y)
    linear = torch.nn.Linear(x.shape[1], len(classes))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        torch.nn.init.zeros_(linear.weight)
        torch.nn.init.zeros_(linear.bias)
    opt = torch.optim.LBFGS(linear.parameters(), lr=0.5, max_iter=steps, line_search_fn="strong_wolfe")
    train_x, train_y = xt[tr], yt[tr]

    def closure():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(linear(train_x), train_y) + l2 * linear.weight.pow(2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    with torch.no_grad():
        pred = linear(xt).argmax(-1)
    chance = np.bincount(y[te], minlength=len(classes)).max() / len(te)
    return ProbeResult(name, float((pred[tr] == yt[tr]).float().mean()), float((pred[te] == yt[te]).float().mean()),
                       float(chance), len(tr), len(te))


def probe_layers(embeddings: np.ndarray, labels: dict[str, list[int]], heldout_frac: float = 0.3,
                 seed: int = 0) -> dict[str, list[ProbeResult]]:
    """For each property, a probe per layer of `embeddings` [tasks, layers, hidden]."""
    return {name: [fit_probe(embeddings[:, li], y, f"{name}@{li}", heldout_frac, seed)
                   for li in range(embeddings.shape[1])] for name, y in labels.items()}


def property_labels(tasks: list[Task], test_index: int = 0) -> dict[str, list[int]]:
    props = [task_properties(t, test_index) for t in tasks]
    return {name: [p[name] for p in props] for name in PROPERTIES}


def plot_probes(results: dict[str, list[ProbeResult]], title: str = "linear probes"):
    """Held-out accuracy per layer for each property (solid) against its chance rate (dashed)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.4))
    for k, (name, per_layer) in enumerate(results.items()):
        colour = f"C{k}"
        ax.plot(range(len(per_layer)), [r.heldout_accuracy for r in per_layer], marker="o", color=colour,
                label=f"{name} (held-out)")
        ax.plot(range(len(per_layer)), [r.chance for r in per_layer], ls="--", color=colour, alpha=0.6)
    n = len(next(iter(results.values())))
    ax.set_xticks(range(n), ["emb"] + [f"L{i}" for i in range(1, n)])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy")
    first = next(iter(results.values()))[0]
    ax.set_title(f"{title} ({first.n_train} train / {first.n_heldout} held-out tasks; dashed: chance)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def pca(x: np.ndarray, k: int = 2) -> np.ndarray:
    """The first k principal-component coordinates of the rows of x."""
    centred = x - x.mean(0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[:k].T


def plot_pca(embeddings: np.ndarray, labels, name: str, title: str = ""):
    """Task embeddings [tasks, hidden] in their first two principal components, coloured by a property."""
    import matplotlib.pyplot as plt

    xy = pca(np.asarray(embeddings, dtype=np.float64))
    labels = np.asarray(labels)
    fig, ax = plt.subplots(figsize=(4.5, 3.8))
    for k, value in enumerate(np.unique(labels)):
        m = labels == value
        ax.scatter(xy[m, 0], xy[m, 1], s=22, color=f"C{k}", label=f"{name}={value}")
    ax.set_xlabel("PC 1")
    ax.set_ylabel("PC 2")
    ax.set_title(title or f"task embeddings by {name}", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
