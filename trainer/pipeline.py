"""The asynchronous pipeline: rollout, reward and training overlap with bounded staleness.

Prompts are numbered by *slot*; training step s consumes exactly the B groups in slots
[s*B, (s+1)*B). That makes the step a group will be trained in known when its generation
starts, so the staleness bound is enforced up front, by pacing:

    a group for step s may start generating only when the engine holds version >= s - k

(the trainer is at version s when it trains step s, so the group is at most k versions old).
Three concurrent activities, coordinated by one asyncio loop:

  rollout  takes the next chunk of slots, waits for the gate, generates in a worker thread,
           and sends each finished group to the verifier at once (its own task);
  reward   scores a group over HTTP and parks it in its slot;
  trainer  waits until its step's slots are all parked, trains (worker thread), then pushes
           the new weights to the engine (versioned, timed) and opens the gate further.

k = 0 is the synchronous baseline (generate, score, train, sync, repeat); k = 1 overlaps the
rollout of batch s+1 with the training of batch s; larger k lets the rollout run further ahead.
Generation and weight loading share one lock, so weights never change under a generate call and
every sample's version is the version that produced it. The trainer re-checks the bound anyway
and drops (and counts) any group beyond it; with this pacing that never happens.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import torch

from trainer.data import Prompt, PromptSource
from trainer.engine import Completion, RolloutEngine, Sampling


@dataclass
class Group:
    """The n samples of one prompt, as generated and scored."""

    slot: int
    prompt: Prompt
    completions: list[Completion]
    version: int  # policy version of the engine weights that generated every sample
    rewards: list[float | None]  # None: the verifier failed (infra_error): mask, never punish
    statuses: list[str]


class Rewarder(Protocol):
    async def score(self, prompt: Prompt, completions: list[Completion]
                    ) -> tuple[list[float | None], list[str]]: ...


class Learner(Protocol):
    def train_step(self, groups: list[Group], step: int) -> dict[str, Any]:
        """One optimizer update (or several minibatch updates) on the step's groups."""
        ...

    @property
    def model(self) -> torch.nn.Module:
        """The policy being trained: what the engine copies its weights from."""
        ...


class StageClock:
    """Busy time of a stage that may run several activities at once (union of intervals)."""

    def __init__(self) -> None:
        self.active = 0
        self.busy = 0.0
        self.since = 0.0

    def __enter__(self) -> StageClock:
        if self.active == 0:
            self.since = time.perf_counter()
        self.active += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self.active -= 1
        if self.active == 0:
            self.busy += time.perf_counter() - self.since

    def take(self) -> float:
        """Busy seconds since the last take (an activity still running is split at now)."""
        now = time.perf_counter()
        busy = self.busy + (now - self.since if self.active else 0.0)
        self.busy, self.since = 0.0, now
        return busy


