"""What the sync and async clients share: settings, request bodies, response parsing, retries.

Like httpx's own sync/async split, everything that does not touch the network lives here, so
the two clients differ only in how they wait for I/O.
"""

from __future__ import annotations

import base64
import email.utils
import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError, to_json
from tenacity import RetryCallState, retry_if_exception, wait_exponential, wait_random
from typing_extensions import TypedDict

from rl_client._errors import (
    InvalidItem,
    SessionLost,
    VerifierError,
    VerifierTimeout,
    VerifierUnavailable,
)
from rlvr_contract.client_settings import client_settings
from rlvr_contract.schemas import (
    CodeItem,
    IndexedResult,
    Info,
    JobCreated,
    JobState,
    JobStatus,
    MathItem,
    Result,
    Status,
    VerifyResponse,
)
from rlvr_contract.tool_schemas import (
    RunCodeRequest,
    RunCodeResponse,
    SessionCreate,
    SessionCreated,
    SessionInfo,
    SessionLimits,
    SessionRun,
    SessionRunRequest,
)

# Statuses that say "not now" rather than "never": the service is busy, restarting, or behind
# a proxy that lost it for a moment. Everything else in 4xx/5xx is final.
RETRYABLE_STATUS = frozenset({429, 502, 503, 504})
# A session's run is sent again only after an answer that says it did not start.
NOT_STARTED_STATUS = frozenset({429, 504})
JSON_BODY = {"Content-Type": "application/json"}
CONNECT_TIMEOUT_S = 10.0
HEALTH_TIMEOUT_S = 5.0

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
H = TypeVar("H", httpx.Client, httpx.AsyncClient)
ItemLike = MathItem | CodeItem | Mapping[str, Any]


class RetryableStatus(Exception):
    """A 429/502/503/504 answer; carries the server's Retry-After, if any."""

    def __init__(self, status_code: int, retry_after: float | None, message: str) -> None:
        super().__init__(f"HTTP {status_code}: {message}")
        self.status_code = status_code
        self.retry_after = retry_after


class StreamInterrupted(Exception):
    """A job stream closed before its job ended (a dropped connection): follow it again."""


class Deadline:
    """One timeout for a whole call, retries and waits included."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds

    def remaining(self) -> float:
        return self._end - time.monotonic()

    def timeout(self) -> httpx.Timeout:
        """The httpx timeout for the next request: whatever is left of the call's budget."""
        remaining = self.remaining()
        if remaining <= 0:
            raise VerifierTimeout(f"the call did not finish within its timeout of "
                                  f"{self.seconds:g} s")
        return httpx.Timeout(remaining, connect=min(remaining, CONNECT_TIMEOUT_S))


@dataclass(frozen=True)
class Chunk:
    """A slice of the caller's items, encoded once as a request body."""

    offset: int
    size: int
    body: bytes


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request and how to read its answer; the clients only add the I/O and the retries.

    `retry_on`: the statuses it is sent again after; `resend`: whether it is sent again after
    a connection lost once the request may have reached the server (not a session's run, which
    may have run). A request that never left (no connection) is always sent again."""

    method: str
    path: str
    parse: Callable[[httpx.Response], T]
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    retry_on: frozenset[int] = RETRYABLE_STATUS
    resend: bool = True


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_body(response: httpx.Response) -> tuple[str, Any]:
    """The server's own words: the `error` summary or `detail` of a JSON body, else the text."""
    try:
        body = response.json()
    except ValueError:
        text = response.text.strip()
        return (text[:500] or response.reason_phrase), text
    if isinstance(body, dict):
        message = body.get("error") or body.get("detail")
        if isinstance(message, list):  # FastAPI validation errors
            message = "; ".join(
                f"{'.'.join(str(p) for p in e.get('loc', []) if p != 'body')}: {e.get('msg')}"
                if isinstance(e, dict) else str(e) for e in message)
        if message:
            return str(message), body
    return json.dumps(body)[:500], body


