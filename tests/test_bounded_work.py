"""Bounded work, through the real service: budgets at the door, chunk deadlines, cancellation
(client gone, job deleted), a bounded SIGTERM, and a result cache bounded in bytes.

A "hung worker" is made for real: SIGSTOP on the process holding the chunk, the way a worker
stuck in the kernel or a frozen container looks to the service. No assertion is on speed:
sleeps of a minute are what a stopped chunk would have held, and each wait is bounded well
below that.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import psutil
import pytest

from rlvr_contract.schemas import CompositeItem, Status, parse_item
from tests.conftest import start_stack
from tests.hostile_responses import HOSTILE_SHAPES, KIND_ITEMS
from tests.procs import start_server, wait_until
from tests.test_api import RIGHT, WRONG, sleepy_code
from tests.test_distributed import wait_for_job
from verifier.kinds.registry import check_item
from verifier.service.deadline import deadline_helper, early_result
from verifier.tools.session_routing import SESSION_HOST_NAME

LONG_S = 55  # what a stopped or abandoned chunk would hold a worker for
SETTLE_S = 4  # for a chunk submitted to reach an idle, warm worker


def sleeper(tag: int) -> dict:
    return sleepy_code(LONG_S, tag)


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def warm(url: str) -> None:
    """One quick request, so that the (single) worker process is up and idle."""
    reply = httpx.post(f"{url}/v1/verify", json={"items": [RIGHT, sleepy_code(0.1, 0)]},
                       timeout=120)
    assert reply.status_code == 200, reply.text


def the_worker(parent_pid: int) -> int:
    """The one worker process (of a server with one worker, or of a Celery worker with
    concurrency 1, beside its session host), once a chunk just submitted has had ample time
    to reach it (its program sleeps LONG_S)."""
    time.sleep(SETTLE_S)
    workers = []
    for child in psutil.Process(parent_pid).children():
        with contextlib.suppress(psutil.Error):  # a zombie: a helper that has exited
            if "resource_tracker" not in " ".join(child.cmdline()) and \
                    child.name() != SESSION_HOST_NAME:
                workers.append(child.pid)
    [pid] = workers
    return pid


# --------------------------------------------------------------------------- budgets


@pytest.fixture(scope="module")
def budget_url(tmp_path_factory: pytest.TempPathFactory):
    proc, url = start_server(tmp_path_factory.mktemp("budgets"), "--workers", "1",
                             env={"VERIFIER_MAX_REQUEST_TIME_S": "100",
                                  "VERIFIER_MAX_CASE_TIME_S": "1"})
    yield url
    proc.stop()


def test_an_item_over_the_item_budget_is_422_naming_field_and_limit(verifier_url: str) -> None:
    # The request: 1,000 sleeping stdio cases at 60 s each, about 33 h of worker time.
    item = {"kind": "code", "language": "python", "response": "import time; time.sleep(60)",
            "tests": {"type": "stdio", "cases": [{"input": "", "output": "x"}] * 1000},
            "limits": {"time_s": 60}}
    reply = httpx.post(f"{verifier_url}/v1/jobs", json={"items": [RIGHT, item]}, timeout=60)
    assert reply.status_code == 422, reply.text
    [error] = reply.json()["detail"]
    assert error["loc"] == ["body", "items", 1, "limits", "time_s"]
    assert "60000 s" in error["msg"] and "VERIFIER_MAX_ITEM_TIME_S" in error["msg"]


def test_a_request_over_the_request_budget_is_422(budget_url: str) -> None:
    # Each item is within the item budget (30 cases x 1 s); together they are not (90 s + the
    # three math deadlines... over 100 s only with the fourth item).
    item = {"kind": "code", "language": "python", "response": "print(1)",
            "tests": {"type": "stdio", "cases": [{"input": "", "output": "1\n"}] * 30}}
    reply = httpx.post(f"{budget_url}/v1/verify", json={"items": [item] * 4}, timeout=60)
    assert reply.status_code == 422, reply.text
    [error] = reply.json()["detail"]
    assert error["loc"] == ["body", "items"]
    assert "VERIFIER_MAX_REQUEST_TIME_S" in error["msg"] and "120 s" in error["msg"]


def test_case_limits_above_the_server_maxima_are_clamped(budget_url: str) -> None:
    # time_s 30 asked, 1 s allowed: a 4 s sleep passes its wall limit (2 x CPU + 1 s).
    item = sleepy_code(4, 7) | {"limits": {"time_s": 30}}
    reply = httpx.post(f"{budget_url}/v1/verify", json={"items": [item]}, timeout=120)
    assert reply.status_code == 200, reply.text
    assert reply.json()["results"][0]["status"] == "timeout", reply.text


# --------------------------------------------------------------------------- chunk deadline


def test_embedded_chunk_past_its_deadline_is_killed_and_infra_error(tmp_path: Path) -> None:
    proc, url = start_server(tmp_path, "--workers", "1", env={"VERIFIER_CHUNK_TIMEOUT_S": "2"})
    try:
        warm(url)
        job = httpx.post(f"{url}/v1/jobs", json={"items": [sleepy_code(8, 2)]}).json()["job_id"]
        hung = the_worker(proc.popen.pid)
        os.kill(hung, signal.SIGSTOP)  # the worker hangs: the verifier's fault
        state = wait_for_job(url, job, 90)
        [result] = state["results"]
        assert result["status"] == "infra_error" and result["reward"] is None, result
        assert "deadline" in result["detail"]["error"]
        wait_until(lambda: gone(hung), 10, "the hung worker to be killed")
        # A fresh worker took its place.
        reply = httpx.post(f"{url}/v1/verify", json={"items": [sleepy_code(0.1, 3)]}, timeout=120)
        assert reply.json()["results"][0]["status"] == "correct"
    finally:
        proc.stop()


def test_distributed_chunk_past_its_deadline_is_killed_and_infra_error(tmp_path: Path) -> None:
    stack = start_stack(tmp_path, n_workers=1, concurrency=1,
                        env={"VERIFIER_CHUNK_TIMEOUT_S": "2"})
    try:
        warm(stack.url)
        job = httpx.post(f"{stack.url}/v1/jobs",
                         json={"items": [sleepy_code(8, 2)]}).json()["job_id"]
        hung = the_worker(stack.workers[0].popen.pid)
        os.kill(hung, signal.SIGSTOP)
        state = wait_for_job(stack.url, job, 120)
        [result] = state["results"]
        assert result["status"] == "infra_error", result
        assert "deadline" in result["detail"]["error"], result
        wait_until(lambda: gone(hung), 10, "the hung pool process to be killed")
    finally:
        stack.stop()


# --------------------------------------------------------------------------- cancellation


def _abandon(url: str, items: list[dict]) -> None:
    """A client that gives up on /v1/verify (its timeout) and goes away."""
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"{url}/v1/verify", json={"items": items}, timeout=3)


def test_embedded_client_gone_stops_its_chunks(tmp_path: Path) -> None:
    proc, url = start_server(tmp_path, "--workers", "1", env={"VERIFIER_CODE_CHUNK_SIZE": "1"})
    try:
        warm(url)
        running = the_worker(proc.popen.pid)
        _abandon(url, [sleeper(1), sleeper(2)])  # one chunk running, one queued
        wait_until(lambda: gone(running), 30, "the abandoned chunk's worker to be killed")
        # The only worker is free for the next client: neither chunk holds it any more.
        reply = httpx.post(f"{url}/v1/verify", json={"items": [WRONG]}, timeout=40)
        assert reply.json()["results"][0]["status"] == "wrong"
        assert "the client disconnected: its unfinished work was stopped" in proc.output()
    finally:
        proc.stop()


def test_distributed_client_gone_revokes_its_chunks(tmp_path: Path) -> None:
    stack = start_stack(tmp_path, n_workers=1, concurrency=1,
                        env={"VERIFIER_CODE_CHUNK_SIZE": "1"})
    try:
        warm(stack.url)
        _abandon(stack.url, [sleeper(1), sleeper(2)])  # one chunk running, one queued
        # The one worker slot is free for the next client: the running chunk was killed and
        # the queued one skipped.
        reply = httpx.post(f"{stack.url}/v1/verify", json={"items": [WRONG]}, timeout=40)
        assert reply.json()["results"][0]["status"] == "wrong"
        log = stack.workers[0].output()
        assert "Terminating" in log and "Discarding revoked task" in log, log[-3000:]
    finally:
        stack.stop()


def test_deleting_a_job_cancels_its_unfinished_work(tmp_path: Path) -> None:
    proc, url = start_server(tmp_path, "--workers", "1", env={"VERIFIER_CODE_CHUNK_SIZE": "1"})
    try:
        warm(url)
        job = httpx.post(f"{url}/v1/jobs", json={"items": [WRONG, sleeper(1)]}).json()["job_id"]
        running = the_worker(proc.popen.pid)
        reply = httpx.delete(f"{url}/v1/jobs/{job}", timeout=30)
        assert reply.status_code == 200, reply.text
        state = reply.json()
        assert state["status"] == "cancelled" and state["total"] == 2
        assert state["results"][1] is None
        wait_until(lambda: gone(running), 30, "the cancelled chunk's worker to be killed")
        assert httpx.get(f"{url}/v1/jobs/{job}").json()["status"] == "cancelled"
        lines = httpx.get(f"{url}/v1/jobs/{job}/stream", timeout=30).text.splitlines()
        assert len(lines) <= 1  # the stream ends: at most the math item that finished
        assert httpx.delete(f"{url}/v1/jobs/nope").status_code == 404
    finally:
        proc.stop()


# --------------------------------------------------------------------------- SIGTERM


def test_embedded_server_stops_on_sigterm_mid_chunk(tmp_path: Path) -> None:
    proc, url = start_server(tmp_path, "--workers", "1",
                             env={"VERIFIER_SHUTDOWN_TIMEOUT_S": "2"})
    try:
        warm(url)
        httpx.post(f"{url}/v1/jobs", json={"items": [sleeper(1)]}).raise_for_status()
        worker = the_worker(proc.popen.pid)
        proc.popen.send_signal(signal.SIGTERM)  # the server alone, as a container stop does
        proc.popen.wait(timeout=40)  # the chunk would have held it LONG_S
        assert gone(worker)
    finally:
        proc.stop()


def test_worker_stops_on_sigterm_mid_chunk_and_requeues_it(tmp_path: Path) -> None:
    stack = start_stack(tmp_path, n_workers=1, concurrency=1,
                        env={"VERIFIER_SHUTDOWN_TIMEOUT_S": "2"})
    try:
        warm(stack.url)
        httpx.post(f"{stack.url}/v1/jobs", json={"items": [sleeper(1)]}).raise_for_status()
        worker = stack.workers[0].popen
        the_worker(worker.pid)
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=40)
        # The unfinished chunk went back to the queue for another worker.
        queued = subprocess.run(["redis-cli", "-p", str(stack.redis.port), "llen", "celery"],
                                capture_output=True, text=True).stdout.strip()
        assert queued == "1", stack.workers[0].output()[-3000:]
    finally:
        stack.stop()


# --------------------------------------------------------------------------- cache


def test_result_cache_is_bounded_in_bytes(tmp_path: Path) -> None:
    # These two math results are 121 and 162 bytes of JSON: room for one, not both.
    proc, url = start_server(tmp_path, "--workers", "1", env={"VERIFIER_CACHE_MAX_BYTES": "250"})
    try:
        def misses() -> float:
            text = httpx.get(f"{url}/metrics").text
            return float(next(line.split()[1] for line in text.splitlines()
                              if line.startswith("verifier_cache_misses_total ")))

        for item in (RIGHT, RIGHT, WRONG, RIGHT):
            httpx.post(f"{url}/v1/verify", json={"items": [item]}, timeout=60).raise_for_status()
        assert misses() == 3  # RIGHT, WRONG (evicting RIGHT), RIGHT again
    finally:
        proc.stop()


# --------------------------------------------------------------------------- hostile responses

@pytest.fixture(scope="module")
def deadline_url(tmp_path_factory: pytest.TempPathFactory):
    """A server whose chunks have 60 s of grace beyond their items' deadlines: work outside
    any deadline shows as a chunk killed past its own (infra_error)."""
    proc, url = start_server(tmp_path_factory.mktemp("deadlines"), "--workers", "2",
                             env={"VERIFIER_CHUNK_TIMEOUT_S": "60"})
    yield url
    proc.stop()


@pytest.mark.parametrize("kind", sorted(KIND_ITEMS))
def test_hostile_responses_of_every_kind_end_by_their_deadline(deadline_url: str,
                                                               kind: str) -> None:
    """140 kB of each hostile shape: a verdict (or `timeout`) from each kind's own check under
    its deadline, never a chunk held past its deadline (the box reader was quadratic and ran
    outside any deadline: minutes for one response)."""
    items = [{**KIND_ITEMS[kind], "id": shape, "response": make(140_000)}
             for shape, make in HOSTILE_SHAPES.items()]
    reply = httpx.post(f"{deadline_url}/v1/verify", json={"items": items}, timeout=900)
    assert reply.status_code == 200, reply.text[:500]
    for result in reply.json()["results"]:
        assert result["status"] != "infra_error" and result["reward"] is not None, result


@pytest.mark.parametrize("kind", sorted(KIND_ITEMS))
def test_a_2_mb_response_of_every_kind_is_refused_naming_it(verifier_url: str,
                                                            kind: str) -> None:
    item = {**KIND_ITEMS[kind], "response": HOSTILE_SHAPES["unclosed boxes"](2_000_000)}
    reply = httpx.post(f"{verifier_url}/v1/verify", json={"items": [item]}, timeout=300)
    assert reply.status_code == 422 and f"items.0.{kind}.response" in reply.json()["error"], \
        reply.text[:500]


@pytest.mark.timeout(900)
@pytest.mark.parametrize("kind", sorted(KIND_ITEMS))
def test_2_mb_hostile_responses_in_process_end_by_their_deadline(kind: str) -> None:
    """Past the door's limit, in the checkers themselves (as a caller of the library would
    use them): each kind's work stays linear in the response or under its deadline."""
    item = parse_item({**KIND_ITEMS[kind], "response": ""})
    for shape, make in HOSTILE_SHAPES.items():
        response = make(2_000_000)
        hostile = item.model_copy(update={"response": response})
        if isinstance(hostile, CompositeItem):
            hostile = hostile.model_copy(update={"graders": [
                part.model_copy(update={"grader": part.grader.model_copy(
                    update={"response": response})}) for part in hostile.graders]})
        result = check_item(hostile, 1.0)
        assert result.status is not Status.infra_error and result.reward is not None, \
            (shape, result)


def recurse(depth: int) -> int:
    return 1 + recurse(depth + 1)


def test_a_check_that_recurses_past_the_limit_is_the_responses_doing() -> None:
    """RecursionError in a deadline helper's check (a response nested deeper than a parser
    follows) ends as a verdict, `wrong`, like running out of memory: request data is bounded at
    the door, so only the response can nest that deep."""
    outcome = deadline_helper().call(recurse, (0,), 30.0)
    assert outcome.how == "recursion", outcome
    result = early_result("x", outcome, "checking the answer", {})
    assert (result.status, result.reward) == (Status.wrong, 0.0), result
