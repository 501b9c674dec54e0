"""Pipeline invariants with the real scheduler and small fake stages (no model, no GPU)."""

from __future__ import annotations

import asyncio
import random
import threading
import time

import pytest
import torch

from trainer.data import Prompt
from trainer.loop import MaskedRewardWatch, train_loop
from trainer.pipeline import Pipeline, StageClock
from trainer.types import Completion, Group, Sampling

BATCH = 4


class RecordingEngine:
    """Instant generation; records the version every generate call ran with."""

    def __init__(self, version: int = 0, follow_loads: bool = True) -> None:
        self.version = version
        self.follow_loads = follow_loads
        self.generated_with: list[int] = []
        self.loads: list[int] = []
        self.busy = False

    def generate(self, prompts: list[list[int]], sampling: Sampling) -> list[list[Completion]]:
        assert not self.busy, "generate overlapped a weight load"
        self.generated_with.append(self.version)
        return [[Completion([7, 2], [-0.1, -0.2], str(i), truncated=False)
                 for i in range(sampling.n)] for _ in prompts]

    def load_weights(self, model: torch.nn.Module, version: int) -> None:
        self.busy = True
        time.sleep(0.002)
        self.loads.append(version)
        if self.follow_loads:
            self.version = version
        self.busy = False

    def close(self) -> None:
        pass


class RecordingLearner:
    def __init__(self, train_s: float = 0.0, fail_at: int | None = None) -> None:
        self.model = torch.nn.Linear(1, 1)
        self.train_s = train_s
        self.fail_at = fail_at
        self.trained: list[tuple[int, list[int], list[int]]] = []  # step, versions, slots

    def train_step(self, groups: list[Group], step: int) -> dict:
        if step == self.fail_at:
            raise RuntimeError("learner blew up")
        time.sleep(self.train_s)
        self.trained.append((step, [g.version for g in groups], [g.slot for g in groups]))
        return {"groups_seen": len(groups)}


