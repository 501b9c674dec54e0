"""The verification service: admission, de-duplication, caching, chunking, fan-out.

Routers stay thin and call this; the execution back end (process pool or Celery) only ever
sees chunks of unique, uncached items.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import math
import time
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from rlvr_contract.schemas import AnyItem, Result, Status
from verifier.config import Settings
from verifier.executors import Executor
from verifier.kinds.kind import Cost
from verifier.kinds.registry import admission_problem, clamp_item, item_cost
from verifier.service import metrics
from verifier.service.budget import budget_problem
from verifier.service.cache import ResultCache, cache_key

log = logging.getLogger(__name__)


def _batched(keys: list[str], size: int) -> list[tuple[str, ...]]:
    return [tuple(keys[i:i + size]) for i in range(0, len(keys), size)]


def _guided(keys: list[str], most: int, slots: int) -> list[tuple[str, ...]]:
    """Chunks of at most `most` keys, each a 1/(2 slots) share of what is left: a large batch
    goes out in full chunks (a chunk's round trip is paid once per chunk), a small one and the
    end of any batch in smaller ones, so that `slots` workers all have work and run out of it
    together."""
    chunks: list[tuple[str, ...]] = []
    start = 0
    while start < len(keys):
        size = max(1, min(most, math.ceil((len(keys) - start) / (2 * slots))))
        chunks.append(tuple(keys[start:start + size]))
        start += size
    return chunks


def item_problem(item: AnyItem, settings: Settings) -> str | None:
    """Why this item cannot be served ("field.path: why"), or None; clamps its limits to the
    server's maxima (in place) on the way."""
    return _admitted_cost(item, settings)[0]


_NO_COST = Cost(0.0, 0.0)


def _admitted_cost(item: AnyItem, settings: Settings) -> tuple[str | None, Cost]:
    """`item_problem`, and what the item's limits grant (nothing where it has a problem)."""
    problem = admission_problem(item, settings)
    if problem:
        return problem, _NO_COST
    clamp_item(item, settings)
    cost = item_cost(item, settings)
    return budget_problem(cost, settings), cost


@dataclass(frozen=True)
class Admitted:
    """A batch admission checked, clamped and reserved backlog for: what `stream` scores and
    `release` gives back. Each item's wall time, as admission worked it out, makes up the
    deadline of the chunk it goes out in."""

    items: Sequence[AnyItem]
    wall_s: Sequence[float]


class Overloaded(Exception):
    """The backlog bound would be exceeded: HTTP 429 with Retry-After."""

    def __init__(self, backlog: int, bound: int, retry_after_s: int) -> None:
        super().__init__(f"backlog of {backlog} items is over the bound of {bound}; "
                         f"retry in {retry_after_s} s")
        self.retry_after_s = retry_after_s


class TooManyItems(Exception):
    """More items than one request may carry: HTTP 413."""


class InvalidItems(Exception):
    """Items that parse but cannot be served (e.g. an unknown language): HTTP 422."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(e["msg"] for e in errors))
        self.errors = errors


class VerificationService:
    def __init__(self, settings: Settings, executor: Executor, cache: ResultCache) -> None:
        self.settings = settings
        self.executor = executor
        self.cache = cache
        self.backlog = 0
        self._finished_at: collections.deque[float] = collections.deque(maxlen=100_000)
        # Admission's own thread: checking an item can be real work (a compressed test set
        # decoded, a megabyte of tests parsed), and on the event loop it held every other
        # request, /health too. One thread: admission's caches are read by one at a time.
        self._admission = ThreadPoolExecutor(1, thread_name_prefix="admission")

    async def close(self) -> None:
        """End admission's thread, once what it is checking is done."""
        await asyncio.to_thread(self._admission.shutdown)

    def admit(self, items: Sequence[AnyItem]) -> Admitted:
        """Validate, clamp to the server's limits (in place) and reserve backlog for a batch;
        streaming it (or `release`) gives the backlog back."""
        admitted = Admitted(items, self._check(items))
        self._reserve(items)
        return admitted

    async def admit_off_loop(self, items: Sequence[AnyItem]) -> Admitted:
        """`admit` for the event loop: the items are checked in admission's thread, the
        backlog reserved on the loop (which alone changes it)."""
        wall_s = await asyncio.get_running_loop().run_in_executor(self._admission, self._check,
                                                                  items)
        self._reserve(items)
        return Admitted(items, wall_s)

    def _check(self, items: Sequence[AnyItem]) -> list[float]:
        """Validate and clamp (in place); each item's wall time. Raises TooManyItems or
        InvalidItems."""
        if len(items) > self.settings.max_items:
            metrics.REJECTED.labels("too_many_items").inc()
            raise TooManyItems(f"items: {len(items)} items is over the limit of "
                               f"{self.settings.max_items} per request")
        errors = []
        total = 0.0
        wall_s = []
        for i, item in enumerate(items):
            problem, cost = _admitted_cost(item, self.settings)
            total += cost.time_s
            wall_s.append(cost.wall_s)
            if problem:  # "field.path: why"
                field, why = problem.split(": ", 1)
                errors.append({"loc": ["body", "items", i, *field.split(".")],
                               "type": "value_error", "msg": f"{field}: {why}"})
        if not errors and total > self.settings.max_request_time_s:
            errors.append({
                "loc": ["body", "items"], "type": "value_error",
                "msg": f"items: the items' cases and time limits add up to {total:g} s of "
                       f"CPU time, over the server's budget of "
                       f"{self.settings.max_request_time_s:g} s per request "
                       "(VERIFIER_MAX_REQUEST_TIME_S)"})
        if errors:
            raise InvalidItems(errors)
        return wall_s

    def _reserve(self, items: Sequence[AnyItem]) -> None:
        """Reserve backlog for an admitted batch; raises Overloaded."""
        if self.backlog and self.backlog + len(items) > self.settings.max_backlog:
            metrics.REJECTED.labels("backlog").inc()
            raise Overloaded(self.backlog, self.settings.max_backlog, self._retry_after_s())
        self.backlog += len(items)
        metrics.BACKLOG.set(self.backlog)

    def release(self, admitted: Admitted) -> None:
        """Give back an admitted batch's backlog that will not be streamed after all."""
        self.backlog -= len(admitted.items)
        metrics.BACKLOG.set(self.backlog)

    def _retry_after_s(self) -> int:
        """Seconds until the current backlog drains at the throughput of the last minute."""
        now = time.monotonic()
        recent = sum(1 for t in self._finished_at if now - t < 60)
        rate = recent / 60 if recent else 1.0
        return max(1, min(300, math.ceil(self.backlog / rate)))

    async def verify(self, admitted: Admitted) -> list[Result]:
        results: list[Result | None] = [None] * len(admitted.items)
        async for index, result in self.stream(admitted):
            results[index] = result
        return [r for r in results if r is not None]

    async def stream(self, admitted: Admitted) -> AsyncIterator[tuple[int, Result]]:
        """Yield (index, result) as results finish."""
        items = admitted.items
        pending = asyncio.Queue[list[tuple[str, dict[str, Any]]] | BaseException]()
        tasks: list[asyncio.Task[None]] = []
        try:
            positions: dict[str, list[int]] = {}
            for index, item in enumerate(items):
                positions.setdefault(cache_key(item), []).append(index)
            metrics.DEDUPLICATED.inc(len(items) - len(positions))
            keys = list(positions)
            misses: list[str] = []
            for key, hit in zip(keys, await self.cache.get_many(keys), strict=True):
                if hit is None:
                    misses.append(key)
                    continue
                metrics.CACHE_HITS.inc(len(positions[key]))
                for index in positions[key]:
                    yield index, self._finish(items[index], hit)
            metrics.CACHE_MISSES.inc(sum(len(positions[k]) for k in misses))

            first_item = {key: items[positions[key][0]] for key in misses}
            wall_s = {key: admitted.wall_s[positions[key][0]] for key in misses}
            code = [k for k in misses if first_item[k].kind == "code"]
            chunks = [*_batched([k for k in misses if first_item[k].kind != "code"],
                               self.settings.math_chunk_size),
                      *(_guided(code, self.settings.code_items_per_chunk, self.executor.slots)
                        if self.executor.slots else
                        _batched(code, self.settings.code_items_per_chunk))]
            log.info("batch of %d items: %d unique, %d cached, %d chunks to score",
                     len(items), len(keys), len(keys) - len(misses), len(chunks))
            tasks = [asyncio.create_task(self._score_chunk(
                chunk, first_item, sum(wall_s[key] for key in chunk), pending))
                     for chunk in chunks]
            for _ in chunks:
                scored = await pending.get()
                if isinstance(scored, BaseException):
                    raise scored
                await self.cache.set_many({key: result for key, result in scored
                                           if result["status"] != Status.infra_error})
                for key, result in scored:
                    for index in positions[key]:
                        yield index, self._finish(items[index], result)
        finally:
            for task in tasks:
                task.cancel()
            self.backlog -= len(items)
            metrics.BACKLOG.set(self.backlog)

    async def _score_chunk(self, keys: tuple[str, ...], first_item: dict[str, AnyItem],
                           wall_s: float, done: asyncio.Queue) -> None:
        """Score one chunk under its deadline: what its items' limits allow (`wall_s`) plus the
        grace. Cancelling this task stops the chunk wherever it is (queued or running)."""
        payload = [first_item[key].model_dump(mode="json") for key in keys]
        started = time.perf_counter()
        try:
            results = await self.executor.run_chunk(payload,
                                                    self.settings.chunk_timeout_s + wall_s)
        except Exception as exc:  # handed to the consumer, which re-raises it
            done.put_nowait(exc)
            return
        metrics.CHUNK_SECONDS.labels(self.executor.mode).observe(time.perf_counter() - started)
        done.put_nowait(list(zip(keys, results, strict=True)))

    def _finish(self, item: AnyItem, result: dict[str, Any]) -> Result:
        metrics.ITEMS.labels(item.kind, result["status"]).inc()
        self._finished_at.append(time.monotonic())
        return Result.model_validate({**result, "id": item.id})
