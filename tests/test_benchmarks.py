"""Benchmark adapters: GSM8K answer extraction and fixture, HumanEval through the sandbox, ARC, pass@k."""

from __future__ import annotations

import ast
import json
import re
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from shared import benchmarks
from shared.benchmarks import Item, arc, gsm8k, humaneval
from shared.benchmarks.stages import pass_at_k
from shared.models import tiny_tokenizer


@pytest.fixture(scope="module")
def tok():
    return tiny_tokenizer()


# -- registry --------------------------------------------------------------------------------

def test_no_benchmark_module_imports_the_trainers_lazily_or_not():
    """Benchmarks are data that `shared.train` builds on: an import back would close a cycle."""
    back = []
    for path in Path(benchmarks.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            back += [f"{path.name}:{node.lineno} {n}" for n in names if n == "shared.train" or
                     n.startswith("shared.train.") or (n == "shared" and any(a.name == "train" for a in node.names))]
    assert not back, back


def test_registry_names_every_adapter_and_refuses_unknown_ones():
    assert benchmarks.names() == ["arc", "gsm8k", "humaneval"]
    for name in benchmarks.names():
        adapter = benchmarks.get(name, source="offline")
        assert isinstance(adapter, benchmarks.Benchmark) and adapter.name == name and adapter.metrics
    with pytest.raises(ValueError, match="unknown benchmark 'mmlu'"):
        benchmarks.get("mmlu")
    with pytest.raises(ValueError, match="unknown GSM8K source"):
        benchmarks.get("gsm8k", source="fixture-typo")


def test_end_marker_is_what_every_target_ends_with(tok):
    assert benchmarks.end_marker(tok, "plain") == "<|endoftext|>"
    assert benchmarks.end_marker(tok, "chat") == "<|im_end|>\n"
    for name in ("gsm8k", "humaneval"):
        adapter = benchmarks.get(name, source="offline")
        item = adapter.load("test", 1)[0]
        for style in ("plain", "chat"):
            assert adapter.target(tok, item, style).endswith(benchmarks.end_marker(tok, style))


# -- GSM8K answer extraction -------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("#### 42", "42"),
    ("so in total...\n#### 1,234", "1234"),
    ("#### $1,234.50", "1234.5"),
    ("#### -7", "-7"),
    ("####-7", "-7"),
    ("#### $-5", "-5"),
    ("#### -$5", "-5"),
    ("#### 3.50", "3.5"),
    ("#### 42.", "42"),
    ("#### 0.0", "0"),
    ("#### 1,000,000 dollars", "1000000"),
    ("#### 5\n\n#### 6", "5"),  # the first: a model that goes on writes more problems after it
    ("#### forty-two", None),
    ("The answer is 42.", None),
    ("", None),
])
def test_strict_extraction_reads_the_number_right_after_the_marker(text, expected):
    assert gsm8k.extract_strict(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("It costs $1,234.50 in total.", "1234.5"),
    ("5 - 3 = 2", "2"),
    ("from 5-3", "3"),  # a hyphen between digits is not a minus sign
    ("It fell to -12 degrees", "-12"),
    ("a loss of -$800", "-800"),
    ("1,23", "23"),  # not a thousands group: two numbers
    ("12.5% of them", "12.5"),
    ("it costs 3.", "3"),
    ("version x2 and v1.5", None),  # digits glued to a word are not numbers
    ("no numbers here", None),
    ("2 apples, then 10,000 pears, then 7", "7"),
])
def test_flexible_extraction_takes_the_last_number(text, expected):
    assert gsm8k.extract_flexible(text) == expected


def test_numbers_compare_by_value_not_by_text():
    assert gsm8k.same_number("4.50", "4.5") and gsm8k.same_number("1000", "1000.0")
    assert not gsm8k.same_number("45", "4.5") and not gsm8k.same_number(None, "3")


def test_parse_and_score_strict_and_flexible_separately():
    adapter = gsm8k.Gsm8kBenchmark(source="offline")
    item = Item("x", {"question": "q", "answer": "2 + 3 = <<2+3=5>>5\n#### 5"})
    both = adapter.parse(item, " 2 + 3 = 5\n#### 5\nQuestion: Tom has 9 apples")
    assert both == ("5", "5") and adapter.score(item, both) == {"strict": True, "flexible": True}
    loose = adapter.parse(item, " 2 + 3 is 5 in all")
    assert loose.strict is None and adapter.score(item, loose) == {"strict": False, "flexible": True}
    wrong = adapter.parse(item, " #### 6")
    assert adapter.score(item, wrong) == {"strict": False, "flexible": False}


def test_solution_text_drops_calculator_annotations_and_keeps_the_final_line():
    answer = "She pays 6 * 0.75 = $<<6*0.75=4.5>>4.50.\n#### 4.5"
    assert gsm8k.solution_text(answer) == "She pays 6 * 0.75 = $4.50.\n#### 4.5"
    assert gsm8k.reference_answer(answer) == "4.5"
    with pytest.raises(ValueError, match="####"):
        gsm8k.reference_answer("no final line")


