"""Distillation: a fine-tuned teacher into a smaller student, on the SFTTrainer path of `sft.train` (resumable).

Shared tokenizer: the student matches the teacher's softened next-token distribution (KL) on the
answer tokens, mixed with cross-entropy on the answer; otherwise the teacher's greedy answers become
its targets. Not trl's GKDTrainer (experimental in trl 1.16): it samples student answers on half the
steps by default and refuses vocab sizes that differ (Qwen2.5-7B 152,064 vs 0.5B 151,936), see below.
"""

from __future__ import annotations

from pathlib import Path

from trl import SFTTrainer

from shared.augment import task_views
from shared.formats import build_prompt, format_answer, parse_grid
from shared.train.data import IGNORE, Examples, build_examples, tokenize_examples
from shared.train.sft import TrainResult
from shared.train.sft import train as sft_train

TEMPERATURE = 2.0  # softens the teacher so its second choices carry signal (Hinton et al. use 1-4)
ALPHA = 0.5  # weight of the hard-label cross-entropy; the rest goes to the KL term


def tiny_student(tokenizer, layers: int = 1, hidden: int = 32, seed: int = 1):
    """A Llama smaller than the default tiny model (1 layer, 32 wide by default), same tokenizer."""
    from shared.models import tiny_model

    return tiny_model(tokenizer, seed=seed, layers=layers, hidden=hidden).eval()


def tokenizers_match(a, b) -> bool:
    """True when both tokenizers map the same strings to the same ids (logit distillation is possible)."""
    return a.get_vocab() == b.get_vocab()


def _answer_positions(labels):
    # logits at position t predict token t+1: shift, then keep positions whose target is an answer token
    return labels[:, 1:] != IGNORE


def kl_loss(student_logits, teacher_logits, labels, temperature: float = TEMPERATURE):
    """KL(teacher || student) of the softened distributions on answer tokens, times T^2 (Hinton's scaling).

    Logits are cut to the smaller vocabulary: models of one family pad their embedding tables
    to different sizes past the tokenizer's last id.
    """
    import torch.nn.functional as F

    n = min(student_logits.shape[-1], teacher_logits.shape[-1])
    mask = _answer_positions(labels)
    s = student_logits[:, :-1, :n][mask].float() / temperature
    t = teacher_logits[:, :-1, :n][mask].float() / temperature
    kl = F.kl_div(F.log_softmax(s, -1), F.log_softmax(t, -1), log_target=True, reduction="batchmean")
    return kl * temperature**2


def agreement(student_logits, teacher_logits, labels) -> float:
    """Share of answer tokens where the student's top choice equals the teacher's."""
    n = min(student_logits.shape[-1], teacher_logits.shape[-1])
    mask = _answer_positions(labels)
    same = student_logits[:, :-1, :n].argmax(-1)[mask] == teacher_logits[:, :-1, :n].argmax(-1)[mask]
    return float(same.float().mean()) if same.numel() else 0.0


# Why not trl.experimental.gkd.GKDTrainer (trl 1.16; the stable trl.DistillationTrainer is on-policy
# only, with prompt-only data): its lmbda=0.5 default generates student answers on half the steps,
# up to ~1k tokens each for ARC, which dominates a step; its ChatML collator re-tokenizes the text,
# where our examples keep the exact prompt/answer boundary; it has no hard-label term (alpha); and
# it raises on differing vocab_size, which Qwen2.5 models sharing one tokenizer have (padded tables).
class DistillTrainer(SFTTrainer):
    """An SFTTrainer whose loss is alpha * cross-entropy + (1 - alpha) * KL to a frozen teacher."""

    # our loss is a per-batch mean, so the Trainer must divide it over accumulation steps itself
    loss_is_scaled_for_ga = False

    def __init__(self, model, args, train_dataset, processing_class, callbacks=None, teacher=None,
                 temperature: float = TEMPERATURE, alpha: float = ALPHA):
        super().__init__(model=model, args=args, train_dataset=train_dataset, processing_class=processing_class,
                         callbacks=callbacks)
        self.teacher = teacher.eval().requires_grad_(False)
        if not getattr(teacher, "is_loaded_in_4bit", False):  # bitsandbytes placed a 4-bit teacher already
            self.teacher.to(self.args.device)  # where the Trainer put the student (this process's GPU)
        self.temperature, self.alpha = temperature, alpha
        self.model_accepts_loss_kwargs = False  # what transformers before 5.19 reads instead of the above

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        import torch

        # the plain forward (not trl's fused head): the KL needs the student's full logits
        out = model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"], labels=inputs["labels"])
        with torch.no_grad():
            t_logits = self.teacher(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]).logits
        loss = self.alpha * out.loss + (1 - self.alpha) * kl_loss(out.logits, t_logits, inputs["labels"],
                                                                  self.temperature)
        return (loss, out) if return_outputs else loss


