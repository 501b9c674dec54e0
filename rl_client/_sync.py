"""The synchronous client: the shared core plus blocking httpx I/O (threads for concurrency)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
from tenacity import Retrying

from rl_client._core import (
    HEALTH_TIMEOUT_S,
    Call,
    Chunk,
    ClientBase,
    Deadline,
    ItemLike,
)
from rl_client.schemas import IndexedResult, Info, Result

T = TypeVar("T")


class VerifierClient(ClientBase[httpx.Client]):
    """Blocking client for the verifier service; see AsyncVerifierClient for the details.

    Safe to share between threads (one connection pool). Large batches go out in chunks of
    `chunk_size` items, up to `max_concurrency` at a time, and come back in order.
    """

    _http_class = httpx.Client

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # ------------------------------------------------------------------ API

    def verify(self, items: Sequence[ItemLike], *, timeout: float | None = None) -> list[Result]:
        """Score `items` (MathItem, CodeItem or plain dicts); one Result per item, in order."""
        return self._scatter(items, timeout, rewards_only=False)

    def rewards(self, items: Sequence[ItemLike], *,
                timeout: float | None = None) -> list[float | None]:
        """Just the rewards; None for an `infra_error` (mask that sample, do not punish it)."""
        return self._scatter(items, timeout, rewards_only=True)

    def stream(self, items: Sequence[ItemLike], *,
               timeout: float | None = None) -> Iterator[IndexedResult]:
        """Yield results as they finish (any order); `.index` is the item's position. Chunks
        are followed `max_concurrency` at a time."""
        deadline = self._core.deadline(timeout)
        chunks = self._core.chunks(items)
        if len(chunks) <= 1:
            for chunk in chunks:
                yield from self._follow(chunk, deadline)
            return
        finished: queue.Queue[IndexedResult | BaseException] = queue.Queue()
        abandoned = threading.Event()

        def pump(chunk: Chunk) -> None:
            try:
                for result in self._follow(chunk, deadline):
                    if abandoned.is_set():
                        return
                    finished.put(result)
            except BaseException as exc:  # handed to the consumer, which re-raises it
                finished.put(exc)

        pool = ThreadPoolExecutor(min(self._core.max_concurrency, len(chunks)))
        try:
            for chunk in chunks:
                pool.submit(pump, chunk)
            for _ in range(sum(chunk.size for chunk in chunks)):
                got = finished.get()
                if isinstance(got, BaseException):
                    raise got
                yield got
        finally:
            abandoned.set()
            pool.shutdown(wait=False, cancel_futures=True)

    def info(self, *, timeout: float | None = None) -> Info:
        """What the service runs: version, mode, languages, request limits."""
        return self._send(self._core.info_call(), self._core.deadline(timeout))

    def health(self, *, timeout: float | None = None) -> bool:
        """True when the service answers /healthz with ok; never raises, never retries."""
        try:
            response = self._http.get("/healthz", timeout=timeout or HEALTH_TIMEOUT_S)
        except httpx.HTTPError:
            return False
        return self._core.is_healthy(response)

    # ------------------------------------------------------------------ I/O

    def _scatter(self, items: Sequence[ItemLike], timeout: float | None, *,
                 rewards_only: bool) -> list[Any]:
        """POST the chunks, `max_concurrency` at a time in threads; results in item order."""
        deadline = self._core.deadline(timeout)

        def send(chunk: Chunk) -> list[Any]:
            return self._send(self._core.verify_call(chunk, rewards_only=rewards_only),
                              deadline)

        chunks = self._core.chunks(items)
        if len(chunks) <= 1:
            parts = [send(chunk) for chunk in chunks]
        else:
            with ThreadPoolExecutor(min(self._core.max_concurrency, len(chunks))) as pool:
                parts = list(pool.map(send, chunks))
        return [result for part in parts for result in part]

    def _send(self, call: Call[T], deadline: Deadline) -> T:
        with self._core.translate_errors(deadline):
            return Retrying(**self._core.retry_policy(deadline))(self._request, call, deadline)

    def _request(self, call: Call[T], deadline: Deadline) -> T:
        response = self._http.request(call.method, call.path, content=call.body,
                                      headers=call.headers, timeout=deadline.timeout())
        return call.parse(response)

    def _follow(self, chunk: Chunk, deadline: Deadline) -> Iterator[IndexedResult]:
        """Submit one chunk as a job and yield its results from the job's NDJSON stream."""
        job_id = self._send(self._core.submit_call(chunk), deadline)
        seen: set[int] = set()
        with self._core.translate_errors(deadline):
            for attempt in Retrying(**self._core.retry_policy(deadline)):
                with attempt:
                    with self._http.stream("GET", self._core.stream_path(job_id),
                                           timeout=deadline.timeout()) as response:
                        if not response.is_success:
                            response.read()
                            self._core.check(response)
                        for line in response.iter_lines():
                            result = self._core.stream_result(line, chunk, seen)
                            if result is not None:
                                yield result
                    if len(seen) < chunk.size:
                        state = self._send(self._core.job_state_call(job_id), deadline)
                        yield from self._core.missing_results(state, chunk, seen)
