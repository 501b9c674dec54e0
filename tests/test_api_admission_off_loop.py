"""Admission checks every item before a batch is taken, and for a compressed test set that means
decoding it (base64, inflate up to the size cap, JSON, the test set's model): seconds for a big
one. On the event loop that held every other request, a health probe too (an orchestrator
then restarts a busy API). The checks run in admission's own thread: the loop answers
meanwhile; a chunk's deadline is made of the costs admission worked out, so no item is
decoded again as its chunk is sent; the thread ends with the app. Shown by order, not by time:
the decoding waits for the health answer.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
import threading
from typing import Any

import httpx

from verifier.api.app import create_app
from verifier.config import Settings
from verifier.kinds.code import testset
from verifier.service import verification
from verifier.service.cache import MemoryCache
from verifier.service.verification import VerificationService

WAIT_S = 30  # how long the decoding waits for the health answer before going on without it


class IdleExecutor:
    """An executor that is healthy and never asked to score (the batch is refused)."""

    mode = "stub"

    async def check_health(self) -> str | None:
        return None

    async def close(self) -> None:
        return None


async def _verify_and_probe(app: Any, item: dict, busy: threading.Event,
                            healthy: threading.Event) -> tuple[httpx.Response, int]:
    """POST the item; once `busy` is set, probe the health route and set `healthy`."""

    async def probe(client: httpx.AsyncClient) -> int:
        while not busy.is_set():
            await asyncio.sleep(0.01)
        status = (await client.get("/healthz")).status_code
        healthy.set()
        return status

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api") as client:
        return await asyncio.gather(client.post("/v1/verify", json={"items": [item]}),
                                    probe(client))


async def test_health_answers_while_a_compressed_test_set_is_decoded(monkeypatch):
    settings = Settings(languages="python")
    app = create_app(settings)
    app.state.service = VerificationService(settings, IdleExecutor(), MemoryCache(16, 1 << 20))
    decoding, healthy = threading.Event(), threading.Event()
    answered_first: list[bool] = []
    real_decode = testset._decode

    def slow_decode(*args: Any) -> Any:
        decoding.set()
        answered_first.append(healthy.wait(WAIT_S))
        return real_decode(*args)

    monkeypatch.setattr(testset, "_decode", slow_decode)
    data = base64.b64encode(gzip.compress(json.dumps({"not": "a test set"}).encode())).decode()
    item = {"kind": "code", "response": "```python\nprint(1)\n```", "language": "python",
            "tests": {"type": "compressed", "data": data}}

    refused, health = await _verify_and_probe(app, item, decoding, healthy)
    assert health == 200
    assert answered_first == [True]
    assert refused.status_code == 422 and "tests.data" in refused.text


def _admission_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name.startswith("admission")]


async def test_the_admission_thread_ends_with_the_app():
    """A service stopped (or an app's tests' lifespans, one after another) leaves no thread."""
    before = set(_admission_threads())
    app = create_app(Settings(languages="python", workers=1))
    async with app.router.lifespan_context(app):
        await app.state.service.admit_off_loop([])
        assert len(set(_admission_threads()) - before) == 1
    assert not set(_admission_threads()) - before


async def test_an_item_is_costed_once(monkeypatch):
    """Admission works out each item's cost, and its chunk's deadline is made of it: the item
    is not costed (a compressed test set not decoded) a second time as its chunk is sent."""
    app = create_app(Settings(languages="python", workers=1))
    costed: list[int] = []
    real_cost = verification.item_cost

    def counted_cost(*args: Any) -> Any:
        costed.append(1)
        return real_cost(*args)

    monkeypatch.setattr(verification, "item_cost", counted_cost)
    items = [{"kind": "math", "response": f"\\boxed{{{n}}}", "answer": "2"} for n in (2, 3)]
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://api") as client:
            scored = await client.post("/v1/verify", json={"items": items})
    assert [r["status"] for r in scored.json()["results"]] == ["correct", "wrong"]
    assert len(costed) == len(items)
