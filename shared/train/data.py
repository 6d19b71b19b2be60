"""Training examples from ARC tasks: leave-one-out, augmented, loss on the answer only.

Each known pair of a task becomes the target once, with the task's other pairs as the demos
(leave-one-out); every augmentation (dihedral x colour permutation x demo order, from
`shared.augment`) gives another view. Examples are tokenized as prompt + completion with a
`completion_mask` (1 on the answer), the pre-tokenized form trl's SFTTrainer takes for a
completion-only loss; any longer than `max_len` tokens is dropped and counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from shared.augment import Augmentation, random_augmentations
from shared.formats import format_example
from shared.tasks import Pair, Task

IGNORE = -100  # the label torch's cross-entropy skips: prompt tokens and padding


def known_pairs(task: Task, use_test: bool = True) -> list[Pair]:
    """The pairs with outputs: the demos, plus test pairs whose outputs are known (training tasks)."""
    pairs = list(task.train)
    if use_test:
        pairs += [p for p in task.test if p.output is not None]
    return pairs


def leave_one_out(task: Task, use_test: bool = True) -> list[Task]:
    """One task per known pair: that pair as the single test, all the others as demos.

    A task with fewer than two known pairs gives nothing (no demo would be left).
    """
    pairs = known_pairs(task, use_test)
    if len(pairs) < 2:
        return []
    return [Task(f"{task.id}#{i}", tuple(pairs[:i] + pairs[i + 1:]), (pairs[i],), task.source)
            for i in range(len(pairs))]


@dataclass(frozen=True)
class View:
    """One training example before tokenizing: a leave-one-out task seen under an augmentation."""

    task_id: str
    target: int  # index of the held-out pair among the known pairs
    aug: Augmentation
    task: Task  # augmented, demos = the other pairs, test = the held-out pair


def views(task: Task, n_augment: int = 1, seed: int = 0, use_test: bool = True) -> list[View]:
    """Every leave-one-out example of `task` under `n_augment` augmentations (the first is identity).

    Demo order is drawn per leave-one-out task, so each example has its own shuffled context.
    """
    out = []
    for target, loo in enumerate(leave_one_out(task, use_test)):
        augs = random_augmentations(loo, n_augment, seed=seed * 1000 + target)
        out += [View(task.id, target, a, a.apply(loo)) for a in augs]
    return out


@dataclass
class Examples:
    """Tokenized examples (dicts of input_ids, completion_mask, source) and what was dropped on the way."""

    items: list[dict] = field(default_factory=list)
    dropped_too_long: int = 0
    max_len: int = 0

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> dict:
        return self.items[i]

    @property
    def n_tokens(self) -> int:
        return sum(len(x["input_ids"]) for x in self.items)

    def summary(self) -> str:
        return (f"{len(self.items)} examples ({self.n_tokens} tokens); {self.dropped_too_long} dropped "
                f"as longer than {self.max_len} tokens")


def tokenize_example(tokenizer, prompt: str, completion: str) -> dict:
    """input_ids = prompt + completion, completion_mask = 0 on the prompt and 1 on the completion.

    The two parts are tokenized separately so the boundary is exact whatever the tokenizer
    would merge across it (trl, given text, tokenizes prompt + completion together); the chat
    template already holds its special tokens.
    """
    p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    c = tokenizer(completion, add_special_tokens=False)["input_ids"]
    return {"input_ids": p + c, "completion_mask": [0] * len(p) + [1] * len(c)}


def labels(example: dict) -> list[int]:
    """The example's ids with IGNORE on the prompt: what the loss sees (trl builds the same from the mask)."""
    return [t if m else IGNORE for t, m in zip(example["input_ids"], example["completion_mask"], strict=True)]


def build_examples(tasks, tokenizer, style: str, max_len: int, n_augment: int = 1, seed: int = 0,
                   use_test: bool = True) -> Examples:
    """Tokenized leave-one-out examples of `tasks` under augmentation; over `max_len` are dropped.

    style: the model's prompt style ("plain" / "chat", see `shared.models.prompt_style`).
    """
    out = Examples(max_len=max_len)
    for t_i, task in enumerate(tasks):
        for v in views(task, n_augment, seed=seed + t_i, use_test=use_test):
            prompt, completion = format_example(tokenizer, v.task, 0, style)
            ex = tokenize_example(tokenizer, prompt, completion)
            if len(ex["input_ids"]) > max_len:
                out.dropped_too_long += 1
                continue
            ex["source"] = f"{v.task_id}#{v.target}:{v.aug.id}"
            out.items.append(ex)
    return out


def collate(batch: list[dict], pad_id: int) -> dict:
    """A right-padded batch (input_ids, attention_mask, labels) by trl's SFT collator, for a loss outside training.

    The same padding the SFTTrainer applies, so a loss measured here is the one training sees.
    """
    from trl.trainer.sft_trainer import DataCollatorForLanguageModeling

    rows = [{"input_ids": x["input_ids"], "labels": labels(x)} for x in batch]
    return DataCollatorForLanguageModeling(pad_token_id=pad_id)(rows)


def split_tasks(tasks, n_heldout: int, seed: int = 0) -> tuple[list[Task], list[Task]]:
    """(train, held out): a seeded random slice of `n_heldout` tasks kept out of training."""
    import random

    order = list(range(len(tasks)))
    random.Random(seed).shuffle(order)
    held = set(order[:n_heldout])
    return [t for i, t in enumerate(tasks) if i not in held], [t for i, t in enumerate(tasks) if i in held]


def profile_split(pool, profile, n_heldout: int = 0, n_train: int = 0, seed: int = 0) -> tuple[list[Task], list[Task]]:
    """(train, held out) as the notebooks take them: `n_heldout` tasks kept out (0: the profile's
    n_tasks) and at most `n_train` trained on (0: the profile's train_tasks; 0 there too: all)."""
    train, held = split_tasks(pool, n_heldout or profile.n_tasks, seed=seed)
    return train[: n_train or profile.train_tasks or None], held
