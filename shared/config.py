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
class SynthSizes:
    """Program synthesis (`shared.agents.synth`): what each request to a model asks for."""

    samples: int = 2          # K programs per request
    rounds: int = 1           # R revision rounds after the first request
    max_new_tokens: int = 256
    temperature: float = 0.8  # enough spread for K samples to differ; above 1 the programs stop parsing


@dataclass(frozen=True)
class Profile:
    name: str
    model: str             # "tiny" (offline, random init) or a hub id / local folder
    n_tasks: int           # tasks each notebook measures on (held-out slices, baselines)
    task_set: str          # where the notebooks draw tasks from
    max_new_tokens: int    # enough for a 30x30 grid is 930 tokens; smaller profiles cap it
    max_len: int           # training examples longer than this are dropped
    budget_s: float        # per-task solver budget
    workers: int
    load_in_4bit: bool     # QLoRA, CUDA only
    batch_size: int        # training examples per device step
    lr: float
    train_steps: int       # optimizer steps of one training run (02; notebooks with several runs split it)
    solvers: tuple[str, ...] = ("dsl",)  # the benchmark ensemble, verified solvers first
    n_views: int = 2       # augmented views per test input for the model solver
    train_tasks: int = 0   # clean training tasks for SFT / distillation (0: all of them)
    ttt_steps: int = 0     # test-time training steps per task (0: no TTT in the ensemble)
    grad_accum: int = 1    # examples per optimizer step = batch_size * grad_accum
    gradient_checkpointing: bool = False  # recompute each block's activations in the backward pass
    gen_batch: int = 8     # prompts generated together (the augmented views of one test input)
    bench_tasks: int = 0   # tasks of notebook 06's default run (0: the whole set)
    gpu: str = ""          # the smallest GPU `detect` picks this profile for (shared.plan.GPUS); "" = CPU
    max_cells: int = 0     # ARC: largest grid (cells) the training-track notebooks 05 and 07 take; 0 = any
    synth: SynthSizes = SynthSizes()


# Sizes for the GPU profiles follow from shared.plan's arithmetic (tests/test_plan.py checks it):
# training memory is dominated by the logits, tokens x 152k vocabulary x ~14 bytes (bf16 logits, the
# fp32 copy the loss takes, its log-softmax and gradient): 8.7 GB for one 4096-token example. So
# batch 1 with gradient accumulation, and checkpointing, which cuts a 0.5B model's activations at
# 4096 tokens from 7.4 GB to 0.5 GB (7B: 34 GB to 2 GB). max_len 4096 keeps ~97% of the
# leave-one-out examples (p90 ~3.4k tokens with Qwen's tokenizer). Steps and slices are sized so
# that each notebook's default run ends within about an hour on the profile's GPU.
PROFILES = {
    # CPU, a tiny random model, a handful of tasks: seconds, for CI and papermill smoke
    "smoke": Profile("smoke", model="tiny", n_tasks=4, task_set="arc1/train", max_new_tokens=24, max_len=2048,
                     budget_s=4.0, workers=1, load_in_4bit=False, batch_size=2, lr=1e-3, train_steps=4,
                     solvers=("dsl", "model"), n_views=4, train_tasks=8, ttt_steps=2, gen_batch=4, bench_tasks=4,
                     # 6x6 grids at most: the tiny model's prompts stay short; it writes noise, so synthesis is small
                     max_cells=36, synth=SynthSizes(2, 1, 48)),
    # CPU laptop without a GPU: no model worth running, the dsl solver does the work
    "cpu": Profile("cpu", model="tiny", n_tasks=40, task_set="arc1/eval", max_new_tokens=64, max_len=2048,
                   budget_s=30.0, workers=2, load_in_4bit=False, batch_size=2, lr=1e-3, train_steps=20,
                   train_tasks=40, bench_tasks=400),
    # Colab T4 (16 GB, fp16, no bf16; also what an L4 or any other CUDA card gets): 0.5B in fp16, not
    # 4-bit: its weights are 1 GB, and 4-bit would save 0.7 GB at the cost of a dequantize per matmul.
    # Peak ~12.5 GB at 4096 tokens (8.7 GB logits); 300 steps x 8 examples ~ 15 min, 30 tasks ~ 17 min.
    "t4": Profile("t4", model="Qwen/Qwen2.5-0.5B-Instruct", n_tasks=30, task_set="arc1/eval", max_new_tokens=1024,
                  max_len=4096, budget_s=60.0, workers=2, load_in_4bit=False, batch_size=1, grad_accum=8,
                  gradient_checkpointing=True, lr=2e-4, train_steps=300, train_tasks=200,
                  solvers=("dsl", "model"), n_views=8, ttt_steps=16, bench_tasks=60, gpu="T4",
                  synth=SynthSizes(4, 2, 1024)),  # 0.5-1.5B coder models: many cheap samples
    # A100 40 GB: 7B in 4-bit (QLoRA). Peak ~20 GB at 4096 tokens: 5.6 GB weights (embeddings and head
    # stay 16-bit), 8.7 GB logits, 2 GB activations with checkpointing (34 GB without).
    # 4-bit decoding is slow (~18 tokens/s): 15 tasks per slice and 150 steps keep 02 near an hour.
    "a100": Profile("a100", model="Qwen/Qwen2.5-7B-Instruct", n_tasks=15, task_set="arc1/eval", max_new_tokens=1024,
                    max_len=4096, budget_s=90.0, workers=4, load_in_4bit=True, batch_size=1, grad_accum=8,
                    gradient_checkpointing=True, lr=1e-4, train_steps=150, train_tasks=200,
                    solvers=("dsl", "model"), n_views=8, ttt_steps=16, bench_tasks=40, gpu="A100-40",
                    synth=SynthSizes(8, 3, 2048)),
    # H100 80 GB: 7B in bf16 LoRA, no quantisation needed. max_len 8192 keeps every example; peak
    # ~42 GB (15 GB weights, 17 GB logits, 4 GB activations with checkpointing; 68 GB without).
    "h100": Profile("h100", model="Qwen/Qwen2.5-7B-Instruct", n_tasks=20, task_set="arc1/eval", max_new_tokens=1024,
                    max_len=8192, budget_s=60.0, workers=8, load_in_4bit=False, batch_size=1, grad_accum=8,
                    gradient_checkpointing=True, lr=1e-4, train_steps=500, train_tasks=200,
                    solvers=("dsl", "model"), n_views=16, ttt_steps=32, bench_tasks=60, gpu="H100-80",
                    synth=SynthSizes(8, 3, 2048)),
}


def detect() -> str:
    """Pick a profile name from the hardware found: H100/H200 -> h100, A100 -> a100, any other
    CUDA card (T4, L4, V100, ...) -> t4, no CUDA -> cpu."""
    if importlib.util.find_spec("torch") is None:
        return "cpu"
    import torch

    if not torch.cuda.is_available():
        return "cpu"
    name = torch.cuda.get_device_name(0).lower()
    if "h100" in name or "h200" in name:
        return "h100"
    if "a100" in name:
        return "a100"
    return "t4"


def profile(name: str = "auto", **overrides) -> Profile:
    """The named profile ("auto" detects), with any field overridden by keyword."""
    key = detect() if name == "auto" else name
    if key not in PROFILES:
        raise ValueError(f"unknown profile {name!r}; choose from auto, {', '.join(PROFILES)}")
    return dataclasses.replace(PROFILES[key], **overrides)
