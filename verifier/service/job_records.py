"""Where a job's state lives: in this process (embedded), or in Redis for every API replica.

A record is the job's owner (a fingerprint of the API key that created it), its total, its
status and error, and its results in finishing order. `verifier/service/jobs.py` runs the batch and
writes the record; any replica reads it. In Redis a job is a hash (`verifier:job:ID`) and a
stream of results (`verifier:job:ID:results`, closed by an end marker), both expiring
`job_ttl_s` after their last write, so a follower on any replica blocks on the stream instead
of polling. The replica running a job answers for it from its own copy, and writes the job to
Redis again, whole, after Redis missed writes or restarted empty. Cancelling a job another
replica runs goes over a pub/sub channel to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from rlvr_contract.schemas import IndexedResult, JobState, JobStatus, Result
from verifier.executors import ServiceUnavailable

log = logging.getLogger(__name__)

ENDED = (JobStatus.done, JobStatus.failed, JobStatus.cancelled)


@dataclass
class JobRecord:
    owner: str
    state: JobState


class JobRecords(Protocol):
    async def create(self, job_id: str, total: int, owner: str) -> None: ...

    async def add(self, job_id: str, results: Sequence[tuple[int, Result]]) -> None:
        """Results that finished, each (index, result), in finishing order."""
        ...

    async def end(self, job_id: str, status: JobStatus, error: str | None = None) -> None: ...

    async def read(self, job_id: str) -> JobRecord | None: ...

    def follow(self, job_id: str) -> AsyncIterator[IndexedResult]:
        """Every result in finishing order, those in already and then the rest, until the end."""
        ...

    async def ask_cancel(self, job_id: str) -> None:
        """Ask whichever process runs the job to cancel it."""
        ...

    def on_cancel(self, cancel: Callable[[str], None]) -> None:
        """Call `cancel(job_id)` when another process asks for a job to be cancelled."""
        ...

    async def close(self) -> None: ...


# --------------------------------------------------------------------------- in process


@dataclass
class _Job:
    owner: str
    total: int
    status: JobStatus = JobStatus.running
    error: str | None = None
    results: list[Result | None] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    ended_at: float | None = None
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    def finished(self) -> list[tuple[int, Result]]:
        """(index, result) in finishing order."""
        return [(index, result) for index in self.order
                if (result := self.results[index]) is not None]


class MemoryRecords:
    """One process's jobs (embedded mode): every reader is the process that runs them."""

    def __init__(self, ttl_s: int) -> None:
        self._ttl_s = ttl_s
        self._jobs: dict[str, _Job] = {}

    async def create(self, job_id: str, total: int, owner: str) -> None:
        now = time.monotonic()
        for expired in [i for i, j in self._jobs.items()
                        if j.ended_at is not None and now - j.ended_at > self._ttl_s]:
            del self._jobs[expired]
        self._jobs[job_id] = _Job(owner, total, results=[None] * total)

    async def add(self, job_id: str, results: Sequence[tuple[int, Result]]) -> None:
        job = self._jobs[job_id]
        for index, result in results:
            job.results[index] = result
            job.order.append(index)
        async with job.changed:
            job.changed.notify_all()

    async def end(self, job_id: str, status: JobStatus, error: str | None = None) -> None:
        job = self._jobs[job_id]
        job.status, job.error, job.ended_at = status, error, time.monotonic()
        async with job.changed:
            job.changed.notify_all()

    def snapshot(self, job_id: str) -> _Job | None:
        return self._jobs.get(job_id)

    def drop(self, job_id: str) -> None:
        self._jobs.pop(job_id, None)

    async def read(self, job_id: str) -> JobRecord | None:
        job = self._jobs.get(job_id)
        if job is None:
            return None
        return JobRecord(job.owner, JobState(job_id=job_id, status=job.status,
                                             done=len(job.order), total=job.total,
                                             results=job.results, error=job.error))

    async def follow(self, job_id: str) -> AsyncIterator[IndexedResult]:
        job = self._jobs.get(job_id)
        if job is None:  # expired since it was looked up
            return
        position = 0
        while True:
            async with job.changed:
                while position >= len(job.order) and job.status not in ENDED:
                    await job.changed.wait()
            for index in job.order[position:]:
                result = job.results[index]
                assert result is not None
                yield IndexedResult(index=index, **result.model_dump())
                position += 1
            if job.status in ENDED and position == len(job.order):
                return

    async def ask_cancel(self, job_id: str) -> None:
        """Nothing to ask: the job runs here, and `JobStore` cancels it itself."""

    def on_cancel(self, cancel: Callable[[str], None]) -> None:
        """No other process shares these jobs."""

    async def close(self) -> None:
        self._jobs.clear()


# --------------------------------------------------------------------------- in Redis

JOB_KEY = "verifier:job:{}"
RESULTS_KEY = "verifier:job:{}:results"
CANCEL_CHANNEL = "verifier:job-cancel"
FOLLOW_BLOCK_MS = 1000


