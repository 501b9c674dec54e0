"""OpenRLHF's remote reward-model contract (`--remote_rm_url .../openrlhf/get_reward`)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException, Request, status

from rlvr_contract.openrlhf import openrlhf_items, openrlhf_scores
from rlvr_contract.schemas import OpenRLHFRequest, OpenRLHFResponse
from verifier.api.deps import ServiceDep, require_api_key
from verifier.api.disconnect import unless_disconnected
from verifier.api.strict_body import StrictJSONRoute

router = APIRouter(prefix="/openrlhf", tags=["openrlhf"],
                   dependencies=[Depends(require_api_key)], route_class=StrictJSONRoute)


@router.post("/get_reward", response_model=OpenRLHFResponse)
async def get_reward(request: OpenRLHFRequest, service: ServiceDep,
                     http: Request) -> OpenRLHFResponse:
    """OpenRLHF sends prompt+response concatenated in `query`; labels carry the reference.

    Read as the adapter's file mode reads them (one reading: rlvr_contract/openrlhf.py). OpenRLHF
    cannot mask a sample, so an `infra_error` scores 0.0 here and is flagged in
    `extra_logs.infra_error` for the logs.
    """
    if request.labels is None:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT,
                            "labels: required (the reference answer or a JSON item per query)")
    try:
        items = openrlhf_items(request.query, request.prompts, request.labels,
                               where="labels.{}: ")
    except ValueError as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(exc)) from exc
    admitted = await service.admit_off_loop(items)
    results = await unless_disconnected(http, service.verify(admitted))
    rewards, correct, infra_error = openrlhf_scores(results, 0.0)
    return OpenRLHFResponse(rewards=rewards, scores=rewards,
                            extra_logs={"infra_error": infra_error, "correct": correct})
