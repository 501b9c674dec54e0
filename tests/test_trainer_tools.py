"""Tool-integrated rollouts against the real service's sessions: turns, masks, the call limit,
every failure visible in the trajectory, sessions always deleted. The engine is scripted (it
writes fixed text by the stop rules of a real one); the engines themselves are tested with
tools in tests/test_trainer_tools_engines.py."""

from __future__ import annotations

import asyncio
import re
import shutil
import threading
from collections.abc import Callable

import pytest
import torch

from rl_client import AsyncVerifierClient
from tests.client_proxy import ScriptedProxy
from tests.trainer_tools_helpers import (
    BEHAVIOUR_LOGPROB,
    TOKENIZER,
    ScriptedEngine,
    encode,
    open_sessions,
    tools_config,
)
from trainer.code_tool import VerifierCodeTool
from trainer.config import ToolsConfig, load_config
from trainer.data import Prompt
from trainer.loop import train_loop
from trainer.pipeline import Pipeline
from trainer.tool_rollout import ToolRollout, clip_output, tool_stats
from trainer.types import Completion, Group, Sampling

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
PROMPT = TOKENIZER("6*7=")["input_ids"]
FAST_FAILURE = {"max_retries": 1, "backoff_s": 0.01, "backoff_max_s": 0.02, "timeout": 20}


def blocks_then_answer(*blocks: str, answer: str = "42") -> Callable[[str], str]:
    """A policy that writes the blocks one per turn, then the answer."""
    def script(context: str) -> str:
        turn = context.count("<output>")
        return f"<code>{blocks[turn]}</code>" if turn < len(blocks) else answer
    return script


def roll(url: str, engine: ScriptedEngine, config: ToolsConfig, *, n: int = 1,
         max_new_tokens: int = 200, client_options: dict | None = None,
         prompts: list[list[int]] | None = None) -> list[Completion]:
    async def run() -> list[Completion]:
        async with AsyncVerifierClient(url, **(client_options or {})) as client:
            rollout = ToolRollout(config, VerifierCodeTool(client, config), TOKENIZER)

            async def engine_round(contexts, sampling):
                return engine.generate(contexts, sampling), engine.version

            groups, _ = await rollout.generate(prompts or [PROMPT], Sampling(
                n=n, max_new_tokens=max_new_tokens), engine_round)
            return [c for group in groups for c in group]
    return asyncio.run(run())


def tool_texts(completion: Completion) -> list[str]:
    return [TOKENIZER.decode(completion.token_ids[s.start:s.end])
            for s in completion.segments if s.is_tool]


def test_a_block_runs_and_its_output_is_appended_as_context_the_loss_never_sees(verifier_url):
    before = open_sessions(verifier_url)
    engine = ScriptedEngine(blocks_then_answer("6*7"), version=3)
    [completion] = roll(verifier_url, engine, tools_config())
    assert completion.text == "<code>6*7</code><output>42</output>42"
    assert [(s.is_tool, s.version, s.tool_status) for s in completion.segments] == [
        (False, 3, None), (True, None, "ok"), (False, 3, None)]
    first, output, answer = completion.segments
    assert completion.token_ids == encode("<code>6*7</code><output>42</output>42") + [
        TOKENIZER.eos_token_id]
    assert (first.start, first.end) == (0, len("<code>6*7</code>"))
    assert output.end - output.start == len("<output>42</output>")
    # the mask is 0 on the output's tokens exactly; their log-probs are placeholders
    assert completion.loss_mask == ([1] * first.end + [0] * (output.end - output.start)
                                    + [1] * (answer.end - answer.start))
    assert [lp for lp, m in zip(completion.logprobs, completion.loss_mask, strict=True)
            if m] == [BEHAVIOUR_LOGPROB] * completion.policy_tokens
    assert not completion.truncated
    # the second round's context is the prompt, the block and the output: the model reads it
    assert engine.rounds[1][0] == ["6*7=<code>6*7</code><output>42</output>"]
    assert open_sessions(verifier_url) == before  # the session was deleted


def test_blocks_of_one_trajectory_share_a_session_and_trajectories_never_do(verifier_url):
    engine = ScriptedEngine(blocks_then_answer("x = 20", "x * 2 + 2"))
    completions = roll(verifier_url, engine, tools_config(), n=3)
    assert len(completions) == 3
    for completion in completions:  # state kept between the blocks of a trajectory
        assert tool_texts(completion) == ["<output></output>", "<output>42</output>"]
    stateless = roll(verifier_url, engine, tools_config(stateful=False))[0]
    assert "NameError" in tool_texts(stateless)[1]  # /run_code: each block alone
    assert [s.tool_status for s in stateless.segments if s.is_tool] == ["ok", "error"]


