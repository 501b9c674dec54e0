"""The asynchronous client: the shared core plus httpx.AsyncClient (tasks for concurrency)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
from tenacity import AsyncRetrying

from rl_client._core import (
    HEALTH_TIMEOUT_S,
    Call,
    Chunk,
    ClientBase,
    Deadline,
    ItemLike,
    SessionCore,
)
from rl_client._errors import VerifierError
from rlvr_contract.schemas import IndexedResult, Info, Result
from rlvr_contract.tool_schemas import RunCodeResponse, SessionInfo, SessionRun

T = TypeVar("T")


class AsyncVerifierClient(ClientBase[httpx.AsyncClient]):
    """Async client for the verifier service.

    `base_url` defaults to $VERIFIER_URL, then http://127.0.0.1:8000; `api_key` to
    $VERIFIER_API_KEY (sent as `Authorization: Bearer`). `timeout` bounds a whole call, retries
    included. Connection errors, 429, 502, 503 and 504 are retried up to `max_retries` times with
    exponential backoff and jitter (`backoff_s` doubling up to `backoff_max_s`), honouring
    Retry-After; past that, VerifierUnavailable. Other 4xx raise VerifierError with the server's
    message. Batches go out in chunks of `chunk_size` items, `max_concurrency` at a time.
    `timeout`, `max_retries`, `chunk_size` and `max_concurrency` left unset are read from the
    environment (rlvr_contract.client_settings: $VERIFIER_TIMEOUT_S, ...), else their defaults
    there.
    """

    _http_class = httpx.AsyncClient

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # ------------------------------------------------------------------ API

    async def verify(self, items: Sequence[ItemLike], *,
                     timeout: float | None = None) -> list[Result]:
        """Score `items` (MathItem, CodeItem or plain dicts); one Result per item, in order."""
        return await self._scatter(items, timeout, rewards_only=False)

    async def rewards(self, items: Sequence[ItemLike], *,
                      timeout: float | None = None) -> list[float | None]:
        """Just the rewards; None for an `infra_error` (mask that sample, do not punish it)."""
        return await self._scatter(items, timeout, rewards_only=True)

    async def stream(self, items: Sequence[ItemLike], *,
                     timeout: float | None = None) -> AsyncIterator[IndexedResult]:
        """Yield results as they finish (any order); `.index` is the item's position.

        Each chunk becomes a job (POST /v1/jobs) followed on GET /v1/jobs/{id}/stream,
        `max_concurrency` chunks at a time; a dropped stream is followed again without
        repeating results already yielded.
        """
        deadline = self._core.deadline(timeout)
        chunks = self._core.chunks(items)
        finished: asyncio.Queue[IndexedResult | BaseException] = asyncio.Queue()
        limiter = asyncio.Semaphore(self._core.max_concurrency)

        async def pump(chunk: Chunk) -> None:
            try:
                async with limiter:
                    async for result in self._follow(chunk, deadline):
                        finished.put_nowait(result)
            except Exception as exc:  # handed to the consumer, which re-raises it
                finished.put_nowait(exc)

        pumps = [asyncio.create_task(pump(chunk)) for chunk in chunks]
        try:
            for _ in range(sum(chunk.size for chunk in chunks)):
                got = await finished.get()
                if isinstance(got, BaseException):
                    raise got
                yield got
        finally:
            for task in pumps:
                task.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)

    async def run_code(self, code: str, language: str = "python", *, stdin: str | None = None,
                       compile_timeout: float | None = None, run_timeout: float | None = None,
                       memory_limit_mb: int | None = None,
                       files: Mapping[str, bytes | str] | None = None,
                       fetch_files: Sequence[str] = (), timeout: float | None = None
                       ) -> RunCodeResponse:
        """Run one program (POST /run_code); see VerifierClient.run_code."""
        call = self._core.run_code_call(code, language, stdin, compile_timeout, run_timeout,
                                        memory_limit_mb, files, fetch_files)
        return await self._send(call, self._core.deadline(timeout))

    def session(self, language: str = "python", *, ttl_s: float | None = None,
                time_s: float | None = None, memory_mb: int | None = None) -> AsyncSession:
        """A stateful session, opened when entered: `async with client.session() as s:
        await s.run("x = 1")`; see VerifierClient.session."""
        return AsyncSession(self, self._core.session(language, ttl_s, time_s, memory_mb))

    async def info(self, *, timeout: float | None = None) -> Info:
        """What the service runs: version, mode, languages, request limits."""
        return await self._send(self._core.info_call(), self._core.deadline(timeout))

    async def health(self, *, timeout: float | None = None) -> bool:
        """True when the service answers /healthz with ok; never raises, never retries."""
        try:
            response = await self._http.get("/healthz", timeout=timeout or HEALTH_TIMEOUT_S)
        except httpx.HTTPError:
            return False
        return self._core.is_healthy(response)

    # ------------------------------------------------------------------ I/O

    async def _scatter(self, items: Sequence[ItemLike], timeout: float | None, *,
                       rewards_only: bool) -> list[Any]:
        """POST the chunks, `max_concurrency` at a time; results in item order."""
        deadline = self._core.deadline(timeout)
        limiter = asyncio.Semaphore(self._core.max_concurrency)

        async def send(chunk: Chunk) -> list[Any]:
            async with limiter:
                return await self._send(
                    self._core.verify_call(chunk, rewards_only=rewards_only), deadline)

        parts = await _gather_or_cancel([send(chunk) for chunk in self._core.chunks(items)])
        return [result for part in parts for result in part]

    async def _send(self, call: Call[T], deadline: Deadline) -> T:
        with self._core.translate_errors(deadline):
            return await AsyncRetrying(**self._core.retry_policy(deadline, call))(
                self._request, call, deadline)

    async def _request(self, call: Call[T], deadline: Deadline) -> T:
        response = await self._http.request(call.method, call.path, content=call.body,
                                            headers=call.headers, timeout=deadline.timeout())
        return call.parse(response)

    async def _follow(self, chunk: Chunk, deadline: Deadline) -> AsyncIterator[IndexedResult]:
        """Submit one chunk as a job and yield its results from the job's NDJSON stream."""
        job_id = await self._send(self._core.submit_call(chunk), deadline)
        seen: set[int] = set()
        with self._core.translate_errors(deadline):
            async for attempt in AsyncRetrying(**self._core.retry_policy(deadline)):
                with attempt:
                    async with self._http.stream("GET", self._core.stream_path(job_id),
                                                 timeout=deadline.timeout()) as response:
                        if not response.is_success:
                            await response.aread()
                            self._core.check(response)
                        async for line in response.aiter_lines():
                            result = self._core.stream_result(line, chunk, seen)
                            if result is not None:
                                yield result
                    if len(seen) < chunk.size:
                        state = await self._send(self._core.job_state_call(job_id), deadline)
                        for result in self._core.missing_results(state, chunk, seen):
                            yield result


