"""Result cache keyed by a hash of the item.

GRPO samples a group of completions per prompt, and small policies repeat themselves, so
identical items are common. The key covers everything that decides the verdict (kind,
response, answer or tests, language, limits, scoring) and nothing that does not (the id).
Embedded mode keeps an in-memory LRU; distributed mode shares the cache through Redis.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from rlvr_contract.schemas import AnyItem
from verifier.service.lru import LRU

KEY_PREFIX = "verifier:result:"


def cache_key(item: AnyItem) -> str:
    """A hash of the item's JSON form without its id, as pydantic writes it (fields in the
    schema's order; a free-form value's keys in the order the client sent them)."""
    return hashlib.sha256(item.model_dump_json(exclude={"id"}).encode()).hexdigest()


class ResultCache(Protocol):
    async def get_many(self, keys: list[str]) -> list[dict[str, Any] | None]: ...

    async def set_many(self, entries: dict[str, dict[str, Any]]) -> None: ...


class MemoryCache:
    """An LRU in the API process, bounded in entries and in bytes (a result's JSON size: one
    of a thousand cases with their stderr is about a megabyte)."""

    def __init__(self, max_entries: int, max_bytes: int) -> None:
        self._max_bytes = max_bytes if max_entries else 0  # either 0: no cache
        self._entries: LRU[str, tuple[dict[str, Any], int]] = LRU(
            max_entries, max_weight=max_bytes, weigh=lambda entry: entry[1])

    async def get_many(self, keys: list[str]) -> list[dict[str, Any] | None]:
        return [entry[0] if (entry := self._entries.get(key)) else None for key in keys]

    async def set_many(self, entries: dict[str, dict[str, Any]]) -> None:
        if not self._max_bytes:
            return
        for key, value in entries.items():
            size = len(json.dumps(value))
            if size <= self._max_bytes:  # one result bigger than the whole cache is not kept
                self._entries[key] = value, size


class RedisCache:
    """Shared by every API replica; a Redis outage degrades to cache misses, never errors."""

    def __init__(self, url: str, ttl_s: int) -> None:
        self._redis = aioredis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)
        self._ttl_s = ttl_s

    async def get_many(self, keys: list[str]) -> list[dict[str, Any] | None]:
        if not keys:
            return []
        try:
            values = await self._redis.mget([KEY_PREFIX + k for k in keys])
        except (RedisError, OSError):
            return [None] * len(keys)
        return [json.loads(v) if v else None for v in values]

    async def set_many(self, entries: dict[str, dict[str, Any]]) -> None:
        if not entries:
            return
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for key, value in entries.items():
                    pipe.set(KEY_PREFIX + key, json.dumps(value), ex=self._ttl_s)
                await pipe.execute()
        except (RedisError, OSError):
            pass

    async def close(self) -> None:
        await self._redis.aclose()
