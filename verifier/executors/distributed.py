"""Distributed back end: chunks go to Celery workers over Redis.

Publishing uses Celery; collecting results reads Celery's Redis result keys with one batched
async MGET for all chunks in flight, so thousands of pending chunks cost one round trip per
poll and no thread each.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from typing import Any

import redis.asyncio as aioredis
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from verifier import logs, metrics
from verifier.celery_app import TASK_NAME, make_celery
from verifier.config import Settings
from verifier.executors import ServiceUnavailable, infra_errors

log = logging.getLogger(__name__)

POLL_MIN_S = 0.002
POLL_MAX_S = 0.05
REDIS_GRACE_S = 10.0


class DistributedExecutor:
    mode = "distributed"

    def __init__(self, settings: Settings) -> None:
        self.broker_url = settings.broker_url or ""
        self._settings = settings
        self._celery = make_celery(self.broker_url, fail_fast=True,
                                   visibility_timeout_s=settings.visibility_timeout_s)
        self._redis = aioredis.Redis.from_url(self.broker_url, socket_connect_timeout=2,
                                              socket_timeout=5)
        self._pending: dict[str, asyncio.Future[list[dict[str, Any]]]] = {}
        self._poller: asyncio.Task[None] | None = None

    async def run_chunk(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        task_id = str(uuid.uuid4())
        future: asyncio.Future[list[dict[str, Any]]] = asyncio.get_running_loop().create_future()
        self._pending[task_id] = future
        try:
            await asyncio.to_thread(self._publish, task_id, items, logs.request_id.get())
            self._ensure_poller()
            raw = await asyncio.wait_for(future, timeout=self._settings.chunk_timeout_s)
        except TimeoutError:
            return infra_errors(items, "no worker finished this chunk within "
                                       f"{self._settings.chunk_timeout_s:g} s")
        finally:
            self._pending.pop(task_id, None)
        if raw.get("worker"):
            metrics.WORKER_LAST_SEEN.labels(raw["worker"]).set(time.time())
        if raw.get("status") != "SUCCESS":
            return infra_errors(items, f"worker task failed: {raw.get('result')}")
        return raw["result"]

    def _publish(self, task_id: str, items: list[dict[str, Any]], request_id: str) -> None:
        try:
            self._celery.send_task(
                TASK_NAME, task_id=task_id, retry=False,
                args=[items, self._settings.math_timeout_s, self._settings.chunk_max_tries],
                kwargs={"request_id": request_id})
        except (OperationalError, RedisError, OSError) as exc:
            raise ServiceUnavailable(f"cannot reach the broker: {exc}") from exc

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
        """Resolve pending chunks as their results appear; give up on all if Redis stays down."""
        delay = POLL_MIN_S
        down_since: float | None = None
        while self._pending:
            task_ids = list(self._pending)
            keys = [self._celery.backend.get_key_for_task(t) for t in task_ids]
            try:
                values = await self._redis.mget(keys)
            except (RedisError, OSError) as exc:
                down_since = down_since or time.monotonic()
                if time.monotonic() - down_since > REDIS_GRACE_S:
                    self._fail_pending(ServiceUnavailable(f"lost the result store: {exc}"))
                    return
                await asyncio.sleep(0.2)
                continue
            down_since = None
            done = [(t, k, v) for t, k, v in zip(task_ids, keys, values, strict=True) if v]
            finished = []
            for task_id, key, value in done:
                meta = json.loads(value)
                if meta.get("status") not in ("SUCCESS", "FAILURE", "REVOKED"):
                    continue
                future = self._pending.get(task_id)
                if future is not None and not future.done():
                    future.set_result(meta)
                finished.append(key)
            if finished:
                await self._redis.delete(*finished)
                delay = POLL_MIN_S
            else:
                delay = min(delay * 2, POLL_MAX_S)
            await asyncio.sleep(delay)

    def _fail_pending(self, error: Exception) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)

    async def check_health(self) -> str | None:
        try:
            await self._redis.ping()
        except (RedisError, OSError) as exc:
            return f"redis unreachable: {exc}"
        return None

    async def close(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
        await self._redis.aclose()
