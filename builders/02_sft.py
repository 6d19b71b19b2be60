# %% [markdown]
# # 02 · Supervised fine-tuning (LoRA / QLoRA)
#
# Teach a language model the ARC answer format and some of its rules: fine-tune a LoRA adapter
# on leave-one-out examples of the clean training tasks, then measure on training tasks the run
# never saw. Checkpoints resume: with `DRIVE = True` they live on Google Drive, so after a Colab
# disconnect, Run all again continues training from the latest one (without Drive they go with the VM).
#
# **You will learn to**
# - turn ARC tasks into training examples: each demo in turn as the target, augmented by
#   rotations, colour permutations and demo order, with the loss on the answer tokens only;
# - keep evaluation honest: no task of the evaluation set, by id or by content, ever trains;
# - train LoRA (QLoRA on small GPUs) with the transformers Trainer and read the loss curve;
# - compare the model before and after on a held-out slice of the training split.

# %% tags=["parameters"]
PROFILE = "auto"  # smoke (CPU, tiny model, seconds) | cpu | t4 | a100 | h100 | auto
MODEL = ""  # empty: the model of the profile; tiny, or a hub id such as Qwen/Qwen2.5-0.5B-Instruct
EVAL_SET = "arc1/eval"  # the set the trained model will be measured on; none of its tasks trains
TRAIN_TASKS = 0  # 0: the number of the profile; cap on clean training tasks
N_HELDOUT = 0  # 0: the n_tasks of the profile; training tasks kept out to measure on
N_AUGMENT = 2  # views per leave-one-out example (identity first); 8 or more on a GPU
STEPS = 0  # 0: the train_steps of the profile
LORA_R = 16  # adapter rank; 64 for 7B models if memory allows
OUT = "outputs/02_sft"

# %%
from pathlib import Path

import matplotlib.pyplot as plt

from shared import bench, config, plan, report, runs, tasks
from shared.models import load_model, prompt_style
from shared.solvers.ensemble import model_options
from shared.train import compare, data, sft

P = config.profile(PROFILE)
model_name = MODEL or P.model
pool = tasks.training_for(EVAL_SET)
train_tasks, heldout = data.profile_split(pool, P, N_HELDOUT, TRAIN_TASKS)
steps = STEPS or plan.defaults("02_sft", P)["steps"]
run = Path(OUT) / sft.run_name(P.name, model_name)  # checkpoints and results of this profile and model
print(f"profile {P.name}, model {model_name}: {len(pool)} clean tasks ({pool.name}); "
      f"training on {len(train_tasks)}, measuring on {len(heldout)} held out")
PLAN = plan.notebook("02_sft", P, steps=steps, n_tasks=len(heldout))
PLAN.show()

# %% [markdown]
# ## Training examples
# Each known pair of a task is the answer once, the other pairs its demos; every augmentation
# is another view. Examples longer than the profile's `max_len` tokens are dropped and counted.

# %%
model, tokenizer = load_model(model_name, load_in_4bit=P.load_in_4bit)
style = prompt_style(model, tokenizer)
examples = data.build_examples(train_tasks, tokenizer, style, P.max_len, n_augment=N_AUGMENT)
print(f"prompt style {style}: {examples.summary()}")
first = examples[0]
n_prompt = first["completion_mask"].count(0)
print(f"{first['source']}: {n_prompt} prompt tokens (no loss), {len(first['input_ids']) - n_prompt} answer tokens")
print(tokenizer.decode(first["input_ids"][n_prompt:]))

# %% [markdown]
# ## Before training
# The untrained model on the held-out tasks (zero-shot; the profile's augmented views, two attempts).

# %%
PLAN.announce("before training")
before = bench.run(heldout, run / "before", "model", budget_s=P.budget_s, workers=0,
                   options=model_options(P, model_name), tasks_name="held-out training tasks")
print(runs.closing_line(before))

# %% [markdown]
# ## Fine-tune
# A LoRA adapter on attention and MLP projections (QLoRA when the profile loads 4-bit weights).
# Checkpoints go to `OUT/<profile>-<model>/checkpoints`; rerunning this cell continues from the latest one.

# %%
PLAN.announce("fine-tune")
model = sft.add_lora(model, r=LORA_R, alpha=2 * LORA_R, gradient_checkpointing=P.gradient_checkpointing)
result = sft.train(model, tokenizer, examples, run / "checkpoints", steps=steps, batch_size=P.batch_size,
                   lr=P.lr, grad_accum=P.grad_accum, gradient_checkpointing=P.gradient_checkpointing)
where = f"resumed from {result.resumed_from}" if result.resumed_from else "from the start"
print(f"step {result.global_step}/{steps} ({where}); {result.tokens} tokens in {result.seconds:.1f} s, "
      f"{result.steady_tokens_per_s:.0f} tokens/s after the first step")
sft.plot_loss(result.log_history, title=f"LoRA r={LORA_R} on {len(examples)} examples")
plt.show()

# %% [markdown]
# ## After training
# The adapter merged into the base and saved (its prompt style recorded in the config), then
# measured on the same held-out tasks.

# %%
folder = sft.save_model(model, tokenizer, run / "model", style)
PLAN.announce("after training")
after = bench.run(heldout, run / "after", "model", budget_s=P.budget_s, workers=0,
                  options=model_options(P, str(folder)), tasks_name="held-out training tasks")
print(runs.closing_line(after))
print(f"fine-tuned model saved to {folder}")

# %%
report.plot_accuracy({f"{model_name}": before["pass_at_2"], "after SFT": after["pass_at_2"]},
                     title=f"pass@2 on {len(heldout)} held-out training tasks")
plt.show()
compare.per_task_table({"before": runs.read_results(run / "before"),
                        "after": runs.read_results(run / "after")})
