"""GSM8K (grade-school math word problems) as a benchmark adapter.

`openai/gsm8k` through `datasets` when allowed (source "hub", or "auto" when the hub is not marked
offline and the load succeeds), else a fixture of word problems this project wrote, same schema.
Answers are read two ways, strict (the number right after `####`) and flexible (the last number),
and compared with the reference as numbers ("$1,234.50" == 1234.5).
"""

from __future__ import annotations

import json
import os
import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import NamedTuple

from shared.benchmarks import Benchmark, Item, chat_prompt, chat_target

HUB_ID = "openai/gsm8k"
FIXTURE = Path(__file__).with_name("data") / "gsm8k_fixture.jsonl"
FIXTURE_TEST = 10  # the fixture's last 10 problems are its test split, the others its train split
SOURCES = ("auto", "hub", "offline")  # offline: the fixture
SYSTEM_PROMPT = ("Solve the grade-school math problem. Reason step by step, then write the final answer "
                 "as a number on a last line of its own, after ####.")

# A number as people write it: optional minus (before or after a dollar sign), digits with
# thousands commas or without, an optional decimal part. Not glued to a word or a decimal point
# before it, so "x2", "5-3" (five, three) and the "5" of "1.5" are not read as numbers.
_NUMBER = r"(?<![\w.])(?P<neg>-)?\$?(?P<neg2>-)?(?P<digits>\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?)"
NUMBER = re.compile(_NUMBER)
STRICT = re.compile(r"####[ \t]*" + _NUMBER)
CALCULATOR = re.compile(r"<<[^>]*>>")  # GSM8K's calculator annotations, e.g. <<48/2=24>>
_TRUTHY = {"1", "ON", "YES", "TRUE"}


class Gsm8kAnswer(NamedTuple):
    strict: str | None    # the number after ####, normalised; None when the format was not followed
    flexible: str | None  # the last number anywhere, normalised; None when there is none


def normalise(match: re.Match) -> str:
    """A matched number as plain decimal text: no $, no commas, no trailing zeros ("$1,200.50" -> "1200.5")."""
    value = Decimal(match.group("digits").replace(",", ""))
    if match.group("neg") or match.group("neg2"):
        value = -value
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "0") else text


def extract_strict(text: str) -> str | None:
    """The number written right after the first `####`, or None."""
    m = STRICT.search(text)
    return normalise(m) if m else None


def extract_flexible(text: str) -> str | None:
    """The last number in the text, or None."""
    found = list(NUMBER.finditer(text))
    return normalise(found[-1]) if found else None


def same_number(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return False
    try:
        return Decimal(a) == Decimal(b)
    except InvalidOperation:
        return False


def reference_answer(answer: str) -> str:
    """The number after the last `####` of a GSM8K answer field."""
    m = STRICT.search(answer[answer.rindex("####"):]) if "####" in answer else None
    if m is None:
        raise ValueError(f"a GSM8K answer ends with '#### <number>'; got ...{answer[-60:]!r}")
    return normalise(m)


def solution_text(answer: str) -> str:
    """The answer field as a model should write it: calculator annotations removed, `#### N` kept."""
    reasoning, _, final = answer.rpartition("####")
    return CALCULATOR.sub("", reasoning).rstrip() + "\n#### " + final.strip()


def hub_offline() -> bool:
    """Whether the environment marks the hub offline (as tests and CI do)."""
    return any(os.environ.get(v, "").upper() in _TRUTHY for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"))


def read_fixture(path: Path = FIXTURE) -> list[dict]:
    """The fixture's problems, each checked at the boundary (the error names the file and line)."""
    rows = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{n}: not JSON: {e}") from None
        if not isinstance(row, dict) or not isinstance(row.get("question"), str) or not isinstance(
                row.get("answer"), str):
            raise ValueError(f"{path}:{n}: needs a string 'question' and a string 'answer'")
        try:
            reference_answer(row["answer"])
        except ValueError as e:
            raise ValueError(f"{path}:{n}: {e}") from None
        rows.append(row)
    return rows


class Gsm8kBenchmark(Benchmark):
    """GSM8K train/test; `loaded_from` says where the last `load` read its problems."""

    name = "gsm8k"
    metrics = ("strict", "flexible")
    max_new_tokens = 320  # GSM8K solutions are a few short lines

    def __init__(self, source: str = "auto"):
        if source not in SOURCES:
            raise ValueError(f"unknown GSM8K source {source!r}; choose from {', '.join(SOURCES)}")
        self.source = source
        self.loaded_from = ""

    def _hub_rows(self, split: str) -> list[dict]:
        from datasets import load_dataset

        return [{"question": r["question"], "answer": r["answer"]} for r in load_dataset(HUB_ID, "main", split=split)]

    def _fixture_rows(self, split: str) -> list[dict]:
        rows = read_fixture()
        return rows[-FIXTURE_TEST:] if split == "test" else rows[:-FIXTURE_TEST]

    def load(self, split: str, limit: int | None = None) -> list[Item]:
        if split not in self.splits:
            raise ValueError(f"GSM8K splits are {', '.join(self.splits)}, not {split!r}")
        why = "offline"
        if self.source == "hub" or (self.source == "auto" and not hub_offline()):
            try:
                rows = self._hub_rows(split)
            except OSError as e:  # no network, hub down (ConnectionError is an OSError)
                if self.source == "hub":
                    raise
                why = f"hub not reachable: {type(e).__name__}"
            else:
                self.loaded_from = f"{HUB_ID} ({split}) from the hub"
                return [Item(f"gsm8k/{split}/{i}", row) for i, row in enumerate(rows[:limit])]
        rows = self._fixture_rows(split)
        self.loaded_from = f"the project's fixture {FIXTURE.name} ({split}, {why})"
        return [Item(f"gsm8k-fixture/{split}/{i}", row) for i, row in enumerate(rows[:limit])]

    def prompt(self, tokenizer, item: Item, style: str) -> str:
        q = item.record["question"]
        return chat_prompt(tokenizer, style, SYSTEM_PROMPT, q, f"Question: {q}\nAnswer:")

    def target(self, tokenizer, item: Item, style: str) -> str:
        q = item.record["question"]
        solution = solution_text(item.record["answer"])
        # plain: the prompt ends at "Answer:", so the solution starts after a space
        answer = solution if style == "chat" else " " + solution
        return chat_target(tokenizer, style, SYSTEM_PROMPT, q, f"Question: {q}\nAnswer:", answer)

    def parse(self, item: Item, text: str) -> Gsm8kAnswer:
        # a plain-prompted model that keeps going writes the next "Question:"; its numbers are not the answer
        text = text.split("\nQuestion:")[0]
        return Gsm8kAnswer(extract_strict(text), extract_flexible(text))

    def score(self, item: Item, prediction: Gsm8kAnswer) -> dict[str, bool]:
        gold = reference_answer(item.record["answer"])
        return {"strict": same_number(prediction.strict, gold), "flexible": same_number(prediction.flexible, gold)}

    def show(self, item: Item, prediction) -> str:
        if prediction is None or prediction.flexible is None:
            return "(no number)"
        return f"#### {prediction.strict}" if prediction.strict is not None else f"(last number {prediction.flexible})"

    def question(self, item: Item) -> str:
        return item.record["question"]

    def reference(self, item: Item) -> str:
        return reference_answer(item.record["answer"])
