"""DPO: preference pairs mined from the model's own answers, then DPO training with trl.

Mining works on any benchmark adapter (`shared.benchmarks`): it answers every training view of
the items (ARC: each leave-one-out view of a task) with the model (greedy, plus any sampled
answers), judges the answers with the adapter's headline metric and pairs a right answer (chosen)
with a wrong one (rejected); where the model has no right answer the adapter's training target is
chosen instead, and where it has no wrong one the view gives no pair. Training resumes from its
checkpoints through `sft.run_trainer`, as SFT and GRPO do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from shared.benchmarks import Benchmark, Item
from shared.benchmarks import end_marker as turn_end  # any adapter's; `end_marker` below is ARC's, kept for callers
from shared.formats import END_MARKERS, format_answer, format_example, parse_grid
from shared.grids import same
from shared.train.sft import TrainResult, mixed_precision, run_trainer, trainer_defaults

BETA = 0.1  # DPO's KL strength; trl's default and the DPO paper's usual value
DPO_LR = 5e-5  # preference steps are gentler than SFT's; LoRA on a small model tolerates more


def end_marker(tokenizer, task, style: str) -> str:
    """ARC only: what follows the answer grid in a training completion, eos (plain) or the template's turn end.

    Any adapter: `shared.benchmarks.end_marker(tokenizer, style)`, the same text.
    """
    _, completion = format_example(tokenizer, task, 0, style)
    return completion[len(format_answer(task.test[0].output)):]


def pair_from_answers(prompt: str, expected, answers: list[str], end: str) -> dict | None:
    """ARC only: one preference pair from the model's raw answers to `prompt`, or None.

    chosen: the first answer that parses to the expected grid, else the expected grid itself;
    rejected: the first answer that is not the expected grid (a wrong grid, or text that is no
    grid at all, kept as written). None when every answer is right (nothing to prefer against).
    `pair_from_judged` is the same rule for any adapter.
    """
    chosen, rejected, kind = None, None, "expected"
    for text in answers:
        grid = parse_grid(text)
        if grid is not None and same(grid, expected):
            if chosen is None:
                chosen, kind = format_answer(grid) + end, "model"
        elif rejected is None:
            rejected = (format_answer(grid) if grid is not None else text.strip()) + end
    if rejected is None:
        return None
    return {"prompt": prompt, "chosen": chosen or format_answer(expected) + end, "rejected": rejected,
            "chosen_from": kind}


def answer_text(text: str) -> str:
    """A raw answer as a completion to train on: no leading blank lines, trailing whitespace or end markers.

    Leading spaces stay: a HumanEval body starts indented, a plain GSM8K answer with the space after
    "Answer:". For an ARC answer that parses, this is the grid as `format_answer` writes it.
    """
    text = text.lstrip("\n").rstrip()
    while text.endswith(END_MARKERS):
        text = text[: -len(next(m for m in END_MARKERS if text.endswith(m)))].rstrip()
    return text


def pair_from_judged(prompt: str, answers: list[str], right: list[bool], target: str, end: str) -> dict | None:
    """One preference pair from the model's answers to `prompt` and whether each is right, or None.

    chosen: the first right answer (`answer_text` + `end`), else `target` (the adapter's training
    target, which ends with its own marker); rejected: the first wrong answer, likewise. None when
    every answer is right (nothing to prefer against).
    """
    chosen = next((answer_text(a) + end for a, ok in zip(answers, right, strict=True) if ok), None)
    rejected = next((answer_text(a) + end for a, ok in zip(answers, right, strict=True) if not ok), None)
    if rejected is None:
        return None
    return {"prompt": prompt, "chosen": chosen or target, "rejected": rejected,
            "chosen_from": "model" if chosen else "expected"}


@dataclass
class MinedPairs:
    pairs: list[dict] = field(default_factory=list)
    views: int = 0
    chosen_from_model: int = 0
    chosen_expected: int = 0
    all_correct: int = 0  # views the model got right every time: no pair

    def summary(self) -> str:
        return (f"{len(self.pairs)} pairs from {self.views} views: chosen = the model's right answer in "
                f"{self.chosen_from_model}, the expected answer in {self.chosen_expected}; "
                f"{self.all_correct} views answered right every time gave none")


def mine_pairs(model, tokenizer, adapter: Benchmark, items: list[Item], max_new_tokens: int | None = None,
               style: str | None = None, n_augment: int = 1, n_samples: int = 0, max_prompt_tokens: int | None = None,
               seed: int = 0) -> MinedPairs:
    """Preference pairs from the model's greedy (and `n_samples` sampled) answers to every training
    view of `items` under any benchmark adapter (ARC: `arc.task_items(tasks)` of training tasks,
    whose test outputs are used).

    An answer is right under the adapter's first (headline) metric; all answers are scored in one
    `score_many` call, so an adapter that runs code (HumanEval) batches its sandbox. max_new_tokens:
    default the adapter's. Views whose prompt is over `max_prompt_tokens` are skipped.
    """
    from shared.decoding import generate_batch, sample_batch
    from shared.models import count_tokens, prompt_style

    style = style or prompt_style(model, tokenizer)
    max_new_tokens = max_new_tokens or adapter.max_new_tokens
    todo = []
    for view in adapter.training_views(items, n_augment, seed):
        prompt = adapter.prompt(tokenizer, view, style)
        if max_prompt_tokens is None or count_tokens(tokenizer, prompt) <= max_prompt_tokens:
            todo.append((view, prompt))
    prompts = [p for _, p in todo]
    answers = [[t] for t in generate_batch(model, tokenizer, prompts, max_new_tokens)]
    if n_samples:
        for mine, extra in zip(answers, sample_batch(model, tokenizer, prompts, n_samples, max_new_tokens,
                                                       seed=seed), strict=True):
            mine += extra
    flat_views = [view for (view, _), texts in zip(todo, answers, strict=True) for _ in texts]
    flat_preds = [adapter.parse(view, t) for (view, _), texts in zip(todo, answers, strict=True) for t in texts]
    metric = adapter.metrics[0]
    right = [bool(s[metric]) for s in adapter.score_many(flat_views, flat_preds)]
    end = turn_end(tokenizer, style)
    out = MinedPairs(views=len(todo))
    at = 0
    for (view, prompt), texts in zip(todo, answers, strict=True):
        judged, at = right[at:at + len(texts)], at + len(texts)
        pair = pair_from_judged(prompt, texts, judged, adapter.target(tokenizer, view, style), end)
        if pair is None:
            out.all_correct += 1
            continue
        pair["source"] = view.id
        out.pairs.append(pair)
        if pair["chosen_from"] == "model":
            out.chosen_from_model += 1
        else:
            out.chosen_expected += 1
    return out


def dpo_train(model, tokenizer, pairs: list[dict], out_dir: str | Path, steps: int, batch_size: int,
              lr: float = DPO_LR, beta: float = BETA, max_length: int = 2048, resume: bool = True,
              **config) -> TrainResult:
    """DPO on {"prompt", "chosen", "rejected"} pairs with trl; resumable like `sft.train`.

    `model` is usually a LoRA-wrapped model (`sft.add_lora`): trl then keeps a frozen copy of the
    adapter (not of the model) as the reference, removed again when training ends.
    Further keyword arguments go to trl's DPOConfig (and override the defaults here).
    """
    import datasets
    from trl import DPOConfig, DPOTrainer

    if not pairs:
        raise ValueError("no preference pairs to train on (did the model answer every view right?)")
    datasets.disable_progress_bars()  # one bar per map call drowns a notebook's output
    rows = [{k: p[k] for k in ("prompt", "chosen", "rejected")} for p in pairs]
    defaults = trainer_defaults(DPOConfig, out_dir, steps, batch_size, lr, max(1, steps // 4), 0,
                                mixed_precision(model))
    args = DPOConfig(beta=beta, max_length=max_length, **{**defaults, **config})
    _drop_ref_adapter(model)
    trainer = DPOTrainer(model=model, args=args, train_dataset=datasets.Dataset.from_list(rows),
                         processing_class=tokenizer)
    try:
        return run_trainer(trainer, model, out_dir, steps, resume)
    finally:
        _drop_ref_adapter(model)


def _drop_ref_adapter(model) -> None:
    # trl copies a LoRA model's adapter into a frozen "ref" adapter for the reference log-probs;
    # once training is over it is dead weight, and a second DPOTrainer on the model would refuse it
    if "ref" in getattr(model, "peft_config", {}):
        model.delete_adapter("ref")


def plot_dpo(log_history: list[dict], title: str = "DPO"):
    """Loss, and the reward margin (chosen minus rejected) with the share of pairs ranked right."""
    import matplotlib.pyplot as plt

    rows = [r for r in log_history if "loss" in r and "rewards/margins" in r]
    steps = [r["step"] for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3))
    a.plot(steps, [r["loss"] for r in rows], marker="o")
    a.set_title(f"{title}: loss")
    a.set_xlabel("step")
    b.plot(steps, [r["rewards/margins"] for r in rows], marker="o", label="reward margin")
    b.plot(steps, [r["rewards/accuracies"] for r in rows], marker="s", label="pairs ranked right")
    b.set_xlabel("step")
    b.legend(fontsize=8)
    b.set_title(f"{title}: implicit rewards")
    fig.tight_layout()
    return fig
