"""Where the peers' own cases are: the shared folder's `peer/` (math-verify's suite, IFEval's
and IFEvalG's verdicts, reasoning-gym's scores, testlib). `PEER_DIR` names it; otherwise it is
looked for as `shared/peer` beside the checkout or one of its parents. Tests that need it skip
when it is absent, saying so."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def peer_dir() -> Path | None:
    if os.environ.get("PEER_DIR"):
        return Path(os.environ["PEER_DIR"])
    return next((folder / "shared" / "peer" for folder in Path(__file__).resolve().parents[1:5]
                 if (folder / "shared" / "peer").is_dir()), None)


def peer_file(name: str) -> Path:
    """The peer file `name` (a path inside peer/), or skip the calling test."""
    folder = peer_dir()
    if folder is None or not (folder / name).exists():
        pytest.skip(f"the peers' cases are not here (peer/{name}; set PEER_DIR)")
    return folder / name
