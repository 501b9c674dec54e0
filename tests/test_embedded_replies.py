"""The embedded pool under the server's own event loop (uvicorn's uvloop, which leaves a
descriptor it watched non-blocking): a task or an answer larger than the pipe's buffer goes
through whole, never read as a dead worker."""

from __future__ import annotations

import shutil

import httpx
import pytest

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


def test_a_large_answer_and_a_large_chunk_come_through(verifier_url: str) -> None:
    for _ in range(5):  # 6 MiB answers: each read as soon as its first bytes are there
        flood = httpx.post(f"{verifier_url}/run_code", timeout=120, json={
            "code": "import sys\nsys.stdout.write('x' * (6 << 20))"}).json()
        assert flood["status"] == "Success", flood["message"]
        assert len(flood["run_result"]["stdout"]) == 6 << 20
    big_input = "y" * (4 << 20)  # a 4 MiB chunk, and an answer with 300 stderr tails
    item = {"kind": "code", "language": "python", "scoring": "fraction", "limits": {"time_s": 1},
            "response": "import sys\ndata = sys.stdin.read()\nsys.stderr.write('e' * 900)\n"
                        "print(len(data))",
            "tests": {"type": "stdio", "cases": [{"input": big_input, "output": f"{4 << 20}\n"}]
                      + [{"input": f"{i}", "output": f"{len(str(i))}\n"} for i in range(300)]}}
    result = httpx.post(f"{verifier_url}/v1/verify", json={"items": [item]},
                        timeout=300).json()
    assert "results" in result, result
    result = result["results"][0]
    assert result["status"] == "correct", result["detail"].get("error")
    assert result["reward"] == 1.0
