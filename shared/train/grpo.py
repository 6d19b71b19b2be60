"""GRPO: reinforcement learning from rewards on the model's own sampled answers, with trl.

Each reward is a named function `f(prompts, completions, **columns) -> list[float]`; trl passes the
dataset's extra columns (`item_id`, `expected`) as keyword arguments and logs each reward by the
function's name. `adapter_reward` makes one for any benchmark adapter (its headline metric on the
parsed completion); for ARC there are also grid rewards reading `expected` (the answer grid as
text): exact match, partial credit (size right, then the share of cells right) and well-formed
output. GRPO samples `num_generations` answers per prompt and pushes toward the better ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from shared.benchmarks import Benchmark, Item
from shared.formats import parse_grid
from shared.train.sft import TrainResult, mixed_precision, run_trainer, trainer_defaults

GRPO_LR = 1e-5  # RL steps on a pretrained model are small; the tiny smoke model takes more
NUM_GENERATIONS = 4  # answers per prompt compared against each other; 8-16 on a GPU
BETA = 0.0  # no KL term (trl's default): no reference model is held


def completion_text(completion) -> str:
    """The answer text of a completion: a string, or the last message's content (chat datasets)."""
    if isinstance(completion, str):
        return completion
    return completion[-1]["content"] if completion else ""


def adapter_reward(adapter: Benchmark, views: Mapping[str, Item] | Iterable[Item], metric: str | None = None):
    """A reward function scoring completions with `adapter` under `metric` (default its headline metric).

    `views`: the items the rows' `item_id`s name (`grpo_rows` gives the training views' ids), as a list
    or as id -> item. The function, `(prompts, completions, item_id, **kwargs) -> list[float]`, parses
    each completion and scores all of a batch in one `score_many` call (HumanEval runs them in the
    sandbox together); it is named `<benchmark>_<metric>_reward`, the name trl logs it under.
    """
    by_id = dict(views) if isinstance(views, Mapping) else {v.id: v for v in views}
    metric = metric or adapter.metrics[0]
    if metric not in adapter.metrics:
        raise ValueError(f"{adapter.name} scores {', '.join(adapter.metrics)}, not {metric!r}")

    def reward(prompts, completions, item_id, **kwargs) -> list[float]:
        items = [by_id[i] for i in item_id]
        predictions = [adapter.parse(item, completion_text(c)) for item, c in zip(items, completions, strict=True)]
        return [float(s[metric]) for s in adapter.score_many(items, predictions)]

    reward.__name__ = reward.__qualname__ = f"{adapter.name}_{metric}_reward"
    reward.__doc__ = f"1.0 when {adapter.name} scores the completion right under {metric!r}, else 0.0."
    return reward


def exact_match_reward(prompts, completions, expected, **kwargs) -> list[float]:
    """ARC: 1.0 when the completion parses to exactly the expected grid, else 0.0."""
    out = []
    for c, e in zip(completions, expected, strict=True):
        grid, want = parse_grid(completion_text(c)), parse_grid(e)
        out.append(float(grid is not None and grid.shape == want.shape and bool((grid == want).all())))
    return out


def partial_credit_reward(prompts, completions, expected, **kwargs) -> list[float]:
    """ARC: 0.5 for the right size, plus 0.5 times the share of cells right; 0.0 for a wrong size or no grid."""
    out = []
    for c, e in zip(completions, expected, strict=True):
        grid, want = parse_grid(completion_text(c)), parse_grid(e)
        if grid is None or grid.shape != want.shape:
            out.append(0.0)
        else:
            out.append(0.5 + 0.5 * float(np.mean(grid == want)))
    return out


def format_reward(prompts, completions, expected=None, **kwargs) -> list[float]:
    """ARC: 1.0 when the completion is exactly one well-formed grid (what `parse_grid` accepts), else 0.0."""
    return [float(parse_grid(completion_text(c)) is not None) for c in completions]


REWARDS = (exact_match_reward, partial_credit_reward, format_reward)  # ARC's grid rewards


def grpo_rows(adapter: Benchmark, items: list[Item], tokenizer, style: str, n_augment: int = 1,
              max_prompt_tokens: int | None = None, seed: int = 0) -> list[dict]:
    """{"prompt", "item_id", "expected", "source"} for every training view of `items` under any adapter
    (ARC: each leave-one-out view of training tasks). `expected` is `adapter.reference(view)` (ARC: the
    answer grid as text); `item_id` (= `source`) names the view for `adapter_reward`."""
    from shared.models import count_tokens

    rows = []
    for view in adapter.training_views(items, n_augment, seed):
        prompt = adapter.prompt(tokenizer, view, style)
        if max_prompt_tokens is not None and count_tokens(tokenizer, prompt) > max_prompt_tokens:
            continue
        rows.append({"prompt": prompt, "item_id": view.id, "expected": adapter.reference(view), "source": view.id})
    return rows


def grpo_train(model, tokenizer, rows: list[dict], out_dir: str | Path, steps: int, batch_size: int,
               max_completion_length: int, lr: float = GRPO_LR, num_generations: int = NUM_GENERATIONS,
               reward_funcs=REWARDS, reward_weights: list[float] | None = None, temperature: float = 1.0,
               beta: float = BETA, resume: bool = True, **config) -> TrainResult:
    """GRPO with trl on `grpo_rows` (prompts with expected answers); resumable like `sft.train`.

    reward_funcs: default ARC's grid rewards; for another benchmark, `[adapter_reward(adapter, views)]`.
    batch_size: completions per step; it must be a multiple of num_generations (each prompt's
    group of answers is scored together). Further keyword arguments go to trl's GRPOConfig (overriding ours).
    """
    import datasets
    from trl import GRPOConfig, GRPOTrainer

    if batch_size % num_generations:
        raise ValueError(f"batch_size {batch_size} must be a multiple of num_generations {num_generations}")
    if not rows:
        raise ValueError("no prompts to train on")
    datasets.disable_progress_bars()
    args = GRPOConfig(num_generations=num_generations, max_completion_length=max_completion_length,
                      temperature=temperature, beta=beta, reward_weights=reward_weights,
                      **{**trainer_defaults(GRPOConfig, out_dir, steps, batch_size, lr, max(1, steps // 4), 0,
                                            mixed_precision(model)), **config})
    # the columns rewards read (trl passes them as keyword arguments); rows written by hand may lack item_id
    columns = [c for c in ("prompt", "item_id", "expected") if c in rows[0]]
    data = datasets.Dataset.from_list([{c: r[c] for c in columns} for r in rows])
    trainer = GRPOTrainer(model=model, reward_funcs=list(reward_funcs), args=args, train_dataset=data,
                          processing_class=tokenizer)
    return run_trainer(trainer, model, out_dir, steps, resume)


def reward_curves(log_history: list[dict]) -> dict[str, tuple[list[int], list[float]]]:
    """Per reward function: (steps, mean reward of the sampled answers)."""
    out: dict[str, tuple[list[int], list[float]]] = {}
    for r in log_history:
        for key, value in r.items():
            if key.startswith("rewards/") and key.endswith("/mean"):
                steps, vals = out.setdefault(key[len("rewards/"):-len("/mean")], ([], []))
                steps.append(r["step"])
                vals.append(value)
    return out


def plot_rewards(log_history: list[dict], title: str = "GRPO rewards"):
    """Mean reward of each named reward function over training steps."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.2))
    for name, (steps, vals) in reward_curves(log_history).items():
        ax.plot(steps, vals, marker="o", label=name)
    ax.set_xlabel("step")
    ax.set_ylabel("mean reward")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
