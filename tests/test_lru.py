"""The one LRU: bounded by entries and by weight, least recently used out first."""

from __future__ import annotations

import pytest

from verifier.service.lru import LRU


def test_least_recently_used_goes_first() -> None:
    cache: LRU[str, int] = LRU(2)
    cache["a"], cache["b"] = 1, 2
    assert cache.get("a") == 1  # a use: b is now the oldest
    cache["c"] = 3
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3
    cache.touch("a")
    assert "c" in cache  # `in` is no use: c is still the oldest
    cache["d"] = 4
    assert "c" not in cache and len(cache) == 2
    assert cache.get("missing") is None


def test_weight_bound_and_eviction_hook() -> None:
    dropped: list[tuple[str, int]] = []
    cache: LRU[str, int] = LRU(10, max_weight=100, weigh=int,
                               evicted=lambda key, value: dropped.append((key, value)))
    cache["a"], cache["b"] = 60, 30
    cache["c"] = 20  # 110 in all: a goes
    assert dropped == [("a", 60)] and cache.weight == 50
    cache["b"] = 10  # replacing re-weighs
    assert cache.weight == 30
    cache["huge"] = 500  # alone over the bound: it stays, everything else goes
    assert "huge" in cache and len(cache) == 1 and cache.weight == 500
    assert [key for key, _ in dropped] == ["a", "c", "b"]


def test_zero_entries_keeps_nothing() -> None:
    cache: LRU[str, int] = LRU(0)
    cache["a"] = 1
    assert len(cache) == 0 and cache.get("a") is None


def test_max_weight_needs_weigh() -> None:
    with pytest.raises(ValueError, match="weigh"):
        LRU(1, max_weight=1)
