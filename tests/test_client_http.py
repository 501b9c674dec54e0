"""rl_client against a real `verifier serve` on loopback, sync and async alike.

Failure modes (429/503, slow answers, cut streams, infra errors) come from a scripted proxy in
front of the real service (tests/client_proxy.py); everything else is the real thing.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rl_client import (
    AsyncVerifierClient,
    InvalidItem,
    MathItem,
    Status,
    VerifierClient,
    VerifierError,
    VerifierTimeout,
    VerifierUnavailable,
)
from tests.client_proxy import ScriptedProxy
from tests.procs import Proc, free_port, http_ok, start_server, verifier_cli

KINDS = ["sync", "async"]
FAST_RETRY = {"backoff_s": 0.01, "backoff_max_s": 0.05}


def math_items(n: int) -> list[dict[str, Any]]:
    """Item i is correct iff i % 3 == 0, so any reordering shows up in the rewards."""
    return [{"kind": "math", "id": f"q{i}", "answer": "4",
             "response": f"Adding them up, the answer is \\boxed{{{4 if i % 3 == 0 else 5 + i}}}."}
            for i in range(n)]


def expected_rewards(n: int) -> list[float]:
    return [1.0 if i % 3 == 0 else 0.0 for i in range(n)]


def call(kind: str, url: str, method: str, *args: Any, **options: Any) -> Any:
    """Run one client method with a fresh sync or async client; streams come back as lists."""
    if kind == "sync":
        with VerifierClient(url, **options) as client:
            out = getattr(client, method)(*args)
            return list(out) if method == "stream" else out

    async def run() -> Any:
        async with AsyncVerifierClient(url, **options) as client:
            if method == "stream":
                return [r async for r in client.stream(*args)]
            return await getattr(client, method)(*args)

    return asyncio.run(run())


@pytest.fixture
def proxy(verifier_url: str) -> Iterator[ScriptedProxy]:
    with ScriptedProxy(verifier_url) as running:
        yield running


# --------------------------------------------------------------------------- verify / rewards


@pytest.mark.parametrize("kind", KINDS)
def test_chunks_come_back_in_order(kind: str, proxy: ScriptedProxy) -> None:
    items = math_items(300)
    results = call(kind, proxy.url, "verify", items, chunk_size=32, max_concurrency=4)

    assert [r.id for r in results] == [item["id"] for item in items]
    assert [r.reward for r in results] == expected_rewards(300)
    assert {r.status for r in results} == {Status.correct, Status.wrong}
    bodies = [s.body["items"] for s in proxy.script.requests_to("/v1/verify")]
    assert len(bodies) == 10 and max(len(b) for b in bodies) == 32
    assert sorted(item["id"] for body in bodies for item in body) == sorted(i["id"] for i in items)


@pytest.mark.parametrize("kind", KINDS)
def test_rewards_are_none_only_for_infra_errors(kind: str, proxy: ScriptedProxy) -> None:
    proxy.script.infra_error_at = {1, 4}
    rewards = call(kind, proxy.url, "rewards", math_items(6))
    assert rewards == [1.0, None, 0.0, 1.0, None, 0.0]


@pytest.mark.parametrize("kind", KINDS)
def test_empty_batch_sends_nothing(kind: str, proxy: ScriptedProxy) -> None:
    assert call(kind, proxy.url, "verify", []) == []
    assert proxy.script.seen == []


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("method", ["verify", "rewards", "stream"])
def test_invalid_item_is_named_by_its_index_in_the_batch(kind: str, method: str,
                                                        proxy: ScriptedProxy) -> None:
    items = math_items(10)
    items[7] = {"kind": "math", "response": "\\boxed{1}"}  # no answer, in the third chunk
    with pytest.raises(InvalidItem, match=r"items\[7\] is not a valid.*answer") as caught:
        call(kind, proxy.url, method, items, chunk_size=3, max_concurrency=1)
    assert caught.value.index == 7 and caught.value.status_code == 422
    assert isinstance(caught.value, ValueError)  # bad input, whoever noticed it


@pytest.mark.parametrize("kind", KINDS)
def test_what_is_not_an_item_is_refused_before_sending(kind: str, proxy: ScriptedProxy) -> None:
    with pytest.raises(InvalidItem, match=r"items\[2\] is a str") as caught:
        call(kind, proxy.url, "verify", [*math_items(2), "\\boxed{4}"])
    assert caught.value.index == 2
    with pytest.raises(InvalidItem, match=r"items\[1\] cannot be sent as JSON"):
        call(kind, proxy.url, "verify", [math_items(1)[0], {**math_items(1)[0], "id": object()}])
    assert proxy.script.seen == []


@pytest.mark.parametrize("kind", KINDS)
def test_typed_items_and_dataset_shapes_are_sent_as_they_are(kind: str,
                                                             proxy: ScriptedProxy) -> None:
    typed = [MathItem.model_validate(item) for item in math_items(4)]
    apps_shaped = {"kind": "code", "id": "apps", "response": "print(int(input()) + 1)",
                   "tests": {"inputs": ["1\n"], "outputs": ["2\n"]}}
    results = call(kind, proxy.url, "verify", [*typed, apps_shaped], chunk_size=2)
    assert [r.id for r in results] == ["q0", "q1", "q2", "q3", "apps"]
    assert [r.reward for r in results] == [*expected_rewards(4), 1.0]


@pytest.mark.parametrize("kind", KINDS)
def test_server_refusal_carries_its_message(kind: str, verifier_url: str) -> None:
    bad = {"kind": "code", "response": "print(1)", "language": "cobol",
           "tests": {"type": "stdio", "cases": [{"input": "", "output": "1\n"}]}}
    with pytest.raises(VerifierError) as caught:
        call(kind, verifier_url, "verify", [*math_items(5), bad], chunk_size=4)
    assert caught.value.status_code == 422
    assert "cobol" in str(caught.value) and "items[5]" in str(caught.value)
    assert isinstance(caught.value, InvalidItem) and caught.value.index == 5
    assert not isinstance(caught.value, VerifierUnavailable)


# --------------------------------------------------------------------------- retries


@pytest.mark.parametrize("kind", KINDS)
def test_429_then_200_waits_for_retry_after(kind: str, proxy: ScriptedProxy) -> None:
    proxy.script.refusals = [(429, {"Retry-After": "1"})]
    rewards = call(kind, proxy.url, "rewards", math_items(4), **FAST_RETRY)

    assert rewards == expected_rewards(4)
    first, second = proxy.script.requests_to("/v1/verify")
    assert second.at - first.at >= 1.0  # the backoff alone would have waited ~0.01 s


@pytest.mark.parametrize("kind", KINDS)
def test_503_twice_then_200(kind: str, proxy: ScriptedProxy) -> None:
    proxy.script.refusals = [(503, {}), (503, {})]
    assert call(kind, proxy.url, "rewards", math_items(3), **FAST_RETRY) == expected_rewards(3)
    assert len(proxy.script.requests_to("/v1/verify")) == 3


@pytest.mark.parametrize("kind", KINDS)
def test_busy_past_max_retries_is_unavailable(kind: str, proxy: ScriptedProxy) -> None:
    proxy.script.refusals = [(429, {"Retry-After": "0"})] * 3
    with pytest.raises(VerifierUnavailable) as caught:
        call(kind, proxy.url, "verify", math_items(2), max_retries=2, **FAST_RETRY)
    assert caught.value.status_code == 429
    assert len(proxy.script.requests_to("/v1/verify")) == 3


@pytest.mark.parametrize("kind", KINDS)
def test_unreachable_service_is_unavailable(kind: str) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(VerifierUnavailable, match="cannot reach the verifier at " + url):
        call(kind, url, "verify", math_items(1), max_retries=1, **FAST_RETRY)
    assert call(kind, url, "health") is False


@pytest.mark.parametrize("kind", KINDS)
def test_service_down_then_back(kind: str, tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    assert not http_ok(url + "/healthz")
    outcome: dict[str, Any] = {}

    def score() -> None:
        try:
            outcome["rewards"] = call(kind, url, "rewards", math_items(6), max_retries=8,
                                      backoff_s=0.5, backoff_max_s=4)
        except Exception as exc:  # reported below
            outcome["error"] = exc

    caller = threading.Thread(target=score)
    caller.start()
    time.sleep(1.0)  # the first attempts find nothing listening
    server = Proc(verifier_cli("serve", "--host", "127.0.0.1", "--port", str(port),
                               "--workers", "1"), tmp_path / "late.log").start()
    try:
        caller.join(120)
        assert outcome == {"rewards": expected_rewards(6)}, server.output()
    finally:
        server.stop()


# --------------------------------------------------------------------------- timeouts


def test_timeout_bounds_the_whole_call(proxy: ScriptedProxy) -> None:
    proxy.script.delay_s = 3.0
    with VerifierClient(proxy.url, timeout=300, **FAST_RETRY) as client, \
            pytest.raises(VerifierTimeout, match="within its timeout of 1 s"):
        client.verify(math_items(2), timeout=1)
    assert len(proxy.script.requests_to("/v1/verify")) == 1


def test_async_timeout_bounds_the_whole_call(proxy: ScriptedProxy) -> None:
    proxy.script.delay_s = 3.0

    async def run() -> None:
        async with AsyncVerifierClient(proxy.url, timeout=1, **FAST_RETRY) as client:
            await client.verify(math_items(2))

    with pytest.raises(VerifierTimeout):
        asyncio.run(run())
    assert len(proxy.script.requests_to("/v1/verify")) == 1


# --------------------------------------------------------------------------- streaming


@pytest.mark.parametrize("kind", KINDS)
def test_stream_yields_each_result_once_with_its_index(kind: str, proxy: ScriptedProxy) -> None:
    items = math_items(200)
    streamed = call(kind, proxy.url, "stream", items, chunk_size=64)

    assert sorted(r.index for r in streamed) == list(range(200))
    assert all(r.id == items[r.index]["id"] for r in streamed)
    assert all(r.reward == expected_rewards(200)[r.index] for r in streamed)
    assert len(proxy.script.requests_to("/v1/jobs")) == 8  # 4 submissions + 4 streams


@pytest.mark.parametrize("kind", KINDS)
def test_stream_resumes_after_a_cut_connection(kind: str, proxy: ScriptedProxy) -> None:
    proxy.script.cut_stream_after = 3
    streamed = call(kind, proxy.url, "stream", math_items(40), **FAST_RETRY)

    assert sorted(r.index for r in streamed) == list(range(40))
    assert len([s for s in proxy.script.seen if s.path.endswith("/stream")]) == 2


@pytest.mark.parametrize("kind", KINDS)
def test_stream_closed_early_still_delivers_everything(kind: str, proxy: ScriptedProxy) -> None:
    proxy.script.end_stream_after = 2
    streamed = call(kind, proxy.url, "stream", math_items(30), **FAST_RETRY)
    assert sorted(r.index for r in streamed) == list(range(30))
    assert all(r.reward == expected_rewards(30)[r.index] for r in streamed)


@pytest.mark.parametrize("kind", KINDS)
def test_stream_follows_max_concurrency_chunks_at_a_time(kind: str,
                                                         proxy: ScriptedProxy) -> None:
    proxy.script.delay_s = 0.2  # every request takes a while, so concurrent ones overlap
    streamed = call(kind, proxy.url, "stream", math_items(60), chunk_size=10, max_concurrency=2)
    assert sorted(r.index for r in streamed) == list(range(60))
    assert len(proxy.script.requests_to("/v1/jobs")) == 12  # 6 submissions + 6 streams
    assert proxy.script.most_in_flight == 2


def test_async_stream_can_be_abandoned(proxy: ScriptedProxy) -> None:
    async def first_three() -> list[int]:
        async with AsyncVerifierClient(proxy.url, chunk_size=10) as client:
            got = []
            async for result in client.stream(math_items(50)):
                got.append(result.index)
                if len(got) == 3:
                    break
            return got

    assert len(asyncio.run(first_three())) == 3


# --------------------------------------------------------------------------- service calls


@pytest.mark.parametrize("kind", KINDS)
def test_info_and_health(kind: str, verifier_url: str) -> None:
    info = call(kind, verifier_url, "info")
    assert info.mode == "embedded" and info.max_items > 0
    assert call(kind, verifier_url, "health") is True


def test_url_and_key_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VERIFIER_URL", raising=False)
    assert VerifierClient().base_url == "http://127.0.0.1:8000"
    monkeypatch.setenv("VERIFIER_URL", "http://verifier.internal:9000/")
    assert AsyncVerifierClient().base_url == "http://verifier.internal:9000"
    assert VerifierClient("http://other:1").base_url == "http://other:1"
    with pytest.raises(ValueError, match="http"):
        VerifierClient("verifier.internal:9000")


@pytest.fixture(scope="module")
def keyed_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server that demands the API key `s3cret`."""
    proc, url = start_server(tmp_path_factory.mktemp("keyed"), "--workers", "1",
                             env={"VERIFIER_API_KEYS": "s3cret"})
    yield url
    proc.stop()


@pytest.mark.parametrize("kind", KINDS)
def test_api_key_is_sent_as_bearer(kind: str, keyed_url: str,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VERIFIER_API_KEY", raising=False)
    with pytest.raises(VerifierError, match="401.*VERIFIER_API_KEY") as caught:
        call(kind, keyed_url, "verify", math_items(1))
    assert caught.value.status_code == 401
    assert call(kind, keyed_url, "rewards", math_items(1), api_key="s3cret") == [1.0]
    monkeypatch.setenv("VERIFIER_API_KEY", "s3cret")
    assert call(kind, keyed_url, "rewards", math_items(1)) == [1.0]


def test_bad_settings_are_refused() -> None:
    for bad in ({"chunk_size": 0}, {"max_concurrency": 0}, {"timeout": 0}, {"max_retries": -1}):
        with pytest.raises(ValueError):
            VerifierClient("http://127.0.0.1:1", **bad)
    with VerifierClient("http://127.0.0.1:1") as client, pytest.raises(TypeError):
        client.verify({"kind": "math", "response": "1", "answer": "1"})  # one item, not a list

