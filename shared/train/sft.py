"""Supervised fine-tuning with LoRA / QLoRA through the transformers Trainer, resumable.

The plain Trainer with our own collator (examples arrive tokenized with labels already
masked), so nothing depends on trl's changing dataset conventions; the Trainer runs under
`accelerate`, which spreads a run over several GPUs when launched that way. Checkpoints go to
`out_dir/checkpoint-N`; calling `train` again on the same folder continues from the latest one,
which is how a notebook rerun survives a Colab disconnect.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from transformers import TrainerCallback

from shared.train.data import Collator, Examples

LORA_R = 16  # rank 16 is the common LoRA starting point for 0.5B-7B models
LORA_ALPHA = 32  # alpha = 2r keeps the update scale steady when r changes


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
        model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=gradient_checkpointing)
    elif gradient_checkpointing:
        model.gradient_checkpointing_enable()
        model.enable_input_require_grads()  # checkpointed blocks need a grad-carrying input
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


def _precision(model) -> dict:
    import torch

    dtype = next(model.parameters()).dtype
    # autocast in the base model's half type; peft keeps the adapter itself in fp32
    return {"bf16": dtype == torch.bfloat16, "fp16": dtype == torch.float16}


def training_args(out_dir: str | Path, steps: int, batch_size: int, lr: float, save_steps: int | None = None,
                  grad_accum: int = 1, warmup_steps: int | None = None, seed: int = 0, log_steps: int = 1,
                  gradient_checkpointing: bool = False, precision: dict | None = None, **extra):
    """TrainingArguments for a step-bounded run that saves every `save_steps` (default: ~10 saves)."""
    from transformers import TrainingArguments

    save_steps = save_steps or max(1, steps // 10)
    return TrainingArguments(
        output_dir=str(out_dir), max_steps=steps, per_device_train_batch_size=batch_size,
        gradient_accumulation_steps=grad_accum, learning_rate=lr, lr_scheduler_type="cosine",
        # 3% warmup (at least one step) steadies Adam's first updates on a fresh adapter
        warmup_steps=max(1, round(0.03 * steps)) if warmup_steps is None else warmup_steps,
        logging_steps=log_steps, save_strategy="steps", save_steps=save_steps,
        save_total_limit=2,  # the latest checkpoint is all a resume needs; one spare if a save is torn
        seed=seed, data_seed=seed, report_to="none", disable_tqdm=True, remove_unused_columns=False,
        gradient_checkpointing=gradient_checkpointing, dataloader_num_workers=0, optim="adamw_torch",
        include_num_input_tokens_seen="non_padding",
        **(precision or {}), **extra)


def train(model, tokenizer, examples: Examples | list[dict], out_dir: str | Path, steps: int, batch_size: int,
          lr: float, save_steps: int | None = None, resume: bool = True, callbacks: list | None = None,
          trainer_class=None, trainer_kwargs: dict | None = None, **args) -> TrainResult:
    """Train `model` (usually from `add_lora`) on tokenized examples for `steps` optimizer steps in total.

    With resume, a run whose folder already holds checkpoints continues from the latest one
    (optimizer, scheduler, data order and RNG restored) up to `steps`; a finished run does nothing.
    trainer_class / trainer_kwargs: a Trainer subclass and its extra arguments (distillation uses
    this). Further keyword arguments go to `training_args`.
    """
    from transformers import Trainer

    if not len(examples):
        raise ValueError("no training examples (all dropped as too long?)")
    targs = training_args(out_dir, steps, batch_size, lr, save_steps, precision=_precision(model), **args)
    trainer = (trainer_class or Trainer)(model=model, args=targs, train_dataset=examples,
                                         data_collator=Collator(tokenizer.pad_token_id), processing_class=tokenizer,
                                         callbacks=callbacks, **(trainer_kwargs or {}))
    return run_trainer(trainer, model, out_dir, steps, resume)


def run_trainer(trainer, model, out_dir: str | Path, steps: int, resume: bool = True) -> TrainResult:
    """Train with a built Trainer (SFT, distillation, trl's DPO / GRPO) up to `steps` in total.

    With resume, a run whose folder already holds checkpoints continues from the latest one
    (optimizer, scheduler, data order and RNG restored); a run already at `steps` loads its
    weights and returns. The model's special ids are put back afterwards: some transformers 5.x
    Trainers collapse a list of stop ids to the tokenizer's one eos (the tiny model stops on
    <|endoftext|> and <|im_end|>).
    """
    from transformers import PrinterCallback, TrainerState
    from transformers.trainer import TRAINER_STATE_NAME

    special = _special_ids(model)
    trainer.remove_callback(PrinterCallback)  # quiet: the log history is returned and plotted instead
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
