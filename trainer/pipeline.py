"""The asynchronous pipeline: rollout and reward run ahead of training, with bounded staleness.

Prompts are numbered by *slot*; training step s consumes exactly the B groups in slots
[s*B, (s+1)*B). That makes the step a group will be trained in known when its generation
starts, so the staleness bound is enforced up front, by pacing:

    a group for step s may start generating only when the engine holds version >= s - k

(the trainer is at version s when it trains step s, so the group is at most k versions old).
Inside `running()` two activities run in the background, on one asyncio loop:

  rollout  takes the next chunk of slots, waits for the gate, generates in a worker thread,
           and sends each finished group to the verifier at once (its own task);
  reward   scores a group over HTTP and parks it in its slot;

while the training loop (trainer/run.py's `training_steps`) takes a step's groups with
`batch(step)`, trains, and hands the new weights over with `publish`, which opens the gate.

k = 0 is the synchronous baseline (generate, score, train, sync, repeat); k = 1 overlaps the
rollout of batch s+1 with the training of batch s; larger k lets the rollout run further ahead.
Colocated (k = 0 only): the engine sleeps while the learner trains, so training gets the memory
the engine's weights and KV cache held, and wakes up with the new weights.
Generation and weight loading share one lock, so weights never change under a generate call and
every sample's version is the version that produced it. `batch` re-checks the bound anyway and
drops (and counts) any group beyond it; with this pacing that never happens.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import torch

from trainer.data import Prompt, PromptSource
from trainer.types import Completion, Group, Rewarder, RolloutEngine, Sampling, SleepingEngine


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
    def __init__(self, engine: RolloutEngine, rewarder: Rewarder,
                 prompts: Sequence[Prompt] | PromptSource, sampling: Sampling, *,
                 prompts_per_step: int, max_staleness: int, chunk_prompts: int = 1,
                 colocate: bool = False) -> None:
        if max_staleness < 0 or prompts_per_step < 1 or chunk_prompts < 1:
            raise ValueError("need max_staleness >= 0, prompts_per_step >= 1, chunk_prompts >= 1")
        if colocate and max_staleness != 0:
            raise ValueError("colocated (sleeping engine) runs are synchronous: max_staleness 0")
        if colocate and not isinstance(engine, SleepingEngine):
            raise ValueError(f"{type(engine).__name__} cannot sleep: colocate needs the hf or "
                             "vllm engine")
        self.engine, self.rewarder = engine, rewarder
        self.prompts = prompts  # slot -> Prompt
        self.sampling = sampling
        self.batch_size = prompts_per_step
        self.k = max_staleness
        self.chunk = chunk_prompts
        self.colocate = colocate
        self.clocks = {name: StageClock() for name in ("rollout", "reward", "train", "sync")}
        self.stale_dropped = 0  # total over the run; stays 0 unless pacing is broken
        self.generated_tokens = 0  # since the last step's stats: rollout runs ahead of training

    @asynccontextmanager
    async def running(self, start_step: int, end_step: int) -> AsyncIterator[Pipeline]:
        """Rollout and reward for steps [start_step, end_step) in the background.

        The engine must hold version start_step. A failure in the background (the verifier
        down, the engine broken) cancels the training loop and surfaces as itself.
        """
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
        self.generated_tokens = 0
        try:
            async with asyncio.TaskGroup() as tasks:  # one failure cancels the rest
                tasks.create_task(self._rollout(tasks, start_step * self.batch_size,
                                                end_step * self.batch_size))
                yield self
        except ExceptionGroup as failure:
            raise failure.exceptions[0] from None  # the stage that failed first, as itself

    # ------------------------------------------------------------------ the training loop's side

    async def batch(self, step: int) -> tuple[list[Group], list[Group]]:
        """Wait for step's groups; returns (all of them, those within the staleness bound)."""
        slots = range(step * self.batch_size, (step + 1) * self.batch_size)
        async with self._parked_changed:
            await self._parked_changed.wait_for(lambda: all(i in self._parked for i in slots))
            groups = [self._parked.pop(i) for i in slots]
        fresh = [g for g in groups if step - g.version <= self.k]
        self.stale_dropped += len(groups) - len(fresh)
        return groups, fresh

    async def release_engine(self) -> None:
        """Colocated: the engine frees its device memory for training (no-op otherwise)."""
        if self.colocate:
            async with self._engine_lock:
                with self.clocks["sync"]:
                    await asyncio.to_thread(self.engine.sleep)

    async def publish(self, model: torch.nn.Module, version: int) -> None:
        """Load the new weights into the engine (waking it if colocated) and open the gate."""
        async with self._engine_lock:
            with self.clocks["sync"]:
                if self.colocate:
                    await asyncio.to_thread(self.engine.wake_up, model, version)
                else:
                    await asyncio.to_thread(self.engine.load_weights, model, version)
        async with self._version_changed:
            self._version = version
            self._version_changed.notify_all()

    # ------------------------------------------------------------------ rollout and reward

    async def _rollout(self, tasks: asyncio.TaskGroup, first_slot: int, end_slot: int) -> None:
        slot = first_slot
        while slot < end_slot:
            step = slot // self.batch_size
            chunk_end = min(slot + self.chunk, (step + 1) * self.batch_size, end_slot)
            async with self._version_changed:  # the staleness gate
                await self._version_changed.wait_for(lambda s=step: self._version >= s - self.k)
            prompts = [self.prompts[s] for s in range(slot, chunk_end)]
            async with self._engine_lock:
                version = self.engine.version
                with self.clocks["rollout"]:
                    outputs = await asyncio.to_thread(
                        self.engine.generate, [p.token_ids for p in prompts], self.sampling)
            self.generated_tokens += sum(len(c.token_ids) for group in outputs for c in group)
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

    # ------------------------------------------------------------------ metrics

    def step_stats(self, step: int, groups: list[Group], fresh: list[Group],
                   wall: float) -> dict[str, Any]:
        seconds = {name: clock.take() for name, clock in self.clocks.items()}
        generated, self.generated_tokens = self.generated_tokens, 0
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
            "generated_tokens": generated,
        }
