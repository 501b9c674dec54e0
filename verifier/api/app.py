"""Application factory: wires settings, the execution back end, the cache and the routers."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from verifier import __version__
from verifier.api.disconnect import ClientGone
from verifier.api.middleware import BodySizeLimit, RequestId, RequestMetrics
from verifier.api.routes import health, jobs, openrlhf, status, verify
from verifier.api.strict_body import RefusedBody
from verifier.cache import MemoryCache, RedisCache
from verifier.config import Settings, load_settings
from verifier.executors import ServiceUnavailable
from verifier.executors.factory import make_executor
from verifier.job_records import MemoryRecords, RedisRecords
from verifier.jobs import JobStore
from verifier.service import InvalidItems, Overloaded, TooManyItems, VerificationService

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
        log.info("verifier %s ready: %s mode, %s", __version__, settings.mode,
                 settings.broker_url or f"{settings.workers} local workers")
        try:
            yield
        finally:
            await app.state.jobs.close()
            await executor.close()
            if isinstance(cache, RedisCache):
                await cache.close()

    app = FastAPI(title="RLVR verifier", version=__version__, lifespan=lifespan,
                  description="Verifiable rewards for RL: math answers and sandboxed code tests.")
    app.state.settings = settings
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(RequestMetrics)
    app.add_middleware(RequestId)
    for router in (health.router, verify.router, jobs.router, openrlhf.router, status.router):
        app.include_router(router)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]}
                  for e in exc.errors()]
        summary = "; ".join(f"{_field(e['loc'])}: {e['msg']}" for e in errors[:5])
        return JSONResponse({"detail": errors, "error": summary}, status_code=422)

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

    @app.exception_handler(ServiceUnavailable)
    async def _unavailable(_: Request, exc: ServiceUnavailable) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=503, headers={"Retry-After": "2"})

    return app
