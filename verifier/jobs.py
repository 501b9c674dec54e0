"""Asynchronous jobs: a batch scored in the background, polled or streamed as it finishes.

A job lives in the API process that accepted it (its chunks may run on any worker). Finished
jobs are kept for `job_ttl_s`, then forgotten.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from rl_client.schemas import IndexedResult, JobState, JobStatus, Result
from verifier.service import AnyItem, VerificationService

log = logging.getLogger(__name__)


@dataclass
class Job:
    id: str
    total: int
    results: list[Result | None]
    status: JobStatus = JobStatus.queued
    error: str | None = None
    finished_order: list[int] = field(default_factory=list)
    finished_at: float | None = None
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    task: asyncio.Task[None] | None = None

    @property
    def ended(self) -> bool:
        return self.status in (JobStatus.done, JobStatus.failed, JobStatus.cancelled)

    def state(self) -> JobState:
        return JobState(job_id=self.id, status=self.status, done=len(self.finished_order),
                        total=self.total, results=self.results, error=self.error)


class JobStore:
    def __init__(self, service: VerificationService, ttl_s: int) -> None:
        self._service = service
        self._ttl_s = ttl_s
        self._jobs: dict[str, Job] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def submit(self, items: Sequence[AnyItem]) -> Job:
        """Admit the batch (may raise Overloaded) and start scoring it in the background."""
        self._forget_expired()
        self._service.admit(items)
        job = Job(id=uuid.uuid4().hex, total=len(items), results=[None] * len(items))
        self._jobs[job.id] = job
        task = job.task = asyncio.create_task(self._run(job, items))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    async def cancel(self, job: Job) -> None:
        """Stop the job's unfinished work (its chunks dropped or killed, see the executors);
        results already in stay readable. A job that has ended is left as it is."""
        if job.task is not None and not job.ended:
            job.task.cancel()
            await asyncio.gather(job.task, return_exceptions=True)

    async def _run(self, job: Job, items: Sequence[AnyItem]) -> None:
        job.status = JobStatus.running
        try:
            async for index, result in self._service.stream(items):
                job.results[index] = result
                job.finished_order.append(index)
                async with job.changed:
                    job.changed.notify_all()
            job.status = JobStatus.done
        except asyncio.CancelledError:
            job.status = JobStatus.cancelled
            raise
        except Exception as exc:
            log.exception("job %s failed", job.id)
            job.status, job.error = JobStatus.failed, str(exc)
        finally:
            job.finished_at = time.monotonic()
            async with job.changed:
                job.changed.notify_all()

    async def follow(self, job: Job) -> AsyncIterator[IndexedResult]:
        """Every result of the job in finishing order: those already done, then the rest."""
        position = 0
        while True:
            async with job.changed:
                while position >= len(job.finished_order) and not job.ended:
                    await job.changed.wait()
            while position < len(job.finished_order):
                index = job.finished_order[position]
                result = job.results[index]
                assert result is not None
                yield IndexedResult(index=index, **result.model_dump())
                position += 1
            if job.ended and position == len(job.finished_order):
                return

    def _forget_expired(self) -> None:
        now = time.monotonic()
        expired = [job_id for job_id, job in self._jobs.items()
                   if job.finished_at is not None and now - job.finished_at > self._ttl_s]
        for job_id in expired:
            del self._jobs[job_id]

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
