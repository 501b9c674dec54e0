"""Evaluation on a held-out split: greedy accuracy, sampled pass@k, mean reward by reward kind,
response length.

Each prompt gets `samples` completions at the evaluation temperature (pass@k for every k of
`pass_k`, with the unbiased estimator of Chen et al. 2021: 1 - C(n - c, k) / C(n, k) for c
correct of n) and, with `greedy`, one greedy completion (temperature 0). Rewards come from the
same verifier as training's; a sample the verifier failed (`infra_error`) is left out of every
figure and counted. `grpo train` logs one such record every `eval.every` steps to metrics.jsonl
(`"split": "eval"`) and the plots; `grpo eval --checkpoint DIR` computes one on its own.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from trainer.data import Prompt
from trainer.tool_rollout import tool_stats
from trainer.types import Completion, Rewarder, Sampling

Generate = Callable[[list[Prompt], Sampling], Awaitable[list[list[Completion]]]]


def pass_at_k(n: int, correct: int, k: int) -> float:
    """The chance that at least one of k samples drawn from these n is correct."""
    if n - correct < k:
        return 1.0
    return 1.0 - math.comb(n - correct, k) / math.comb(n, k)


@dataclass
class Scored:
    """One prompt's completions and their verdicts."""

    prompt: Prompt
    completions: list[Completion]
    rewards: list[float | None]
    statuses: list[str]


@dataclass
class Evaluator:
    prompts: list[Prompt]
    rewarder: Rewarder
    sampling: Sampling  # of the sampled completions: n = samples per prompt
    pass_k: list[int]
    greedy: bool = True
    chunk_prompts: int = 8  # prompts per generate call
    tools: bool = False  # tool rollouts: the record also counts the tool's calls and failures

    def __post_init__(self) -> None:
        if not self.prompts:
            raise ValueError("the evaluation split is empty")
        if any(not 1 <= k <= self.sampling.n for k in self.pass_k):
            raise ValueError(f"every k of pass_k must be in [1, samples = {self.sampling.n}]")

    async def evaluate(self, generate: Generate) -> dict[str, Any]:
        """One record of figures (see the module docstring)."""
        started = time.perf_counter()
        sampled = await self._run(generate, self.sampling)
        greedy = (await self._run(generate, replace(self.sampling, n=1, temperature=0.0))
                  if self.greedy else None)
        record: dict[str, Any] = {"prompts": len(self.prompts),
                                  **self._figures(sampled, greedy)}
        kinds = sorted({p.kind for p in self.prompts})
        record["by_kind"] = {kind: {"prompts": sum(p.kind == kind for p in self.prompts),
                                    **self._figures(_of_kind(sampled, kind),
                                                    None if greedy is None
                                                    else _of_kind(greedy, kind))}
                             for kind in kinds}
        masked = sum(r is None for run in (sampled, greedy or []) for s in run for r in s.rewards)
        if self.tools:
            calls = tool_stats([c for run in (sampled, greedy or []) for s in run
                                for c in s.completions])
            record |= {key: calls[key] for key in ("tool_calls_per_sample", "tool_errors")}
        return record | {"infra_error": masked, "eval_s": time.perf_counter() - started}

    async def _run(self, generate: Generate, sampling: Sampling) -> list[Scored]:
        """Generate for every prompt, a chunk at a time; each chunk is scored while the next
        one generates."""
        scoring = []
        for start in range(0, len(self.prompts), self.chunk_prompts):
            chunk = self.prompts[start:start + self.chunk_prompts]
            outputs = await generate(chunk, sampling)
            scoring += [asyncio.ensure_future(self._score(p, c))
                        for p, c in zip(chunk, outputs, strict=True)]
        return list(await asyncio.gather(*scoring))

    async def _score(self, prompt: Prompt, completions: list[Completion]) -> Scored:
        rewards, statuses = await self.rewarder.score(prompt, completions)
        return Scored(prompt, completions, rewards, statuses)

    def _figures(self, sampled: list[Scored], greedy: list[Scored] | None) -> dict[str, Any]:
        figures = {f"pass@{k}": _mean([pass_at_k(*_n_correct(s), k) for s in sampled
                                       if _n_correct(s)[0] >= k]) for k in self.pass_k}
        figures |= {"reward_mean": _mean([r for s in sampled for r in s.rewards if r is not None]),
                    "response_len": _mean([len(c.token_ids) for s in sampled
                                           for c in s.completions]),
                    "truncated_frac": _mean([c.truncated for s in sampled
                                             for c in s.completions])}
        if greedy is not None:
            scored = [s for s in greedy if s.rewards[0] is not None]
            figures |= {"greedy_accuracy": _mean([s.statuses[0] == "correct" for s in scored]),
                        "greedy_reward_mean": _mean([s.rewards[0] for s in scored]),
                        "greedy_response_len": _mean([len(s.completions[0].token_ids)
                                                      for s in greedy])}
        return figures


def _n_correct(scored: Scored) -> tuple[int, int]:
    """Samples the verifier scored, and how many of them are correct."""
    verdicts = [s for s, r in zip(scored.statuses, scored.rewards, strict=True) if r is not None]
    return len(verdicts), verdicts.count("correct")


def _of_kind(run: list[Scored], kind: str) -> list[Scored]:
    return [s for s in run if s.prompt.kind == kind]


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None
