"""Hardware profiles: one notebook, every machine.

A notebook's parameters cell sets PROFILE; `profile(name)` returns the sizes for that machine.
"auto" looks at the hardware (without importing torch unless it is installed) and picks.
Big-run values live here, never in edits to a notebook.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    model: str             # "tiny" (offline, random init) or a hub id / local folder
    n_tasks: int           # tasks per notebook run
    task_set: str          # where the notebooks draw tasks from
    max_new_tokens: int    # enough for a 30x30 grid is 930 tokens; smaller profiles cap it
    max_len: int           # training examples longer than this are dropped
    budget_s: float        # per-task solver budget
    workers: int
    load_in_4bit: bool     # QLoRA, CUDA only
    batch_size: int
    lr: float
    train_steps: int
    solvers: tuple[str, ...] = ("dsl",)  # the benchmark ensemble, verified solvers first
    n_views: int = 2       # augmented views per test input for the model solver
    train_tasks: int = 0   # clean training tasks for SFT / distillation (0: all of them)
    ttt_steps: int = 0     # test-time training steps per task (0: no TTT in the ensemble)


PROFILES = {
    # CPU, a tiny random model, a handful of tasks: seconds, for CI and papermill smoke
    "smoke": Profile("smoke", model="tiny", n_tasks=4, task_set="arc1/train", max_new_tokens=24, max_len=2048,
                     budget_s=4.0, workers=1, load_in_4bit=False, batch_size=2, lr=1e-3, train_steps=4,
                     solvers=("dsl", "model"), n_views=4, train_tasks=8, ttt_steps=2),
    # CPU laptop without a GPU: no model worth running, the dsl solver does the work
    "cpu": Profile("cpu", model="tiny", n_tasks=40, task_set="arc1/eval", max_new_tokens=64, max_len=2048,
                   budget_s=30.0, workers=2, load_in_4bit=False, batch_size=2, lr=1e-3, train_steps=20,
                   train_tasks=40),
    # Colab T4 (16 GB, no bf16): 0.5B instruct in 4-bit
    "t4": Profile("t4", model="Qwen/Qwen2.5-0.5B-Instruct", n_tasks=100, task_set="arc1/eval", max_new_tokens=1024,
                  max_len=4096, budget_s=60.0, workers=2, load_in_4bit=True, batch_size=4, lr=2e-4, train_steps=500,
                  solvers=("dsl", "model"), n_views=8, ttt_steps=16),
    # A100 40/80 GB: 7B class in 4-bit LoRA
    "a100": Profile("a100", model="Qwen/Qwen2.5-7B-Instruct", n_tasks=400, task_set="arc1/eval", max_new_tokens=1024,
                    max_len=8192, budget_s=120.0, workers=4, load_in_4bit=True, batch_size=8, lr=1e-4,
                    train_steps=2000, solvers=("dsl", "model"), n_views=8, ttt_steps=32),
    # H100 80 GB: 7B in bf16 LoRA, no quantisation needed
    "h100": Profile("h100", model="Qwen/Qwen2.5-7B-Instruct", n_tasks=400, task_set="arc1/eval", max_new_tokens=1024,
                    max_len=8192, budget_s=120.0, workers=8, load_in_4bit=False, batch_size=16, lr=1e-4,
                    train_steps=4000, solvers=("dsl", "model"), n_views=16, ttt_steps=32),
}


def detect() -> str:
    """Pick a profile name from the hardware found."""
    if importlib.util.find_spec("torch") is None:
        return "cpu"
    import torch

    if not torch.cuda.is_available():
        return "cpu"
    name = torch.cuda.get_device_name(0).lower()
    if "h100" in name or "h200" in name:
        return "h100"
    if "a100" in name or "l4" in name:
        return "a100"
    return "t4"


def profile(name: str = "auto", **overrides) -> Profile:
    """The named profile ("auto" detects), with any field overridden by keyword."""
    key = detect() if name == "auto" else name
    if key not in PROFILES:
        raise ValueError(f"unknown profile {name!r}; choose from auto, {', '.join(PROFILES)}")
    return dataclasses.replace(PROFILES[key], **overrides)
