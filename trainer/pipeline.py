"""The asynchronous pipeline: rollout and reward run ahead of training, with bounded staleness.

Prompts are numbered by *slot* and drawn in order; each training step owns a contiguous range of
slots, `prompts_per_step` (B) of them, or more with dynamic sampling. The step a group will be
trained in is known when its generation starts, so the staleness bound is enforced up front, by
pacing:

    a group for step s may start generating only when the engine holds version >= s - k

(the trainer is at version s when it trains step s, so the group is at most k versions old).
Inside `running()` two activities run in the background, on one asyncio loop:

  rollout  takes the next step's slots a chunk at a time, waits for the gate, generates in a
           worker thread, and sends each finished group to the verifier at once (its own task);
  reward   scores a group over HTTP and parks it in its slot;

while the training loop (trainer/loop.py's `train_loop`) takes a step's groups with
`batch(step)`, trains, and hands the new weights over with `publish`, which opens the gate.

k = 0 is the synchronous baseline (generate, score, train, sync, repeat); k = 1 overlaps the
rollout of batch s+1 with the training of batch s; larger k lets the rollout run further ahead.
Colocated (k = 0 only): the engine sleeps while the learner trains, so training gets the memory
the engine's weights and KV cache held, and wakes up with the new weights.

Dynamic sampling (DAPO): a group whose rewards are all equal teaches nothing. With it on, the
rollout waits for a step's scores, and while fewer than B of its groups carry signal it draws
more prompts for that step, up to `dynamic_sampling_cap` x B groups in all; the step then trains
on the first B groups with signal (fewer if the cap was reached). Every step's record reports
the share of zero-signal groups, with dynamic sampling or without.

Generation and weight loading share one lock, so weights never change under a generate call and
every sample's version is the version that produced it. `batch` re-checks the bound anyway and
drops (and counts) any group beyond it; with this pacing that never happens.

With tools (trainer/tool_rollout.py) a chunk is generated in rounds, the policy's code run
between them; the lock is held per round, so weights may change between two rounds of one
trajectory (each segment records its version) and a group's version is that of its first
round, the oldest. Evaluation generates through the tools too.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, nullcontext
from functools import partial
from typing import Any

import torch

from trainer.algorithm import group_advantages
from trainer.data import Prompt, PromptSource
from trainer.tool_rollout import EngineRound, ToolRollout, tool_stats
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


def rewards_differ(group: Group) -> bool:
    """Whether a group carries signal, on its rewards as scored: at least two scored samples
    whose rewards differ (the learner's own test also applies its overlong policy)."""
    return group_advantages(group.rewards, scale_by_std=False) is not None


class Pipeline:
    def __init__(self, engine: RolloutEngine, rewarder: Rewarder,
                 prompts: Sequence[Prompt] | PromptSource, sampling: Sampling, *,
                 prompts_per_step: int, max_staleness: int, chunk_prompts: int = 1,
                 colocate: bool = False, has_signal: Callable[[Group], bool] | None = None,
                 dynamic_sampling_cap: float | None = None,
                 tools: ToolRollout | None = None) -> None:
        """`has_signal`: whether the learner can learn from a group (default: its rewards
        differ). `dynamic_sampling_cap`: None, dynamic sampling off; else on, generating at most
        this many times prompts_per_step groups per step. `tools`: multi-turn rollouts whose
        code runs mid-generation (None: one engine call per chunk)."""
        if max_staleness < 0 or prompts_per_step < 1 or chunk_prompts < 1:
            raise ValueError("need max_staleness >= 0, prompts_per_step >= 1, chunk_prompts >= 1")
        if colocate and max_staleness != 0:
            raise ValueError("colocated (sleeping engine) runs are synchronous: max_staleness 0")
        if colocate and not isinstance(engine, SleepingEngine):
            raise ValueError(f"{type(engine).__name__} cannot sleep: colocate needs the hf or "
                             "vllm engine")
        if dynamic_sampling_cap is not None and dynamic_sampling_cap < 1:
            raise ValueError("dynamic_sampling_cap must be >= 1 (x prompts_per_step groups)")
        self.engine, self.rewarder = engine, rewarder
        self.tools = tools
        self.prompts = prompts  # slot -> Prompt
        self.sampling = sampling
        self.batch_size = prompts_per_step
        self.k = max_staleness
        self.chunk = chunk_prompts
        self.colocate = colocate
        self.has_signal = has_signal or rewards_differ
        self.dynamic = dynamic_sampling_cap is not None
        self.max_groups = int((dynamic_sampling_cap or 1) * prompts_per_step)
        self.clocks = {name: StageClock() for name in ("rollout", "reward", "train", "sync")}
        self.stale_dropped = 0  # total over the run; stays 0 unless pacing is broken
        self.generated_tokens = 0  # since the last step's stats: rollout runs ahead of training
        self.step_slots: dict[int, range] = {}  # slots each step drew, once it drew them all

    @asynccontextmanager
    async def running(self, start_step: int, end_step: int,
                      first_slot: int | None = None) -> AsyncIterator[Pipeline]:
        """Rollout and reward for steps [start_step, end_step) in the background, drawing
        prompts from `first_slot` on (default: start_step * B, where a run without dynamic
        sampling stands; a checkpoint records it).

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
        self.step_slots = {}
        for clock in self.clocks.values():
            clock.take()
        self.generated_tokens = 0
        slot = start_step * self.batch_size if first_slot is None else first_slot
        try:
            async with asyncio.TaskGroup() as tasks:  # one failure cancels the rest
                tasks.create_task(self._rollout(tasks, start_step, end_step, slot))
                yield self
        except ExceptionGroup as failure:
            raise failure.exceptions[0] from None  # the stage that failed first, as itself

    # ------------------------------------------------------------------ the training loop's side

    async def batch(self, step: int) -> tuple[list[Group], list[Group]]:
        """Wait for step's groups; returns (all it generated, those it trains on: within the
        staleness bound, and with dynamic sampling the first B with signal)."""
        async with self._parked_changed:
            await self._parked_changed.wait_for(lambda: self._drawn_and_scored(step))
            groups = [self._parked.pop(i) for i in self.step_slots[step]]
        fresh = [g for g in groups if step - g.version <= self.k]
        self.stale_dropped += len(groups) - len(fresh)
        if self.dynamic:
            fresh = [g for g in fresh if self.has_signal(g)][:self.batch_size]
        return groups, fresh

    def next_slot(self, step: int) -> int:
        """The first slot of `step`, once the steps before it drew theirs (a checkpoint's
        data position)."""
        return self.step_slots[step - 1].stop

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

    async def generate(self, prompts: list[Prompt], sampling: Sampling) -> list[list[Completion]]:
        """Completions from the engine's current weights, outside the rollout (evaluation)."""
        outputs, _ = await self._sample(prompts, sampling,
                                        partial(self._engine_round, rollout=False))
        return outputs

    # ------------------------------------------------------------------ rollout and reward

    async def _rollout(self, tasks: asyncio.TaskGroup, first_step: int, end_step: int,
                       slot: int) -> None:
        for step in range(first_step, end_step):
            async with self._version_changed:  # the staleness gate
                await self._version_changed.wait_for(lambda s=step: self._version >= s - self.k)
            first, wanted = slot, self.batch_size
            while wanted:
                for start in range(slot, slot + wanted, self.chunk):
                    await self._generate(tasks, range(start, min(start + self.chunk,
                                                                  slot + wanted)))
                slot += wanted
                wanted = await self._shortfall(range(first, slot)) if self.dynamic else 0
            async with self._parked_changed:
                self.step_slots[step] = range(first, slot)
                self._parked_changed.notify_all()

    async def _generate(self, tasks: asyncio.TaskGroup, slots: range) -> None:
        prompts = [self.prompts[s] for s in slots]
        outputs, version = await self._sample(prompts, self.sampling, self._engine_round)
        for slot, prompt, completions in zip(slots, prompts, outputs, strict=True):
            tasks.create_task(self._score(slot, prompt, completions, version))

    async def _sample(self, prompts: list[Prompt], sampling: Sampling, engine_round: EngineRound
                      ) -> tuple[list[list[Completion]], int]:
        """Completions for the prompts, and the policy version of their first tokens."""
        token_ids = [p.token_ids for p in prompts]
        if self.tools is None:
            return await engine_round(token_ids, sampling)
        return await self.tools.generate(token_ids, sampling, engine_round)

    async def _engine_round(self, contexts: list[list[int]], sampling: Sampling, *,
                            rollout: bool = True) -> tuple[list[list[Completion]], int]:
        """One engine call, under the engine lock (no weight load can happen during it); a
        rollout's is timed as the rollout stage and its tokens counted, evaluation's not."""
        async with self._engine_lock:
            version = self.engine.version
            with self.clocks["rollout"] if rollout else nullcontext():
                outputs = await asyncio.to_thread(self.engine.generate, contexts, sampling)
        if rollout:
            self.generated_tokens += sum(len(c.token_ids) for group in outputs for c in group)
        return outputs, version

    async def _shortfall(self, slots: range) -> int:
        """Dynamic sampling: how many more groups to draw for the step holding `slots`, once
        they are scored (the groups it lacks for B with signal, within the cap)."""
        async with self._parked_changed:
            await self._parked_changed.wait_for(lambda: all(i in self._parked for i in slots))
            with_signal = sum(self.has_signal(self._parked[i]) for i in slots)
        return max(0, min(self.batch_size - with_signal, self.max_groups - len(slots)))

    async def _score(self, slot: int, prompt: Prompt, completions: list[Completion],
                     version: int) -> None:
        with self.clocks["reward"]:
            rewards, statuses = await self.rewarder.score(prompt, completions)
        async with self._parked_changed:
            self._parked[slot] = Group(slot, prompt, completions, version, rewards, statuses)
            self._parked_changed.notify_all()

    def _drawn_and_scored(self, step: int) -> bool:
        return step in self.step_slots and all(i in self._parked for i in self.step_slots[step])

    # ------------------------------------------------------------------ metrics

    def step_stats(self, step: int, groups: list[Group], trained: list[Group],
                   wall: float) -> dict[str, Any]:
        seconds = {name: clock.take() for name, clock in self.clocks.items()}
        generated, self.generated_tokens = self.generated_tokens, 0
        fresh = [g for g in groups if step - g.version <= self.k]
        staleness = Counter(step - g.version for g in fresh)
        scored = [r for g in groups for r in g.rewards if r is not None]
        statuses = [s for g in groups for s in g.statuses]
        samples = sum(len(g.rewards) for g in groups)
        masked = sum(r is None for g in groups for r in g.rewards)
        tokens = sum(len(c.token_ids) for g in trained for c in g.completions)
        tools = (tool_stats([c for g in groups for c in g.completions])
                 if self.tools is not None else {})
        return tools | {
            "split": "train",
            "step": step,
            "policy_version": step + 1,
            "reward_mean": sum(scored) / len(scored) if scored else None,
            "accuracy": statuses.count("correct") / max(len(statuses), 1),
            "reward_masked": masked,
            "masked_share": masked / max(samples, 1),
            "groups_generated": len(groups),
            "zero_signal_frac": sum(not self.has_signal(g) for g in groups) / max(len(groups), 1),
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
