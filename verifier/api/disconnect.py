"""Work a request stops doing when its client goes away.

A trainer that times out and retries, or a client killed mid-batch, leaves nobody waiting for
the answer; scoring on would only hold workers from the next request. Cancelling the task that
scores the batch stops its chunks in either back end (see `Executor.run_chunk`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

from fastapi import Request

T = TypeVar("T")
log = logging.getLogger(__name__)


class ClientGone(Exception):
    """The client disconnected before the answer was ready (logged as 499, nothing sent)."""


async def unless_disconnected(request: Request, work: Coroutine[Any, Any, T]) -> T:
    """The result of `work`, or ClientGone once the client has gone, `work` cancelled."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if task.cancelled():
        log.info("the client disconnected: its unfinished work was stopped")
        raise ClientGone("the client disconnected; its unfinished work was stopped")
    return task.result()


async def _disconnected(request: Request) -> None:
    """Returns once the server reports the connection gone (the body is read by now, so the
    next ASGI message is the disconnect)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
