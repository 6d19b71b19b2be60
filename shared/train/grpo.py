"""GRPO: reinforcement learning from rewards on the model's own sampled answers, with trl.

Each reward is a named function `f(prompts, completions, expected, **kwargs) -> list[float]`
(trl passes the dataset's extra columns as keyword arguments; `expected` is the answer grid as
text): exact match, partial credit (size right, then the share of cells right) and well-formed
output. GRPO samples `num_generations` answers per prompt and pushes toward the better ones.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from shared.formats import build_prompt, format_answer, parse_grid
from shared.train.data import views
from shared.train.preference import common_args, run_trainer
from shared.train.sft import TrainResult

GRPO_LR = 1e-5  # RL steps on a pretrained model are small; the tiny smoke model takes more
NUM_GENERATIONS = 4  # answers per prompt compared against each other; 8-16 on a GPU
BETA = 0.0  # no KL term (trl's default): no reference model is held


def completion_text(completion) -> str:
    """The answer text of a completion: a string, or the last message's content (chat datasets)."""
    if isinstance(completion, str):
        return completion
    return completion[-1]["content"] if completion else ""


def exact_match_reward(prompts, completions, expected, **kwargs) -> list[float]:
    """1.0 when the completion parses to exactly the expected grid, else 0.0."""
    out = []
    for c, e in zip(completions, expected, strict=True):
        grid, want = parse_grid(completion_text(c)), parse_grid(e)
        out.append(float(grid is not None and grid.shape == want.shape and bool((grid == want).all())))
    return out


def partial_credit_reward(prompts, completions, expected, **kwargs) -> list[float]:
    """0.5 for the right size, plus 0.5 times the share of cells right; 0.0 for a wrong size or no grid."""
    out = []
    for c, e in zip(completions, expected, strict=True):
        grid, want = parse_grid(completion_text(c)), parse_grid(e)
        if grid is None or grid.shape != want.shape:
            out.append(0.0)
        else:
            out.append(0.5 + 0.5 * float(np.mean(grid == want)))
    return out


def format_reward(prompts, completions, expected=None, **kwargs) -> list[float]:
    """1.0 when the completion is exactly one well-formed grid (what `parse_grid` accepts), else 0.0."""
    return [float(parse_grid(completion_text(c)) is not None) for c in completions]


REWARDS = (exact_match_reward, partial_credit_reward, format_reward)


def grpo_rows(tasks, tokenizer, style: str, n_augment: int = 1, max_prompt_tokens: int | None = None,
              seed: int = 0) -> list[dict]:
    """{"prompt", "expected"} for every leave-one-out view of `tasks` (training tasks)."""
    from shared.models import count_tokens

    rows = []
    for t_i, task in enumerate(tasks):
        for v in views(task, n_augment, seed=seed + t_i):
            prompt = build_prompt(tokenizer, v.task, 0, style)
            if max_prompt_tokens is not None and count_tokens(tokenizer, prompt) > max_prompt_tokens:
                continue
            rows.append({"prompt": prompt, "expected": format_answer(v.task.test[0].output),
                         "source": f"{v.task_id}#{v.target}:{v.aug.id}"})
    return rows


def grpo_train(model, tokenizer, rows: list[dict], out_dir: str | Path, steps: int, batch_size: int,
               max_completion_length: int, lr: float = GRPO_LR, num_generations: int = NUM_GENERATIONS,
               reward_funcs=REWARDS, reward_weights: list[float] | None = None, temperature: float = 1.0,
               beta: float = BETA, resume: bool = True, **config) -> TrainResult:
    """GRPO with trl on prompts with expected answers; resumable like `sft.train`.

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
                      **{**common_args(out_dir, steps, batch_size, lr, model), **config})
    data = datasets.Dataset.from_list([{"prompt": r["prompt"], "expected": r["expected"]} for r in rows])
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
