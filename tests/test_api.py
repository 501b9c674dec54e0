"""The HTTP contract over a real uvicorn on loopback: every endpoint and every 4xx path."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.procs import start_server

RIGHT = {"kind": "math", "response": "2 + 2 = \\boxed{4}", "answer": "4"}
WRONG = {"kind": "math", "response": "I think it is \\boxed{5}", "answer": "4"}
EMPTY = {"kind": "math", "response": "I have no idea.", "answer": "4"}
API_KEY = "s3cret-key"


def sleepy_code(seconds: float, tag: int) -> dict:
    """A code item that really takes `seconds` of wall time (distinct per tag)."""
    code = f"import time\ntime.sleep({seconds})\nprint({tag})\n"
    return {"kind": "code", "language": "python", "response": code,
            "tests": {"type": "stdio", "cases": [{"input": "", "output": f"{tag}\n"}]},
            "limits": {"time_s": seconds + 5}}


@pytest.fixture(scope="module")
def strict_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server with API keys and small limits, to reach every refusal path."""
    proc, url = start_server(
        tmp_path_factory.mktemp("strict"), "--workers", "1",
        env={"VERIFIER_API_KEYS": f"other-key,{API_KEY}", "VERIFIER_MAX_BODY_BYTES": "4096",
             "VERIFIER_MAX_ITEMS": "5", "VERIFIER_MAX_BACKLOG": "4"})
    yield url
    proc.stop()


def auth(key: str = API_KEY) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_healthz_and_info(verifier_url: str) -> None:
    assert httpx.get(f"{verifier_url}/healthz").json() == {"status": "ok"}
    info = httpx.get(f"{verifier_url}/v1/info").json()
    assert info["mode"] == "embedded" and info["workers"] == 2
    assert isinstance(info["languages"], list) and info["version"]


def test_language_aliases_are_admitted(verifier_url: str) -> None:
    items = [{"kind": "code", "language": alias, "response": code,
              "tests": {"type": "stdio", "cases": [{"input": "2\n", "output": "3\n"}]}}
             for alias, code in (("py", "print(int(input()) + 1)"),
                                 ("c++", "#include <cstdio>\nint main(){int x; scanf(\"%d\", &x);"
                                         " printf(\"%d\\n\", x + 1);}"),
                                 ("JS", "console.log(Number(require('fs')"
                                        ".readFileSync(0, 'utf8')) + 1)"))]
    response = httpx.post(f"{verifier_url}/v1/verify", json={"items": items}, timeout=120)
    assert response.status_code == 200, response.text
    assert [r["status"] for r in response.json()["results"]] == ["correct"] * 3


def test_verify_scores_in_order_and_echoes_ids(verifier_url: str) -> None:
    items = [{**RIGHT, "id": "r"}, {**WRONG, "id": "w"}, {**EMPTY, "id": "e"},
             {**RIGHT, "id": "r-again"}]
    response = httpx.post(f"{verifier_url}/v1/verify", json={"items": items}, timeout=60)
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert [r["id"] for r in results] == ["r", "w", "e", "r-again"]
    assert [r["status"] for r in results] == ["correct", "wrong", "no_answer", "correct"]
    assert [r["reward"] for r in results] == [1.0, 0.0, 0.0, 1.0]
    assert all(r["elapsed_ms"] >= 0 for r in results)


def test_repeated_items_hit_the_cache(verifier_url: str) -> None:
    def hits() -> float:
        text = httpx.get(f"{verifier_url}/metrics").text
        line = next(x for x in text.splitlines() if x.startswith("verifier_cache_hits_total"))
        return float(line.split()[-1])

    item = {"kind": "math", "response": "\\boxed{\\frac{3}{9}}", "answer": "\\frac{1}{3}"}
    first = httpx.post(f"{verifier_url}/v1/verify", json={"items": [item]}, timeout=60).json()
    before = hits()
    second = httpx.post(f"{verifier_url}/v1/verify", json={"items": [item, item]},
                        timeout=60).json()
    assert hits() - before == 2
    assert [r["status"] for r in second["results"]] == [first["results"][0]["status"]] * 2


def test_job_poll_and_stream(verifier_url: str) -> None:
    items = [{**RIGHT, "id": f"r{i}", "answer": str(4 + (i % 2))} for i in range(6)]
    created = httpx.post(f"{verifier_url}/v1/jobs", json={"items": items})
    assert created.status_code == 202
    job_id = created.json()["job_id"]
    with httpx.stream("GET", f"{verifier_url}/v1/jobs/{job_id}/stream", timeout=60) as stream:
        streamed = [json.loads(line) for line in stream.iter_lines() if line]
    assert sorted(r["index"] for r in streamed) == list(range(6))
    assert all(r["id"] == f"r{r['index']}" for r in streamed)
    state = httpx.get(f"{verifier_url}/v1/jobs/{job_id}").json()
    assert state["status"] == "done" and state["done"] == state["total"] == 6
    assert [r["status"] for r in state["results"]] == ["correct", "wrong"] * 3
    # A late follower still gets the whole job.
    late = httpx.get(f"{verifier_url}/v1/jobs/{job_id}/stream", timeout=60).text.splitlines()
    assert len(late) == 6


def test_unknown_job_is_404(verifier_url: str) -> None:
    assert httpx.get(f"{verifier_url}/v1/jobs/nope").status_code == 404
    assert httpx.get(f"{verifier_url}/v1/jobs/nope/stream").status_code == 404


