"""Celery application for the distributed mode: the worker side of the queue.

Chunks (never single items) are the unit of work, and `/run_code` programs one each (their own
task, on the same queue). Sessions are not Celery's: `verifier worker` starts a session host
process beside the pool (verifier/tools/session_routing.py). Late acknowledgement plus
reject-on-worker-lost means a worker process killed mid-chunk loses nothing: the broker
redelivers the chunk. A whole worker that vanishes (its container or machine gone) beats no
more, and the API hands its chunks to the others (`liveness.py`). A per-chunk delivery counter
in Redis bounds how often one chunk may be retried, so a chunk that keeps killing workers ends
as `infra_error` instead of looping.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from typing import Any

from celery import Celery, Task
from celery.signals import (
    after_setup_logger,
    task_received,
    worker_process_init,
    worker_shutting_down,
)
from celery.worker.request import Request
from redis.exceptions import RedisError

from verifier.config import Settings
from verifier.executors import infra_errors, liveness
from verifier.kinds.code import configure as configure_code
from verifier.kinds.code import warm_up as warm_up_code
from verifier.kinds.math import warm_up as warm_up_math
from verifier.service import logs
from verifier.service.chunk import process_chunk
from verifier.tools.run_code import run_tool_code
from verifier.tools.session_routing import serve_sessions

log = logging.getLogger(__name__)

TASK_NAME = "verifier.process_chunk"
RUN_CODE_TASK = "verifier.run_code"
SESSION_HOST_START_S = 60.0
TRIES_KEY = "verifier:chunk-tries:{}"
# This worker's heartbeat, which also records the chunks it takes (`verifier worker` only).
_heartbeat: liveness.Heartbeat | None = None


def make_celery(settings: Settings, *, fail_fast: bool = False) -> Celery:
    """Build the app for `settings.broker_url`. `fail_fast` (the API side) publishes without
    retrying, so a down Redis becomes an immediate 503 instead of a hanging request. What the
    queue leaves in Redis for a chunk nobody reads any more (its result, its delivery count)
    expires as a job's records do, VERIFIER_JOB_TTL_S after it was written."""
    broker_url = settings.broker_url or ""
    visibility_timeout_s = settings.visibility_timeout_s
    app = Celery("verifier", broker=broker_url, backend=broker_url)
    app.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        # A pool process warms its checkers and jail up before it reports ready (see below):
        # seconds on a loaded machine, over Celery's 4 s, after which it kills and restarts it.
        worker_proc_alive_timeout=60,
        result_expires=settings.job_ttl_s,
        task_publish_retry=not fail_fast,
        broker_connection_timeout=2 if fail_fast else 4,
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            "visibility_timeout": visibility_timeout_s,
            # Sweep for abandoned chunks often enough that the timeout above is what decides.
            "unacked_restore_interval": max(1, min(10, visibility_timeout_s // 4)),
            "unacked_restore_throttle": 1,
        },
        # Puts the worker's name in each result, for the "workers seen" metric.
        result_extended=True,
        worker_hijack_root_logger=False,
    )
    app.task(name=TASK_NAME, bind=True)(_process_chunk_task)
    app.task(name=RUN_CODE_TASK)(_run_code_task)
    return app


def run_worker(settings: Settings, argv: list[str]) -> None:
    """`verifier worker`: serve the queue at `settings.broker_url`. The settings, validated by
    the command, are this process's and so every pool process's (forked from it)."""
    global _heartbeat
    configure_code(settings)
    _bound_shutdown(settings.shutdown_timeout_s)
    _heartbeat = liveness.Heartbeat(settings.broker_url or "", liveness.new_worker_id(),
                                    settings.worker_heartbeat_s, settings.worker_lost_after_s,
                                    settings.job_ttl_s).start()
    sessions = _start_session_host(settings)
    try:
        make_celery(settings).worker_main(argv)
    finally:
        sessions.terminate()  # it ends its sessions, then exits
        sessions.join(settings.shutdown_timeout_s)
        if sessions.is_alive():
            sessions.kill()
        _heartbeat.stop()


def _start_session_host(settings: Settings) -> multiprocessing.process.BaseProcess:
    """The worker's session host: a process of its own (verifier.tools.session_routing), so
    the pool processes Celery forks never hold a session's jail. Started, and ready, before
    the pool: its start-up does not slow the pool processes' warm-up."""
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    process = context.Process(target=serve_sessions, args=(settings, os.getpid(), ready),
                              name="verifier-sessions", daemon=False)
    process.start()
    if not ready.wait(SESSION_HOST_START_S):
        log.warning("the session host was not ready after %g s", SESSION_HOST_START_S)
    return process


def _bound_shutdown(timeout_s: float) -> None:
    """SIGTERM starts Celery's warm shutdown, which waits for the running chunks however long
    they take. After `timeout_s` it becomes a cold one (SIGQUIT): their processes are killed
    and, acknowledged late, the chunks go back to the queue for another worker."""

    def cold_later(**_: Any) -> None:
        timer = threading.Timer(timeout_s, os.kill, (os.getpid(), signal.SIGQUIT))
        timer.daemon = True
        timer.start()

    worker_shutting_down.connect(cold_later, weak=False)


def _process_chunk_task(self: Task, items: list[dict[str, Any]], math_timeout_s: float,
                        max_tries: int, request_id: str = "-") -> list[dict[str, Any]]:
    key = TRIES_KEY.format(self.request.id)
    try:
        tries = self.app.backend.client.incr(key)
        self.app.backend.client.expire(key, self.app.conf.result_expires)
    except RedisError:  # a blip of Redis is no reason to fail the chunk: score it uncounted
        tries = 1
    if tries > max_tries:
        return infra_errors(items, f"this chunk was delivered {max_tries} times and each time "
                                   "its worker died")
    return process_chunk(items, math_timeout_s, request_id)


def _run_code_task(job: dict[str, Any], request_id: str = "-") -> dict[str, Any]:
    logs.request_id.set(request_id)
    return run_tool_code(job)


@task_received.connect
def _hold_received_chunk(request: Request, **_: Any) -> None:
    """Taken from the queue: this worker holds the delivery until it acknowledges it."""
    if _heartbeat is not None:
        _heartbeat.hold(request.id, request.message.delivery_tag)


@after_setup_logger.connect
def _tag_worker_logs(logger: logging.Logger, **_: Any) -> None:
    """Celery configures the worker's logging itself; add the request id to its lines."""
    for handler in logger.handlers:
        handler.addFilter(logs.RequestIdFilter())
        handler.setFormatter(logging.Formatter(logs.TEXT_FORMAT))


@worker_process_init.connect
def _warm_up_pool_process(**_: Any) -> None:
    """Pay the checkers' start-up (imports, helper process, jail) before the first chunk."""
    warm_up_math()
    warm_up_code()
