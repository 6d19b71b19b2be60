"""Test-time training: per task, a fresh LoRA adapter trained on that task's demos, then inference.

Each task gets a new seeded adapter trained for a bounded number of steps on leave-one-out examples
of its demos (augmented), through SFT's trainer (`sft.build_trainer`: one masking and padding path);
the model solver answers, and the adapter is removed: the base weights never change, nothing learnt
on one task reaches the next, and only demos are used, so the test outputs are never seen.
"""

from __future__ import annotations

import tempfile
import time
from contextlib import contextmanager

from transformers import TrainerCallback

from shared.solvers import Prediction
from shared.tasks import Task, strip_test_outputs
from shared.train import sft
from shared.train.data import Examples, build_examples

TTT_STEPS = 8  # a few passes over a task's handful of examples; more overfits the demos
TTT_LR = 1e-3  # LoRA-sized step; the adapter starts at zero so early steps are safe
TTT_R = 8  # a per-task adapter needs less rank than a whole-dataset one
TTT_AUGMENT = 4  # views per leave-one-out example (dihedral, colours, demo order)
TRAIN_SHARE = 0.5  # of a task's budget, at most this much goes to training; the rest to inference


@contextmanager
def fresh_adapter(model, r: int = TTT_R, seed: int = 0):
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
                seed: int = 0, deadline: float | None = None) -> list[float]:
    """Train `model` (a fresh adapter) for at most `steps` optimizer steps with SFT's trainer; the step losses.

    No checkpoints and no progress lines (one short run per task); no warmup, whose first step
    would have lr 0. Stops at `deadline` (time.monotonic()); nothing runs if it has passed. Per
    task the trainer costs ~0.3 s more than a bare AdamW loop (tiny model, CPU, 8 steps: 0.39 s
    against 0.08 s), mostly the gc.collect accelerate runs as each `Trainer.train` starts.
    """
    if deadline is not None and time.monotonic() > deadline:
        return []
    device = next(model.parameters()).device
    with tempfile.TemporaryDirectory() as out, sft.restoring_forward(model):
        # use_cpu: the Trainer would otherwise move a CPU model to a visible GPU mid-solve
        args = sft.sft_config(out, steps, batch_size, lr, warmup_steps=0, seed=seed,
                              precision=sft.mixed_precision(model), save=False, use_cpu=device.type == "cpu")
        trainer = sft.build_trainer(model, tokenizer, examples, args, callbacks=[StopAtDeadline(deadline)])
        model.train()
        try:
            trainer.train()
        finally:
            model.eval()
    return [row["loss"] for row in trainer.state.log_history if "loss" in row]


class TTTSolver:
    """solve(task) -> the model solver's answers after a per-task LoRA adapter trained on the demos.

    model: "tiny", a hub id or a folder (e.g. an SFT output); the model solver's options
    (max_new_tokens, device, dtype, load_in_4bit, n_views, batch_size: views generated together) pass
    through. train_batch_size: examples per training step (default batch_size; GPU profiles train on
    one 4096-token example at a time, see shared.config). max_len: examples longer than this are
    dropped (counted in the trace).
    """

    name = "ttt"

    def __init__(self, model: str = "tiny", steps: int = TTT_STEPS, lr: float = TTT_LR, batch_size: int = 2,
                 n_augment: int = TTT_AUGMENT, r: int = TTT_R, max_len: int = 2048, max_new_tokens: int = 1024,
                 device: str | None = None, dtype=None, load_in_4bit: bool = False, seed: int = 0,
                 n_views: int = 2, train_batch_size: int | None = None):
        from shared.solvers.model import ModelSolver

        self.inner = ModelSolver(model=model, max_new_tokens=max_new_tokens, device=device, dtype=dtype,
                                 load_in_4bit=load_in_4bit, n_views=n_views, batch_size=batch_size)
        self.steps, self.lr, self.batch_size = int(steps), float(lr), int(train_batch_size or batch_size)
        self.n_augment, self.r, self.max_len, self.seed = int(n_augment), int(r), int(max_len), int(seed)

    @property
    def model(self):
        return self.inner.model

    def solve(self, task: Task, budget_s: float | None = None) -> Prediction:
        start = time.monotonic()
        task = strip_test_outputs(task)  # demos only, whatever the caller passed
        tok = self.inner.tokenizer
        examples = build_examples([task], tok, self.inner.prompt_style, self.max_len, n_augment=self.n_augment,
                                  seed=self.seed)
        deadline = None if budget_s is None else start + TRAIN_SHARE * budget_s
        info = {"steps": self.steps, "examples": len(examples), "dropped_too_long": examples.dropped_too_long}
        if not len(examples):
            info["skipped"] = "no training example (one demo, or all over max_len)"
            pred = self.inner.solve(task, None if budget_s is None else budget_s - (time.monotonic() - start))
        else:
            with fresh_adapter(self.inner.model, r=self.r, seed=self.seed) as peft_model:
                losses = train_steps(peft_model, tok, examples, self.steps, self.lr, self.batch_size, seed=self.seed,
                                     deadline=deadline)
                info.update(losses=[round(x, 4) for x in losses], train_s=round(time.monotonic() - start, 3))
                left = None if budget_s is None else budget_s - (time.monotonic() - start)
                pred = self.inner.solve(task, left)
        pred.trace["ttt"] = info
        return pred


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
