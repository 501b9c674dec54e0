"""The bubblewrap backend (the default): one long-lived jail per worker slot.

The jail is `bwrap` with every namespace unshared (user, PID, network: the jail's own, and
each runner one of its own without any interface up, see jail/namespaces.py; IPC, UTS,
cgroup), user namespaces disabled inside, a read-only view of the executables, the shared
libraries and the installed toolchains' own directories (toolchains.py; not the whole of /usr),
a read-only root and /dev, a tmpfs /tmp, a cleared environment, and `--die-with-parent`. Inside
runs the supervisor (`jail/supervisor.py`), whose runners give every run its own work directory,
/dev/shm and IPC namespace, and kill every process the run started when it ends. As root, the
jail is started from an unprivileged uid (`jail/launch.py`), so its processes are never root to
the kernel, and, where the host allows, inside a memory cgroup of its own (`cgroup.py`) that
bounds each run as a whole.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, replace

from verifier.sandbox import worker_jail
from verifier.sandbox.backend import (
    JAIL_DIR,
    JAIL_HARNESS,
    JAIL_PYTHON_FLAGS,
    SUPERVISOR_ENV,
    RunOutcome,
    RunRequest,
    SandboxUnavailable,
    exchange,
    jail_files,
)
from verifier.sandbox.cgroup import JailCgroup
from verifier.sandbox.toolchains import BASE_DIRS, ETC_FILES, TOOLCHAINS

JAIL_RUST = "/opt/toolchains/rust"
DEFAULT_JAIL_PYTHON = "/usr/bin/python3"  # a runner image's (the service's is a setting)
SYSTEM_PREFIXES = ("/usr/",)
STARTUP_TIMEOUT_S = 60.0
REPLY_GRACE_S = 30.0
# The stack limit equals the runs' (languages.stack_mb): glibc fixes the default thread stack at
# process start, so the warm interpreter must start with the same one a cold run gets.
JAIL_RLIMITS = {"RLIMIT_NPROC": 4096, "RLIMIT_NOFILE": 4096, "RLIMIT_CORE": 0,
                "RLIMIT_STACK": 64 * 1024 * 1024}


@dataclass(frozen=True)
class HostTool:
    """A toolchain executable: its path in the jail and the host directories it needs there."""

    jail_path: str
    mounts: tuple[tuple[str, str], ...] = ()  # outside /usr: (host path, jail path)
    dirs: tuple[str, ...] = ()  # system directories it reads, bound at the same path


def _search_path() -> str:
    extra = ["/usr/local/bin", "/usr/bin", "/bin", os.path.expanduser("~/.cargo/bin")]
    return os.pathsep.join([os.environ.get("PATH", ""), *extra])


def _which(name: str) -> str | None:
    if os.path.isabs(name):  # a file the tool is (a runtime's library)
        return os.path.realpath(name) if os.path.isfile(name) else None
    found = shutil.which(name, path=_search_path())
    return os.path.realpath(found) if found else None


def _tool_at(real_path: str, prefix_levels: int = 2) -> HostTool:
    """Outside /usr, the tool's installation prefix is bound at the same path in the jail."""
    if real_path.startswith(SYSTEM_PREFIXES):
        return HostTool(real_path)
    prefix = real_path
    for _ in range(prefix_levels):
        prefix = os.path.dirname(prefix)
    return HostTool(real_path, ((prefix, prefix),))


@dataclass(frozen=True)
class JailSettings:
    """How this backend makes its jail (from VERIFIER_JAIL_PYTHON, VERIFIER_SANDBOX_UID_BASE and
    VERIFIER_SANDBOX_CGROUP, through the sandbox factory)."""

    python: str  # the jail's interpreter
    uid_base: int  # as root, the jail runs as uid_base + the worker's pid
    cgroup: bool  # a memory cgroup for the jail, where the host allows one


