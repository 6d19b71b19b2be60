"""`python -m shared gpu-check`: the CUDA path end to end, with no hub access.

Stages, each timed and recorded (a failing stage is reported with its error; the next runs):
device and dtype choice; a few hundred steps of a small from-scratch model on clean arc1/train
examples (training tokens/s, peak memory, loss); the saved model reloaded in 4 bits
(bitsandbytes, CUDA only) and compared with the 16-bit one; augmented inference with
test-time training on arc1/eval tasks (accuracy, time per task, generation tokens/s). Prints
one line per stage and writes every figure to --out as JSON. Runs on a CPU too, with small
settings, which is how the tests keep it working.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import traceback
from pathlib import Path


def _peak_gb(torch) -> float | None:
    if not torch.cuda.is_available():
        return None
    return round(torch.cuda.max_memory_allocated() / 2**30, 3)


def _stage(name: str, report: dict, fn) -> None:
    """Run one stage; its figures or its error land in report[name]."""
    t0 = time.perf_counter()
    try:
        figures = fn()
        report[name] = {"ok": True, **figures}
    except Exception as e:  # a check reports what broke and goes on to the next stage
        report[name] = {"ok": False, "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc(limit=-4)}
    report[name]["seconds"] = round(time.perf_counter() - t0, 2)
    shown = {k: v for k, v in report[name].items() if k != "traceback"}
    print(f"{name}: {json.dumps(shown)}", flush=True)


def check(steps: int = 200, n_tasks: int = 20, budget_s: float = 6.0, layers: int = 4, hidden: int = 256,
          batch_size: int = 8, max_len: int = 1024, max_new_tokens: int = 128, ttt_steps: int = 8,
          n_views: int = 4, out: str | None = None) -> dict:
    import torch

    from shared import bench, tasks
    from shared.models import load_model, pick_device, pick_dtype, tiny_model, tiny_tokenizer
    from shared.train import data, sft, throughput

    report: dict = {}
    work = Path(tempfile.mkdtemp(prefix="gpu_check_"))
    device = pick_device()
    dtype = pick_dtype(device)
    report["device"] = {"device": device, "dtype": str(dtype), "torch": torch.__version__,
                        "name": torch.cuda.get_device_name(0) if device == "cuda" else "cpu",
                        "bf16_supported": bool(device == "cuda" and torch.cuda.is_bf16_supported())}
    print(f"device: {json.dumps(report['device'])}", flush=True)
    tok = tiny_tokenizer()
    model = tiny_model(tok, layers=layers, hidden=hidden).to(device=device, dtype=dtype)
    folder = work / "model"

    def train():
        pool = tasks.training_for("arc1/eval", "arc1/train")
        examples = data.build_examples(pool, tok, "plain", max_len, n_augment=1)
        if device == "cuda":
            torch.cuda.reset_peak_memory_stats()
        result = sft.train(model, tok, examples, work / "train", steps=steps, batch_size=batch_size, lr=1e-3,
                           save_steps=steps + 1, resume=False)
        losses = [h["loss"] for h in result.log_history if "loss" in h]
        sft.save_model(model, tok, folder, "plain")
        return {"parameters": sum(p.numel() for p in model.parameters()), "steps": result.global_step,
                "examples": len(examples), "dropped_too_long": examples.dropped_too_long,
                "train_tokens_per_s": round(result.steady_tokens_per_s, 1),
                "first_loss": round(losses[0], 4) if losses else None,
                "last_loss": round(losses[-1], 4) if losses else None, "peak_gpu_gb": _peak_gb(torch)}

    def four_bit():
        if device != "cuda":
            raise RuntimeError("4-bit loading needs CUDA; skipped on this machine")
        q, qtok = load_model(folder, device=device, load_in_4bit=True)
        full, _ = load_model(folder, device=device)
        probe = qtok("input:\n12\n34\noutput:\n", return_tensors="pt", add_special_tokens=False).to(device)
        with torch.inference_mode():
            a = torch.log_softmax(q(**probe).logits.float(), -1)
            b = torch.log_softmax(full(**probe).logits.float(), -1)
        return {"is_4bit": bool(getattr(q, "is_loaded_in_4bit", False)),
                "footprint_mb_4bit": round(q.get_memory_footprint() / 2**20, 2),
                "footprint_mb_16bit": round(full.get_memory_footprint() / 2**20, 2),
                "max_logprob_diff": round(float((a - b).abs().max()), 4),
                "same_argmax": bool((a.argmax(-1) == b.argmax(-1)).float().mean() > 0.9)}

    def ttt():
        from shared.solvers.ttt import TTTSolver

        eval_tasks = tasks.load("arc1/eval")[:n_tasks]
        if device == "cuda":
            torch.cuda.reset_peak_memory_stats()
        solver = TTTSolver(model=str(folder), steps=ttt_steps, max_len=max_len, max_new_tokens=max_new_tokens,
                           n_views=n_views, device=device)
        prompts = throughput.task_prompts(eval_tasks, solver.inner.tokenizer, "plain", max_len)
        speed = throughput.generation_speed(solver.model, solver.inner.tokenizer, prompts[:4], max_new_tokens)
        summary = bench.run(eval_tasks, work / "ttt_run", solver, budget_s=budget_s, workers=0, progress=False,
                            tasks_name="arc1/eval")
        return {"tasks": summary["n_tasks"], "solved": summary["solved"], "pass_at_2": summary["pass_at_2"],
                "seconds_per_task": summary["time_per_task_s"]["mean"], "generate_tokens_per_s": speed["tokens_per_s"],
                "peak_gpu_gb": _peak_gb(torch)}

    _stage("train", report, train)
    _stage("four_bit", report, four_bit)
    _stage("ttt", report, ttt)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(report, indent=1))
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m shared gpu-check", description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=200, help="training steps of the from-scratch model (default 200)")
    p.add_argument("--tasks", type=int, default=20, help="arc1/eval tasks for TTT inference (default 20)")
    p.add_argument("--budget-s", type=float, default=6.0, help="per-task budget for TTT + inference (default 6)")
    p.add_argument("--layers", type=int, default=4, help="layers of the from-scratch model (default 4)")
    p.add_argument("--hidden", type=int, default=256, help="its width (default 256)")
    p.add_argument("--batch-size", type=int, default=8, help="training examples per step (default 8)")
    p.add_argument("--max-new-tokens", type=int, default=128, help="longest answer in the TTT stage (default 128)")
    p.add_argument("--ttt-steps", type=int, default=8, help="test-time training steps per task (default 8)")
    p.add_argument("--out", help="write the figures as JSON here")
    args = p.parse_args(argv)
    report = check(args.steps, args.tasks, args.budget_s, args.layers, args.hidden, args.batch_size,
                   max_new_tokens=args.max_new_tokens, ttt_steps=args.ttt_steps, out=args.out)
    failed = [k for k, v in report.items() if isinstance(v, dict) and v.get("ok") is False]
    print(f"gpu-check: {len(failed)} stages failed {failed}")
    return 1 if report.get("train", {}).get("ok") is False else 0
