"""What the framework adapters share: labels to items, and one client per process (and loop)."""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

from pydantic import ValidationError

from rl_client._async import AsyncVerifierClient
from rl_client._sync import VerifierClient
from rlvr_contract.client_settings import client_settings
from rlvr_contract.contest_rows import contest_item, is_contest_row
from rlvr_contract.schemas import CodeItem, MathItem, Result, Status, item_from_label, label_object

_ITEM_KEYS = frozenset({"kind", "tests", "answer"})
T = TypeVar("T")


def plain(value: Any) -> Any:
    """Numpy arrays/scalars (how verl and pandas hand over parquet columns) -> Python values."""
    if isinstance(value, Mapping):
        return {key: plain(inner) for key, inner in value.items()}
    if isinstance(value, list | tuple):
        return [plain(inner) for inner in value]
    if hasattr(value, "tolist"):
        return plain(value.tolist())
    return value


def build_item(response: str, label: Any, *, kind: str | None = None,
               language: str | None = None, where: str = "") -> MathItem | CodeItem:
    """One item from a completion and its dataset label.

    The label is a math reference answer, a whole item (dict or JSON string with `kind`,
    `tests` or `answer`), a competitive-programming row (see _contest.py), or, when `kind` is
    "code", the tests alone in any shape the schema accepts (v1, APPS/TACO `inputs`/`outputs`,
    HumanEval, MBPP; dict or JSON string).
    """
    label = plain(label)
    if label is None:
        raise ValueError(f"{where}no label (reference answer or tests) for this sample")
    try:
        decoded = label_object(label)
    except ValueError as exc:  # NaN or nesting too deep in the label's JSON
        raise ValueError(f"{where}{exc}") from None
    if decoded is not None and is_contest_row(decoded):  # Codeforces, CodeContests+, IOI rows
        try:
            label = decoded = {"kind": "code", **contest_item(decoded)}
        except (ValueError, TypeError, AttributeError) as exc:
            raise ValueError(f"{where}cannot read the contest row: {exc}") from exc
    if kind == "code" and decoded is not None and not (_ITEM_KEYS & decoded.keys()):
        label = {"kind": "code", "tests": decoded}
        decoded = label
    if kind == "code" and decoded is None:
        raise ValueError(f"{where}a code sample needs tests (a dict or JSON object), "
                         f"got {str(label)[:80]!r}")
    if language and decoded is not None and "language" not in decoded:
        label = {**decoded, "language": language}
    try:
        return item_from_label(response, label, default_kind="code" if kind == "code" else "math")
    except (ValidationError, ValueError) as exc:
        raise ValueError(f"{where}cannot build a verifier item from label "
                         f"{str(label)[:80]!r}: {exc}") from exc


def training_reward(result: Result, infra_error_score: float) -> float:
    """For frameworks that cannot mask a sample: an infra_error scores `infra_error_score`."""
    if result.status == Status.infra_error or result.reward is None:
        return infra_error_score
    return result.reward


class Coalescer:
    """Merges items scored concurrently on one event loop into one verify call.

    verl's reward loop calls the reward function once per sample, all at once; without this
    each sample would be its own HTTP request. Items arriving within `linger_s` of each other
    (or until `max_items`) go out together, and each caller gets its own result back.
    """

    def __init__(self, client: AsyncVerifierClient, *, linger_s: float = 0.005,
                 max_items: int = 4096) -> None:
        self._client = client
        self._linger_s = linger_s
        self._max_items = max_items
        self._pending: list[tuple[MathItem | CodeItem, asyncio.Future[Result]]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._sending: set[asyncio.Task[None]] = set()

    async def verify(self, item: MathItem | CodeItem) -> Result:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Result] = loop.create_future()
        self._pending.append((item, future))
        if len(self._pending) >= self._max_items:
            self._flush()
        elif self._timer is None:
            self._timer = loop.call_later(self._linger_s, self._flush)
        return await future

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        batch, self._pending = self._pending, []
        task = asyncio.ensure_future(self._send(batch))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _send(self, batch: list[tuple[MathItem | CodeItem,
                                            asyncio.Future[Result]]]) -> None:
        try:
            results = await self._client.verify([item for item, _ in batch])
        except Exception as exc:  # every caller of this batch sees the failure
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        for (_, future), result in zip(batch, results, strict=True):
            if not future.done():
                future.set_result(result)


_lock = threading.Lock()
_sync_clients: dict[Hashable, VerifierClient] = {}
_async_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop,
                                          dict[Hashable, AsyncVerifierClient]] = (
    weakref.WeakKeyDictionary())
_coalescers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop,
                                       dict[Hashable, Coalescer]] = weakref.WeakKeyDictionary()


def _key(options: dict[str, Any]) -> Hashable:
    """Settings plus the environment the client would read, so changing either is honoured."""
    return tuple(sorted(options.items())), client_settings()


def shared_client(**options: Any) -> VerifierClient:
    """One thread-safe client per process and settings, reused across reward calls."""
    key = _key(options)
    with _lock:
        if key not in _sync_clients:
            _sync_clients[key] = VerifierClient(**options)
        return _sync_clients[key]


def shared_async_client(**options: Any) -> AsyncVerifierClient:
    """One async client per event loop and settings (httpx async pools belong to one loop)."""
    return _per_loop(_async_clients, options, lambda: AsyncVerifierClient(**options))


def shared_coalescer(**options: Any) -> Coalescer:
    """One Coalescer per event loop and settings, over that loop's shared client."""
    return _per_loop(_coalescers, options, lambda: Coalescer(shared_async_client(**options)))


def _per_loop(registry: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Hashable, T]],
              options: dict[str, Any], make: Callable[[], T]) -> T:
    """The running loop's object for these settings, made on first use."""
    per_loop = registry.setdefault(asyncio.get_running_loop(), {})
    key = _key(options)
    if key not in per_loop:
        per_loop[key] = make()
    return per_loop[key]
