# %% [markdown]
# # 08 · Verified program synthesis
#
# Instead of writing the answer grid, write a program: a Python `solve(grid)` that turns every
# demonstration input into its output. A verifier runs it in a sandbox and accepts it only if
# it reproduces **every** demo pair, and then the held-out test output. Programs come from
# coding agents (curated task chunks and a prompt) or from a language model in a loop that
# samples K programs, shows the failures back, and revises up to R rounds.
#
# **You will learn to**
# - curate task chunks for coding agents (test outputs stripped) with the contract they follow;
# - verify programs from any number of agents in the sandbox and read the status ladder:
#   solved / passes demos only / partial / wrong / error / timeout, unioned across agents;
# - run the synthesis loop with a local model or any OpenAI-compatible endpoint, and see the
#   feedback a failing program gets;
# - see what the sandbox refuses (files, processes, network) and why that keeps scores honest.

# %% tags=["parameters"]
PROFILE = "auto"  # smoke (CPU, tiny model, seconds) | cpu | t4 | a100 | h100 | auto
TASKS = ""  # empty: the task set of the profile; or arc1/train, arc1/eval, a folder
N_TASKS = 0  # 0: the notebook's default for the profile (shared.plan: about an hour on its GPU)
MODEL = ""  # empty: the model of the profile; tiny, a hub id, or the model name an endpoint serves
BACKEND = "transformers"  # transformers (a local model) | openai (ARC_LLM_BASE_URL: vLLM, Ollama, hosted)
SAMPLES = 0  # 0: programs per request of the profile
ROUNDS = -1  # -1: revision rounds of the profile
OUT = "outputs/08_program_synthesis"

# %%
from pathlib import Path

import matplotlib.pyplot as plt

from shared import config, plan, report, runs, tasks
from shared.agents import curate, examples, synth, verify
from shared.agents.backends import make_backend
from shared.programs import read_programs

P = config.profile(PROFILE)
sizes = P.synth  # programs per request, revision rounds, answer length, temperature
task_set = TASKS or P.task_set
model_name = MODEL or P.model
samples = SAMPLES or sizes.samples
rounds = sizes.rounds if ROUNDS < 0 else ROUNDS
task_list = tasks.load(task_set)[: N_TASKS or plan.defaults("08_program_synthesis", P)["n_tasks"]]
out = Path(OUT)
print(f"profile {P.name}: {len(task_list)} tasks of {task_set}; {BACKEND} model {model_name}, "
      f"{samples} programs per request, {rounds} revision rounds")
PLAN = plan.notebook("08_program_synthesis", P, n_tasks=len(task_list), samples=samples, rounds=rounds,
                     max_new_tokens=sizes.max_new_tokens)
PLAN.show()

# %% [markdown]
# ## Curate: task chunks for coding agents
# One chunk per agent, tasks dealt by size so the work is even; test outputs are stripped, and
# each chunk comes with a prompt that states the contract (`solve(grid)` on lists of ints,
# numpy available, a time limit, no files or network) and where to write the answers.

# %%
manifest = curate.curate(task_list, out / "curated", agents=2, tasks_name=task_set, filters={"n_tasks": len(task_list)})
for name, chunk in manifest["chunks"].items():
    print(f"{name}: {', '.join(chunk['task_ids'])} -> answers in {chunk['answers']}")
print()
print((out / "curated" / "PROMPT_01.md").read_text()[:900])

# %% [markdown]
# ## The verifier on hand-written programs
# Two "agents" wrote programs for a few arc1/train tasks: some right, one the wrong flip, one
# that crashes, one that tries to read the answer key from disk. Each program runs on every
# demo pair and then the test input; a task takes the best status any agent reached.

# %%
example_files = examples.write_examples(out / "handwritten")
train = tasks.load("arc1/train")
example_programs = [p for f in example_files for p in read_programs(f)]
example_tasks = [train.by_id()[i] for i in sorted({p.task_id for p in example_programs})]
hand = verify.run_verify(example_tasks, example_programs, out / "handwritten_run", workers=P.workers,
                         tasks_name="arc1/train")
print(runs.closing_line(hand), "| statuses:", hand["statuses"])
for agent, a in hand["agents"].items():
    print(f"  {agent}: solved {a['solved']} of its {a['tasks']} tasks")
for row in runs.read_results(out / "handwritten_run"):
    print(f"{row['task_id']}: {row['status']}")
    for prog in row["trace"]["programs"]:
        print(f"    {Path(prog['source']).stem:8} {prog['status']:13} {prog['verdict']['detail'][:90]}")

# %% [markdown]
# ## The synthesis loop
# The model sees the demos (never a test output) and writes K programs; each runs in the
# sandbox on the demos. The loop stops at the first program that passes every demo; otherwise
# the best program goes back with feedback naming the failing pairs and the cells that differ.
# The smoke profile's tiny random model writes no valid program, so every task ends without
# code there: the loop, the feedback and the report still run end to end.

# %%
if BACKEND == "transformers":
    backend = make_backend(BACKEND, model_name, load_in_4bit=P.load_in_4bit)
else:
    backend = make_backend(BACKEND, model_name)
PLAN.announce("synthesis")
synth_summary = synth.run_synth(task_list, backend, out / "synth", samples, rounds, sizes.temperature,
                                sizes.max_new_tokens, workers=P.workers)
print(runs.closing_line(synth_summary, "passes_demos",
                        note=f"{synth_summary['with_code']}/{synth_summary['replies']} replies held a program"))
print("statuses:", synth_summary["statuses"])

# %% [markdown]
# ## One transcript
# The first task's conversation: the model's first reply, then the feedback it was given.

# %%
first = synth.read_transcripts(out / "synth")[0]
print(f"task {first['task_id']}: {first['status']} after {first['rounds_used']} revision rounds")
for message in first["messages"][1:4]:
    print(f"--- {message['role']} ---\n{message['content'][:700]}")

# %% [markdown]
# ## Verify the model's programs on the test outputs
# Every task of the run is reported, so a task without a program counts as unsolved.

# %%
programs_file = out / "synth" / "programs.json"
model_programs = read_programs(programs_file) if programs_file.exists() else []
verified = verify.run_verify(list(task_list), model_programs, out / "synth_verified", workers=P.workers,
                             tasks_name=task_set)
print(runs.closing_line(verified), "| statuses:", verified["statuses"])
rows = runs.read_results(out / "synth_verified")
report.plot_run(rows, title=f"programs from {model_name}")
plt.show()

# %% [markdown]
# ## Results
# The hand-written programs are a worked example on training tasks, not a score; the model's
# number is what the loop achieved on this task set.

# %%
report.plot_accuracy({"hand-written examples (arc1/train)": hand["pass_at_2"],
                      f"synth {model_name}": verified["pass_at_2"]}, title="tasks solved by a verified program")
plt.show()
print(f"reports: {out / 'handwritten_run' / 'report.html'} and {out / 'synth_verified' / 'report.html'}")
