"""Checkpoint and resume: model, tokenizer, optimizer, RNG states and the run's counters.

`trainer_state.json` holds `step` (the next step to run, which is also the policy version the
checkpointed weights carry) and `data_slot` (the next prompt slot). Groups that were generated
ahead of the trainer (up to k steps' worth) are not saved: a resumed run regenerates them
with the checkpointed weights, so the staleness bound holds across the restart. The RNG states
(Python, torch CPU and CUDA) continue from where the save found them, so a resumed run does not
replay the samples its first run drew from the seed. The learning rate is a function of the
step alone.

A save writes `checkpoint.tmp`, renames `checkpoint` to `checkpoint.old`, then `checkpoint.tmp`
to `checkpoint`: a crash between the two renames leaves only `checkpoint.old`, which
`load_checkpoint` takes back.
"""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

CHECKPOINT_DIR = "checkpoint"
STATE_FILE = "trainer_state.json"
OPTIMIZER_FILE = "optimizer.pt"
RNG_FILE = "rng.pt"


@dataclass
class Checkpoint:
    path: Path
    state: dict[str, Any]

    def load_optimizer(self, optimizer: torch.optim.Optimizer) -> None:
        optimizer.load_state_dict(torch.load(self.path / OPTIMIZER_FILE, weights_only=True))

    def restore_rng(self) -> None:
        state = torch.load(self.path / RNG_FILE, weights_only=False)
        random.setstate(state["python"])
        torch.set_rng_state(state["torch"])
        if state["cuda"] and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(state["cuda"])


def rng_state() -> dict[str, Any]:
    return {"python": random.getstate(), "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []}


def save_checkpoint(out_dir: Path, model: Any, tokenizer: Any,
                    optimizer: torch.optim.Optimizer, state: dict[str, Any]) -> Path:
    """Write to a temporary directory, then swap it in: a crash never leaves half a checkpoint."""
    final, staging, old = (out_dir / CHECKPOINT_DIR, out_dir / f"{CHECKPOINT_DIR}.tmp",
                           out_dir / f"{CHECKPOINT_DIR}.old")
    shutil.rmtree(staging, ignore_errors=True)
    model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    torch.save(optimizer.state_dict(), staging / OPTIMIZER_FILE)
    torch.save(rng_state(), staging / RNG_FILE)
    (staging / STATE_FILE).write_text(json.dumps(state, indent=2))
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    staging.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def load_checkpoint(out_dir: Path) -> Checkpoint | None:
    """The last complete checkpoint, `checkpoint.old` included if a save died mid-swap."""
    path, old = out_dir / CHECKPOINT_DIR, out_dir / f"{CHECKPOINT_DIR}.old"
    if not (path / STATE_FILE).exists() and (old / STATE_FILE).exists():
        shutil.rmtree(path, ignore_errors=True)
        old.rename(path)
    if not (path / STATE_FILE).exists():
        return None
    return Checkpoint(path, json.loads((path / STATE_FILE).read_text()))
