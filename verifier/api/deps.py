"""Dependencies shared by the routers: the service objects and API-key checking."""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from verifier.config import Settings
from verifier.jobs import JobStore
from verifier.service import VerificationService

_bearer = HTTPBearer(auto_error=False)
_header_key = APIKeyHeader(name="X-API-Key", auto_error=False)


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_service(request: Request) -> VerificationService:
    return request.app.state.service


def get_jobs(request: Request) -> JobStore:
    return request.app.state.jobs


def require_api_key(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    header_key: Annotated[str | None, Depends(_header_key)],
) -> None:
    """When keys are configured, demand one (`Authorization: Bearer KEY` or `X-API-Key`)."""
    keys = request.app.state.settings.api_key_set
    if not keys:
        return
    given = bearer.credentials if bearer else header_key
    if not given or not any(secrets.compare_digest(given, key) for key in keys):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing or invalid API key",
                            headers={"WWW-Authenticate": "Bearer"})


ServiceDep = Annotated[VerificationService, Depends(get_service)]
JobsDep = Annotated[JobStore, Depends(get_jobs)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
