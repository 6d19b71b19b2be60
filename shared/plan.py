"""What a notebook's default run costs on its profile's hardware: memory and time, before it starts.

The arithmetic behind the GPU profiles' sizes (`shared.config`): memory of LoRA training
(weights, adapter and its Adam state, activations with and without gradient checkpointing,
logits) and of generation, and a time estimate per stage (training steps, tasks answered by
the model solver, prompts generated). The throughputs are stated assumptions, not
measurements of this machine; `python -m shared gpu-check` and `throughput` measure real ones.
Notebooks print their plan before the long cells; tests check that each profile fits its GPU
and that each notebook's default run ends within about an hour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

GB = 1e9


@dataclass(frozen=True)
class ModelShape:
    """The sizes that set memory and speed, from the model's config.json."""

    params: float
    hidden: int
    layers: int
    intermediate: int
    kv_dim: int  # key/value heads x head size
    vocab: int
    tied: bool  # embedding and output head share one matrix

    @property
    def embedding_params(self) -> float:
        return self.vocab * self.hidden * (1 if self.tied else 2)

    def lora_params(self, r: int) -> float:
        """A rank-r adapter on q, k, v, o, gate, up and down of every layer (shared.models.LORA_TARGETS)."""
        h, i, kv = self.hidden, self.intermediate, self.kv_dim
        per_layer = r * ((h + h) + 2 * (h + kv) + (h + h) + 2 * (h + i) + (i + h))
        return per_layer * self.layers


SHAPES = {
    "Qwen/Qwen2.5-0.5B-Instruct": ModelShape(0.494e9, 896, 24, 4864, 2 * 64, 151936, True),
    "Qwen/Qwen2.5-7B-Instruct": ModelShape(7.62e9, 3584, 28, 18944, 4 * 128, 152064, False),
    # the offline random model (shared.models.tiny_model): 2 layers, 64 wide, 101 tokens
    "tiny": ModelShape(8.0e4, 64, 2, 128, 32, 101, True),
}


@dataclass(frozen=True)
class GPU:
    name: str
    memory_gb: float  # what one process can allocate: the card less the CUDA context
    train_tflops: float  # effective half-precision throughput in LoRA training (~20-25% of peak)
    bandwidth_gbs: float  # memory bandwidth: a decoding step reads every weight once


GPUS = {
    "T4": GPU("T4 16 GB", 14.5, 65 * 0.2, 300),
    "A100-40": GPU("A100 40 GB", 39.0, 312 * 0.25, 1555),
    "H100-80": GPU("H100 80 GB", 79.0, 990 * 0.25, 3350),
}

# Assumptions of the time model, each with its reason.
LAYER_STEP_S = 1.0e-3  # HF generate launches ~20 small kernels per layer per token: ~1 ms of overhead
FOUR_BIT_SLOWDOWN = 1.8  # bitsandbytes dequantizes every weight at every step (decode) ...
FOUR_BIT_TRAIN_SLOWDOWN = 1.3  # ... and in every matmul of training
SCORING_SHARE = 0.2  # the model solver scores its candidates under every view after generating
HUB_EXAMPLE_TOKENS = 1650  # mean leave-one-out example kept at 4096 tokens, Qwen tokenizer (p90 ~3.4k)
TINY_EXAMPLE_TOKENS = 1250  # the same with the one-token-per-character tiny tokenizer (measured)
PROMPT_TOKENS = 1500  # a typical ARC prompt: demos and test input
CPU_TRAIN_TOKENS_S = 750  # the tiny model on one busy CPU core (python -m shared throughput --profile smoke)
CPU_DECODE_STEP_S = 0.05  # the same: 20 tokens/s
ARC3_ACTIONS_PER_S = 2000  # ARC-AGI-3 offline toolkit steps: 3,000 (explorer) to 6,000 (random) measured
LOGIT_BYTES = 14  # per vocabulary entry and token: bf16 logits, the fp32 copy, log-softmax, its gradient
ACTIVATION_FUDGE = 1.5  # norms, rotary, dropout-free temporaries the element count below leaves out
CUDA_OVERHEAD_GB = 1.0  # cuBLAS workspaces, kernels, the allocator's first blocks
FRAGMENTATION = 1.1  # the caching allocator holds ~10% more than is live at the peak


