"""docs/trainer.md's "Tool-integrated rollouts" blocks, as written: the `grpo demo --tools` command
(marked `long` for tests/test_docs_examples.py, so run here: in a scratch copy of the checkout,
with the embedded verifier it starts itself) and the `tools` YAML, read by the trainer's own
config loader."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.doc_blocks import REPO, Block, blocks, scratch_checkout
from trainer.config import ToolsConfig, load_config

HEADING = "Tool-integrated rollouts (code as a tool)"


def subsection_block(language: str) -> Block:
    (block,) = [b for b in blocks(REPO / "docs/trainer.md")
                if b.heading == HEADING and b.language == language]
    return block


def test_the_tools_yaml_is_the_configs_own_defaults(tmp_path):
    block = subsection_block("yaml")
    path = tmp_path / "tools.yaml"
    path.write_text(block.code)
    assert load_config(path).tools == dataclasses.replace(ToolsConfig(), enabled=True)
    assert "memory_mb: 512" in block.code and ToolsConfig().memory_mb == 512


@pytest.mark.slow
@pytest.mark.timeout(3000)  # minutes on 2 free cores; far more on loaded ones
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
def test_the_tools_demo_runs_as_written(tmp_path):
    block = subsection_block("bash")
    assert block.marker == "long"  # so that the docs' own test leaves it to this one
    checkout = scratch_checkout(tmp_path / "checkout", Path(sys.executable).parents[1])
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.code], cwd=checkout,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
                          text=True, timeout=3000)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    rows = [json.loads(line) for line in
            (checkout / "runs" / "demo-tools" / "metrics.jsonl").read_text().splitlines()]
    trained = [r for r in rows if r["split"] == "train"]
    assert len(trained) == 30 and len([r for r in rows if r["split"] == "eval"]) == 3
    assert sum(r["tool_calls"] for r in trained) > 0
    assert all(r["tool_errors"] == 0 and r["staleness_max"] <= 1 for r in trained)
    assert "tool calls/sample" in done.stdout
