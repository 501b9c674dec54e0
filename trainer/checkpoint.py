"""Checkpoint and resume: model, tokenizer, optimizer, and the run's counters.

`trainer_state.json` holds `step` (the next step to run, which is also the policy version the
checkpointed weights carry) and `data_slot` (the next prompt slot). Groups that were generated
ahead of the trainer (up to k steps' worth) are not saved: a resumed run regenerates them
with the checkpointed weights, so the staleness bound holds across the restart.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

CHECKPOINT_DIR = "checkpoint"
STATE_FILE = "trainer_state.json"
OPTIMIZER_FILE = "optimizer.pt"


@dataclass
class Checkpoint:
    path: Path
    state: dict[str, Any]

    def load_optimizer(self, optimizer: torch.optim.Optimizer) -> None:
        optimizer.load_state_dict(torch.load(self.path / OPTIMIZER_FILE, weights_only=True))


def save_checkpoint(out_dir: Path, model: Any, tokenizer: Any,
                    optimizer: torch.optim.Optimizer, state: dict[str, Any]) -> Path:
    """Write to a temporary directory, then swap it in: a crash never leaves half a checkpoint."""
    final, staging, old = (out_dir / CHECKPOINT_DIR, out_dir / f"{CHECKPOINT_DIR}.tmp",
                           out_dir / f"{CHECKPOINT_DIR}.old")
    shutil.rmtree(staging, ignore_errors=True)
    model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    torch.save(optimizer.state_dict(), staging / OPTIMIZER_FILE)
    (staging / STATE_FILE).write_text(json.dumps(state, indent=2))
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    staging.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def load_checkpoint(out_dir: Path) -> Checkpoint | None:
    path = out_dir / CHECKPOINT_DIR
    if not (path / STATE_FILE).exists():
        return None
    return Checkpoint(path, json.loads((path / STATE_FILE).read_text()))
