"""Test-time training: per task, a fresh LoRA adapter trained on that task's demos, then inference.

For each task the solver wraps its base model in a new adapter (seeded, so every task starts
from the same point), trains it for a bounded number of steps on leave-one-out examples of the
demos under augmentation, answers with the model solver, and removes the adapter again: the
base weights never change, and nothing learnt on one task reaches the next. Only demos are
used, so TTT on an evaluation task never sees its test outputs.
"""

from __future__ import annotations

import random
import time
from contextlib import contextmanager

from shared.solvers import Prediction
from shared.tasks import Task, strip_test_outputs
from shared.train.data import build_examples, collate
from shared.train.sft import add_lora

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
    peft_model = add_lora(model, r=r, alpha=2 * r, seed=seed, prepare_kbit=False)
    try:
        yield peft_model
    finally:
        peft_model.unload()  # swaps every LoRA layer back for its untouched base layer
        for name, p in model.named_parameters():
            p.requires_grad_(flags.get(name, False))
        model.eval()


def train_steps(model, examples: list[dict], pad_id: int, steps: int, lr: float, batch_size: int,
                seed: int = 0, deadline: float | None = None) -> list[float]:
    """A plain AdamW loop over the trainable parameters on seeded random batches; returns the losses.

    Stops early at `deadline` (time.monotonic()). Half-precision bases run under autocast, with
    the adapter kept in fp32 by peft.
    """
    import torch

    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    device = next(model.parameters()).device
    base_dtype = model.get_input_embeddings().weight.dtype  # never quantized, unlike 4-bit layers
    half = base_dtype in (torch.float16, torch.bfloat16)
    rng = random.Random(seed)
    losses = []
    model.train()
    for _ in range(steps):
        if deadline is not None and time.monotonic() > deadline:
            break
        batch = collate(rng.sample(examples, min(batch_size, len(examples))), pad_id)
        batch = {k: v.to(device) for k, v in batch.items()}
        with torch.autocast(device.type, dtype=base_dtype, enabled=half):
            loss = model(**batch).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(float(loss.detach()))
    model.eval()
    return losses


class TTTSolver:
    """solve(task) -> the model solver's answers after a per-task LoRA adapter trained on the demos.

    model: "tiny", a hub id or a folder (e.g. an SFT output); the model solver's options
    (max_new_tokens, device, dtype, load_in_4bit, n_views) pass through. max_len: examples longer than
    this are dropped (counted in the trace).
    """

    name = "ttt"

    def __init__(self, model: str = "tiny", steps: int = TTT_STEPS, lr: float = TTT_LR, batch_size: int = 2,
                 n_augment: int = TTT_AUGMENT, r: int = TTT_R, max_len: int = 2048, max_new_tokens: int = 1024,
                 device: str | None = None, dtype=None, load_in_4bit: bool = False, seed: int = 0,
                 n_views: int = 2):
        from shared.solvers.model import ModelSolver

        self.inner = ModelSolver(model=model, max_new_tokens=max_new_tokens, device=device, dtype=dtype,
                                 load_in_4bit=load_in_4bit, n_views=n_views, batch_size=batch_size)
        self.steps, self.lr, self.batch_size = int(steps), float(lr), int(batch_size)
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
                losses = train_steps(peft_model, examples.items, tok.pad_token_id, self.steps, self.lr,
                                     self.batch_size, seed=self.seed, deadline=deadline)
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
