"""The Docker jail backend (`VERIFIER_SANDBOX=docker`): every run inside a container as well.

For operators who want a container boundary around submissions (optionally gVisor's `runsc`).
Each worker slot keeps one warm container per language group, from the runner images built by
sandbox/images/build-runners.sh (Python, bubblewrap and that group's toolchain): no network,
a read-only root, tmpfs only, pids/memory/CPU limits, no capability, Docker's default seccomp
filter plus bubblewrap's namespace calls. Inside runs the very jail of the bubblewrap backend
(the same launcher, supervisor and harness, handed to the container on start so a runner image
never goes stale), so verdicts are the same and every run still gets a fresh work directory,
PID namespace and limits; a container that dies is replaced on the next run.

Settings: `ContainerSettings`, made by the sandbox factory from VERIFIER_DOCKER_* and
VERIFIER_SANDBOX_CGROUP (see verifier/config.py and the README's configuration table).
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import socket
import struct
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import docker
from docker.errors import DockerException
from docker.utils.socket import STDERR, STDOUT, frames_iter

from verifier.sandbox import worker_jail
from verifier.sandbox.backend import (
    JAIL_SHARED,
    SANDBOX_DIR,
    RunOutcome,
    RunRequest,
    SandboxUnavailable,
    exchange,
)
from verifier.sandbox.bubblewrap import DEFAULT_JAIL_PYTHON, REPLY_GRACE_S, STARTUP_TIMEOUT_S
from verifier.sandbox.cgroup import JailCgroup

log = logging.getLogger(__name__)

SECCOMP_PROFILE = SANDBOX_DIR / "seccomp-bwrap.json"
HARNESS_ROOT = "/opt/harness"
LABEL = "org.rlvr-verifier.sandbox"
STDERR_TAIL_BYTES = 8192

# Which runner image serves which toolchain executables (the backend's `tools()` names).
GROUP_TOOLS: dict[str, tuple[str, ...]] = {
    "python": ("python",),
    "c": ("gcc", "g++"),
    "java": ("javac", "java", "java-se"),
    "javascript": ("node",),
    "rust": ("rustc",),
    "bash": ("bash",),
}

# Runs first in each container, with the container's own Python: receives the sandbox package
# on stdin (4-byte length, then JSON {path: source}), reports the toolchains this image has,
# then becomes the bubblewrap launcher, whose supervisor keeps talking on the same stdin/stdout.
BOOTSTRAP = f"""
import json, os, struct, sys
def read(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            sys.exit("bootstrap: stdin closed")
        data += chunk
    return data
files = json.loads(read(struct.unpack(">I", read(4))[0]))
for path, text in files.items():
    target = os.path.join({HARNESS_ROOT!r}, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w") as out:
        out.write(text)
sys.path.insert(0, {HARNESS_ROOT!r})
from verifier.sandbox import bubblewrap
from verifier.sandbox import worker_jail
tools = bubblewrap.discover_tools({DEFAULT_JAIL_PYTHON!r})
launcher, _ = bubblewrap.build_launch(tools, None, None)
worker_jail.write_message(1, {{"tools": {{name: t.jail_path for name, t in tools.items()}}}})
os.execv(launcher[0], launcher)
"""


@dataclass(frozen=True)
class ContainerSettings:
    """How runner containers are made."""

    image: str  # per language group, `{group}` replaced
    runtime: str  # OCI runtime: "" (the daemon's default), "runsc", or "auto" (runsc if present)
    memory_mb: int
    cpus: float
    pids: int
    cgroup: bool  # limit and measure each run in the container's cgroup, where manageable


@functools.lru_cache(maxsize=1)
def harness_payload() -> bytes:
    """What the bootstrap reads: the sandbox package (all but this module) and the host modules
    the jail shares, the standard-library ones, which is all the bootstrap and the jail import."""
    root = SANDBOX_DIR.parent.parent
    paths = ({*SANDBOX_DIR.rglob("*.py"), *JAIL_SHARED} - {Path(__file__).resolve()})
    files = {"verifier/__init__.py": ""}
    files.update({str(path.relative_to(root)): path.read_text()
                  for path in sorted(paths) if path.exists()})
    raw = json.dumps(files).encode()
    return struct.pack(">I", len(raw)) + raw


def container_cgroup(pid: int) -> JailCgroup | None:
    """The memory cgroup Docker made for the container whose init is host `pid`, if this
    process can manage it (same host and cgroup namespace, root): then each run is limited and
    measured as a whole, exactly as the bubblewrap backend does with its jail's cgroup."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, relative = line.split(":", 2)
        if "memory" in controllers.split(","):
            group = JailCgroup(f"/sys/fs/cgroup/memory{relative}", 1)
        elif controllers == "" and os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
            group = JailCgroup(f"/sys/fs/cgroup{relative}", 2)
        else:
            continue
        try:  # writable here? (a trial run: no limit to speak of, peak reset)
            group.begin_run(1 << 40)
            group.end_run()
        except (OSError, ValueError):
            group.close()
            return None
        return group
    return None


@functools.lru_cache(maxsize=1)
def seccomp_profile() -> str:
    return json.dumps(json.loads(SECCOMP_PROFILE.read_text()), separators=(",", ":"))


class ContainerJail:
    """One warm runner container: the jail's supervisor over the container's attached stdio."""

    def __init__(self, client: docker.DockerClient, image: str, settings: ContainerSettings,
                 runtime: str | None) -> None:
        api = client.api
        host_config = api.create_host_config(
            network_mode="none", read_only=True, cap_drop=["ALL"], auto_remove=True,
            tmpfs={"/tmp": "size=64m,mode=1777", HARNESS_ROOT: "size=8m,mode=0755,uid=10001"},
            # Where the container's cgroup can be managed (see container_cgroup), each run's
            # budget replaces this limit while it runs; no swap limit, so that works on v1.
            # (The supervisor makes each submitted program the OOM killer's first choice.)
            mem_limit=settings.memory_mb * 1024 * 1024, memswap_limit=-1,
            nano_cpus=int(settings.cpus * 1e9), pids_limit=settings.pids,
            security_opt=[f"seccomp={seccomp_profile()}", "no-new-privileges"],
            runtime=runtime)
        # Each jail mounts a fresh /proc, which the kernel refuses while Docker's masks sit on
        # the container's /proc (the API's equivalent of `systempaths=unconfined`). The
        # container's processes hold no capability, so what the masks hid stays root-only.
        host_config["MaskedPaths"] = []
        host_config["ReadonlyPaths"] = []
        container = api.create_container(
            image, command=["python3", "-I", "-S", "-B", "-c", BOOTSTRAP], user="10001:10001",
            stdin_open=True, detach=False, network_disabled=True, host_config=host_config,
            labels={LABEL: "runner", f"{LABEL}.owner": f"{socket.gethostname()}:{os.getpid()}"})
        self.container_id: str = container["Id"]
        self._api = api
        self._stderr = bytearray()
        self._stdout_r, self._stdout_w = os.pipe()
        try:
            self._socket = api.attach_socket(self.container_id, params={
                "stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            self._pump = threading.Thread(target=self._demultiplex, daemon=True,
                                          name=f"jail-{self.container_id[:12]}")
            self._pump.start()
            api.start(self.container_id)
            os.write(self._socket.fileno(), harness_payload())
            announced, _ = worker_jail.read_message(self._stdout_r, STARTUP_TIMEOUT_S)
            self.tools: dict[str, str] = announced["tools"]
            hello, _ = worker_jail.read_message(self._stdout_r, STARTUP_TIMEOUT_S)
            self.python_version = hello.get("python")
            self.bytecode_magic: str | None = hello.get("bytecode_magic")
            init_pid = api.inspect_container(self.container_id)["State"]["Pid"]
            self.cgroup = container_cgroup(init_pid) if settings.cgroup else None
        except (worker_jail.ProtocolError, OSError, KeyError, DockerException) as exc:
            detail = self.stderr_text()
            self.close()
            raise SandboxUnavailable(f"runner container {image} did not start: {exc!r}: "
                                     f"{detail}") from exc

    def _demultiplex(self) -> None:
        """Copy the container's stdout into a pipe (what protocol reads) and keep its stderr."""
        try:
            for stream, data in frames_iter(self._socket, tty=False):
                if stream == STDOUT:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(self._stdout_w, view):]
                elif stream == STDERR:
                    self._stderr = (self._stderr + data)[-STDERR_TAIL_BYTES:]
        except OSError:
            pass
        finally:
            os.close(self._stdout_w)

    def stderr_text(self) -> str:
        return bytes(self._stderr[-2000:]).decode(errors="replace").strip()

    def request(self, header: dict, blobs: dict[str, bytes], timeout_s: float
                ) -> tuple[dict, dict[str, bytes]]:
        try:
            worker_jail.write_message(self._socket.fileno(), header, blobs)
        except OSError as exc:
            raise worker_jail.ProtocolError(f"the runner container is gone: {exc}") from exc
        return worker_jail.read_message(self._stdout_r, timeout_s)

    def alive(self) -> bool:
        return self._pump.is_alive()

    def close(self) -> None:
        """EOF on stdin ends the supervisor and so the container (removed automatically)."""
        with contextlib.suppress(OSError, AttributeError):
            self._socket._sock.shutdown(socket.SHUT_WR)
        pump = getattr(self, "_pump", None)
        if pump is not None:
            pump.join(timeout=5)
        if pump is None or pump.is_alive():
            with contextlib.suppress(DockerException):
                self._api.kill(self.container_id)
        with contextlib.suppress(OSError, AttributeError):
            self._socket.close()
        if getattr(self, "cgroup", None) is not None:
            self.cgroup.close()  # Docker removes the cgroup with the container
        # The pump closes the write end when it ends; if it never started, it is ours.
        ends = [self._stdout_r] if pump is not None else [self._stdout_r, self._stdout_w]
        for fd in ends:
            with contextlib.suppress(OSError):
                os.close(fd)


class DockerBackend:
    """SandboxBackend on Docker: warm runner containers per language group, started lazily."""

    name = "docker"

    def __init__(self, settings: ContainerSettings) -> None:
        self._settings = settings
        self._client: docker.DockerClient | None = None
        self._runtime: str | None = None
        self._jails: dict[str, ContainerJail] = {}
        self._missing: dict[str, str] = {}  # group -> why its runner cannot start
        self._artefact_group: dict[str, str] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ containers

    def _docker(self) -> docker.DockerClient:
        if self._client is None:
            try:
                client = docker.from_env(timeout=60)
                runtimes = client.info().get("Runtimes", {})
            except DockerException as exc:
                raise SandboxUnavailable(f"cannot reach the Docker daemon: {exc}") from exc
            wanted = self._settings.runtime
            if wanted == "auto":
                self._runtime = "runsc" if "runsc" in runtimes else None
            elif wanted:
                if wanted not in runtimes:
                    raise SandboxUnavailable(f"VERIFIER_DOCKER_RUNTIME={wanted!r} is not a "
                                             f"runtime of this daemon ({', '.join(runtimes)})")
                self._runtime = wanted
            self._client = client
        return self._client

    def _start(self, groups: Iterable[str]) -> None:
        """Start the runner containers of `groups` that are not running, in parallel."""
        client = self._docker()
        wanted = [g for g in groups if g not in self._missing and not (
            g in self._jails and self._jails[g].alive())]
        if not wanted:
            return

        def start(group: str) -> tuple[str, ContainerJail | str]:
            image = self._settings.image.format(group=group)
            try:
                return group, ContainerJail(client, image, self._settings, self._runtime)
            except (SandboxUnavailable, DockerException) as exc:
                return group, str(exc)

        with ThreadPoolExecutor(max_workers=len(wanted)) as pool:
            for group, outcome in pool.map(start, wanted):
                old = self._jails.pop(group, None)
                if old is not None:
                    old.close()
                if isinstance(outcome, ContainerJail):
                    self._jails[group] = outcome
                else:
                    log.warning("docker sandbox: no %s runner: %s", group, outcome)
                    self._missing[group] = outcome

    def tools(self) -> dict[str, str]:
        with self._lock:
            try:
                self._start(GROUP_TOOLS)
            except SandboxUnavailable as exc:
                log.warning("docker sandbox unavailable: %s", exc)
                return {}
            return {tool: jail.tools[tool] for group, jail in self._jails.items()
                    for tool in GROUP_TOOLS[group] if tool in jail.tools}

    def bytecode_magic(self) -> str | None:
        jail = self._jails.get("python")
        return jail.bytecode_magic if jail is not None else None

    def _group_for(self, request: RunRequest) -> str:
        if request.artefact is not None:
            return self._artefact_group.get(request.artefact, "")
        if request.warm_python:
            return "python"
        for group, jail in self._jails.items():
            if request.argv and request.argv[0] in (jail.tools.get(t) for t in GROUP_TOOLS[group]):
                return group
        return ""

    # ------------------------------------------------------------------ runs

    def run(self, request: RunRequest) -> RunOutcome:
        timeout = request.limits.wall_s + REPLY_GRACE_S
        with self._lock:
            try:
                if not self._jails:
                    self._start(GROUP_TOOLS)
            except SandboxUnavailable as exc:
                return RunOutcome(error=str(exc))
            group = self._group_for(request)
            if not group:
                if request.artefact is not None:  # its container was replaced: build again
                    return RunOutcome(missing_artefact=True)
                return RunOutcome(error=f"no runner container has {request.argv[:1]}")
            failure = ""
            for _attempt in range(2):  # a container that died under us gets one fresh retry
                try:
                    self._start([group])
                    jail = self._jails.get(group)
                    if jail is None:
                        return RunOutcome(error=self._missing.get(group, "no runner"))
                    outcome = exchange(jail, request, timeout, jail.cgroup)
                    if request.store is not None and (outcome.stored or outcome.cached):
                        self._artefact_group[request.store.key] = group
                    return outcome
                except SandboxUnavailable as exc:
                    return RunOutcome(error=str(exc))
                except (worker_jail.ProtocolError, OSError) as exc:
                    # A replacement container has an empty artefact cache: a run that needs an
                    # artefact then answers `missing_artefact`, and the runner builds again.
                    jail = self._jails.pop(group, None)
                    failure = f"{exc}; {jail.stderr_text() if jail else ''}"
                    if jail is not None:
                        jail.close()
            return RunOutcome(error=f"the runner container failed twice: {failure}")

    def close(self) -> None:
        with self._lock:
            for jail in self._jails.values():
                jail.close()
            self._jails.clear()
            self._artefact_group.clear()
            if self._client is not None:
                self._client.close()
                self._client = None
