"""Asynchronous jobs: submit, poll, or stream results as NDJSON while they finish."""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi import APIRouter, Depends, HTTPException, status
from fastapi.responses import StreamingResponse

from rl_client.schemas import JobCreated, JobState, VerifyRequest
from verifier.api.deps import JobsDep, require_api_key
from verifier.api.strict_body import StrictJSONRoute
from verifier.jobs import Job, JobStore

router = APIRouter(prefix="/v1/jobs", tags=["jobs"], dependencies=[Depends(require_api_key)],
                   route_class=StrictJSONRoute)


def _job_or_404(jobs: JobStore, job_id: str) -> Job:
    job = jobs.get(job_id)
    if job is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown job {job_id!r}")
    return job


@router.post("", status_code=status.HTTP_202_ACCEPTED, response_model=JobCreated)
async def submit_job(request: VerifyRequest, jobs: JobsDep) -> JobCreated:
    return JobCreated(job_id=jobs.submit(request.items).id)


@router.get("/{job_id}", response_model=JobState)
async def job_state(job_id: str, jobs: JobsDep) -> JobState:
    return _job_or_404(jobs, job_id).state()


@router.delete("/{job_id}", response_model=JobState)
async def cancel_job(job_id: str, jobs: JobsDep) -> JobState:
    """Cancel a job: its unfinished items are stopped and it ends as `cancelled`."""
    job = _job_or_404(jobs, job_id)
    await jobs.cancel(job)
    return job.state()


@router.get("/{job_id}/stream", response_class=StreamingResponse,
            responses={200: {"content": {"application/x-ndjson": {}},
                             "description": "one IndexedResult per line, in finishing order"}})
async def stream_job(job_id: str, jobs: JobsDep) -> StreamingResponse:
    job = _job_or_404(jobs, job_id)

    async def lines() -> AsyncIterator[str]:
        async for result in jobs.follow(job):
            yield result.model_dump_json() + "\n"

    return StreamingResponse(lines(), media_type="application/x-ndjson")
