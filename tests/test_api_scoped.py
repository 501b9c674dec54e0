"""Jobs scoped to their API key, which routes need a key, cancelling a job, and API replicas
that share their jobs through Redis (so any replica answers for any job)."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import Stack, start_stack
from tests.procs import start_server
from tests.test_api import RIGHT, WRONG, sleepy_code
from tests.test_distributed import wait_for_job

KEY_A, KEY_B = "key-of-a", "key-of-b"
KEYS = {"VERIFIER_API_KEYS": f"{KEY_A},{KEY_B}"}


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture(scope="module")
def keyed_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, url = start_server(tmp_path_factory.mktemp("scoped"), "--workers", "1", env=KEYS)
    yield url
    proc.stop()


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, str]]:
    """Two API processes on one Redis, one worker: (the stack, the second API's URL)."""
    workdir = tmp_path_factory.mktemp("replicas")
    stack = start_stack(workdir, n_workers=1, concurrency=2,
                        env={**KEYS, "VERIFIER_CODE_CHUNK_SIZE": "1"})
    second, url = start_server(workdir, "--broker", stack.redis.url, env=KEYS)
    yield stack, url
    second.stop()
    stack.stop()


def assert_unknown_to(url: str, job_id: str, key: str) -> None:
    """The job does not exist for `key`: every job route says so as for a made-up id."""
    for method, path in (("GET", ""), ("GET", "/stream"), ("DELETE", "")):
        reply = httpx.request(method, f"{url}/v1/jobs/{job_id}{path}", headers=auth(key))
        made_up = httpx.request(method, f"{url}/v1/jobs/{'0' * 32}{path}", headers=auth(key))
        assert reply.status_code == made_up.status_code == 404, (method, path, reply.text)
        assert reply.json()["detail"].replace(job_id, "ID") == \
            made_up.json()["detail"].replace("0" * 32, "ID")


def test_a_job_is_visible_only_to_the_key_that_created_it(keyed_url: str) -> None:
    job = httpx.post(f"{keyed_url}/v1/jobs", json={"items": [RIGHT, WRONG]},
                     headers=auth(KEY_A)).json()["job_id"]
    with httpx.stream("GET", f"{keyed_url}/v1/jobs/{job}/stream", headers=auth(KEY_A),
                      timeout=60) as reply:
        assert len([line for line in reply.iter_lines() if line]) == 2
    assert_unknown_to(keyed_url, job, KEY_B)
    assert httpx.get(f"{keyed_url}/v1/jobs/{job}").status_code == 401
    # B's attempt to cancel changed nothing; A still reads the whole job.
    state = httpx.get(f"{keyed_url}/v1/jobs/{job}", headers=auth(KEY_A)).json()
    assert state["status"] == "done"
    assert [r["status"] for r in state["results"]] == ["correct", "wrong"]


@pytest.mark.parametrize("path", ["/v1/info", "/metrics", "/", "/status/panel",
                                  "/status.json"])
def test_service_views_need_a_key(keyed_url: str, path: str) -> None:
    httpx.get(f"{keyed_url}{path}", headers=auth(KEY_A), timeout=120)  # /v1/info's first call
    refused = httpx.get(f"{keyed_url}{path}")
    assert refused.status_code == 401, refused.text
    assert httpx.get(f"{keyed_url}{path}", headers=auth("wrong")).status_code == 401
    assert httpx.get(f"{keyed_url}{path}", headers=auth(KEY_B)).status_code == 200
    assert httpx.get(f"{keyed_url}{path}", headers={"X-API-Key": KEY_A}).status_code == 200
    # A browser asked by the 401 sends the key as a Basic password (any user name).
    if "Basic" in refused.headers["www-authenticate"]:
        basic = base64.b64encode(f"operator:{KEY_A}".encode()).decode()
        assert httpx.get(f"{keyed_url}{path}",
                         headers={"Authorization": f"Basic {basic}"}).status_code == 200


def test_the_status_page_asks_a_browser_for_the_key(keyed_url: str) -> None:
    assert httpx.get(f"{keyed_url}/").headers["www-authenticate"].startswith("Basic ")
    assert httpx.get(f"{keyed_url}/v1/info").headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize("path", ["/healthz", "/docs", "/openapi.json"])
def test_liveness_and_the_contract_need_no_key(keyed_url: str, path: str) -> None:
    assert httpx.get(f"{keyed_url}{path}").status_code == 200


def test_delete_cancels_a_running_job(keyed_url: str) -> None:
    items = [sleepy_code(3.0, tag) for tag in range(4)]
    job = httpx.post(f"{keyed_url}/v1/jobs", json={"items": items},
                     headers=auth(KEY_A)).json()["job_id"]
    cancelled = httpx.delete(f"{keyed_url}/v1/jobs/{job}", headers=auth(KEY_A), timeout=30)
    assert cancelled.status_code == 200, cancelled.text
    state = cancelled.json()
    assert state["status"] == "cancelled" and state["done"] < 4
    # Ended: a stream closes at once, and a second DELETE leaves it as it is.
    streamed = httpx.get(f"{keyed_url}/v1/jobs/{job}/stream", headers=auth(KEY_A), timeout=30)
    assert len(streamed.text.splitlines()) == state["done"]
    again = httpx.delete(f"{keyed_url}/v1/jobs/{job}", headers=auth(KEY_A)).json()
    assert again["status"] == "cancelled"


def test_replicas_share_jobs(replicas: tuple[Stack, str]) -> None:
    stack, other = replicas
    items = [sleepy_code(1.0, tag) for tag in range(3)] + [RIGHT]
    job = httpx.post(f"{stack.url}/v1/jobs", json={"items": items},
                     headers=auth(KEY_A)).json()["job_id"]
    # The other replica follows the job while the first one runs it...
    with httpx.stream("GET", f"{other}/v1/jobs/{job}/stream", headers=auth(KEY_A),
                      timeout=60) as reply:
        streamed = [json.loads(line) for line in reply.iter_lines() if line]
    assert sorted(r["index"] for r in streamed) == [0, 1, 2, 3]
    # ...answers for it once done, and keeps it from other keys.
    state = httpx.get(f"{other}/v1/jobs/{job}", headers=auth(KEY_A)).json()
    assert state["status"] == "done" and state["done"] == state["total"] == 4
    assert [r["status"] for r in state["results"]] == ["correct"] * 4
    assert_unknown_to(other, job, KEY_B)


def test_a_replica_cancels_a_job_another_runs(replicas: tuple[Stack, str],
                                              tmp_path: Path) -> None:
    stack, other = replicas
    items = [sleepy_code(3.0, tag) for tag in range(6)]
    job = httpx.post(f"{stack.url}/v1/jobs", json={"items": items},
                     headers=auth(KEY_A)).json()["job_id"]
    assert_unknown_to(other, job, KEY_B)
    state = httpx.delete(f"{other}/v1/jobs/{job}", headers=auth(KEY_A), timeout=30).json()
    assert state["status"] == "cancelled" and state["done"] < 6, state
    assert wait_for_job(stack.url, job, 10, headers=auth(KEY_A))["status"] == "cancelled"
