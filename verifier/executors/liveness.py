"""Which worker holds which chunk, and whether that worker is still there.

The broker alone notices a vanished worker (a killed container, a lost machine) only when the
visibility timeout runs out, minutes later. So each `verifier worker` beats: a Redis key that
lives `worker_lost_after_s` and is refreshed every `worker_heartbeat_s`. When it takes a chunk
from the queue, a worker records itself and the message's delivery tag as its holder. The API
that waits on the chunk checks the holders of its pending chunks about once a second; a chunk
whose holder's heartbeat is gone goes back to the front of the queue as the same message (the
broker's own restore), so another worker runs it within seconds. Collection stays idempotent:
the first result of a chunk wins and a late duplicate is never read.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
import uuid
from collections.abc import Sequence
from typing import Any

import redis
import redis.asyncio as aioredis

log = logging.getLogger(__name__)

ALIVE_KEY = "verifier:worker-alive:{}"
HOLDER_KEY = "verifier:chunk-holder:{}"


def new_worker_id() -> str:
    """Unique per worker start: a container restarted under the same host name and pid is a
    new worker, and does not keep the chunks of its previous life alive."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Heartbeat:
    """A daemon thread of the worker's main process that keeps its alive key fresh."""

    def __init__(self, broker_url: str, worker_id: str, every_s: float,
                 lost_after_s: float, holder_ttl_s: int) -> None:
        self.worker_id = worker_id
        self._holder_ttl_s = holder_ttl_s
        self._key = ALIVE_KEY.format(worker_id)
        self._every_s = every_s
        self._ttl_ms = int(lost_after_s * 1000)
        self._redis = redis.Redis.from_url(broker_url, socket_connect_timeout=2,
                                           socket_timeout=2)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="verifier-heartbeat",
                                        daemon=True)

    def start(self) -> Heartbeat:
        self._beat()  # alive before the first chunk can be taken
        self._thread.start()
        return self

    def _beat(self) -> None:
        try:
            self._redis.set(self._key, "1", px=self._ttl_ms)
        except (redis.RedisError, OSError) as exc:  # the next beat may get through
            log.warning("heartbeat not written: %s", exc)

    def _run(self) -> None:
        while not self._stopped.wait(self._every_s):
            self._beat()

    def hold(self, task_id: str, delivery_tag: str | None) -> None:
        """Record that this worker holds this delivery of the chunk (taken, not yet acked)."""
        if not delivery_tag:
            return
        try:
            self._redis.set(holder_key(task_id), json.dumps([self.worker_id, delivery_tag]),
                            ex=self._holder_ttl_s)
        except (redis.RedisError, OSError) as exc:  # the visibility timeout still holds
            log.warning("holder of chunk %s not recorded: %s", task_id, exc)

    def stop(self) -> None:
        """A worker that stops on purpose says so at once: its chunks need not wait."""
        self._stopped.set()
        self._thread.join(timeout=self._every_s + 1)
        with contextlib.suppress(redis.RedisError, OSError):
            self._redis.delete(self._key)


async def lost_deliveries(client: aioredis.Redis, task_ids: Sequence[str]
                          ) -> list[tuple[str, str, str]]:
    """(task id, worker id, delivery tag) of each chunk whose holder no longer beats."""
    if not task_ids:
        return []
    holders: list[tuple[str, Any]] = [
        (task_id, json.loads(raw)) for task_id, raw in
        zip(task_ids, await client.mget([holder_key(t) for t in task_ids]), strict=True)
        if raw]
    if not holders:
        return []
    workers = sorted({worker for _, (worker, _) in holders})
    alive = dict(zip(workers, await client.mget([ALIVE_KEY.format(w) for w in workers]),
                     strict=True))
    return [(task_id, worker, tag) for task_id, (worker, tag) in holders if not alive[worker]]


def holder_key(task_id: str) -> str:
    """Deleted once the chunk's result is read, or its delivery restored."""
    return HOLDER_KEY.format(task_id)
