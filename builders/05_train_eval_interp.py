# %% [markdown]
# # 05 · Preference and RL training, with interpretability
#
# Take the model through four stages: the base model, supervised fine-tuning (SFT), direct
# preference optimisation (DPO) on pairs mined from its own answers, and GRPO reinforcement
# learning with named reward functions. Measure every stage on the same held-out training tasks,
# then open the model up: where it attends, when its answer forms, how sure it is, what its
# hidden states encode, and how all of that moves from stage to stage.
#
# **You will learn to**
# - mine DPO preference pairs from a model's own predictions (a right answer over a wrong one;
#   where none is right, the expected output over the model's wrong one) and train with trl;
# - write GRPO reward functions (exact match, partial credit, well-formed output) and train with them;
# - run both through a benchmark adapter (`shared.benchmarks`): here ARC, the same calls take GSM8K or HumanEval;
# - compare pass@2 across stages on one held-out slice of the training split (no evaluation task is read);
# - read eleven interpretability views: attention, logit lens, per-cell confidence, entropy,
#   agreement across augmentations, linear probes, PCA, activation patching, per-token loss,
#   an error taxonomy, and all of them side by side across stages.

# %% tags=["parameters"]
PROFILE = "auto"  # smoke (CPU, tiny model, seconds) | cpu | t4 | a100 | h100 | auto
MODEL = ""  # empty: the model of the profile; tiny, or a hub id such as Qwen/Qwen2.5-0.5B-Instruct
EVAL_SET = "arc1/eval"  # the set later runs are measured on; none of its tasks is used here
TRAIN_TASKS = 0  # 0: the notebook's default for the profile (shared.plan); clean training tasks
N_HELDOUT = 0  # 0: the notebook's default for the profile; training tasks kept out to measure every stage on
N_AUGMENT = 2  # views per leave-one-out example for SFT
STEPS = 0  # 0: a quarter of the train_steps of the profile, for SFT
DPO_STEPS = 0  # 0: an eighth of the train_steps of the profile (at least 2)
GRPO_STEPS = 0  # 0: a thirtieth of the train_steps of the profile (at least 2); each step samples a group
LORA_R = 16  # adapter rank of each stage
N_SAMPLES = 1  # sampled answers per view, besides the greedy one, when mining DPO pairs
DPO_LR = 0.0  # 0: a tenth of the learning rate of the profile
GRPO_LR = 0.0  # 0: a tenth of the learning rate of the profile
NUM_GENERATIONS = 4  # GRPO answers per prompt; 8 or more on a GPU
PROBE_TASKS = 40  # training tasks whose hidden states the probes and the PCA read
OUT = "outputs/05_train_eval_interp"

# %%
from pathlib import Path

import matplotlib.pyplot as plt

from shared import bench, benchmarks, config, plan, report, runs, tasks
from shared.benchmarks import arc
from shared.interpret import agreement, attention, compare, confidence, errors, lens, patching, probes
from shared.models import load_model, prompt_style
from shared.solvers.model import ModelSolver
from shared.train import data, grpo, preference, retrain, sft
from shared.train.compare import runs_table

P = config.profile(PROFILE)
model_name = MODEL or P.model
pool = retrain.small_tasks(tasks.training_for(EVAL_SET), P.max_cells)
D = plan.defaults("05_train_eval_interp", P)
train_tasks, heldout = data.profile_split(pool, P, N_HELDOUT or D["n_tasks"], TRAIN_TASKS or D["train_tasks"])
steps, dpo_steps, grpo_steps = STEPS or D["steps"], DPO_STEPS or D["dpo_steps"], GRPO_STEPS or D["grpo_steps"]
run = Path(OUT) / sft.run_name(P.name, model_name)
stages = {"base": model_name}  # stage -> a model name or a saved folder
adapter, train_items = benchmarks.get("arc", eval_set=EVAL_SET), arc.task_items(train_tasks)
print(f"profile {P.name}, model {model_name}: {len(pool)} clean training tasks; training on {len(train_tasks)}, "
      f"measuring on {len(heldout)} held out; {steps} SFT, {dpo_steps} DPO and {grpo_steps} GRPO steps")
PLAN = plan.notebook("05_train_eval_interp", P, steps=steps, n_tasks=len(heldout), train_tasks=len(train_tasks),
                     mine_views=len(adapter.training_views(train_items, 1, 0)), dpo_steps=dpo_steps,
                     grpo_steps=grpo_steps, num_generations=NUM_GENERATIONS)
PLAN.show()