def test_openrlhf_remote_reward_contract(verifier_url: str) -> None:
    prompts = ["Q: 2+2?\nA:", "Q: 3+3?\nA:"]
    responses = [" \\boxed{4}", " \\boxed{7}"]
    body = {"query": [p + r for p, r in zip(prompts, responses, strict=True)],
            "prompts": prompts, "labels": ["4", "6"]}
    reply = httpx.post(f"{verifier_url}/openrlhf/get_reward", json=body, timeout=60)
    assert reply.status_code == 200, reply.text
    assert reply.json()["rewards"] == [1.0, 0.0]
    assert reply.json()["scores"] == [1.0, 0.0]
    bad = httpx.post(f"{verifier_url}/openrlhf/get_reward",
                     json={"query": ["a"], "prompts": ["a"], "labels": ["1", "2"]})
    assert bad.status_code == 422 and "labels" in bad.text


@pytest.mark.parametrize(("body", "field"), [
    ({}, "items"),
    ({"items": [{"kind": "math", "response": "x"}]}, "items.0.math.answer"),
    ({"items": [{"kind": "code", "response": "x", "tests": {"type": "stdio", "cases": [
        {"input": "1"}]}}]}, "items.0.code.tests.stdio.cases.0.output"),
    ({"items": [{"kind": "code", "response": "x", "language": "cobol",
                 "tests": {"type": "assert", "code": "assert 1"}}]}, "items.0.language"),
    ({"items": "nope"}, "items"),
    ({"items": [{"kind": "code", "response": "x", "language": "c",  # call tests: Python's
                 "tests": {"type": "call", "fn_name": "f", "cases": [{"expected": 1}]}}]},
     "items.0.tests.type"),
])
def test_malformed_bodies_get_422_naming_the_field(verifier_url: str, body: dict,
                                                    field: str) -> None:
    for path in ("/v1/verify", "/v1/jobs"):
        reply = httpx.post(f"{verifier_url}{path}", json=body)
        assert reply.status_code == 422, reply.text
        named = [".".join(str(p) for p in e["loc"] if p != "body") for e in reply.json()["detail"]]
        assert field in named, named


def test_invalid_json_is_422(verifier_url: str) -> None:
    reply = httpx.post(f"{verifier_url}/v1/verify", content=b"{not json",
                       headers={"content-type": "application/json"})
    assert reply.status_code == 422


def test_api_keys_are_enforced(strict_url: str) -> None:
    body = {"items": [RIGHT]}
    assert httpx.post(f"{strict_url}/v1/verify", json=body).status_code == 401
    assert httpx.post(f"{strict_url}/v1/verify", json=body,
                      headers=auth("wrong")).status_code == 401
    assert httpx.post(f"{strict_url}/v1/jobs", json=body).status_code == 401
    assert httpx.post(f"{strict_url}/openrlhf/get_reward",
                      json={"query": ["x"], "labels": ["1"]}).status_code == 401
    assert httpx.post(f"{strict_url}/v1/verify", json=body, headers=auth(),
                      timeout=60).status_code == 200
    assert httpx.post(f"{strict_url}/v1/verify", json=body, headers={"X-API-Key": API_KEY},
                      timeout=60).status_code == 200
    assert httpx.get(f"{strict_url}/healthz").status_code == 200


def test_oversized_bodies_are_413(strict_url: str) -> None:
    big = {"items": [{**RIGHT, "response": "x" * 5000}]}
    declared = httpx.post(f"{strict_url}/v1/verify", json=big, headers=auth())
    assert declared.status_code == 413 and "4096" in declared.text

    def chunks() -> Iterator[bytes]:
        payload = json.dumps(big).encode()
        for start in range(0, len(payload), 1000):
            yield payload[start:start + 1000]

    streamed = httpx.post(f"{strict_url}/v1/verify", content=chunks(),
                          headers={**auth(), "content-type": "application/json"})
    assert streamed.status_code == 413


def test_too_many_items_is_413_naming_the_limit(strict_url: str) -> None:
    reply = httpx.post(f"{strict_url}/v1/verify", json={"items": [RIGHT] * 6}, headers=auth())
    assert reply.status_code == 413
    assert "6 items" in reply.text and "limit of 5" in reply.text


def test_backlog_over_bound_is_429_with_retry_after_then_recovers(strict_url: str) -> None:
    slow = [sleepy_code(1.0, tag) for tag in range(4)]
    job = httpx.post(f"{strict_url}/v1/jobs", json={"items": slow}, headers=auth())
    assert job.status_code == 202, job.text
    refused = httpx.post(f"{strict_url}/v1/verify", json={"items": [RIGHT]}, headers=auth())
    assert refused.status_code == 429, refused.text
    assert int(refused.headers["Retry-After"]) >= 1
    job_url = f"{strict_url}/v1/jobs/{job.json()['job_id']}"
    deadline = time.monotonic() + 120
    while httpx.get(job_url, headers=auth()).json()["status"] != "done":
        assert time.monotonic() < deadline, "the slow job never finished"
        time.sleep(0.2)
    accepted = httpx.post(f"{strict_url}/v1/verify", json={"items": [RIGHT]}, headers=auth(),
                          timeout=60)
    assert accepted.status_code == 200
    assert accepted.json()["results"][0]["status"] == "correct"


def test_openapi_document_comes_from_the_schemas(verifier_url: str, tmp_path: Path) -> None:
    spec = httpx.get(f"{verifier_url}/openapi.json").json()
    assert {"/v1/verify", "/v1/jobs", "/v1/jobs/{job_id}", "/v1/jobs/{job_id}/stream",
            "/openrlhf/get_reward", "/healthz", "/v1/info"} <= set(spec["paths"])
    assert {"MathItem", "CodeItem", "StdioTests", "Result"} <= set(spec["components"]["schemas"])
