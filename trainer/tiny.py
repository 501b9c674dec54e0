"""A tiny causal LM and tokenizers (character-level, one token per id), built locally (no hub).

Used by the demo and the tests. The model is a real Llama-architecture transformer, so every
engine (transformers, vLLM) treats it exactly like a hub model; head_dim is 64 because vLLM's
CPU attention kernels need at least that.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

import torch
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, processors
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from trainer.config import ToolsConfig

SPECIAL_TOKENS = ["<pad>", "<s>", "</s>"]
# Just what arithmetic prompts need: every extra symbol is a place for probability mass to leak
# to when RL pushes down wrong answers, which stalls a tiny model's learning.
ALPHABET = "0123456789+-*=() "
# With tools the model reads and writes code, tracebacks and the tool's notes: printable ASCII.
TOOL_ALPHABET = ALPHABET + "".join(c for c in string.printable
                                   if c not in ALPHABET and c not in "\t\r\x0b\x0c")


def build_char_tokenizer(alphabet: str = ALPHABET) -> PreTrainedTokenizerFast:
    """One token per character (unknown characters become <pad>; the tasks here never have any)."""
    vocab = {token: i for i, token in enumerate(SPECIAL_TOKENS + list(dict.fromkeys(alphabet)))}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<pad>"))
    # every character a piece of its own, newlines included (`.` would leave "\n\n" whole)
    core.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    core.decoder = decoders.Fuse()
    core.post_processor = processors.TemplateProcessing(  # a BOS in front, like Llama
        single="<s> $A", special_tokens=[("<s>", vocab["<s>"])])
    return PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", bos_token="<s>",
                                   eos_token="</s>", unk_token="<pad>")


def build_id_tokenizer(vocab_size: int) -> PreTrainedTokenizerFast:
    """One word-level token per id (`t1`, `t2`, ...; id 0 is `<|endoftext|>`, the EOS and pad).

    For models whose shapes matter more than their text: any vocabulary size, such as Qwen2.5's
    151,936 (bench/gpu_step.py) or a large one in a memory test.
    """
    vocab = {"<|endoftext|>": 0, **{f"t{i}": i for i in range(1, vocab_size)}}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<|endoftext|>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    core.decoder = decoders.WordPiece(prefix="##")  # joins tokens with spaces
    return PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|endoftext|>",
                                   pad_token="<|endoftext|>", unk_token="<|endoftext|>")


def build_tiny_model(tokenizer: PreTrainedTokenizerFast, *, hidden: int = 128, layers: int = 2,
                     heads: int = 2, seed: int = 0) -> LlamaForCausalLM:
    """A randomly initialised Llama with `hidden / heads` = 64-wide heads."""
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=hidden * 2,
        num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=heads,
        head_dim=hidden // heads, max_position_embeddings=256, tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return LlamaForCausalLM(config)


def save_model(model: LlamaForCausalLM, tokenizer: PreTrainedTokenizerFast, path: Path) -> Path:
    """Write model + tokenizer as a normal HF directory (what vLLM and from_pretrained read)."""
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def format_warmup(model: LlamaForCausalLM, tokenizer: PreTrainedTokenizerFast,
                  records: list[dict], *, steps: int, correct_fraction: float = 0.0,
                  seed: int = 0, lr: float = 3e-3, batch_size: int = 64,
                  tools: ToolsConfig | None = None) -> None:
    """Supervised warm-up of a fresh tiny model: the answer *format*, and a weak prior.

    A target is the record's answer with probability `correct_fraction`, else an answer drawn
    at random from the task's answer set. At 0 the model learns only to emit a well-formed
    answer and stop, at chance accuracy; a small fraction plays the part of a pretrained base
    model that is right only now and then (as RLVR starts from), which RL then sharpens.

    With `tools`, a right target uses the tool: the prompt's expression in a code block, its
    value as the tool's output (context, not trained on, as in RL), then the value as the
    answer; the others guess at random without it. RL then has tool use to reinforce.
    """
    rng = random.Random(seed)
    answers = sorted({str(r["answer"]) for r in records})
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()
    for _ in range(steps):
        rows, labels = [], []
        for record in rng.choices(records, k=batch_size):
            answer, right = str(record["answer"]), rng.random() < correct_fraction
            pieces = [(answer if right else rng.choice(answers), True)]
            if tools is not None and right:
                expression = record["prompt"].removesuffix("=")
                pieces = [(tools.code_open + expression + tools.code_close, True),
                          (tools.output_open + answer + tools.output_close, False),
                          (answer, True)]
            row = tokenizer(record["prompt"])["input_ids"]
            label = [-100] * len(row)
            for text, trained in pieces:
                ids = tokenizer(text, add_special_tokens=False)["input_ids"]
                row, label = row + ids, label + (ids if trained else [-100] * len(ids))
            rows.append(row + [tokenizer.eos_token_id])
            labels.append(label + [tokenizer.eos_token_id])
        width = max(len(r) for r in rows)
        loss = model(input_ids=_right_pad(rows, tokenizer.pad_token_id, width),
                     attention_mask=_right_pad([[1] * len(r) for r in rows], 0, width),
                     labels=_right_pad(labels, -100, width)).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def _right_pad(rows: list[list[int]], value: int, width: int) -> torch.Tensor:
    return torch.tensor([row + [value] * (width - len(row)) for row in rows])