def shape_of(model: str) -> ModelShape:
    if model not in SHAPES:
        raise ValueError(f"no shape known for {model!r} (known: {', '.join(SHAPES)}); add its config.json "
                         "sizes to shared.plan.SHAPES")
    return SHAPES[model]


def train_memory(profile, lora_r: int = 16, checkpointing: bool | None = None) -> dict[str, float]:
    """Bytes at the peak of one LoRA training step of `profile`'s model, by part, and the total."""
    m = shape_of(profile.model)
    ckpt = profile.gradient_checkpointing if checkpointing is None else checkpointing
    body = m.params - m.embedding_params
    # NF4 is half a byte a weight plus ~3% for its scales; embeddings and head stay in 16 bits
    weights = (body * (0.53 if profile.load_in_4bit else 2.0) + m.embedding_params * 2.0) \
        if profile.model != "tiny" else m.params * 4.0
    adapter = m.lora_params(lora_r) * 16  # fp32 weights, gradients and two Adam moments
    tokens = profile.batch_size * profile.max_len  # a batch padded to the longest example, at worst
    # half-precision values saved per token and layer: attention inputs, q/k/v, its output (SDPA keeps
    # no score matrix), the MLP's inputs and its four intermediate-wide tensors
    per_layer = (6 * m.hidden + 2 * m.kv_dim + 4 * m.intermediate) * 2 * ACTIVATION_FUDGE
    if ckpt:  # only each block's input is kept; one block is recomputed at a time
        activations = tokens * (m.layers * m.hidden * 2 + per_layer)
    else:
        activations = tokens * m.layers * per_layer
    logits = tokens * m.vocab * LOGIT_BYTES
    parts = {"weights": weights, "adapter + Adam": adapter, "activations": activations, "logits": logits}
    parts["total"] = (sum(parts.values()) + CUDA_OVERHEAD_GB * GB) * FRAGMENTATION
    return parts


def generate_memory(profile, context: int | None = None) -> float:
    """Bytes while the model solver generates `gen_batch` views at once (weights + key/value cache)."""
    m = shape_of(profile.model)
    body = m.params - m.embedding_params
    weights = body * (0.53 if profile.load_in_4bit else 2.0) + m.embedding_params * 2.0
    context = context or profile.max_len
    cache = profile.gen_batch * context * m.layers * 2 * m.kv_dim * 2
    logits = profile.gen_batch * m.vocab * 4 * 2
    return (weights + cache + logits + CUDA_OVERHEAD_GB * GB) * FRAGMENTATION


def example_tokens(profile) -> int:
    return TINY_EXAMPLE_TOKENS if profile.model == "tiny" else HUB_EXAMPLE_TOKENS


def train_tokens_per_s(profile) -> float:
    if not profile.gpu:
        return CPU_TRAIN_TOKENS_S
    m, gpu = shape_of(profile.model), GPUS[profile.gpu]
    # forward 2N and backward 2N FLOPs a token (frozen weights need no weight gradients), plus 2N
    # to recompute the forward when checkpointing
    flops = (6 if profile.gradient_checkpointing else 4) * m.params
    slow = FOUR_BIT_TRAIN_SLOWDOWN if profile.load_in_4bit else 1.0
    return gpu.train_tflops * 1e12 / flops / slow


def decode_step_s(profile) -> float:
    """Seconds per generated token of a batch (all sequences of a batch advance together)."""
    if not profile.gpu:
        return CPU_DECODE_STEP_S
    m, gpu = shape_of(profile.model), GPUS[profile.gpu]
    step = m.layers * LAYER_STEP_S + m.params * (0.53 if profile.load_in_4bit else 2.0) / (gpu.bandwidth_gbs * GB)
    return step * (FOUR_BIT_SLOWDOWN if profile.load_in_4bit else 1.0)


def train_step_s(profile, batch_size: int | None = None) -> float:
    tokens = (batch_size or profile.batch_size) * profile.grad_accum * example_tokens(profile)
    return tokens / train_tokens_per_s(profile)


def generate_s(profile, n_prompts: int, new_tokens: int, batch: int | None = None) -> float:
    """Seconds to generate `new_tokens` for `n_prompts` prompts, `batch` at a time (prefill included)."""
    batch = batch or profile.gen_batch
    prefill = n_prompts * PROMPT_TOKENS / (train_tokens_per_s(profile) * 3)  # forward only: a third of a step
    return math.ceil(n_prompts / batch) * new_tokens * decode_step_s(profile) + prefill


