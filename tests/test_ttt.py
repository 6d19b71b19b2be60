"""Test-time training: a per-task adapter trains, then goes; the base weights never change."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("peft")

from transformers import TrainerControl  # noqa: E402

from shared.solvers.ttt import TTTSolver  # noqa: E402
from shared.tasks import Pair, Task  # noqa: E402
from shared.train.data import build_examples  # noqa: E402
from shared.train.ttt import StopAtDeadline, fresh_adapter, train_steps  # noqa: E402

g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731


def task(name: str, colour: int) -> Task:
    train = tuple(Pair(g([[colour, i]]), g([[i, colour]])) for i in range(1, 4))
    return Task(name, train, (Pair(g([[colour, 5]]), g([[5, colour]])),))


@pytest.fixture(scope="module")
def solver():
    return TTTSolver("tiny", steps=3, n_augment=2, max_new_tokens=8, device="cpu")


def snapshot(model) -> dict:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_base_weights_are_unchanged_and_every_task_starts_from_the_same_base(solver):
    base = snapshot(solver.model)
    first = solver.solve(task("a", 1)).trace["ttt"]
    assert len(first["losses"]) == 3 and first["examples"] == 3 * 2  # 3 demos left out in turn, 2 views each
    assert_same(snapshot(solver.model), base)
    assert not any("lora" in name for name, _ in solver.model.named_modules())
    assert "forward" not in vars(solver.model)  # trl's fused LM head is unpatched again, not stacked per task
    solver.solve(task("b", 2))
    assert_same(snapshot(solver.model), base)
    # the same task again trains exactly as the first time: no adapter or optimizer state carried over
    assert solver.solve(task("a", 1)).trace["ttt"]["losses"] == first["losses"]


def test_the_adapter_changes_the_model_only_inside(solver):
    ids = torch.tensor([[5, 6, 7, 8]])
    with torch.no_grad():
        before = solver.model(input_ids=ids).logits.clone()
    with fresh_adapter(solver.model, r=4) as peft_model:
        for name, p in peft_model.named_parameters():
            if "lora_B" in name:
                torch.nn.init.normal_(p)  # a trained adapter, in effect
        with torch.no_grad():
            inside = solver.model(input_ids=ids).logits
        assert not torch.allclose(inside, before)  # generation through the solver's model uses it
    with torch.no_grad():
        assert torch.equal(solver.model(input_ids=ids).logits, before)


def test_test_outputs_are_never_trained_on(solver):
    t = task("c", 3)
    info = solver.solve(t).trace["ttt"]
    assert info["examples"] == len(t.train) * 2  # the known test output adds no example


def test_a_single_demo_task_is_answered_without_training(solver):
    t = Task("one", (Pair(g([[1]]), g([[2]])),), (Pair(g([[1]])),))
    pred = solver.solve(t)
    assert "skipped" in pred.trace["ttt"] and len(pred.attempts) == 1


def test_the_deadline_stops_training_after_a_step_and_a_spent_one_trains_nothing(solver):
    control = TrainerControl()
    StopAtDeadline(None).on_step_end(None, None, control)
    StopAtDeadline(float("inf")).on_step_end(None, None, control)
    assert not control.should_training_stop
    StopAtDeadline(0.0).on_step_end(None, None, control)  # time.monotonic() is past 0 already
    assert control.should_training_stop
    tok = solver.inner.tokenizer
    examples = build_examples([task("d", 4)], tok, solver.inner.prompt_style, 2048, n_augment=1)
    with fresh_adapter(solver.model, r=solver.r) as peft_model:
        assert train_steps(peft_model, tok, examples, 3, 1e-3, 2, deadline=0.0) == []
        assert len(train_steps(peft_model, tok, examples, 3, 1e-3, 2, deadline=float("inf"))) == 3


def test_checkpointed_ttt_trains_the_same_and_runs_its_layers_checkpointed(solver, checkpoint_calls):
    calls = checkpoint_calls
    checkpointed = TTTSolver("tiny", steps=3, n_augment=2, max_new_tokens=8, device="cpu", gradient_checkpointing=True)
    base = snapshot(checkpointed.model)
    losses = checkpointed.solve(task("a", 1)).trace["ttt"]["losses"]
    assert calls and set(calls) == {False}  # the GPU profiles' memory: recomputed, non-reentrant
    assert losses == pytest.approx(solver.solve(task("a", 1)).trace["ttt"]["losses"], rel=1e-5)  # same maths
    assert_same(snapshot(checkpointed.model), base)
