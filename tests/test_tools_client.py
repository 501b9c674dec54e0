"""The client's tool calls, sync and async, against a real server (through the scripted proxy
where a failure is scripted): run_code, sessions as context managers, retries on 504 and 429
honouring Retry-After, a session's run never sent twice after an answer that may mean it ran,
SessionLost for a 410."""

from __future__ import annotations

import asyncio
import base64
import shutil
from collections.abc import Iterator

import httpx
import pytest

import rl_client
from rl_client import (
    AsyncVerifierClient,
    RunCodeResponse,
    SessionLost,
    SessionRun,
    SessionStatus,
    VerifierClient,
    VerifierError,
    VerifierUnavailable,
)
from tests.client_proxy import ScriptedProxy

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
FAST_RETRY = {"backoff_s": 0.01, "backoff_max_s": 0.05}


@pytest.fixture
def proxy(verifier_url: str) -> Iterator[ScriptedProxy]:
    with ScriptedProxy(verifier_url) as running:
        yield running


def test_the_face_exports_the_tool_surface() -> None:
    for name in ("Session", "AsyncSession", "SessionLost", "SessionRun", "SessionInfo",
                 "SessionStatus", "RunCodeResponse"):
        assert name in rl_client.__all__ and hasattr(rl_client, name)


def test_run_code_and_a_session_sync(verifier_url: str) -> None:
    with VerifierClient(verifier_url) as client:
        answer = client.run_code("print(open('in.txt').read() + input())", stdin="!",
                                 files={"in.txt": "text", "raw.bin": b"\x00\xff"},
                                 fetch_files=["raw.bin"])
        assert isinstance(answer, RunCodeResponse) and answer.status.value == "Success"
        assert answer.run_result.stdout == "text!\n"
        assert base64.b64decode(answer.files["raw.bin"]) == b"\x00\xff"
        assert client.run_code("int main(){return 2;}", "cpp").run_result.return_code == 2
        with client.session(time_s=2, memory_mb=256) as session:
            assert session.run("x = 20").status is SessionStatus.ok
            shown = session.run("x * 2 + 2")
            assert isinstance(shown, SessionRun) and shown.result == "42"
            assert session.info().runs == 2
            timed = session.run("while True: pass", timeout_s=0.5)
            assert timed.status is SessionStatus.timeout and timed.restarted
            session_id = session.session_id
    assert httpx.get(f"{verifier_url}/v1/sessions/{session_id}").status_code == 404  # deleted


def test_run_code_and_a_session_async(verifier_url: str) -> None:
    async def use() -> tuple[str, str, str | None]:
        async with AsyncVerifierClient(verifier_url) as client:
            answer = await client.run_code("echo $((6 * 7))", "bash")
            async with client.session() as session:
                await session.run("import math")
                first = await session.run("math.factorial(5)")
                lazily = client.session()  # opened by its first run, closed explicitly
                second = await lazily.run("'fresh'")
                await lazily.close()
            return answer.run_result.stdout, first.result, second.result

    assert asyncio.run(use()) == ("42\n", "120", "'fresh'")


def test_504_and_429_are_retried_honouring_retry_after(proxy: ScriptedProxy) -> None:
    with VerifierClient(proxy.url, **FAST_RETRY) as client:
        proxy.script.refusals = [(504, {"Retry-After": "1"})]
        assert client.run_code("print(1)").run_result.stdout == "1\n"
        first, second = proxy.script.requests_to("/run_code")
        assert second.at - first.at >= 1.0  # the backoff alone would have waited ~0.01 s
        proxy.script.refusals = [(429, {"Retry-After": "0"})]
        with client.session() as session:
            proxy.script.refusals = [(504, {"Retry-After": "0"})]
            assert session.run("1 + 1").result == "2"
    assert len(proxy.script.requests_to("/v1/sessions")) == 5  # create twice, run twice, delete


def test_a_sessions_run_is_not_sent_again_after_an_answer_that_may_mean_it_ran(
        proxy: ScriptedProxy) -> None:
    with VerifierClient(proxy.url, **FAST_RETRY) as client, client.session() as session:
        session.open()
        runs = len(proxy.script.requests_to("/run"))
        proxy.script.refusals = [(503, {}), (503, {})]
        with pytest.raises(VerifierUnavailable):
            session.run("counter = 1")
        assert len(proxy.script.requests_to("/run")) == runs + 1
        proxy.script.refusals = [(503, {})]
        assert client.run_code("print(2)").run_result.stdout == "2\n"  # a program: retried


def test_a_lost_session_raises_session_lost(proxy: ScriptedProxy) -> None:
    with VerifierClient(proxy.url, **FAST_RETRY) as client:
        session = client.session().open()
        proxy.script.refusals = [(410, {})]
        with pytest.raises(SessionLost) as lost:
            session.run("1")
        assert lost.value.status_code == 410 and isinstance(lost.value, VerifierError)
        proxy.script.refusals = [(410, {})]
        session.close()  # a session already gone is fine to close
