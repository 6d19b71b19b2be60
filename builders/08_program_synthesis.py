# %% [markdown]
# # 08 · Verified program synthesis
#
# Instead of writing the answer grid, write a program: a Python `solve(grid)` that turns every
# demonstration input into its output. A verifier runs it in a sandbox and accepts it only if
# it reproduces **every** demo pair, and then the held-out test output. Programs come from
# coding agents, each given a curated chunk of tasks (test outputs stripped) and a prompt, or
# from a language model in a loop: sample K programs and revise them with the failures shown,
# or evolve a population scored by the demo cells it gets right.
#
# The test outputs stay with the orchestrator. An agent checks its work against its own chunk,
# which has none, so it can learn only what the demos say; the verdict on the test outputs comes
# once, after every agent is done.
#
# **You will learn to**
# - curate task chunks for coding agents, each with the contract and its own demos-only check;
# - run agents against a model server (here a scripted one on this machine, on Colab a real
#   model), with the `sample` and `evolve` strategies, and read the feedback a failing program gets;
# - verify the agents' answers on the test outputs and read the status ladder: solved / passes
#   demos only / partial / wrong / error / timeout, unioned across agents;
# - see what the sandbox refuses (reading the answer key, processes, network) and why that keeps
#   scores honest.

# %% tags=["parameters"]
PROFILE = "auto"  # smoke (CPU, tiny model, seconds) | cpu | t4 | a100 | h100 | auto
BACKEND = "auto"  # auto: scripted on a CPU, transformers on a GPU | scripted | transformers | openai
TASKS = ""  # empty: the profile's task set (scripted: the arc1/train tasks its script knows)
N_TASKS = 0  # 0: the notebook's default for the profile (shared.plan: about an hour on its GPU)
MODEL = ""  # empty: the model of the profile; tiny, a hub id, or the model name an endpoint serves
BASE_URL = ""  # openai: the endpoint, e.g. http://localhost:8000/v1 (empty: ARC_LLM_BASE_URL)
SAMPLES = 0  # 0: the profile's programs per request (the evolve agent's population)
ROUNDS = -1  # -1: the profile's revision rounds (the evolve agent's generations)
OUT = "outputs/08_program_synthesis"

# %%
from pathlib import Path

import matplotlib.pyplot as plt

from shared import config, plan, report, runs, tasks
from shared.agents import curate, examples, scripted, synth, verify
from shared.agents.backends import make_backend
from shared.programs import read_programs

P = config.profile(PROFILE)
sizes = P.synth  # programs per request, revision rounds, answer length, temperature
backend_name = BACKEND if BACKEND != "auto" else ("transformers" if P.gpu else "scripted")
model_name = MODEL or ("scripted" if backend_name == "scripted" else P.model)
samples = SAMPLES or sizes.samples
rounds = sizes.rounds if ROUNDS < 0 else ROUNDS
if backend_name == "scripted" and not TASKS:
    task_set, task_list = "arc1/train", scripted.demo_tasks()
else:
    task_set = TASKS or P.task_set
    task_list = tasks.load(task_set)[: N_TASKS or plan.defaults("08_program_synthesis", P)["n_tasks"]]
out = Path(OUT)
print(f"profile {P.name}: {len(task_list)} tasks of {task_set}; {backend_name} model {model_name}, "
      f"{samples} programs per request, {rounds} revision rounds")
PLAN = plan.notebook("08_program_synthesis", P, n_tasks=len(task_list), samples=samples, rounds=rounds,
                     max_new_tokens=sizes.max_new_tokens)
PLAN.show()

# %% [markdown]
# ## The model server
# The agents talk to an OpenAI-compatible `/v1/chat/completions` endpoint. Offline, that is a
# scripted server on this machine: for each task it answers first with a copy of the input and
# with a program that tries to read the answer key from disk, and after feedback with the right
# program (for all tasks but one). On Colab, `BACKEND` picks a real model: `transformers` loads
# the profile's model, `openai` talks to vLLM, Ollama or a hosted API.

# %%
server = None
if backend_name == "scripted":
    server = scripted.serve(scripted.demo_script(), task_list)
    backend = make_backend("openai", model_name, base_url=server.url)
    print(f"scripted server at {server.url}")
elif backend_name == "openai":
    backend = make_backend("openai", model_name, base_url=BASE_URL or None)
else:
    backend = make_backend("transformers", model_name, load_in_4bit=P.load_in_4bit)

# %% [markdown]
# ## Curate: task chunks for coding agents
# One chunk per agent, tasks dealt by size so the work is even; test outputs are stripped, and
# each chunk comes with a prompt that states the contract (`solve(grid)` on lists of ints,
# numpy available, a time limit, no files or network), where to write the answers, and the
# command that checks them against the chunk itself.

# %%
curated = out / "curated"
manifest = curate.curate(task_list, curated, agents=2, tasks_name=task_set, filters={"n_tasks": len(task_list)})
for name, chunk in manifest["chunks"].items():
    print(f"{name}: {', '.join(chunk['task_ids'])} -> answers in {chunk['answers']}; check: {chunk['check']}")
prompt = (curated / "PROMPT_01.md").read_text()
print()
print(prompt[prompt.index("Write your answers"):])

