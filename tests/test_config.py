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
    assert opts["members"] == ["dsl", "model"]
    assert opts["options"]["model"]["load_in_4bit"] and opts["options"]["model"]["n_views"] == 8
    assert profile_options(config.profile("cpu")) == {"members": ["dsl"], "options": {}}
    assert profile_options(config.profile("t4"), model="tiny")["options"]["model"]["model"] == "tiny"
