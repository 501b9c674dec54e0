"""The Linux system calls and flags the jail's programs use, through ctypes, defined once.

Standard library only (see `__init__.py`). Numbers are the kernel's uapi values, which are the
same on every architecture the supervisor runs on, except clone(2)'s syscall number.
"""

from __future__ import annotations

import ctypes
import os
import platform

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID = 0x00020000, 0x08000000, 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_DUMPABLE, PR_SET_SECCOMP, PR_CAPBSET_DROP = 4, 22, 24
PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 28, 38, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4

libc = ctypes.CDLL(None, use_errno=True)
# For clone(): no release of the GIL around the call (see namespaces.fork_in_new_pid_namespace).
libc_holding_gil = ctypes.PyDLL(None, use_errno=True)
# clone(2) by architecture; its flags come first everywhere listed (s390 differs: not listed).
SYS_CLONE = {"x86_64": 56, "aarch64": 220, "riscv64": 220, "ppc64le": 120}.get(
    platform.machine())
# read(2) and write(2), to tell what a blocked program waits for (see watch.blocked_on).
SYS_READ, SYS_WRITE = {"x86_64": (0, 1), "aarch64": (63, 64), "riscv64": (63, 64),
                       "ppc64le": (3, 4)}.get(platform.machine(), (None, None))


def check(result: int, what: str) -> None:
    """Raise OSError, naming `what`, if a libc call returned an error."""
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def mount(source: str | None, target: str, fstype: str | None, flags: int,
          data: str | None = None) -> None:
    check(libc.mount(source and source.encode(), target.encode(), fstype and fstype.encode(),
                     ctypes.c_ulong(flags), data and data.encode()), f"mount {target}")
