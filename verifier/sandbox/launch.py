"""Jail launcher: the last step before bubblewrap, in its own short-lived process.

Standard library only; run as `python -s -S -B launch.py SPEC_JSON` with the jail's pipes as its
stdin/stdout, and replaced by `bwrap` through exec. As root it (1) makes a private mount
namespace where the toolchain and harness directories are bound under a world-readable staging
tmpfs (they may live under /root, which the unprivileged uid cannot traverse), then (2) drops to
an unprivileged uid with no supplementary groups, so bubblewrap builds the jail from an
unprivileged user namespace: the sandbox's processes are that uid to the kernel, never root,
and RLIMIT_NPROC applies to them. Not root, it only sets the jail-wide rlimits.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import sys

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT = 1, 2, 4, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
STAGING = "/tmp"


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _stage(libc: ctypes.CDLL, sources: dict[str, str]) -> None:
    """Bind each source directory read-only at STAGING/<name> in a private mount namespace."""
    _check(libc.unshare(CLONE_NEWNS), "unshare")
    _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
    # Opened in the new namespace (a bind source must be), before the staging tmpfs may hide it.
    fds = {name: os.open(path, os.O_PATH | os.O_DIRECTORY) for name, path in sources.items()}
    _check(libc.mount(b"tmpfs", STAGING.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
                      b"mode=0755,size=64k"), "staging tmpfs")
    for name, fd in fds.items():
        target = f"{STAGING}/{name}".encode()
        os.mkdir(target, 0o755)
        _check(libc.mount(f"/proc/self/fd/{fd}".encode(), target, None, MS_BIND | MS_REC, None),
               f"bind {name}")
        _check(libc.mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, None),
               f"read-only {name}")
        os.close(fd)


def main() -> None:
    spec = json.loads(sys.argv[1])
    if spec.get("cgroup_procs"):  # the jail's memory cgroup (see cgroup.py)
        with open(spec["cgroup_procs"], "w") as procs:
            procs.write(str(os.getpid()))
    if spec.get("oom_score_adj") is not None:  # inherited by the supervisor; see supervisor.py
        # Lowering it needs CAP_SYS_RESOURCE, which a container may lack: then it stays.
        with contextlib.suppress(PermissionError), open("/proc/self/oom_score_adj", "w") as adj:
            adj.write(str(spec["oom_score_adj"]))
    for name, value in spec["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (value, value))
    if spec.get("stage"):
        _stage(ctypes.CDLL(None, use_errno=True), spec["stage"])
    if spec.get("uid") is not None:
        os.setgroups([])
        os.setresgid(spec["uid"], spec["uid"], spec["uid"])
        os.setresuid(spec["uid"], spec["uid"], spec["uid"])
    os.execv(spec["argv"][0], spec["argv"])


if __name__ == "__main__":
    main()
