"""A scripted reverse proxy in front of a real verifier, for the client's failure-mode tests.

It runs a real uvicorn on a free loopback port in a background thread and forwards to the
real service, except where a test scripts a failure: answer 429/503 first, answer late, cut
a job stream mid-way, or turn chosen results into `infra_error`. It records every request.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route


@dataclass
class Seen:
    method: str
    path: str
    at: float
    body: Any
    raw: bytes = b""  # the body exactly as the client sent it
    headers: dict[str, str] = field(default_factory=dict)
    reply: Any = None  # the JSON answer to a /v1/verify request, as the client received it


@dataclass
class Script:
    """What the proxy does to the requests it gets; tests set fields, the proxy consumes them."""

    refusals: list[tuple[int, dict[str, str]]] = field(default_factory=list)  # answered first
    delay_s: float = 0.0  # before forwarding each request
    cut_stream_after: int | None = None  # abort one job stream's connection after N lines
    end_stream_after: int | None = None  # end one job stream cleanly (and early) after N lines
    infra_error_at: set[int] = field(default_factory=set)  # results of /v1/verify to replace
    seen: list[Seen] = field(default_factory=list)
    in_flight: int = 0  # requests being answered now (a job stream: until it ends)
    most_in_flight: int = 0

    def requests_to(self, path_part: str) -> list[Seen]:
        return [s for s in self.seen if path_part in s.path]


class ScriptedProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.script = Script()
        self._http: httpx.AsyncClient | None = None
        app = Starlette(routes=[Route("/{path:path}", self._handle,
                                      methods=["GET", "POST", "DELETE"])])
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self._thread = threading.Thread(target=self._server.run,
                                        kwargs={"sockets": [self._sock]}, daemon=True)

    def __enter__(self) -> ScriptedProxy:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise TimeoutError("scripted proxy did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.should_exit = True
        self._thread.join(15)
        self._sock.close()

    async def _handle(self, request: Request) -> Response:
        script = self.script
        script.in_flight += 1
        script.most_in_flight = max(script.most_in_flight, script.in_flight)
        response = None
        try:
            response = await self._answer(request)
            return response
        finally:
            if not isinstance(response, StreamingResponse):  # a stream ends in _relay
                script.in_flight -= 1

    async def _answer(self, request: Request) -> Response:
        script = self.script
        raw = await request.body()
        seen = Seen(request.method, request.url.path, time.monotonic(),
                    json.loads(raw) if raw else None, raw, dict(request.headers))
        script.seen.append(seen)
        if script.refusals:
            status, headers = script.refusals.pop(0)
            return JSONResponse({"detail": f"scripted {status}"}, status, headers)
        if script.delay_s:
            await asyncio.sleep(script.delay_s)
        if self._http is None:
            self._http = httpx.AsyncClient(base_url=self.upstream, timeout=120)
        upstream = self._http.build_request(
            request.method, request.url.path, content=raw,
            headers={k: v for k, v in request.headers.items()
                     if k.lower() in ("content-type", "authorization")})
        if request.url.path.endswith("/stream"):
            response = await self._http.send(upstream, stream=True)
            return StreamingResponse(self._relay(response), response.status_code,
                                     media_type=response.headers.get("content-type"))
        response = await self._http.send(upstream)
        body = response.content
        if request.url.path == "/v1/verify" and script.infra_error_at and response.is_success:
            results = response.json()["results"]
            for index in script.infra_error_at:
                results[index] = {"id": results[index]["id"], "reward": None,
                                  "status": "infra_error", "detail": {"error": "scripted"},
                                  "elapsed_ms": 0.0}
            body = json.dumps({"results": results}).encode()
        if request.url.path == "/v1/verify" and response.is_success:
            seen.reply = json.loads(body)
        return Response(body, response.status_code,
                        media_type=response.headers.get("content-type"),
                        headers={k: v for k, v in response.headers.items()
                                 if k.lower() == "retry-after"})

    async def _relay(self, response: httpx.Response) -> AsyncIterator[bytes]:
        script = self.script
        cut, end = script.cut_stream_after, script.end_stream_after
        script.cut_stream_after = script.end_stream_after = None  # each applies to one stream
        sent = 0
        try:
            async for line in response.aiter_lines():
                if cut is not None and sent == cut:
                    raise ConnectionAbortedError("scripted cut of the job stream")
                if end is not None and sent == end:
                    return
                yield (line + "\n").encode()
                sent += 1
        finally:
            script.in_flight -= 1
            await response.aclose()
