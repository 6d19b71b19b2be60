"""The same views, reduced to numbers, side by side for several models (base, SFT, DPO, GRPO).

`stage_measures` summarises one model over a few tasks with every per-model view of this
package (logit lens, per-token loss of right and wrong answers, cell confidence, entropy,
agreement across augmentations, probes); `plot_stages` draws the stages against each other,
with the error taxonomy of each stage's evaluation run.
"""

from __future__ import annotations

import numpy as np

from shared.formats import build_prompt
from shared.interpret import agreement, confidence, lens, probes
from shared.interpret.capture import style_of
from shared.tasks import Task


def stage_measures(model, tokenizer, tasks: list[Task], max_new_tokens: int, n_views: int = 4,
                   probe_tasks: list[Task] | None = None, style: str | None = None) -> dict:
    """Means over `tasks` (first test input each) of each view's headline number; probes on
    `probe_tasks` (default: `tasks`) give the best held-out accuracy over layers per property."""
    style = style_of(model, tokenizer, style)
    lens_curves, right, wrong, conf, ent, agree = [], [], [], [], [], []
    for t in tasks:
        expected = t.test[0].output
        probs, _ = lens.logit_lens(model, tokenizer, t, style=style)
        lens_curves.append(probs.mean(1))
        right.append(confidence.token_losses(model, tokenizer, t, expected, style=style)[1].mean())
        wrong.append(confidence.token_losses(model, tokenizer, t, confidence.perturb(expected), style=style)[1].mean())
        conf.append(confidence.cell_confidence(model, tokenizer, t, expected, style=style).mean())
        prompt = build_prompt(tokenizer, t, 0, style)
        ent.append(confidence.generation_entropy(model, tokenizer, prompt, max_new_tokens)[1].mean())
        agree.append(agreement.augmentation_agreement(model, tokenizer, t, n_views, max_new_tokens, style=style).share)
    out = {"logit_lens": np.mean(lens_curves, axis=0).tolist(), "loss_correct": float(np.mean(right)),
           "loss_incorrect": float(np.mean(wrong)), "cell_confidence": float(np.mean(conf)),
           "entropy": float(np.nanmean(ent)), "agreement": float(np.mean(agree))}
    ptasks = probe_tasks or tasks
    if len(ptasks) >= 4:
        emb = probes.task_embeddings(model, tokenizer, ptasks, style=style)
        res = probes.probe_layers(emb, probes.property_labels(ptasks))
        out["probes"] = {name: max(r.heldout_accuracy for r in per_layer) for name, per_layer in res.items()}
    return out


def stage_table(measures: dict[str, dict]):
    """One row per stage with each scalar measure (pandas DataFrame)."""
    import pandas as pd

    rows = []
    for name, m in measures.items():
        row = {"stage": name, **{k: round(v, 4) for k, v in m.items() if isinstance(v, float)}}
        row.update({f"probe {k}": round(v, 3) for k, v in m.get("probes", {}).items()})
        rows.append(row)
    return pd.DataFrame(rows).set_index("stage")


def plot_stages(measures: dict[str, dict], runs: dict[str, list[dict]] | None = None):
    """Panels: logit-lens curve, loss of right vs wrong answers, confidence / agreement, probes,
    and (with `runs`) the error taxonomy, one colour or bar group per stage."""
    import matplotlib.pyplot as plt

    from shared.interpret.errors import draw_error_taxonomy

    names = list(measures)
    fig, axes = plt.subplots(1, 5 if runs else 4, figsize=(19 if runs else 15, 3.4))
    for k, name in enumerate(names):
        curve = measures[name]["logit_lens"]
        axes[0].plot(range(len(curve)), curve, marker="o", label=name, color=f"C{k}")
    n = len(measures[names[0]]["logit_lens"])
    axes[0].set_xticks(range(n), ["emb"] + [f"L{i}" for i in range(1, n)])
    axes[0].set_title("logit lens: mean p(right token)", fontsize=9)
    axes[0].legend(fontsize=7)
    x = np.arange(len(names))
    axes[1].bar(x - 0.2, [measures[n]["loss_correct"] for n in names], 0.4, label="correct", color="#2ECC40")
    axes[1].bar(x + 0.2, [measures[n]["loss_incorrect"] for n in names], 0.4, label="one cell wrong",
                color="#FF4136")
    axes[1].set_title("mean per-token loss of answers", fontsize=9)
    axes[1].legend(fontsize=7)
    for j, key in enumerate(("cell_confidence", "agreement")):
        axes[2].bar(x + (j - 0.5) * 0.4, [measures[n][key] for n in names], 0.4, label=key, color=f"C{j + 4}")
    axes[2].set_ylim(0, 1)
    axes[2].set_title("confidence of the right grid, agreement", fontsize=9)
    axes[2].legend(fontsize=7)
    props = list(measures[names[0]].get("probes", {}))
    for j, prop in enumerate(props):
        width = 0.8 / len(props)
        axes[3].bar(x + (j - (len(props) - 1) / 2) * width, [measures[n]["probes"][prop] for n in names], width,
                    label=prop, color=f"C{j}")
    axes[3].set_ylim(0, 1)
    axes[3].set_title("probes: best held-out accuracy", fontsize=9)
    if props:
        axes[3].legend(fontsize=7)
    for ax in axes[1:4]:
        ax.set_xticks(x, names, fontsize=8)
    if runs:
        draw_error_taxonomy(axes[4], {n: runs[n] for n in names if n in runs}, "error taxonomy (test inputs)")
    fig.suptitle("the same views across training stages")
    fig.tight_layout()
    return fig
