"""Dependencies shared by the routers: the service objects and API-key checking.

Every one is a coroutine function, though none awaits: FastAPI runs a plain function
dependency in its thread pool, and each such hop (two per request, the key and the service)
cost a loaded server milliseconds of a request's latency (a session's one-line cell), while
none of them does anything that blocks."""

from __future__ import annotations

import base64
import binascii
import hashlib
import secrets
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from verifier.config import Settings
from verifier.service.jobs import JobStore
from verifier.service.verification import VerificationService
from verifier.tools.service import ToolService

_bearer = HTTPBearer(auto_error=False)
_header_key = APIKeyHeader(name="X-API-Key", auto_error=False)


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_service(request: Request) -> VerificationService:
    return request.app.state.service


async def get_jobs(request: Request) -> JobStore:
    return request.app.state.jobs


async def get_tools(request: Request) -> ToolService:
    return request.app.state.tools


def _given_key(request: Request) -> str | None:
    """`Authorization: Bearer KEY`, `X-API-Key: KEY`, or Basic auth with the key as password
    (what a browser sends for the status page, and Prometheus's `basic_auth`)."""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value:
        return value.strip()
    if scheme.lower() == "basic" and value:
        try:
            return base64.b64decode(value.strip(), validate=True).decode().partition(":")[2]
        except (binascii.Error, UnicodeDecodeError):
            return None
    return request.headers.get("x-api-key")


def _owner(request: Request, challenge: str) -> str:
    keys = request.app.state.settings.api_key_set
    if not keys:
        return ""
    given = _given_key(request)
    if not given or not any(secrets.compare_digest(given, key) for key in keys):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing or invalid API key",
                            headers={"WWW-Authenticate": challenge})
    return hashlib.sha256(given.encode()).hexdigest()[:32]


async def require_api_key(
    request: Request,
    _bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    _header_key: Annotated[str | None, Depends(_header_key)],
) -> str:
    """When keys are configured, demand one. Returns who is asking: a fingerprint of the key
    (never the key), "" when no keys are configured. (The two unused parameters put both
    schemes in the OpenAPI document, for the docs' Authorize button.)"""
    return _owner(request, "Bearer")


async def require_browser_key(request: Request) -> str:
    """The same, for pages a browser opens: a 401 makes it ask for the key (as password)."""
    return _owner(request, 'Basic realm="verifier", charset="UTF-8"')


ServiceDep = Annotated[VerificationService, Depends(get_service)]
JobsDep = Annotated[JobStore, Depends(get_jobs)]
ToolsDep = Annotated[ToolService, Depends(get_tools)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
OwnerDep = Annotated[str, Depends(require_api_key)]
