"""Decoding with a causal LM: batched greedy generation, completion log-likelihoods, and a
depth-first search that keeps every completion above a probability threshold.

The model side of the model solver (imports torch, like `models`). Batches are left-padded
for generation and right-padded for scoring; the depth-first search walks one KV cache,
cropping it back when it returns from a branch, so each explored token costs one step.
"""

from __future__ import annotations

import inspect
import math
import time

import torch


def _stop_ids(model, tokenizer) -> set[int]:
    ids = model.generation_config.eos_token_id if model.generation_config is not None else None
    ids = ids if isinstance(ids, list) else ([ids] if ids is not None else [])
    if tokenizer.eos_token_id is not None:
        ids = [*ids, tokenizer.eos_token_id]
    return set(ids)


def _generate_left_padded(model, tokenizer, prompts: list[str], batch_size: int, per_prompt: int,
                          **settings) -> list[list[str]]:
    """`per_prompt` continuations of each prompt (new text only, special tokens removed), in
    batches left-padded so that generation appends on the right. `max_time` bounds the whole
    call: prompts whose batch would start after it get empty answers."""
    out: list[list[str]] = []
    side = tokenizer.padding_side
    tokenizer.padding_side = "left"
    max_time = settings.pop("max_time", None)
    deadline = None if max_time is None else time.monotonic() + max_time
    try:
        for start in range(0, len(prompts), batch_size):
            chunk = prompts[start:start + batch_size]
            if deadline is not None and time.monotonic() >= deadline:
                out += [[""] * per_prompt for _ in chunk]  # time is up for the whole call, not per chunk
                continue
            left = None if deadline is None else deadline - time.monotonic()
            enc = tokenizer(chunk, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
            with torch.inference_mode():
                gen = model.generate(**enc, pad_token_id=tokenizer.pad_token_id, num_return_sequences=per_prompt,
                                     max_time=left, **settings)
            texts = tokenizer.batch_decode(gen[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)
            out += [texts[i * per_prompt:(i + 1) * per_prompt] for i in range(len(chunk))]
    finally:
        tokenizer.padding_side = side
    return out


def generate_batch(model, tokenizer, prompts: list[str], max_new_tokens: int, max_time: float | None = None,
                   batch_size: int = 8) -> list[str]:
    """Greedy continuations of `prompts` (new text only, special tokens removed), batched."""
    # hub generation configs ship sampling knobs and a repetition penalty (Qwen2.5: 1.05) that
    # push greedy decoding off repetitive grids: all of them are switched off here
    texts = _generate_left_padded(model, tokenizer, prompts, batch_size, 1, max_new_tokens=max_new_tokens,
                                  do_sample=False, max_time=max_time, temperature=None, top_p=None, top_k=None,
                                  repetition_penalty=1.0)
    return [t[0] for t in texts]


def sample_batch(model, tokenizer, prompts: list[str], n: int, max_new_tokens: int, temperature: float = 1.0,
                 seed: int = 0, batch_size: int = 8) -> list[list[str]]:
    """`n` sampled continuations per prompt (plain sampling at `temperature`), reproducible by `seed`."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return _generate_left_padded(model, tokenizer, prompts, batch_size, n, max_new_tokens=max_new_tokens,
                                     do_sample=True, temperature=temperature, top_p=1.0, top_k=0,
                                     repetition_penalty=1.0)


def completion_logprobs(model, tokenizer, pairs: list[tuple[str, str]], batch_size: int = 8) -> list[float]:
    """log p(completion | prompt) summed over the completion's tokens, for each pair."""
    scores: list[float] = []
    for start in range(0, len(pairs), batch_size):
        chunk = pairs[start:start + batch_size]
        seqs, spans = [], []
        for prompt, completion in chunk:
            p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
            c = tokenizer(completion, add_special_tokens=False)["input_ids"]
            seqs.append(p + c)
            spans.append((len(p), len(p) + len(c)))
        width = max(len(s) for s in seqs)
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        ids = torch.tensor([s + [pad] * (width - len(s)) for s in seqs], device=model.device)
        mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in seqs], device=model.device)
        with torch.inference_mode():
            logp = torch.log_softmax(model(input_ids=ids, attention_mask=mask).logits.float(), dim=-1)
        for row, (a, b) in enumerate(spans):
            # the token at position t is predicted by the logits at t - 1
            targets = ids[row, a:b]
            scores.append(float(logp[row, a - 1:b - 1].gather(-1, targets[:, None]).sum()))
    return scores


def dfs_sample(model, tokenizer, prompt: str, max_new_tokens: int, min_prob: float, max_results: int = 8,
               max_time: float | None = None, max_nodes: int = 20000) -> list[tuple[str, float]]:
    """Every completion (ending in a stop token) whose probability is at least `min_prob`,
    best first, as (text, log-probability). Explores children in order of probability and prunes
    a branch as soon as its running probability falls under the threshold."""
    from transformers import DynamicCache

    floor = math.log(min_prob)
    stops = _stop_ids(model, tokenizer)
    deadline = time.monotonic() + max_time if max_time else None
    ids = tokenizer(prompt, return_tensors="pt", add_special_tokens=False)["input_ids"].to(model.device)
    cache = DynamicCache()
    # transformers renames past_key_values to cache during 5.x; pass whichever forward takes
    key = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
    with torch.inference_mode():
        logits = model(input_ids=ids, use_cache=True, **{key: cache}).logits[0, -1]

        def children(step_logits, cum: float) -> list[tuple[int, float]]:
            lp = torch.log_softmax(step_logits.float(), dim=-1)
            keep = torch.nonzero(lp + cum >= floor).flatten()
            order = keep[torch.argsort(lp[keep], descending=True)]
            return [(int(t), cum + float(lp[t])) for t in order]

        base = ids.shape[1]
        stack = [children(logits, 0.0)]
        path: list[int] = []
        results: list[tuple[list[int], float]] = []
        nodes = 0
        while stack and len(results) < max_results and nodes < max_nodes:
            if deadline is not None and time.monotonic() > deadline:
                break
            frame = stack[-1]
            if not frame:
                stack.pop()
                if path:
                    path.pop()
                    extra = cache.get_seq_length() - (base + len(path))
                    if extra:
                        cache.crop(-extra)  # negative: remove that many (positive meant a length once)
                continue
            token, cum = frame.pop(0)
            if token in stops:
                results.append((list(path), cum))
                continue
            if len(path) >= max_new_tokens:
                continue  # too long to be an answer
            path.append(token)
            nodes += 1
            step = torch.tensor([[token]], device=model.device)
            logits = model(input_ids=step, use_cache=True, **{key: cache}).logits[0, -1]
            stack.append(children(logits, cum))
    results.sort(key=lambda r: -r[1])
    return [(tokenizer.decode(toks, skip_special_tokens=True), lp) for toks, lp in results]
