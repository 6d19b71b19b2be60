# %% [markdown]
# # Kaggle · offline submission
#
# For the ARC Prize competition on Kaggle, where notebooks run with no internet: the suite's
# library is inlined below (generated from source by the builder), the challenges are read
# from Kaggle's input folder, and `submission.json` is written to the working folder.
#
# **You will learn to**
# - run the suite with no network and no clone;
# - find the competition's files whatever its slug, and weights attached as a dataset or a Kaggle Model;
# - stop solving before Kaggle's 12 h limit, with a submission that still answers every task;
# - produce a submission Kaggle accepts, checked before it is written.

# %% tags=["parameters"]
PROFILE = "auto"  # smoke | cpu | t4 | a100 | h100 | auto
KAGGLE_INPUT = "/kaggle/input"  # where Kaggle mounts competitions, datasets and models
CHALLENGES = ""  # empty: the test challenges file found under KAGGLE_INPUT, whatever the competition's slug
SOLUTIONS = ""  # empty: the solutions file beside CHALLENGES when there is one (evaluation sets)
MODEL = ""  # empty: no model member; else a path, or part of the path of weights attached under KAGGLE_INPUT
BUDGET_S = 0.0  # 0: the budget of the profile, per task
DEADLINE_H = 11.5  # Kaggle stops a notebook at 12 h: past this, no task starts and the submission is written
WORKING = "/kaggle/working"  # submission.json is written here, where Kaggle looks for it
OUT = ""  # empty: WORKING/run (the run folder; a rerun in the same session resumes it)

# %%
# @inline shared

# %%
import shutil
import time
from pathlib import Path

from shared import bench, config, kaggle, runs, scoring, tasks
from shared.solvers.ensemble import profile_options

STARTED = time.monotonic()  # the notebook's clock starts about here: setup and inlining take seconds
P = config.profile(PROFILE)
KAGGLE = kaggle.on_kaggle() or Path(KAGGLE_INPUT).exists()
if CHALLENGES or KAGGLE:
    # on Kaggle a missing challenges file is an error naming where it looked, never a demo
    CHALLENGES = CHALLENGES or str(kaggle.find_challenges(KAGGLE_INPUT))
    SOLUTIONS = SOLUTIONS or str(kaggle.find_solutions(CHALLENGES) or "")
    if MODEL and KAGGLE:
        MODEL = str(kaggle.find_model(MODEL, KAGGLE_INPUT))
else:
    # no Kaggle input at all (a laptop, the CI smoke run): a demo on the profile's tasks, in a
    # challenges file of Kaggle's shape, so every line below runs as it would there
    WORKING = "outputs/kaggle_demo"
    Path(WORKING).mkdir(parents=True, exist_ok=True)
    demo = tasks.load(P.task_set)[: P.n_tasks]
    CHALLENGES, SOLUTIONS = f"{WORKING}/challenges.json", f"{WORKING}/solutions.json"
    tasks.write_kaggle(demo, CHALLENGES, SOLUTIONS)
    print(f"DEMO, not a submission: no Kaggle input at {KAGGLE_INPUT}, so {len(demo)} tasks of {P.task_set} "
          f"stand in for the competition, and everything is written under {WORKING}/")
OUT = OUT or f"{WORKING}/run"
# lenient: a malformed task is skipped (and still answered in the submission) rather than stopping the run
challenges = tasks.load(CHALLENGES, solutions=SOLUTIONS or None, lenient=True)
for problem in challenges.skipped:
    print(f"skipped: {problem}")
members = ("dsl", "model") if MODEL else ("dsl",)
ensemble = profile_options(P, model=MODEL or None, solvers=members)
print(f"{len(challenges)} tasks from {CHALLENGES}; ensemble {members}; profile {P.name}; "
      f"solving stops {DEADLINE_H:g} h after the start")

# %%
summary = bench.run(challenges, OUT, "ensemble", budget_s=BUDGET_S or P.budget_s,
                    workers=1 if MODEL else P.workers, options=ensemble, tasks_name=CHALLENGES,
                    deadline=STARTED + DEADLINE_H * 3600)
print(runs.closing_line(summary))

# %% [markdown]
# ## Check and write the submission
#
# Every task gets two attempts per test input: one the run found none for (failed, timed out,
# not started before the deadline) is answered with its test input, so Kaggle still accepts the file.

# %%
submission = scoring.read_submission(Path(OUT) / "submission.json")
problems = scoring.validate_submission(submission, challenges)
if problems:
    raise SystemExit(f"submission would be rejected: {problems[:5]}")
SUBMISSION = Path(WORKING) / "submission.json"
shutil.copy(Path(OUT) / "submission.json", SUBMISSION)
print(f"wrote {SUBMISSION}: {len(submission)} tasks")
if SOLUTIONS:
    print(scoring.score_submission(submission, challenges).line())