def model_task_s(profile, n_views: int | None = None, budget_s: float | None = None) -> float:
    """Seconds the model solver spends on a task: its views generated to max_new_tokens (an untrained
    model rarely stops early), candidates scored, all capped by the per-task budget."""
    views = n_views or profile.n_views
    est = generate_s(profile, views, profile.max_new_tokens) * (1 + SCORING_SHARE)
    return min(est, budget_s or profile.budget_s)


@dataclass
class Stage:
    name: str
    seconds: float
    detail: str


@dataclass
class Plan:
    """A notebook's stages with their estimated seconds; `show` prints it, `announce` one stage."""

    notebook: str
    profile: object
    stages: list[Stage] = field(default_factory=list)

    def add(self, name: str, seconds: float, detail: str) -> Plan:
        self.stages.append(Stage(name, seconds, detail))
        return self

    @property
    def total_s(self) -> float:
        return sum(s.seconds for s in self.stages)

    def _where(self) -> str:
        p = self.profile
        return f"{GPUS[p.gpu].name}" if p.gpu else "this CPU"

    def show(self) -> None:
        print(f"plan of {self.notebook} on profile {self.profile.name} ({self.profile.model}, {self._where()}):")
        for s in self.stages:
            print(f"  {s.name:<24} {duration(s.seconds):>8}  {s.detail}")
        print(f"  {'total (estimate)':<24} {duration(self.total_s):>8}  assumed speeds: shared.plan; "
              "set the parameters above to run more or less")

    def announce(self, name: str) -> None:
        s = next(s for s in self.stages if s.name == name)
        print(f"{s.name}: {s.detail}; about {duration(s.seconds)} ({self._where()})")


def duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def _train(plan: Plan, name: str, steps: int, batch_size: int | None = None, factor: float = 1.0) -> Plan:
    p = plan.profile
    b = batch_size or p.batch_size
    per = train_step_s(p, b) * factor
    return plan.add(name, steps * per, f"{steps} steps x {b * p.grad_accum} examples (~{example_tokens(p)} tokens "
                                       f"each, {train_tokens_per_s(p) / factor:,.0f} tokens/s)")


def _answer(plan: Plan, name: str, n_tasks: int, extra_s: float = 0.0) -> Plan:
    p = plan.profile
    per = model_task_s(p) + extra_s
    return plan.add(name, n_tasks * per, f"{n_tasks} tasks x {p.n_views} views, at most {p.budget_s:g} s a task "
                                         f"(~{per:.0f} s each)")