# %% [markdown]
# ## Stage 1: SFT
# A LoRA adapter trained on leave-one-out examples (as in 02), merged and saved.

# %%
model, tokenizer = load_model(model_name, load_in_4bit=P.load_in_4bit)
style = prompt_style(model, tokenizer)
examples = data.build_examples(train_tasks, tokenizer, style, P.max_len, n_augment=N_AUGMENT)
model = sft.add_lora(model, r=LORA_R, alpha=2 * LORA_R, gradient_checkpointing=P.gradient_checkpointing)
PLAN.announce("SFT")
result = sft.train(model, tokenizer, examples, run / "sft" / "checkpoints", steps=steps, batch_size=P.batch_size,
                   lr=P.lr, grad_accum=P.grad_accum, gradient_checkpointing=P.gradient_checkpointing)
stages["SFT"] = str(sft.save_model(model, tokenizer, run / "sft" / "model", style))
print(f"SFT: {examples.summary()}; step {result.global_step}")
sft.plot_loss(result.log_history, title="SFT loss")
plt.show()

# %% [markdown]
# ## Stage 2: DPO on the model's own answers
# Every leave-one-out view of the training tasks is answered by the SFT model (greedy, plus a few
# samples). A right answer is preferred over a wrong one; where no answer is right, the expected
# output is preferred over the model's wrong one. trl's DPOTrainer then trains a fresh adapter,
# with the SFT model itself as the frozen reference.

# %%
PLAN.announce("mine DPO pairs")
model, tokenizer = load_model(stages["SFT"], load_in_4bit=P.load_in_4bit)
mined = preference.mine_pairs(model, tokenizer, adapter, train_items, P.max_new_tokens, n_samples=N_SAMPLES,
                              max_prompt_tokens=P.max_len - P.max_new_tokens)
print(mined.summary())
for pair in mined.pairs[:2]:
    print(f"{pair['source']}: chosen ({pair['chosen_from']}) {pair['chosen']!r} over rejected {pair['rejected']!r}")
model = sft.add_lora(model, r=LORA_R, alpha=2 * LORA_R)
PLAN.announce("DPO")
result = preference.dpo_train(model, tokenizer, mined.pairs, run / "dpo" / "checkpoints", steps=dpo_steps,
                              batch_size=P.batch_size, lr=DPO_LR or P.lr / 10, max_length=P.max_len)
stages["DPO"] = str(sft.save_model(model, tokenizer, run / "dpo" / "model", style))
preference.plot_dpo(result.log_history)
plt.show()

# %% [markdown]
# ## Stage 3: GRPO with named rewards
# For each prompt GRPO samples a group of answers, scores each with the reward functions below
# and pushes the model toward the better answers of the group.

# %%
for f in grpo.REWARDS:
    print(f"{f.__name__}: {f.__doc__.splitlines()[0]}")
PLAN.announce("GRPO")
model, tokenizer = load_model(stages["DPO"], load_in_4bit=P.load_in_4bit)
rows = grpo.grpo_rows(adapter, train_items, tokenizer, style, max_prompt_tokens=P.max_len - P.max_new_tokens)
model = sft.add_lora(model, r=LORA_R, alpha=2 * LORA_R)
result = grpo.grpo_train(model, tokenizer, rows, run / "grpo" / "checkpoints", steps=grpo_steps,
                         batch_size=NUM_GENERATIONS * P.batch_size, max_completion_length=P.max_new_tokens,
                         lr=GRPO_LR or P.lr / 10, num_generations=NUM_GENERATIONS)
stages["GRPO"] = str(sft.save_model(model, tokenizer, run / "grpo" / "model", style))
print(f"GRPO on {len(rows)} prompts, step {result.global_step}")
grpo.plot_rewards(result.log_history)
plt.show()

# %% [markdown]
# ## pass@2 per stage
# Each stage answers the same held-out training tasks with the model solver (augmented views,
# two attempts); the runs resume like any `shared.bench` run.

# %%
PLAN.announce("pass@2 per stage")
summaries, results = {}, {}
for stage, source in stages.items():
    solver = ModelSolver(loaded=load_model(source, load_in_4bit=P.load_in_4bit), max_new_tokens=P.max_new_tokens,
                         n_views=P.n_views, batch_size=P.gen_batch)
    summaries[stage] = bench.run(heldout, run / "eval" / stage, solver, budget_s=P.budget_s, workers=0,
                                 tasks_name="held-out training tasks", progress=False)
    results[stage] = runs.read_results(run / "eval" / stage)
    print(f"{stage}: {runs.closing_line(summaries[stage])}")
