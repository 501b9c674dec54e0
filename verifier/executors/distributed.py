"""Distributed back end: chunks go to Celery workers over Redis.

Publishing uses Celery; collecting results reads Celery's Redis result keys with one batched
async MGET for all chunks in flight, so thousands of pending chunks cost one round trip per
poll and no thread each.

Redis may go away while chunks are in flight. Requests that arrive meanwhile get a 503. The
chunks already in flight are published again once Redis answers (a Redis restarted without
persistence has lost them; a duplicate run is harmless, the first result wins), and a chunk
whose worker failed only because Redis was unreachable is retried, not reported. If Redis
stays away longer than REDIS_GRACE_S, every waiting request ends with a 503. A chunk whose
worker vanished (no heartbeat) goes back to the queue within seconds (`liveness.py`).

A `/run_code` program travels the same way, as a task of its own on the same queue, with an
expiry: a program still queued after its admission budget is revoked by the worker that takes
it, and its caller answers 504 (verl retries those).

Each task carries its deadline as Celery's hard time limit, so the worker kills a task that
runs past it. A chunk nobody waits for any more (its request cancelled) is revoked: a worker
skips it if still queued and kills the process running it if not.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from verifier.config import Settings
from verifier.executors import (
    Busy,
    ServiceUnavailable,
    deadline_passed,
    infra_errors,
    liveness,
)
from verifier.executors.celery_app import RUN_CODE_TASK, TASK_NAME, make_celery
from verifier.service import logs, metrics
from verifier.tools.run_code import sandbox_error

log = logging.getLogger(__name__)

POLL_MIN_S = 0.002
POLL_MAX_S = 0.05
REDIS_GRACE_S = 10.0
REVOKE_GRACE_S = 5.0
LIVENESS_EVERY_S = 1.0
TRANSPORT_ERROR_MODULES = ("redis.exceptions", "kombu.exceptions")


@dataclass
class _Pending:
    """A task published and waited on: a chunk, or a /run_code program."""

    task: str
    args: list[Any]
    request_id: str
    deadline_s: float
    future: asyncio.Future[dict[str, Any]]
    expires_s: float | None = None  # a program must start within this (its admission budget)
    publishes: int = 0


class DistributedExecutor:
    mode = "distributed"
    slots = None

    def __init__(self, settings: Settings) -> None:
        self.broker_url = settings.broker_url or ""
        self._settings = settings
        self._celery = make_celery(settings, fail_fast=True)
        self._redis = aioredis.Redis.from_url(self.broker_url, socket_connect_timeout=2,
                                              socket_timeout=5)
        self._pending: dict[str, _Pending] = {}
        self._poller: asyncio.Task[None] | None = None
        self._to_revoke: set[str] = set()
        self._revoker: asyncio.Task[None] | None = None

    async def run_chunk(self, items: list[dict[str, Any]], deadline_s: float
                        ) -> list[dict[str, Any]]:
        """The worker kills the chunk at its deadline (Celery's hard time limit, counted from
        its start); this side gives up once a chunk that could have waited its visibility
        timeout in the queue is not back either. Cancelled, the chunk is revoked."""
        wait_s = deadline_s + self._settings.visibility_timeout_s
        try:
            meta = await self._call(TASK_NAME, [items, self._settings.math_timeout_s,
                                                self._settings.chunk_max_tries],
                                    deadline_s, wait_s)
        except TimeoutError:
            return infra_errors(items, f"no worker finished this chunk within {wait_s:g} s")
        if meta.get("status") != "SUCCESS":
            error = meta.get("result")
            if isinstance(error, dict) and error.get("exc_type") == "TimeLimitExceeded":
                return deadline_passed(items, deadline_s)
            return infra_errors(items, f"worker task failed: {error}")
        return meta["result"]

    async def run_code(self, job: dict[str, Any], deadline_s: float,
                       admission_s: float) -> dict[str, Any]:
        """As a chunk, but Busy when no worker has taken the program `admission_s` after it
        was published: it is revoked, and it expires then too (a worker that takes it later
        skips it). It waits no more than that plus its deadline."""
        wait_s = admission_s + deadline_s
        try:
            meta = await self._call(RUN_CODE_TASK, [job], deadline_s, wait_s, admission_s)
        except TimeoutError:
            return sandbox_error(f"no worker finished this run within {wait_s:g} s")
        if meta.get("status") == "REVOKED":
            raise Busy(f"no worker started the run within {admission_s:g} s")
        if meta.get("status") != "SUCCESS":
            error = meta.get("result")
            if isinstance(error, dict) and error.get("exc_type") == "TimeLimitExceeded":
                return sandbox_error(f"the run went past its deadline of {deadline_s:g} s; "
                                     "its worker process was stopped")
            return sandbox_error(f"worker task failed: {error}")
        return meta["result"]

    async def _call(self, task: str, args: list[Any], deadline_s: float, wait_s: float,
                    expires_s: float | None = None) -> dict[str, Any]:
        """Publish a task and wait for its result's meta (TimeoutError after `wait_s`; with
        `expires_s`, Busy if no worker holds it by then); cancelled, the task is revoked."""
        task_id = str(uuid.uuid4())
        pending = _Pending(task, args, logs.request_id.get(), deadline_s,
                           asyncio.get_running_loop().create_future(), expires_s)
        self._pending[task_id] = pending
        try:
            await asyncio.to_thread(self._publish, task_id, pending)
            self._ensure_poller()
            if expires_s is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(pending.future), expires_s)
                except TimeoutError:
                    if not await self._redis.exists(liveness.holder_key(task_id)):
                        self._revoke(task_id)
                        raise Busy(f"no worker took the run within {expires_s:g} s") from None
            meta = await asyncio.wait_for(pending.future, timeout=wait_s)
        except TimeoutError:
            self._revoke(task_id)
            raise
        except asyncio.CancelledError:
            self._revoke(task_id)
            raise
        finally:
            self._pending.pop(task_id, None)
        if meta.get("worker"):
            metrics.WORKER_LAST_SEEN.labels(meta["worker"]).set(time.time())
        return meta

    def _publish(self, task_id: str, pending: _Pending) -> None:
        try:
            self._celery.send_task(
                pending.task, task_id=task_id, retry=False, time_limit=pending.deadline_s,
                args=pending.args, kwargs={"request_id": pending.request_id},
                expires=pending.expires_s)
        except (OperationalError, RedisError, OSError) as exc:
            raise ServiceUnavailable(f"cannot reach the broker: {exc}") from exc
        pending.publishes += 1

    def _ensure_poller(self) -> None:
        if self._poller is None or self._poller.done():
            self._poller = asyncio.create_task(self._poll_results())

    async def _poll_results(self) -> None:
        try:
            await self._poll_until_idle()
        except Exception as exc:  # never leave a request waiting on a dead poller
            log.exception("result poller failed")
            self._fail_pending(ServiceUnavailable(f"result poller failed: {exc!r}"))

    async def _poll_until_idle(self) -> None:
        """Resolve pending chunks as their results appear; ride out short Redis outages."""
        delay = POLL_MIN_S
        down_since: float | None = None
        next_liveness = time.monotonic() + LIVENESS_EVERY_S
        while self._pending:
            task_ids = list(self._pending)
            keys = [self._celery.backend.get_key_for_task(t) for t in task_ids]
            try:
                values = await self._redis.mget(keys)
                if down_since is not None:
                    await self._republish(task_ids)
                    log.warning("redis is back: published %d pending chunks again",
                                len(task_ids))
                    down_since = None
            except (RedisError, OSError, ServiceUnavailable) as exc:
                down_since = down_since or time.monotonic()
                if time.monotonic() - down_since > REDIS_GRACE_S:
                    self._fail_pending(ServiceUnavailable(f"lost the result store: {exc}"))
                    return
                await asyncio.sleep(0.2)
                continue
            finished = [(t, k, json.loads(v)) for t, k, v in zip(task_ids, keys, values,
                                                                  strict=True) if v]
            finished = [(t, k, m) for t, k, m in finished
                        if m.get("status") in ("SUCCESS", "FAILURE", "REVOKED")]
            consumed = []
            for task_id, key, meta in finished:
                # read: delete it before anything can write it again
                consumed += [key, liveness.holder_key(task_id)]
                pending = self._pending.get(task_id)
                if pending is None or pending.future.done():
                    continue
                if self._failed_on_transport(meta) and \
                        pending.publishes < self._settings.chunk_max_tries:
                    await self._redis.delete(*consumed)
                    consumed = []
                    await self._republish([task_id])
                    continue
                pending.future.set_result(meta)
            if consumed:
                await self._redis.delete(*consumed)
            if time.monotonic() >= next_liveness:
                await self._restore_lost(list(self._pending))
                next_liveness = time.monotonic() + LIVENESS_EVERY_S
            delay = POLL_MIN_S if finished else min(delay * 2, POLL_MAX_S)
            await asyncio.sleep(delay)

    @staticmethod
    def _failed_on_transport(meta: dict[str, Any]) -> bool:
        """A worker that failed because Redis was unreachable says nothing about the items."""
        error = meta.get("result")
        return (meta.get("status") == "FAILURE" and isinstance(error, dict)
                and error.get("exc_module") in TRANSPORT_ERROR_MODULES)

    async def _republish(self, task_ids: list[str]) -> None:
        for task_id in task_ids:
            pending = self._pending.get(task_id)
            if pending is not None and not pending.future.done():
                await asyncio.to_thread(self._publish, task_id, pending)

    async def _restore_lost(self, task_ids: list[str]) -> None:
        """Put the chunks of vanished workers back at the front of the queue, for others."""
        for task_id, worker, tag in await liveness.lost_deliveries(self._redis, task_ids):
            await self._redis.delete(liveness.holder_key(task_id))  # restore it once only
            await asyncio.to_thread(self._restore_delivery, tag)
            metrics.CHUNKS_REDELIVERED.inc()
            log.warning("worker %s vanished holding chunk %s: redelivered", worker, task_id)

    def _restore_delivery(self, tag: str) -> None:
        """The broker's own restore of an unacknowledged message (a no-op if already gone)."""
        with self._celery.connection_for_write() as connection:
            connection.default_channel.qos.restore_by_tag(tag)

    def _revoke(self, task_id: str) -> None:
        """Revoke a chunk nobody waits for any more: a worker skips it if it is still queued,
        or kills the process running it. Revocations go out together, in the background."""
        self._to_revoke.add(task_id)
        if self._revoker is None or self._revoker.done():
            self._revoker = asyncio.create_task(self._revoke_pending())

    async def _revoke_pending(self) -> None:
        while self._to_revoke:
            task_ids, self._to_revoke = list(self._to_revoke), set()
            try:
                await asyncio.to_thread(self._celery.control.revoke, task_ids, terminate=True,
                                        signal="SIGKILL")
            except (OperationalError, RedisError, OSError) as exc:
                log.warning("could not revoke %d chunks: %s", len(task_ids), exc)

    def _fail_pending(self, error: Exception) -> None:
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_exception(error)

    async def check_health(self) -> str | None:
        try:
            await self._redis.ping()
        except (RedisError, OSError) as exc:
            return f"redis unreachable: {exc}"
        return None

    async def close(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
        if self._revoker is not None:  # the chunks of requests cancelled at shutdown
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._revoker, REVOKE_GRACE_S)
        await self._redis.aclose()
