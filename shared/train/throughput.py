"""Training and inference throughput (tokens/s) of a profile's model on ARC prompts.

`python -m shared.train.throughput --profile smoke` trains a LoRA adapter for a few steps on
leave-one-out examples of clean training tasks (the Trainer path SFT uses) and generates
greedily from their prompts, then prints one line each: training tokens/s (after the first
step) and generated tokens/s. Numbers depend on the machine; say which when you report them.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from shared.formats import build_prompt


def generation_speed(model, tokenizer, prompts: list[str], max_new_tokens: int) -> dict:
    """Greedy generation over `prompts` one at a time: new tokens, seconds, tokens/s (prefill included,
    a warm-up call excluded)."""
    import torch

    new_tokens, seconds = 0, 0.0
    if prompts:  # one untimed call first: CUDA context, kernels and caches warm up on it
        enc = tokenizer(prompts[0], return_tensors="pt", add_special_tokens=False).to(model.device)
        with torch.inference_mode():
            model.generate(**enc, max_new_tokens=2, do_sample=False, pad_token_id=tokenizer.pad_token_id,
                           temperature=None, top_p=None, top_k=None)
    for prompt in prompts:
        enc = tokenizer(prompt, return_tensors="pt", add_special_tokens=False).to(model.device)
        t0 = time.perf_counter()
        with torch.inference_mode():
            out = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False,
                                 pad_token_id=tokenizer.pad_token_id, temperature=None, top_p=None, top_k=None)
        if model.device.type == "cuda":
            torch.cuda.synchronize()
        seconds += time.perf_counter() - t0
        new_tokens += out.shape[1] - enc["input_ids"].shape[1]
    return {"tokens": new_tokens, "seconds": round(seconds, 3),
            "tokens_per_s": round(new_tokens / seconds, 1) if seconds else 0.0}


def task_prompts(tasks, tokenizer, style: str, max_prompt_tokens: int) -> list[str]:
    """The first test input's prompt of each task, skipping those over `max_prompt_tokens`."""
    from shared.models import count_tokens

    prompts = [build_prompt(tokenizer, t, 0, style) for t in tasks]
    return [p for p in prompts if count_tokens(tokenizer, p) <= max_prompt_tokens]


def measure(profile_name: str = "smoke", model_name: str | None = None, n_tasks: int = 4, steps: int = 0,
            eval_set: str = "arc1/eval") -> dict:
    """Train `steps` (default: the profile's, at most 20) and generate on `n_tasks` clean training tasks."""
    from shared import config, tasks
    from shared.models import load_model, prompt_style
    from shared.train import data, sft

    P = config.profile(profile_name)
    name = model_name or P.model
    pool = tasks.training_for(eval_set)[:n_tasks]
    model, tok = load_model(name, load_in_4bit=P.load_in_4bit)
    style = prompt_style(model, tok)
    examples = data.build_examples(pool, tok, style, P.max_len, n_augment=2)
    prompts = task_prompts(pool, tok, style, P.max_len - P.max_new_tokens)
    gen = generation_speed(model, tok, prompts, P.max_new_tokens)
    steps = steps or min(P.train_steps, 20)
    with tempfile.TemporaryDirectory() as out:
        result = sft.train(sft.add_lora(model), tok, examples, out, steps=steps, batch_size=P.batch_size, lr=P.lr,
                           save_steps=steps + 1, resume=False)
    return {"profile": P.name, "model": name, "device": str(model.device), "train_steps": result.global_step,
            "train_tokens": result.tokens, "train_tokens_per_s": round(result.steady_tokens_per_s, 1),
            "train_seconds": round(result.seconds, 2), "examples": len(examples),
            "dropped_too_long": examples.dropped_too_long, "generate": gen}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m shared throughput", description=__doc__.splitlines()[0])
    p.add_argument("--profile", default="smoke", help="smoke | cpu | t4 | a100 | h100 | auto (default smoke)")
    p.add_argument("--model", help="override the profile's model (tiny, a hub id or a folder)")
    p.add_argument("--tasks", type=int, default=4, help="clean training tasks to draw examples from (default 4)")
    p.add_argument("--steps", type=int, default=0, help="training steps (default: the profile's, at most 20)")
    args = p.parse_args(argv)
    if args.tasks < 1 or args.steps < 0:
        p.error(f"--tasks must be >= 1 and --steps >= 0, got --tasks {args.tasks} --steps {args.steps}")
    r = measure(args.profile, args.model, args.tasks, args.steps)
    g = r["generate"]
    print(f"profile {r['profile']}, model {r['model']} on {r['device']}")
    print(f"train: {r['train_tokens_per_s']:.0f} tokens/s ({r['train_steps']} LoRA steps, {r['train_tokens']} tokens, "
          f"{r['examples']} examples, {r['dropped_too_long']} dropped as too long)")
    print(f"generate: {g['tokens_per_s']:.0f} tokens/s ({g['tokens']} new tokens in {g['seconds']:.2f} s, greedy)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