class RedisRecords:
    """Jobs in Redis (distributed mode), shared by every API replica on the same Redis.

    The replica that runs a job also keeps it in memory: it answers for its own jobs from
    there (through a Redis outage too), and writes a job again, whole, where Redis missed a
    write or lost it (a Redis restarted without persistence).
    """

    def __init__(self, url: str, ttl_s: int) -> None:
        self._ttl_s = ttl_s
        # Followers block on a stream for up to FOLLOW_BLOCK_MS: the socket must wait longer.
        self._redis = aioredis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=10)
        # A subscriber waits for messages without a deadline; pings notice a vanished Redis.
        self._subscriber = aioredis.Redis.from_url(url, socket_connect_timeout=2,
                                                   health_check_interval=10)
        self._listener: asyncio.Task[None] | None = None
        self._local = MemoryRecords(ttl_s)
        self._unsynced: set[str] = set()
        self._retries: set[asyncio.Task[None]] = set()

    async def create(self, job_id: str, total: int, owner: str) -> None:
        await self._local.create(job_id, total, owner)
        try:
            async with _unavailable():  # no Redis, no job: a 503, like any distributed request
                await self._write(job_id, whole=True)
        except ServiceUnavailable:
            self._local.drop(job_id)
            raise

    async def add(self, job_id: str, results: Sequence[tuple[int, Result]]) -> None:
        await self._local.add(job_id, results)
        await self._sync(job_id, results)

    async def end(self, job_id: str, status: JobStatus, error: str | None = None) -> None:
        await self._local.end(job_id, status, error)
        if not await self._sync(job_id, []):  # the end must reach the other replicas
            retry = asyncio.create_task(self._sync_until_written(job_id))
            self._retries.add(retry)
            retry.add_done_callback(self._retries.discard)

    async def _sync(self, job_id: str, new: Sequence[tuple[int, Result]]) -> bool:
        """Write what is new, or the whole job if Redis lacks some of it; False if Redis is
        out of reach (the next write tries again)."""
        try:
            if job_id in self._unsynced or not await self._write(job_id, new):
                await self._write(job_id, whole=True)
        except (RedisError, OSError) as exc:
            if job_id not in self._unsynced:
                log.warning("job %s not written to Redis (will be): %s", job_id, exc)
            self._unsynced.add(job_id)
            return False
        self._unsynced.discard(job_id)
        return True

    async def _sync_until_written(self, job_id: str) -> None:
        for _ in range(self._ttl_s):
            await asyncio.sleep(1)
            if await self._sync(job_id, []):
                return

    async def _write(self, job_id: str, new: Sequence[tuple[int, Result]] = (), *,
                     whole: bool = False) -> bool:
        """One transaction: the job's fields, its new results (all of them if `whole`), the
        end marker once ended. True if Redis now holds the whole job."""
        record = self._local.snapshot(job_id)
        key, stream = JOB_KEY.format(job_id), RESULTS_KEY.format(job_id)
        ended = record.status in ENDED
        async with self._redis.pipeline(transaction=True) as pipe:
            if whole:
                pipe.delete(stream)
            pipe.hset(key, mapping={"owner": record.owner, "total": record.total,
                                    "status": record.status.value, "error": record.error or ""})
            for index, result in (record.finished() if whole else new):
                pipe.xadd(stream, {"i": index, "r": result.model_dump_json()})
            if ended:
                pipe.xadd(stream, {"end": record.status.value})
            pipe.xlen(stream)
            pipe.expire(key, self._ttl_s)
            pipe.expire(stream, self._ttl_s)
            replies = await pipe.execute()
        return replies[-3] == len(record.order) + ended

    async def read(self, job_id: str) -> JobRecord | None:
        if (mine := await self._local.read(job_id)) is not None:
            return mine
        async with _unavailable(), self._redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(JOB_KEY.format(job_id))
            pipe.xrange(RESULTS_KEY.format(job_id))
            fields, entries = await pipe.execute()
        if not fields:
            return None
        total = int(fields[b"total"])
        results: list[Result | None] = [None] * total
        done = 0
        for _, entry in entries:
            if b"i" in entry:
                results[int(entry[b"i"])] = Result.model_validate_json(entry[b"r"])
                done += 1
        return JobRecord(fields[b"owner"].decode(), JobState(
            job_id=job_id, status=JobStatus(fields[b"status"].decode()), done=done, total=total,
            results=results, error=fields[b"error"].decode() or None))

    async def follow(self, job_id: str) -> AsyncIterator[IndexedResult]:
        if self._local.snapshot(job_id) is not None:
            async for result in self._local.follow(job_id):
                yield result
            return
        stream = RESULTS_KEY.format(job_id)
        last = b"0-0"
        while True:
            reply = await self._redis.xread({stream: last}, count=1024, block=FOLLOW_BLOCK_MS)
            if not reply:  # nothing new for a while: gone (expired) or still running?
                if not await self._redis.exists(JOB_KEY.format(job_id)):
                    return
                continue
            for entry_id, entry in reply[0][1]:
                last = entry_id
                if b"end" in entry:
                    return
                yield IndexedResult(index=int(entry[b"i"]),
                                    **json.loads(entry[b"r"]))

    async def ask_cancel(self, job_id: str) -> None:
        async with _unavailable():
            await self._redis.publish(CANCEL_CHANNEL, job_id)

    def on_cancel(self, cancel: Callable[[str], None]) -> None:
        self._listener = asyncio.create_task(self._listen(cancel))

    async def _listen(self, cancel: Callable[[str], None]) -> None:
        """Cancel requests for the jobs of this replica; resubscribes after a Redis outage."""
        while True:
            try:
                async with self._subscriber.pubsub() as pubsub:
                    await pubsub.subscribe(CANCEL_CHANNEL)
                    async for message in pubsub.listen():
                        if message["type"] == "message":
                            cancel(message["data"].decode())
            except (RedisError, OSError) as exc:
                log.warning("cancel requests not heard while Redis is away: %s", exc)
                await asyncio.sleep(1)

    async def close(self) -> None:
        for task in [*self._retries, *filter(None, [self._listener])]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._redis.aclose()
        await self._subscriber.aclose()


@contextlib.asynccontextmanager
async def _unavailable() -> AsyncIterator[None]:
    """Redis out of reach while answering a request: a 503, as for every other request."""
    try:
        yield
    except (RedisError, OSError) as exc:
        raise ServiceUnavailable(f"cannot reach the job store: {exc}") from exc
