# %% [markdown]
# # 03 · Distillation: a fine-tuned teacher into a smaller student
#
# A big fine-tuned model answers well but slowly. Train a smaller student to imitate it, then
# weigh what the student keeps (accuracy) against what it gains (tokens per second).
#
# **You will learn to**
# - distil by logits when teacher and student share a tokenizer: match the teacher's softened
#   next-token distribution (KL at a temperature) on the answer tokens;
# - distil by sequences when they do not: the teacher's greedy answers become the targets;
# - compare teacher and student on held-out training tasks: pass@2, tokens/s, parameters.

# %% tags=["parameters"]
PROFILE = "auto"  # smoke (CPU, tiny model, seconds) | cpu | t4 | a100 | h100 | auto
TEACHER = ""  # empty: fine-tune the model of the profile here; or a folder from 02 (its model subfolder)
STUDENT = ""  # empty: tiny-student for a tiny teacher, else Qwen/Qwen2.5-0.5B-Instruct
EVAL_SET = "arc1/eval"  # the set the models will be measured on; none of its tasks trains
TRAIN_TASKS = 0  # 0: the number of the profile; cap on clean training tasks
N_HELDOUT = 0  # 0: the n_tasks of the profile; training tasks kept out to measure on
N_AUGMENT = 2  # views per leave-one-out example
STEPS = 0  # 0: half the train_steps of the profile (teacher and student each)
TEMPERATURE = 2.0  # softens the teacher so its second choices carry signal
ALPHA = 0.5  # weight of the true-answer cross-entropy; the rest is the KL to the teacher
OUT = "outputs/03_distill"

# %%
from pathlib import Path

import matplotlib.pyplot as plt

from shared import bench, config, plan, report, tasks
from shared.models import load_model, prompt_style
from shared.solvers.ensemble import model_options
from shared.train import compare, data, distill, sft

P = config.profile(PROFILE)
pool = tasks.training_for(EVAL_SET)
train_tasks, heldout = data.profile_split(pool, P, N_HELDOUT, TRAIN_TASKS)
run = Path(OUT) / sft.run_name(P.name, TEACHER or P.model)
steps = STEPS or plan.defaults("03_distill", P)["steps"]
print(f"profile {P.name}: training on {len(train_tasks)} clean tasks, measuring on {len(heldout)} held out")
PLAN = plan.notebook("03_distill", P, steps=steps, teacher_steps=0 if TEACHER else steps, n_tasks=len(heldout))
PLAN.show()

# %% [markdown]
# ## The teacher
# A model from 02, or (by default) the profile's model fine-tuned here with LoRA for `steps` steps.

# %%
if TEACHER:
    teacher_folder = Path(TEACHER)
else:
    PLAN.announce("teacher")
    base, base_tok = load_model(P.model, load_in_4bit=P.load_in_4bit)
    examples = data.build_examples(train_tasks, base_tok, prompt_style(base, base_tok), P.max_len, n_augment=N_AUGMENT)
    base = sft.add_lora(base, gradient_checkpointing=P.gradient_checkpointing)
    tuned = sft.train(base, base_tok, examples, run / "teacher_checkpoints", steps=steps, batch_size=P.batch_size,
                      lr=P.lr, grad_accum=P.grad_accum, gradient_checkpointing=P.gradient_checkpointing)
    teacher_folder = sft.save_model(base, base_tok, run / "teacher", prompt_style(base, base_tok))
    print(f"teacher fine-tuned for {tuned.global_step} steps: {examples.summary()}")
teacher, teacher_tok = load_model(str(teacher_folder))
print(f"teacher {teacher_folder}: {teacher.num_parameters():,} parameters")

# %% [markdown]
# ## Distil
# Logit distillation when the tokenizers match (same vocabulary), sequence-level otherwise.

# %%
PLAN.announce("student")
student_name = STUDENT or distill.default_student(teacher_tok)
student, student_tok = distill.load_student(student_name)
result, note = distill.distill(student, student_tok, teacher, teacher_tok, train_tasks, run / "student_checkpoints",
                               steps=steps, batch_size=P.batch_size, lr=P.lr, max_len=P.max_len,
                               n_augment=N_AUGMENT, max_new_tokens=P.max_new_tokens, temperature=TEMPERATURE,
                               alpha=ALPHA)
print(f"student {student_name}: {note}, step {result.global_step}/{steps}")
sft.plot_loss(result.log_history, title=f"distillation loss ({note['method']})")
plt.show()
student_folder = sft.save_model(student, student_tok, run / "student", prompt_style(student, student_tok))
del teacher, student  # the bench and speed runs below load the saved copies

# %% [markdown]
# ## Teacher and student side by side
# pass@2 on the held-out tasks, greedy tokens per second on their prompts, and size.

# %%
PLAN.announce("teacher and student")
summaries = {name: bench.run(heldout, run / name, "model", budget_s=P.budget_s, workers=0,
                             options=model_options(P, str(folder)) | {"load_in_4bit": False},
                             tasks_name="held-out training tasks")
             for name, folder in (("teacher", teacher_folder), ("student", student_folder))}
limit = P.max_len - P.max_new_tokens
extras = {name: distill.speed_and_size(folder, heldout, P.max_new_tokens, limit)
          for name, folder in (("teacher", teacher_folder), ("student", student_folder))}
report.plot_accuracy({name: s["pass_at_2"] for name, s in summaries.items()},
                     title=f"pass@2 on {len(heldout)} held-out training tasks")
plt.show()
compare.runs_table(summaries, extras)
