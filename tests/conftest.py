"""Shared fixtures: real servers, real workers, a private Redis, all on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.procs import Proc, RedisServer, start_server, start_worker


@pytest.fixture(scope="session")
def verifier_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a real `verifier serve` in embedded mode (2 local workers)."""
    proc, url = start_server(tmp_path_factory.mktemp("embedded"), "--workers", "2")
    yield url
    proc.stop()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A private redis-server this test may stop and restart."""
    server = RedisServer(tmp_path).start()
    yield server
    server.stop()


@dataclass
class Stack:
    """The distributed mode for real: private Redis, Celery workers, an API in front."""

    url: str
    redis: RedisServer
    api: Proc
    workers: list[Proc]
    workdir: Path

    def stop(self) -> None:
        self.api.stop()
        for worker in self.workers:
            worker.stop()
        self.redis.stop()


def start_stack(workdir: Path, n_workers: int = 1, concurrency: int = 2,
                env: dict[str, str] | None = None) -> Stack:
    redis = RedisServer(workdir).start()
    workers = [start_worker(workdir, redis.url, concurrency, name=f"worker{i}", env=env)
               for i in range(n_workers)]
    api, url = start_server(workdir, "--broker", redis.url, env=env)
    return Stack(url=url, redis=redis, api=api, workers=workers, workdir=workdir)


@pytest.fixture(scope="session")
def distributed_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a real API in distributed mode over a private Redis and a Celery worker."""
    stack = start_stack(tmp_path_factory.mktemp("distributed"))
    yield stack.url
    stack.stop()
