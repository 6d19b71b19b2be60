"""The automated retraining loop (07): train -> evaluate -> mine hard items -> reweight -> retrain.

Works on any benchmark adapter (`shared.benchmarks`). Each round trains the LoRA model further on a
mix repeating the hard training groups (ARC: tasks; failed, or right by a small margin), then scores
a held-out validation slice (never mined, never trained on) by the adapter's headline metric
("exact") and calibration, plus partial credit and format validity for ARC's grids. One JSON line
per round goes to `loop.jsonl`, the LoRA weights beside it: a killed loop resumes after its last
round; a plateau stops it.
"""

from __future__ import annotations

import math
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from shared import runs
from shared.benchmarks import Benchmark, Item, end_marker
from shared.tasks import Task
from shared.train.grpo import format_reward, partial_credit_reward

LOG = "loop.jsonl"
# how much each signal counts in a round's score: solving is what matters, the rest breaks ties
# ("exact" is the adapter's headline metric: ARC exact match, GSM8K strict, HumanEval passed)
SIGNAL_WEIGHTS = {"exact": 1.0, "partial": 0.5, "format": 0.25, "calibration": 0.25}
GRID_SIGNALS = ("partial", "format")  # measured on ARC grids only; other adapters leave them out (weight 0)
HARD_WEIGHT = 3  # a hard task's examples appear this many times in the next round's mix
MARGIN_FLOOR = 1.0  # nats: a right answer whose closest token decision was nearer than this is "low margin"


def signal_weights(adapter: Benchmark) -> dict[str, float]:
    """The signals a round of `adapter` is scored by, with their weights: all for ARC, else no grid signals."""
    if adapter.name == "arc":
        return dict(SIGNAL_WEIGHTS)
    return {k: w for k, w in SIGNAL_WEIGHTS.items() if k not in GRID_SIGNALS}


def small_tasks(tasks, max_cells: int) -> list[Task]:
    """ARC: tasks whose every grid has at most `max_cells` cells (all of them when max_cells is 0)."""
    if not max_cells:
        return list(tasks)
    return [t for t in tasks if all(p.input.size <= max_cells and (p.output is None or p.output.size <= max_cells)
                                    for p in t.train + t.test)]


# -- scoring -------------------------------------------------------------------------------

def answer_margin(model, tokenizer, prompt: str, completion: str) -> float:
    """Smallest gap, over the completion's tokens, between the right token's log-probability and
    the best other token's: positive when greedy decoding reproduces the completion, and the
    smaller it is, the nearer one token came to flipping."""
    import torch

    p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    c = tokenizer(completion, add_special_tokens=False)["input_ids"]
    ids = torch.tensor([p + c], device=model.device)
    with torch.inference_mode():
        logp = torch.log_softmax(model(input_ids=ids).logits[0].float(), dim=-1)
    rows = logp[len(p) - 1:len(p) + len(c) - 1]
    target = torch.tensor(c, device=rows.device)
    right = rows.gather(-1, target[:, None])[:, 0]
    rows = rows.scatter(-1, target[:, None], float("-inf"))
    return float((right - rows.max(-1).values).min())


