"""The sandbox factory: the backend the settings choose (`VERIFIER_SANDBOX`), one per process.

Apart from the interface (`backend.py`), which the back ends import: the factory imports them,
and hands each its part of the settings as a plain dataclass (the back ends run in runner
containers too, where only the standard library is).
"""

from __future__ import annotations

import atexit
import importlib
import os
import threading
from types import ModuleType
from typing import TYPE_CHECKING

from verifier.config import Settings
from verifier.sandbox.backend import SandboxBackend, SandboxUnavailable
from verifier.sandbox.bubblewrap import BubblewrapBackend, JailSettings

if TYPE_CHECKING:
    from verifier.sandbox.docker_backend import ContainerSettings

_lock = threading.Lock()
_backend: SandboxBackend | None = None
# The process and the configuration it was made for.
_backend_key: tuple[int, JailSettings | ContainerSettings] | None = None


def _docker_backend() -> ModuleType:
    """Imported when chosen: the `docker` package is an extra."""
    try:
        return importlib.import_module("verifier.sandbox.docker_backend")
    except ImportError as exc:
        raise SandboxUnavailable(f"VERIFIER_SANDBOX=docker: {exc}") from exc


def backend_configuration(settings: Settings) -> JailSettings | ContainerSettings:
    """The chosen backend's part of the settings."""
    if settings.sandbox == "docker":
        return _docker_backend().ContainerSettings(
            image=settings.docker_image, runtime=settings.docker_runtime,
            memory_mb=settings.docker_memory_mb, cpus=settings.docker_cpus,
            pids=settings.docker_pids, cgroup=settings.sandbox_cgroup)
    return JailSettings(python=settings.jail_python, uid_base=settings.sandbox_uid_base,
                        cgroup=settings.sandbox_cgroup)


def make_backend(settings: Settings) -> SandboxBackend:
    """A new backend as `settings` choose it; the caller closes it."""
    configuration = backend_configuration(settings)
    if settings.sandbox == "docker":
        return _docker_backend().DockerBackend(configuration)
    return BubblewrapBackend(configuration)


def get_backend(settings: Settings) -> SandboxBackend:
    """This process's backend, created on first use and closed at exit.

    A forked child never reuses its parent's backend (the pipes to the jail are the parent's),
    and settings that choose another backend, or configure it otherwise, replace it.
    """
    global _backend, _backend_key
    key = (os.getpid(), backend_configuration(settings))
    with _lock:
        if _backend is None or _backend_key != key:
            if _backend is not None and _backend_key[0] == key[0]:
                _backend.close()
            _backend, _backend_key = None, None
            _backend = make_backend(settings)
            _backend_key = key
        return _backend


def _close_backend() -> None:
    if _backend is not None and _backend_key[0] == os.getpid():
        _backend.close()


atexit.register(_close_backend)