class AsyncSession:
    """A session of AsyncVerifierClient.session(); an async context manager that deletes it
    on exit. The same calls as Session, awaited."""

    def __init__(self, client: AsyncVerifierClient, core: SessionCore) -> None:
        self._client = client
        self._core = core

    @property
    def session_id(self) -> str:
        return self._core.session_id

    async def open(self) -> AsyncSession:
        if self._core.created is None:
            self._core.created = await self._call(self._core.create_call(), None)
        return self

    async def run(self, code: str, *, stdin: str | None = None, timeout_s: float | None = None,
                  files: Mapping[str, bytes | str] | None = None,
                  fetch_files: Sequence[str] = (), timeout: float | None = None) -> SessionRun:
        await self.open()
        return await self._call(self._core.run_call(code, stdin, timeout_s, files, fetch_files),
                                timeout)

    async def info(self, *, timeout: float | None = None) -> SessionInfo:
        await self.open()
        return await self._call(self._core.info_call(), timeout)

    async def close(self) -> None:
        if self._core.created is None or self._core.closed:
            return
        self._core.closed = True
        try:
            await self._call(self._core.delete_call(), None)
        except VerifierError as exc:
            if exc.status_code not in (404, 410):
                raise

    async def _call(self, call: Call[T], timeout: float | None) -> T:
        return await self._client._send(call, self._client._core.deadline(timeout))

    async def __aenter__(self) -> AsyncSession:
        return await self.open()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()


async def _gather_or_cancel(awaitables: list[Awaitable[T]]) -> list[T]:
    """Like asyncio.gather, but the first failure cancels the rest instead of orphaning them."""
    tasks = [asyncio.ensure_future(a) for a in awaitables]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
