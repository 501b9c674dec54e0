"""bench/gpu_step.py's CPU smoke mode: the GPU check script runs end to end, so it cannot rot.

No GPU here: `--device cpu --tiny` runs the same code (model built from a Qwen2 config, both
modes in fresh processes, the trainer's own loop, the colocated mode's sleep/wake) with tiny
dimensions and the transformers engine; vLLM's sleep mode itself runs only on the GPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_gpu_step_smoke_runs_both_modes_and_reports_every_figure():
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "gpu_step.py"), "--device", "cpu", "--tiny",
         "--steps", "3", "--prompts", "2", "--n", "2", "--prompt-len", "4",
         "--max-new-tokens", "3", "--micro-batch", "4"],
        env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["engine"] == "hf" and report["device"] == "cpu"
    assert report["colocated"]["colocate"] and report["colocated"]["max_staleness"] == 0
    assert not report["async"]["colocate"] and report["async"]["max_staleness"] == 1
    for mode in ("colocated", "async"):
        figures = report[mode]
        for key in ("generation_tokens_per_s", "training_tokens_per_s", "peak_memory_gb",
                    "step_s", "rollout_s", "train_s", "sync_s", "weight_sync_s"):
            assert figures[key] > 0, (mode, key)
        assert figures["steps_measured"] == 2
    assert report["async_over_sync_step"] > 0
