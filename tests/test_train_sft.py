"""SFT on the tiny model through trl: answer-only loss, loss falls, a run resumes, progress prints, saves reload."""

from __future__ import annotations

import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("peft")

from transformers import TrainerCallback, TrainerState  # noqa: E402

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


def test_trls_collator_masks_exactly_the_prompt_and_the_padding(tmp_path, examples):
    model, tok = lora_tiny()
    by_len = sorted(range(len(examples)), key=lambda i: len(examples[i]["input_ids"]))
    picked = data.Examples([examples[by_len[0]], examples[by_len[-1]]])
    assert len(picked[0]["input_ids"]) < len(picked[1]["input_ids"])  # the short one gets padding
    trainer = sft.build_trainer(model, tok, picked, sft.sft_config(tmp_path, 1, 2, 1e-3, save=False))
    batch = trainer.data_collator([trainer.train_dataset[i] for i in range(2)])
    for row, ex in enumerate(picked):
        n, n_prompt = len(ex["input_ids"]), ex["completion_mask"].index(1)
        assert batch["input_ids"][row, :n].tolist() == ex["input_ids"]
        labels = batch["labels"][row].tolist()
        assert labels[:n_prompt] == [data.IGNORE] * n_prompt  # prompt: no loss
        assert labels[n_prompt:n] == ex["input_ids"][n_prompt:]  # answer and eos: loss
        assert labels[n:] == [data.IGNORE] * (batch["labels"].shape[1] - n)  # padding: no loss
    assert batch["labels"].tolist() == data.collate(list(picked), tok.pad_token_id)["labels"].tolist()
    # the trainer's loss (trl's fused head) is the mean over those answer tokens, as the model computes it
    with torch.no_grad():
        trainer_loss = float(trainer.compute_loss(model, dict(batch)))
        assert trainer_loss == pytest.approx(float(model(**batch).loss), rel=1e-4)


def test_progress_prints_a_line_every_n_steps(tmp_path, examples, capsys):
    model, tok = lora_tiny()
    sft.train(model, tok, examples, tmp_path / "run", steps=4, batch_size=2, lr=1e-2, save_steps=100, log_every=2)
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("step ")]
    assert [x.split(" · ")[0] for x in lines] == ["step 2/4", "step 4/4"]
    assert all(re.fullmatch(r"step \d/4 · loss \d+\.\d{3} · [\d,]+ tokens/s · eta \d+s", x) for x in lines), lines
    assert lines[-1].endswith("eta 0s")


@pytest.mark.parametrize("steps, every", [(4, 1), (20, 1), (500, 25), (10_000, 500)])
def test_progress_prints_about_twenty_lines_by_default(steps, every):
    progress = sft.Progress()
    progress.on_train_begin(None, TrainerState(max_steps=steps), None)
    assert progress.every == every


@pytest.mark.parametrize("in_add_lora, in_train", [(False, True), (True, False)])
def test_gradient_checkpointing_runs_the_layers_checkpointed_and_the_adapter_learns(tmp_path, examples,
                                                                                    checkpoint_calls, in_add_lora,
                                                                                    in_train):
    calls = checkpoint_calls
    model, tok = load_model("tiny", device="cpu")
    model = sft.add_lora(model, gradient_checkpointing=in_add_lora)
    sft.train(model, tok, examples, tmp_path / "run", steps=2, batch_size=2, lr=1e-2, save_steps=100,
              gradient_checkpointing=in_train)
    assert model.get_base_model().is_activation_checkpointing
    assert calls and set(calls) == {False}  # every decoder layer, non-reentrant
    lora_b = [p for name, p in model.named_parameters() if "lora_B" in name]
    assert lora_b and all(p.abs().sum() > 0 for p in lora_b)  # B starts at zero: gradients reached it


def test_gradient_accumulation_matches_the_bigger_batch(tmp_path, examples):
    def lora_after_one_step(batch_size, grad_accum):
        model, tok = lora_tiny()
        sft.train(model, tok, examples, tmp_path / f"b{batch_size}x{grad_accum}", steps=1, batch_size=batch_size,
                  lr=1e-2, save_steps=100, grad_accum=grad_accum, warmup_steps=0)
        return {k: v.detach().clone() for k, v in model.state_dict().items() if "lora" in k}

    whole, accumulated, alone = lora_after_one_step(2, 1), lora_after_one_step(1, 2), lora_after_one_step(1, 1)
    # the loss is normalised by the answer tokens of the whole step, so two micro-batches of one
    # example give the update of one batch of two (the sampler draws the same order)
    assert all(torch.allclose(whole[k], accumulated[k], atol=1e-6) for k in whole)
    assert not all(torch.allclose(whole[k], alone[k], atol=1e-6) for k in whole)
