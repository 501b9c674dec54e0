"""The shared vocabulary of the trainer: what flows between its stages, and the stage protocols.

    Prompt --engine--> Completion x n --rewarder--> Group --learner--> new weights --> engine

With tools (trainer/tool_rollout.py) a completion is a trajectory: stretches the policy sampled
and, between them, the outputs of the code it wrote, each a `Segment`; `loss_mask` tells the
learner which tokens are the policy's own.

Every module that passes these around imports them from here, so no stage depends on another
stage's implementation (the learner does not import the scheduler, the scheduler does not
import the learner).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import torch

from trainer.data import Prompt


@dataclass
class Segment:
    """A stretch [start, end) of a trajectory's tokens: sampled by the policy, or a tool call's
    output (appended by the rollout, never sampled)."""

    start: int
    end: int
    version: int | None  # policy: version of the weights that sampled it; tool output: None
    tool_status: str | None = None  # tool output: how the call ended (ToolOutcome.status)
    tool_seconds: float = 0.0  # tool output: the call's wall time

    @property
    def is_tool(self) -> bool:
        return self.tool_status is not None


@dataclass
class Completion:
    token_ids: list[int]
    logprobs: list[float]  # behaviour log-prob of each token in token_ids (0.0 for tool tokens)
    text: str
    truncated: bool  # hit max_new_tokens without an end-of-sequence token
    stop_reason: str | None = None  # the stop string (Sampling.stop) that ended it
    # 1: a token the policy sampled (trained on); 0: a tool's output (context only, never in
    # the loss, the importance weights or the token counts). None: every token is the policy's
    loss_mask: list[int] | None = None
    segments: list[Segment] = field(default_factory=list)  # tool rollouts only, in order

    @property
    def policy_tokens(self) -> int:
        return len(self.token_ids) if self.loss_mask is None else sum(self.loss_mask)


@dataclass(frozen=True)
class Sampling:
    n: int
    max_new_tokens: int
    temperature: float = 1.0
    top_p: float = 1.0
    # Generation also ends once the completion's text contains one of these (kept in it, as
    # vLLM's include_stop_str_in_output); the completion's stop_reason names it
    stop: tuple[str, ...] = ()


@dataclass
class Group:
    """The n samples of one prompt, as generated and scored."""

    slot: int
    prompt: Prompt
    completions: list[Completion]
    version: int  # policy version of the engine weights that generated every sample
    rewards: list[float | None]  # None: the verifier failed (infra_error): mask, never punish
    statuses: list[str]


class RolloutEngine(Protocol):
    """Samples completions with its own copy of the weights, tagged with their policy version."""

    version: int  # policy version of the weights currently loaded

    def generate(self, prompts: list[list[int]], sampling: Sampling) -> list[list[Completion]]:
        """n completions for each prompt (token ids), in prompt order."""
        ...

    def load_weights(self, model: torch.nn.Module, version: int) -> None:
        """Copy the trainer's weights (an HF causal LM module), now at policy `version`."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class SleepingEngine(RolloutEngine, Protocol):
    """An engine that can hand its accelerator memory back while the learner trains (k = 0)."""

    def sleep(self) -> None:
        """Free the weights' and KV cache's device memory; generate is not allowed until woken."""
        ...

    def wake_up(self, model: torch.nn.Module, version: int) -> None:
        """Take the memory back and load `model`'s weights as policy `version`."""
        ...


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call as the policy gets to read it."""

    status: str  # ok, error (the code raised), timeout, memory_limit, output_limit, or a
    # failure of the tool itself: infra_error, service_error, session_lost (TOOL_FAILURES)
    output: str  # what the policy is shown: the code's output and a note on how it ended
    seconds: float


TOOL_FAILURES = frozenset({"infra_error", "service_error", "session_lost"})


class CodeSession(Protocol):
    """The state of one trajectory's code: its blocks run in turn in the same session."""

    async def run(self, code: str) -> ToolOutcome:
        """Run one block; every failure is an outcome, never an exception."""
        ...

    async def close(self) -> None:
        """End the session (a session never opened, or already gone, is fine)."""
        ...


class CodeTool(Protocol):
    def session(self) -> CodeSession:
        """A new session, opened on its first run."""
        ...


class Rewarder(Protocol):
    async def score(self, prompt: Prompt, completions: list[Completion]
                    ) -> tuple[list[float | None], list[str]]: ...


class Learner(Protocol):
    """What the training loop needs of a learner (trainer/learner.py's GRPOLearner is one)."""

    model: torch.nn.Module  # the policy being trained: what the engine copies its weights from

    def train_step(self, groups: list[Group], step: int) -> dict[str, Any]:
        """One optimizer update (or several minibatch updates) on the step's groups."""
        ...
