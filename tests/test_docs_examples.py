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

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.doc_blocks import (
    Block,
    answers,
    check_syntax,
    examples,
    scores_an_item,
    scratch_checkout,
)
from verifier.local import free_port, stop_group

BLOCKS = examples()
RUN_TIMEOUT_S = 600
SERVE_TIMEOUT_S = 600
# What a block prints that the docs show and a reader relies on: (document, heading, nth block
# under it) -> fragments of its output, or its whole output (a str).
OUTPUTS: dict[tuple[str, str, int], list[str] | str] = {
    ("docs/code-as-a-tool.md", "Code execution as a tool", 0): [
        '"pong"', '"stdout":"42\\n"', '"files":{"out.txt":"NDk="}', '"result":"42"',
        '"runs":2', "204\n", '"display":[{"text/plain":"123"}]'],
    ("docs/code-as-a-tool.md", "`/run_code`", 0): "42\n\n",
    ("docs/code-as-a-tool.md", "Sessions", 0): "42\n\nok 12.566370614359172\n",
    ("docs/requests.md", "Requests, jobs and errors", 0): [
        '{"status":"ok"}', '"status":"correct"', '"status":"done"', '"index":1',
        '"rewards":[1.0]'],
    ("docs/clients.md", "Python client", 0): ["[1.0, 1.0]\n", "correct 1.0\n"],
    ("docs/clients.md", "TRL (GRPOTrainer)", 1): "[1.0, 0.0]\n",
    ("README.md", "Score a batch", 0): ['"status":"correct"'],
    ("README.md", "Score a batch", 1): "[1.0, 0.0]\n",
    ("docs/getting-started.md", "Score something", 0): ['"status":"correct"'],
    ("docs/getting-started.md", "Score something", 1): "[1.0, 0.0]\n",
}
# What such a block must not print (a program that failed is still a 200 of /run_code).
ABSENT: dict[tuple[str, str, int], list[str]] = {
    ("docs/code-as-a-tool.md", "Code execution as a tool", 0): [
        '"status":"Failed"', "SandboxError"],
}
# Markers whose blocks cannot run here: they are syntax-checked (and run where the marker says).
CHECKED_ONLY = ("docker", "install", "gpu", "long")
STOPPED_AFTER_S = 20
CHANGES_THE_MACHINE = re.compile(r"\bapt(-get)? +install\b|\bpip3? +install\b|-m +pip +install\b"
                                 r"|\bscripts/test\b|\bdocker(-compose)? ")


def block_id(block: Block) -> str:
    return f"{block.name}-{block.marker or 'runs'}"


def output_key(block: Block) -> tuple[str, str, int]:
    same = [b for b in BLOCKS if b.path == block.path and b.heading == block.heading]
    return block.name.split(":")[0], block.heading, same.index(block)


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


def refuse_to_change_the_machine(block: Block) -> None:
    """A block that installs packages or drives Docker would change this machine (and the
    tests' own virtualenv, which `.venv` is here): unmarked, it fails instead of running."""
    assert not CHANGES_THE_MACHINE.search(block.code), \
        f"{block.name} installs or drives Docker: mark it <!-- example: install --> or docker"


def command(block: Block) -> list[str]:
    if block.is_shell:
        return ["bash", "-e", "-o", "pipefail", "-c", block.code]
    return [sys.executable, "-c", block.code]


def test_every_block_is_found_and_every_marker_known() -> None:
    assert BLOCKS, "no example found"
    assert any(b.path.name == "README.md" for b in BLOCKS)
    assert any(b.path.parent.name == "docs" for b in BLOCKS)
    keys = {output_key(b) for b in BLOCKS if b.marker is None}
    stale = (set(OUTPUTS) | set(ABSENT)) - keys  # a stale key would silently check nothing
    assert not stale, stale


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.marker in CHECKED_ONLY], ids=block_id)
def test_a_block_that_cannot_run_here_parses(block: Block) -> None:
    check_syntax(block)


# The examples score code: in the jail, which needs bubblewrap; and the shell ones use curl.
needs_tools = pytest.mark.skipif(shutil.which("bwrap") is None or shutil.which("curl") is None,
                                 reason="bubblewrap or curl not installed")


@needs_tools
@pytest.mark.parametrize("block", [b for b in BLOCKS if b.marker is None], ids=block_id)
def test_the_example_runs_as_printed(block: Block, verifier_url: str, tools: Path,
                                     tmp_path: Path) -> None:
    refuse_to_change_the_machine(block)
    venv = Path(sys.executable).parents[1]
    done = subprocess.run(command(block), cwd=scratch_checkout(tmp_path / "checkout", venv),
                          env=environment(tools, verifier_url), capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S, check=False)
    output = done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, f"{block.name} failed:\n{output}"
    assert "Traceback" not in done.stderr, output
    expected = OUTPUTS.get(output_key(block))
    if isinstance(expected, str):
        assert done.stdout == expected, output
    for fragment in expected or []:
        assert fragment in done.stdout, (fragment, output)
    for fragment in ABSENT.get(output_key(block), []):
        assert fragment not in done.stdout, (fragment, output)


@needs_tools
@pytest.mark.parametrize("block", [b for b in BLOCKS if b.marker == "serves"], ids=block_id)
def test_the_server_example_serves(block: Block, tools: Path, tmp_path: Path) -> None:
    """Started as printed, on a port of the test's choosing (`VERIFIER_PORT`): it must answer
    /healthz and score an item; then it is stopped, with whatever it started."""
    refuse_to_change_the_machine(block)
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
        assert scores_an_item(url, SERVE_TIMEOUT_S)
    finally:  # the block's shell and all it started (a worker, a Redis) are one group
        stop_group(process, STOPPED_AFTER_S)
        log.close()
