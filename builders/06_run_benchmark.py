# %% [markdown]
# # 06 · Full benchmark into submission.json
#
# The whole evaluation set through the profile's ensemble: on a CPU the DSL program search;
# on a GPU the program search first (its answers reproduce every demo), then the language
# model with test-time training (a fresh LoRA per task, trained on its demos) and augmented
# views ranked by product of experts. The run is resumable: rerun the
# notebook after a disconnect and finished tasks are skipped. On a GPU the default is a slice
# that ends in about an hour (the plan below prints the estimate); set `N_TASKS = 400` for the
# whole set, several hours with a model member, and `DRIVE = True` so that it survives a disconnect.
#
# **You will learn to**
# - run an ensemble of solvers over an evaluation set with an enforced per-task budget;
# - read which solver produced each answer, and where the time went;
# - produce and check a Kaggle `submission.json`.

# %% tags=["parameters"]
PROFILE = "auto"  # smoke | cpu | t4 | a100 | h100 | auto
TASKS = ""  # empty: arc1/eval, or the task set of the smoke profile; or arc2/eval, a folder, a challenges file
N_TASKS = 0  # 0: the profile's slice (about an hour on its GPU; cpu: all 400); 400 for the full set
SOLVERS = ""  # empty: the ensemble of the profile; or comma separated, such as dsl,model
MODEL = ""  # empty: the model of the profile; a hub id or a folder with a fine-tuned model
BUDGET_S = 0.0  # 0: the budget of the profile, per task
OUT = "outputs/06_benchmark"

# %%
import json
from pathlib import Path

import matplotlib.pyplot as plt

from shared import bench, config, plan, report, runs, scoring, tasks
from shared.solvers.ensemble import profile_options

P = config.profile(PROFILE)
task_set = TASKS or P.task_set  # arc1/eval on every profile but smoke
task_list = tasks.load(task_set)
n = N_TASKS or plan.defaults("06_run_benchmark", P)["n_tasks"] or len(task_list)
task_list = task_list[:n]
ensemble = profile_options(P, model=MODEL or None, solvers=tuple(SOLVERS.split(",")) if SOLVERS else None)
budget = BUDGET_S or P.budget_s
# a model member loads its weights once per worker: on a GPU one worker holds the model
workers = 1 if {"model", "ttt"} & set(ensemble["members"]) else P.workers
print(f"profile {P.name}: {len(task_list)} tasks of {task_set}, ensemble {ensemble['members']}, "
      f"{budget:g} s per task, {workers} workers")
PLAN = plan.notebook("06_run_benchmark", config.profile(P.name, budget_s=budget), n_tasks=len(task_list),
                     members=tuple(ensemble["members"]))
PLAN.show()

# %% [markdown]
# ## Run
# One line per task lands in `results.jsonl` as it finishes; the run folder also gets
# `submission.json`, `summary.json` and `report.html`.

# %%
PLAN.announce("benchmark")
summary = bench.run(task_list, OUT, "ensemble", budget_s=budget, workers=workers, options=ensemble,
                    tasks_name=task_set)
print(runs.closing_line(summary))

# %% [markdown]
# ## Which solver answered, and how long tasks took

# %%
rows = runs.read_results(OUT)
print({f"{s} / {status}": k for (s, status), k in sorted(report.answered_by(rows).items())})
report.plot_times_and_solvers(rows, budget)
plt.show()
report.plot_run(rows, title=f"{'+'.join(ensemble['members'])} on {task_set}")
plt.show()

# %% [markdown]
# ## The submission file
# Every task id, one entry per test input in order, both attempts: what Kaggle checks.

# %%
sub_path = Path(OUT) / "submission.json"
submission = scoring.read_submission(sub_path)
problems = scoring.validate_submission(submission, task_list)
print(f"{sub_path}: {len(submission)} tasks, {len(problems)} problems {problems[:3]}")
if all(t.has_solutions() for t in task_list):
    print(scoring.score_submission(submission, task_list).line())
print(json.dumps(summary, indent=1)[:600])

# %% [markdown]
# ## Browse the run
# Filter by status or by the solver that answered; each task shows its candidates, the
# expected output and, for the program search, the program that produced the answer.

# %%
from shared.web import show_run

show_run(OUT, height=800)
