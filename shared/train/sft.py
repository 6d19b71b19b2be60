"""Supervised fine-tuning with LoRA / QLoRA through trl's SFTTrainer, resumable, printing its progress.

Examples arrive pre-tokenized (input_ids + completion_mask, `shared.train.data`) so the answer
boundary is exact for any tokenizer; trl turns the mask into labels (loss on the answer only)
and pads with its collator. Checkpoints go to `out_dir/checkpoint-N`; calling `train` again on
the same folder continues from the latest one, which is how a rerun survives a Colab disconnect.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from transformers import TrainerCallback

from shared.train.data import Examples

LORA_R = 16  # rank 16 is the common LoRA starting point for 0.5B-7B models
LORA_ALPHA = 32  # alpha = 2r keeps the update scale steady when r changes
# non-reentrant: torch's recommended mode, and it lets gradients reach LoRA weights behind a frozen base
CHECKPOINTING = {"use_reentrant": False}


def add_lora(model, r: int = LORA_R, alpha: int = LORA_ALPHA, dropout: float = 0.0,
             gradient_checkpointing: bool = False, seed: int = 0, prepare_kbit: bool = True):
    """Wrap `model` in a fresh peft LoRA adapter (attention + MLP); only the adapter trains.

    A 4-bit model (loaded with load_in_4bit) is first prepared for k-bit training (QLoRA) unless
    prepare_kbit is False (test-time training: the preparation recasts base layers for good).
    dropout 0: runs here are short, and 0 keeps a step exactly reproducible. The adapter's
    random init is drawn from `seed` without touching the global RNG.
    """
    import torch
    from peft import get_peft_model, prepare_model_for_kbit_training

    from shared.models import lora_config

    if prepare_kbit and getattr(model, "is_loaded_in_4bit", False):
        model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=gradient_checkpointing,
                                                gradient_checkpointing_kwargs=CHECKPOINTING)
    elif gradient_checkpointing:
        # activation_checkpointing_enable is the later 5.x name of gradient_checkpointing_enable
        enable = getattr(model, "activation_checkpointing_enable", None) or model.gradient_checkpointing_enable
        enable(CHECKPOINTING)
        # a frozen embedding gives the first checkpointed block no grad-carrying input; needed with
        # reentrant checkpointing only, and harmless without
        model.enable_input_require_grads()
    devices = [next(model.parameters()).device] if next(model.parameters()).is_cuda else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        return get_peft_model(model, lora_config(r=r, alpha=alpha, dropout=dropout))


def run_name(profile: str, model: str) -> str:
    """A folder name per profile and model, so a smoke run's checkpoints are never resumed by a real run.

    A hub id gives its last part ("t4-Qwen2.5-0.5B-Instruct"); a local folder its whole path
    ("t4-outputs_02_sft_t4-tiny_model"), since trained folders share names like "model".
    """
    text = str(model).strip("/")
    slug = text.replace("/", "_") if Path(text).exists() else Path(text).name
    return f"{profile}-{slug}"


def latest_checkpoint(out_dir: str | Path) -> str | None:
    """The newest `checkpoint-N` folder under out_dir, or None (also when out_dir does not exist)."""
    from transformers.trainer_utils import get_last_checkpoint

    return get_last_checkpoint(str(out_dir)) if Path(out_dir).is_dir() else None


@dataclass
class TrainResult:
    global_step: int
    resumed_from: str | None
    log_history: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    tokens: int = 0  # input tokens processed in this call (not counting a resumed part)
    steady_tokens_per_s: float = 0.0  # after the first step of this call (warm-up excluded)

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.seconds if self.seconds else 0.0


def mixed_precision(model) -> dict:
    """The Trainer's bf16 / fp16 flags for `model`: autocast in its half type, none for fp32."""
    import torch

    dtype = next(model.parameters()).dtype
    # autocast in the base model's half type; peft keeps the adapter itself in fp32
    return {"bf16": dtype == torch.bfloat16, "fp16": dtype == torch.float16}


