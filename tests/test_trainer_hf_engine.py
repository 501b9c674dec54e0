"""The transformers rollout engine: it reports the distribution it samples from, whatever the
model's generation_config asks for, stops where vLLM stops, and holds one step's logits at a time.
"""

from __future__ import annotations

from collections import Counter

import pytest
import torch
from torch.profiler import ProfilerActivity, profile

from trainer.algorithm import loss_settings
from trainer.config import AlgoConfig
from trainer.hf_engine import HFEngine
from trainer.learner import GRPOLearner
from trainer.logprobs import pack
from trainer.tiny import build_char_tokenizer, build_id_tokenizer, build_tiny_model
from trainer.types import Sampling

TOKENIZER = build_char_tokenizer()
# Every ordinary token once: a repetition penalty or an n-gram ban then touches all of them.
PROMPT = TOKENIZER("0123456789+-*=() ")["input_ids"]


def _peaky_model(seed: int = 0):
    """A tiny Llama whose next-token distributions are far from uniform (the likeliest token has
    about a third of the mass), so a processor that rescales logits visibly changes the draws."""
    model = build_tiny_model(TOKENIZER, seed=seed)
    with torch.no_grad():
        model.model.norm.weight.mul_(1.5)
    return model


# What hub models ship in generation_config.json, and what `generate` would merge from it:
# each of these changes the distribution tokens are drawn from.
PROCESSORS = [
    {"repetition_penalty": 3.0},  # Qwen2.5-Instruct ships 1.05-1.1
    {"no_repeat_ngram_size": 1},
    {"bad_words_ids": "top3"},
    {"suppress_tokens": "top3"},
    {"begin_suppress_tokens": "top3"},
    {"typical_p": 0.2},
    {"min_p": 0.3},
    {"epsilon_cutoff": 0.05},
]


def _first_token_distribution(model) -> torch.Tensor:
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([PROMPT])).logits[0, -1].float()
    return torch.softmax(logits, dim=-1)


@pytest.mark.parametrize("settings", PROCESSORS, ids=lambda s: ",".join(s))
def test_tokens_are_drawn_from_the_distribution_the_engine_reports(settings):
    """The sampler's first-token frequencies match exp(reported log-prob), and the reported
    log-probs are the learner's softmax(logits / T), with penalties in generation_config."""
    model = _peaky_model()
    top3 = _first_token_distribution(model).topk(3).indices.tolist()
    for key, value in settings.items():
        if value == "top3":
            value = [[t] for t in top3] if key == "bad_words_ids" else top3
        setattr(model.generation_config, key, value)
    engine = HFEngine(model, TOKENIZER)
    torch.manual_seed(0)
    samples = 2000
    [completions] = engine.generate([PROMPT], Sampling(n=samples, max_new_tokens=1))
    counts = Counter(c.token_ids[0] for c in completions)
    reported = {c.token_ids[0]: c.logprobs[0] for c in completions}
    model_p = _first_token_distribution(model)
    for token, logprob in reported.items():  # the same first token, the same log-prob
        assert logprob == pytest.approx(float(model_p[token].log()), abs=1e-4)
    variation = 0.5 * sum(abs(counts.get(t, 0) / samples - float(model_p[t]))
                          for t in range(len(TOKENIZER)))
    assert variation < 0.08, f"sampled frequencies are {variation:.2f} from the reported ones"

    # longer completions: every reported log-prob is what the learner recomputes at T
    [completions] = engine.generate([PROMPT], Sampling(n=8, max_new_tokens=6, temperature=0.7))
    learner = GRPOLearner(model, loss_settings("grpo", 0.2, None, 2.0),
                          AlgoConfig(overlong="none"), temperature=0.7, max_new_tokens=6,
                          pad_token_id=TOKENIZER.pad_token_id, total_steps=1)
    batch = pack([(PROMPT, c.token_ids) for c in completions], TOKENIZER.pad_token_id, "cpu")
    with torch.no_grad():
        logp = learner.logprobs(learner.model, batch, 0.7).logp
    behaviour = torch.tensor([c.logprobs + [0.0] * (batch.mask.shape[1] - len(c.logprobs))
                              for c in completions])
    torch.testing.assert_close(logp * batch.mask, behaviour, atol=1e-4, rtol=1e-4)


def test_generation_stops_on_every_eos_id_of_generation_config():
    """Qwen2.5-Instruct's generation_config lists <|im_end|> and <|endoftext|>: vLLM stops on
    both, and so must this engine."""
    model = _peaky_model(seed=2)
    likely = _first_token_distribution(model).argmax().item()
    model.generation_config.eos_token_id = [TOKENIZER.eos_token_id, likely]
    engine = HFEngine(model, TOKENIZER)
    torch.manual_seed(0)
    [completions] = engine.generate([PROMPT], Sampling(n=64, max_new_tokens=6))
    stopped = [c for c in completions if likely in c.token_ids]
    assert stopped, "the likely token was never sampled"
    for completion in completions:
        ends = [i for i, t in enumerate(completion.token_ids)
                if t in (likely, TOKENIZER.eos_token_id)]
        if ends:  # an end-of-sequence token is the last token, and the completion is complete
            assert ends == [len(completion.token_ids) - 1], completion.token_ids
            assert not completion.truncated
        else:
            assert completion.truncated and len(completion.token_ids) == 6


def _peak_bytes(engine: HFEngine, prompt: list[int], sampling: Sampling) -> int:
    """Peak of the memory torch's CPU allocator held during the call, from the profiler's
    allocation and free events (exact accounting, not the process's RSS)."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        engine.generate([prompt], sampling)
    live = peak = 0
    for event in sorted((e for e in prof.events() if e.self_cpu_memory_usage),
                        key=lambda e: e.time_range.start):
        live += event.self_cpu_memory_usage
        peak = max(peak, live)
    return peak


def test_generation_memory_does_not_grow_with_the_completion_length():
    """Only the sampled token's log-prob is kept per step: the peak holds a few [n, V] rows of
    logits whatever the length (stacking every step's logits grows by [n, V] per token)."""
    vocab, n = 32768, 16
    tokenizer = build_id_tokenizer(vocab)
    model = build_tiny_model(tokenizer, hidden=64, layers=1, heads=1, seed=0)
    engine = HFEngine(model, tokenizer)
    prompt = list(range(1, 9))
    step_bytes = n * vocab * 4  # one step's fp32 logits for the n samples
    short = _peak_bytes(engine, prompt, Sampling(n=n, max_new_tokens=2))
    long = _peak_bytes(engine, prompt, Sampling(n=n, max_new_tokens=32))
    assert long - short < 2 * step_bytes, (short, long, step_bytes)
    assert long < 12 * step_bytes, (long, step_bytes)