report.plot_accuracy({s: v["pass_at_2"] for s, v in summaries.items()},
                     title=f"pass@2 per stage on {len(heldout)} held-out training tasks")
plt.show()
runs_table(summaries)

# %% [markdown]
# ## Inside the final model
# The GRPO model on the first held-out task: its test input, expected output and the model's
# first attempt (blank when it gave none).

# %%
model, tokenizer = load_model(stages["GRPO"], load_in_4bit=P.load_in_4bit)
focus = heldout[0]
attempts = results["GRPO"][0]["attempts"][0]
predicted = attempts[0] if attempts else None
report.draw_task(focus)
plt.show()

# %% [markdown]
# ### 1. Attention from output cells to input cells
# With the expected answer appended, how much each head of each layer attends from the output
# cells to every cell of the test input.

# %%
attention.plot_attention(model, tokenizer, focus)
plt.show()

# %% [markdown]
# ### 2. Logit lens
# Each layer's hidden state read through the final norm and unembedding: the probability of the
# right answer token if the model stopped there.

# %%
lens.plot_logit_lens(model, tokenizer, focus)
plt.show()

# %% [markdown]
# ### 3. Per-cell confidence of the predicted grid

# %%
confidence.plot_cell_confidence(model, tokenizer, focus, predicted)
plt.show()

# %% [markdown]
# ### 4. Entropy along the generated answer

# %%
confidence.plot_entropy(model, tokenizer, focus, P.max_new_tokens)
plt.show()

# %% [markdown]
# ### 5. Agreement across augmentations
# Every held-out task answered under rotated, recoloured and reordered views, answers mapped back.

# %%
agreements = [agreement.augmentation_agreement(model, tokenizer, t, P.n_views, P.max_new_tokens) for t in heldout]
agreement.plot_agreement(agreements)
plt.show()

# %% [markdown]
# ### 6. Linear probes on hidden states
# Does the prompt's mean hidden state encode properties of the answer the model must give:
# output size equals input size, its number of colours, its symmetry? Probes are fit on part of
# the tasks and scored on the rest, against always guessing the commonest class of the held-out tasks.

# %%
probe_tasks = pool[:PROBE_TASKS]
embeddings = probes.task_embeddings(model, tokenizer, probe_tasks)
labels = probes.property_labels(probe_tasks)
probe_results = probes.probe_layers(embeddings, labels)
probes.plot_probes(probe_results, title="probes on the GRPO model")
plt.show()
for name, per_layer in probe_results.items():
    print(name, " ".join(f"{r.name}: {r.heldout_accuracy:.2f} (chance {r.chance:.2f})" for r in per_layer))

# %% [markdown]
# ### 7. PCA of task embeddings, coloured by a property

# %%
probes.plot_pca(embeddings[:, -1], labels["same_size"], "same_size", title="last layer, by output size = input size")
plt.show()

# %% [markdown]
# ### 8. Activation patching between two demo pairs
# Two prompts differ only in the test input (demo pair a's input or demo pair b's); copying the
# clean run's residual stream into the corrupt run, one layer and position at a time, shows
# where the information that decides the answer sits.

# %%
patch_task = patching.smallest_patchable(pool)
patching.plot_patching(model, tokenizer, patch_task)
plt.show()

# %% [markdown]
# ### 9. Per-token loss of a correct and an incorrect answer
# The incorrect answer is the model's own where it was wrong, else the expected grid with one cell changed.

# %%
wrong = predicted if predicted is not None and not results["GRPO"][0]["correct"][0] else None
confidence.plot_token_loss(model, tokenizer, focus, wrong=wrong)
plt.show()

# %% [markdown]
# ### 10. Error taxonomy per stage
# Why each test input was missed: unparseable, wrong size, wrong colours, or wrong cells.

# %%
errors.plot_error_taxonomy(results, title=f"outcomes on {len(heldout)} held-out tasks")
plt.show()
{stage: dict(errors.error_taxonomy(rows)) for stage, rows in results.items()}

# %% [markdown]
# ### 11. The same views across base, SFT, DPO and GRPO

# %%
measures = {stage: compare.stage_measures(*load_model(source, load_in_4bit=P.load_in_4bit), heldout[:2],
                                          P.max_new_tokens, n_views=P.n_views, probe_tasks=probe_tasks)
            for stage, source in stages.items()}
compare.plot_stages(measures, results)
plt.show()
compare.stage_table(measures)
