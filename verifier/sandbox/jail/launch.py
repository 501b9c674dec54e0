"""Jail launcher: the last step before bubblewrap, in its own short-lived process.

Standard library only (see `__init__.py`); run, outside the jail, as `python -s -S -B launch.py
SPEC_JSON` with the jail's pipes as its stdin/stdout, and replaced by `bwrap` through exec. It
opens the files the jail gets a copy of (this folder's programs), then, as root, (1) makes a
private mount namespace where the toolchain directories are bound under a world-readable staging
tmpfs (they may live under /root, which the unprivileged uid cannot traverse), and (2) drops to
an unprivileged uid with no supplementary groups, so bubblewrap builds the jail from an
unprivileged user namespace: the sandbox's processes are that uid to the kernel, never root,
and RLIMIT_NPROC applies to them. Not root, it only sets the jail-wide rlimits.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import sys

from linux import (
    CLONE_NEWNS,
    MS_BIND,
    MS_NODEV,
    MS_NOSUID,
    MS_PRIVATE,
    MS_RDONLY,
    MS_REC,
    MS_REMOUNT,
    check,
    libc,
    mount,
)

STAGING = "/tmp"


def _stage(sources: dict[str, str]) -> None:
    """Bind each source directory read-only at STAGING/<name> in a private mount namespace."""
    check(libc.unshare(CLONE_NEWNS), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    # Opened in the new namespace (a bind source must be), before the staging tmpfs may hide it.
    fds = {name: os.open(path, os.O_PATH | os.O_DIRECTORY) for name, path in sources.items()}
    mount("tmpfs", STAGING, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k")
    for name, fd in fds.items():
        target = f"{STAGING}/{name}"
        os.mkdir(target, 0o755)
        mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
        mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)
        os.close(fd)


def _copy_args(files: dict[str, str]) -> list[str]:
    """bubblewrap's `--file FD DEST` for each file the jail gets a copy of: opened here, before
    the uid drop, so they may live where the unprivileged uid cannot reach."""
    args = []
    for destination, source in files.items():
        fd = os.open(source, os.O_RDONLY)
        os.set_inheritable(fd, True)
        args += ["--file", str(fd), destination]
    return args


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
    bwrap, *options = spec["argv"]
    copies = _copy_args(spec.get("files", {}))
    if spec.get("stage"):
        _stage(spec["stage"])
    if spec.get("uid") is not None:
        os.setgroups([])
        os.setresgid(spec["uid"], spec["uid"], spec["uid"])
        os.setresuid(spec["uid"], spec["uid"], spec["uid"])
    os.execv(bwrap, [bwrap, *copies, *options])


if __name__ == "__main__":
    main()