def _invalid_item(response: httpx.Response, body: Any, offset: int) -> InvalidItem | None:
    """A 422 whose errors sit at `items.N...` of the request, re-said by the item's index in
    the caller's batch (the request carried items `offset`...); None for any other refusal."""
    errors = body.get("detail") if isinstance(body, dict) else None
    located: list[tuple[int, str, str]] = []
    for error in errors if isinstance(errors, list) else []:
        loc = [part for part in error.get("loc", []) if part != "body"] \
            if isinstance(error, dict) else []
        if len(loc) >= 2 and loc[0] == "items" and isinstance(loc[1], int):
            field_path = ".".join(str(part) for part in loc[2:]) or "item"
            message = str(error.get("msg"))
            located.append((loc[1], field_path, message if message.startswith(f"{field_path}:")
                            else f"{field_path}: {message}"))
    if not located:
        return None
    first = min(index for index, _, _ in located)
    problems = "; ".join(message for index, _, message in located if index == first)
    return InvalidItem(
        f"{response.request.method} {response.request.url.path} -> HTTP "
        f"{response.status_code}: items[{offset + first}] is not a valid verifier item: "
        f"{problems}", index=offset + first, status_code=response.status_code, detail=body)


def _checked(items: Sequence[ItemLike]) -> list[MathItem | CodeItem | dict[str, Any]]:
    """The items as a list pydantic-core can write as JSON.

    Only what is not an item at all is refused here; the fields are the server's to check
    (its 422 names the item, translated by `_invalid_item`), which spares the client a second
    validation of every item: most of its CPU per call on large batches.
    """
    checked: list[Any] = list(items)
    for index, item in enumerate(checked):
        if type(item) is dict or isinstance(item, BaseModel):  # any item kind's model
            continue
        if not isinstance(item, Mapping):
            raise InvalidItem(f"items[{index}] is a {type(item).__name__}, not an item "
                              "(a dict, MathItem or CodeItem)", index=index)
        checked[index] = dict(item)
    return checked


def _body(part: list[Any], offset: int) -> bytes:
    """One request body; pydantic-core writes dicts and typed items alike, 5x faster than
    json.dumps. A value JSON cannot carry is reported with its item's index in the batch."""
    try:
        return b'{"items":' + to_json(part) + b"}"
    except PydanticSerializationError:
        for index, item in enumerate(part, offset):
            try:
                to_json(item)
            except PydanticSerializationError as exc:
                raise InvalidItem(f"items[{index}] cannot be sent as JSON: {exc}",
                                  index=index) from exc
        raise


class _Verdict(TypedDict):
    """Just what rewards() needs: pydantic-core skips the rest of each result unparsed, and
    plain dicts cost half of what models do (bench/client_overhead.py)."""

    reward: float | None
    status: Status


class _Verdicts(TypedDict):
    results: list[_Verdict]


_VERDICTS: TypeAdapter[_Verdicts] = TypeAdapter(_Verdicts)


def _decode(model: type[BaseModel] | TypeAdapter[Any], response: httpx.Response) -> Any:
    try:
        if isinstance(model, TypeAdapter):
            return model.validate_json(response.content)
        return model.model_validate_json(response.content)
    except ValidationError as exc:
        name = exc.title if isinstance(model, TypeAdapter) else model.__name__
        raise VerifierError(
            f"{response.request.method} {response.request.url.path}: the server's answer is not "
            f"a valid {name} (is VERIFIER_URL pointing at a verifier?): {exc}",
            status_code=response.status_code) from exc