def score_tasks(model, tokenizer, adapter: Benchmark, items: list[Item], max_new_tokens: int | None = None,
                style: str | None = None) -> list[dict]:
    """Per group of items (ARC: a task's test inputs, averaged): exact, confidence, margin, and for ARC
    partial and format. Items without a reference answer (ARC evaluation tasks) are left out.

    The answer is greedy; "exact" is the adapter's headline metric on it (parse + `score_many`);
    confidence is the probability the model gives its own answer (text and end marker); margin is
    `answer_margin` of the adapter's training target. max_new_tokens: default the adapter's.
    """
    from shared.decoding import completion_logprobs, generate_batch
    from shared.models import prompt_style

    style = style or prompt_style(model, tokenizer)
    items = [item for item in items if adapter.reference(item)]
    prompts = [adapter.prompt(tokenizer, item, style) for item in items]
    texts = generate_batch(model, tokenizer, prompts, max_new_tokens or adapter.max_new_tokens)
    predictions = [adapter.parse(item, text) for item, text in zip(items, texts, strict=True)]
    exact = [float(s[adapter.metrics[0]]) for s in adapter.score_many(items, predictions)]
    grids = "partial" in signal_weights(adapter)
    if grids:
        truth = [adapter.reference(item) for item in items]
        partial, well_formed = partial_credit_reward(prompts, texts, truth), format_reward(prompts, texts)
    end = end_marker(tokenizer, style)
    own = completion_logprobs(model, tokenizer, list(zip(prompts, [t + end for t in texts], strict=True)))
    per: dict[str, list[dict]] = {}
    for k, item in enumerate(items):
        row = {"exact": exact[k]}
        if grids:
            row.update(partial=partial[k], format=well_formed[k])
        row.update(confidence=math.exp(own[k]),
                   margin=answer_margin(model, tokenizer, prompts[k], adapter.target(tokenizer, item, style)))
        per.setdefault(item.group_id, []).append(row)
    return [{"group": gid, **{key: float(np.mean([s[key] for s in scores])) for key in scores[0]}}
            for gid, scores in per.items()]


def signals(scores: list[dict], weights: dict[str, float] = SIGNAL_WEIGHTS) -> dict[str, float]:
    """Round signals over groups, those `weights` names: mean exact (and ARC's partial / format), and
    calibration = 1 - Brier score of the confidence against exactness (1 is perfectly calibrated)."""
    if not scores:
        return dict.fromkeys(weights, 0.0)
    out = {key: float(np.mean([s[key] for s in scores])) for key in weights if key != "calibration"}
    if "calibration" in weights:
        out["calibration"] = 1 - float(np.mean([(s["confidence"] - s["exact"]) ** 2 for s in scores]))
    return out


def combined(sig: dict[str, float], weights: dict[str, float] = SIGNAL_WEIGHTS) -> float:
    """The weighted mean of the signals: the number the plateau rule watches."""
    return sum(weights[k] * sig[k] for k in weights) / sum(weights.values())


def hard_tasks(scores: list[dict], margin_floor: float = MARGIN_FLOOR) -> list[str]:
    """Groups (ARC: task ids) failed or right by a margin under `margin_floor`, hardest first."""
    hard = [s for s in scores if s["exact"] < 1 or s["margin"] < margin_floor]
    return [s["group"] for s in sorted(hard, key=lambda s: s["margin"])]


def plateaued(scores: list[float], patience: int, min_gain: float) -> bool:
    """True when none of the last `patience` scores beat the best one before them by `min_gain`."""
    if patience < 1 or len(scores) <= patience:
        return False
    return max(scores[-patience:]) < max(scores[:-patience]) + min_gain


# -- the training mix ----------------------------------------------------------------------

def groups(items: list[Item]) -> dict[str, list[Item]]:
    """Items by group id (ARC: task id), in first-seen order."""
    out: dict[str, list[Item]] = {}
    for item in items:
        out.setdefault(item.group_id, []).append(item)
    return out


def training_mix(adapter: Benchmark, items: list[Item], weights: dict[str, int], tokenizer, style: str, max_len: int,
                 n_augment: int, seed: int = 0):
    """Tokenized examples of every group of items, each group's repeated `weights[group]` times (default once).

    Built group by group with `data.adapter_examples`, seed + the group's index: for ARC the examples
    `data.build_examples` makes of each task on its own.
    """
    from shared.train.data import Examples, adapter_examples

    mix = Examples(max_len=max_len)
    for g_i, (gid, group) in enumerate(groups(items).items()):
        ex = adapter_examples(adapter, group, tokenizer, style, max_len, n_augment=n_augment, seed=seed + g_i)
        mix.items += ex.items * max(1, int(weights.get(gid, 1)))
        mix.dropped_too_long += ex.dropped_too_long
    return mix


# -- the loop ------------------------------------------------------------------------------

