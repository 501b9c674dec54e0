"""The synchronous client: the shared core plus blocking httpx I/O (threads for concurrency)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Mapping, Sequence
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
    SessionCore,
)
from rl_client._errors import VerifierError
from rlvr_contract.schemas import IndexedResult, Info, Result
from rlvr_contract.tool_schemas import RunCodeResponse, SessionInfo, SessionRun

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

    def run_code(self, code: str, language: str = "python", *, stdin: str | None = None,
                 compile_timeout: float | None = None, run_timeout: float | None = None,
                 memory_limit_mb: int | None = None, files: Mapping[str, bytes | str] | None = None,
                 fetch_files: Sequence[str] = (), timeout: float | None = None
                 ) -> RunCodeResponse:
        """Run one program (POST /run_code, SandboxFusion's contract): `files` are written into
        its working directory first, `fetch_files` come back base64-encoded in `.files`.
        Retried while the service is too busy to start it (504, 429), honouring Retry-After.
        Limits left unset are the contract's defaults
        (rlvr_contract.tool_schemas.RunCodeRequest)."""
        call = self._core.run_code_call(code, language, stdin, compile_timeout, run_timeout,
                                        memory_limit_mb, files, fetch_files)
        return self._send(call, self._core.deadline(timeout))

    def session(self, language: str = "python", *, ttl_s: float | None = None,
                time_s: float | None = None, memory_mb: int | None = None) -> Session:
        """A stateful session (a Python interpreter in the jail, kept between runs), opened
        when entered: `with client.session() as s: s.run("x = 1"); s.run("x + 1").result`.
        `ttl_s` is its idle timeout, `time_s` and `memory_mb` each run's limits; unset, the
        contract's defaults (rlvr_contract.tool_schemas.SessionCreate)."""
        return Session(self, self._core.session(language, ttl_s, time_s, memory_mb))

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
            return Retrying(**self._core.retry_policy(deadline, call))(self._request, call,
                                                                       deadline)

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


class Session:
    """A session of VerifierClient.session(); a context manager that deletes it on exit."""

    def __init__(self, client: VerifierClient, core: SessionCore) -> None:
        self._client = client
        self._core = core

    @property
    def session_id(self) -> str:
        return self._core.session_id

    def open(self) -> Session:
        """Create it on the server (entering the `with` block does)."""
        if self._core.created is None:
            self._core.created = self._call(self._core.create_call(), None)
        return self

    def run(self, code: str, *, stdin: str | None = None, timeout_s: float | None = None,
            files: Mapping[str, bytes | str] | None = None, fetch_files: Sequence[str] = (),
            timeout: float | None = None) -> SessionRun:
        """Run code in the session: its variables, imports and files stay for the next run.
        `.status` says how it ended, `.result` is a final expression's repr, `.restarted`
        that the state was lost (a limit killed it). SessionLost if its worker is gone."""
        self.open()
        return self._call(self._core.run_call(code, stdin, timeout_s, files, fetch_files),
                          timeout)

    def info(self, *, timeout: float | None = None) -> SessionInfo:
        self.open()
        return self._call(self._core.info_call(), timeout)

    def close(self) -> None:
        """Delete it (its interpreter, processes and files); a session already gone is fine."""
        if self._core.created is None or self._core.closed:
            return
        self._core.closed = True
        try:
            self._call(self._core.delete_call(), None)
        except VerifierError as exc:
            if exc.status_code not in (404, 410):
                raise

    def _call(self, call: Call[T], timeout: float | None) -> T:
        return self._client._send(call, self._client._core.deadline(timeout))

    def __enter__(self) -> Session:
        return self.open()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