class ClientCore:
    """Settings and every decision that does not depend on sync or async I/O."""

    def __init__(self, base_url: str | None, api_key: str | None, *, timeout: float | None,
                 max_retries: int | None, chunk_size: int | None, max_concurrency: int | None,
                 backoff_s: float, backoff_max_s: float) -> None:
        environment = client_settings()  # what an argument left as None means
        timeout = environment.timeout_s if timeout is None else timeout
        max_retries = environment.max_retries if max_retries is None else max_retries
        chunk_size = environment.chunk_size if chunk_size is None else chunk_size
        max_concurrency = (environment.max_concurrency if max_concurrency is None
                           else max_concurrency)
        for name, value in (("timeout", timeout), ("chunk_size", chunk_size),
                            ("max_concurrency", max_concurrency)):
            if value <= 0:
                raise ValueError(f"{name} must be positive, got {value!r}")
        if max_retries < 0 or backoff_s < 0 or backoff_max_s < 0:
            raise ValueError("max_retries, backoff_s and backoff_max_s must not be negative")
        self.base_url = (base_url or environment.url).rstrip("/")
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"verifier URL must start with http:// or https://, "
                             f"got {self.base_url!r}")
        api_key = api_key if api_key is not None else environment.api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.chunk_size = chunk_size
        self.max_concurrency = max_concurrency
        self.headers = {"Accept": "application/json"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self._backoff = (wait_exponential(multiplier=backoff_s, max=backoff_max_s)
                         + wait_random(0, backoff_s))

    # ------------------------------------------------------------------ httpx settings

    def http_options(self) -> dict[str, Any]:
        """Keyword arguments for httpx.Client / httpx.AsyncClient."""
        return {
            "base_url": self.base_url,
            "headers": self.headers,
            "timeout": httpx.Timeout(self.timeout, connect=min(self.timeout, CONNECT_TIMEOUT_S)),
            # Room for every concurrent chunk plus the job streams a `stream` call keeps open.
            "limits": httpx.Limits(max_connections=max(64, 2 * self.max_concurrency),
                                   max_keepalive_connections=max(8, self.max_concurrency)),
        }

    def deadline(self, timeout: float | None) -> Deadline:
        seconds = self.timeout if timeout is None else timeout
        if seconds <= 0:
            raise ValueError(f"timeout must be positive, got {seconds!r}")
        return Deadline(seconds)

    # ------------------------------------------------------------------ items and bodies

    def chunks(self, items: Sequence[ItemLike]) -> list[Chunk]:
        """Split the items into request bodies, each encoded once (retries resend it)."""
        if isinstance(items, str | bytes | Mapping | BaseModel):
            raise TypeError("items must be a sequence of items, not a single item")
        checked = _checked(items)
        return [
            Chunk(offset=start, size=len(part), body=_body(part, start))
            for start in range(0, len(checked), self.chunk_size)
            for part in [checked[start:start + self.chunk_size]]
        ]

    # ------------------------------------------------------------------ calls

    def check(self, response: httpx.Response, chunk: Chunk | None = None) -> None:
        """Raise for an error status: retryable ones for the retry loop, the rest as final."""
        if response.is_success:
            return
        message, detail = _error_body(response)
        if response.status_code == 422:
            invalid = _invalid_item(response, detail, chunk.offset if chunk else 0)
            if invalid is not None:
                raise invalid
        if response.status_code in RETRYABLE_STATUS:
            raise RetryableStatus(response.status_code, _retry_after(response), message)
        if response.status_code == 410:
            raise SessionLost(f"{response.request.method} {response.request.url.path} -> HTTP "
                              f"410: {message}", status_code=410, detail=detail)
        hint = {401: " (set VERIFIER_API_KEY or pass api_key=)",
                413: " (lower chunk_size)"}.get(response.status_code, "")
        where = (f" [in the request carrying items {chunk.offset}..{chunk.offset + chunk.size - 1}"
                 f"; indices in the message count from {chunk.offset}]"
                 if chunk is not None and chunk.offset else "")
        raise VerifierError(
            f"{response.request.method} {response.request.url.path} -> HTTP "
            f"{response.status_code}: {message}{hint}{where}",
            status_code=response.status_code, detail=detail)

    def verify_call(self, chunk: Chunk, *, rewards_only: bool = False) -> Call[list[Any]]:
        """POST /v1/verify: typed Results, or with `rewards_only` just the rewards (None for
        an infra_error), read without building the results at all."""

        def parse(response: httpx.Response) -> list[Any]:
            self.check(response, chunk)
            if rewards_only:
                results: list[Any] = _decode(_VERDICTS, response)["results"]
            else:
                results = _decode(VerifyResponse, response).results
            if len(results) != chunk.size:
                raise VerifierError(f"the server returned {len(results)} results for "
                                    f"{chunk.size} items")
            if rewards_only:
                return [None if verdict["status"] is Status.infra_error else verdict["reward"]
                        for verdict in results]
            return results

        return Call("POST", "/v1/verify", parse, chunk.body, {"Content-Type": "application/json"})

    def submit_call(self, chunk: Chunk) -> Call[str]:
        def parse(response: httpx.Response) -> str:
            self.check(response, chunk)
            return _decode(JobCreated, response).job_id

        return Call("POST", "/v1/jobs", parse, chunk.body, {"Content-Type": "application/json"})

    def job_state_call(self, job_id: str) -> Call[JobState]:
        def parse(response: httpx.Response) -> JobState:
            self.check(response)
            return _decode(JobState, response)

        return Call("GET", f"/v1/jobs/{job_id}", parse)

    def info_call(self) -> Call[Info]:
        def parse(response: httpx.Response) -> Info:
            self.check(response)
            return _decode(Info, response)

        return Call("GET", "/v1/info", parse)

    def model_call(self, method: str, path: str, answer: type[M] | None,
                   request: BaseModel | None = None, *, retry_on: frozenset[int] =
                   RETRYABLE_STATUS, resend: bool = True) -> Call[M | None]:
        """A call whose body is `request` and whose answer is an `answer` (None: no body)."""

        def parse(response: httpx.Response) -> M | None:
            self.check(response)
            return None if answer is None else _decode(answer, response)

        body = None if request is None else request.model_dump_json().encode()
        return Call(method, path, parse, body, JSON_BODY if body else {}, retry_on, resend)

    def run_code_call(self, code: str, language: str, stdin: str | None,
                      compile_timeout: float | None, run_timeout: float | None,
                      memory_limit_mb: int | None, files: Mapping[str, bytes | str] | None,
                      fetch_files: Sequence[str]) -> Call[RunCodeResponse | None]:
        limits = given(compile_timeout=compile_timeout, run_timeout=run_timeout,
                       memory_limit_MB=memory_limit_mb)
        request = RunCodeRequest(code=code, language=language, stdin=stdin, **limits,
                                 files=encoded_files(files), fetch_files=list(fetch_files))
        return self.model_call("POST", "/run_code", RunCodeResponse, request)

    def session(self, language: str, ttl_s: float | None, time_s: float | None,
                memory_mb: int | None) -> SessionCore:
        return SessionCore(self, SessionCreate(
            language=language, **given(ttl_s=ttl_s),
            limits=SessionLimits(**given(time_s=time_s, memory_mb=memory_mb))))

    @staticmethod
    def stream_path(job_id: str) -> str:
        return f"/v1/jobs/{job_id}/stream"

    @staticmethod
    def is_healthy(response: httpx.Response) -> bool:
        if response.status_code != 200:
            return False
        try:
            return response.json().get("status") == "ok"
        except (ValueError, AttributeError):
            return False

    # ------------------------------------------------------------------ job streams

    @staticmethod
    def stream_result(line: str, chunk: Chunk, seen: set[int]) -> IndexedResult | None:
        """One NDJSON line -> the result with its index in the caller's list (None: skip it).

        A re-followed stream replays what already finished, so indices seen before are skipped.
        """
        if not line.strip():
            return None
        try:
            result = IndexedResult.model_validate_json(line)
        except ValidationError as exc:
            raise VerifierError(f"unreadable line on the job stream: {line[:200]!r}") from exc
        if not 0 <= result.index < chunk.size:
            raise VerifierError(f"job stream sent index {result.index} for a job of "
                                f"{chunk.size} items")
        if result.index in seen:
            return None
        seen.add(result.index)
        result.index += chunk.offset
        return result

    @staticmethod
    def missing_results(state: JobState, chunk: Chunk, seen: set[int]) -> list[IndexedResult]:
        """After a stream ended early: the results it did not send, or why there are none."""
        if state.status == JobStatus.failed:
            raise VerifierError(f"job {state.job_id} failed on the server: {state.error}")
        if state.status == JobStatus.cancelled:
            raise VerifierError(f"job {state.job_id} was cancelled")
        if state.status != JobStatus.done:
            raise StreamInterrupted(f"stream of job {state.job_id} closed with "
                                    f"{len(seen)}/{chunk.size} results")
        missing = []
        for index, result in enumerate(state.results):
            if index in seen:
                continue
            if result is None:
                raise VerifierError(f"job {state.job_id} is done but result {index} is missing")
            seen.add(index)
            missing.append(IndexedResult(index=chunk.offset + index, **result.model_dump()))
        return missing

    # ------------------------------------------------------------------ retries

    def retry_policy(self, deadline: Deadline, call: Call[Any] | None = None) -> dict[str, Any]:
        """Arguments for tenacity's Retrying / AsyncRetrying (for `call`'s rules, see Call)."""

        def stop(state: RetryCallState) -> bool:
            return (state.attempt_number > self.max_retries
                    or state.upcoming_sleep >= deadline.remaining())

        def retryable(exc: BaseException) -> bool:
            if isinstance(exc, RetryableStatus):
                return call is None or exc.status_code in call.retry_on
            if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
                return True
            return isinstance(exc, httpx.TransportError | StreamInterrupted) and (
                call is None or call.resend)

        return {
            "retry": retry_if_exception(retryable),
            "wait": self._wait,
            "stop": stop,
            "reraise": True,
        }

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, RetryableStatus) and exc.retry_after is not None:
            return exc.retry_after
        return self._backoff(state)

    @contextmanager
    def translate_errors(self, deadline: Deadline) -> Iterator[None]:
        """Turn what is left after the retries into the client's own exceptions."""
        try:
            yield
        except RetryableStatus as exc:
            raise VerifierUnavailable(
                f"the verifier at {self.base_url} is busy or unavailable: {exc} (gave up after "
                f"up to {self.max_retries} retries within the call's timeout of "
                f"{deadline.seconds:g} s)", status_code=exc.status_code) from exc
        except (httpx.TransportError, StreamInterrupted) as exc:
            if deadline.remaining() <= 0 or isinstance(exc, httpx.ReadTimeout):
                raise VerifierTimeout(f"the call to {self.base_url} did not finish within its "
                                      f"timeout of {deadline.seconds:g} s") from exc
            raise VerifierUnavailable(
                f"cannot reach the verifier at {self.base_url} ({type(exc).__name__}: {exc}; "
                f"gave up after up to {self.max_retries} retries); is `verifier serve` running "
                "there? (set VERIFIER_URL or pass base_url=)") from exc


