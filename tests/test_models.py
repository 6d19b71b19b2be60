"""The model factory: tiny tokenizer and model, save/load round trip, device and config helpers."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from shared import models  # noqa: E402
from shared.formats import build_prompt, grid_to_text  # noqa: E402
from shared.tasks import Pair, Task  # noqa: E402


@pytest.fixture(scope="module")
def tiny():
    return models.load_model("tiny", device="cpu")


def small_task() -> Task:
    g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731
    return Task("hand", (Pair(g([[1, 2], [3, 4]]), g([[4, 3], [2, 1]])),), (Pair(g([[5, 6], [7, 8]])),))


def test_every_cell_is_one_token(tiny):
    _, tok = tiny
    rng = np.random.default_rng(0)
    grid = rng.integers(0, 10, size=(7, 5), dtype=np.uint8)
    ids = tok(grid_to_text(grid), add_special_tokens=False)["input_ids"]
    assert len(ids) == 7 * 5 + 6  # cells plus the row separators
    digit_ids = {tok.convert_tokens_to_ids(str(d)) for d in range(10)}
    assert len(digit_ids) == 10 and tok.unk_token_id not in digit_ids


def test_tiny_tokenizer_round_trips_text_and_specials(tiny):
    _, tok = tiny
    text = "<|im_start|>user\ninput:\n01\n23<|im_end|>\n"
    ids = tok(text, add_special_tokens=False)["input_ids"]
    assert tok.convert_ids_to_tokens(ids[0]) == "<|im_start|>"
    assert tok.decode(ids) == text
    assert tok.decode(ids, skip_special_tokens=True) == "user\ninput:\n01\n23\n"


def test_chat_prompt_through_the_tiny_template_contains_the_grids(tiny):
    _, tok = tiny
    prompt = build_prompt(tok, small_task(), 0, "chat")
    assert prompt.startswith("<|im_start|>system\n") and prompt.endswith("<|im_start|>assistant\n")
    for grid_text in ("12\n34", "43\n21", "56\n78"):
        assert grid_text in prompt
    assert tok.unk_token_id not in tok(prompt, add_special_tokens=False)["input_ids"]


def test_tiny_is_deterministic_small_and_plain(tiny):
    model, tok = tiny
    again, _ = models.load_model("tiny", device="cpu")
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), again.state_dict().values(),
                                                  strict=True))
    assert sum(p.numel() for p in model.parameters()) < 200_000
    assert models.prompt_style(model, tok) == "plain"
    assert models.context_length(model) == models.TINY_CONTEXT


def test_save_and_reload_give_identical_logits_and_tokens(tiny, tmp_path):
    model, tok = tiny
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    model2, tok2 = models.load_model(str(tmp_path), device="cpu")
    prompt = build_prompt(tok, small_task(), 0, "plain")
    ids = tok(prompt, return_tensors="pt", add_special_tokens=False)["input_ids"]
    assert tok2(prompt, add_special_tokens=False)["input_ids"] == ids[0].tolist()
    assert tok2.chat_template == tok.chat_template
    with torch.no_grad():
        assert torch.equal(model(ids).logits, model2(ids).logits)
    assert models.prompt_style(model2, tok2) == "plain"
    assert model2.generation_config.eos_token_id == model.generation_config.eos_token_id


def test_greedy_generate_respects_max_new_tokens(tiny):
    model, tok = tiny
    prompt = build_prompt(tok, small_task(), 0, "plain")
    text = models.greedy_generate(model, tok, prompt, max_new_tokens=12)
    assert len(tok(text, add_special_tokens=False)["input_ids"]) <= 12
    ids = tok(prompt, return_tensors="pt", add_special_tokens=False)["input_ids"]
    n_prompt = ids.shape[1]
    with torch.no_grad():  # greedy by hand: the most likely next token, 12 times or until eos
        for _ in range(12):
            nxt = model(ids).logits[0, -1].argmax().view(1, 1)
            ids = torch.cat([ids, nxt], 1)
            if nxt.item() == tok.eos_token_id:
                break
    assert text == tok.decode(ids[0, n_prompt:], skip_special_tokens=True)  # the new text only, not the prompt


def test_prompt_style_follows_the_template_when_the_config_is_silent(tiny):
    model, tok = tiny

    class Bare:
        config = type("Cfg", (), {})()

    assert models.prompt_style(Bare(), tok) == "chat"
    assert models.prompt_style(Bare(), type("NoTemplate", (), {"chat_template": None})()) == "plain"


def test_device_follows_the_hardware_found_and_cpu_computes_in_fp32(monkeypatch):
    assert models.pick_dtype("cpu") == torch.float32
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert models.pick_device() == "cpu"
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert models.pick_device() == "mps"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert models.pick_device() == "cuda"  # a GPU wins over Apple silicon


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only refusal")
def test_qlora_config_refuses_without_cuda():
    with pytest.raises(RuntimeError, match="CUDA"):
        models.qlora_config()
    with pytest.raises(ValueError, match="4 bits"):
        models.load_model("tiny", device="cpu", load_in_4bit=True)


def test_lora_config_wraps_the_tiny_model():
    peft = pytest.importorskip("peft")
    model, _ = models.load_model("tiny", device="cpu")
    wrapped = peft.get_peft_model(model, models.lora_config(r=4, alpha=8))
    trainable = sum(p.numel() for p in wrapped.parameters() if p.requires_grad)
    assert 0 < trainable < sum(p.numel() for p in wrapped.parameters())
    assert {"q_proj", "down_proj"} <= set(wrapped.peft_config["default"].target_modules)