class Pipeline:
    def __init__(self, engine: RolloutEngine, learner: Learner, rewarder: Rewarder,
                 prompts: Sequence[Prompt] | PromptSource, sampling: Sampling, *,
                 prompts_per_step: int, max_staleness: int, chunk_prompts: int = 1,
                 on_step: Callable[[dict[str, Any]], None] | None = None) -> None:
        if max_staleness < 0 or prompts_per_step < 1 or chunk_prompts < 1:
            raise ValueError("need max_staleness >= 0, prompts_per_step >= 1, chunk_prompts >= 1")
        self.engine, self.learner, self.rewarder = engine, learner, rewarder
        self.prompts = prompts  # slot -> Prompt
        self.sampling = sampling
        self.batch = prompts_per_step
        self.k = max_staleness
        self.chunk = chunk_prompts
        self.on_step = on_step
        self.clocks = {name: StageClock() for name in ("rollout", "reward", "train", "sync")}
        self.stale_dropped = 0  # total over the run; stays 0 unless pacing is broken

    async def run(self, start_step: int, end_step: int) -> None:
        """Train steps [start_step, end_step); the engine must hold version start_step."""
        if self.engine.version != start_step:
            raise ValueError(f"engine holds version {self.engine.version}, "
                             f"the run resumes at {start_step}")
        self._parked: dict[int, Group] = {}
        self._parked_changed = asyncio.Condition()
        self._version_changed = asyncio.Condition()
        self._engine_lock = asyncio.Lock()
        self._version = start_step
        for clock in self.clocks.values():
            clock.take()
        try:
            async with asyncio.TaskGroup() as tasks:  # one failure cancels the rest
                tasks.create_task(self._rollout(tasks, start_step * self.batch,
                                                end_step * self.batch))
                tasks.create_task(self._train(start_step, end_step))
        except ExceptionGroup as failure:
            raise failure.exceptions[0] from None  # the stage that failed first, as itself

    # ------------------------------------------------------------------ rollout and reward

    async def _rollout(self, tasks: asyncio.TaskGroup, first_slot: int, end_slot: int) -> None:
        slot = first_slot
        while slot < end_slot:
            step = slot // self.batch
            chunk_end = min(slot + self.chunk, (step + 1) * self.batch, end_slot)
            async with self._version_changed:  # the staleness gate
                await self._version_changed.wait_for(lambda s=step: self._version >= s - self.k)
            prompts = [self.prompts[s] for s in range(slot, chunk_end)]
            async with self._engine_lock:
                version = self.engine.version
                with self.clocks["rollout"]:
                    outputs = await asyncio.to_thread(
                        self.engine.generate, [p.token_ids for p in prompts], self.sampling)
            for offset, (prompt, completions) in enumerate(zip(prompts, outputs, strict=True)):
                tasks.create_task(self._score(slot + offset, prompt, completions, version))
            slot = chunk_end

    async def _score(self, slot: int, prompt: Prompt, completions: list[Completion],
                     version: int) -> None:
        with self.clocks["reward"]:
            rewards, statuses = await self.rewarder.score(prompt, completions)
        async with self._parked_changed:
            self._parked[slot] = Group(slot, prompt, completions, version, rewards, statuses)
            self._parked_changed.notify_all()

    # ------------------------------------------------------------------ training and sync

    async def _train(self, start_step: int, end_step: int) -> None:
        step_started = time.perf_counter()
        for step in range(start_step, end_step):
            slots = range(step * self.batch, (step + 1) * self.batch)
            async with self._parked_changed:
                await self._parked_changed.wait_for(
                    lambda s=slots: all(i in self._parked for i in s))
                groups = [self._parked.pop(i) for i in slots]
            fresh = [g for g in groups if step - g.version <= self.k]
            self.stale_dropped += len(groups) - len(fresh)
            with self.clocks["train"]:
                learner_stats = await asyncio.to_thread(self.learner.train_step, fresh, step)
            async with self._engine_lock:
                with self.clocks["sync"]:
                    await asyncio.to_thread(self.engine.load_weights, self.learner.model,
                                            step + 1)
            async with self._version_changed:
                self._version = step + 1
                self._version_changed.notify_all()
            now = time.perf_counter()
            stats = self._step_stats(step, groups, fresh, now - step_started)
            step_started = now
            stats.update(learner_stats)
            if self.on_step is not None:
                await asyncio.to_thread(self.on_step, stats)

    def _step_stats(self, step: int, groups: list[Group], fresh: list[Group],
                    wall: float) -> dict[str, Any]:
        seconds = {name: clock.take() for name, clock in self.clocks.items()}
        staleness = Counter(step - g.version for g in fresh)
        scored = [r for g in groups for r in g.rewards if r is not None]
        statuses = [s for g in groups for s in g.statuses]
        tokens = sum(len(c.token_ids) for g in fresh for c in g.completions)
        return {
            "step": step,
            "policy_version": step + 1,
            "reward_mean": sum(scored) / len(scored) if scored else None,
            "accuracy": statuses.count("correct") / max(len(statuses), 1),
            "reward_masked": sum(r is None for g in groups for r in g.rewards),
            "max_staleness": self.k,
            "staleness_max": max(staleness, default=0),
            "staleness_hist": {str(k): v for k, v in sorted(staleness.items())},
            "stale_dropped": len(groups) - len(fresh),
            "rollout_s": seconds["rollout"],
            "reward_s": seconds["reward"],
            "train_s": seconds["train"],
            "sync_s": seconds["sync"],
            "step_s": wall,
            "rollout_idle": max(0.0, 1 - seconds["rollout"] / wall),
            "train_idle": max(0.0, 1 - (seconds["train"] + seconds["sync"]) / wall),
            "tokens_per_s": tokens / wall,
        }