def rewards_of(results: Sequence[Result]) -> list[float | None]:
    """Rewards to train on: None marks an `infra_error`, which a trainer must mask."""
    return [None if r.status == Status.infra_error else r.reward for r in results]


class ClientBase(Generic[H]):
    """The options both clients take and the core they share; subclasses add the I/O."""

    _http_class: type[H]

    def __init__(self, base_url: str | None = None, api_key: str | None = None, *,
                 timeout: float | None = None, max_retries: int | None = None,
                 chunk_size: int | None = None, max_concurrency: int | None = None,
                 backoff_s: float = 0.5, backoff_max_s: float = 30.0) -> None:
        self._core = ClientCore(base_url, api_key, timeout=timeout, max_retries=max_retries,
                                chunk_size=chunk_size, max_concurrency=max_concurrency,
                                backoff_s=backoff_s, backoff_max_s=backoff_max_s)
        self._http: H = self._http_class(**self._core.http_options())

    @property
    def base_url(self) -> str:
        return self._core.base_url


def given(**options: Any) -> dict[str, Any]:
    """The options a caller gave (not None): the others take the contract's defaults, which
    the models in tool_schemas.py hold, and nothing here repeats."""
    return {name: value for name, value in options.items() if value is not None}


def encoded_files(files: Mapping[str, bytes | str] | None) -> dict[str, str]:
    """Files for a request: path -> base64 of the bytes (text is sent as UTF-8)."""
    return {path: base64.b64encode(data.encode() if isinstance(data, str) else data).decode()
            for path, data in (files or {}).items()}