# -- GSM8K fixture and loading -----------------------------------------------------------------

def test_fixture_arithmetic_is_right():
    """Every calculator annotation computes what it claims, and the last one is the final answer."""
    rows = gsm8k.read_fixture()
    assert len(rows) >= 40 and len({r["question"] for r in rows}) == len(rows)
    for row in rows:
        notes = re.findall(r"<<([^=>]+)=([^>]+)>>", row["answer"])
        assert notes, row["question"]
        for expr, value in notes:
            assert re.fullmatch(r"[\d.+\-*/() ]+", expr)
            assert abs(eval(expr) - float(value)) < 1e-9, (row["question"], expr, value)  # digits and operators only
        assert Decimal(gsm8k.reference_answer(row["answer"])) == Decimal(notes[-1][1])


def test_offline_loading_reads_the_fixture_and_never_the_hub(monkeypatch):
    def no_hub(self, split):
        raise AssertionError("the hub was asked for while offline")

    monkeypatch.setattr(gsm8k.Gsm8kBenchmark, "_hub_rows", no_hub)
    for source in ("auto", "offline"):  # conftest marks the hub offline, so auto stays offline too
        adapter = gsm8k.Gsm8kBenchmark(source=source)
        train, test = adapter.load("train"), adapter.load("test")
        assert len(test) == gsm8k.FIXTURE_TEST and len(train) == len(gsm8k.read_fixture()) - gsm8k.FIXTURE_TEST
        assert "fixture" in adapter.loaded_from
        assert not {i.record["question"] for i in train} & {i.record["question"] for i in test}
    assert len(adapter.load("test", limit=3)) == 3
    with pytest.raises(ValueError, match="splits"):
        adapter.load("validation")


def test_auto_falls_back_to_the_fixture_when_the_hub_fails_and_hub_raises(monkeypatch):
    def unreachable(self, split):
        raise ConnectionError("no route to host")

    monkeypatch.setattr(gsm8k.Gsm8kBenchmark, "_hub_rows", unreachable)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    auto = gsm8k.Gsm8kBenchmark(source="auto")
    assert len(auto.load("test")) == gsm8k.FIXTURE_TEST and "hub not reachable" in auto.loaded_from
    with pytest.raises(ConnectionError):
        gsm8k.Gsm8kBenchmark(source="hub").load("test")


def test_hub_rows_become_items(monkeypatch):
    rows = [{"question": "1 + 1?", "answer": "1 + 1 = 2\n#### 2"}]
    monkeypatch.setattr(gsm8k.Gsm8kBenchmark, "_hub_rows", lambda self, split: rows)
    items = gsm8k.Gsm8kBenchmark(source="hub").load("train")
    assert [i.id for i in items] == ["gsm8k/train/0"] and items[0].record == rows[0]


def test_a_bad_fixture_line_is_named(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"question": "q", "answer": "5\n#### 5"}) + "\n" + json.dumps({"question": "q"}))
    with pytest.raises(ValueError, match=r"bad.jsonl:2: needs a string 'question' and a string 'answer'"):
        gsm8k.read_fixture(path)


def test_gsm8k_prompt_and_target_in_both_styles(tok):
    adapter = gsm8k.Gsm8kBenchmark(source="offline")
    item = adapter.load("train", 1)[0]
    plain = adapter.prompt(tok, item, "plain")
    assert plain.startswith("Question: ") and plain.endswith("\nAnswer:")
    target = adapter.target(tok, item, "plain")
    assert target.startswith(" ") and target.endswith("\n#### 14" + tok.eos_token) and "<<" not in target
    chat = adapter.prompt(tok, item, "chat")
    assert chat.startswith("<|im_start|>system\n") and chat.endswith("<|im_start|>assistant\n")
    assert adapter.target(tok, item, "chat").endswith("#### 14<|im_end|>\n")


# -- pass@k ----------------------------------------------------------------------------------

@pytest.mark.parametrize("n, c, k, expected", [
    (1, 1, 1, 1.0),
    (1, 0, 1, 0.0),
    (5, 1, 1, 1 / 5),
    (5, 2, 2, 1 - 3 / 10),      # 1 - C(3,2)/C(5,2)
    (10, 3, 5, 1 - 21 / 252),   # 1 - C(7,5)/C(10,5)
    (4, 2, 3, 1.0),             # n - c < k: every 3 of 4 holds a correct one
    (20, 0, 10, 0.0),
    (200, 1, 100, 0.5),         # 1 - C(199,100)/C(200,100) = 1 - 100/200
])
def test_pass_at_k_matches_hand_computed_values(n, c, k, expected):
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


def test_pass_at_k_is_stable_for_large_n_and_refuses_nonsense():
    assert 0.0 < pass_at_k(10_000, 3, 100) < 1.0
    for n, c, k in ((5, 6, 1), (5, 1, 0), (5, 1, 6), (3, -1, 1)):
        with pytest.raises(ValueError):
            pass_at_k(n, c, k)


