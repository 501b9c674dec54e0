"""Distributed mode for real: Celery workers over a private Redis, faults included."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from celery import Celery

from tests.conftest import Stack, start_stack
from tests.hostile_responses import HOSTILE_SHAPES, KIND_ITEMS
from tests.peer import peer_file
from tests.procs import start_server, wait_until
from tests.test_api import RIGHT, WRONG, sleepy_code
from tests.test_api_strict_json import COMPRESSED_REFUSED
from tests.test_code_judging import FRAGILE_CHECKERS, peer_checker_item, real_testlib_h
from tests.test_code_languages import NOT_A_PROGRAM, TESTS
from verifier.tools.session_routing import SESSION_HOST_NAME


def mixed_batch() -> list[dict]:
    """Math verdicts of every kind plus code items, with repeats (GRPO groups repeat)."""
    math = [
        {"kind": "math", "response": f"so \\boxed{{{n * n}}}", "answer": str(n * n)}
        for n in range(20)
    ] + [
        {"kind": "math", "response": f"the final answer is {n + 1}", "answer": str(n)}
        for n in range(10)
    ] + [RIGHT, WRONG, RIGHT]
    code = [
        {"kind": "code", "language": "python", "response": f"print(int(input()) * {k})",
         "tests": {"type": "stdio", "cases": [{"input": "3\n", "output": f"{3 * k}\n"},
                                              {"input": "5\n", "output": f"{5 * (k % 3)}\n"}]},
         "scoring": "fraction"}
        for k in range(4)
    ]
    return [{**item, "id": str(i)} for i, item in enumerate(math + code)]


def verify(url: str, items: list[dict], timeout: float = 120) -> httpx.Response:
    return httpx.post(f"{url}/v1/verify", json={"items": items}, timeout=timeout)


def started_chunks(stack: Stack) -> int:
    """Chunks the stack's workers have started in a pool process (Celery's own `active`)."""
    app = Celery(broker=stack.redis.url)
    try:
        active = app.control.inspect(timeout=1.0).active() or {}
    finally:
        app.close()
    return sum(len(tasks) for tasks in active.values())


def pool_children(pid: int) -> list[int]:
    """The worker's pool processes (not its session host, nor multiprocessing's resource
    tracker, which starting the session host brings)."""
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    pool = []
    for child in out.split():
        try:
            name = Path(f"/proc/{child}/comm").read_text().strip()
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if name != SESSION_HOST_NAME and b"resource_tracker" not in command:
            pool.append(int(child))
    return pool


def test_same_batch_same_results_embedded_and_distributed(verifier_url: str,
                                                          distributed_url: str) -> None:
    items = mixed_batch()
    embedded = verify(verifier_url, items).json()["results"]
    distributed = verify(distributed_url, items).json()["results"]

    def verdicts(results: list[dict]) -> list[tuple]:
        return [(r["id"], r["status"], r["reward"]) for r in results]

    assert verdicts(embedded) == verdicts(distributed)
    assert {r["status"] for r in embedded} >= {"correct", "wrong"}
    info = httpx.get(f"{distributed_url}/v1/info").json()
    assert info["mode"] == "distributed"


def test_killed_worker_process_loses_nothing(tmp_path: Path) -> None:
    stack = start_stack(tmp_path, n_workers=1, concurrency=2)
    try:
        # Long enough that both chunks are still running when the kill lands, even on a loaded
        # machine (Celery's `inspect` alone takes up to a second).
        items = [sleepy_code(4.0, tag) for tag in range(8)]
        job = httpx.post(f"{stack.url}/v1/jobs", json={"items": items}).json()["job_id"]
        wait_until(lambda: started_chunks(stack) == 2, 60, "both pool processes in a chunk")
        victims = pool_children(stack.workers[0].popen.pid)
        assert victims, "the Celery worker has no pool processes"
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        state = wait_for_job(stack.url, job, timeout_s=180)
        assert state["status"] == "done"
        assert [r["status"] for r in state["results"]] == ["correct"] * 8
        assert "WorkerLostError" in stack.workers[0].output()
    finally:
        stack.stop()


def streamed_indices(url: str, job_id: str) -> list[int]:
    with httpx.stream("GET", f"{url}/v1/jobs/{job_id}/stream", timeout=30) as reply:
        return [json.loads(line)["index"] for line in reply.iter_lines() if line]


# Beats fast enough for a short test; the broker's visibility timeout stays at its 900 s, so
# only the heartbeat can hand the chunks on.
FAST_BEATS = {"VERIFIER_WORKER_HEARTBEAT_S": "0.5", "VERIFIER_WORKER_LOST_AFTER_S": "3",
              "VERIFIER_CODE_CHUNK_SIZE": "1"}


@contextmanager
def job_on_two_busy_workers(tmp_path: Path, seconds: float, n: int) -> Iterator[
        tuple[Stack, str]]:
    """Two one-slot workers, each inside a chunk of a job of `n` items of `seconds` each."""
    stack = start_stack(tmp_path, n_workers=2, concurrency=1, env=FAST_BEATS)
    try:
        items = [sleepy_code(seconds, tag) for tag in range(n)]
        job = httpx.post(f"{stack.url}/v1/jobs", json={"items": items}).json()["job_id"]
        wait_until(lambda: all("] received" in w.output() for w in stack.workers), 30,
                   "both workers inside a chunk")
        yield stack, job
    finally:
        stack.stop()


def test_vanished_worker_hands_its_chunks_on_within_seconds(tmp_path: Path) -> None:
    """A whole worker (main process and pool, as when its machine goes) is SIGKILLed while
    it holds chunks: the job still finishes long before the visibility timeout."""
    with job_on_two_busy_workers(tmp_path, 2.0, 6) as (stack, job):
        os.killpg(stack.workers[0].popen.pid, signal.SIGKILL)  # its own session: all of it
        killed_at = time.monotonic()
        state = wait_for_job(stack.url, job, timeout_s=60)
        print(f"job done {time.monotonic() - killed_at:.1f} s after the kill")
        assert [r["status"] for r in state["results"]] == ["correct"] * 6
        assert "vanished holding chunk" in stack.api.output()
        assert sorted(streamed_indices(stack.url, job)) == list(range(6))


def test_a_worker_only_cut_off_scores_nothing_twice(tmp_path: Path) -> None:
    """A worker whose heartbeat stops while its chunk runs on (its main process frozen, the
    pool process still scoring) is taken for lost: the chunk runs again elsewhere, and the
    job still holds one result per item. Each item runs far longer than the heartbeat takes to
    be missed (3 s, then a liveness check each second), or the frozen worker's pool process
    could finish its chunk before anyone takes it for lost: then nothing is redelivered."""
    with job_on_two_busy_workers(tmp_path, 10.0, 2) as (stack, job):
        frozen = stack.workers[0].popen.pid
        os.kill(frozen, signal.SIGSTOP)  # heartbeat thread stops; the pool child runs on
        try:
            state = wait_for_job(stack.url, job, timeout_s=60)
        finally:
            os.kill(frozen, signal.SIGCONT)
        assert [r["status"] for r in state["results"]] == ["correct"] * 2
        assert state["done"] == 2
        assert sorted(streamed_indices(stack.url, job)) == [0, 1]
        assert "vanished holding chunk" in stack.api.output()


def test_chunk_that_keeps_killing_workers_ends_as_infra_error(tmp_path: Path) -> None:
    stack = start_stack(tmp_path, n_workers=1, concurrency=1,
                        env={"VERIFIER_CHUNK_MAX_TRIES": "1", "VERIFIER_CODE_CHUNK_SIZE": "8"})
    try:
        items = [sleepy_code(1.0, tag) for tag in range(3)]
        job = httpx.post(f"{stack.url}/v1/jobs", json={"items": items}).json()["job_id"]
        wait_until(lambda: started_chunks(stack) == 1, 60, "the pool process in the chunk")
        for pid in pool_children(stack.workers[0].popen.pid):
            os.kill(pid, signal.SIGKILL)
        state = wait_for_job(stack.url, job, timeout_s=120)
        assert [r["status"] for r in state["results"]] == ["infra_error"] * 3
        assert all(r["reward"] is None for r in state["results"])
        assert "delivered 1 times" in state["results"][0]["detail"]["error"]
    finally:
        stack.stop()


def test_redis_outage_gives_503_then_recovers(tmp_path: Path) -> None:
    stack = start_stack(tmp_path, n_workers=1, concurrency=1)
    try:
        tagged = httpx.post(f"{stack.url}/v1/verify", json={"items": [RIGHT]}, timeout=60,
                            headers={"X-Request-ID": "trace-me-42"})
        assert tagged.json()["results"][0]["status"] == "correct"
        assert tagged.headers["x-request-id"] == "trace-me-42"
        # The request id followed the batch from the API into the worker's log.
        wait_until(lambda: "[trace-me-42] scored 1 items" in stack.workers[0].output(), 10,
                   "the worker's log line for the tagged batch")
        assert "[trace-me-42] batch of 1 items" in stack.api.output()
        stack.redis.stop()
        outage = verify(stack.url, [WRONG], timeout=30)
        assert outage.status_code == 503, outage.text
        assert "broker" in outage.json()["detail"]
        assert httpx.get(f"{stack.url}/healthz").status_code == 503
        stack.redis.start()
        deadline = time.monotonic() + 60
        while True:
            reply = verify(stack.url, [WRONG], timeout=60)
            if reply.status_code == 200:
                break
            assert reply.status_code == 503 and time.monotonic() < deadline, reply.text
            time.sleep(0.5)
        assert reply.json()["results"][0]["status"] == "wrong"
        assert httpx.get(f"{stack.url}/healthz").status_code == 200
    finally:
        stack.stop()


def test_redis_restarted_empty_mid_job_loses_nothing(tmp_path: Path) -> None:
    """Redis restarts without persistence while a chunk runs: the chunk is published again."""
    stack = start_stack(tmp_path, n_workers=1, concurrency=1)
    try:
        items = [sleepy_code(0.7, tag) for tag in range(3)]
        job = httpx.post(f"{stack.url}/v1/jobs", json={"items": items}).json()["job_id"]
        time.sleep(0.8)
        stack.redis.stop()
        time.sleep(1.0)
        stack.redis.start()
        state = wait_for_job(stack.url, job, timeout_s=120)
        assert state["status"] == "done", state
        assert [r["status"] for r in state["results"]] == ["correct"] * 3
        assert "published 1 pending chunks again" in stack.api.output()
    finally:
        stack.stop()


def test_embedded_pool_worker_killed_mid_chunk_loses_nothing(tmp_path: Path) -> None:
    proc, url = start_server(tmp_path, "--workers", "2")
    try:
        items = [sleepy_code(0.5, tag) for tag in range(6)]
        job = httpx.post(f"{url}/v1/jobs", json={"items": items}).json()["job_id"]
        time.sleep(1.0)
        workers = [p for p in pool_children(proc.popen.pid)
                   if "multiprocessing" in Path(f"/proc/{p}/cmdline").read_text()]
        assert workers
        os.kill(workers[0], signal.SIGKILL)
        state = wait_for_job(url, job, timeout_s=120)
        assert [r["status"] for r in state["results"]] == ["correct"] * 6
        # The server replaced its pool and still serves.
        assert verify(url, [RIGHT]).json()["results"][0]["status"] == "correct"
    finally:
        proc.stop()


def wait_for_job(url: str, job_id: str, timeout_s: float,
                 headers: dict[str, str] | None = None) -> dict:
    deadline = time.monotonic() + timeout_s
    while True:
        state = httpx.get(f"{url}/v1/jobs/{job_id}", headers=headers).json()
        if state["status"] not in ("queued", "running"):
            return state
        if time.monotonic() > deadline:
            pytest.fail(f"job {job_id} did not finish in {timeout_s} s: {state}")
        time.sleep(0.2)


def test_a_submissions_faults_are_its_own_in_both_modes(verifier_url: str,
                                                        distributed_url: str) -> None:
    """Builds that are no program, outputs that crash a checker, a response nested past a
    parser, hostile response shapes, and eight real testlib checker items: the same verdicts
    embedded and distributed, the submission's own (never infra_error but for the checker
    broken on its reference answer), and a test set no parser may take is a 422 at both."""
    folder = peer_file("testlib")
    rows = json.loads((folder / "cases.json").read_text())["checker_cases"][:8]
    header = real_testlib_h()
    checker = {"language": "python", "protocol": "cms", "code": FRAGILE_CHECKERS["python"]}
    fragile = {"type": "stdio", "checker": checker, "cases": [{"input": "", "output": "42\n"}]}
    broken = {**fragile, "cases": [{"input": "", "output": "forty-two\n"}]}
    builds = ("go: a package other than main", "rust: a library crate", "java: no class")
    items = [{"kind": "code", "language": NOT_A_PROGRAM[case][0],
              "response": NOT_A_PROGRAM[case][1], "tests": TESTS} for case in builds]
    items += [{"kind": "code", "response": response, "tests": tests} for response, tests in (
        ("print('forty-two')", fragile), ("print(42)", fragile), ("print(42)", broken))]
    hostile = (("instructions", "deep brackets"), ("composite", "unclosed boxes"),
               ("reasoning_gym", "nested boxes"))
    items += [{**KIND_ITEMS[kind], "response": HOSTILE_SHAPES[shape](140_000)}
              for kind, shape in hostile]
    items += [peer_checker_item(row, folder, header) for row in rows]
    first = [NOT_A_PROGRAM[case][2] for case in builds] + ["wrong", "correct", "infra_error"]

    def statuses(url: str) -> list[str]:
        reply = verify(url, items, timeout=900)
        assert reply.status_code == 200, reply.text[:500]
        return [result["status"] for result in reply.json()["results"]]

    embedded = statuses(verifier_url)
    assert statuses(distributed_url) == embedded
    hostile_at = len(first)
    assert embedded[:hostile_at] == first, embedded
    assert "infra_error" not in embedded[hostile_at:hostile_at + len(hostile)], embedded
    assert embedded[hostile_at + len(hostile):] == [row["expected"] for row in rows], embedded
    refused = {"kind": "code", "response": "print(1)", "tests": {
        "type": "compressed", "data": COMPRESSED_REFUSED["deep in a LiveCodeBench string"]}}
    for url in (verifier_url, distributed_url):
        reply = verify(url, [refused])
        assert reply.status_code == 422 and "tests.data" in reply.text, reply.text[:500]
