"""Every shell and Python block of the README and the docs runs as printed.

Each block runs against a real `verifier serve` (embedded mode, the tests' `verifier_url`),
whose address the blocks read from `VERIFIER_URL` (the client reads it; shell blocks write
`URL=${VERIFIER_URL:-http://127.0.0.1:8000}`, the documented default). A block runs in a scratch
folder that looks like the checkout (tests/doc_blocks.py), with `curl` failing on an HTTP
error, so an example the service refuses fails here. Marked blocks (tests/doc_blocks.py,
docs/contributing.md) start a server of their own, or are syntax-checked and run elsewhere.
Where a block's printed output is shown in the docs, the parts a reader relies on are
checked too (OUTPUTS)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.doc_blocks import Block, check_syntax, examples, scratch_checkout
from verifier.local import free_port

BLOCKS = examples()
RUN_TIMEOUT_S = 600
SERVE_TIMEOUT_S = 600
# What a block prints that the docs show and a reader relies on: (document, heading, nth block
# under it) -> fragments of its output, or its whole output (a str).
OUTPUTS: dict[tuple[str, str, int], list[str] | str] = {
    ("README.md", "Code execution as a tool", 0): [
        '"pong"', '"stdout":"42\\n"', '"files":{"out.txt":"NDk="}', '"result":"42"',
        '"runs":2', "204\n", '"display":[{"text/plain":"123"}]'],
    ("README.md", "`/run_code`", 0): "42\n\n",
    ("README.md", "Sessions", 0): "42\n\nok 12.566370614359172\n",
    ("README.md", "The API", 0): ['{"status":"ok"}', '"status":"correct"', '"status":"done"',
                                  '"index":1', '"rewards":[1.0]'],
    ("README.md", "Python client", 0): ["[1.0, 1.0]\n", "correct 1.0\n"],
    ("README.md", "TRL (GRPOTrainer)", 0): "[1.0, 0.0]\n",
    ("docs/getting-started.md", "Score something", 0): ['"status":"correct"'],
    ("docs/getting-started.md", "Score something", 1): "[1.0, 0.0]\n",
}
# Markers whose blocks cannot run here: they are syntax-checked (and run where the marker says).
CHECKED_ONLY = ("docker", "install", "gpu", "long")
STOPPED_AFTER_S = 20


def block_id(block: Block) -> str:
    return f"{block.name}-{block.marker or 'runs'}"


def expected_output(block: Block) -> list[str] | str | None:
    same = [b for b in BLOCKS if b.path == block.path and b.heading == block.heading]
    key = (block.name.split(":")[0], block.heading, same.index(block))
    return OUTPUTS.get(key)


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder put first on PATH: `curl` fails on an HTTP error status (4xx, 5xx) with the
    answer's body, so a block whose request is refused fails instead of printing an error."""
    folder = tmp_path_factory.mktemp("tools")
    real = shutil.which("curl")
    assert real, "curl is not installed"
    (folder / "curl").write_text(f'#!/bin/sh\nexec {real} --fail-with-body "$@"\n')
    (folder / "curl").chmod(0o755)
    return folder


def environment(tools: Path, url: str) -> dict[str, str]:
    venv_bin = str(Path(sys.executable).parent)
    return {**os.environ, "VERIFIER_URL": url,
            "PATH": os.pathsep.join([str(tools), venv_bin, os.environ.get("PATH", "")]),
            "PYTHONPATH": str(Path(__file__).resolve().parents[1])}


def command(block: Block) -> list[str]:
    if block.is_shell:
        return ["bash", "-e", "-o", "pipefail", "-c", block.code]
    return [sys.executable, "-c", block.code]


def test_every_block_is_found_and_every_marker_known() -> None:
    assert BLOCKS, "no example found"
    assert any(b.path.name == "README.md" for b in BLOCKS)
    assert any(b.path.parent.name == "docs" for b in BLOCKS)
    for key in OUTPUTS:  # a stale key would silently check nothing
        assert any(expected_output(b) is OUTPUTS[key] for b in BLOCKS), key


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.marker in CHECKED_ONLY], ids=block_id)
def test_a_block_that_cannot_run_here_parses(block: Block) -> None:
    check_syntax(block)


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.marker is None], ids=block_id)
def test_the_example_runs_as_printed(block: Block, verifier_url: str, tools: Path,
                                     tmp_path: Path) -> None:
    venv = Path(sys.executable).parents[1]
    done = subprocess.run(command(block), cwd=scratch_checkout(tmp_path / "checkout", venv),
                          env=environment(tools, verifier_url), capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S, check=False)
    output = done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, f"{block.name} failed:\n{output}"
    assert "Traceback" not in done.stderr, output
    expected = expected_output(block)
    if isinstance(expected, str):
        assert done.stdout == expected, output
    for fragment in expected or []:
        assert fragment in done.stdout, (fragment, output)


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=5) as reply:
            return json.load(reply)["status"] == "ok"
    except (OSError, ValueError, urllib.error.URLError):
        return False


def scores_an_item(url: str) -> dict:
    body = {"items": [{"kind": "math", "response": "\\boxed{4}", "answer": "4"}]}
    request = urllib.request.Request(f"{url}/v1/verify", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=SERVE_TIMEOUT_S) as reply:
        return json.load(reply)["results"][0]


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.marker == "serves"], ids=block_id)
def test_the_server_example_serves(block: Block, tools: Path, tmp_path: Path) -> None:
    """Started as printed, on a port of the test's choosing (`VERIFIER_PORT`): it must answer
    /healthz and score an item; then it is stopped, with whatever it started."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    venv = Path(sys.executable).parents[1]
    log = (tmp_path / "block.log").open("w")
    process = subprocess.Popen(command(block), cwd=scratch_checkout(tmp_path / "checkout", venv),
                               env={**environment(tools, url), "VERIFIER_PORT": str(port)},
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + SERVE_TIMEOUT_S
        while not answers(url):
            assert process.poll() is None, (tmp_path / "block.log").read_text()[-4000:]
            assert time.monotonic() < deadline, "it never answered /healthz"
            time.sleep(1)
        result = scores_an_item(url)
        assert (result["status"], result["reward"]) == ("correct", 1.0), result
    finally:  # the block's shell and all it started (a worker, a Redis) are one group
        os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(STOPPED_AFTER_S)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        log.close()
