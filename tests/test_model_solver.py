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


def fake_generate(texts_for):
    """A stand-in for the model: texts_for(prompt) -> answer text; records every prompt."""
    calls = []

    def generate(prompts, max_new_tokens, max_time):
        calls.extend(prompts)
        return [[texts_for(p)] for p in prompts]

    return generate, calls


def test_transposed_attempt_is_mapped_back(solver, monkeypatch):
    generate, calls = fake_generate(lambda p: "12\n34<|im_end|>")  # the same text for both views
    monkeypatch.setattr(solver, "_generate", generate)
    monkeypatch.setattr(solver, "_score", lambda pairs: [0.0] * len(pairs))
    pred = solver.solve(strip_test_outputs(hand_task()), budget_s=None)
    assert len(calls) == 4
    assert "input:\n80\n91\noutput:\n" in calls[1]  # the second prompt shows the transposed test input
    for cands in pred.attempts:
        assert [c.tolist() for c in cands] == [[[1, 2], [3, 4]], [[1, 3], [2, 4]]]
    assert pred.trace["parsed"] == [[True, True], [True, True]]
    assert pred.trace["sources"][0] == [[ATTEMPTS[0].id], [ATTEMPTS[1].id]]


def test_identical_answers_merge_and_garbage_gives_no_candidate(solver, monkeypatch):
    answers = iter(["55\n55", "55\n55", "I think the answer is 7", "1\n22"])
    generate, _ = fake_generate(lambda p: next(answers))
    monkeypatch.setattr(solver, "_generate", generate)
    pred = solver.solve(hand_task(), budget_s=None)
    assert [c.tolist() for c in pred.attempts[0]] == [[[5, 5], [5, 5]]]
    assert pred.trace["sources"][0] == [[a.id for a in ATTEMPTS]]
    assert pred.attempts[1] == [] and pred.trace["parsed"][1] == [False, False]
    assert pred.trace["generations"][1][0]["text"] == "I think the answer is 7"


def test_prompt_over_the_context_is_skipped_not_run(monkeypatch):
    small = make_solver("model", model="tiny", max_new_tokens=8, device="cpu", max_prompt_tokens=20)
    monkeypatch.setattr(small, "_generate", lambda *a: pytest.fail("generated anyway"))
    pred = small.solve(hand_task(), budget_s=10)
    assert pred.attempts == [[], []]
    entries = [e for row in pred.trace["generations"] for e in row]
    assert all("over the limit" in e["skipped"] and not e["parsed"] for e in entries)


def test_spent_budget_skips_generation(solver, monkeypatch):
    monkeypatch.setattr(solver, "_generate", lambda *a: pytest.fail("generated anyway"))
    pred = solver.solve(hand_task(), budget_s=0)
    assert all(e["skipped"] == "budget spent" for row in pred.trace["generations"] for e in row)


def test_augmentations_round_trip_inside_the_solver(monkeypatch):
    """A model that copies the test input it is shown: under every view (rotation, colours, demo
    order) the answer mapped back must be the original test input, so all views agree."""
    from shared.formats import parse_grid

    echo = make_solver("model", model="tiny", max_new_tokens=16, device="cpu", n_views=8, seed=3)
    last_input = lambda p: p.rsplit("input:\n", 1)[1].split("\noutput:")[0]  # noqa: E731
    generate, calls = fake_generate(last_input)
    monkeypatch.setattr(echo, "_generate", generate)
    monkeypatch.setattr(echo, "_score", lambda pairs: [0.0] * len(pairs))
    task = hand_task()
    pred = echo.solve(task, budget_s=None)
    views = pred.trace["views"]
    assert len(views) == 8 and len({v.split(".")[0] for v in views}) == 8  # all 8 dihedral elements
    shown = {parse_grid(last_input(p)).tobytes() for p in calls[:8]}
    assert len(shown) > 1  # the model really saw transformed inputs
    for i, p in enumerate(task.test):
        assert [c.tolist() for c in pred.attempts[i]] == [p.input.tolist()]
        assert pred.trace["candidates"][i][0]["votes"] == 8


