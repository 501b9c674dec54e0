"""The reward stage: completions become verifier items, scored over HTTP by the verifier service.

Each group is sent as soon as its generation finishes (the pipeline calls `score` per group),
so scoring overlaps with the rest of the rollout and with training. `embedded_verifier` starts
`verifier serve` on a free loopback port for runs that were given no `--verifier-url`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rl_client import AsyncVerifierClient
from trainer.data import Prompt
from trainer.types import Completion
from verifier.local import LocalServer


class VerifierRewarder:
    """Scores one group per call through `rl_client`; `infra_error` comes back as reward None."""

    def __init__(self, client: AsyncVerifierClient) -> None:
        self.client = client

    async def score(self, prompt: Prompt, completions: list[Completion]
                    ) -> tuple[list[float | None], list[str]]:
        results = await self.client.verify([prompt.reward_item(c.text) for c in completions])
        return [r.reward for r in results], [str(r.status) for r in results]


@contextmanager
def embedded_verifier(workers: int, startup_timeout_s: float = 60.0) -> Iterator[str]:
    """Run `verifier serve` (embedded mode) in its own process group; yield its base URL.

    On exit the whole group is terminated, then killed, so no worker outlives the run.
    """
    with LocalServer("--workers", str(workers), "--log-level", "warning",
                     startup_timeout_s=startup_timeout_s) as server:
        yield server.url
