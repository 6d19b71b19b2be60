"""Test-time training: per task, a fresh LoRA adapter trained on that task's demos, then inference.

Each task gets a new seeded adapter trained for a bounded number of steps on leave-one-out examples
of its demos (augmented), through the training pieces in `shared.train.ttt` (SFT's trainer: one
masking and padding path); the model solver answers, and the adapter is removed: the base weights
never change, nothing learnt on one task reaches the next, and only demos are used, so the test
outputs are never seen. Training is imported only when a task is solved, as torch is.
"""

from __future__ import annotations

import time

from shared.solvers import Prediction
from shared.solvers.model import ModelSolver
from shared.tasks import Task, strip_test_outputs

TTT_STEPS = 8  # a few passes over a task's handful of examples; more overfits the demos
TTT_LR = 1e-3  # LoRA-sized step; the adapter starts at zero so early steps are safe
TTT_R = 8  # a per-task adapter needs less rank than a whole-dataset one
TTT_AUGMENT = 4  # views per leave-one-out example (dihedral, colours, demo order)
TRAIN_SHARE = 0.5  # of a task's budget, at most this much goes to training; the rest to inference


class TTTSolver:
    """solve(task) -> the model solver's answers after a per-task LoRA adapter trained on the demos.

    model: "tiny", a hub id or a folder (e.g. an SFT output); the model solver's options
    (max_new_tokens, device, dtype, load_in_4bit, n_views, batch_size: views generated together) pass
    through. train_batch_size: examples per training step (default batch_size; GPU profiles train on
    one 4096-token example at a time, see shared.config). gradient_checkpointing: recompute
    activations in the backward pass, as the GPU profiles' SFT does (their examples fit no other
    way). max_len: examples longer than this are dropped (counted in the trace).
    """

    name = "ttt"

    def __init__(self, model: str = "tiny", steps: int = TTT_STEPS, lr: float = TTT_LR, batch_size: int = 2,
                 n_augment: int = TTT_AUGMENT, r: int = TTT_R, max_len: int = 2048, max_new_tokens: int = 1024,
                 device: str | None = None, dtype=None, load_in_4bit: bool = False, seed: int = 0,
                 n_views: int = 2, train_batch_size: int | None = None, gradient_checkpointing: bool = False):
        self.inner = ModelSolver(model=model, max_new_tokens=max_new_tokens, device=device, dtype=dtype,
                                 load_in_4bit=load_in_4bit, n_views=n_views, batch_size=batch_size)
        self.steps, self.lr, self.batch_size = int(steps), float(lr), int(train_batch_size or batch_size)
        self.n_augment, self.r, self.max_len, self.seed = int(n_augment), int(r), int(max_len), int(seed)
        self.gradient_checkpointing = bool(gradient_checkpointing)

    @property
    def model(self):
        return self.inner.model

    def solve(self, task: Task, budget_s: float | None = None) -> Prediction:
        from shared.train.data import build_examples
        from shared.train.ttt import fresh_adapter, train_steps

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
                                     deadline=deadline, gradient_checkpointing=self.gradient_checkpointing)
                info.update(losses=[round(x, 4) for x in losses], train_s=round(time.monotonic() - start, 3))
                left = None if budget_s is None else budget_s - (time.monotonic() - start)
                pred = self.inner.solve(task, left)
        pred.trace["ttt"] = info
        return pred
