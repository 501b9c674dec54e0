"""A memory cgroup around one jail, where the host lets the worker make one (standard library).

rlimits bound each process; the cgroup bounds a run as a whole (a fork bomb whose processes each
stay under RLIMIT_AS), charges files written to tmpfs, measures the run's true peak (rather than
a forked interpreter's resident pages), and turns an OOM kill into a clear `memory_limit`.

Before each run the limit becomes the memory in use (supervisor, prepared runner, artefact
cache) plus the run's budget, and the peak counter is reset; after it, the peak above that
baseline and whether the OOM killer fired are read back. Works with cgroup v1 (a writable
memory hierarchy, as on this project's machines) and v2 (where the memory controller is
delegated), found wherever the hierarchy is mounted (`memory_hierarchies`, containers
included); anywhere else the jail runs without one, rlimits apply, and the code runner judges
a run by its program's peak RSS (verifier/kinds/code/limits.py).
"""

from __future__ import annotations

import contextlib
import os
import re
import time

WRITTEN = frozenset({"limit", "peak"})  # the control files a run writes (v1 resets its peak)
OOM_KILL_LINE = re.compile(r"^oom_kill (\d+)$", re.M)


class JailCgroup:
    """One cgroup directory and the files that differ between v1 and v2."""

    def __init__(self, path: str, version: int) -> None:
        self.path = path
        self.version = version
        names = ({"limit": "memory.limit_in_bytes", "usage": "memory.usage_in_bytes",
                  "peak": "memory.max_usage_in_bytes", "events": "memory.oom_control"}
                 if version == 1 else
                 {"limit": "memory.max", "usage": "memory.current", "peak": "memory.peak",
                  "events": "memory.events"})
        self._files = {key: os.path.join(path, name) for key, name in names.items()}
        self._fds: dict[str, int] = {}  # opened once: a run then costs no open/close
        self._baseline = 0
        self._oom_kills = 0
        self._peak_fd: int | None = None

    @property
    def procs_file(self) -> str:
        return os.path.join(self.path, "cgroup.procs")

    @classmethod
    def create(cls, prefix: str, suffix: str = "") -> JailCgroup | None:
        """A cgroup `<prefix><pid>` (`<prefix><pid>-<suffix>` with a suffix: one process's
        several jails) below this process's memory cgroup, or None.

        Those of workers that died without cleaning up (killed) are removed on the way.
        """
        name = f"{prefix}{os.getpid()}" + (f"-{suffix}" if suffix else "")
        for version, parent in _parents():
            _remove_abandoned(parent, prefix)
            path = os.path.join(parent, name)
            try:
                os.mkdir(path, 0o755)
            except FileExistsError:
                pass
            except OSError:
                continue
            group = cls(path, version)
            try:
                group._read("usage")
                group._write("limit", "max" if version == 2 else "-1")
                return group
            except (OSError, ValueError):
                group.remove()
        return None

    def _fd(self, key: str) -> int:
        fd = self._fds.get(key)
        if fd is None:
            fd = self._fds[key] = os.open(self._files[key], os.O_RDWR if key in WRITTEN
                                          else os.O_RDONLY)
        return fd

    def _read_text(self, key: str) -> str:
        """The file's whole content, read afresh (cgroup files regenerate it at offset 0)."""
        return os.pread(self._fd(key), 4096, 0).decode()

    def _read(self, key: str) -> int:
        return int(self._read_text(key).split()[0])

    def _write(self, key: str, value: str) -> None:
        os.pwrite(self._fd(key), value.encode(), 0)

    def oom_kill_count(self) -> int:
        """How often the OOM killer has fired in this cgroup."""
        found = OOM_KILL_LINE.search(self._read_text("events"))
        return int(found.group(1)) if found else 0

    def begin_run(self, budget_bytes: int) -> None:
        """Allow `budget_bytes` above what the jail holds now; start measuring the peak."""
        self._baseline = self._read("usage")
        self._oom_kills = self.oom_kill_count()
        self._write("limit", str(self._baseline + budget_bytes))
        if self.version == 1:
            self._write("peak", "0")
        else:  # v2 resets the peak per open file, so this descriptor is the one read later
            self._close_peak()
            with contextlib.suppress(OSError):
                self._peak_fd = os.open(self._files["peak"], os.O_RDWR)
                os.write(self._peak_fd, b"reset")

    def end_run(self) -> tuple[int | None, bool]:
        """(peak bytes above the baseline, whether the OOM killer fired during the run)."""
        peak: int | None
        if self.version == 1:
            peak = self._read("peak")
        elif self._peak_fd is not None:
            peak = int(os.pread(self._peak_fd, 64, 0).split()[0])
        else:
            peak = None
        oom_killed = self.oom_kill_count() > self._oom_kills
        return (None if peak is None else max(0, peak - self._baseline)), oom_killed

    def _close_peak(self) -> None:
        if self._peak_fd is not None:
            os.close(self._peak_fd)
            self._peak_fd = None

    def close(self) -> None:
        """Release the open control files (the cgroup itself stays)."""
        self._close_peak()
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()

    def remove(self) -> None:
        """Delete the cgroup once its processes are gone (they may take a moment to exit)."""
        self.close()
        deadline = time.monotonic() + 5
        while True:
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.05)


