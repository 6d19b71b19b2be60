# %% [markdown]
# # 01 · Zero-shot baseline
#
# What a language model does on ARC before any training, next to the floor of copying the
# input. Every later notebook is measured against these two numbers.
#
# **You will learn to**
# - load an ARC task set offline and look at a few tasks;
# - run a solver over tasks with `shared.bench` (resumable, one line per task in `results.jsonl`);
# - score pass@2 (a task counts only when every test output is exact) and read the error kinds:
#   wrong size, wrong cells, unparseable output.

# %% tags=["parameters"]
PROFILE = "auto"  # smoke (CPU, tiny model, seconds) | cpu | t4 | a100 | h100 | auto
TASKS = ""  # empty: the task set of the profile; or arc1/train, arc1/eval, arc2/eval, a folder
N_TASKS = 0  # 0: the number of tasks of the profile
MODEL = ""  # empty: the model of the profile; tiny, or a hub id such as Qwen/Qwen2.5-0.5B-Instruct
OUT = "outputs/01_baseline"

# %%
from pathlib import Path

import matplotlib.pyplot as plt

from shared import bench, config, plan, report, runs, tasks
from shared.solvers.ensemble import model_options

P = config.profile(PROFILE)
task_set = TASKS or P.task_set
model_name = MODEL or P.model
task_list = tasks.load(task_set)[: N_TASKS or plan.defaults("01_baseline", P)["n_tasks"]]
print(f"profile {P.name}: {len(task_list)} tasks of {task_set}, model {model_name}")
PLAN = plan.notebook("01_baseline", P, n_tasks=len(task_list))
PLAN.show()

# %% [markdown]
# ## A few tasks
# Each column is a demonstration pair (input above, output below); the last columns are the
# test inputs with their expected outputs.

# %%
for t in task_list[:2]:
    report.draw_task(t)
    plt.show()

# %% [markdown]
# ## The floor: copy the input
# Some ARC outputs equal their input in size, and a few nearly equal it; the identity solver
# shows how much of any score is free.

# %%
floor = bench.run(task_list, Path(OUT) / "identity", "identity", workers=0, tasks_name=task_set)
print(runs.closing_line(floor))

# %% [markdown]
# ## Zero-shot model
# The prompt lists the demos as digit grids and asks for the test output; generation is greedy.
# Each test input is asked under the profile's augmented views (rotations, colour permutations,
# demo orders; answers mapped back), and the two best-ranked answers are the attempts.

# %%
PLAN.announce("zero-shot")
zero_shot = bench.run(task_list, Path(OUT) / "zero_shot", "model", budget_s=P.budget_s, workers=0,
                      options=model_options(P, model_name), tasks_name=task_set)
print(runs.closing_line(zero_shot))

# %% [markdown]
# ## Results
# pass@2 side by side, then where the model's answers went wrong.

# %%
report.plot_accuracy({"copy input": floor["pass_at_2"], f"zero-shot {model_name}": zero_shot["pass_at_2"]},
                     title=f"pass@2 on {len(task_list)} tasks of {task_set}")
plt.show()
rows = runs.read_results(Path(OUT) / "zero_shot")
report.plot_run(rows, title=f"zero-shot {model_name}")
plt.show()
print(dict(report.error_kinds(rows)))

# %% [markdown]
# ## One task, the model's answer
# The first test input beside the model's first attempt (blank where it gave none).

# %%
first = rows[0]
answers = [attempts[0] if attempts else None for attempts in first["attempts"]]
report.draw_task(tasks.strip_test_outputs(task_list.by_id()[first["task_id"]]), answers=answers)
plt.show()
print(f"report with every task: {Path(OUT) / 'zero_shot' / 'report.html'}")

# %% [markdown]
# ## Browse the run
# Every task with its candidates beside the expected output (wrong cells marked); filter by
# status, search by id, or open a task in the solve-by-hand view and try it yourself.

# %%
from shared.web import show_run

show_run(Path(OUT) / "zero_shot", height=700)
