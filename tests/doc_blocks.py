"""The shell and Python blocks of the README and the docs, and how each is run.

A fenced block tagged `bash`, `sh`, `shell` or `python` is an example, and examples run as
printed (tests/test_docs_examples.py). An HTML comment on the line before the fence marks the
few that cannot run against the test's served instance; docs/contributing.md is the reader's
version of this list:

- `<!-- example: serves -->`: starts the service in the foreground. Run until the service it
  starts answers on `VERIFIER_PORT` (a free port the test chooses) and has scored an item,
  then stopped.
- `<!-- example: docker -->`: needs a Docker engine and Compose; run by
  tests/test_stack_docs_examples.py with the stack tests, syntax-checked elsewhere.
- `<!-- example: install -->`: installs system or Python packages (apt, pip); the quick start's
  is run in a fresh Debian 12 container by tests/test_stack_fresh_debian.py; syntax-checked.
- `<!-- example: gpu -->`: needs a GPU (a training run of a model, or of another framework);
  syntax-checked only.
- `<!-- example: long -->`: runs for minutes (the trainer's demo); syntax-checked here, its
  parts run by the trainer's own tests.

Output (what a command prints) goes in a `text`, `console` or `json` block, which is not run.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHELLS = ("bash", "sh", "shell")
RUN_LANGUAGES = (*SHELLS, "python")
MARKERS = ("serves", "docker", "install", "gpu", "long")
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,})(?P<language>[\w+-]*)\s*$")
MARKER = re.compile(r"^\s*<!-- example: (?P<marker>[\w-]+) -->\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language, its text and its marker (None: runs)."""

    path: Path
    line: int
    language: str
    code: str
    marker: str | None
    heading: str

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"

    @property
    def is_shell(self) -> bool:
        return self.language in SHELLS


def documents() -> list[Path]:
    """The README and every page of the docs site."""
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """Every fenced block of `path`, runnable or not, with the marker before it and the
    heading it is under. A block's indentation (in a list item) is removed."""
    lines = path.read_text().splitlines()
    found: list[Block] = []
    heading, previous, index = "", "", 0
    while index < len(lines):
        line = lines[index]
        opening = FENCE.match(line)
        if not opening:
            if line.startswith("#"):
                heading = line.lstrip("#").strip()
            if line.strip():
                previous = line
            index += 1
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        end = index + 1
        while end < len(lines) and lines[end].strip() != fence:
            end += 1
        assert end < len(lines), f"{path}:{index + 1}: the block is never closed"
        body = "\n".join(text[min(indent, len(text) - len(text.lstrip(" "))):]
                         for text in lines[index + 1:end])
        marked = MARKER.match(previous)
        marker = marked["marker"] if marked else None
        assert marker is None or marker in MARKERS, \
            f"{path}:{index}: unknown example marker {marker!r} (known: {', '.join(MARKERS)})"
        found.append(Block(path, index + 1, opening["language"], body + "\n", marker, heading))
        previous, index = "", end + 1
    return found


def examples() -> list[Block]:
    """The runnable blocks (shell and Python) of every document."""
    return [block for path in documents() for block in blocks(path)
            if block.language in RUN_LANGUAGES]


def check_syntax(block: Block) -> None:
    """What can be checked of a block that cannot run here: that it parses."""
    if block.is_shell:
        done = subprocess.run(["bash", "-n"], input=block.code, capture_output=True, text=True,
                              check=False)
        assert done.returncode == 0, f"{block.name}: {done.stderr}"
    else:
        ast.parse(block.code, filename=block.name)


def scratch_checkout(folder: Path, venv: Path) -> Path:
    """A folder that looks like the checkout to a block (its files and folders linked, and
    `.venv` the test's own virtualenv) while what the block writes stays out of the tree."""
    folder.mkdir(parents=True, exist_ok=True)
    for entry in REPO.iterdir():
        if entry.name not in (".git", ".venv") and not (folder / entry.name).exists():
            (folder / entry.name).symlink_to(entry)
    if not (folder / ".venv").exists():
        (folder / ".venv").symlink_to(venv)
    return folder


def answers(url: str) -> bool:
    """Whether a service at `url` says it can take work."""
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=5) as reply:
            return json.load(reply)["status"] == "ok"
    except (OSError, ValueError, urllib.error.URLError):
        return False


def scores_an_item(url: str, timeout_s: float) -> bool:
    """Whether the service at `url` scores a math item right: its workers work too."""
    body = {"items": [{"kind": "math", "response": "\\boxed{4}", "answer": "4"}]}
    request = urllib.request.Request(f"{url}/v1/verify", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout_s) as reply:
        result = json.load(reply)["results"][0]
    return (result["status"], result["reward"]) == ("correct", 1.0)
