"""The sandbox factory: each process's backend, as `VERIFIER_SANDBOX` chooses it.

Apart from the interface (`backend.py`), which the back ends import: the factory imports them.
"""

from __future__ import annotations

import atexit
import importlib
import os
import threading

from verifier.sandbox.backend import SandboxBackend, SandboxUnavailable
from verifier.sandbox.bubblewrap import BubblewrapBackend

_lock = threading.Lock()
_backend: SandboxBackend | None = None
_backend_key: tuple[int, str] | None = None  # (process, backend name) it was made for


def backend_name() -> str:
    return os.environ.get("VERIFIER_SANDBOX", "bubblewrap").strip().lower() or "bubblewrap"


def _make_backend(name: str) -> SandboxBackend:
    if name == "bubblewrap":
        return BubblewrapBackend()
    if name == "docker":
        try:
            module = importlib.import_module("verifier.sandbox.docker_backend")
        except ImportError as exc:
            raise SandboxUnavailable(f"VERIFIER_SANDBOX=docker: {exc}") from exc
        return module.DockerBackend()
    raise SandboxUnavailable(f"VERIFIER_SANDBOX={name!r}: expected 'bubblewrap' or 'docker'")


def get_backend() -> SandboxBackend:
    """This process's backend, created on first use and closed at exit.

    A forked child never reuses its parent's backend (the pipes to the jail are the parent's),
    and changing VERIFIER_SANDBOX switches backends.
    """
    global _backend, _backend_key
    key = (os.getpid(), backend_name())
    with _lock:
        if _backend is None or _backend_key != key:
            if _backend is not None and _backend_key[0] == key[0]:
                _backend.close()
            _backend, _backend_key = None, None
            _backend = _make_backend(key[1])
            _backend_key = key
        return _backend


def _close_backend() -> None:
    if _backend is not None and _backend_key[0] == os.getpid():
        _backend.close()


atexit.register(_close_backend)
