"""The training loop: one GRPO step, top to bottom, while rollout and reward run ahead.

    groups of step s (scored) -> health check -> learner update -> new weights -> engine
                                                 -> metrics, evaluation, checkpoint

The health check is about the verifier: an `infra_error` sample is masked (never trained on),
so a verifier that fails everything would leave the learner training on nothing while the run
looks alive. A step whose share of masked samples reaches `pipeline.masked_alarm_share` raises
an alarm (a warning, and `alarm` in the step's record); `pipeline.masked_fail_steps` such steps
in a row stop the run with an error naming what the verifier answered.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from trainer.config import PipelineConfig
from trainer.evaluation import Evaluator
from trainer.pipeline import Pipeline
from trainer.types import Group, Learner

log_events = logging.getLogger("trainer")


class MaskedRewardWatch:
    """Counts the steps in a row whose samples the verifier mostly failed (see above)."""

    def __init__(self, alarm_share: float, fail_steps: int) -> None:
        self.alarm_share = alarm_share
        self.fail_steps = fail_steps  # 0: alarm only, never stop
        self.streak = 0

    @classmethod
    def of(cls, pipeline: PipelineConfig) -> MaskedRewardWatch:
        return cls(pipeline.masked_alarm_share, pipeline.masked_fail_steps)

    def check(self, step: int, groups: list[Group]) -> str | None:
        """The alarm for this step's groups, or None; raises once the streak is too long."""
        rewards = [r for g in groups for r in g.rewards]
        share = sum(r is None for r in rewards) / max(len(rewards), 1)
        if share < self.alarm_share:
            self.streak = 0
            return None
        self.streak += 1
        statuses = dict(Counter(s for g in groups for s in g.statuses).most_common())
        alarm = (f"step {step}: {share:.0%} of the samples were masked because the verifier "
                 f"failed them (statuses {statuses}); the learner trains on the rest only")
        if self.fail_steps and self.streak >= self.fail_steps:
            raise RuntimeError(f"{alarm}. {self.streak} steps in a row: stopping rather than "
                               "training on nothing (check the verifier's log; "
                               "pipeline.masked_fail_steps sets the patience)")
        log_events.warning(alarm)
        return alarm


async def train_loop(pipeline: Pipeline, learner: Learner, steps: range, *,
                     log: Callable[[dict[str, Any]], None],
                     save: Callable[[int, int, int], None] | None = None, save_every: int = 0,
                     first_slot: int | None = None, watch: MaskedRewardWatch | None = None,
                     evaluator: Evaluator | None = None, eval_every: int = 0) -> None:
    """Train `steps`; rollout and reward run ahead inside `pipeline`, at most k versions.

    `save(next_step, data_slot, stale_dropped)` checkpoints; `evaluator` scores the held-out
    split at the start (step 0), every `eval_every` steps and at the end.
    """
    watch = watch or MaskedRewardWatch.of(PipelineConfig())
    async with pipeline.running(steps.start, steps.stop, first_slot):
        if evaluator and steps.start == 0:
            log(await evaluate(evaluator, pipeline, version=0))
        started = time.perf_counter()
        for step in steps:
            # 1. the step's scored groups (beyond the staleness bound: dropped, never any), and
            #    an alarm if the verifier failed most of them
            groups, trained = await pipeline.batch(step)
            alarm = watch.check(step, groups)
            # 2. colocated (k = 0): the engine frees its weights and KV cache for training
            await pipeline.release_engine()
            # 3. one GRPO update (or one per minibatch)
            with pipeline.clocks["train"]:
                learner_stats = await asyncio.to_thread(learner.train_step, trained, step)
            # 4. the engine takes the new weights as version step + 1; the gate opens
            await pipeline.publish(learner.model, version=step + 1)
            # 5. metrics, evaluation and a checkpoint every so many steps and at the end
            now = time.perf_counter()
            log(pipeline.step_stats(step, groups, trained, now - started) | learner_stats
                | {"alarm": alarm})
            done = step + 1
            if evaluator and eval_every and (done % eval_every == 0 or done == steps.stop):
                log(await evaluate(evaluator, pipeline, version=done))
            if save and ((save_every and done % save_every == 0) or done == steps.stop):
                await asyncio.to_thread(save, done, pipeline.next_slot(done),
                                        pipeline.stale_dropped)
            started = time.perf_counter()  # evaluation and saving are not the next step's


async def evaluate(evaluator: Evaluator, pipeline: Pipeline, version: int) -> dict[str, Any]:
    """The held-out split scored with the engine's weights (policy `version`): one record."""
    return {"split": "eval", "step": version, "policy_version": version,
            **await evaluator.evaluate(pipeline.generate)}
