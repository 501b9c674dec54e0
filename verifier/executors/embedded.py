"""Embedded back end: a local pool of worker processes sized to the cores, no services needed.

Each worker process scores one chunk at a time, handed to it over a pipe of its own, so the
pool knows which process holds which chunk. That is what lets it stop one chunk and leave the
others alone: a chunk past its deadline, or whose caller was cancelled (its client went away,
its job was deleted, the server is stopping), has its process killed, the jail with it, and a
fresh process takes its place. A chunk whose process dies under it is tried again on another
one, up to `chunk_max_tries` times, then ends as `infra_error`: one process per chunk, so only
the chunk that kills its workers exhausts its tries.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import time
from multiprocessing.connection import Connection
from typing import Any

from verifier import logs, metrics
from verifier.chunk import process_chunk
from verifier.code import configure as configure_code
from verifier.code import warm_up as warm_up_code
from verifier.config import Settings
from verifier.deadline import die_with_parent
from verifier.executors import deadline_passed, infra_errors
from verifier.math import warm_up as warm_up_math

log = logging.getLogger(__name__)

Chunk = tuple[list[dict[str, Any]], float, str]  # items, math timeout, request id


def _init_worker(settings: Settings, server_pid: int) -> None:
    """A worker runs with the server's settings, passed here (not its environment's), logs
    like the server, leaves Ctrl-C and SIGTERM to it (it stops its workers itself, when their
    chunks are done or its shutdown grace is over) and dies with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    die_with_parent(server_pid)
    logs.setup_logging(settings.log_level, settings.log_format)
    configure_code(settings)
    warm_up_math()
    warm_up_code()


def _serve(conn: Connection, settings: Settings, server_pid: int) -> None:
    """A worker process: score the chunks that come down the pipe until it closes."""
    _init_worker(settings, server_pid)
    who = f"{socket.gethostname()}:{os.getpid()}"
    while True:
        try:
            items, math_timeout_s, request_id = conn.recv()
        except EOFError:
            return
        conn.send((who, process_chunk(items, math_timeout_s, request_id)))


class _Worker:
    """One worker process and the pipe to it."""

    def __init__(self, settings: Settings) -> None:
        # spawn: the server runs an event loop and threads, which fork would copy half-way.
        context = multiprocessing.get_context("spawn")
        self.conn, child_end = context.Pipe()
        self.process = context.Process(target=_serve, args=(child_end, settings, os.getpid()),
                                       name="verifier-worker")
        self.process.start()
        child_end.close()

    async def score(self, chunk: Chunk) -> tuple[str, list[dict[str, Any]]]:
        """Who scored the chunk, and its results. EOFError/OSError if the process died."""
        await asyncio.to_thread(self.conn.send, chunk)  # a big chunk must not stall the loop
        loop = asyncio.get_running_loop()
        readable = loop.create_future()
        loop.add_reader(self.conn.fileno(), lambda: readable.done() or readable.set_result(None))
        try:
            await readable
        finally:
            loop.remove_reader(self.conn.fileno())
        return self.conn.recv()

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, ValueError):
            self.process.kill()
        self.conn.close()


class EmbeddedExecutor:
    mode = "embedded"

    def __init__(self, settings: Settings) -> None:
        self.workers = settings.workers
        self._settings = settings
        self._max_tries = settings.chunk_max_tries
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self._live: set[_Worker] = set()
        self._started = self._closed = False

    def _start_worker(self) -> None:
        worker = _Worker(self._settings)
        self._live.add(worker)
        self._idle.put_nowait(worker)

    async def run_chunk(self, items: list[dict[str, Any]], deadline_s: float
                        ) -> list[dict[str, Any]]:
        chunk: Chunk = (items, self._settings.math_timeout_s, logs.request_id.get())
        if not self._started:  # on first use, as a process pool does: nothing to warm before
            self._started = True
            for _ in range(self.workers):
                self._start_worker()
        for attempt in range(1, self._max_tries + 1):
            if attempt > 1:
                log.warning("retrying a chunk of %d items (try %d of %d) after its worker died",
                            len(items), attempt, self._max_tries)
            worker = await self._idle.get()  # cancelled here, a queued chunk just goes away
            try:
                scored = await asyncio.wait_for(worker.score(chunk), deadline_s)
            except TimeoutError:
                self._replace(worker)
                log.error("a chunk of %d items ran past its deadline of %g s; its worker "
                          "process was stopped", len(items), deadline_s)
                return deadline_passed(items, deadline_s)
            except (EOFError, OSError):
                self._replace(worker)
                continue
            except BaseException:  # cancelled: stop the chunk where it runs
                self._replace(worker)
                raise
            self._idle.put_nowait(worker)
            return self._seen(scored)
        return infra_errors(items, f"a worker process died on this chunk {self._max_tries} times")

    @staticmethod
    def _seen(scored: tuple[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
        worker, results = scored
        metrics.WORKER_LAST_SEEN.labels(worker).set(time.time())
        return results

    def _replace(self, worker: _Worker) -> None:
        """Kill a worker (whatever it runs) and start a fresh one in its place."""
        worker.kill()
        self._live.discard(worker)
        multiprocessing.active_children()  # reaps the processes killed so far
        if not self._closed:
            self._start_worker()

    async def check_health(self) -> str | None:
        return None

    async def close(self) -> None:
        """Stop the workers: idle ones are told to exit, busy ones are killed (the callers'
        grace is over by the time this runs: the server drains its requests first)."""
        self._closed = True
        idle = set()
        while not self._idle.empty():
            idle.add(self._idle.get_nowait())
        for worker in self._live:
            if worker in idle:
                worker.conn.close()  # end of input: it exits by itself
            else:
                worker.kill()
        for worker in self._live:
            await asyncio.to_thread(worker.process.join, 5)
            worker.kill()
        self._live.clear()
        multiprocessing.active_children()