# -- HumanEval -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def he():
    return humaneval.HumanEvalBenchmark(workers=2, time_limit_s=2.0)


@pytest.fixture(scope="module")
def he_items(he):
    return {i.id: i for i in he.load("test")}


def test_humaneval_ships_164_problems_offline_and_has_only_a_test_split(he, he_items):
    assert len(he_items) == 164 and "HumanEval/0" in he_items and "package" in he.loaded_from
    with pytest.raises(ValueError, match="only a test split"):
        he.load("train")


def test_canonical_solutions_pass_and_broken_ones_fail_in_the_sandbox(he, he_items):
    # HumanEval/84's entry point is called solve, like the sandbox's own entry point
    ids = ["HumanEval/0", "HumanEval/84", "HumanEval/0", "HumanEval/2", "HumanEval/2"]
    completions = [he_items["HumanEval/0"].record["canonical_solution"],
                   he_items["HumanEval/84"].record["canonical_solution"],
                   "    return False\n",                   # wrong answers: an assertion fails
                   "    while True:\n        pass\n",      # never returns: the time limit
                   "    import os\n    os.system('true')\n    return number % 1.0\n"]  # refused by the sandbox
    items = [he_items[i] for i in ids]
    programs = [he.parse(item, text) for item, text in zip(items, completions, strict=True)]
    verdicts = he.check_many(items, programs)
    assert [v.status for v in verdicts] == ["ok", "ok", "error", "timeout", "forbidden"]
    assert "AssertionError" in verdicts[2].detail
    assert he.score_many(items[:3], programs[:3]) == [{"passed": True}, {"passed": True}, {"passed": False}]


def test_a_completion_that_does_not_compile_fails_without_raising(he, he_items):
    item = he_items["HumanEval/0"]
    assert he.score(item, he.parse(item, "    return (((\n")) == {"passed": False}


def test_program_from_a_body_continuation_stops_at_the_next_top_level_statement():
    prompt = "def f(x):\n    \"\"\"Double x.\"\"\"\n"
    program = humaneval.program_from_completion(prompt, "f", "    return 2 * x\n\ndef g():\n    pass\n")
    assert program == prompt + "    return 2 * x\n"
    assert humaneval.program_from_completion(prompt, "f", "    return x<|im_end|>junk") == prompt + "    return x"


def test_program_from_a_fenced_whole_function_follows_the_prompt():
    prompt = "import math\n\n\ndef f(x):\n    \"\"\"Root.\"\"\"\n"
    reply = "Here it is:\n```python\ndef f(x):\n    return math.sqrt(x)\n```\nThat is all."
    program = humaneval.program_from_completion(prompt, "f", reply)
    assert program.startswith(prompt) and program.endswith("def f(x):\n    return math.sqrt(x)\n")
    namespace: dict = {}
    exec(compile(program, "test", "exec"), namespace)  # a fixed, known program: safe to run here
    assert namespace["f"](9) == 3


def test_humaneval_target_is_the_canonical_body_plain_and_a_code_block_chat(tok, he_items):
    adapter = humaneval.HumanEvalBenchmark()
    item = he_items["HumanEval/0"]
    assert adapter.prompt(tok, item, "plain") == item.record["prompt"]
    assert adapter.target(tok, item, "plain") == item.record["canonical_solution"] + tok.eos_token
    chat_target = adapter.target(tok, item, "chat")
    assert chat_target.startswith("```python\n") and chat_target.endswith("```<|im_end|>\n")
    program = adapter.parse(item, chat_target)
    assert adapter.score(item, program) == {"passed": True}


# -- ARC ---------------------------------------------------------------------------------------

def test_arc_items_are_test_inputs_grouped_by_task(task_folder):
    folder, write = task_folder
    data = {"train": [{"input": [[1]], "output": [[2]]}, {"input": [[3]], "output": [[4]]}],
            "test": [{"input": [[5]], "output": [[6]]}, {"input": [[7]], "output": [[8]]}]}
    write("two", data)
    write("one")
    adapter = arc.ArcBenchmark(eval_set=str(folder))
    items = adapter.load("test")
    assert [(i.id, i.group_id) for i in items] == [("one", "one"), ("two:0", "two"), ("two:1", "two")]
    two = items[2]
    assert adapter.score(two, adapter.parse(two, "8")) == {"exact": True}
    assert adapter.score(two, adapter.parse(two, "6")) == {"exact": False}
    assert adapter.score(two, adapter.parse(two, "8 8")) == {"exact": False}  # unparseable: None
    assert adapter.reference(two) == "8" and adapter.show(two, np.array([[8]])) == "8"


def test_arc_augmented_views_keep_their_answer(tok):
    adapter = arc.ArcBenchmark()
    item = adapter.load("test", 1)[0]
    views = adapter.augment(item, 4, seed=1)
    assert len(views) == 4 and adapter.prompt(tok, views[0], "plain") == adapter.prompt(tok, item, "plain")
    assert all(v.group_id == item.group_id for v in views)
    assert len({adapter.prompt(tok, v, "plain") for v in views}) == 4
