"""OpenRLHF's remote reward-model contract (`--remote_rm_url .../openrlhf/get_reward`)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException, status
from pydantic import ValidationError

from rl_client.schemas import OpenRLHFRequest, OpenRLHFResponse, Status, item_from_label
from verifier.api.deps import ServiceDep, require_api_key
from verifier.api.strict_body import StrictJSONRoute

router = APIRouter(prefix="/openrlhf", tags=["openrlhf"],
                   dependencies=[Depends(require_api_key)], route_class=StrictJSONRoute)


@router.post("/get_reward", response_model=OpenRLHFResponse)
async def get_reward(request: OpenRLHFRequest, service: ServiceDep) -> OpenRLHFResponse:
    """OpenRLHF sends prompt+response concatenated in `query`; labels carry the reference.

    OpenRLHF cannot mask a sample, so an `infra_error` scores 0.0 here and is flagged in
    `extra_logs.infra_error` for the logs.
    """
    n = len(request.query)
    for name in ("prompts", "labels"):
        given = getattr(request, name)
        if given is not None and len(given) != n:
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT,
                                f"{name}: {len(given)} entries for {n} queries")
    if request.labels is None:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT,
                            "labels: required (the reference answer or a JSON item per query)")
    items = []
    for i, (query, label) in enumerate(zip(request.query, request.labels, strict=True)):
        # OpenRLHF decodes with special tokens kept, so text (a BOS) may precede the prompt.
        prompt = request.prompts[i] if request.prompts else ""
        at = query.find(prompt) if prompt else -1
        response = query[at + len(prompt):] if at >= 0 else query
        try:
            items.append(item_from_label(response, label))
        except (ValidationError, ValueError) as exc:
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT,
                                f"labels.{i}: {exc}") from exc
    service.admit(items)
    results = await service.verify(items)
    rewards = [r.reward or 0.0 for r in results]
    return OpenRLHFResponse(
        rewards=rewards, scores=rewards,
        extra_logs={"infra_error": [float(r.status == Status.infra_error) for r in results],
                    "correct": [float(r.status == Status.correct) for r in results]})
