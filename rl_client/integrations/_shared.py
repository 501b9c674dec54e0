"""What the framework adapters share: one client per process (and loop), and coalescing.

Labels to items is the contract's (`rlvr_contract/labels.py`): the service reads them too."""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from rl_client._async import AsyncVerifierClient
from rl_client._sync import VerifierClient
from rlvr_contract.client_settings import client_settings
from rlvr_contract.schemas import CodeItem, MathItem, Result

T = TypeVar("T")


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
