"""POST /v1/verify: score a batch and answer when all of it is done."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from rlvr_contract.schemas import VerifyRequest, VerifyResponse
from verifier.api.deps import ServiceDep, require_api_key
from verifier.api.disconnect import unless_disconnected
from verifier.api.strict_body import StrictJSONRoute

router = APIRouter(prefix="/v1", tags=["verify"], dependencies=[Depends(require_api_key)],
                   route_class=StrictJSONRoute)


@router.post("/verify", response_model=VerifyResponse)
async def verify(request: VerifyRequest, service: ServiceDep, http: Request) -> VerifyResponse:
    """Scores the batch; a client that disconnects first stops its unfinished work."""
    admitted = await service.admit_off_loop(request.items)
    return VerifyResponse(results=await unless_disconnected(http, service.verify(admitted)))
