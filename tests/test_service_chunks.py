"""How a batch's code items are cut into chunks: full chunks while there is plenty left, smaller
ones toward the end (and for a small batch), so that every worker of the pool has work and all
run out of it together; in order, each item once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.config import Settings
from verifier.service.cache import MemoryCache
from verifier.service.verification import VerificationService, _guided


@pytest.mark.parametrize("slots", [1, 2, 3, 16])
@pytest.mark.parametrize("most", [1, 4, 8])
def test_guided_chunks_cover_the_batch_in_order_and_shrink_to_single_items(slots: int,
                                                                           most: int) -> None:
    for count in range(0, 300, 7):
        keys = [f"k{i}" for i in range(count)]
        chunks = _guided(keys, most, slots)
        assert [key for chunk in chunks for key in chunk] == keys
        sizes = [len(chunk) for chunk in chunks]
        assert all(1 <= size <= most for size in sizes)
        assert sizes == sorted(sizes, reverse=True)
        # the last chunks are single items: no worker is left with a long chunk at the end
        tail = min(count, 2 * slots - 1)
        assert sizes[len(sizes) - tail:] == [1] * tail
        if count >= slots:  # a small batch still reaches every worker
            assert len(chunks) >= slots


def test_a_large_batch_goes_out_in_full_chunks() -> None:
    sizes = [len(chunk) for chunk in _guided([str(i) for i in range(1000)], 8, 2)]
    assert sizes.count(8) >= 1000 // 8 - 3
    assert len(sizes) <= 1000 // 8 + 10


class RecordingExecutor:
    """Scores every item correct and records the chunks it was handed."""

    mode = "stub"

    def __init__(self, slots: int | None) -> None:
        self.slots = slots
        self.chunks: list[int] = []

    async def run_chunk(self, items: list[dict[str, Any]], deadline_s: float
                        ) -> list[dict[str, Any]]:
        self.chunks.append(len(items))
        return [{"status": "correct", "reward": 1.0, "elapsed_ms": 1.0, "detail": {}}
                for _ in items]


def _chunks_of_a_batch(slots: int | None, count: int, **settings_: Any) -> list[int]:
    settings = Settings(languages="python", **({"code_chunk_size": 8} | settings_))
    executor = RecordingExecutor(slots)
    service = VerificationService(settings, executor, MemoryCache(1024, 1 << 20))  # type: ignore[arg-type]
    items = [CodeItem(language="python", response=f"print({i})",
                      tests={"type": "stdio", "cases": [{"input": "", "output": f"{i}\n"}]})
             for i in range(count)]

    async def scenario() -> list[int]:
        results = await service.verify(service.admit(items))
        await service.close()
        assert [r.status.value for r in results] == ["correct"] * count
        return executor.chunks

    return sorted(asyncio.run(scenario()), reverse=True)


def test_the_embedded_pool_gets_guided_chunks_a_distributed_one_fixed_ones() -> None:
    assert _chunks_of_a_batch(2, 6) == [2, 1, 1, 1, 1]  # both processes busy at once
    assert _chunks_of_a_batch(2, 40) == [8, 8, 6, 5, 4, 3, 2, 1, 1, 1, 1]
    assert _chunks_of_a_batch(None, 20) == [8, 8, 4]  # workers unknown: the configured size


def test_unset_chunk_size_is_the_modes_default() -> None:
    """Embedded: guided chunks of up to 16. Distributed (the workers unknown): all of 4, so that a
    small batch still reaches several workers."""
    assert _chunks_of_a_batch(2, 80, code_chunk_size=None) == [
        16, 16, 12, 9, 7, 5, 4, 3, 2, 2, 1, 1, 1, 1]
    distributed = {"code_chunk_size": None, "broker_url": "redis://127.0.0.1:1/0"}
    assert Settings(**distributed).code_items_per_chunk == 4
    assert _chunks_of_a_batch(None, 8, **distributed) == [4, 4]
