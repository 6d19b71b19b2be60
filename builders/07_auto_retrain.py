# %% [markdown]
# # 07 · Automated retraining loop
#
# Let the pipeline retrain itself: train, evaluate on a held-out validation slice, mine the
# training tasks the model finds hard, weight them up in the next training mix, and go again,
# until the score stops improving. The loop logs one line per round, so a killed run (a Colab
# disconnect) picks up after its last finished round when you run all again.
#
# **You will learn to**
# - score a model by several signals at once: exact match, partial credit, format validity and
#   the calibration of its confidence;
# - mine hard tasks (failed, or right by a small margin) and rebuild a training mix around them,
#   without ever training on the validation slice;
# - stop on a plateau (patience and minimum gain) and resume a long loop from its own log.

# %% tags=["parameters"]
PROFILE = "auto"  # smoke (CPU, tiny model, seconds) | cpu | t4 | a100 | h100 | auto
MODEL = ""  # empty: the model of the profile; tiny, or a hub id or the folder of a fine-tuned model (02)
EVAL_SET = "arc1/eval"  # the set later runs are measured on; none of its tasks is used here
TRAIN_TASKS = 0  # 0: the number of the profile; cap on clean training tasks
N_VAL = 0  # 0: the notebook's default for the profile (shared.plan); training tasks held out to validate on
ROUNDS = 4  # most rounds; the plateau rule usually stops earlier on real runs
STEPS_PER_ROUND = 0  # 0: a quarter of the train_steps of the profile
N_AUGMENT = 2  # views per leave-one-out example
HARD_WEIGHT = 3  # times a hard task appears in the next mix
MARGIN_FLOOR = 1.0  # a right answer closer than this (nats) to flipping a token counts as hard
PATIENCE = 2  # rounds without enough gain before stopping
MIN_GAIN = 0.01  # the least rise of the combined score that counts as progress
LORA_R = 16
OUT = "outputs/07_auto_retrain"

# %%
from pathlib import Path

import matplotlib.pyplot as plt

from shared import benchmarks, config, plan, tasks
from shared.benchmarks import arc
from shared.train import data, retrain, sft

P = config.profile(PROFILE)
model_name = MODEL or P.model
pool = retrain.small_tasks(tasks.training_for(EVAL_SET), P.max_cells)
D = plan.defaults("07_auto_retrain", P)
train_tasks, val_tasks = data.profile_split(pool, P, N_VAL or D["n_tasks"], TRAIN_TASKS)
run = Path(OUT) / sft.run_name(P.name, model_name)
# mine_limit: the training tasks scored for hardness each round, a sample as large as the validation slice
cfg = retrain.LoopConfig(rounds=ROUNDS, steps_per_round=STEPS_PER_ROUND or D["steps"], batch_size=P.batch_size,
                         lr=P.lr, max_len=P.max_len, max_new_tokens=P.max_new_tokens, n_augment=N_AUGMENT,
                         lora_r=LORA_R, hard_weight=HARD_WEIGHT, margin_floor=MARGIN_FLOOR, patience=PATIENCE,
                         min_gain=MIN_GAIN, mine_limit=len(val_tasks), grad_accum=P.grad_accum,
                         gradient_checkpointing=P.gradient_checkpointing)
print(f"profile {P.name}, model {model_name}: {len(train_tasks)} training and {len(val_tasks)} validation tasks, "
      f"all from the training split without {EVAL_SET}; log {run / retrain.LOG}")
print("score weights:", retrain.SIGNAL_WEIGHTS)
PLAN = plan.notebook("07_auto_retrain", P, rounds=ROUNDS, steps=cfg.steps_per_round, n_tasks=len(val_tasks))
PLAN.show()

# %% [markdown]
# ## Run the loop
# Each round: train `steps_per_round` more steps on the current mix, score the validation slice,
# mine hard training tasks, reweight. Rerunning this cell continues after the last logged round.

# %%
# the loop takes any benchmark adapter's items; here ARC's, one item per test input, grouped by task
adapter = benchmarks.get("arc", eval_set=EVAL_SET)
PLAN.announce("train rounds")
result = retrain.run_loop(model_name, adapter, arc.task_items(train_tasks), arc.task_items(val_tasks), run, cfg,
                          load_in_4bit=P.load_in_4bit,
                          on_round=lambda row: print(f"round {row['round']}: score {row['score']:.3f}, "
                                                     f"{len(row['hard'])} hard tasks, {row['seconds']} s"))
if result.resumed_after is not None:
    print(f"resumed after round {result.resumed_after}")
print(f"stopped: {result.stopped}")

# %% [markdown]
# ## The loop, round by round
# Validation signals and the combined score (the dotted line marks the best round), and how
# many training tasks were mined as hard after each round.

# %%
retrain.plot_loop(result.rows, PATIENCE, MIN_GAIN)
plt.show()
retrain.loop_table(result.rows)

# %% [markdown]
# ## What was mined
# The hardest training tasks of the last round, weighted up for the next one.

# %%
last = result.rows[-1]
print(f"round {last['round']}: {len(last['hard'])} of {last['n_train']} training tasks hard; "
      f"the mix had {last['examples']} examples")
print("hardest first:", ", ".join(last["hard"][:10]))
