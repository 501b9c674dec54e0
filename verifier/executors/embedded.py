"""Embedded back end: a local pool of worker processes sized to the cores, no services needed.

Each worker process does one task at a time (a chunk to score, or a `/run_code` program),
handed to it over a pipe of its own, so the pool knows which process holds which task. That is
what lets it stop one task and leave the others alone: a task past its deadline, or whose caller
was cancelled (its client went away, its job was deleted, the server is stopping), has its
process killed, the jail with it, and a fresh process takes its place. A task whose process dies
under it is tried again on another one, up to `chunk_max_tries` times, then ends as
`infra_error` (`SandboxError` for a program): one process per task, so only the task that kills
its workers exhausts its tries. A program waits for an idle process no longer than its
admission budget (then: Busy, a 504).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import time
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any

from verifier.config import Settings
from verifier.executors import Busy, WorkerDied, deadline_passed, infra_errors
from verifier.kinds.code import configure as configure_code
from verifier.kinds.code import warm_up as warm_up_code
from verifier.kinds.math import warm_up as warm_up_math
from verifier.service import logs, metrics
from verifier.service.chunk import process_chunk
from verifier.service.deadline import die_with_parent
from verifier.tools.run_code import run_tool_code, sandbox_error

log = logging.getLogger(__name__)

# What a worker process is handed: ("chunk", (items, math timeout)) or ("run_code", job), and
# the request id for its logs.
Task = tuple[str, Any, str]

# A task up to this size is written on the event loop, without the round trip through a
# thread: the idle worker it goes to has read everything sent to it before, and the socket
# between them holds more than this (Linux's default is about 200 KiB), so the write does not
# wait. A larger one (a chunk with big tests) is written from a thread.
_SENT_ON_THE_LOOP = 60 * 1024


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
    """A worker process: do the tasks that come down the pipe until it closes."""
    _init_worker(settings, server_pid)
    who = f"{socket.gethostname()}:{os.getpid()}"
    while True:
        try:
            kind, payload, request_id = conn.recv()
        except EOFError:
            return
        if kind == "chunk":
            items, math_timeout_s = payload
            conn.send((who, process_chunk(items, math_timeout_s, request_id)))
        else:
            logs.request_id.set(request_id)
            conn.send((who, run_tool_code(payload, settings)))


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

    async def do(self, task: Task) -> tuple[str, Any]:
        """Who did the task, and its answer. EOFError/OSError if the process died.

        The pipe is read once readable, and the answer then read whole: blocking, since uvloop
        (uvicorn's loop) leaves a descriptor it watched non-blocking, and a send or an answer
        larger than the pipe's buffer would fail half-way, as if the process had died."""
        fd = self.conn.fileno()
        os.set_blocking(fd, True)
        message = ForkingPickler.dumps(task)
        if len(message) <= _SENT_ON_THE_LOOP:
            self.conn.send_bytes(message)
        else:  # a big chunk must not stall the loop
            await asyncio.to_thread(self.conn.send_bytes, message)
        loop = asyncio.get_running_loop()
        readable = loop.create_future()
        loop.add_reader(fd, lambda: readable.done() or readable.set_result(None))
        try:
            await readable
        finally:
            loop.remove_reader(fd)
        os.set_blocking(fd, True)
        return self.conn.recv()

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, ValueError):
            self.process.kill()
        self.conn.close()


