# %% [markdown]
# # Kaggle · offline submission
#
# For the ARC Prize competition on Kaggle, where notebooks run with no internet: the suite's
# library is inlined below (generated from source by the builder), the challenges are read
# from Kaggle's input folder, and `submission.json` is written to the working folder.
#
# **You will learn to**
# - run the suite with no network and no clone;
# - point the model member at weights attached as a Kaggle dataset;
# - produce a submission Kaggle accepts, checked before it is written.

# %% tags=["parameters"]
PROFILE = "auto"  # smoke | cpu | t4 | a100 | h100 | auto
CHALLENGES = "/kaggle/input/arc-prize-2025/arc-agi_test_challenges.json"
SOLUTIONS = ""  # a solutions file to score against, when there is one
MODEL = ""  # empty: no model member; else a folder of weights attached as a Kaggle dataset
BUDGET_S = 0.0  # 0: the budget of the profile, per task
OUT = "/kaggle/working/run"
SUBMISSION = "/kaggle/working/submission.json"
REPO_URL = "https://github.com/arc-suite/arc-suite"  # unused on Kaggle, kept for the shared setup cell

# %%
# @inline shared

# %%
import json
import shutil
from pathlib import Path

from shared import bench, config, scoring, tasks
from shared.solvers.ensemble import profile_options

P = config.profile(PROFILE)
if not Path(CHALLENGES).exists():
    # away from Kaggle (a laptop, the smoke test): a challenges file made the same shape from
    # the profile's task set, so every line below runs as it would there
    local = Path("outputs/kaggle_smoke")
    local.mkdir(parents=True, exist_ok=True)
    demo = tasks.load(P.task_set)[: P.n_tasks]
    CHALLENGES, SOLUTIONS = str(local / "challenges.json"), str(local / "solutions.json")
    Path(CHALLENGES).write_text(json.dumps({t.id: tasks.strip_test_outputs(t).to_json() for t in demo}))
    Path(SOLUTIONS).write_text(json.dumps({t.id: [p.output.tolist() for p in t.test] for t in demo}))
    OUT, SUBMISSION = str(local / "run"), str(local / "submission.json")
challenges = tasks.load(CHALLENGES, solutions=SOLUTIONS or None)
members = ("dsl", "model") if MODEL else ("dsl",)
ensemble = profile_options(P, model=MODEL or None, solvers=members)
print(f"{len(challenges)} tasks from {CHALLENGES}; ensemble {members}; profile {P.name}")

# %%
summary = bench.run(challenges, OUT, "ensemble", budget_s=BUDGET_S or P.budget_s,
                    workers=1 if MODEL else P.workers, options=ensemble, tasks_name=CHALLENGES)
print(bench.closing_line(summary))

# %% [markdown]
# ## Check and write the submission

# %%
submission = scoring.read_submission(Path(OUT) / "submission.json")
problems = scoring.validate_submission(submission, challenges)
if problems:
    raise SystemExit(f"submission would be rejected: {problems[:5]}")
shutil.copy(Path(OUT) / "submission.json", SUBMISSION)
print(f"wrote {SUBMISSION}: {len(submission)} tasks")
if SOLUTIONS:
    print(scoring.score_submission(submission, challenges).line())
