"""Tokenizer + model factory: a hub id or local folder, or `tiny` (random init, offline).

`load_model("tiny")` builds a 2-layer Llama with a one-character-per-token tokenizer made
here, so tests and CI run every model code path without the network; a saved tiny model
loads back through the same `from_pretrained` path as a hub model. Also device/dtype choice,
QLoRA (CUDA only) and LoRA configs, and greedy generation. The only module importing torch.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import torch

from shared.formats import PROMPT_STYLES

TINY = "tiny"
TINY_SEED = 0
TINY_CONTEXT = 8192  # a 10-demo task of 30x30 grids is ~20k characters; smoke tasks are far smaller
TINY_SPECIALS = ("<pad>", "<unk>", "<|endoftext|>", "<|im_start|>", "<|im_end|>")
# every printable ASCII character plus newline: covers grids and every prompt we write
TINY_CHARS = ("\n",) + tuple(chr(c) for c in range(32, 127))
TINY_CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
# Llama/Qwen projection names: attention and MLP, the usual LoRA targets
LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def pick_device() -> str:
    """"cuda" if a GPU is present, else "mps" on Apple silicon, else "cpu"."""
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def pick_dtype(device: str | torch.device) -> torch.dtype:
    """bf16 on CUDA that supports it (A100/H100/L4), fp16 on older CUDA (T4), fp32 elsewhere.

    MPS gets fp32: fp16 training there has no loss scaling and overflows; models that fit a
    Mac are small enough for fp32.
    """
    kind = torch.device(device).type
    if kind == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float32


def qlora_config(compute_dtype: torch.dtype | None = None):
    """A 4-bit NF4 BitsAndBytesConfig with double quantisation; CUDA and bitsandbytes only."""
    if not torch.cuda.is_available():
        raise RuntimeError("4-bit loading (QLoRA) needs a CUDA GPU; none was found. "
                           "Load the model without load_in_4bit on this machine.")
    if importlib.util.find_spec("bitsandbytes") is None:
        raise RuntimeError("4-bit loading (QLoRA) needs bitsandbytes: pip install bitsandbytes")
    from transformers import BitsAndBytesConfig

    return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                              bnb_4bit_compute_dtype=compute_dtype or pick_dtype("cuda"))


def lora_config(r: int = 16, alpha: int = 32, dropout: float = 0.05,
                target_modules: tuple[str, ...] | list[str] | str = LORA_TARGETS):
    """A peft LoraConfig for a causal LM (alpha = 2r is the common starting point)."""
    from peft import LoraConfig

    targets = target_modules if isinstance(target_modules, str) else list(target_modules)
    return LoraConfig(r=r, lora_alpha=alpha, lora_dropout=dropout, target_modules=targets,
                      bias="none", task_type="CAUSAL_LM")


def tiny_tokenizer():
    """One token per character (grids: one per cell), with ChatML specials and a chat template."""
    from tokenizers import Regex, Tokenizer, decoders, pre_tokenizers
    from tokenizers.models import WordLevel
    from transformers import PreTrainedTokenizerFast

    vocab = {tok: i for i, tok in enumerate(TINY_SPECIALS + TINY_CHARS)}
    backend = Tokenizer(WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    backend.decoder = decoders.Fuse()  # characters join back without spaces
    backend.add_special_tokens(list(TINY_SPECIALS))
    return PreTrainedTokenizerFast(
        tokenizer_object=backend, unk_token="<unk>", pad_token="<pad>", eos_token="<|endoftext|>",
        chat_template=TINY_CHAT_TEMPLATE, clean_up_tokenization_spaces=False, model_max_length=TINY_CONTEXT)


def tiny_model(tokenizer, seed: int = TINY_SEED, layers: int = 2, hidden: int = 64):
    """A small Llama randomly initialised from `seed`: by default 2 layers, 64 wide (~80k parameters);
    larger sizes give the from-scratch models of the GPU check and smaller ones distillation students."""
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    # Llama rather than Qwen2: transformers 5 maps a qwen2 config to Qwen2Tokenizer on reload,
    # which would replace our character tokenizer; a llama config keeps the saved one.
    stop_ids = [tokenizer.convert_tokens_to_ids(t) for t in ("<|endoftext|>", "<|im_end|>")]
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=layers,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=TINY_CONTEXT,
        tie_word_embeddings=True, pad_token_id=tokenizer.pad_token_id, bos_token_id=None, eos_token_id=stop_ids,
        arc_prompt_style="plain")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    model.generation_config = GenerationConfig(eos_token_id=stop_ids, pad_token_id=tokenizer.pad_token_id,
                                               do_sample=False)
    return model


def load_model(name_or_path: str | Path = TINY, device: str | None = None, dtype: torch.dtype | None = None,
               load_in_4bit: bool = False):
    """(model, tokenizer) in eval mode on `device` (default: pick_device()).

    "tiny" builds the offline random model; anything else is a hub id or a local folder
    (e.g. a saved tiny model or a checkpoint) loaded with from_pretrained.
    """
    device = device or pick_device()
    dtype = dtype or pick_dtype(device)
    if str(name_or_path) == TINY:
        if load_in_4bit:
            raise ValueError("the tiny model cannot be loaded in 4 bits; it is 80k parameters in fp32")
        tokenizer = tiny_tokenizer()
        model = tiny_model(tokenizer).to(device=device, dtype=dtype)
        if torch.device(device).type == "cpu":
            # its ops are too small to split: extra threads only contend with other processes
            # for the cores (ten times slower on a busy 2-core machine)
            torch.set_num_threads(1)
    else:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(name_or_path)
        if load_in_4bit:
            # bitsandbytes places the weights itself; device_map puts them all on our device
            model = AutoModelForCausalLM.from_pretrained(name_or_path, dtype=dtype, device_map={"": device},
                                                         quantization_config=qlora_config(dtype))
        else:
            model = AutoModelForCausalLM.from_pretrained(name_or_path, dtype=dtype).to(device)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.eval()
    return model, tokenizer


def prompt_style(model, tokenizer) -> str:
    """"plain" or "chat": what the model's config asks for, else chat when a template exists.

    The tiny model records "plain" in its config (as `arc_prompt_style`), and a checkpoint
    trained on one style should record it too, so a reloaded model is prompted as trained.
    """
    style = getattr(model.config, "arc_prompt_style", None)
    if style in PROMPT_STYLES:
        return style
    return "chat" if getattr(tokenizer, "chat_template", None) else "plain"


def context_length(model) -> int:
    """The most tokens (prompt + answer) the model was built for."""
    return int(getattr(model.config, "max_position_embeddings", None) or 2048)


def count_tokens(tokenizer, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def greedy_generate(model, tokenizer, prompt: str, max_new_tokens: int, max_time: float | None = None) -> str:
    """Greedy continuation of `prompt`, stopping at eos or max_new_tokens (or max_time seconds).

    Returns the new text only, special tokens removed.
    """
    from shared.decoding import generate_batch

    return generate_batch(model, tokenizer, [prompt], max_new_tokens, max_time)[0]
