"""The README's "Tool-integrated rollouts" blocks, as written: the `grpo demo --tools` command
(in a scratch directory, with the embedded verifier it starts itself) and the `tools` YAML,
read by the trainer's own config loader."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from trainer.config import ToolsConfig, load_config

REPO = Path(__file__).resolve().parents[1]


def subsection_blocks(fence: str, language: str) -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text[text.index("\n### Tool-integrated rollouts"):]
    section = section[:section.index("\n## ", 1)]
    return re.findall(rf"^{fence}{language}\n(.*?)^{fence}$", section, re.S | re.M)


def test_the_tools_yaml_is_the_configs_own_defaults(tmp_path):
    (block,) = subsection_blocks("````", "yaml")
    path = tmp_path / "tools.yaml"
    path.write_text(block)
    tools = load_config(path).tools
    assert tools == dataclasses.replace(ToolsConfig(), enabled=True)
    assert "memory_mb: 512" in block and ToolsConfig().memory_mb == 512


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
def test_the_tools_demo_runs_as_written(tmp_path):
    (block,) = subsection_blocks("```", "bash")
    env = {**os.environ, "PYTHONPATH": str(REPO),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-eu", "-o", "pipefail", "-c", block], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    rows = [json.loads(line) for line in
            (tmp_path / "runs" / "demo-tools" / "metrics.jsonl").read_text().splitlines()]
    trained = [r for r in rows if r["split"] == "train"]
    assert len(trained) == 40 and len([r for r in rows if r["split"] == "eval"]) == 3
    assert sum(r["tool_calls"] for r in trained) > 0
    assert all(r["tool_errors"] == 0 and r["staleness_max"] <= 1 for r in trained)
    assert "tool calls/sample" in done.stdout
