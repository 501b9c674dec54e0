"""The shared vocabulary of the trainer: what flows between its stages, and the stage protocols.

    Prompt --engine--> Completion x n --rewarder--> Group --learner--> new weights --> engine

Every module that passes these around imports them from here, so no stage depends on another
stage's implementation (the learner does not import the scheduler, the scheduler does not
import the learner).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import torch

from trainer.data import Prompt


@dataclass
class Completion:
    token_ids: list[int]
    logprobs: list[float]  # behaviour log-prob of each token in token_ids
    text: str
    truncated: bool  # hit max_new_tokens without an end-of-sequence token


@dataclass(frozen=True)
class Sampling:
    n: int
    max_new_tokens: int
    temperature: float = 1.0
    top_p: float = 1.0


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


class Rewarder(Protocol):
    async def score(self, prompt: Prompt, completions: list[Completion]
                    ) -> tuple[list[float | None], list[str]]: ...


class Learner(Protocol):
    """What the training loop needs of a learner (trainer/learner.py's GRPOLearner is one)."""

    model: torch.nn.Module  # the policy being trained: what the engine copies its weights from

    def train_step(self, groups: list[Group], step: int) -> dict[str, Any]:
        """One optimizer update (or several minibatch updates) on the step's groups."""
        ...