def test_product_of_experts_ranks_the_known_answer_first(solver, monkeypatch):
    """Three views: two vote for a wrong grid, one for the right one; the log-likelihoods say the
    right one is far likelier under every view. PoE must rank it first; votes would not."""
    from shared.solvers.model import Candidate, rank_candidates

    right, wrong = g([[1, 3], [2, 4]]), g([[9, 9], [9, 9]])
    cands = [Candidate(wrong, ["a", "b"], poe=-30.0), Candidate(right, ["c"], poe=-3.0)]
    assert rank_candidates(cands, "poe")[0].grid is right
    assert rank_candidates(cands, "votes")[0].grid is wrong
    # end to end: the scorer sees the candidate written in each view's frame
    texts = iter(["99\n99", "99\n99", "13\n24"])
    generate, _ = fake_generate(lambda p: next(texts))
    scored = []

    def score(pairs):
        scored.extend(pairs)
        return [-1.0 if c.startswith("13\n24") or c.startswith("12\n34") else -10.0 for _, c in pairs]

    three = make_solver("model", model="tiny", max_new_tokens=16, device="cpu", n_views=3, seed=0)
    monkeypatch.setattr(three, "views", lambda task: [ATTEMPTS[0], ATTEMPTS[0], ATTEMPTS[0]])
    monkeypatch.setattr(three, "_generate", generate)
    monkeypatch.setattr(three, "_score", score)
    task = Task("one", hand_task().train, hand_task().test[:1])
    pred = three.solve(task, budget_s=None)
    assert [c.tolist() for c in pred.attempts[0]] == [right.tolist(), wrong.tolist()]
    assert len(scored) == 2 * 3  # every candidate under every view
    assert pred.trace["candidates"][0][0]["poe"] == -3.0 and pred.trace["candidates"][0][1]["votes"] == 2


def test_unknown_ranking_is_refused():
    with pytest.raises(ValueError, match="unknown ranking"):
        make_solver("model", model="tiny", device="cpu", ranking="best")


def test_depth_first_search_finds_exactly_the_completions_over_the_threshold():
    """Against a slow, independent enumeration: every stop-terminated completion of at most 3
    tokens whose probability (full forward passes, no cache) is at least the threshold."""
    import torch

    from shared.decoding import _stop_ids, dfs_sample

    model, tok = shared.models.load_model("tiny", device="cpu")
    peaked = type(model)(model.config)
    peaked.load_state_dict(model.state_dict())
    with torch.no_grad():
        peaked.lm_head.weight.mul_(3.0)  # a sharper distribution, so a handful of branches pass
    peaked.eval()
    # a newline ends an answer here, so short completions exist at this model's likeliest token
    peaked.generation_config.eos_token_id = [tok.convert_tokens_to_ids("\n"), *model.generation_config.eos_token_id]
    prompt, min_prob = "input:\n12\noutput:\n", 0.0002
    found = dfs_sample(peaked, tok, prompt, 3, min_prob, max_results=1000)

    stops = _stop_ids(peaked, tok)
    base = tok(prompt, add_special_tokens=False)["input_ids"]

    def logprobs(prefix):
        with torch.no_grad():
            return torch.log_softmax(peaked(input_ids=torch.tensor([base + prefix])).logits[0, -1].float(), -1)

    expected = []
    frontier = [([], 0.0)]
    for _ in range(4):  # up to 3 answer tokens, then the stop token
        nxt = []
        for prefix, lp in frontier:
            step = logprobs(prefix)
            for t in torch.nonzero(step + lp >= torch.log(torch.tensor(min_prob))).flatten().tolist():
                total = lp + float(step[t])
                if t in stops:
                    expected.append((tok.decode(prefix, skip_special_tokens=True), total))
                elif len(prefix) < 3:
                    nxt.append((prefix + [t], total))
        frontier = nxt
    rounded = lambda pairs: sorted((text, round(lp, 3)) for text, lp in pairs)  # noqa: E731
    assert rounded(found) == rounded(expected)
    assert len({text for text, _ in found}) >= 3  # real branching, not just the stop tokens
    assert [lp for _, lp in found] == sorted((lp for _, lp in found), reverse=True)


def test_batched_generation_respects_one_deadline_for_the_whole_call(monkeypatch):
    """max_time bounds the call, not each batch: once it has passed, later batches are not run."""
    import time

    from shared.decoding import generate_batch

    model, tok = shared.models.load_model("tiny", device="cpu")
    real, calls = model.generate, []

    def slow_generate(**kw):
        calls.append(kw["max_time"])
        time.sleep(0.2)  # each batch outlasts the whole call's allowance
        return real(**kw)

    monkeypatch.setattr(model, "generate", slow_generate)
    texts = generate_batch(model, tok, ["input:\n1\noutput:\n"] * 4, max_new_tokens=4, max_time=0.1, batch_size=1)
    assert len(texts) == 4 and texts[1:] == ["", "", ""]
    assert len(calls) == 1 and 0 < calls[0] <= 0.1  # the batch got what was left, not a fresh allowance
