"""`grpo` without the trainer's dependencies says how to install them, with the same command
the docs give; the torch pin there is the one scripts/test installs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.doc_blocks import REPO, blocks
from trainer.cli import TRAINER_INSTALL

# `import torch` fails in this process, as where torch was never installed.
WITHOUT_TORCH = "import sys; sys.modules['torch'] = None; from trainer.cli import app; app()"


@pytest.mark.parametrize("command", [
    ["demo"],
    ["train", "--config", str(REPO / "configs" / "gpu_qwen_math.yaml")],
    ["eval", "--checkpoint", "."],
], ids=["demo", "train", "eval"])
def test_without_torch_grpo_names_the_install_command(command: list[str],
                                                      tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", WITHOUT_TORCH, *command], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert "the trainer needs torch" in done.stderr
    assert f"{sys.executable} {TRAINER_INSTALL}" in " ".join(done.stderr.split()), done.stderr


def test_the_docs_give_the_same_command_and_pin() -> None:
    pages = (REPO / "docs/trainer.md", REPO / "docs/getting-started.md")
    documented = [block.code for path in pages
                  for block in blocks(path) if "torch==" in block.code]
    assert len(documented) == 2
    for code in documented:
        assert code.strip() == f".venv/bin/python3 {TRAINER_INSTALL}"
    pinned = re.search(r'^torch_pin="(torch==[^"]+)"$', (REPO / "scripts/test").read_text(), re.M)
    assert pinned and f'"{pinned.group(1)}"' in TRAINER_INSTALL