class _IdleWorkers:
    """The idle worker processes, handed to waiting tasks first come, first served (a worker
    set free goes straight to the oldest waiter: asyncio.Queue would let a newcomer take it
    and send the waiter to the back, so some waited without end under steady load). With no
    one waiting, the worker used last goes first: its jail's pages and the CPU's caches are
    warm, so one caller at a time (a tool call in a rollout) is served by one hot process."""

    def __init__(self) -> None:
        self._idle: list[_Worker] = []
        self._waiting: collections.deque[asyncio.Future[_Worker]] = collections.deque()

    def put(self, worker: _Worker) -> None:
        if self._waiting:
            self._waiting.popleft().set_result(worker)
        else:
            self._idle.append(worker)

    async def get(self, timeout_s: float | None) -> _Worker:
        """The next idle worker; TimeoutError after `timeout_s` (None: no limit)."""
        if self._idle and not self._waiting:
            return self._idle.pop()
        waiter = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        try:
            return await asyncio.wait_for(asyncio.shield(waiter), timeout_s)
        except BaseException:  # timed out or cancelled: a worker it was handed goes on
            if waiter.done() and not waiter.cancelled():
                self.put(waiter.result())
            else:
                waiter.cancel()
                self._waiting.remove(waiter)
            raise

    def take_all(self) -> set[_Worker]:
        idle, self._idle = set(self._idle), []
        return idle


class EmbeddedExecutor:
    mode = "embedded"

    def __init__(self, settings: Settings) -> None:
        self.slots = settings.workers
        self._settings = settings
        self._max_tries = settings.chunk_max_tries
        self._idle = _IdleWorkers()
        self._live: set[_Worker] = set()
        self._started = self._closed = False

    def _start_worker(self) -> None:
        worker = _Worker(self._settings)
        self._live.add(worker)
        self._idle.put(worker)

    async def run_chunk(self, items: list[dict[str, Any]], deadline_s: float
                        ) -> list[dict[str, Any]]:
        task: Task = ("chunk", (items, self._settings.math_timeout_s), logs.request_id.get())
        try:
            return await self._on_a_worker(task, deadline_s, f"a chunk of {len(items)} items")
        except TimeoutError:
            return deadline_passed(items, deadline_s)
        except WorkerDied:
            return infra_errors(items, f"a worker process died on this chunk "
                                       f"{self._max_tries} times")

    async def run_code(self, job: dict[str, Any], deadline_s: float,
                       admission_s: float) -> dict[str, Any]:
        task: Task = ("run_code", job, logs.request_id.get())
        try:
            return await self._on_a_worker(task, deadline_s, "a /run_code program", admission_s)
        except TimeoutError:
            return sandbox_error(f"the run went past its deadline of {deadline_s:g} s; its "
                                   "worker process was stopped")
        except WorkerDied:
            return sandbox_error(f"a worker process died on this run {self._max_tries} times")

    async def _on_a_worker(self, task: Task, deadline_s: float, what: str,
                           admission_s: float | None = None) -> Any:
        """The task's answer from the first idle worker process, tried again on another one if
        its process dies. TimeoutError past `deadline_s` (the process is killed), WorkerDied
        after `chunk_max_tries` deaths, Busy if no worker is free within `admission_s`."""
        if not self._started:  # on first use, as a process pool does: nothing to warm before
            self._started = True
            for _ in range(self.slots):
                self._start_worker()
        for attempt in range(1, self._max_tries + 1):
            if attempt > 1:
                log.warning("retrying %s (try %d of %d) after its worker died", what, attempt,
                            self._max_tries)
            try:  # cancelled here, a queued task just goes away
                worker = await self._idle.get(admission_s)
            except TimeoutError:
                raise Busy(f"no worker was free within {admission_s:g} s") from None
            try:
                done = await asyncio.wait_for(worker.do(task), deadline_s)
            except TimeoutError:
                self._replace(worker)
                log.error("%s ran past its deadline of %g s; its worker process was stopped",
                          what, deadline_s)
                raise
            except (EOFError, OSError) as exc:
                if worker.process.is_alive():  # not a death: the pipe itself failed (say why)
                    log.error("the pipe to a live worker process failed on %s: %r", what, exc)
                self._replace(worker)
                continue
            except BaseException:  # cancelled: stop the task where it runs
                self._replace(worker)
                raise
            self._idle.put(worker)
            return self._seen(done)
        raise WorkerDied(what)

    @staticmethod
    def _seen(done: tuple[str, Any]) -> Any:
        worker, answer = done
        metrics.WORKER_LAST_SEEN.labels(worker).set(time.time())
        return answer

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
        idle = self._idle.take_all()
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
