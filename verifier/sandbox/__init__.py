"""The sandbox: a jail per worker slot that runs hostile code (see backend.py; jail/ holds the
isolation mechanism that runs inside it, harness/ what runs Python tests there)."""

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
