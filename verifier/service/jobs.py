"""Asynchronous jobs: a batch scored in the background, polled or streamed as it finishes.

A job runs in the API process that accepted it (its chunks may run on any worker); its record
(`verifier/service/job_records.py`) lives in this process in embedded mode and in Redis in
distributed mode, where every API replica answers for every job. A job belongs to the API key
that created it: to any other key it does not exist. Finished jobs are kept for `job_ttl_s`.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Sequence

from rlvr_contract.schemas import IndexedResult, JobState, JobStatus, Result
from verifier.service.job_records import ENDED, JobRecords
from verifier.service.verification import Admitted, AnyItem, VerificationService

log = logging.getLogger(__name__)

CANCEL_WAIT_S = 10.0


class JobStore:
    def __init__(self, service: VerificationService, records: JobRecords) -> None:
        self._service = service
        self._records = records
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._closing = False
        records.on_cancel(self._cancel_here)

    async def submit(self, items: Sequence[AnyItem], owner: str) -> str:
        """Admit the batch (may raise Overloaded) and start scoring it in the background."""
        admitted = await self._service.admit_off_loop(items)
        job_id = uuid.uuid4().hex
        try:
            await self._records.create(job_id, len(items), owner)
        except BaseException:
            self._service.release(admitted)
            raise
        task = asyncio.create_task(self._run(job_id, admitted))
        self._tasks[job_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(job_id, None))
        return job_id

    async def get(self, job_id: str, owner: str) -> JobState | None:
        """The job's state, or None if it does not exist for this owner."""
        record = await self._records.read(job_id)
        return record.state if record is not None and record.owner == owner else None

    def follow(self, job_id: str) -> AsyncIterator[IndexedResult]:
        """Every result in finishing order (check the job with `get` first)."""
        return self._records.follow(job_id)

    async def cancel(self, job_id: str, owner: str) -> JobState | None:
        """Stop the job's unfinished work, here or on the replica that runs it; results already
        in stay readable. A job that has ended is left as it is."""
        state = await self.get(job_id, owner)
        if state is None or state.status in ENDED:
            return state
        if not self._cancel_here(job_id):
            await self._records.ask_cancel(job_id)
        for _ in range(int(CANCEL_WAIT_S / 0.05)):
            state = await self.get(job_id, owner)
            if state is None or state.status in ENDED:
                break
            await asyncio.sleep(0.05)
        return state

    def _cancel_here(self, job_id: str) -> bool:
        task = self._tasks.get(job_id)
        if task is None:
            return False
        task.cancel()
        return True

    async def _run(self, job_id: str, admitted: Admitted) -> None:
        """Score the batch; results are written as they come, in batches while a write is on
        its way (one Redis round trip for many results, not one each)."""
        finished: asyncio.Queue[tuple[int, Result] | None] = asyncio.Queue()

        async def score() -> None:
            try:
                async for index, result in self._service.stream(admitted):
                    finished.put_nowait((index, result))
            finally:
                finished.put_nowait(None)

        scorer = asyncio.create_task(score())
        try:
            while True:
                batch = [await finished.get()]
                while not finished.empty():
                    batch.append(finished.get_nowait())
                if results := [scored for scored in batch if scored is not None]:
                    await self._records.add(job_id, results)
                if batch[-1] is None:  # the scorer's last word
                    break
            await scorer  # raises what scoring raised
            await self._records.end(job_id, JobStatus.done)
        except asyncio.CancelledError:
            scorer.cancel()
            await asyncio.gather(scorer, return_exceptions=True)
            await self._records.end(job_id, *(
                (JobStatus.failed, "the server shut down before the job finished")
                if self._closing else (JobStatus.cancelled,)))
            raise
        except Exception as exc:
            log.exception("job %s failed", job_id)
            await self._records.end(job_id, JobStatus.failed, str(exc))

    async def close(self) -> None:
        self._closing = True
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._records.close()