class JitteryRewarder:
    """Finishes groups out of order, and fails (None) some samples like an infra_error."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    async def score(self, prompt: Prompt, completions: list[Completion]):
        await asyncio.sleep(self.rng.uniform(0, 0.01))
        rewards = [None if i == 0 else float(i % 2) for i in range(len(completions))]
        return rewards, ["infra_error" if r is None else "correct" if r else "wrong"
                         for r in rewards]


PROMPTS = [Prompt(text=f"{i}+0=", token_ids=[1, i % 10 + 3], answer=str(i)) for i in range(400)]


def run_pipeline(engine, learner, k: int, steps: int, start: int = 0, chunk: int = 1,
                 rewarder=None, colocate: bool = False) -> tuple[Pipeline, list[dict]]:
    records: list[dict] = []
    pipeline = Pipeline(engine, rewarder or JitteryRewarder(), PROMPTS,
                        Sampling(n=4, max_new_tokens=2), prompts_per_step=BATCH,
                        max_staleness=k, chunk_prompts=chunk, colocate=colocate)
    asyncio.run(train_loop(pipeline, learner, range(start, start + steps), log=records.append))
    return pipeline, records


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_no_sample_is_trained_beyond_the_staleness_bound(k):
    engine, learner = RecordingEngine(), RecordingLearner(train_s=0.01)
    pipeline, records = run_pipeline(engine, learner, k, steps=10, chunk=2)
    assert [step for step, _, _ in learner.trained] == list(range(10))
    for step, versions, slots in learner.trained:
        assert all(0 <= step - v <= k for v in versions)
        assert slots == list(range(step * BATCH, (step + 1) * BATCH))  # the step's own slots
    assert pipeline.stale_dropped == 0
    assert all(r["staleness_max"] <= k and r["max_staleness"] == k for r in records)
    if k == 0:  # the synchronous baseline: every sample from the current policy
        assert all(v == step for step, versions, _ in learner.trained for v in versions)
    else:  # with a slow learner the rollout really runs ahead, up to the bound
        assert max(r["staleness_max"] for r in records) == k


def test_versions_are_monotonic_and_every_step_syncs():
    engine, learner = RecordingEngine(), RecordingLearner(train_s=0.005)
    _, records = run_pipeline(engine, learner, k=2, steps=8)
    assert engine.generated_with == sorted(engine.generated_with)
    assert engine.loads == list(range(1, 9))
    assert [r["policy_version"] for r in records] == list(range(1, 9))
    assert all(r["sync_s"] > 0 for r in records)


def test_step_metrics_count_masked_rewards_and_staleness():
    engine, learner = RecordingEngine(), RecordingLearner()
    _, records = run_pipeline(engine, learner, k=1, steps=3)
    first = records[0]
    assert first["reward_masked"] == BATCH  # one None per group of 4
    assert first["reward_mean"] == pytest.approx(2 / 3)  # rewards (1, 0, 1) per group
    assert first["accuracy"] == pytest.approx(0.5)
    assert sum(first["staleness_hist"].values()) == BATCH
    assert first["groups_seen"] == BATCH  # the learner's own stats are merged in
    for key in ("rollout_s", "reward_s", "train_s", "sync_s", "rollout_idle", "train_idle",
                "tokens_per_s", "step_s"):
        assert first[key] >= 0


def test_generated_tokens_are_counted_in_the_window_that_generated_them():
    """With k = 1 the rollout of step s+1 runs during step s: its tokens land in step s's record
    (bench/gpu_step.py divides them by the same window's rollout time)."""
    engine, learner = RecordingEngine(), RecordingLearner(train_s=0.02)
    _, records = run_pipeline(engine, learner, k=1, steps=3)
    per_step = BATCH * 4 * 2  # prompts x samples x tokens
    assert sum(r["generated_tokens"] for r in records) == 3 * per_step
    assert records[0]["generated_tokens"] == 2 * per_step  # steps 0 and 1
    assert records[-1]["generated_tokens"] == 0  # nothing is left to generate


def test_an_engine_that_ignores_updates_gets_its_samples_dropped():
    """The trainer's own check: samples past the bound never reach the learner."""
    engine, learner = RecordingEngine(follow_loads=False), RecordingLearner()
    pipeline, records = run_pipeline(engine, learner, k=1, steps=5)
    for step, versions, _ in learner.trained:
        assert all(step - v <= 1 for v in versions)
    assert pipeline.stale_dropped == 3 * BATCH  # steps 2, 3, 4 only had version-0 samples
    assert [r["stale_dropped"] for r in records] == [0, 0, BATCH, BATCH, BATCH]


def test_resume_continues_steps_slots_and_versions():
    engine, learner = RecordingEngine(), RecordingLearner()
    run_pipeline(engine, learner, k=1, steps=3)
    resumed_engine, resumed = RecordingEngine(version=3), RecordingLearner()
    _, records = run_pipeline(resumed_engine, resumed, k=1, steps=2, start=3)
    assert [step for step, _, _ in resumed.trained] == [3, 4]
    assert resumed.trained[0][2] == list(range(3 * BATCH, 4 * BATCH))
    assert all(v >= 3 for _, versions, _ in resumed.trained for v in versions)
    assert [r["policy_version"] for r in records] == [4, 5]


def test_resume_requires_the_engine_at_the_resumed_version():
    with pytest.raises(ValueError, match="engine holds version 0"):
        run_pipeline(RecordingEngine(), RecordingLearner(), k=1, steps=2, start=3)


def test_a_failing_stage_stops_the_pipeline_cleanly():
    threads_before = threading.active_count()
    engine, learner = RecordingEngine(), RecordingLearner(fail_at=2)
    with pytest.raises(RuntimeError, match="learner blew up"):
        run_pipeline(engine, learner, k=2, steps=6)
    assert [step for step, _, _ in learner.trained] == [0, 1]
    assert threading.active_count() == threads_before  # worker threads joined

    class BrokenRewarder:
        async def score(self, prompt, completions):
            raise ConnectionError("verifier down")

    with pytest.raises(ConnectionError, match="verifier down"):
        run_pipeline(RecordingEngine(), RecordingLearner(), k=1, steps=3,
                     rewarder=BrokenRewarder())


def test_bad_pipeline_settings_are_rejected():
    with pytest.raises(ValueError, match="max_staleness"):
        Pipeline(RecordingEngine(), JitteryRewarder(), PROMPTS,
                 Sampling(n=2, max_new_tokens=2), prompts_per_step=4, max_staleness=-1)


def test_stage_clock_counts_overlapping_activities_once(monkeypatch):
    now = [0.0]
    monkeypatch.setattr("trainer.pipeline.time.perf_counter", lambda: now[0])
    clock = StageClock()
    with clock:  # busy 0 -> 3
        now[0] = 1.0
        with clock:  # a second activity inside: not counted twice
            now[0] = 2.0
        now[0] = 3.0
    now[0] = 5.0  # idle 3 -> 5
    with clock:  # busy 5 -> 6, still running at the take: split there
        now[0] = 6.0
        assert clock.take() == 4.0
        now[0] = 6.5
    assert clock.take() == 0.5
    assert clock.take() == 0.0


class SleepyEngine(RecordingEngine):
    """Records the order of generate/sleep/wake calls; refuses to generate while asleep."""

    def __init__(self) -> None:
        super().__init__()
        self.asleep = False
        self.events: list[str] = []

    def generate(self, prompts, sampling):
        assert not self.asleep, "generate on a sleeping engine"
        self.events.append(f"generate v{self.version}")
        return super().generate(prompts, sampling)

    def sleep(self) -> None:
        self.asleep = True
        self.events.append("sleep")

    def wake_up(self, model, version: int) -> None:
        self.asleep = False
        self.load_weights(model, version)
        self.events.append(f"wake v{version}")


class AsleepCheckingLearner(RecordingLearner):
    def __init__(self, engine: SleepyEngine) -> None:
        super().__init__()
        self.engine = engine

    def train_step(self, groups, step):
        assert self.engine.asleep, "trained while the engine held its memory"
        self.engine.events.append(f"train {step}")
        return super().train_step(groups, step)


def test_colocated_engine_sleeps_through_training_and_wakes_with_the_new_weights():
    engine = SleepyEngine()
    learner = AsleepCheckingLearner(engine)
    pipeline, records = run_pipeline(engine, learner, k=0, steps=3, chunk=2, colocate=True)
    step_events = [["generate v0", "generate v0", "sleep", "train 0", "wake v1"],
                   ["generate v1", "generate v1", "sleep", "train 1", "wake v2"],
                   ["generate v2", "generate v2", "sleep", "train 2", "wake v3"]]
    assert engine.events == [e for step in step_events for e in step]
    assert engine.loads == [1, 2, 3] and engine.version == 3
    assert all(v == step for step, versions, _ in learner.trained for v in versions)
    assert all(r["sync_s"] > 0 for r in records)


def test_colocate_needs_k0_and_an_engine_that_sleeps():
    with pytest.raises(ValueError, match="max_staleness 0"):
        Pipeline(SleepyEngine(), JitteryRewarder(), PROMPTS, Sampling(n=2, max_new_tokens=2),
                 prompts_per_step=4, max_staleness=1, colocate=True)
    with pytest.raises(ValueError, match="RecordingEngine cannot sleep"):
        Pipeline(RecordingEngine(), JitteryRewarder(), PROMPTS, Sampling(n=2, max_new_tokens=2),
                 prompts_per_step=4, max_staleness=0, colocate=True)


class SignalBySlotRewarder:
    """Groups of even-numbered prompts are all correct (no signal); odd ones are mixed."""

    async def score(self, prompt: Prompt, completions: list[Completion]):
        await asyncio.sleep(0)
        number = int(prompt.answer)
        rewards = [1.0 if number % 2 == 0 else float(i % 2) for i in range(len(completions))]
        return rewards, ["correct" if r else "wrong" for r in rewards]


def _dynamic(k: int, steps: int, cap: float | None, rewarder=None, start: int = 0,
             first_slot: int | None = None, engine=None):
    engine = engine or RecordingEngine(version=start)
    learner, records = RecordingLearner(train_s=0.005), []
    pipeline = Pipeline(engine, rewarder or SignalBySlotRewarder(), PROMPTS,
                        Sampling(n=4, max_new_tokens=2), prompts_per_step=BATCH,
                        max_staleness=k, chunk_prompts=2, dynamic_sampling_cap=cap)
    asyncio.run(train_loop(pipeline, learner, range(start, start + steps), log=records.append,
                           first_slot=first_slot))
    return pipeline, learner, records


@pytest.mark.parametrize("k", [0, 1, 2])
def test_dynamic_sampling_fills_each_batch_with_groups_that_carry_signal(k):
    pipeline, learner, records = _dynamic(k, steps=6, cap=3.0)
    for (step, versions, slots), record in zip(learner.trained, records, strict=True):
        assert len(slots) == BATCH and all(s % 2 == 1 for s in slots)  # signal only
        assert all(0 <= step - v <= k for v in versions)  # the extra draws are paced too
        assert record["groups_generated"] == 2 * BATCH  # half of the prompts have signal
        assert record["zero_signal_frac"] == pytest.approx(0.5)
    # each step drew a contiguous range of slots, in order, none twice
    ranges = [pipeline.step_slots[s] for s in range(6)]
    assert [r.start for r in ranges] == [0, *[r.stop for r in ranges[:-1]]]
    assert pipeline.next_slot(6) == 6 * 2 * BATCH


def test_dynamic_sampling_stops_at_its_cap():
    class Flat:
        async def score(self, prompt, completions):
            return [1.0] * len(completions), ["correct"] * len(completions)

    pipeline, learner, records = _dynamic(1, steps=3, cap=2.5, rewarder=Flat())
    assert [r["groups_generated"] for r in records] == [10, 10, 10]  # 2.5 x 4
    assert all(r["zero_signal_frac"] == 1.0 for r in records)
    assert [slots for _, _, slots in learner.trained] == [[], [], []]


def test_without_dynamic_sampling_zero_signal_groups_are_reported_and_kept_in_the_batch():
    _, learner, records = _dynamic(1, steps=3, cap=None)
    assert [slots for _, _, slots in learner.trained] == [
        list(range(s * BATCH, (s + 1) * BATCH)) for s in range(3)]
    assert all(r["zero_signal_frac"] == pytest.approx(0.5) for r in records)


def test_a_dynamically_sampled_run_resumes_at_the_slot_it_stopped_at():
    first, _, _ = _dynamic(1, steps=3, cap=3.0)
    resumed, learner, _ = _dynamic(1, steps=2, cap=3.0, start=3, first_slot=first.next_slot(3))
    assert resumed.step_slots[3].start == first.next_slot(3) == 3 * 2 * BATCH
    assert min(s for _, _, slots in learner.trained for s in slots) >= 3 * 2 * BATCH


class FailingVerifier:
    """Every sample comes back as infra_error (the verifier failed), reward None."""

    async def score(self, prompt, completions):
        return [None] * len(completions), ["infra_error"] * len(completions)


def test_a_run_whose_verifier_fails_everything_alarms_then_stops(caplog):
    engine, learner = RecordingEngine(), RecordingLearner()
    records: list[dict] = []
    pipeline = Pipeline(engine, FailingVerifier(), PROMPTS, Sampling(n=4, max_new_tokens=2),
                        prompts_per_step=BATCH, max_staleness=1)
    with caplog.at_level("WARNING", logger="trainer"), pytest.raises(
            RuntimeError, match=r"100% of the samples were masked.*infra_error.*3 steps in a row"):
        asyncio.run(train_loop(pipeline, learner, range(10), log=records.append))
    assert [step for step, _, _ in learner.trained] == [0, 1]  # step 2 stops before training
    assert all(r["alarm"] and r["masked_share"] == 1.0 for r in records)
    assert sum("were masked" in m for m in caplog.messages) == 2


def test_the_masked_alarm_resets_on_a_healthy_step_and_can_be_alarm_only():
    class Flaky:
        def __init__(self):
            self.calls = 0

        async def score(self, prompt, completions):
            self.calls += 1
            healthy = (self.calls - 1) // BATCH % 3 == 2  # every third step is healthy
            rewards = [float(i % 2) if healthy else None for i in range(len(completions))]
            return rewards, ["wrong" if healthy else "infra_error"] * len(completions)

    for fail_steps in (3, 0):
        records: list[dict] = []
        pipeline = Pipeline(RecordingEngine(), Flaky(), PROMPTS, Sampling(n=4, max_new_tokens=2),
                            prompts_per_step=BATCH, max_staleness=0)
        watch = MaskedRewardWatch(alarm_share=0.5, fail_steps=fail_steps)
        asyncio.run(train_loop(pipeline, RecordingLearner(), range(6), log=records.append,
                               watch=watch))
        assert [r["alarm"] is not None for r in records] == [True, True, False] * 2
