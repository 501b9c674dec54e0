"""Which execution back end the service uses: the broker URL decides."""

from __future__ import annotations

from verifier.config import Settings
from verifier.executors import Executor


def make_executor(settings: Settings) -> Executor:
    # Each imported when chosen: the embedded mode never loads Celery and Redis.
    if settings.broker_url:
        from verifier.executors.distributed import DistributedExecutor

        return DistributedExecutor(settings)
    from verifier.executors.embedded import EmbeddedExecutor

    return EmbeddedExecutor(settings)
