"""Training examples: (source, prompt, completion) triples tokenized with the loss on the answer only.

`tokenize_examples` is the one builder: each prompt + completion tokenized with a `completion_mask`
(1 on the answer), the pre-tokenized form trl's SFTTrainer takes for a completion-only loss; any
longer than `max_len` tokens is dropped and counted; each example keeps its source tag. Its callers
only say where the triples come from: ARC tasks' leave-one-out augmented views (`build_examples`,
views from `shared.augment`), a benchmark adapter's training views (`adapter_examples`), a
teacher's answers (`shared.train.distill.sequence_examples`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from shared.augment import task_views
from shared.benchmarks import Benchmark, Item
from shared.formats import format_example
from shared.tasks import Task

IGNORE = -100  # the label torch's cross-entropy skips: prompt tokens and padding


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


def tokenize_examples(triples: Iterable[tuple[str, str, str]], tokenizer, max_len: int) -> Examples:
    """Each (source, prompt, completion) tokenized (`tokenize_example`) and tagged with its source;
    those over `max_len` tokens are dropped and counted. Every example builder ends here."""
    out = Examples(max_len=max_len)
    for source, prompt, completion in triples:
        ex = tokenize_example(tokenizer, prompt, completion)
        if len(ex["input_ids"]) > max_len:
            out.dropped_too_long += 1
            continue
        ex["source"] = source
        out.items.append(ex)
    return out


def build_examples(tasks, tokenizer, style: str, max_len: int, n_augment: int = 1, seed: int = 0,
                   use_test: bool = True) -> Examples:
    """Tokenized leave-one-out examples of ARC `tasks` under augmentation (`augment.task_views`).

    style: the model's prompt style ("plain" / "chat", see `shared.models.prompt_style`).
    """
    return tokenize_examples(((v.id, *format_example(tokenizer, v.task, 0, style))
                              for v in task_views(tasks, n_augment, seed, use_test)), tokenizer, max_len)


def adapter_examples(adapter: Benchmark, items: list[Item], tokenizer, style: str, max_len: int, n_augment: int = 1,
                     seed: int = 0) -> Examples:
    """Tokenized (prompt, target) examples of a benchmark adapter's training views, tagged with the view's id.

    For ARC the same examples as `build_examples` of the items' tasks, in the same order.
    """
    return tokenize_examples(((view.id, adapter.prompt(tokenizer, view, style), adapter.target(tokenizer, view, style))
                              for view in adapter.training_views(items, n_augment, seed)), tokenizer, max_len)


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
