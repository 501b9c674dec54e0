"""The reward stage: completions become verifier items, scored over HTTP by the verifier service.

Each group is sent as soon as its generation finishes (the pipeline calls `score` per group),
so scoring overlaps with the rest of the rollout and with training. `embedded_verifier` starts
`verifier serve` on a free loopback port for runs that were given no `--verifier-url`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

import httpx

from rl_client import AsyncVerifierClient
from trainer.data import Prompt
from trainer.engine import Completion


class VerifierRewarder:
    """Scores one group per call through `rl_client`; `infra_error` comes back as reward None."""

    def __init__(self, client: AsyncVerifierClient) -> None:
        self.client = client

    async def score(self, prompt: Prompt, completions: list[Completion]
                    ) -> tuple[list[float | None], list[str]]:
        results = await self.client.verify([prompt.reward_item(c.text) for c in completions])
        return [r.reward for r in results], [str(r.status) for r in results]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def embedded_verifier(workers: int, startup_timeout_s: float = 60.0) -> Iterator[str]:
    """Run `verifier serve` (embedded mode) in its own process group; yield its base URL.

    On exit the whole group is terminated, then killed, so no worker outlives the run.
    """
    port = free_port()
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "verifier", "serve", "--host", "127.0.0.1", "--port",
             str(port), "--workers", str(workers), "--log-level", "warning"],
            start_new_session=True, stdout=subprocess.DEVNULL, stderr=log,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(process, url, log, startup_timeout_s)
            yield url
        finally:
            _stop_group(process)


def _wait_healthy(process: subprocess.Popen, url: str, log: IO[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            tail = log.read().decode(errors="replace")[-2000:]
            raise RuntimeError(f"verifier serve exited with {process.returncode}: {tail}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"verifier serve did not become healthy at {url} in {timeout_s:.0f}s")


def _stop_group(process: subprocess.Popen) -> None:
    """SIGTERM the server's process group, give it 10 s, then SIGKILL whatever is left."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
