"""Embedded back end: a local process pool sized to the cores, no services needed."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import socket
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any

from verifier import logs, metrics
from verifier.chunk import process_chunk
from verifier.code import configure as configure_code
from verifier.code import warm_up as warm_up_code
from verifier.config import Settings
from verifier.executors import infra_errors
from verifier.math import warm_up as warm_up_math

log = logging.getLogger(__name__)


def _init_worker(settings: Settings) -> None:
    """A pool worker runs with the server's settings, passed here (not its environment's),
    logs like the server and leaves Ctrl-C to it, which shuts it down."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logs.setup_logging(settings.log_level, settings.log_format)
    configure_code(settings)
    warm_up_math()
    warm_up_code()


def _score_here(items: list[dict[str, Any]], math_timeout_s: float,
                request_id: str) -> tuple[str, list[dict[str, Any]]]:
    """Runs in a pool process: the results, and who scored them (for "workers seen")."""
    return f"{socket.gethostname()}:{os.getpid()}", process_chunk(items, math_timeout_s,
                                                                   request_id)


def _new_pool(workers: int, settings: Settings) -> ProcessPoolExecutor:
    # spawn: the server process runs an event loop and threads, which fork would copy half-way.
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_init_worker, initargs=(settings,))


class EmbeddedExecutor:
    """Runs chunks in a process pool; a chunk that kills its worker is retried in isolation.

    When a worker dies, every chunk in flight on the pool fails with BrokenProcessPool, so the
    culprit cannot be told apart from its neighbours. Retries therefore run each chunk alone in
    a one-off process: only the chunk that really kills its worker exhausts its tries.
    """

    mode = "embedded"

    def __init__(self, settings: Settings) -> None:
        self.workers = settings.workers
        self._settings = settings
        self._max_tries = settings.chunk_max_tries
        self._pool = _new_pool(self.workers, settings)
        self._pool_generation = 0

    async def run_chunk(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        job = partial(_score_here, items, self._settings.math_timeout_s, logs.request_id.get())
        generation = self._pool_generation
        try:
            return self._seen(await asyncio.wrap_future(self._pool.submit(job)))
        except BrokenProcessPool:
            self._replace_broken_pool(generation)
        for attempt in range(2, self._max_tries + 1):
            log.warning("retrying a chunk of %d items alone (try %d of %d) after a worker died",
                        len(items), attempt, self._max_tries)
            with _new_pool(1, self._settings) as lone:
                try:
                    return self._seen(await asyncio.wrap_future(lone.submit(job)))
                except BrokenProcessPool:
                    continue
        return infra_errors(items, f"a worker process died on this chunk {self._max_tries} times")

    @staticmethod
    def _seen(scored: tuple[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
        worker, results = scored
        metrics.WORKER_LAST_SEEN.labels(worker).set(time.time())
        return results

    def _replace_broken_pool(self, generation: int) -> None:
        if generation != self._pool_generation:
            return  # another chunk already replaced it
        log.error("a pool worker died; starting a fresh pool of %d workers", self.workers)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = _new_pool(self.workers, self._settings)
        self._pool_generation += 1

    async def check_health(self) -> str | None:
        return None

    async def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
