# %% [markdown]
# # The ARC scaffold on another benchmark: baseline, SFT, evaluation
#
# The suite's training and evaluation stages take a *benchmark adapter*: load a split, build a
# prompt, parse a completion, score a prediction. ARC is one adapter; this notebook runs the same
# stages on GSM8K (math word problems, exact match on the final number) or HumanEval (Python
# functions, run against their tests in the sandbox, pass@k).
#
# **You will learn to**
# - load a benchmark through its adapter, offline or from the hub;
# - measure a model before training with pass@k (the unbiased estimator of the Codex paper);
# - fine-tune a LoRA adapter on (prompt, answer) pairs the adapter builds, loss on the answer only;
# - measure again on problems training never saw, and read where the answers go wrong.

# %% tags=["parameters"]
PROFILE = "auto"  # smoke (CPU, tiny model, seconds) | cpu | t4 | a100 | h100 | auto
BENCHMARK = "gsm8k"  # variants: gsm8k, humaneval
MODEL = ""  # empty: the model of the profile; tiny, or a hub id such as Qwen/Qwen2.5-0.5B-Instruct
DATA = ""  # empty: offline data for the tiny model, else auto (the hub when reachable); or offline, hub
N_EVAL = 0  # 0: the n_tasks of the profile; problems measured before and after training
N_TRAIN = 0  # 0: the train_tasks of the profile (0 there: every training problem)
N_SAMPLES = 1  # answers per problem; 1 is greedy (pass@1), 10 or more to sample for pass@k
STEPS = 0  # 0: the train_steps of the profile
LORA_R = 16  # adapter rank; 64 for 7B models if memory allows
OUT = "outputs/bench_pipeline"

# %%
from pathlib import Path

import matplotlib.pyplot as plt

from shared import benchmarks, config, plan, report
from shared.benchmarks import stages
from shared.models import load_model, prompt_style
from shared.train import data, sft

P = config.profile(PROFILE)
model_name = MODEL or P.model
adapter = benchmarks.get(BENCHMARK, source=DATA or ("offline" if model_name == "tiny" else "auto"))
train_items, eval_items = stages.train_and_eval_items(adapter, N_TRAIN or P.train_tasks, N_EVAL or P.n_tasks)
max_new_tokens = min(P.max_new_tokens, adapter.max_new_tokens)
ks = sorted({1, min(10, N_SAMPLES), N_SAMPLES})
run = Path(OUT) / BENCHMARK / sft.run_name(P.name, model_name)
steps = STEPS or plan.defaults("bench_pipeline", P)["steps"]
print(f"profile {P.name}, model {model_name}, {BENCHMARK}: training on {len(train_items)} problems, "
      f"measuring on {len(eval_items)}; data: {adapter.loaded_from}")
# an upper bound: the training estimate assumes ARC-long examples; GSM8K and HumanEval ones are shorter
PLAN = plan.notebook("bench_pipeline", P, steps=steps, n_tasks=len(eval_items) * N_SAMPLES, eval_tokens=max_new_tokens)
PLAN.show()

# %% [markdown]
# ## One problem
# What the model is asked, and the answer it should give.

# %%
first = eval_items[0]
print(adapter.question(first))
print(f"--- reference answer ---\n{adapter.reference(first)}")

# %% [markdown]
# ## Before training
# Each problem answered `N_SAMPLES` times (once, greedily, by default), each answer parsed and
# scored by the adapter; pass@k is the chance that at least one of k answers is right.

# %%
model, tokenizer = load_model(model_name, load_in_4bit=P.load_in_4bit)
style = prompt_style(model, tokenizer)
PLAN.announce("before training")
before = stages.evaluate(adapter, model, tokenizer, eval_items, n_samples=N_SAMPLES, k=ks,
                         max_new_tokens=max_new_tokens, style=style, out_dir=run / "before")
print(before.line())
print(f"the first answer:\n{before.rows[0]['completions'][0]!r}")

# %% [markdown]
# ## Fine-tune
# The adapter writes each training problem as a prompt and the answer to learn (GSM8K: the worked
# solution ending in `#### N`; HumanEval: the canonical function body); the loss falls on the answer.
# HumanEval has no training split, so it trains on canonical solutions of the problems not measured.

# %%
examples = data.adapter_examples(adapter, train_items, tokenizer, style, P.max_len)
print(f"prompt style {style}: {examples.summary()}")
model = sft.add_lora(model, r=LORA_R, alpha=2 * LORA_R, gradient_checkpointing=P.gradient_checkpointing)
PLAN.announce("fine-tune")
result = sft.train(model, tokenizer, examples, run / "checkpoints", steps=steps, batch_size=P.batch_size, lr=P.lr,
                   grad_accum=P.grad_accum, gradient_checkpointing=P.gradient_checkpointing)
where = f"resumed from {result.resumed_from}" if result.resumed_from else "from the start"
print(f"step {result.global_step}/{steps} ({where}); {result.tokens} tokens in {result.seconds:.1f} s")
sft.plot_loss(result.log_history, title=f"LoRA r={LORA_R} on {len(examples)} {BENCHMARK} examples")
plt.show()

# %% [markdown]
# ## After training
# The same problems, the same decoding; then the adapter merged into the model and saved.

# %%
PLAN.announce("after training")
after = stages.evaluate(adapter, model, tokenizer, eval_items, n_samples=N_SAMPLES, k=ks,
                        max_new_tokens=max_new_tokens, style=style, out_dir=run / "after")
print(after.line())
folder = sft.save_model(model, tokenizer, run / "model", style)
print(f"fine-tuned model saved to {folder}")

# %% [markdown]
# ## Results
# The headline metric before and after, then each problem: the reference, the first answer and
# how many of its answers were right under each metric.

# %%
metric = adapter.metrics[0]
report.plot_accuracy({"before": before.pass_at(metric), "after SFT": after.pass_at(metric)},
                     title=f"{BENCHMARK} {metric} pass@1 on {len(eval_items)} problems")
plt.show()
print({"before": before.summary(), "after": after.summary()})
after.table(limit=20)
