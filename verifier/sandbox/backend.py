"""The jail backend interface: what the code runner needs from a sandbox, and the factory.

A backend runs one program per `run` call in a fresh, isolated work directory and reports how it
ended. The code runner knows nothing else about the jail, so a backend is swappable:
`VERIFIER_SANDBOX=bubblewrap` (the default, `bubblewrap.py`) or `docker`
(`docker_backend.py`, a class `DockerBackend` implementing `SandboxBackend`).

The supervisor in `supervisor.py` speaks the request/outcome format below over `protocol.py`
framing; a container backend can run that same supervisor inside its container and reuse
`SupervisorClient` from `bubblewrap.py` for everything but the launch.
"""

from __future__ import annotations

import atexit
import importlib
import os
import threading
from dataclasses import dataclass, field
from typing import Protocol

# The jail's layout, the same for every backend: where the harness files are, how its Python
# starts (no site, no bytecode writing, UTF-8 mode), and the environment a run starts from.
JAIL_HARNESS = "/opt/verifier"
JAIL_PYTHON_FLAGS = ("-s", "-S", "-B", "-X", "utf8")
JAIL_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp",
            "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}


def runner_runs() -> int:
    """How many runs one runner in the jail serves before a fresh one takes over
    (VERIFIER_SANDBOX_RUNNER_RUNS, default 256). Runs of one runner share its PID and mount
    namespaces, though not a process, a file or a byte of memory (see supervisor.py); 1 gives
    every run namespaces of its own, for about 4 ms more CPU per run."""
    try:
        return max(1, int(os.environ.get("VERIFIER_SANDBOX_RUNNER_RUNS", "256")))
    except ValueError:
        return 256


class SandboxUnavailable(RuntimeError):
    """The jail cannot be started here (missing bwrap, namespaces disabled, ...)."""


@dataclass(frozen=True)
class SandboxLimits:
    """Resolved limits of one run. None for an address-space or data limit means unset."""

    cpu_s: float
    wall_s: float
    as_bytes: int | None
    data_bytes: int | None
    stack_bytes: int
    nproc: int
    fsize_bytes: int
    nofile: int
    output_bytes: int
    tmpfs_bytes: int
    memory_bytes: int | None = None  # the run's total, all processes (where a cgroup enforces it)


@dataclass(frozen=True)
class ArtefactStore:
    """After a successful run, keep `paths` of the work directory as the artefact `key`."""

    key: str
    paths: tuple[str, ...]


@dataclass
class RunRequest:
    """One program run. `argv` uses the tool paths the backend reported in `tools()`."""

    argv: list[str]
    limits: SandboxLimits
    stdin: bytes = b""
    files: dict[str, bytes] = field(default_factory=dict)
    artefact: str | None = None
    store: ArtefactStore | None = None
    env: dict[str, str] = field(default_factory=dict)
    proc: bool = True
    python_payload: bytes | None = None  # JSON for pyharness; its records come back on `channel`
    warm_python: bool = False  # run pyharness in a fork of the warm interpreter instead of argv

    def header(self) -> dict:
        """The request as the supervisor reads it."""
        return {"op": "run", "argv": self.argv, "limits": dict(vars(self.limits)),
                "artefact": self.artefact, "env": self.env, "proc": self.proc,
                "store": dict(vars(self.store)) if self.store else None,
                "channel": self.python_payload is not None, "warm_python": self.warm_python,
                "runner_runs": runner_runs()}

    def blobs(self) -> dict[str, bytes]:
        blobs = {"stdin": self.stdin}
        if self.python_payload is not None:
            blobs["payload"] = self.python_payload
        blobs.update({f"file:{name}": data for name, data in self.files.items()})
        return blobs


@dataclass
class RunOutcome:
    """How a run ended. `error` is set only when the sandbox itself failed (infra)."""

    exit_code: int | None = None
    signal: int | None = None
    cpu_s: float | None = None
    wall_s: float = 0.0
    maxrss_kb: int | None = None
    wall_timeout: bool = False
    output_exceeded: bool = False
    stdout: bytes = b""
    stderr: bytes = b""
    channel: bytes = b""
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    cached: bool = False
    missing_artefact: bool = False
    stored: bool = False
    error: str | None = None
    too_large: str | None = None  # the compiled artefacts were over the cache's limit
    memory_peak_kb: int | None = None  # the run's peak, all processes (cgroup), when measured
    oom_killed: bool = False  # the run hit its cgroup memory limit

    @classmethod
    def from_reply(cls, header: dict, blobs: dict[str, bytes]) -> RunOutcome:
        return cls(exit_code=header.get("exit_code"), signal=header.get("signal"),
                   cpu_s=header.get("cpu_s"), wall_s=header.get("wall_s", 0.0),
                   maxrss_kb=header.get("maxrss_kb"),
                   wall_timeout=bool(header.get("wall_timeout")),
                   output_exceeded=bool(header.get("output_exceeded")),
                   stdout=blobs.get("stdout", b""), stderr=blobs.get("stderr", b""),
                   channel=blobs.get("channel", b""),
                   stdout_bytes=header.get("stdout_bytes", 0),
                   stderr_bytes=header.get("stderr_bytes", 0),
                   cached=bool(header.get("cached")),
                   missing_artefact=bool(header.get("missing_artefact")),
                   stored="stored_bytes" in header, too_large=header.get("too_large"),
                   error=header.get("error") or header.get("store_error")
                   or header.get("setup_error") or None)


class _Jail(Protocol):
    def request(self, header: dict, blobs: dict[str, bytes], timeout: float
                ) -> tuple[dict, dict[str, bytes]]: ...


class _RunCgroup(Protocol):
    def begin_run(self, memory_bytes: int) -> None: ...

    def end_run(self) -> tuple[int | None, bool]: ...


def exchange(jail: _Jail, request: RunRequest, timeout: float,
             cgroup: _RunCgroup | None) -> RunOutcome:
    """Send one run to a jail's supervisor and read how it ended. With a cgroup, the run's
    memory is limited and measured as a whole (all its processes), OOM kills included."""
    measured = cgroup is not None and request.limits.memory_bytes
    if measured:
        cgroup.begin_run(request.limits.memory_bytes)
    header, blobs = jail.request(request.header(), request.blobs(), timeout)
    outcome = RunOutcome.from_reply(header, blobs)
    if measured:
        peak, outcome.oom_killed = cgroup.end_run()
        outcome.memory_peak_kb = None if peak is None else peak // 1024
    return outcome


class SandboxBackend(Protocol):
    """What the code runner uses. One instance per worker slot (process); not shared."""

    name: str

    def tools(self) -> dict[str, str]:
        """Tool name (python, gcc, g++, javac, java, node, rustc, bash) → path in the jail,
        for the tools actually present."""

    def run(self, request: RunRequest) -> RunOutcome:
        """Run one program; never raises for the program's behaviour, only reports it."""

    def close(self) -> None:
        """Tear the jail down; a later `run` may start a fresh one."""


_lock = threading.Lock()
_backend: SandboxBackend | None = None
_backend_key: tuple[int, str] | None = None  # (process, backend name) it was made for


def backend_name() -> str:
    return os.environ.get("VERIFIER_SANDBOX", "bubblewrap").strip().lower() or "bubblewrap"


def _make_backend(name: str) -> SandboxBackend:
    if name == "bubblewrap":
        from verifier.sandbox.bubblewrap import BubblewrapBackend

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
