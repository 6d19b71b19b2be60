"""The model solver: prompts, two attempts (as given, transposed), parse flags and skips."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
pytest.importorskip("torch")
pytest.importorskip("transformers")

import shared.models  # noqa: E402
from shared.solvers import make_solver  # noqa: E402
from shared.solvers.model import ATTEMPTS  # noqa: E402
from shared.tasks import Pair, Task, strip_test_outputs  # noqa: E402

g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731


def hand_task() -> Task:
    train = (Pair(g([[1, 2], [3, 4]]), g([[1, 3], [2, 4]])), Pair(g([[5, 6, 7]]), g([[5], [6], [7]])))
    test = (Pair(g([[8, 9], [0, 1]])), Pair(g([[2, 3, 4]])))
    return Task("hand", train, test)


@pytest.fixture(scope="module")
def solver():
    return make_solver("model", model="tiny", max_new_tokens=16, device="cpu")


def test_tiny_solver_returns_a_prediction_of_the_right_shape(solver):
    pred = solver.solve(hand_task(), budget_s=60)
    assert len(pred.attempts) == 2 and all(len(c) <= 2 for c in pred.attempts)
    trace = pred.trace
    assert trace["prompt_style"] == "plain" and trace["model"] == "tiny"
    assert len(trace["parsed"]) == 2 and all(len(p) == 2 for p in trace["parsed"])
    assert all(isinstance(flag, bool) for p in trace["parsed"] for flag in p)
    for i, entries in enumerate(trace["generations"]):
        assert [e["source"] for e in entries] == [a.id for a in ATTEMPTS]
        assert sum(trace["parsed"][i]) >= len(pred.attempts[i])  # every candidate came from a parse
        assert all(e["skipped"] is None and e["prompt_tokens"] > 0 for e in entries)
    json.dumps(trace)  # reports store it


def test_model_loads_once_per_process(solver):
    again = make_solver("model", model="tiny", max_new_tokens=8, device="cpu")
    assert again.model is solver.model


def test_transposed_attempt_is_mapped_back(solver, monkeypatch):
    calls = []

    def fake_generate(model, tokenizer, prompt, max_new_tokens, max_time=None):
        calls.append(prompt)
        return "12\n34<|im_end|>"  # the same text for both attempts

    monkeypatch.setattr(shared.models, "greedy_generate", fake_generate)
    pred = solver.solve(strip_test_outputs(hand_task()), budget_s=None)
    assert len(calls) == 4
    assert "input:\n80\n91\noutput:\n" in calls[1]  # the second prompt shows the transposed test input
    for cands in pred.attempts:
        assert [c.tolist() for c in cands] == [[[1, 2], [3, 4]], [[1, 3], [2, 4]]]
    assert pred.trace["parsed"] == [[True, True], [True, True]]
    assert pred.trace["sources"][0] == [[ATTEMPTS[0].id], [ATTEMPTS[1].id]]


def test_identical_answers_merge_and_garbage_gives_no_candidate(solver, monkeypatch):
    answers = iter(["55\n55", "55\n55", "I think the answer is 7", "1\n22"])
    monkeypatch.setattr(shared.models, "greedy_generate", lambda *a, **k: next(answers))
    pred = solver.solve(hand_task(), budget_s=None)
    assert [c.tolist() for c in pred.attempts[0]] == [[[5, 5], [5, 5]]]
    assert pred.trace["sources"][0] == [[a.id for a in ATTEMPTS]]
    assert pred.attempts[1] == [] and pred.trace["parsed"][1] == [False, False]
    assert pred.trace["generations"][1][0]["text"] == "I think the answer is 7"


def test_prompt_over_the_context_is_skipped_not_run(monkeypatch):
    small = make_solver("model", model="tiny", max_new_tokens=8, device="cpu", max_prompt_tokens=20)
    monkeypatch.setattr(shared.models, "greedy_generate", lambda *a, **k: pytest.fail("generated anyway"))
    pred = small.solve(hand_task(), budget_s=10)
    assert pred.attempts == [[], []]
    entries = [e for row in pred.trace["generations"] for e in row]
    assert all("over the limit" in e["skipped"] and not e["parsed"] for e in entries)


def test_spent_budget_skips_generation(solver, monkeypatch):
    monkeypatch.setattr(shared.models, "greedy_generate", lambda *a, **k: pytest.fail("generated anyway"))
    pred = solver.solve(hand_task(), budget_s=0)
    assert all(e["skipped"] == "budget spent" for row in pred.trace["generations"] for e in row)
