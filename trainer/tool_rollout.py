"""Tool-integrated rollouts: the policy's code runs mid-generation, and it reads the output.

    prompt --engine--> ... code_open <code> code_close           a round stops at the close
           --session.run(<code>)--> output_open <output> output_close     appended, not sampled
           --engine--> ...                               until EOS or the token budget

Each trajectory (n per prompt) runs its blocks in a session of its own (a `CodeTool`: the
verifier service's sessions, trainer/code_tool.py), opened at its first block and deleted as
soon as the trajectory ends, and in every case (an error, a cancelled rollout) before
`generate` returns. Rounds are batched: one engine call generates for every live trajectory,
then the blocks it closed run concurrently.

- A block is the text between the last `code_open` and the `code_close` that ended the round,
  in what the policy wrote since the last output. A round that stopped at a close with no open
  before it (with Markdown fences, "```python" itself begins with the close "```") holds no
  block: generation goes on. Once a trajectory ran `max_calls` blocks, later ones are plain
  text (generation goes on through them).
- Tokens: the output message is tokenized alone and appended to the trajectory's token ids,
  which are the trajectory (never re-tokenized from its text); `loss_mask` is 1 on sampled
  tokens and 0 on output tokens, whose log-probs are placeholders (0.0) nothing reads.
- Budget: `max_new_tokens` bounds the whole trajectory, outputs included (the learner's
  sequence length); a trajectory that reaches it is truncated, an output that does not fit is
  cut there.
- Every outcome is text the policy reads: an exception's traceback, a timeout or memory kill
  and the session's restart (its state lost), the service down or the session lost (the code
  tool words them, trainer/code_tool.py); an output longer than max_output_chars is cut in the
  middle with a marker saying how much was cut, and its trailing newlines are dropped (the
  output's own closing line is `output_close`'s).
- Versions: each sampled segment records the policy version of the weights that produced it.
  Between rounds the engine may take new weights (async mode: the engine lock is held per
  round, not across a tool call), so a trajectory's segments may span versions. Each token's
  behaviour log-prob is its own segment's, so the importance weights stay exact, and the group
  keeps the version of its first segment, the oldest, for the staleness bound.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from trainer.config import ToolsConfig
from trainer.types import TOOL_FAILURES, CodeSession, CodeTool, Completion, Sampling, Segment

# One generation round: completions (n per context) and the policy version that sampled them.
EngineRound = Callable[[list[list[int]], Sampling],
                       Awaitable[tuple[list[list[Completion]], int]]]


def clip_output(text: str, limit: int) -> str:
    """At most `limit` characters of `text`, its head and tail, and a marker where it was cut."""
    if len(text) <= limit:
        return text
    head = limit // 2
    return (f"{text[:head]}\n...[{len(text) - limit} characters cut]...\n"
            f"{text[len(text) - (limit - head):]}")


@dataclass
class Trajectory:
    """One sample being built: its tokens so far, segment by segment."""

    prompt: list[int]
    token_ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    loss_mask: list[int] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    messages: dict[int, str] = field(default_factory=dict)  # tool segment start -> its text
    calls: int = 0
    done: bool = False
    truncated: bool = False
    session: CodeSession | None = None

    @property
    def context(self) -> list[int]:
        return self.prompt + self.token_ids

    def add_policy(self, ids: list[int], logprobs: list[float], version: int) -> None:
        last = self.segments[-1] if self.segments else None
        if last is not None and not last.is_tool and last.version == version:
            last.end += len(ids)  # a round that went on after a stop with no block
        else:
            self.segments.append(Segment(len(self.token_ids), len(self.token_ids) + len(ids),
                                         version))
        self._extend(ids, logprobs, 1)

    def add_output(self, ids: list[int], message: str, status: str, seconds: float) -> None:
        start = len(self.token_ids)
        self.segments.append(Segment(start, start + len(ids), None, status, seconds))
        self.messages[start] = message
        self._extend(ids, [0.0] * len(ids), 0)

    def since_last_output(self) -> list[int]:
        tools = [s for s in self.segments if s.is_tool]
        return self.token_ids[tools[-1].end if tools else 0:]

    def _extend(self, ids: list[int], logprobs: list[float], mask: int) -> None:
        self.token_ids += ids
        self.logprobs += logprobs
        self.loss_mask += [mask] * len(ids)


class ToolRollout:
    def __init__(self, config: ToolsConfig, tool: CodeTool, tokenizer: Any) -> None:
        self.config = config
        self.tool = tool
        self.tokenizer = tokenizer

    async def generate(self, prompts: list[list[int]], sampling: Sampling,
                       engine_round: EngineRound) -> tuple[list[list[Completion]], int]:
        """`sampling.n` trajectories per prompt, in prompt order, and the policy version of
        their first tokens (the oldest of their segments)."""
        trajectories = [Trajectory(list(p)) for p in prompts for _ in range(sampling.n)]
        rounds = replace(sampling, n=1, stop=(self.config.code_close,))
        first_version: int | None = None
        try:
            while live := [t for t in trajectories if not t.done]:
                budget = max(sampling.max_new_tokens - len(t.token_ids) for t in live)
                outputs, version = await engine_round(
                    [t.context for t in live], replace(rounds, max_new_tokens=budget))
                first_version = version if first_version is None else first_version
                blocks = [(t, self._take(t, completion, version, sampling.max_new_tokens))
                          for t, [completion] in zip(live, outputs, strict=True)]
                await asyncio.gather(*(self._run(t, code, sampling.max_new_tokens)
                                       for t, code in blocks if code is not None))
                await asyncio.gather(*(self._close(t) for t in live if t.done))
        finally:
            await asyncio.gather(*(self._close(t) for t in trajectories))
        completions = [self._completion(t) for t in trajectories]
        n = sampling.n
        grouped = [completions[i * n:(i + 1) * n] for i in range(len(prompts))]
        return grouped, first_version if first_version is not None else -1

    def _take(self, trajectory: Trajectory, completion: Completion, version: int,
              max_new_tokens: int) -> str | None:
        """Append a round's tokens (within the trajectory's own budget: the round's is the
        largest live one); the block to run, if the round closed one that may run."""
        room = max_new_tokens - len(trajectory.token_ids)
        ids, logprobs = completion.token_ids[:room], completion.logprobs[:room]
        trajectory.add_policy(ids, logprobs, version)
        length = len(completion.token_ids)
        if length > room or (length == room and (completion.truncated
                                                 or completion.stop_reason is not None)):
            trajectory.done = trajectory.truncated = True  # no room left for anything after
            return None
        if completion.stop_reason is None:
            trajectory.done = True  # an end-of-sequence token
            trajectory.truncated = completion.truncated
            return None
        if trajectory.calls >= self.config.max_calls:
            return None  # past the limit a block is plain text
        return self._block(self.tokenizer.decode(trajectory.since_last_output(),
                                                 skip_special_tokens=True))

    def _block(self, text: str) -> str | None:
        """The code of the block the text ends with, or None (a close with no open before)."""
        end = text.rfind(self.config.code_close)
        start = text.rfind(self.config.code_open, 0, end)
        return None if end < 0 or start < 0 else text[start + len(self.config.code_open):end]

    async def _run(self, trajectory: Trajectory, code: str, max_new_tokens: int) -> None:
        if trajectory.session is None:
            trajectory.session = self.tool.session()
        outcome = await trajectory.session.run(code)
        trajectory.calls += 1
        config = self.config
        output = clip_output(outcome.output.rstrip("\n"), config.max_output_chars)
        message = config.output_open + output + config.output_close
        ids = self.tokenizer(message, add_special_tokens=False)["input_ids"]
        room = max_new_tokens - len(trajectory.token_ids)
        if len(ids) >= room:  # no room left for the policy to go on: truncated here
            ids = ids[:room]
            message = self.tokenizer.decode(ids, skip_special_tokens=True)
            trajectory.done = trajectory.truncated = True
        trajectory.add_output(ids, message, outcome.status, outcome.seconds)

    @staticmethod
    async def _close(trajectory: Trajectory) -> None:
        session, trajectory.session = trajectory.session, None
        if session is not None:
            await session.close()

    def _completion(self, trajectory: Trajectory) -> Completion:
        texts = [trajectory.messages[s.start] if s.is_tool else
                 self.tokenizer.decode(trajectory.token_ids[s.start:s.end],
                                       skip_special_tokens=True)
                 for s in trajectory.segments]
        return Completion(token_ids=trajectory.token_ids, logprobs=trajectory.logprobs,
                          text="".join(texts), truncated=trajectory.truncated,
                          loss_mask=trajectory.loss_mask, segments=trajectory.segments)


def tool_stats(completions: list[Completion]) -> dict[str, Any]:
    """A step's tool figures: calls, failures of the tool itself (not code that raised), how
    calls ended, their summed wall time, output tokens, and samples whose sampled segments came
    from more than one policy version."""
    calls = [s for c in completions for s in c.segments if s.is_tool]
    return {
        "tool_calls": len(calls),
        "tool_calls_per_sample": len(calls) / max(len(completions), 1),
        "tool_errors": sum(s.tool_status in TOOL_FAILURES for s in calls),
        "tool_outcomes": dict(Counter(s.tool_status for s in calls).most_common()),
        "tool_time_s": sum(s.tool_seconds for s in calls),
        "tool_tokens": sum(s.end - s.start for s in calls),
        "samples_spanning_versions": sum(
            len({s.version for s in c.segments if not s.is_tool}) > 1 for c in completions),
    }
