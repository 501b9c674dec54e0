"""Liveness, service description and Prometheus metrics."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from rlvr_contract.schemas import Health, Info
from verifier import __version__
from verifier.api.deps import ServiceDep, SettingsDep, require_api_key, require_browser_key
from verifier.kinds.code import admitted_languages, installed_languages
from verifier.kinds.gym import task_names
from verifier.kinds.instructions import INSTRUCTION_IDS

router = APIRouter(tags=["service"])


@router.get("/healthz", response_model=Health, response_model_exclude_none=True,
            responses={503: {"model": Health, "description": "cannot take work"}})
async def healthz(service: ServiceDep) -> Health | JSONResponse:
    problem = await service.executor.check_health()
    if problem:
        return JSONResponse(Health(status="unavailable", detail=problem).model_dump(),
                            status_code=503)
    return Health(status="ok")


@router.get("/v1/info", response_model=Info, dependencies=[Depends(require_api_key)])
async def info(settings: SettingsDep) -> Info:
    languages = admitted_languages(settings)
    if languages is None:  # toolchains elsewhere: what this process has (as before)
        languages = installed_languages(settings)
    return Info(version=__version__, mode=settings.mode, languages=languages,
                max_items=settings.max_items, max_body_bytes=settings.max_body_bytes,
                workers=settings.workers if settings.mode == "embedded" else None,
                instruction_ids=INSTRUCTION_IDS, reasoning_gym_tasks=await gym_tasks())


@router.get("/metrics", include_in_schema=False, dependencies=[Depends(require_browser_key)])
async def prometheus_metrics() -> Response:
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


async def gym_tasks() -> list[str]:
    """reasoning-gym's tasks (its first import takes seconds: off the event loop, once)."""
    return await asyncio.to_thread(task_names)
