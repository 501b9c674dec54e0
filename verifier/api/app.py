"""Application factory: wires settings, the execution back end, the cache and the routers."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from rlvr_contract.tool_schemas import TOO_LARGE
from verifier import __version__
from verifier.api.disconnect import ClientGone
from verifier.api.middleware import BodySizeLimit, RequestId, RequestMetrics
from verifier.api.routes import health, jobs, openrlhf, status, tools, verify
from verifier.api.strict_body import RefusedBody
from verifier.config import Settings, load_settings
from verifier.executors import Busy, ServiceUnavailable
from verifier.executors.factory import make_executor
from verifier.service.cache import MemoryCache, RedisCache
from verifier.service.job_records import MemoryRecords, RedisRecords
from verifier.service.jobs import JobStore
from verifier.service.verification import (
    InvalidItems,
    Overloaded,
    TooManyItems,
    VerificationService,
)
from verifier.tools.service import InvalidRequest, ToolService
from verifier.tools.session_routing import LocalSessions, RedisSessions
from verifier.tools.sessions import PROBLEM_STATUS, SessionProblem

log = logging.getLogger(__name__)


def _field(loc: tuple | list) -> str:
    return ".".join(str(part) for part in loc if part != "body") or "body"


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or load_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        executor = make_executor(settings)
        cache = (RedisCache(settings.broker_url, settings.cache_ttl_s) if settings.broker_url
                 else MemoryCache(settings.cache_size, settings.cache_max_bytes))
        service = VerificationService(settings, executor, cache)
        app.state.service = service
        records = (RedisRecords(settings.broker_url, settings.job_ttl_s) if settings.broker_url
                   else MemoryRecords(settings.job_ttl_s))
        app.state.jobs = JobStore(service, records)
        sessions = RedisSessions(settings) if settings.broker_url else LocalSessions(settings)
        app.state.tools = ToolService(settings, executor, service, sessions)
        log.info("verifier %s ready: %s mode, %s", __version__, settings.mode,
                 settings.broker_url or f"{settings.workers} local workers")
        try:
            yield
        finally:
            await app.state.jobs.close()
            await sessions.close()
            await executor.close()
            await service.close()
            if isinstance(cache, RedisCache):
                await cache.close()

    app = FastAPI(title="RLVR verifier", version=__version__, lifespan=lifespan,
                  description="Verifiable rewards for RL: math answers and sandboxed code tests.")
    app.state.settings = settings
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(RequestMetrics)
    app.add_middleware(RequestId)
    for router in (health.router, verify.router, jobs.router, openrlhf.router, status.router,
                   tools.router, tools.sandbox_fusion):
        app.include_router(router)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        """422 naming each field; 413 when a field is over its size limit."""
        errors = [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]}
                  for e in exc.errors()]
        summary = "; ".join(f"{_field(e['loc'])}: {e['msg']}" for e in errors[:5])
        too_large = any(e["type"] == TOO_LARGE for e in errors)
        return JSONResponse({"detail": errors, "error": summary},
                            status_code=413 if too_large else 422)

    @app.exception_handler(RefusedBody)
    async def _refused(_: Request, exc: RefusedBody) -> JSONResponse:
        return JSONResponse({"detail": exc.errors, "error": exc.detail}, status_code=422)

    @app.exception_handler(InvalidItems)
    async def _unservable(_: Request, exc: InvalidItems) -> JSONResponse:
        return JSONResponse({"detail": exc.errors, "error": str(exc)}, status_code=422)

    @app.exception_handler(TooManyItems)
    async def _too_many(_: Request, exc: TooManyItems) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=413)

    @app.exception_handler(Overloaded)
    async def _overloaded(_: Request, exc: Overloaded) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=429,
                            headers={"Retry-After": str(exc.retry_after_s)})

    @app.exception_handler(ClientGone)
    async def _gone(_: Request, exc: ClientGone) -> Response:
        return Response(status_code=499)  # nobody reads it: for the access log and metrics

    @app.exception_handler(InvalidRequest)
    async def _unservable_field(_: Request, exc: InvalidRequest) -> JSONResponse:
        return JSONResponse({"detail": exc.errors, "error": str(exc)}, status_code=422)

    @app.exception_handler(Busy)
    async def _busy(request: Request, exc: Busy) -> JSONResponse:
        """A program no worker could start in time: 504, which verl's client retries."""
        retry = request.app.state.tools.retry_after_s()
        return JSONResponse({"detail": f"too busy to start the run: {exc}; retry in {retry} s"},
                            status_code=504, headers={"Retry-After": str(retry)})

    @app.exception_handler(SessionProblem)
    async def _session_problem(_: Request, exc: SessionProblem) -> JSONResponse:
        if exc.kind == "invalid":  # "field: why"
            field = str(exc).split(": ", 1)[0]
            return JSONResponse({"detail": [{"loc": ["body", field], "msg": str(exc),
                                             "type": "value_error"}], "error": str(exc)},
                                status_code=422)
        headers = {"Retry-After": str(exc.retry_after_s)} if exc.retry_after_s else None
        return JSONResponse({"detail": str(exc)}, status_code=PROBLEM_STATUS[exc.kind],
                            headers=headers)

    @app.exception_handler(ServiceUnavailable)
    async def _unavailable(_: Request, exc: ServiceUnavailable) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=503, headers={"Retry-After": "2"})

    return app
