"""How much of a step the async pipeline hides: the real scheduler, with sleeping fake stages.

A serial step costs 1 unit: rollout 0.45, training 0.50, weight sync 0.05 (DESIGN.md section 1).
Run serially (k = 0) a step takes ~1.0 unit; with k >= 1 rollout overlaps training and a step
should take max(0.45, 0.50) + 0.05 = 0.55. Prints a table for k = 0..4, then, as its last
line, JSON {"sync_step_s", "async_step_s", "ratio"} comparing k = 1 with k = 0 (same process).

    python bench/pipeline_overlap.py [--unit-s 0.4] [--steps 12]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time

import torch

from trainer.data import Prompt
from trainer.loop import train_loop
from trainer.pipeline import Pipeline
from trainer.types import Completion, Group, Sampling

ROLLOUT, TRAIN, SYNC = 0.45, 0.50, 0.05
WARMUP_STEPS = 2  # the first steps fill the pipeline


class SleepingEngine:
    """Generation costs ROLLOUT per full batch (pro rata per chunk); a weight load costs SYNC."""

    def __init__(self, unit_s: float, batch: int) -> None:
        self.per_prompt_s = ROLLOUT * unit_s / batch
        self.sync_s = SYNC * unit_s
        self.version = 0

    def generate(self, prompts: list[list[int]], sampling: Sampling) -> list[list[Completion]]:
        time.sleep(self.per_prompt_s * len(prompts))
        return [[Completion([1, 2], [-0.5, -0.5], "1", truncated=False)
                 for _ in range(sampling.n)] for _ in prompts]

    def load_weights(self, model: torch.nn.Module, version: int) -> None:
        time.sleep(self.sync_s)
        self.version = version

    def close(self) -> None:
        pass


class SleepingLearner:
    def __init__(self, unit_s: float) -> None:
        self.train_s = TRAIN * unit_s
        self.model = torch.nn.Linear(1, 1)

    def train_step(self, groups: list[Group], step: int) -> dict:
        time.sleep(self.train_s)
        return {}


class InstantRewarder:
    """The verifier is not the bottleneck here; its overlap is shown by the real runs."""

    async def score(self, prompt: Prompt, completions: list[Completion]) -> tuple[list, list]:
        rewards = [float(random.random() < 0.5) for _ in completions]
        return rewards, ["correct" if r else "wrong" for r in rewards]


def measure(k: int, unit_s: float, steps: int, batch: int) -> dict:
    records: list[dict] = []
    prompts = [Prompt(text="1+0=", token_ids=[1, 2, 3], answer="1")] * (steps * batch)
    pipeline = Pipeline(SleepingEngine(unit_s, batch), InstantRewarder(), prompts,
                        Sampling(n=4, max_new_tokens=2), prompts_per_step=batch,
                        max_staleness=k, chunk_prompts=batch // 4)
    asyncio.run(train_loop(pipeline, SleepingLearner(unit_s), range(steps), log=records.append))
    steady = records[WARMUP_STEPS:]
    return {
        "k": k,
        "step_s": statistics.mean(r["step_s"] for r in steady),
        "rollout_idle": statistics.mean(r["rollout_idle"] for r in steady),
        "train_idle": statistics.mean(r["train_idle"] for r in steady),
        "staleness_max": max(r["staleness_max"] for r in records),
        "stale_dropped": pipeline.stale_dropped,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unit-s", type=float, default=0.4, help="seconds of one serial step")
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--batch", type=int, default=16, help="prompts per step")
    args = parser.parse_args()
    rows = [measure(k, args.unit_s, args.steps, args.batch) for k in range(5)]
    baseline = rows[0]["step_s"]
    print(f"{'k':>2} {'step_s':>8} {'ratio':>6} {'rollout_idle':>12} {'train_idle':>10} "
          f"{'staleness_max':>13} {'stale_dropped':>13}")
    for row in rows:
        print(f"{row['k']:>2} {row['step_s']:>8.3f} {row['step_s'] / baseline:>6.3f} "
              f"{row['rollout_idle']:>12.2f} {row['train_idle']:>10.2f} "
              f"{row['staleness_max']:>13} {row['stale_dropped']:>13}")
    async_step = rows[1]["step_s"]
    print(json.dumps({"sync_step_s": round(baseline, 4), "async_step_s": round(async_step, 4),
                      "ratio": round(async_step / baseline, 4)}))


if __name__ == "__main__":
    main()
