"""POST /v1/verify: score a batch and answer when all of it is done."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from rl_client.schemas import VerifyRequest, VerifyResponse
from verifier.api.deps import ServiceDep, require_api_key
from verifier.api.strict_body import StrictJSONRoute

router = APIRouter(prefix="/v1", tags=["verify"], dependencies=[Depends(require_api_key)],
                   route_class=StrictJSONRoute)


@router.post("/verify", response_model=VerifyResponse)
async def verify(request: VerifyRequest, service: ServiceDep) -> VerifyResponse:
    service.admit(request.items)
    return VerifyResponse(results=await service.verify(request.items))