def defaults(name: str, profile) -> dict:
    """The sizes notebook `name` runs with when its parameters are left at 0: the notebooks read
    them here, so the plan they print and the run they make are the same (tests/test_plan.py)."""
    p = profile
    d = {"steps": p.train_steps, "n_tasks": p.n_tasks}
    if name == "03_distill":  # two trainings: the teacher and the student get half the steps each
        d.update(steps=max(1, p.train_steps // 2), teacher_steps=max(1, p.train_steps // 2))
    elif name == "04_ttt":
        d["ttt_steps"] = p.ttt_steps or min(p.train_steps, 32)
    elif name == "05_train_eval_interp":  # four trainings and five evaluations in one notebook
        d.update(steps=max(2, p.train_steps // 4), n_tasks=max(2, p.n_tasks // 3), train_tasks=max(4, p.n_tasks // 2),
                 dpo_steps=max(2, p.train_steps // 8), grpo_steps=max(2, p.train_steps // 30), num_generations=4)
    elif name == "06_run_benchmark":
        d["n_tasks"] = p.bench_tasks
    elif name == "07_auto_retrain":
        d.update(rounds=4, steps=max(1, p.train_steps // 4), n_tasks=max(2, p.n_tasks // 2))
    elif name == "08_program_synthesis":
        size = p.synth
        # each task may take 1 + rounds requests of `samples` long programs: half the profile's slice
        d.update(samples=size.samples, rounds=size.rounds, max_new_tokens=size.max_new_tokens,
                 n_tasks=max(2, p.n_tasks // 2))
    return d


def notebook(name: str, profile, **sizes) -> Plan:
    """The plan of notebook `name` (its builder's stem) with the sizes it will run (`defaults`
    for any not given): training steps, measured tasks and per-notebook sizes (03 teacher_steps;
    04 ttt_steps; 05 mine_views, dpo_steps, grpo_steps, num_generations; 06 members; 07 rounds;
    08 samples, rounds, max_new_tokens; bench_pipeline eval_tokens)."""
    p = profile
    sizes = {**defaults(name, p), **{k: v for k, v in sizes.items() if v is not None}}
    steps, n_tasks = sizes["steps"], sizes["n_tasks"]
    plan = Plan(name, p)
    if name == "01_baseline":
        _answer(plan, "zero-shot", n_tasks)
    elif name == "02_sft":
        _answer(plan, "before training", n_tasks)
        _train(plan, "fine-tune", steps)
        _answer(plan, "after training", n_tasks)
    elif name == "03_distill":
        if sizes.get("teacher_steps"):
            _train(plan, "teacher", sizes["teacher_steps"])
        # the student's step also runs the teacher forward: a third of a teacher step more
        _train(plan, "student", steps, factor=1.0 if p.model == "tiny" else 1.35)
        _answer(plan, "teacher and student", 2 * n_tasks)
    elif name == "04_ttt":
        _answer(plan, "without TTT", n_tasks)
        ttt_s = min(sizes["ttt_steps"] * train_step_s(p) / p.grad_accum, p.budget_s / 2)
        _answer(plan, "with TTT", n_tasks, extra_s=ttt_s)
    elif name == "05_train_eval_interp":
        views = sizes.get("mine_views") or 4 * sizes["train_tasks"]  # ~4 leave-one-out views a task
        _train(plan, "SFT", steps)
        plan.add("mine DPO pairs", generate_s(p, views, p.max_new_tokens), f"{views} views answered greedily")
        _train(plan, "DPO", sizes["dpo_steps"], factor=2.0)  # policy and reference see chosen and rejected
        g = sizes["num_generations"]
        grpo = sizes["grpo_steps"] * (generate_s(p, g, p.max_new_tokens, batch=g) + train_step_s(p, g))
        plan.add("GRPO", grpo, f"{sizes['grpo_steps']} steps, {g} answers sampled per prompt")
        _answer(plan, "pass@2 per stage", 4 * n_tasks)
    elif name == "06_run_benchmark":
        members = sizes.get("members") or p.solvers
        # a model member runs in one process and spends its budget; the DSL alone runs on every worker
        per = p.budget_s if any(m in ("model", "ttt") for m in members) else p.budget_s / max(1, p.workers)
        plan.add("benchmark", n_tasks * per, f"{n_tasks} tasks, ensemble {', '.join(members)}, "
                                             f"at most {p.budget_s:g} s a task")
    elif name == "07_auto_retrain":
        rounds = sizes["rounds"]
        _train(plan, "train rounds", rounds * steps)
        plan.add("score each round", rounds * generate_s(p, 2 * n_tasks, p.max_new_tokens),
                 f"{rounds} rounds x {n_tasks} validation and {n_tasks} mined training tasks")
    elif name == "08_program_synthesis":
        requests = 1 + sizes["rounds"]
        per = generate_s(p, sizes["samples"], sizes["max_new_tokens"], batch=sizes["samples"])
        plan.add("synthesis", n_tasks * requests * per,
                 f"{n_tasks} tasks x up to {requests} requests of {sizes['samples']} programs")
    elif name == "bench_pipeline":
        tokens = sizes.get("eval_tokens") or p.max_new_tokens
        gen = generate_s(p, n_tasks, tokens)
        plan.add("before training", gen, f"{n_tasks} problems, up to {tokens} tokens each")
        _train(plan, "fine-tune", steps)
        plan.add("after training", gen, f"{n_tasks} problems")
    elif name == "09_arc_agi_3":  # each agent plays every game to its action budget
        games, actions = sizes.get("n_games") or 4, sizes.get("max_actions") or 2000
        for agent in sizes.get("agents") or ("random", "explorer"):
            plan.add(f"play {agent}", games * actions / ARC3_ACTIONS_PER_S,
                     f"{games} games x at most {actions} actions (~{ARC3_ACTIONS_PER_S} actions/s assumed)")
    else:
        raise ValueError(f"no plan for notebook {name!r}")
    return plan
