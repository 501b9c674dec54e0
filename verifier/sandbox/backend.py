"""The jail backend interface: what the code runner needs from a sandbox.

A backend runs one program per `run` call in a fresh, isolated work directory and reports how it
ended. The code runner knows nothing else about the jail, so a backend is swappable (see
`factory.py`): `VERIFIER_SANDBOX=bubblewrap` (the default, `bubblewrap.py`) or `docker`
(`docker_backend.py`, a class `DockerBackend` implementing `SandboxBackend`).

The supervisor in `jail/supervisor.py` speaks the request/outcome format below over
`worker_jail.py` framing; a container backend can run that same supervisor inside its container and
reuse `SupervisorClient` from `bubblewrap.py` for everything but the launch.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from verifier.sandbox.worker_jail import PEER

# The jail's layout, the same for every backend: where its programs are, how its Python starts
# (no site, no bytecode writing, UTF-8 mode), and the environment a run starts from.
JAIL_HARNESS = "/opt/verifier"
JAIL_PYTHON_FLAGS = ("-s", "-S", "-B", "-X", "utf8")
JAIL_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp",
            "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}
# The jail's own processes (supervisor, runners) resolve every symbol of their shared libraries
# at start. Each warm run is a fork of a runner: a symbol resolved lazily would be resolved
# again, and its page of the symbol table copied, in every run. Runs start from JAIL_ENV.
SUPERVISOR_ENV = {**JAIL_ENV, "LD_BIND_NOW": "1"}
SANDBOX_DIR = Path(__file__).resolve().parent
JAIL_DIR = SANDBOX_DIR / "jail"  # the isolation mechanism: launcher, supervisor, runners
HARNESS_DIR = SANDBOX_DIR / "harness"  # what runs Python inside it: judge, contestant, ...
# Host modules the jail's programs import too (standard library only).
JAIL_SHARED = (SANDBOX_DIR / "worker_jail.py", SANDBOX_DIR.parent / "service" / "lru.py")


def jail_files() -> dict[str, str]:
    """The files the jail gets a copy of, flat in JAIL_HARNESS (jail path -> host path): every
    module of `jail/` and `harness/`, and the shared ones."""
    modules = [*JAIL_SHARED, *sorted(JAIL_DIR.glob("*.py")), *sorted(HARNESS_DIR.glob("*.py"))]
    return {f"{JAIL_HARNESS}/{path.name}": str(path) for path in modules
            if path.name != "__init__.py" and path.exists()}


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
    stderr_bytes: int | None = None  # how much of stderr comes back (its tail); None: 4 KiB


@dataclass(frozen=True)
class ArtefactStore:
    """After a successful run, keep `paths` of the work directory as the artefact `key`."""

    key: str
    paths: tuple[str, ...]


@dataclass
class PeerRun:
    """The second program of an interactive run (the interactor): its stdin is the run's
    program's stdout and its stdout the program's stdin. Its files, artefact and work
    directory are its own; the run's program (the solution) works in a directory, PID and mount
    namespace of its own, and never sees them."""

    argv: list[str]
    limits: SandboxLimits
    files: dict[str, bytes] = field(default_factory=dict)
    artefact: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    proc: bool = True
    collect: tuple[str, ...] = ()

    def header(self) -> dict:
        return {"argv": self.argv, "limits": dict(vars(self.limits)), "artefact": self.artefact,
                "env": self.env, "proc": self.proc, "collect": list(self.collect)}


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
    # On fd 4 (with the channel on fd 3): pyharness's JSON, or the record an appended-tests
    # epilogue copies back (code/appended.py); the records come back on `channel`.
    python_payload: bytes | None = None
    warm_python: bool = False  # run pyharness in a fork of the warm interpreter instead of argv
    # Runs one runner in the jail serves before a fresh one takes over. Runs of one runner share
    # its PID and mount namespaces, though not a process, a file or a byte of memory (see
    # jail/runner.py); 1 gives every run namespaces of its own (VERIFIER_SANDBOX_RUNNER_RUNS).
    runner_runs: int = 1
    # Files of the work directory that come back after the run (RunOutcome.files), each up to
    # the output limit: a file-I/O program's output, a checker's result.
    collect: tuple[str, ...] = ()
    stdin_file: str | None = None  # one of `files`, opened as stdin too (file I/O)
    peer: PeerRun | None = None  # an interactor talking to this program

    def header(self) -> dict:
        """The request as the supervisor reads it."""
        header = {"op": "run", "argv": self.argv, "limits": dict(vars(self.limits)),
                  "artefact": self.artefact, "env": self.env, "proc": self.proc,
                  "store": dict(vars(self.store)) if self.store else None,
                  "channel": self.python_payload is not None, "warm_python": self.warm_python,
                  "runner_runs": self.runner_runs}
        if self.collect:
            header["collect"] = list(self.collect)
        if self.stdin_file:
            header["stdin_file"] = self.stdin_file
        if self.peer is not None:
            header["peer"] = self.peer.header()
        return header

    def blobs(self) -> dict[str, bytes]:
        blobs = {} if self.stdin_file else {"stdin": self.stdin}
        if self.python_payload is not None:
            blobs["payload"] = self.python_payload
        blobs.update({f"file:{name}": data for name, data in self.files.items()})
        if self.peer is not None:
            blobs.update({f"{PEER}file:{name}": data for name, data in self.peer.files.items()})
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
    unusable_artefacts: str | None = None  # why a compile step's artefacts were not kept
    memory_peak_kb: int | None = None  # the run's peak, all processes (cgroup), when measured
    oom_killed: bool = False  # the run hit its cgroup memory limit
    files: dict[str, bytes] = field(default_factory=dict)  # collected, up to the output limit
    file_sizes: dict[str, int] = field(default_factory=dict)  # their full sizes
    peer: RunOutcome | None = None  # how an interactive run's interactor ended
    # At an interactive run's wall limit: what the program was blocked on ("stdin", "stdout",
    # "running", "other"), None if not known.
    blocked_on: str | None = None

    def judged(self) -> RunOutcome:
        """What a test's detail keeps of the run once its output has been judged: the figures
        and the stderr tail (4 KiB at most), not the output (up to the output limit per test),
        so an item's memory does not grow with each case's output."""
        return replace(self, stdout=b"", channel=b"", files={},
                       peer=self.peer.judged() if self.peer is not None else None)

    @classmethod
    def from_reply(cls, header: dict, blobs: dict[str, bytes]) -> RunOutcome:
        peer = header.get("peer")
        sizes = header.get("files")
        return cls(peer=None if not isinstance(peer, dict) else cls.from_reply(
                       peer, {name[len(PEER):]: data for name, data in blobs.items()
                              if name.startswith(PEER)}),
                   files={name[5:]: data for name, data in blobs.items()
                          if name.startswith("file:")},
                   file_sizes=sizes if isinstance(sizes, dict) else {},
                   blocked_on=header.get("blocked_on"),
                   exit_code=header.get("exit_code"), signal=header.get("signal"),
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
                   stored="stored_bytes" in header,
                   unusable_artefacts=header.get("unusable_artefacts"),
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

    def bytecode_magic(self) -> str | None:
        """The bytecode magic number (hex) of the interpreter warm Python runs use, as the
        running jail announced it; None before it runs or if it did not say."""

    def close(self) -> None:
        """Tear the jail down; a later `run` may start a fresh one."""
