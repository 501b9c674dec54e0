"""The README's "Code execution as a tool" runs as written: its shell block (curl) and its
Python blocks, against a real server (`VERIFIER_URL`, which the blocks read). The verl config
lines are run by tests/test_integrations_sandbox_fusion.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None or shutil.which("curl") is None,
                                reason="bubblewrap or curl not installed")


def section_blocks(language: str) -> list[str]:
    text = README.read_text()
    section = text[text.index("\n## Code execution as a tool"):]
    section = section[:section.index("\n## ", 1)]
    return re.findall(rf"```{language}\n(.*?)```", section, re.S)


def run(argv: list[str], url: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "VERIFIER_URL": url})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done.stdout


def test_the_shell_examples_run_as_written(verifier_url: str) -> None:
    (block,) = section_blocks("bash")
    out = run(["bash", "-eu", "-o", "pipefail", "-c", block], verifier_url)
    for shown in ('"pong"', '"stdout":"42\\n"', '"files":{"out.txt":"NDk="}', '"result":"42"',
                  '"runs":2', "204\n", '"display":[{"text/plain":"123"}]'):
        assert shown in out, (shown, out)
    assert '"status":"Failed"' not in out and "SandboxError" not in out


def test_the_python_examples_run_as_written(verifier_url: str) -> None:
    blocks = section_blocks("python")
    assert len(blocks) == 2
    assert run([sys.executable, "-c", blocks[0]], verifier_url) == "42\n\n"
    assert run([sys.executable, "-c", blocks[1]], verifier_url) == \
        "42\n\nok 12.566370614359172\n"