@dataclass
class LoopConfig:
    rounds: int = 6  # most rounds, plateau or not
    steps_per_round: int = 20
    batch_size: int = 2
    lr: float = 1e-3
    max_len: int = 2048
    max_new_tokens: int = 64  # greedy answers while scoring; 0: the adapter's
    n_augment: int = 2
    lora_r: int = 16
    hard_weight: int = HARD_WEIGHT
    margin_floor: float = MARGIN_FLOOR
    patience: int = 2
    min_gain: float = 0.01
    mine_limit: int = 0  # training groups scored for mining each round (a seeded sample); 0 = all
    seed: int = 0
    grad_accum: int = 1  # examples per optimizer step = batch_size * grad_accum (a GPU profile's)
    gradient_checkpointing: bool = False


@dataclass
class LoopResult:
    rows: list[dict] = field(default_factory=list)
    resumed_after: int | None = None  # the round a rerun continued after, None for a fresh start
    stopped: str = ""

    @property
    def scores(self) -> list[float]:
        return [r["score"] for r in self.rows]


def mining_sample(items: list[Item], limit: int, seed: int) -> list[Item]:
    """The training items to score for mining: all, or those of a seeded sample of `limit` groups (big runs)."""
    import random

    by_group = groups(items)
    if not limit or limit >= len(by_group):
        return list(items)
    return [item for gid in random.Random(seed).sample(list(by_group), limit) for item in by_group[gid]]


def _adapter_path(out_dir: Path, round_: int) -> Path:
    return out_dir / f"round-{round_}" / "adapter.pt"


def _save_adapter(model, path: Path) -> None:
    import torch
    from peft import get_peft_model_state_dict

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    torch.save(get_peft_model_state_dict(model), tmp)
    tmp.replace(path)  # a kill mid-save leaves the previous file, never half of one


def _load_adapter(model, path: Path) -> None:
    import torch
    from peft import set_peft_model_state_dict

    set_peft_model_state_dict(model, torch.load(path, map_location=model.device, weights_only=True))


def run_loop(model_name: str, adapter: Benchmark, train_items: list[Item], val_items: list[Item],
             out_dir: str | Path, cfg: LoopConfig | None = None, on_round=None, device: str | None = None,
             load_in_4bit: bool = False) -> LoopResult:
    """Run (or resume) the loop in `out_dir` on any adapter's items (ARC: `arc.task_items(tasks)` of
    training tasks); returns every round's row. `on_round(row)` is called after each round is logged
    (a notebook prints progress; a test interrupts the loop there)."""
    from shared.models import load_model, prompt_style
    from shared.train.sft import add_lora, train

    cfg = cfg or LoopConfig()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    log = out / LOG
    runs.drop_torn_tail(log)
    rows = [r for r in runs.read_rows(log) if _adapter_path(out, r["round"]).exists()]
    result = LoopResult(rows=rows, resumed_after=rows[-1]["round"] if rows else None)
    if plateaued(result.scores, cfg.patience, cfg.min_gain) or len(rows) >= cfg.rounds:
        result.stopped = "plateau (already)" if len(rows) < cfg.rounds else f"{cfg.rounds} rounds (already)"
        return result
    model, tok = load_model(model_name, device=device, load_in_4bit=load_in_4bit)
    style = prompt_style(model, tok)
    model = add_lora(model, r=cfg.lora_r, alpha=2 * cfg.lora_r, seed=cfg.seed,
                     gradient_checkpointing=cfg.gradient_checkpointing)
    signal_w = signal_weights(adapter)
    max_new_tokens = cfg.max_new_tokens or adapter.max_new_tokens
    weights: dict[str, int] = {}
    if rows:
        _load_adapter(model, _adapter_path(out, rows[-1]["round"]))
        weights = rows[-1]["weights"]
    for round_ in range(len(rows), cfg.rounds):
        t0 = time.perf_counter()
        mix = training_mix(adapter, train_items, weights, tok, style, cfg.max_len, cfg.n_augment,
                           seed=cfg.seed + round_)
        res = train(model, tok, mix, out / f"round-{round_}" / "checkpoints", steps=cfg.steps_per_round,
                    batch_size=cfg.batch_size, lr=cfg.lr, seed=cfg.seed + round_, grad_accum=cfg.grad_accum,
                    gradient_checkpointing=cfg.gradient_checkpointing)
        val = score_tasks(model, tok, adapter, val_items, max_new_tokens, style)
        sig = signals(val, signal_w)
        train_scores = score_tasks(model, tok, adapter, mining_sample(train_items, cfg.mine_limit, cfg.seed + round_),
                                   max_new_tokens, style)
        hard = hard_tasks(train_scores, cfg.margin_floor)
        weights = {gid: cfg.hard_weight for gid in hard}
        losses = [r["loss"] for r in res.log_history if "loss" in r]
        row = {"round": round_, "benchmark": adapter.name, "metric": adapter.metrics[0], "signals": sig,
               "score": combined(sig, signal_w), "hard": hard, "weights": weights,
               "n_train": len(groups(train_items)), "n_val": len(groups(val_items)), "examples": len(mix),
               "mined": len(train_scores), "train_exact": signals(train_scores, signal_w)["exact"],
               "loss": losses[-1] if losses else None,
               "seconds": round(time.perf_counter() - t0, 2)}
        _save_adapter(model, _adapter_path(out, round_))
        runs.append(log, row)
        # the round is logged and its adapter saved: its trainer checkpoints (optimizer state) are dead weight
        checkpoints = out / f"round-{round_}" / "checkpoints"
        if checkpoints.exists():
            shutil.rmtree(checkpoints)
        result.rows.append(row)
        if on_round is not None:
            on_round(row)
        if plateaued(result.scores, cfg.patience, cfg.min_gain):
            result.stopped = f"plateau: no gain of {cfg.min_gain} in {cfg.patience} rounds"
            break
    else:
        result.stopped = f"{cfg.rounds} rounds"
    return result


