"""Asynchronous jobs: submit, poll, stream results as NDJSON while they finish, or cancel.

A job is visible only to the API key that created it: to any other key it is unknown (404).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi import APIRouter, HTTPException, status
from fastapi.responses import StreamingResponse

from rlvr_contract.schemas import JobCreated, JobState, VerifyRequest
from verifier.api.deps import JobsDep, OwnerDep
from verifier.api.strict_body import StrictJSONRoute

router = APIRouter(prefix="/v1/jobs", tags=["jobs"], route_class=StrictJSONRoute)


def _known(state: JobState | None, job_id: str) -> JobState:
    if state is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown job {job_id!r}")
    return state


@router.post("", status_code=status.HTTP_202_ACCEPTED, response_model=JobCreated)
async def submit_job(request: VerifyRequest, jobs: JobsDep, owner: OwnerDep) -> JobCreated:
    return JobCreated(job_id=await jobs.submit(request.items, owner))


@router.get("/{job_id}", response_model=JobState)
async def job_state(job_id: str, jobs: JobsDep, owner: OwnerDep) -> JobState:
    return _known(await jobs.get(job_id, owner), job_id)


@router.delete("/{job_id}", response_model=JobState)
async def cancel_job(job_id: str, jobs: JobsDep, owner: OwnerDep) -> JobState:
    """Cancel a job: its unfinished items are stopped and it ends as `cancelled`."""
    return _known(await jobs.cancel(job_id, owner), job_id)


@router.get("/{job_id}/stream", response_class=StreamingResponse,
            responses={200: {"content": {"application/x-ndjson": {}},
                             "description": "one IndexedResult per line, in finishing order"}})
async def stream_job(job_id: str, jobs: JobsDep, owner: OwnerDep) -> StreamingResponse:
    _known(await jobs.get(job_id, owner), job_id)

    async def lines() -> AsyncIterator[str]:
        async for result in jobs.follow(job_id):
            yield result.model_dump_json() + "\n"

    return StreamingResponse(lines(), media_type="application/x-ndjson")
