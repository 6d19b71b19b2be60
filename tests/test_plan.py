"""The GPU profiles' arithmetic: each fits the GPU it is picked for, and each notebook's default
run ends within about an hour there (shared.plan; the speeds are its stated assumptions)."""

import pytest

from shared import build, config, plan

GPU_PROFILES = [name for name, p in config.PROFILES.items() if p.gpu]
NOTEBOOKS = sorted({b.stem for b, _, _ in build.targets()} - {"kaggle_submission"})  # Kaggle: its own deadline
MARGIN = 0.10  # a tenth of the card left free: other tensors, a longer batch than the mean


def test_there_are_gpu_profiles_and_every_notebook_has_a_plan():
    assert set(GPU_PROFILES) == {"t4", "a100", "h100"}
    assert "02_sft" in NOTEBOOKS and len(NOTEBOOKS) == 10
    for name in NOTEBOOKS:
        assert plan.notebook(name, config.profile("smoke")).stages


@pytest.mark.parametrize("name", GPU_PROFILES)
def test_training_fits_the_gpu_with_a_margin_and_needs_checkpointing_to(name):
    p = config.profile(name)
    gpu = plan.GPUS[p.gpu].memory_gb * plan.GB
    mem = plan.train_memory(p)
    assert mem["total"] <= (1 - MARGIN) * gpu, {k: round(v / plan.GB, 2) for k, v in mem.items()}
    assert p.gradient_checkpointing
    # the same profile without checkpointing would not fit: the flag is there because it must be
    assert plan.train_memory(p, checkpointing=False)["total"] > (1 - MARGIN) * gpu
    assert plan.generate_memory(p) <= (1 - MARGIN) * gpu
    # one more example per device step would overflow the logits budget on the smallest card
    if name == "t4":
        assert plan.train_memory(config.profile(name, batch_size=2))["total"] > (1 - MARGIN) * gpu


def test_memory_parts_follow_the_shapes():
    p = config.profile("t4")
    mem = plan.train_memory(p)
    # 4096 tokens x 151,936 entries x 14 bytes
    assert mem["logits"] == pytest.approx(4096 * 151936 * 14)
    assert mem["weights"] == pytest.approx(0.494e9 * 2)
    four_bit = plan.train_memory(config.profile("t4", load_in_4bit=True))
    assert four_bit["weights"] < mem["weights"] / 2
    assert plan.shape_of("Qwen/Qwen2.5-7B-Instruct").lora_params(16) == pytest.approx(40.4e6, rel=0.01)
    with pytest.raises(ValueError, match="no shape known for 'org/unknown'"):
        plan.shape_of("org/unknown")


@pytest.mark.parametrize("name", GPU_PROFILES)
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_each_notebook_default_run_ends_within_about_an_hour(name, notebook):
    p = config.profile(name)
    pl = plan.notebook(notebook, p)
    assert 0 < pl.total_s <= 1.1 * 3600, [(s.name, plan.duration(s.seconds)) for s in pl.stages]


def test_plan_prints_its_stages_and_total(capsys):
    pl = plan.notebook("02_sft", config.profile("t4"))
    pl.show()
    pl.announce("fine-tune")
    out = capsys.readouterr().out
    assert "plan of 02_sft on profile t4" in out and "total (estimate)" in out
    assert "fine-tune: 300 steps x 8 examples" in out and "T4 16 GB" in out
    assert plan.duration(59) == "59s" and plan.duration(3725) == "1h02m"


def test_defaults_are_what_the_plan_uses():
    p = config.profile("a100")
    assert plan.notebook("03_distill", p).stages[0].detail.startswith(f"{p.train_steps // 2} steps")
    assert plan.notebook("02_sft", p, steps=7).stages[1].detail.startswith("7 steps")