def loop_table(rows: list[dict]):
    """One row per round: the signals, the score, hard groups (ARC: tasks) mined and the training loss (pandas)."""
    import pandas as pd

    table = pd.DataFrame([{"round": r["round"], **{k: round(v, 4) for k, v in r["signals"].items()},
                           "score": round(r["score"], 4), "hard": len(r["hard"]),
                           "train exact": round(r["train_exact"], 3), "loss": r["loss"], "s": r["seconds"]}
                          for r in rows])
    return table.set_index("round") if len(table) else table


def plot_loop(rows: list[dict], patience: int | None = None, min_gain: float | None = None):
    """Signals and score per round (left), hard groups (ARC: tasks) mined per round (right)."""
    import matplotlib.pyplot as plt

    rounds = [r["round"] for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.4), gridspec_kw={"width_ratios": [2, 1]})
    # the signals the rows carry: ARC's four, or no grid signals for another adapter
    for k, name in enumerate(rows[0]["signals"] if rows else SIGNAL_WEIGHTS):
        a.plot(rounds, [r["signals"][name] for r in rows], marker="o", color=f"C{k}", label=name, alpha=0.7)
    a.plot(rounds, [r["score"] for r in rows], marker="s", color="black", lw=2, label="score")
    if rows:
        best = int(np.argmax([r["score"] for r in rows]))
        a.axvline(rounds[best], color="grey", ls=":", lw=1)
    rule = f" (stop: no gain of {min_gain} in {patience} rounds)" if patience else ""
    a.set_title(f"validation signals per round{rule}", fontsize=9)
    a.set_xlabel("round")
    a.set_xticks(rounds)
    a.set_ylim(-0.05, 1.05)
    a.legend(fontsize=7)
    b.bar(rounds, [len(r["hard"]) for r in rows], color="#FF851B")
    unit = "tasks" if not rows or rows[0].get("benchmark", "arc") == "arc" else "groups"  # older logs: ARC
    b.set_title(f"hard training {unit} mined", fontsize=9)
    b.set_xlabel("round")
    b.set_xticks(rounds)
    fig.tight_layout()
    return fig