def _rust_tool() -> HostTool | None:
    rustc = shutil.which("rustc", path=_search_path())  # not resolved: rustup's proxy needs argv[0]
    if rustc is None:
        return None
    try:
        sysroot = subprocess.run(
            [rustc, "--print", "sysroot"], capture_output=True, text=True, timeout=30,
            env={**os.environ, "PATH": _search_path()}, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    if not os.path.isfile(os.path.join(sysroot, "bin", "rustc")):
        return None
    if sysroot.startswith(SYSTEM_PREFIXES):
        return HostTool(os.path.join(sysroot, "bin", "rustc"))
    return HostTool(f"{JAIL_RUST}/bin/rustc", ((os.path.realpath(sysroot), JAIL_RUST),))


@functools.lru_cache(maxsize=4)
def discover_tools(python: str) -> dict[str, HostTool]:
    """The toolchains present on this host, as the jail will see them; `python` is the jail's
    interpreter (absent from the result if it is not an executable)."""
    tools: dict[str, HostTool] = {}
    if os.access(python, os.X_OK):
        real = os.path.realpath(python)
        stdlib = f"/usr/lib/{os.path.basename(real)}"  # /usr/bin/python3.11: /usr/lib/python3.11
        tools["python"] = replace(_tool_at(real), dirs=(stdlib,) if os.path.isdir(stdlib) else ())
    for name, toolchain in TOOLCHAINS.items():
        if name == "rustc":
            continue
        path = next(filter(None, map(_which, toolchain.executables)), None)
        if path:
            tools[name] = replace(_tool_at(path), dirs=_existing(toolchain.dirs))
    javac = tools.get("javac")
    if javac:  # the java next to javac, not another JDK's
        java = os.path.join(os.path.dirname(javac.jail_path), "java")
        if os.access(java, os.X_OK):
            tools["java"] = replace(tools.get("java") or javac, jail_path=java)
    rust = _rust_tool()
    if rust:
        tools["rustc"] = replace(rust, dirs=_existing(TOOLCHAINS["rustc"].dirs))
    return tools


def _existing(patterns: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(path for pattern in patterns for path in sorted(glob.glob(pattern))
                 if os.path.isdir(path) or os.path.isfile(path))


def _root_binds(tools: dict[str, HostTool]) -> list[str]:
    """The common base (the executables, the shared libraries, the dynamic linker), the
    merged-/usr symlinks or directories, and each installed toolchain's own directories; the
    rest of the host's /usr is not in the jail."""
    paths = set(_existing(BASE_DIRS + ETC_FILES))
    for tool in tools.values():
        paths.update(tool.dirs)
    args: list[str] = []
    for path in sorted(paths):
        args += ["--ro-bind", path, path]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = f"/{name}"
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


def outer_uid(uid_base: int) -> int | None:
    """As root, the unprivileged uid this slot's jail runs as (distinct per worker process)."""
    return uid_base + os.getpid() if os.geteuid() == 0 else None


def build_launch(tools: dict[str, HostTool], cgroup: JailCgroup | None, uid: int | None,
                 program: str = "supervisor.py") -> tuple[list[str], dict]:
    """The launcher command and its spec: the jail's programs, staging (as root), the `uid` to
    drop to, rlimits, the bwrap argv, and the memory cgroup to enter (then the jail is shielded
    from the OOM killer, runs are not). The jail's first process is `program` (of jail/): the
    supervisor, or a session's keeper (session.py)."""
    python = tools.get("python")
    if python is None:
        raise SandboxUnavailable("no Python for the jail")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap is not installed (apt-get install bubblewrap)")
    mounts: dict[str, str] = {}
    for tool in tools.values():
        mounts.update(dict(tool.mounts))
    stage: dict[str, str] = {}
    binds: list[str] = []
    for index, (source, target) in enumerate(sorted(mounts.items())):
        if uid is not None:  # as root: bind from the staging area the unprivileged uid can reach
            stage[f"m{index}"] = source
            source = f"/tmp/m{index}"
        binds += ["--ro-bind", source, target]
    argv = [bwrap, "--unshare-all", "--unshare-user", "--uid", "1000", "--gid", "1000",
            "--disable-userns", "--die-with-parent", "--new-session", "--hostname", "sandbox",
            "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP", "--clearenv"]
    for key, value in SUPERVISOR_ENV.items():
        argv += ["--setenv", key, value]
    argv += _root_binds(tools) + binds
    argv += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev", "--tmpfs", "/tmp",
             "--remount-ro", "/", "--chdir", "/tmp", "--",
             python.jail_path, *JAIL_PYTHON_FLAGS, f"{JAIL_HARNESS}/{program}"]
    spec = {"argv": argv, "files": jail_files(), "uid": uid, "stage": stage,
            "rlimits": JAIL_RLIMITS, "cgroup_procs": cgroup.procs_file if cgroup else None,
            "oom_score_adj": -1000 if cgroup else None}
    launcher = [sys.executable, "-s", "-S", "-B", str(JAIL_DIR / "launch.py"), json.dumps(spec)]
    return launcher, spec


class SupervisorClient:
    """One running jail: the bwrap process and the framed channel to its supervisor."""

    def __init__(self, command: list[str]) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the jail)
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self._stderr, close_fds=True,
                                        start_new_session=True)
        try:
            hello, _ = worker_jail.read_message(self.process.stdout.fileno(), STARTUP_TIMEOUT_S)
        except worker_jail.ProtocolError as exc:
            detail = self.stderr_text()
            self.close()
            raise SandboxUnavailable(f"the jail did not start: {exc}: {detail}") from exc
        self.python_version = hello.get("python")
        self.bytecode_magic: str | None = hello.get("bytecode_magic")

    def stderr_text(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read()[-2000:].decode(errors="replace").strip()

    def request(self, header: dict, blobs: dict[str, bytes], timeout_s: float
                ) -> tuple[dict, dict[str, bytes]]:
        try:
            worker_jail.write_message(self.process.stdin.fileno(), header, blobs)
        except OSError as exc:
            raise worker_jail.ProtocolError(f"the jail is gone: {exc}") from exc
        return worker_jail.read_message(self.process.stdout.fileno(), timeout_s)

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        """End the jail: EOF tells the supervisor to exit; then the process group is killed."""
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self._stderr.close()


class BubblewrapBackend:
    """SandboxBackend on bubblewrap; the jail starts lazily and restarts if it dies."""

    name = "bubblewrap"

    def __init__(self, settings: JailSettings) -> None:
        self.settings = settings
        self._client: SupervisorClient | None = None
        self._cgroup: JailCgroup | None = None
        self._cgroup_tried = False
        self._lock = threading.Lock()

    def tools(self) -> dict[str, str]:
        return {name: tool.jail_path
                for name, tool in discover_tools(self.settings.python).items()}

    def bytecode_magic(self) -> str | None:
        client = self._client
        return client.bytecode_magic if client is not None else None

    def _jail(self) -> SupervisorClient:
        if self._client is not None and not self._client.alive():
            self._client.close()
            self._client = None
        if self._client is None:
            tools = discover_tools(self.settings.python)
            if "python" not in tools:
                raise SandboxUnavailable(f"no Python for the jail: VERIFIER_JAIL_PYTHON="
                                         f"{self.settings.python!r} is not an executable")
            if not self._cgroup_tried and self.settings.cgroup:
                self._cgroup_tried = True
                self._cgroup = JailCgroup.create("verifier-jail-")
            launcher, _ = build_launch(tools, self._cgroup, outer_uid(self.settings.uid_base))
            self._client = SupervisorClient(launcher)
        return self._client

    def run(self, request: RunRequest) -> RunOutcome:
        timeout = request.limits.wall_s + REPLY_GRACE_S
        with self._lock:
            failure = ""
            for _attempt in range(2):  # a jail that died under us gets one fresh retry
                try:
                    return exchange(self._jail(), request, timeout, self._cgroup)
                except SandboxUnavailable as exc:
                    return RunOutcome(error=str(exc))
                except (worker_jail.ProtocolError, OSError) as exc:
                    failure = f"{exc}; {self._client.stderr_text() if self._client else ''}"
                    self._discard()
            return RunOutcome(error=f"the jail failed twice: {failure}")

    def _discard(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def close(self) -> None:
        with self._lock:
            self._discard()
            if self._cgroup is not None:
                self._cgroup.remove()
                self._cgroup, self._cgroup_tried = None, False