def distill_logits(student, teacher, tokenizer, examples: Examples, out_dir: str | Path, steps: int,
                   batch_size: int, lr: float, temperature: float = TEMPERATURE, alpha: float = ALPHA,
                   save_steps: int | None = None, resume: bool = True, grad_accum: int = 1,
                   gradient_checkpointing: bool = False, seed: int = 0, log_every: int | None = None) -> TrainResult:
    """Train `student` toward `teacher`'s logits on tokenized examples (shared tokenizer); resumable.

    The training options are `sft.train`'s.
    """
    return sft_train(student, tokenizer, examples, out_dir, steps, batch_size, lr, save_steps, resume,
                     trainer_class=DistillTrainer,
                     trainer_kwargs={"teacher": teacher, "temperature": temperature, "alpha": alpha},
                     grad_accum=grad_accum, gradient_checkpointing=gradient_checkpointing, seed=seed,
                     log_every=log_every)


def sequence_examples(teacher, teacher_tok, student_tok, student_style: str, tasks, max_len: int,
                      n_augment: int = 1, max_new_tokens: int = 1024, seed: int = 0) -> tuple[Examples, int]:
    """Student examples whose targets are the teacher's greedy answers (any tokenizers).

    Returns (examples, unparsed): a teacher answer that is not a grid gives no example.
    """
    from shared.models import greedy_generate, prompt_style

    teacher_style = prompt_style(teacher, teacher_tok)
    unparsed = 0

    def triples():
        nonlocal unparsed
        for v in task_views(tasks, n_augment, seed):
            grid = parse_grid(greedy_generate(teacher, teacher_tok, build_prompt(teacher_tok, v.task, 0, teacher_style),
                                              max_new_tokens))
            if grid is None:
                unparsed += 1
                continue
            yield (f"{v.id}:teacher", build_prompt(student_tok, v.task, 0, student_style),
                   format_answer(grid) + (student_tok.eos_token or ""))

    examples = tokenize_examples(triples(), student_tok, max_len)
    return examples, unparsed


def distill(student, student_tok, teacher, teacher_tok, tasks, out_dir: str | Path, steps: int, batch_size: int,
            lr: float, max_len: int, n_augment: int = 1, max_new_tokens: int = 1024, temperature: float = TEMPERATURE,
            alpha: float = ALPHA, save_steps: int | None = None, resume: bool = True, grad_accum: int = 1,
            gradient_checkpointing: bool = False, seed: int = 0,
            log_every: int | None = None) -> tuple[TrainResult, dict]:
    """Distill `teacher` into `student` on `tasks`: by logits if the tokenizers match, else by sequences.

    Returns the training result and a note of the method and example counts. The training
    options (save_steps ... log_every) are `sft.train`'s.
    """
    from shared.models import prompt_style

    style = prompt_style(student, student_tok)
    if tokenizers_match(student_tok, teacher_tok):
        examples = build_examples(tasks, student_tok, style, max_len, n_augment=n_augment, seed=seed)
        result = distill_logits(student, teacher, student_tok, examples, out_dir, steps, batch_size, lr, temperature,
                                alpha, save_steps, resume, grad_accum, gradient_checkpointing, seed, log_every)
        return result, {"method": "logits", "examples": len(examples), "dropped_too_long": examples.dropped_too_long}
    examples, unparsed = sequence_examples(teacher, teacher_tok, student_tok, style, tasks, max_len, n_augment,
                                           max_new_tokens, seed=seed)
    result = sft_train(student, student_tok, examples, out_dir, steps, batch_size, lr, save_steps, resume,
                       grad_accum=grad_accum, gradient_checkpointing=gradient_checkpointing, seed=seed,
                       log_every=log_every)
    return result, {"method": "sequences", "examples": len(examples), "dropped_too_long": examples.dropped_too_long,
                    "teacher_unparsed": unparsed}


TINY_STUDENT = "tiny-student"  # the name notebooks use for `tiny_student` (random init, offline)
SMALL_STUDENT = "Qwen/Qwen2.5-0.5B-Instruct"  # the smallest Qwen2.5; shares the 7B's tokenizer


def default_student(teacher_tok) -> str:
    """The tiny student for a teacher with the tiny tokenizer (tiny, or trained from it), else the smallest Qwen2.5."""
    from shared.models import tiny_tokenizer

    return TINY_STUDENT if tokenizers_match(teacher_tok, tiny_tokenizer()) else SMALL_STUDENT


def load_student(name: str, lora_r: int = 16, device: str | None = None):
    """(student, tokenizer): the random tiny student trains whole; a pretrained one gets a LoRA adapter."""
    from shared.models import load_model, pick_device, tiny_tokenizer
    from shared.train.sft import add_lora

    if name == TINY_STUDENT:
        tok = tiny_tokenizer()
        return tiny_student(tok).to(device or pick_device()), tok
    model, tok = load_model(name, device=device)
    return add_lora(model, r=lora_r, alpha=2 * lora_r), tok


def speed_and_size(folder: str | Path, tasks, max_new_tokens: int, max_prompt_tokens: int) -> dict:
    """Load a saved model, time greedy generation on the tasks' first test prompts, count parameters, free it."""
    import gc

    import torch

    from shared.models import load_model, prompt_style
    from shared.train.throughput import generation_speed, task_prompts

    model, tok = load_model(str(folder))
    prompts = task_prompts(tasks, tok, prompt_style(model, tok), max_prompt_tokens)
    speed = generation_speed(model, tok, prompts, max_new_tokens)
    out = {"parameters": model.num_parameters(), "tokens/s": speed["tokens_per_s"]}
    del model
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return out
