"""Capabilities: what a runner locks down for good, and what the program gives up before exec.

Standard library only (see `__init__.py`). A runner holds CAP_SYS_ADMIN and CAP_SETPCAP in the
jail's user namespace for its mounts; its programs must hold nothing, and nothing they exec
(setuid binaries, file capabilities, the ambient set) may give them anything back.
"""

from __future__ import annotations

import ctypes

from linux import (
    PR_CAP_AMBIENT,
    PR_CAP_AMBIENT_CLEAR_ALL,
    PR_CAPBSET_DROP,
    PR_SET_NO_NEW_PRIVS,
    PR_SET_SECUREBITS,
    check,
    libc,
)
from seccomp import install_filter

# NOROOT, NO_SETUID_FIXUP, NO_CAP_AMBIENT_RAISE and KEEP_CAPS off, each with its lock bit.
LOCKED_SECUREBITS = 0b1110_1111
CAPABILITY_VERSION_3 = 0x20080522


def lock_down_future_privileges() -> None:
    """In the runner, once: no exec, setuid binary or ambient set can ever grant a capability
    to it or its children, and the seccomp filter (seccomp.py) holds for all of them. What it
    holds now (for its mounts) stays until the program drops it.
    """
    check(libc.prctl(PR_SET_SECUREBITS, LOCKED_SECUREBITS, 0, 0, 0), "securebits")
    cap = 0
    while libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1
    check(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "ambient caps")
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    install_filter()


# capset(2) arguments that clear every set, built once (a run forks with them ready).
_NO_CAPABILITIES = ((ctypes.c_uint32 * 2)(CAPABILITY_VERSION_3, 0), (ctypes.c_uint32 * 6)())
# ...passed as plain addresses to a prototype that converts nothing: the fork's call of it then
# touches (and copies) as few pages as it can.
_capset = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, use_errno=True)(
    ("capset", libc))
_CAPSET_ARGUMENTS = tuple(ctypes.addressof(part) for part in _NO_CAPABILITIES)


def drop_privileges() -> None:
    """In the program: give up the capabilities it inherited; the runner's lock-down (empty
    bounding set, locked securebits, no_new_privs) keeps them from coming back."""
    check(_capset(*_CAPSET_ARGUMENTS), "capset")
