"""Test-time training's training half: a fresh LoRA adapter on a model, a few bounded steps, then gone.

The solver (`shared.solvers.ttt.TTTSolver`) calls these per task: `fresh_adapter` injects a seeded
adapter and removes it on exit, so the base weights never change; `train_steps` trains it through
SFT's trainer (`sft.build_trainer`: one masking and padding path) until a step count or a deadline.
`ttt_table` sets runs without and with TTT side by side.
"""

from __future__ import annotations

import tempfile
import time
from contextlib import contextmanager

from transformers import TrainerCallback

from shared.train import sft
from shared.train.data import Examples


@contextmanager
def fresh_adapter(model, r: int, seed: int = 0):
    """Inject a new LoRA adapter into `model` in place; on exit remove it, leaving the base as it was.

    Yields the peft model. Generation through `model` itself uses the adapter while inside.
    """
    flags = {name: p.requires_grad for name, p in model.named_parameters()}
    peft_model = sft.add_lora(model, r=r, alpha=2 * r, seed=seed, prepare_kbit=False)
    try:
        yield peft_model
    finally:
        peft_model.unload()  # swaps every LoRA layer back for its untouched base layer
        for name, p in model.named_parameters():
            p.requires_grad_(flags.get(name, False))
        model.eval()


class StopAtDeadline(TrainerCallback):
    """Ends training after the step during which `deadline` (time.monotonic()) passed."""

    def __init__(self, deadline: float | None):
        self.deadline = deadline

    def on_step_end(self, args, state, control, **kwargs):
        if self.deadline is not None and time.monotonic() > self.deadline:
            control.should_training_stop = True


def train_steps(model, tokenizer, examples: Examples | list[dict], steps: int, lr: float, batch_size: int,
                seed: int = 0, deadline: float | None = None, gradient_checkpointing: bool = False) -> list[float]:
    """Train `model` (a fresh adapter) for at most `steps` optimizer steps with SFT's trainer; the step losses.

    No checkpoints and no progress lines (one short run per task); no warmup, whose first step
    would have lr 0. Stops at `deadline` (time.monotonic()); nothing runs if it has passed.
    gradient_checkpointing: as in SFT (a GPU profile's long examples need it to fit). Per
    task the trainer costs ~0.3 s more than a bare AdamW loop (tiny model, CPU, 8 steps: 0.39 s
    against 0.08 s), mostly the gc.collect accelerate runs as each `Trainer.train` starts.
    """
    if deadline is not None and time.monotonic() > deadline:
        return []
    device = next(model.parameters()).device
    with tempfile.TemporaryDirectory() as out, sft.restoring_forward(model):
        # use_cpu: the Trainer would otherwise move a CPU model to a visible GPU mid-solve
        args = sft.sft_config(out, steps, batch_size, lr, warmup_steps=0, seed=seed,
                              gradient_checkpointing=gradient_checkpointing, precision=sft.mixed_precision(model),
                              save=False, use_cpu=device.type == "cpu")
        trainer = sft.build_trainer(model, tokenizer, examples, args, callbacks=[StopAtDeadline(deadline)])
        model.train()
        try:
            trainer.train()
        finally:
            model.eval()
    return [row["loss"] for row in trainer.state.log_history if "loss" in row]


def ttt_table(without: list[dict], with_ttt: list[dict]):
    """Per task: solved and seconds without and with TTT, plus the TTT examples and first/last loss."""
    from shared.train.compare import per_task_table

    table = per_task_table({"without": without, "with TTT": with_ttt})
    info = {r["task_id"]: r["trace"].get("ttt", {}) for r in with_ttt}
    table["TTT examples"] = [info.get(i, {}).get("examples") for i in table.index]
    losses = [info.get(i, {}).get("losses") or [] for i in table.index]
    table["TTT loss first"] = [x[0] if x else None for x in losses]
    table["TTT loss last"] = [x[-1] if x else None for x in losses]
    return table
