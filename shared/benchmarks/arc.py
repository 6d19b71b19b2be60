"""ARC as a benchmark adapter: one item per test input, wrapping the suite's own ARC pieces.

Tasks come from `shared.tasks` (the train split is the clean training set for the evaluation
set, via `tasks.training_for`), prompts and parsing from `shared.formats`, exact match from
`shared.grids.same`, augmentation and leave-one-out training views from `shared.augment`;
nothing here reimplements them. A task's test inputs share a group.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared.augment import random_augmentations, task_views
from shared.benchmarks import Benchmark, Item
from shared.formats import build_prompt, format_example, grid_to_text, parse_grid
from shared.grids import same
from shared.tasks import Task, load, training_for


@dataclass(frozen=True)
class ArcRecord:
    task: Task
    test_index: int = 0

    @property
    def expected(self):
        return self.task.test[self.test_index].output


def task_items(tasks) -> list[Item]:
    """One item per test input of each task, grouped by task id."""
    return [Item(f"{t.id}:{i}" if len(t.test) > 1 else t.id, ArcRecord(t, i), t.id)
            for t in tasks for i in range(len(t.test))]


class ArcBenchmark(Benchmark):
    """ARC tasks; `eval_set` is measured on and `train_set` trains, minus every task of `eval_set`."""

    name = "arc"
    metrics = ("exact",)
    max_new_tokens = 931  # a 30x30 grid: 900 digits, 29 newlines, an end marker

    def __init__(self, source: str = "auto", eval_set: str = "arc1/eval", train_set: str = "arc2/train"):
        if source not in ("auto", "offline"):
            raise ValueError(f"ARC tasks load from their task sets (eval_set, train_set), not a source {source!r}")
        self.eval_set, self.train_set = eval_set, train_set

    def load(self, split: str, limit: int | None = None) -> list[Item]:
        if split == "test":
            tasks = load(self.eval_set)
        elif split == "train":
            tasks = training_for(self.eval_set, self.train_set)
        else:
            raise ValueError(f"ARC splits are train and test, not {split!r}")
        self.loaded_from = tasks.name
        return task_items(tasks[:limit])

    def prompt(self, tokenizer, item: Item, style: str) -> str:
        return build_prompt(tokenizer, item.record.task, item.record.test_index, style)

    def target(self, tokenizer, item: Item, style: str) -> str:
        return format_example(tokenizer, item.record.task, item.record.test_index, style)[1]

    def parse(self, item: Item, text: str):
        return parse_grid(text)

    def score(self, item: Item, prediction) -> dict[str, bool]:
        return {"exact": prediction is not None and same(prediction, item.record.expected)}

    def augment(self, item: Item, n: int, seed: int = 0) -> list[Item]:
        task = item.record.task
        return [Item(f"{item.id}@{a.id}", ArcRecord(a.apply(task), item.record.test_index), item.group_id)
                for a in random_augmentations(task, n, seed=seed)]

    def training_views(self, items: list[Item], n_augment: int = 1, seed: int = 0) -> list[Item]:
        """Leave-one-out views of each task (every known pair the target once), augmented
        (`augment.task_views`): the views the ARC trainers use, in the same order with the same seeds."""
        tasks = list({item.group_id: item.record.task for item in items}.values())
        return [Item(v.id, ArcRecord(v.task, 0), v.task_id) for v in task_views(tasks, n_augment, seed)]

    def show(self, item: Item, prediction) -> str:
        return "" if prediction is None else grid_to_text(prediction)

    def question(self, item: Item) -> str:
        return build_prompt(None, item.record.task, item.record.test_index, "plain")

    def reference(self, item: Item) -> str:
        expected = item.record.expected
        return "" if expected is None else grid_to_text(expected)
