"""Language-model backends for the synthesis loop: chat messages in, n replies out.

- `transformers`: a local model through `shared.models.load_model` ("tiny" offline, or any
  hub id / folder on Colab), prompted with its chat template, sampled (greedy at
  temperature 0).
- `openai`: any OpenAI-compatible chat endpoint (vLLM, Ollama, llama.cpp, hosted APIs),
  POSTing to {base_url}/chat/completions with the stdlib only (urllib; the `openai` package
  is not needed). The base URL comes from ARC_LLM_BASE_URL (else OPENAI_BASE_URL), the key
  from ARC_LLM_API_KEY (else OPENAI_API_KEY; none for a local server). Timeouts, refused
  connections, unreadable bodies and HTTP 408/409/425/429/5xx are retried with backoff; any
  other HTTP error is a BackendError at once.

Every backend counts what it spent in `usage` (requests, tokens), which budgets read.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Protocol

BACKENDS = ("transformers", "openai")
SMALL_MODEL_PARAMS = 50_000_000  # below this, CPU generation runs on one thread


RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})  # busy or restarting: worth asking again
CHARS_PER_TOKEN = 4  # estimate when a server reports no usage (English and code; digit grids run ~2)


class BackendError(RuntimeError):
    """A backend that cannot answer: unreachable server, HTTP error, prompt too long."""


class _Transient(Exception):
    """A failure worth retrying (timeout, refused connection, busy server, torn reply)."""


@dataclass
class Usage:
    """What a backend spent since it was made: `complete` calls, HTTP posts, retries, tokens
    (prompt + completion, as the server counted them, else estimated)."""

    requests: int = 0
    posts: int = 0
    retries: int = 0
    tokens: int = 0


def estimate_tokens(messages: list[dict], replies: list[str]) -> int:
    chars = sum(len(m.get("content") or "") for m in messages) + sum(len(r) for r in replies)
    return max(1, chars // CHARS_PER_TOKEN)


class Backend(Protocol):
    name: str
    usage: Usage

    def complete(self, messages: list[dict], n: int, temperature: float, max_tokens: int) -> list[str]: ...


class TransformersBackend:
    """A local causal LM; one generate call returns n sampled replies."""

    name = "transformers"

    def __init__(self, model: str = "tiny", device: str | None = None, dtype=None, load_in_4bit: bool = False,
                 seed: int = 0):
        from shared.models import context_length, load_model

        self.model_name = str(model)
        self.model, self.tokenizer = load_model(self.model_name, device=device, dtype=dtype,
                                                load_in_4bit=load_in_4bit)
        self.context = context_length(self.model)
        self.seed = seed
        self.usage = Usage()
        # a small model on a CPU runs far faster on one thread: its matrices are too small to
        # split, and on a shared machine threads that wait for each other stall (60 s vs 1 s
        # for the smoke profile's loop with two busy neighbours)
        n_params = sum(p.numel() for p in self.model.parameters())
        self.one_thread = self.model.device.type == "cpu" and n_params < SMALL_MODEL_PARAMS

    def render(self, messages: list[dict]) -> str:
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True,
                                                      enable_thinking=False)
        return "\n\n".join(f"{m['role']}:\n{m['content']}" for m in messages) + "\n\nassistant:\n"

    def complete(self, messages: list[dict], n: int, temperature: float, max_tokens: int) -> list[str]:
        import torch

        prompt = self.render(messages)
        enc = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=False).to(self.model.device)
        n_prompt = enc["input_ids"].shape[1]
        room = self.context - n_prompt
        if room < 1:
            raise BackendError(f"prompt of {n_prompt} tokens does not fit the model's context of {self.context}")
        sampling = temperature > 0
        torch.manual_seed(self.seed)
        self.seed += 1  # the next call draws different samples, and a rerun draws the same ones
        threads = torch.get_num_threads()
        if self.one_thread:
            torch.set_num_threads(1)
        try:
            replies = self._generate(enc, n_prompt, n, sampling, temperature, min(max_tokens, room))
        finally:
            torch.set_num_threads(threads)
        self.usage.requests += 1
        self.usage.tokens += n_prompt + sum(len(self.tokenizer(r, add_special_tokens=False)["input_ids"])
                                            for r in replies)
        return replies if sampling else replies * n

    def _generate(self, enc, n_prompt: int, n: int, sampling: bool, temperature: float, max_new: int) -> list[str]:
        import torch

        with torch.inference_mode():
            out = self.model.generate(
                # greedy decoding gives one answer however often it is asked: decode once, copy
                **enc, max_new_tokens=max_new, do_sample=sampling,
                num_return_sequences=n if sampling else 1,
                temperature=temperature if sampling else None, top_p=0.95 if sampling else None, top_k=None,
                pad_token_id=self.tokenizer.pad_token_id)
        return [self.tokenizer.decode(seq[n_prompt:], skip_special_tokens=True) for seq in out]


def endpoint_from_env() -> tuple[str | None, str | None]:
    """(base URL, API key) from ARC_LLM_* or OPENAI_* environment variables."""
    base = os.environ.get("ARC_LLM_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
    key = os.environ.get("ARC_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY")
    return base, key


class OpenAIBackend:
    """An OpenAI-compatible /chat/completions endpoint over urllib (no client library)."""

    name = "openai"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 timeout_s: float = 300.0, retries: int = 2, retry_wait_s: float = 2.0):
        env_base, env_key = endpoint_from_env()
        self.base_url = (base_url or env_base or "").rstrip("/")
        if not self.base_url:
            raise BackendError("no endpoint: set ARC_LLM_BASE_URL (or OPENAI_BASE_URL), e.g. "
                               "http://localhost:8000/v1 for vLLM or http://localhost:11434/v1 for Ollama")
        self.api_key = api_key or env_key
        self.model_name = model
        self.timeout_s = timeout_s
        self.retries = retries            # extra attempts after a transient failure
        self.retry_wait_s = retry_wait_s  # first backoff; doubles each attempt (a loading vLLM needs ~10 s)
        self.usage = Usage()

    def _post(self, payload: dict) -> dict:
        """One chat request, retried on transient failures; the reply's JSON."""
        for attempt in range(self.retries + 1):
            try:
                return self._post_once(payload)
            except _Transient as e:
                if attempt == self.retries:
                    tries = f" (after {attempt + 1} attempts)" if attempt else ""
                    raise BackendError(f"{self.base_url}: {e}{tries}") from None
                self.usage.retries += 1
                time.sleep(self.retry_wait_s * 2 ** attempt)
        raise AssertionError("unreachable")

    def _post_once(self, payload: dict) -> dict:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(f"{self.base_url}/chat/completions", data=json.dumps(payload).encode(),
                                     headers=headers, method="POST")
        self.usage.posts += 1
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as e:
            body = e.read()[:300].decode(errors="replace")
            if e.code in RETRY_STATUS:
                raise _Transient(f"HTTP {e.code}: {body}") from None
            raise BackendError(f"{self.base_url}: HTTP {e.code}: {body}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as e:
            raise _Transient(str(getattr(e, "reason", e)) or type(e).__name__) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise _Transient(f"reply is not JSON: {e}") from None

    def complete(self, messages: list[dict], n: int, temperature: float, max_tokens: int) -> list[str]:
        replies: list[str] = []
        # some servers (Ollama, several hosted APIs) ignore n and answer once: ask again for the rest
        for _ in range(n):
            want = n - len(replies)
            if want <= 0:
                break
            data = self._post({"model": self.model_name, "messages": messages, "n": want,
                               "temperature": temperature, "max_tokens": max_tokens})
            try:
                got = [c["message"]["content"] or "" for c in data["choices"]]
            except (KeyError, TypeError) as e:
                raise BackendError(f"{self.base_url}: unexpected reply shape ({e}): {str(data)[:200]}") from None
            if not got or not all(isinstance(g, str) for g in got):
                raise BackendError(f"{self.base_url}: reply has no text choices: {str(data)[:200]}")
            replies += got[:want]
            counted = data.get("usage", {}).get("total_tokens") if isinstance(data.get("usage"), dict) else None
            self.usage.tokens += counted if isinstance(counted, int) else estimate_tokens(messages, got[:want])
        self.usage.requests += 1
        return replies


def make_backend(name: str, model: str, **options) -> Backend:
    """A backend by name: "transformers" (model: tiny, hub id, folder) or "openai"."""
    if name == "transformers":
        return TransformersBackend(model, **options)
    if name == "openai":
        return OpenAIBackend(model, **options)
    raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
