"""The embedded pool hands an idle worker process to the task that has waited longest, and,
with nobody waiting, reuses the one used last (warm)."""

from __future__ import annotations

import asyncio

import pytest

from verifier.executors.embedded import _IdleWorkers


def test_a_worker_set_free_goes_to_the_oldest_waiter_not_a_newcomer() -> None:
    async def scenario() -> list[str]:
        pool = _IdleWorkers()
        served: list[str] = []

        async def task(name: str) -> None:
            worker = await pool.get(None)
            served.append(name)
            await asyncio.sleep(0)
            pool.put(worker)

        pool.put("w")  # type: ignore[arg-type]
        first = asyncio.create_task(task("first"))
        waiting = [asyncio.create_task(task(f"waiter{i}")) for i in range(3)]
        await asyncio.sleep(0)  # first holds the worker, the waiters queue
        newcomers = []
        for i in range(3):  # a newcomer each time the worker is put back
            await asyncio.sleep(0)
            newcomers.append(asyncio.create_task(task(f"new{i}")))
        await asyncio.gather(first, *waiting, *newcomers)
        return served

    served = asyncio.run(scenario())
    assert served[:4] == ["first", "waiter0", "waiter1", "waiter2"], served


def test_the_worker_used_last_goes_first_and_a_timed_out_waiter_leaves() -> None:
    async def scenario() -> tuple[str, str]:
        pool = _IdleWorkers()
        for worker in ("cold", "hot"):
            pool.put(worker)  # type: ignore[arg-type]
        picked = await pool.get(None)
        pool.put(picked)
        again = await pool.get(None)
        assert again == picked  # the one used last, again
        other = await pool.get(None)
        with pytest.raises(TimeoutError):
            await pool.get(0.01)  # none idle: it gives up, and does not stay in line
        pool.put(other)
        return picked, await asyncio.wait_for(pool.get(None), 1)

    picked, after = asyncio.run(scenario())
    assert picked == "hot" and after == "cold"