# %% [markdown]
# ## The agents at work
# Each agent gets one chunk, read from its file (no test output in it), and answers into the
# chunk's answers file. The first agent samples K programs and revises the best with its failing
# pairs for R rounds; the second evolves a population: every program is scored by the demo cells
# it gets right, and the best-scoring ones go back with their failures for the next generation.

# %%
PLAN.announce("synthesis")
agent_dirs = {}
for i, (name, chunk) in enumerate(manifest["chunks"].items()):
    strategy = synth.STRATEGIES[i % 2]
    agent_dirs[name] = out / "agents" / Path(chunk["answers"]).stem
    agent = synth.run_synth(tasks.load(curated / name), backend, agent_dirs[name], samples, rounds,
                            sizes.temperature, sizes.max_new_tokens, workers=P.workers, strategy=strategy,
                            answers=curated / chunk["answers"])
    print(f"{chunk['answers']} ({strategy}): "
          + runs.closing_line(agent, "passes_demos", note=f"{agent['calls']} requests, {agent['tokens']} tokens"))
    for record in synth.read_transcripts(agent_dirs[name]):
        scores = f", best demo-cell score by generation {record['best_by_generation']}" if strategy == "evolve" else ""
        print(f"  {record['task_id']}: {record['status']} after {record['rounds_used']} revisions{scores}")

# %% [markdown]
# ## An agent checks its work: demos only
# The prompt's command verifies the answers against the chunk. The chunk has no test outputs,
# so the best a task can reach is "passes every demo", and every other task lists its failing
# pairs: which example, the size expected against the size returned, the first wrong cells.

# %%
first_chunk = next(iter(manifest["chunks"]))
check = verify.run_verify(list(tasks.load(curated / first_chunk)),
                          read_programs(curated / manifest["chunks"][first_chunk]["answers"]), out / "check_01",
                          workers=P.workers, tasks_name=first_chunk)
print("\n".join(verify.report_lines(runs.read_results(out / "check_01"), check)))

# %% [markdown]
# ## One conversation, and what the sandbox refused
# The first task's conversation: the task, the model's reply, the feedback it was given. Then
# every program the sandbox refused: reading the answer key is `forbidden`, whatever the program
# does with the exception, and it counts as an error.

# %%
first = synth.read_transcripts(agent_dirs[first_chunk])[0]
print(f"task {first['task_id']}: {first['status']} after {first['rounds_used']} revision rounds")
for message in first["messages"][:3]:
    print(f"--- {message['role']} ---\n{message['content'][:700]}")
for name in agent_dirs.values():
    for record in synth.read_transcripts(name):
        for sample in record["samples"]:
            if sample.get("sandbox") == "forbidden":
                print(f"refused: {record['task_id']} sample {sample['sample']}: {sample['detail'][:100]}")

# %% [markdown]
# ## The verifier on hand-written programs
# Two "agents" wrote programs for a few arc1/train tasks: some right, one the wrong flip, one
# that crashes, one that tries to read the answer key from disk. A task takes the best status
# any agent reached.

# %%
example_files = examples.write_examples(out / "handwritten")
train = tasks.load("arc1/train")
example_programs = [p for f in example_files for p in read_programs(f)]
example_tasks = [train.by_id()[i] for i in sorted({p.task_id for p in example_programs})]
hand = verify.run_verify(example_tasks, example_programs, out / "handwritten_run", workers=P.workers,
                         tasks_name="arc1/train")
print(runs.closing_line(hand), "| statuses:", hand["statuses"])
for row in runs.read_results(out / "handwritten_run"):
    print(f"{row['task_id']}: {row['status']}")
    for prog in row["trace"]["programs"]:
        print(f"    {Path(prog['source']).stem:8} {prog['status']:13} {prog['verdict']['detail'][:90]}")

# %% [markdown]
# ## The orchestrator verifies on the test outputs
# Only now, with every agent done, do the test outputs come in: `verify_curated` (the command
# `python -m shared verify --curated DIR --out RUN`) reads the answers files the manifest names,
# records which came back and when, and reports every curated task, so one without a program
# counts as unsolved.

# %%
if server is not None:
    server.close()
verified = verify.verify_curated(curated, out / "synth_verified", workers=P.workers)
for answers, got in verified["returned"].items():
    print(f"{answers}: " + (f"{got['programs']} programs, {got['size']} bytes, {got['mtime']}" if got["returned"]
                            else "not returned"))
print("\n".join(verify.report_lines(runs.read_results(out / "synth_verified"), verified)))
report.plot_run(runs.read_results(out / "synth_verified"), title=f"programs from {model_name}")
plt.show()

# %% [markdown]
# ## Results
# The hand-written programs are a worked example on training tasks, not a score; the agents'
# number is what they achieved on this task set (the scripted server's, offline, only shows
# the flow).

# %%
report.plot_accuracy({"hand-written examples (arc1/train)": hand["pass_at_2"],
                      f"agents with {model_name}": verified["pass_at_2"]}, title="tasks solved by a verified program")
plt.show()
print(f"reports: {out / 'handwritten_run' / 'report.html'} and {out / 'synth_verified' / 'report.html'}")