def _remove_abandoned(parent: str, prefix: str) -> None:
    """rmdir the cgroups of worker processes that no longer exist (non-empty ones stay)."""
    with contextlib.suppress(OSError):
        for entry in os.listdir(parent):
            pid = entry[len(prefix):].split("-")[0]
            if entry.startswith(prefix) and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
                with contextlib.suppress(OSError):
                    os.rmdir(os.path.join(parent, entry))


def _parents() -> list[tuple[int, str]]:
    """Where this process may create memory cgroups: (version, directory), best first."""
    try:
        with open("/proc/self/cgroup") as cgroups, open("/proc/self/mountinfo") as mounts:
            found = memory_hierarchies(cgroups.read(), mounts.read())
    except OSError:
        return []
    return [(version, parent) for version, parent in found
            if version == 1 or _memory_delegated(parent)]


def _memory_delegated(parent: str) -> bool:
    try:
        with open(os.path.join(parent, "cgroup.subtree_control")) as handle:
            return "memory" in handle.read().split()
    except OSError:
        return False


def memory_hierarchies(cgroups: str, mountinfo: str) -> list[tuple[int, str]]:
    """(version, directory) of this process's own cgroup in each mounted memory hierarchy, v1
    first, from /proc/self/cgroup and /proc/self/mountinfo.

    The directory is where the hierarchy is mounted plus the cgroup's path below the mount's
    root: in a container the hierarchy is often mounted at the container's own cgroup (a
    v1 host without a cgroup namespace: /proc/self/cgroup says /docker/ID, mounted at
    /sys/fs/cgroup/memory), or somewhere else than /sys/fs/cgroup.
    """
    paths: dict[int, str] = {}
    for line in cgroups.splitlines():
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            paths[1] = path
        elif controllers == "":
            paths[2] = path
    found: list[tuple[int, str]] = []
    for line in mountinfo.splitlines():
        fields = line.split(" ")
        if "-" not in fields[6:]:
            continue
        tail = fields[fields.index("-", 6) + 1:]
        if len(tail) < 3:
            continue
        fstype, options = tail[0], tail[2].split(",")
        version = 1 if fstype == "cgroup" and "memory" in options else (
            2 if fstype == "cgroup2" else 0)
        if version not in paths:
            continue
        root, point = (_unescape(field) for field in fields[3:5])
        relative = os.path.relpath(paths[version], root)
        if relative == ".." or relative.startswith("../"):
            continue  # this mount shows another part of the hierarchy
        directory = (version, os.path.normpath(os.path.join(point, relative)))
        if directory not in found:
            found.append(directory)
    return sorted(found, key=lambda entry: entry[0])


def _unescape(field: str) -> str:
    """mountinfo's octal escapes (space, tab, newline, backslash)."""
    return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match.group(1), 8)), field)
