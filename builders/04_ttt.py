# %% [markdown]
# # 04 · Test-time training
#
# Before answering a task, train a fresh LoRA adapter on that task's own demos for a few steps,
# answer, then throw the adapter away. The demos are all a solver may see, so this is honest
# on evaluation tasks; the next task starts again from the same base weights.
#
# **You will learn to**
# - build per-task training data: each demo in turn as the target, the others as context,
#   under rotations, colour permutations and demo orders;
# - train and reset an adapter per task without touching the base model;
# - weigh accuracy against time: the same tasks with and without TTT, side by side.

# %% tags=["parameters"]
PROFILE = "auto"  # smoke (CPU, tiny model, seconds) | cpu | t4 | a100 | h100 | auto
TASKS = ""  # empty: the task set of the profile; or arc1/train, arc1/eval, arc2/eval, a folder
N_TASKS = 0  # 0: the number of tasks of the profile
MODEL = ""  # empty: the model of the profile; or a folder from 02, e.g. outputs/02_sft/t4-Qwen2.5-0.5B-Instruct/model
TTT_STEPS = 0  # 0: the ttt_steps of the profile (else its train_steps, at most 32) per task
TTT_AUGMENT = 4  # views per leave-one-out example
TTT_LR = 0.0  # 0: the lr of the profile
LORA_R = 8  # a per-task adapter needs less rank than a whole-dataset one
OUT = "outputs/04_ttt"

# %%
from pathlib import Path

import matplotlib.pyplot as plt

from shared import bench, config, plan, report, runs, tasks
from shared.solvers.ensemble import model_options
from shared.solvers.ttt import TTTSolver
from shared.train import sft, ttt

P = config.profile(PROFILE)
task_set = TASKS or P.task_set
model_name = MODEL or P.model
D = plan.defaults("04_ttt", P)
task_list = tasks.load(task_set)[: N_TASKS or D["n_tasks"]]
run = Path(OUT) / sft.run_name(P.name, model_name)
steps = TTT_STEPS or D["ttt_steps"]
print(f"profile {P.name}: {len(task_list)} tasks of {task_set}, model {model_name}, {steps} TTT steps per task")
PLAN = plan.notebook("04_ttt", P, n_tasks=len(task_list), ttt_steps=steps)
PLAN.show()

# %% [markdown]
# ## Without TTT
# The model as it is: the profile's augmented views per test input, ranked into two attempts.

# %%
PLAN.announce("without TTT")
solver_options = model_options(P, model_name)
plain = bench.run(task_list, run / "without", "model", budget_s=P.budget_s, workers=0,
                  options=solver_options, tasks_name=task_set)
print(runs.closing_line(plain))

# %% [markdown]
# ## With TTT
# Per task: a new adapter, `steps` optimizer steps on that task's demos (at most half the
# task's time budget), the same two attempts, then the adapter is removed.

# %%
PLAN.announce("with TTT")
ttt_solver = TTTSolver(**solver_options, steps=steps, lr=TTT_LR or P.lr, train_batch_size=P.batch_size,
                       n_augment=TTT_AUGMENT, r=LORA_R, max_len=P.max_len,
                       gradient_checkpointing=P.gradient_checkpointing)
with_ttt = bench.run(task_list, run / "with", ttt_solver, budget_s=P.budget_s, workers=0, tasks_name=task_set)
print(runs.closing_line(with_ttt))

# %% [markdown]
# ## Side by side
# pass@2, then per task: solved and seconds with and without TTT.

# %%
rows_plain, rows_ttt = runs.read_results(run / "without"), runs.read_results(run / "with")
report.plot_accuracy({"without TTT": plain["pass_at_2"], "with TTT": with_ttt["pass_at_2"]},
                     title=f"pass@2 on {len(task_list)} tasks of {task_set}")
plt.show()
ttt.ttt_table(rows_plain, rows_ttt)

# %%
print(f"mean seconds per task: without {plain['time_per_task_s']['mean']:.2f}, "
      f"with TTT {with_ttt['time_per_task_s']['mean']:.2f}")
