"""SFT on the tiny model: loss falls on a fixed batch, an interrupted run resumes, saves reload."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("peft")

from transformers import TrainerCallback  # noqa: E402

from shared.models import load_model, prompt_style  # noqa: E402
from shared.tasks import Pair, Task  # noqa: E402
from shared.train import data, sft  # noqa: E402

g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731


def flip_task() -> Task:
    train = tuple(Pair(g([[i, i + 1, 0]]), g([[0, i + 1, i]])) for i in range(1, 5))
    return Task("flip", train, ())


@pytest.fixture(scope="module")
def examples():
    _, tok = load_model("tiny", device="cpu")
    return data.build_examples([flip_task()], tok, "plain", max_len=512, n_augment=2)


def batch_loss(model, batch) -> float:
    device = next(model.parameters()).device  # the Trainer moves the model to a GPU when there is one
    with torch.no_grad():
        return float(model(**{k: v.to(device) for k, v in batch.items()}).loss)


def test_a_few_lora_steps_reduce_loss_on_a_fixed_batch(tmp_path, examples):
    model, tok = load_model("tiny", device="cpu")
    fixed = data.Examples(examples.items[:4])
    batch = data.collate(fixed.items, tok.pad_token_id)
    model = sft.add_lora(model)
    before = batch_loss(model, batch)
    result = sft.train(model, tok, fixed, tmp_path / "run", steps=8, batch_size=4, lr=1e-2, save_steps=100)
    after = batch_loss(model, batch)
    assert result.global_step == 8 and result.tokens == 8 * fixed.n_tokens
    assert after < before - 0.1, (before, after)
    steps, losses = sft.loss_curve(result.log_history)
    assert steps == list(range(1, 9)) and losses[-1] < losses[0]


class StopAt(TrainerCallback):
    """Simulates a Colab disconnect: training stops after `step` (its checkpoint already written)."""

    def __init__(self, step: int):
        self.step = step

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step >= self.step:
            control.should_training_stop = True


def lora_tiny():
    model, tok = load_model("tiny", device="cpu")
    return sft.add_lora(model), tok


def test_an_interrupted_run_resumes_from_its_latest_checkpoint(tmp_path, examples):
    n = 3
    common = dict(steps=2 * n, batch_size=2, lr=1e-2, save_steps=n, seed=0)
    model, tok = lora_tiny()
    whole = sft.train(model, tok, examples, tmp_path / "whole", **common)

    model, tok = lora_tiny()
    cut = sft.train(model, tok, examples, tmp_path / "cut", callbacks=[StopAt(n)], **common)
    assert cut.global_step == n and sft.latest_checkpoint(tmp_path / "cut").endswith(f"checkpoint-{n}")

    model, tok = lora_tiny()  # a fresh process after the disconnect: base weights, no adapter state
    resumed = sft.train(model, tok, examples, tmp_path / "cut", **common)
    assert resumed.resumed_from.endswith(f"checkpoint-{n}")
    assert resumed.global_step == 2 * n
    assert resumed.tokens < whole.tokens  # only the second half was trained in this call
    steps, losses = sft.loss_curve(resumed.log_history)
    assert steps == list(range(1, 2 * n + 1))  # steps 1..n from the checkpoint's history, no repeat
    # same data order, optimizer and RNG: the continuation matches the uninterrupted run
    assert np.allclose(losses, sft.loss_curve(whole.log_history)[1], atol=1e-4)

    again = sft.train(model, tok, examples, tmp_path / "cut", **common)  # a finished run does nothing new
    assert again.global_step == 2 * n and again.tokens == 0


def test_saved_model_merges_the_adapter_and_keeps_the_prompt_style(tmp_path, examples):
    model, tok = lora_tiny()
    sft.train(model, tok, examples, tmp_path / "run", steps=2, batch_size=2, lr=1e-2)
    batch = data.collate(examples.items[:2], tok.pad_token_id)
    want = batch_loss(model, batch)
    folder = sft.save_model(model, tok, tmp_path / "merged", style="plain")
    back, back_tok = load_model(str(folder), device="cpu")
    assert prompt_style(back, back_tok) == "plain"
    assert not any("lora" in k for k in back.state_dict())
    assert batch_loss(back, batch) == pytest.approx(want, abs=1e-4)
