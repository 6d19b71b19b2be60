"""Profiles: named sizes, auto-detection on this CPU machine, overrides, ensemble options."""

import pytest

from shared import config
from shared.solvers.ensemble import profile_options


def test_auto_on_a_cpu_machine_is_cpu():
    assert config.profile("auto").name == "cpu"


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
    assert opts["options"]["ttt"]["steps"] == config.profile("t4").ttt_steps > 0
    assert profile_options(config.profile("cpu")) == {"members": ["dsl"], "options": {}}
    no_ttt = profile_options(config.profile("t4", ttt_steps=0), model="tiny")
    assert no_ttt["members"] == ["dsl", "model"] and no_ttt["options"]["model"]["model"] == "tiny"
