"""The distributed stack under load, overload and faults, driven by bench/load.py for real.

The bench's clients check every answer (one result per item, same ids and order, the expected
verdict) and retry what was refused; these tests assert on what the bench saw, never on speed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import Stack, start_stack
from tests.procs import start_worker, wait_until
from tests.stack_helpers import REPO

LOAD = [sys.executable, str(REPO / "bench" / "load.py")]


def load(url: str, *args: str) -> subprocess.Popen[str]:
    """bench/load.py against `url`, in the background; `finish` collects its report."""
    return subprocess.Popen([*LOAD, "--url", url, "--no-baseline", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(bench: subprocess.Popen[str], timeout_s: float = 300) -> dict:
    out, err = bench.communicate(timeout=timeout_s)
    assert out.strip(), f"bench/load.py printed no report:\n{err}"
    return json.loads(out)


def assert_nothing_lost(report: dict) -> None:
    assert report["batches_ok"] > 0, report
    assert report["lost_items"] == 0, report["problems"]
    assert report["duplicated_results"] == 0, report
    assert report["wrong_results"] == 0, report["problems"]
    assert report["batches_ok"] == report["batches_sent"], report


@pytest.fixture
def stack(tmp_path: Path, request: pytest.FixtureRequest,
          monkeypatch: pytest.MonkeyPatch) -> Stack:
    """Two single-slot workers behind the API; an indirect parameter sets extra env."""
    for key, value in getattr(request, "param", {}).items():
        monkeypatch.setenv(key, value)  # the API and every worker process inherit it
    started = start_stack(tmp_path, n_workers=2, concurrency=1)
    yield started
    started.stop()


def test_concurrent_clients_get_every_result_once_and_right(stack: Stack) -> None:
    report = finish(load(stack.url, "--clients", "4", "--seconds", "6", "--batch", "6"))
    assert_nothing_lost(report)
    assert not report["refused"], report["refused"]
    assert report["items_ok"] == report["batches_ok"] * 6


@pytest.mark.parametrize("stack", [{"VERIFIER_MAX_BACKLOG": "12"}], indirect=True)
def test_overload_is_refused_with_retry_after_and_recovers_by_itself(stack: Stack) -> None:
    report = finish(load(stack.url, "--clients", "6", "--seconds", "6", "--batch", "6"))
    assert report["refused"].get("429", 0) > 0, report
    low, high = report["retry_after_s"]
    assert 1 <= low <= high <= 300
    # Every refused batch went through on a later try, with the right verdicts.
    assert_nothing_lost(report)
    reply = httpx.post(f"{stack.url}/v1/verify", timeout=60, json={"items": [
        {"kind": "math", "response": "\\boxed{7}", "answer": "7"}]})
    assert reply.status_code == 200 and reply.json()["results"][0]["status"] == "correct"


@pytest.mark.parametrize("stack", [{"VERIFIER_VISIBILITY_TIMEOUT_S": "10"}], indirect=True)
def test_worker_kill_worker_restart_and_redis_restart_during_load(stack: Stack) -> None:
    bench = load(stack.url, "--clients", "3", "--seconds", "24", "--batch", "6",
                 "--drain", "150")
    time.sleep(4)
    # 1. A whole worker dies (main process and pool, like a lost machine): its unacknowledged
    #    chunks go back to the queue once the visibility timeout has passed.
    victim = stack.workers.pop(0)
    os.killpg(victim.popen.pid, signal.SIGKILL)
    victim.popen.wait()
    time.sleep(2)
    # 2. A worker is started again.
    stack.workers.append(start_worker(stack.workdir, stack.redis.url, 1, name="restarted"))
    time.sleep(3)
    # 3. Redis goes away for a while and comes back empty.
    stack.redis.stop()
    time.sleep(4)
    stack.redis.start()
    report = finish(bench)
    print(json.dumps(report))
    assert_nothing_lost(report)
    # The outage was felt: requests sent while Redis was away got a 503 (or lost their
    # connection), or the requests in flight rode it out by having their chunks published
    # again once Redis was back (which one depends on timing).
    refused = report["refused"]
    refusals = refused.get("503", 0) + sum(n for why, n in refused.items()
                                           if why.startswith("transport"))
    assert refusals > 0 or "redis is back: published" in stack.api.output(), refused
    wait_until(lambda: "ready." in stack.workers[-1].output(), 5, "the restarted worker")
    assert "Task verifier.process_chunk" in stack.workers[-1].output(), \
        "the restarted worker never took a chunk"