def test_the_call_limit_is_respected_and_later_blocks_are_plain_text(verifier_url):
    calls = []

    def always_code(context: str) -> str:
        calls.append(context)
        return "<code>print(1)</code>"

    [completion] = roll(verifier_url, ScriptedEngine(always_code), tools_config(max_calls=2),
                        max_new_tokens=120)
    assert [s.tool_status for s in completion.segments if s.is_tool] == ["ok", "ok"]
    assert completion.text.count("<output>") == 2
    assert completion.text.count("<code>") > 3  # generation went on through later blocks
    assert completion.truncated and len(completion.token_ids) == 120
    assert tool_stats([completion])["tool_calls"] == 2


def test_a_stop_at_a_close_with_no_open_before_it_is_not_a_block(verifier_url):
    """With Markdown fences the opening "```python" begins with the close "```": generation
    stops there first, runs nothing, and goes on to the real close."""
    def fenced(context: str) -> str:
        if "```output" in context:
            return "The answer is 42."
        if context.endswith("```"):  # stopped at the opening fence's own backticks
            return "python\nprint(6 * 7)\n```\n"
        return "Let me compute.\n```python\nprint(6 * 7)\n```\n"

    engine = ScriptedEngine(fenced)
    defaults = ToolsConfig()  # Markdown fences
    [completion] = roll(verifier_url, engine, tools_config(
        code_open=defaults.code_open, code_close=defaults.code_close,
        output_open=defaults.output_open, output_close=defaults.output_close))
    assert completion.text == ("Let me compute.\n```python\nprint(6 * 7)\n```"
                               "\n```output\n42\n```\nThe answer is 42.")
    assert [s.is_tool for s in completion.segments] == [False, True, False]
    assert len(engine.rounds) == 3  # opening fence, closing fence, the answer


@pytest.mark.parametrize(("block", "status", "shown"), [
    ("1 / 0", "error", "ZeroDivisionError: division by zero"),
    ("while True: pass", "timeout", "[timeout: the code was killed after 1 s; the session "
                                    "restarted: its variables, imports and files are gone]"),
    ("print('x' * 500)", "ok", "...[372 characters cut]..."),
])
def test_what_the_code_does_is_what_the_policy_reads(verifier_url, block, status, shown):
    engine = ScriptedEngine(blocks_then_answer("y = 1", block, "y"))
    [completion] = roll(verifier_url, engine, tools_config(timeout_s=1, max_output_chars=128),
                        max_new_tokens=600)
    outputs = tool_texts(completion)
    assert [s.tool_status for s in completion.segments if s.is_tool][1] == status
    assert shown in outputs[1]
    # after a timeout the session restarted empty: the next block sees its state gone
    assert ("NameError" in outputs[2]) == (status == "timeout")


def test_a_service_that_is_down_is_an_error_outcome_not_a_crash(tmp_path):
    from verifier.local import free_port

    dead = f"http://127.0.0.1:{free_port()}"
    engine = ScriptedEngine(blocks_then_answer("6*7"))
    [completion] = roll(dead, engine, tools_config(), client_options=FAST_FAILURE)
    [output] = [s for s in completion.segments if s.is_tool]
    assert output.tool_status == "service_error"
    assert "[tool error: no answer from the code service (VerifierUnavailable)" in completion.text
    assert completion.text.endswith("</output>42")  # the policy went on after it
    stats = tool_stats([completion])
    assert stats["tool_errors"] == 1 and stats["tool_outcomes"] == {"service_error": 1}


def test_busy_through_every_retry_and_a_lost_session_are_visible(verifier_url):
    before = open_sessions(verifier_url)
    with ScriptedProxy(verifier_url) as proxy:
        # the first call: busy (429, then 504) through every retry: no session is created
        proxy.script.refusals = [(429, {}), (504, {})]
        engine = ScriptedEngine(blocks_then_answer("1", "2", "3"))
        [busy] = roll(proxy.url, engine, tools_config(), client_options=FAST_FAILURE,
                      max_new_tokens=600)

        # the second block's run: the session is lost with its worker (410)
        write = blocks_then_answer("x = 5", "x", "x")

        def losing(context: str) -> str:
            if context.count("<output>") == 1:
                proxy.script.refusals = [(410, {})]
            return write(context)

        [lost] = roll(proxy.url, ScriptedEngine(losing), tools_config(),
                      client_options=FAST_FAILURE, max_new_tokens=600)
    assert [s.tool_status for s in busy.segments if s.is_tool] == ["service_error", "ok", "ok"]
    assert busy.text.endswith("<output>3</output>42")
    assert [s.tool_status for s in lost.segments if s.is_tool] == ["ok", "session_lost", "error"]
    assert "[tool error: the session was lost" in lost.text
    assert "NameError" in tool_texts(lost)[2]  # a new session: the lost one's state is gone
    assert open_sessions(verifier_url) == before


