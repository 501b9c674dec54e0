"""The sandbox: a jail per worker slot that runs hostile code (see backend.py; jail/ holds the
programs that run inside it)."""

from verifier.sandbox.backend import (
    ArtefactStore,
    RunOutcome,
    RunRequest,
    SandboxBackend,
    SandboxLimits,
    SandboxUnavailable,
)

__all__ = ["ArtefactStore", "RunOutcome", "RunRequest", "SandboxBackend", "SandboxLimits",
           "SandboxUnavailable"]
