"""Code execution as a tool: SandboxFusion's `/run_code`, `/run_jupyter` and `/v1/ping`, and
sessions (`/v1/sessions`), all behind the API keys; a session is its key's alone."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response, status

from rlvr_contract.tool_schemas import (
    RunCodeRequest,
    RunCodeResponse,
    RunJupyterRequest,
    RunJupyterResponse,
    SessionCreate,
    SessionCreated,
    SessionInfo,
    SessionRun,
    SessionRunRequest,
)
from verifier.api.deps import OwnerDep, ToolsDep, require_api_key
from verifier.api.disconnect import unless_disconnected
from verifier.api.strict_body import StrictJSONRoute
from verifier.tools.sessions import session_language

router = APIRouter(tags=["tools"], route_class=StrictJSONRoute)
sandbox_fusion = APIRouter(tags=["tools"], dependencies=[Depends(require_api_key)],
                           route_class=StrictJSONRoute)


@router.get("/v1/ping")
async def ping() -> str:
    """SandboxFusion's liveness probe (no key needed, as /healthz)."""
    return "pong"


@sandbox_fusion.post("/run_code", response_model=RunCodeResponse)
async def run_code(request: RunCodeRequest, tools: ToolsDep, http: Request) -> RunCodeResponse:
    """Run one program, SandboxFusion's way; a client that disconnects stops it."""
    return await unless_disconnected(http, tools.run_code(request))


@sandbox_fusion.post("/run_jupyter", response_model=RunJupyterResponse)
async def run_jupyter(request: RunJupyterRequest, tools: ToolsDep, owner: OwnerDep,
                      http: Request) -> RunJupyterResponse:
    """Run cells in order in a fresh Python session (deleted after), SandboxFusion's way."""
    return await unless_disconnected(http, tools.run_jupyter(owner, request))


@router.post("/v1/sessions", status_code=status.HTTP_201_CREATED,
             response_model=SessionCreated)
async def create_session(request: SessionCreate, tools: ToolsDep,
                         owner: OwnerDep) -> SessionCreated:
    session_language(request.language)
    return SessionCreated.model_validate(await tools.session(
        "create", owner, body=request.model_dump(mode="json")))


@router.post("/v1/sessions/{session_id}/run", response_model=SessionRun)
async def run_in_session(session_id: str, request: SessionRunRequest, tools: ToolsDep,
                         owner: OwnerDep) -> SessionRun:
    return SessionRun.model_validate(await tools.session(
        "run", owner, session_id, request.model_dump(mode="json")))


@router.get("/v1/sessions/{session_id}", response_model=SessionInfo)
async def session_info(session_id: str, tools: ToolsDep, owner: OwnerDep) -> SessionInfo:
    return SessionInfo.model_validate(await tools.session("info", owner, session_id))


@router.delete("/v1/sessions/{session_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_session(session_id: str, tools: ToolsDep, owner: OwnerDep) -> Response:
    """End the session: its interpreter, processes and files go, its memory is freed."""
    await tools.session("delete", owner, session_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
