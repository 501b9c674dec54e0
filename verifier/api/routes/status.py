"""The status page at `/`: live throughput, queue depth, latency, verdicts and workers seen.

What an operator keeps open in a browser tab (see verifier/web/page.py); `/status.json` is the
same view for scripts. The router's lifespan samples the metrics (verifier/web/history.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import HTMLResponse

from verifier.api.deps import require_browser_key
from verifier.web.history import StatusHistory, StatusView
from verifier.web.page import render_page, render_panel


@asynccontextmanager
async def _sampling(app: FastAPI) -> AsyncIterator[None]:
    history = StatusHistory()
    app.state.status_history = history
    sampler = asyncio.create_task(history.run())
    try:
        yield
    finally:
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler


router = APIRouter(lifespan=_sampling, tags=["status"],
                   dependencies=[Depends(require_browser_key)])


def _view(request: Request) -> StatusView:
    settings = getattr(request.app.state, "settings", None)
    return request.app.state.status_history.view(getattr(settings, "mode", "unknown"))


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def status_page(request: Request) -> HTMLResponse:
    return HTMLResponse(render_page(_view(request)), headers={"Cache-Control": "no-store"})


@router.get("/status/panel", response_class=HTMLResponse, include_in_schema=False)
async def status_panel(request: Request) -> HTMLResponse:
    return HTMLResponse(render_panel(_view(request)), headers={"Cache-Control": "no-store"})


@router.get("/status.json")
async def status_json(request: Request) -> dict:
    """The status page's numbers: throughput, queue depth, latency, verdicts, workers."""
    return asdict(_view(request))