def test_sessions_are_deleted_when_the_engine_fails_mid_rollout(verifier_url):
    before = open_sessions(verifier_url)
    engine = ScriptedEngine(blocks_then_answer("x = 1", "x"), fail_at_round=1)
    with pytest.raises(RuntimeError, match="engine failed mid-rollout"):
        roll(verifier_url, engine, tools_config(), n=4)
    assert len(engine.rounds) == 1  # the sessions had been opened by the first round's blocks
    assert open_sessions(verifier_url) == before


def test_sessions_are_deleted_when_the_rollout_is_cancelled_during_a_call(verifier_url):
    before = open_sessions(verifier_url)
    config = tools_config(timeout_s=30)
    engine = ScriptedEngine(blocks_then_answer("import time; time.sleep(30)"))

    async def cancel_mid_call() -> None:
        async with AsyncVerifierClient(verifier_url) as client:
            rollout = ToolRollout(config, VerifierCodeTool(client, config), TOKENIZER)

            async def engine_round(contexts, sampling):
                return engine.generate(contexts, sampling), engine.version

            task = asyncio.create_task(rollout.generate(
                [PROMPT], Sampling(n=2, max_new_tokens=100), engine_round))
            for _ in range(600):  # until both sessions exist and run their code
                await asyncio.sleep(0.1)
                if open_sessions(verifier_url) - before == 2:
                    break
            assert open_sessions(verifier_url) - before == 2
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(cancel_mid_call())
    assert open_sessions(verifier_url) == before


def test_the_token_budget_covers_outputs_and_cuts_one_that_does_not_fit(verifier_url):
    engine = ScriptedEngine(blocks_then_answer("print('7' * 50)"))
    budget = len("<code>print('7' * 50)</code>") + 20
    [completion] = roll(verifier_url, engine, tools_config(), max_new_tokens=budget)
    assert len(completion.token_ids) == budget and completion.truncated
    assert completion.segments[-1].is_tool and completion.loss_mask[-1] == 0
    assert len(engine.rounds) == 1  # nothing left for the policy after the output


def test_output_is_cut_in_the_middle_with_a_marker():
    assert clip_output("abc", 16) == "abc"
    cut = clip_output("a" * 50 + "b" * 50, 20)
    assert cut == "a" * 10 + "\n...[80 characters cut]...\n" + "b" * 10


class StepRewarder:
    async def score(self, prompt: Prompt, completions: list[Completion]):
        rewards = [float(c.text.endswith(str(prompt.answer))) for c in completions]
        return rewards, ["correct" if r else "wrong" for r in rewards]


class WaitingLearner:
    """Records what it trains on; step 0's update waits until `ready` is set."""

    def __init__(self, ready: threading.Event | None = None) -> None:
        self.model = torch.nn.Linear(1, 1)
        self.ready = ready
        self.trained: dict[int, list[Group]] = {}

    def train_step(self, groups: list[Group], step: int) -> dict:
        if step == 0 and self.ready is not None:
            assert self.ready.wait(300), "step 1's rollout never started"
        self.trained[step] = groups
        return {}


class VersionGate:
    """A CodeTool whose runs of `code` wait (before running for real) until the engine holds
    `version`: a weight update lands while that block runs."""

    def __init__(self, tool: VerifierCodeTool, engine: ScriptedEngine, code: str,
                 version: int) -> None:
        self.tool, self.engine, self.code, self.version = tool, engine, code, version

    def session(self) -> GatedSession:
        return GatedSession(self, self.tool.session())


class GatedSession:
    def __init__(self, gate: VersionGate, inner) -> None:
        self.gate, self.inner = gate, inner

    async def run(self, code: str):
        gate = self.gate
        for _ in range(3000):
            if code != gate.code or gate.engine.version >= gate.version:
                return await self.inner.run(code)
            await asyncio.sleep(0.1)
        raise AssertionError(f"the engine never took version {gate.version}")

    async def close(self) -> None:
        await self.inner.close()