def sft_config(out_dir: str | Path, steps: int, batch_size: int, lr: float, save_steps: int | None = None,
               grad_accum: int = 1, warmup_steps: int | None = None, seed: int = 0,
               gradient_checkpointing: bool = False, precision: dict | None = None, save: bool = True,
               use_cpu: bool = False):
    """trl's SFTConfig for a step-bounded run that saves every `save_steps` (default: ~10 saves; none if not save).

    Every field whose trl default differs from what a run here wants is set: no truncation (long
    examples were dropped when built), checkpointing only when asked, no bf16 on an fp32 model.
    """
    from trl import SFTConfig

    return SFTConfig(
        **trainer_defaults(SFTConfig, out_dir, steps, batch_size, lr, save_steps or max(1, steps // 10), seed,
                           precision, gradient_checkpointing, warmup_steps, save),
        gradient_accumulation_steps=grad_accum, optim="adamw_torch", include_num_input_tokens_seen="non_padding",
        use_cpu=use_cpu, completion_only_loss=True, max_length=None)


def trainer_defaults(config_class, out_dir: str | Path, steps: int, batch_size: int, lr: float, save_steps: int,
                     seed: int = 0, precision: dict | None = None, gradient_checkpointing: bool = False,
                     warmup_steps: int | None = None, save: bool = True) -> dict:
    """The arguments every trainer here shares (SFT, distillation, TTT, DPO, GRPO): step-bounded,
    cosine with a short warmup, checkpointed for resume, quiet, no reporting, the model's precision.
    `config_class`: the trl / transformers config they are for (the checkpointing field's name)."""
    return {
        "output_dir": str(out_dir), "max_steps": steps, "per_device_train_batch_size": batch_size,
        "learning_rate": lr, "lr_scheduler_type": "cosine",
        # 3% warmup (at least one step) steadies Adam's first updates on a fresh adapter
        "warmup_steps": max(1, round(0.03 * steps)) if warmup_steps is None else warmup_steps,
        "logging_steps": 1, "save_strategy": "steps" if save else "no", "save_steps": save_steps,
        "save_total_limit": 2,  # the latest checkpoint is all a resume needs; one spare if a save is torn
        "seed": seed, "data_seed": seed, "report_to": "none", "disable_tqdm": True, "dataloader_num_workers": 0,
        **checkpointing_args(config_class, gradient_checkpointing),
        **(precision or {"bf16": False, "fp16": False})}


def checkpointing_args(config_class, on: bool) -> dict:
    """The checkpointing switch of a trl or transformers config class, said explicitly either way."""
    # said either way, as trl's configs turn it on by default; transformers 5.x renamed the field
    # activation_checkpointing (the old name still works there, with a FutureWarning)
    name = "activation_checkpointing" if "activation_checkpointing" in config_class.__dataclass_fields__ \
        else "gradient_checkpointing"
    return {name: on, f"{name}_kwargs": CHECKPOINTING if on else None}


def build_trainer(model, tokenizer, examples: Examples | list[dict], args, callbacks: list | None = None,
                  trainer_class=None, trainer_kwargs: dict | None = None):
    """An SFTTrainer (or `trainer_class`, a subclass, with its extra `trainer_kwargs`) over tokenized examples.

    Only input_ids and completion_mask go in: trl takes rows with input_ids as already processed and
    builds labels = IGNORE where the mask is 0.
    """
    import datasets
    from transformers import PrinterCallback
    from trl import SFTTrainer

    if not len(examples):
        raise ValueError("no training examples (all dropped as too long?)")
    datasets.disable_progress_bars()  # one bar per map call drowns a notebook's output
    rows = datasets.Dataset.from_list([{"input_ids": x["input_ids"], "completion_mask": x["completion_mask"]}
                                       for x in examples])
    trainer = (trainer_class or SFTTrainer)(model=model, args=args, train_dataset=rows, processing_class=tokenizer,
                                            callbacks=callbacks, **(trainer_kwargs or {}))
    trainer.remove_callback(PrinterCallback)  # quiet: `Progress` prints, the log history is returned and plotted
    if getattr(model, "is_loaded_in_4bit", False) or getattr(model, "is_loaded_in_8bit", False):
        # trl casts a quantized model's adapter to bf16 (the QLoRA paper's choice); a T4 has no bf16, and
        # fp32 adapter weights keep Adam's small updates (peft's default): cast back before the optimizer exists
        for p in model.parameters():
            if p.requires_grad:
                p.data = p.data.float()
    return trainer


def train(model, tokenizer, examples: Examples | list[dict], out_dir: str | Path, steps: int, batch_size: int,
          lr: float, save_steps: int | None = None, resume: bool = True, callbacks: list | None = None,
          trainer_class=None, trainer_kwargs: dict | None = None, *, grad_accum: int = 1,
          gradient_checkpointing: bool = False, warmup_steps: int | None = None, seed: int = 0,
          log_every: int | None = None) -> TrainResult:
    """Train `model` (usually from `add_lora`) on tokenized examples for `steps` optimizer steps in total.

    With resume, a run whose folder already holds checkpoints continues from the latest one
    (optimizer, scheduler, data order and RNG restored) up to `steps`; a finished run does nothing.
    trainer_class / trainer_kwargs: an SFTTrainer subclass and its extra arguments (distillation).
    grad_accum: micro-batches of `batch_size` per optimizer step. log_every: steps between
    progress lines (default: about 20 lines per run).
    """
    args = sft_config(out_dir, steps, batch_size, lr, save_steps, grad_accum, warmup_steps, seed,
                      gradient_checkpointing, mixed_precision(model))
    with restoring_forward(model):
        trainer = build_trainer(model, tokenizer, examples, args, callbacks, trainer_class, trainer_kwargs)
        return run_trainer(trainer, model, out_dir, steps, resume, log_every)


@contextmanager
def restoring_forward(model):
    """On exit, undo the fused LM head SFTTrainer patches onto the model's forward.

    Each trainer wraps the forward it finds, so a model trained many times (test-time training,
    one trainer per task) would call through one more wrapper per run; generation never uses it.
    """
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    before = vars(base).get("forward")  # an instance forward (accelerate's hooks) is put back as it was
    try:
        yield
    finally:
        if before is None:
            vars(base).pop("forward", None)
        else:
            base.forward = before


def run_trainer(trainer, model, out_dir: str | Path, steps: int, resume: bool = True,
                log_every: int | None = None) -> TrainResult:
    """Train with a built Trainer (SFT, distillation, trl's DPO / GRPO) up to `steps` in total, printing progress.

    A line every `log_every` optimizer steps (`Progress`; default about 20 per run). With resume, a
    run whose folder already holds checkpoints continues from the latest one (optimizer, scheduler,
    data order and RNG restored); a run already at `steps` loads its weights and returns. The
    model's special ids are put back afterwards: some transformers 5.x Trainers collapse a list of
    stop ids to the tokenizer's one eos (the tiny model stops on <|endoftext|> and <|im_end|>).
    """
    from transformers import PrinterCallback, TrainerState
    from transformers.trainer import TRAINER_STATE_NAME

    special = _special_ids(model)
    trainer.remove_callback(PrinterCallback)  # quiet: `Progress` prints, the log history is returned and plotted
    start = latest_checkpoint(out_dir) if resume else None
    if start is not None:
        state = TrainerState.load_from_json(str(Path(start) / TRAINER_STATE_NAME))
        if state.global_step >= steps:
            # finished already (a rerun notebook): load its weights; Trainer.train would take one more step
            trainer._load_from_checkpoint(start)
            model.eval()
            return TrainResult(state.global_step, start, list(state.log_history), 0.0, 0)
    counter = _TokenCounter()
    trainer.add_callback(counter)
    trainer.add_callback(Progress(log_every))
    t0 = time.perf_counter()
    model.train()
    try:
        trainer.train(resume_from_checkpoint=start)
    finally:
        model.eval()
        _set_special_ids(model, special)
    seconds = time.perf_counter() - t0
    return TrainResult(trainer.state.global_step, start, list(trainer.state.log_history), seconds, counter.tokens,
                       counter.steady_tokens_per_s)


_SPECIAL = ("eos_token_id", "bos_token_id", "pad_token_id")


def _special_ids(model) -> dict:
    gen = getattr(model, "generation_config", None)
    return {name: (getattr(model.config, name, None), getattr(gen, name, None)) for name in _SPECIAL}


def _set_special_ids(model, ids: dict) -> None:
    gen = getattr(model, "generation_config", None)
    for name, (in_config, in_generation) in ids.items():
        setattr(model.config, name, in_config)
        if gen is not None:
            setattr(gen, name, in_generation)


class _TokenCounter(TrainerCallback):
    """Input tokens (padding excluded) and time of the steps run in this call; a resumed part is not counted."""

    def __init__(self):
        self.at_begin = self.at_end = 0
        self.marks: list[tuple[float, int]] = []  # (time, tokens seen) at each step end

    def on_train_begin(self, args, state, control, **kwargs):
        self.at_begin = self.at_end = state.num_input_tokens_seen

    def on_step_end(self, args, state, control, **kwargs):
        self.at_end = state.num_input_tokens_seen
        self.marks.append((time.perf_counter(), state.num_input_tokens_seen))

    @property
    def tokens(self) -> int:
        return int(self.at_end - self.at_begin)

    @property
    def steady_tokens_per_s(self) -> float:
        """Tokens/s after the first step (which pays for warm-up); 0 with under 2 steps."""
        if len(self.marks) < 2:
            return 0.0
        (t0, n0), (t1, n1) = self.marks[0], self.marks[-1]
        return (n1 - n0) / (t1 - t0) if t1 > t0 else 0.0


LINES_PER_RUN = 20  # progress lines a run prints by default: enough to watch, few enough to read back


class Progress(TrainerCallback):
    """Prints `step 40/500 · loss 1.234 · 2,345 tokens/s · eta 3m10s` every `every` optimizer steps and at the end.

    print, not tqdm: papermill keeps a notebook's stdout, and lines read back as a log where a bar
    does not. The loss is the mean since the previous line; speed and eta count this call only (a
    resumed part is not); tokens/s is left out when the trainer counts no tokens (trl's DPO, GRPO).
    every: default `steps // LINES_PER_RUN`, so a run of 20 steps or fewer prints every step.
    """

    def __init__(self, every: int | None = None):
        self.every = every
        self.losses: list[float] = []
        self.t0, self.step0, self.tokens0, self.last = 0.0, 0, 0, 0

    def on_train_begin(self, args, state, control, **kwargs):
        self.every = self.every or max(1, state.max_steps // LINES_PER_RUN)
        self.t0, self.step0, self.tokens0 = time.perf_counter(), state.global_step, state.num_input_tokens_seen
        self.last, self.losses = state.global_step, []

    def on_log(self, args, state, control, logs=None, **kwargs):
        # the Trainer logs a step's loss after on_step_end, so the line is printed here
        if not logs or "loss" not in logs:
            return
        self.losses.append(float(logs["loss"]))
        if state.global_step - self.last >= self.every or state.global_step >= state.max_steps:
            print(self.line(state), flush=True)
            self.last, self.losses = state.global_step, []

    def line(self, state) -> str:
        seconds = time.perf_counter() - self.t0
        done = state.global_step - self.step0
        parts = [f"step {state.global_step}/{state.max_steps}", f"loss {sum(self.losses) / len(self.losses):.3f}"]
        tokens = state.num_input_tokens_seen - self.tokens0
        if tokens and seconds:
            parts.append(f"{tokens / seconds:,.0f} tokens/s")
        if done:
            parts.append(f"eta {_duration((state.max_steps - state.global_step) * seconds / done)}")
        return " · ".join(parts)


def _duration(seconds: float) -> str:
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def loss_curve(log_history: list[dict]) -> tuple[list[int], list[float]]:
    """(steps, training losses) from a Trainer's log history."""
    rows = [r for r in log_history if "loss" in r]
    return [r["step"] for r in rows], [r["loss"] for r in rows]


def plot_loss(log_history: list[dict], title: str = "training loss"):
    """A matplotlib figure of the training loss over steps."""
    import matplotlib.pyplot as plt

    steps, losses = loss_curve(log_history)
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(steps, losses, marker="o" if len(steps) < 30 else None)
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def save_model(model, tokenizer, folder: str | Path, style: str) -> Path:
    """Save a loadable model to `folder`: a LoRA model merged into its base, with prompt style kept.

    The merged folder loads with `shared.models.load_model(folder)` / `ModelSolver(model=folder)`.
    A 4-bit base is reloaded in 16 bits to merge into (merging into 4-bit weights loses precision).
    The peft wrapper is consumed by the merge: keep using the returned folder, not `model`.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if hasattr(model, "peft_config"):
        if getattr(model, "is_loaded_in_4bit", False):
            model = _merge_into_16bit(model, folder)
        else:
            model = model.merge_and_unload()
    # recorded in config.json so a reloaded model is prompted the way it was trained
    model.config.arc_prompt_style = style
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _merge_into_16bit(model, folder: Path):
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from shared.models import pick_dtype

    adapter_dir = folder / "adapter"
    model.save_pretrained(adapter_dir)
    base_name = model.peft_config["default"].base_model_name_or_path
    device = next(model.parameters()).device
    base = AutoModelForCausalLM.from_pretrained(base_name, dtype=pick_dtype(device)).to(device)
    return PeftModel.from_pretrained(base, adapter_dir).merge_and_unload()
