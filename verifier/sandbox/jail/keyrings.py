"""Keep runs away from the kernel keyrings, the one kernel store every run of a jail shares.

Standard library only (see `__init__.py`); used by the runners. A user's keyring is one
per uid of a user namespace, so a key one run adds, a later run could read, whatever else is
renewed between them. The runner installs a seccomp filter (classic BPF, built here) that
answers EPERM to add_key, request_key and keyctl, as Docker's default profile does; its
programs inherit it and cannot remove it. Syscalls of an architecture not listed kill the
caller (a 32-bit call on a 64-bit kernel would otherwise get past the numbers checked).
"""

from __future__ import annotations

import ctypes
import errno
import struct

from linux import PR_SET_SECCOMP, check, libc

# audit architecture -> (add_key, request_key, keyctl), native and compat ABIs of the kernels
# the supervisor runs on (see SYS_CLONE in linux.py).
KEYRING_SYSCALLS = {
    0xC000003E: (248, 249, 250),  # x86_64
    0x40000003: (286, 287, 288),  # i386 (int 0x80 on x86_64)
    0xC00000B7: (217, 218, 219),  # aarch64
    0x40000028: (309, 310, 311),  # arm (compat on aarch64)
    0xC00000F3: (217, 218, 219),  # riscv64
    0xC0000015: (269, 270, 271),  # ppc64le
}
X86_64, X32_SYSCALL_BIT = 0xC000003E, 0x40000000  # x32 calls: x86_64 with this bit set

LOAD_WORD, JUMP_EQUAL, JUMP_AT_LEAST, RETURN = 0x20, 0x15, 0x35, 0x06
ALLOW, DENY, KILL = 0x7FFF0000, 0x00050000 | errno.EPERM, 0x80000000
NR_OFFSET, ARCH_OFFSET = 0, 4  # in struct seccomp_data
SECCOMP_MODE_FILTER = 2


def filter_program() -> list[tuple[int, int, int, int]]:
    """(code, jump if true, jump if false, k) per instruction: one block per architecture."""
    program = []
    for arch, numbers in KEYRING_SYSCALLS.items():
        checks = [(JUMP_EQUAL, nr) for nr in numbers]
        if arch == X86_64:
            checks.append((JUMP_AT_LEAST, X32_SYSCALL_BIT))  # x32 is refused as a whole
        block_length = 5 + len(checks)
        program += [(LOAD_WORD, 0, 0, ARCH_OFFSET),
                    (JUMP_EQUAL, 0, block_length - 2, arch),  # another arch: the next block
                    (LOAD_WORD, 0, 0, NR_OFFSET)]
        program += [(code, len(checks) - index, 0, k)  # a match jumps to this block's DENY
                    for index, (code, k) in enumerate(checks)]
        program += [(RETURN, 0, 0, ALLOW), (RETURN, 0, 0, DENY)]
    return [*program, (RETURN, 0, 0, KILL)]


class _Program(ctypes.Structure):
    _fields_ = [("length", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def deny_keyrings() -> None:
    """Install the filter on this process (no_new_privs must be set) and its future children."""
    instructions = filter_program()
    raw = b"".join(struct.pack("HBBI", *instruction) for instruction in instructions)
    program = _Program(len(instructions), raw)
    check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0),
          "seccomp filter")