class SessionCore:
    """What a session handle holds and the calls it makes; Session and AsyncSession (in
    _sync.py, _async.py) add the I/O. Created on the server when first used (or entered)."""

    def __init__(self, core: ClientCore, request: SessionCreate) -> None:
        self._core = core
        self.request = request
        self.created: SessionCreated | None = None
        self.closed = False

    @property
    def session_id(self) -> str:
        if self.created is None:
            raise RuntimeError("the session is not open yet (use it in a `with` block, or call "
                               "open())")
        return self.created.session_id

    def create_call(self) -> Call[SessionCreated | None]:
        return self._core.model_call("POST", "/v1/sessions", SessionCreated, self.request)

    def run_call(self, code: str, stdin: str | None, timeout_s: float | None,
                 files: Mapping[str, bytes | str] | None,
                 fetch_files: Sequence[str]) -> Call[SessionRun | None]:
        request = SessionRunRequest(code=code, stdin=stdin, timeout_s=timeout_s,
                                    files=encoded_files(files), fetch_files=list(fetch_files))
        return self._core.model_call("POST", f"/v1/sessions/{self.session_id}/run", SessionRun,
                                     request, retry_on=NOT_STARTED_STATUS, resend=False)

    def info_call(self) -> Call[SessionInfo | None]:
        return self._core.model_call("GET", f"/v1/sessions/{self.session_id}", SessionInfo)

    def delete_call(self) -> Call[None]:
        return self._core.model_call("DELETE", f"/v1/sessions/{self.session_id}", None)