def run_tool_pipeline(url: str, engine: ScriptedEngine, learner, k: int, steps: int,
                      gate: tuple[str, int] | None = None) -> list[dict]:
    prompts = [Prompt(text=f"{a}*7=", token_ids=TOKENIZER(f"{a}*7=")["input_ids"],
                      answer=str(a * 7)) for a in range(10)]
    config = tools_config()
    records: list[dict] = []

    async def run() -> None:
        async with AsyncVerifierClient(url) as client:
            tool = VerifierCodeTool(client, config)
            rollout = ToolRollout(config, tool if gate is None else VersionGate(
                tool, engine, *gate), TOKENIZER)
            pipeline = Pipeline(engine, StepRewarder(), prompts,
                                Sampling(n=2, max_new_tokens=60), prompts_per_step=1,
                                max_staleness=k, tools=rollout)
            await train_loop(pipeline, learner, range(steps), log=records.append)

    asyncio.run(run())
    return records


def multiply_by_seven(context: str) -> str:
    a = context.split("*")[0]
    return f"<code>{a}*7</code>" if "<output>" not in context else context.split("<output>")[
        1].split("</output>")[0]


def test_async_a_trajectory_spanning_a_weight_update_keeps_its_first_version(verifier_url):
    """k = 1: step 1's trajectories start on version 0 while step 0 trains; version 1 lands
    while their block runs, so the rest of each is sampled by version 1. Each segment says
    which; the group keeps version 0 (its oldest tokens) for the staleness bound."""
    before = open_sessions(verifier_url)

    class Engine(ScriptedEngine):
        def generate(self, prompts, sampling):
            out = super().generate(prompts, sampling)
            if any(c.startswith("1*7=") for c in self.rounds[-1][0]):
                step_one_started.set()
            return out

    step_one_started = threading.Event()
    engine = Engine(multiply_by_seven)
    learner = WaitingLearner(step_one_started)
    records = run_tool_pipeline(verifier_url, engine, learner, k=1, steps=3, gate=("1*7", 1))
    [group] = learner.trained[1]
    assert group.version == 0
    for completion in group.completions:
        assert completion.text == "<code>1*7</code><output>7</output>7"
        assert [s.version for s in completion.segments] == [0, None, 1]
    assert records[1]["samples_spanning_versions"] == 2
    assert records[1]["staleness_max"] == 1 and records[1]["stale_dropped"] == 0
    assert all(r["tool_calls"] == 2 and r["tool_errors"] == 0 for r in records)
    assert records[0]["reward_mean"] == 1.0
    assert open_sessions(verifier_url) == before


def test_sync_every_segment_comes_from_the_steps_own_version(verifier_url):
    engine = ScriptedEngine(multiply_by_seven)
    learner = WaitingLearner()
    records = run_tool_pipeline(verifier_url, engine, learner, k=0, steps=3)
    for step, [group] in learner.trained.items():
        assert group.version == step
        assert {s.version for c in group.completions for s in c.segments if not s.is_tool} == {
            step}
    assert [r["tool_calls"] for r in records] == [2, 2, 2]
    assert all(r["samples_spanning_versions"] == 0 for r in records)
    assert all(r["tool_outcomes"] == {"ok": 2} and r["tool_time_s"] > 0 for r in records)


@pytest.mark.parametrize(("override", "message"), [
    ("tools.max_calls=0", "tools.max_calls must be >= 1"),
    ("tools.max_output_chars=8", "tools.max_output_chars >= 16"),
    ("tools.timeout_s=0", "tools.timeout_s must be in (0, 60]"),
    ("tools.memory_mb=8", "tools.memory_mb in [16, 8192]"),
    ("tools.session_ttl_s=0", "tools.session_ttl_s must be > 0"),
    ("tools.code_close=''", "tools.code_open and tools.code_close must not be empty"),
    ("data.synthetic_min_operand=20", "data.synthetic_min_operand must be in"),
])
def test_tools_settings_out_of_range_are_refused(override, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        load_config(None, ["tools.enabled=true", override])


@pytest.mark.parametrize(("code", "reason"), [
    ("x" * 4_000_001, "4000001 characters is over the limit of 4000000"),
    ('s = "\ud800"', "a lone surrogate"),
])
def test_code_the_service_would_refuse_is_an_outcome_not_a_crash(verifier_url, code, reason):
    """Text a tokenizer decoded can be no request at all (too large, not UTF-8): the client
    refuses it before sending, and the policy reads why."""
    config = tools_config()

    async def run():
        async with AsyncVerifierClient(verifier_url) as client:
            session = VerifierCodeTool(client, config).session()
            try:
                return await session.run(code), await session.run("6 * 7")
            finally:
                await session.close()

    refused, after = asyncio.run(run())
    assert refused.status == "error" and refused.output.startswith("[the code was not run: ")
    assert reason in refused.output
    assert (after.status, after.output) == ("ok", "42")  # the session goes on
