"""The reward stage: completions become verifier items, scored over HTTP by the verifier service.

Each group is sent as soon as its generation finishes (the pipeline calls `score` per group),
so scoring overlaps with the rest of the rollout and with training. Everything goes through the
client, `rl_client`: the trainer needs no part of the server to be rewarded (trainer/run.py
starts one embedded, as a child process, only when the run names no verifier URL).
"""

from __future__ import annotations

from rl_client import AsyncVerifierClient, CodeItem, MathItem
from trainer.data import Prompt
from trainer.types import Completion


def reward_item(prompt: Prompt, completion: str) -> MathItem | CodeItem:
    """The verifier item that scores `completion` for this prompt."""
    if prompt.tests is not None:
        return CodeItem(response=completion, tests=prompt.tests, language=prompt.language)
    return MathItem(response=completion, answer=prompt.answer)


class VerifierRewarder:
    """Scores one group per call through `rl_client`; `infra_error` comes back as reward None."""

    def __init__(self, client: AsyncVerifierClient) -> None:
        self.client = client

    async def score(self, prompt: Prompt, completions: list[Completion]
                    ) -> tuple[list[float | None], list[str]]:
        results = await self.client.verify([reward_item(prompt, c.text) for c in completions])
        return [r.reward for r in results], [str(r.status) for r in results]
