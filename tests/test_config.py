"""Profiles: named sizes, auto-detection on stand-in hardware, overrides, ensemble options."""

import importlib.util

import pytest

from shared import config
from shared.solvers.ensemble import profile_options


def test_auto_without_torch_is_cpu(monkeypatch):
    real = importlib.util.find_spec
    if real("torch") is not None:  # were an installed torch asked, it would say GPU
        import torch

        monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    assert config.detect() == "cpu" and config.profile("auto") == config.profile("cpu")


def test_auto_with_torch_but_no_cuda_is_cpu(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert config.detect() == "cpu" and config.profile("auto") == config.profile("cpu")


@pytest.mark.parametrize(("device", "expected"), [
    ("Tesla T4", "t4"), ("NVIDIA L4", "t4"), ("Tesla V100-SXM2-16GB", "t4"),
    ("NVIDIA A100-SXM4-40GB", "a100"), ("NVIDIA A100 80GB PCIe", "a100"),
    ("NVIDIA H100 80GB HBM3", "h100"), ("NVIDIA H200", "h100"),
])
def test_auto_picks_the_profile_of_the_gpu_it_finds(monkeypatch, device, expected):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=0: device)
    assert config.detect() == expected
    assert config.profile("auto") == config.profile(expected) and config.profile("auto").name == expected


def test_unknown_profile_and_overrides():
    with pytest.raises(ValueError, match="unknown profile 'v100'"):
        config.profile("v100")
    assert config.profile("smoke", n_tasks=2).n_tasks == 2


def test_smoke_profile_is_small_and_offline():
    p = config.profile("smoke")
    assert p.model == "tiny" and not p.load_in_4bit and p.n_tasks <= 8


def test_profile_options_for_the_ensemble():
    opts = profile_options(config.profile("t4"))
    assert opts["members"] == ["dsl", "ttt"]  # t4 answers with test-time training
    assert not opts["options"]["ttt"]["load_in_4bit"] and opts["options"]["ttt"]["n_views"] == 8
    assert profile_options(config.profile("a100"))["options"]["ttt"]["load_in_4bit"]  # 7B in 4 bits
    # training takes one long example a step on a GPU, generation the views of a test input together
    t4 = config.profile("t4")
    assert opts["options"]["ttt"]["train_batch_size"] == t4.batch_size == 1
    assert opts["options"]["ttt"]["batch_size"] == t4.gen_batch == 8
    assert opts["options"]["ttt"]["gradient_checkpointing"]  # 4096-token examples fit a T4 no other way
    assert opts["options"]["ttt"]["steps"] == config.profile("t4").ttt_steps > 0
    assert profile_options(config.profile("cpu")) == {"members": ["dsl"], "options": {}}
    no_ttt = profile_options(config.profile("t4", ttt_steps=0), model="tiny")
    assert no_ttt["members"] == ["dsl", "model"] and no_ttt["options"]["model"]["model"] == "tiny"
