"""The tool surfaces in distributed mode, for real: Redis, `verifier worker`s (each with its
session host) and an API in front. A session lives on one worker and its runs reach it there;
sessions spread over the workers, each under its own cap; a worker that vanishes takes its
sessions with it (410, naming it) and so does one that shuts down; a program no worker starts
within the admission budget is a 504."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import Stack, start_stack
from tests.procs import wait_until

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

ENV = {"VERIFIER_MAX_SESSIONS": "1", "VERIFIER_RUN_CODE_ADMISSION_S": "1",
       "VERIFIER_WORKER_HEARTBEAT_S": "0.5", "VERIFIER_WORKER_LOST_AFTER_S": "2"}


def post(url: str, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{url}{path}", json=body, timeout=120)


def create(url: str) -> str:
    reply = post(url, "/v1/sessions", {})
    assert reply.status_code == 201, reply.text
    return reply.json()["session_id"]


def run(url: str, session_id: str, code: str) -> httpx.Response:
    return post(url, f"/v1/sessions/{session_id}/run", {"code": code})


def descendants(pid: int) -> set[int]:
    """Every live process below `pid` (the worker's session host and its jails among them)."""
    children: dict[int, list[int]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    running = start_stack(tmp_path, n_workers=2, concurrency=1, env=ENV)
    wait_until(lambda: len(httpx.get(f"{running.url}/healthz").text) > 0, 10, "the API")
    yield running
    running.stop()


def test_sessions_live_on_one_worker_each_under_its_cap(stack: Stack) -> None:
    wait_until(lambda: all("session host" in w.output() for w in stack.workers), 60,
               "both workers' session hosts")
    first, second = create(stack.url), create(stack.url)
    refused = post(stack.url, "/v1/sessions", {})  # one session per worker here
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1, refused.text
    for session_id, value in ((first, 1), (second, 2)):
        assert run(stack.url, session_id, f"state = {value}").status_code == 200
    for _ in range(5):  # every run reaches the one worker that holds its state
        for session_id, value in ((first, 1), (second, 2)):
            assert run(stack.url, session_id, "state").json()["result"] == str(value)
    hosts = [sum(f"session {sid[:8]} opened" in w.output() for sid in (first, second))
             for w in stack.workers]
    assert hosts == [1, 1], "each worker holds one of the two sessions"
    assert httpx.delete(f"{stack.url}/v1/sessions/{first}").status_code == 204
    assert run(stack.url, first, "1").status_code == 404
    assert run(stack.url, create(stack.url), "3").json()["result"] == "3"  # its slot is free


def test_a_lost_worker_answers_410_and_takes_its_sessions_with_it(stack: Stack) -> None:
    wait_until(lambda: all("session host" in w.output() for w in stack.workers), 60,
               "both workers' session hosts")
    sessions = [create(stack.url), create(stack.url)]
    for session_id in sessions:
        run(stack.url, session_id, "import subprocess; p = subprocess.Popen(['sleep', '600'])")
    holder = {i: next(sid for sid in sessions if f"session {sid[:8]} opened" in w.output())
              for i, w in enumerate(stack.workers)}
    killed, stopped = stack.workers
    below = descendants(killed.popen.pid)
    os.killpg(killed.popen.pid, signal.SIGKILL)  # the container or machine gone
    lost = None
    for _ in range(50):
        reply = run(stack.url, holder[0], "1")
        if reply.status_code == 410:
            lost = reply
            break
        time.sleep(0.2)
    assert lost is not None, "the lost worker's session did not answer 410"
    assert "lost" in lost.json()["detail"] and "no heartbeat" in lost.json()["detail"]
    wait_until(lambda: not any(os.path.exists(f"/proc/{pid}") for pid in below), 10,
               "the killed worker's session jails to die with it")

    below = descendants(stopped.popen.pid)
    stopped.popen.send_signal(signal.SIGTERM)  # a worker that shuts down ends its sessions
    stopped.popen.wait(60)
    wait_until(lambda: not any(os.path.exists(f"/proc/{pid}") for pid in below), 10,
               "the stopped worker's session jails to end")
    gone = run(stack.url, holder[1], "1")
    assert gone.status_code == 410 and "shut down" in gone.json()["detail"], gone.text
    assert post(stack.url, "/v1/sessions", {}).status_code == 503  # no worker left


def test_a_program_no_worker_starts_in_time_is_a_504(stack: Stack) -> None:
    busy = [threading.Thread(target=post, args=(stack.url, "/run_code", {
        "code": "import time; time.sleep(8)", "run_timeout": 20})) for _ in range(2)]
    for thread in busy:
        thread.start()
    time.sleep(1)  # both workers (one process each) are running the sleeps
    try:
        refused = post(stack.url, "/run_code", {"code": "print(1)"})
        assert refused.status_code == 504, refused.text
        assert int(refused.headers["Retry-After"]) >= 1
        assert all(thread.is_alive() for thread in busy)  # refused at its budget, not after
    finally:
        for thread in busy:
            thread.join()
    assert post(stack.url, "/run_code", {"code": "print(1)"}).json()["status"] == "Success"
