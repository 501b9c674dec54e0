"""The runs' seccomp filter: the kernel surface Docker's default profile keeps from containers
(and a little more), refused inside the jail too, whatever the host's own filter allows.

Standard library only (see `__init__.py`); installed by each runner, once, with its other
lock-downs (privileges.py), so it holds for every program it starts: they inherit it and cannot
remove it. A classic BPF program, built here, answers ENOSYS (where Docker says EPERM: a
program's fallback for a missing call expects ENOSYS, and a test can tell the filter's answer
from the kernel's own EPERM) to:

- the kernel keyrings (add_key, request_key, keyctl): one store per uid, which every run of a
  jail would share;
- userfaultfd, perf_event_open, kcmp, name_to_handle_at, open_by_handle_at, memfd_secret and
  io_uring_setup/enter/register, which Docker's default refuses (io_uring: since Docker 25);
- personality, except the values Docker allows (0, PER_LINUX32, UNAME26, both, and the
  0xffffffff query);
- socket() of any family but AF_UNIX (Docker's default refuses AF_VSOCK only): a run has no
  network interface to use, and without an IP, netlink or packet socket it leaves nothing in
  its network namespace that the runner's next run could find (see namespaces.py); and
  socketcall, where an architecture has one, since it would carry a socket() past the check;
- every system call of another ABI than the native one (the i386 `int 0x80` ABI and x32 on
  x86_64, arm on aarch64): a program that switched ABIs would get past the numbers checked.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct
from dataclasses import dataclass

from linux import PR_SET_SECCOMP, check, libc

PERSONALITIES_ALLOWED = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)  # as Docker's default
AF_UNIX = 1


@dataclass(frozen=True)
class Abi:
    """A native ABI: its audit architecture and the numbers of the calls the filter checks."""

    arch: int
    denied: dict[str, int]
    personality: int
    socket: int


_GENERIC = {"add_key": 217, "request_key": 218, "keyctl": 219, "userfaultfd": 282,
            "perf_event_open": 241, "kcmp": 272, "name_to_handle_at": 264,
            "open_by_handle_at": 265}  # asm-generic/unistd.h (aarch64, riscv64)
_IO_URING_AND_SECRET = {"memfd_secret": 447, "io_uring_setup": 425, "io_uring_enter": 426,
                        "io_uring_register": 427}  # the same number everywhere
ABIS = {  # by platform.machine(), as linux.SYS_CLONE
    "x86_64": Abi(0xC000003E, {"add_key": 248, "request_key": 249, "keyctl": 250,
                               "userfaultfd": 323, "perf_event_open": 298, "kcmp": 312,
                               "name_to_handle_at": 303, "open_by_handle_at": 304,
                               **_IO_URING_AND_SECRET}, personality=135, socket=41),
    "aarch64": Abi(0xC00000B7, {**_GENERIC, **_IO_URING_AND_SECRET}, personality=92, socket=198),
    "riscv64": Abi(0xC00000F3, {**_GENERIC, **_IO_URING_AND_SECRET}, personality=92, socket=198),
    "ppc64le": Abi(0xC0000015, {"add_key": 269, "request_key": 270, "keyctl": 271,
                                "userfaultfd": 364, "perf_event_open": 319, "kcmp": 354,
                                "name_to_handle_at": 345, "open_by_handle_at": 346,
                                "socketcall": 102, **_IO_URING_AND_SECRET},
                   personality=136, socket=326),
}
X86_64_X32_BIT = 0x40000000  # x32 calls: x86_64's architecture, numbers with this bit set

LOAD_WORD, JUMP_EQUAL, JUMP_AT_LEAST, RETURN = 0x20, 0x15, 0x35, 0x06
ALLOW, DENY = 0x7FFF0000, 0x00050000 | errno.ENOSYS
NR_OFFSET, ARCH_OFFSET, ARG0_OFFSET = 0, 4, 16  # in struct seccomp_data (arg 0's low word)
SECCOMP_MODE_FILTER = 2


class _Assembler:
    """Classic BPF with jumps to named labels, resolved when the program is built (classic
    BPF jumps only forward: a label must come after every jump to it)."""

    def __init__(self) -> None:
        self.code: list[tuple[int, int | str, int | str, int]] = []
        self.labels: dict[str, int] = {}

    def emit(self, code: int, k: int, true: int | str = 0, false: int | str = 0) -> None:
        self.code.append((code, true, false, k))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def program(self) -> list[tuple[int, int, int, int]]:
        def offset(at: int, target: int | str) -> int:
            return target if isinstance(target, int) else self.labels[target] - at - 1

        return [(code, offset(at, true), offset(at, false), k)
                for at, (code, true, false, k) in enumerate(self.code)]


def filter_program(abi: Abi) -> list[tuple[int, int, int, int]]:
    """(code, jump if true, jump if false, k) per instruction."""
    bpf = _Assembler()
    bpf.emit(LOAD_WORD, ARCH_OFFSET)
    bpf.emit(JUMP_EQUAL, abi.arch, false="deny")  # another ABI: refused as a whole
    bpf.emit(LOAD_WORD, NR_OFFSET)
    if abi.arch == ABIS["x86_64"].arch:
        bpf.emit(JUMP_AT_LEAST, X86_64_X32_BIT, true="deny")
    bpf.emit(JUMP_EQUAL, abi.personality, true="personality")
    bpf.emit(JUMP_EQUAL, abi.socket, true="socket")
    for number in sorted(abi.denied.values()):
        bpf.emit(JUMP_EQUAL, number, true="deny")
    bpf.emit(RETURN, ALLOW)
    bpf.label("personality")  # its argument is an unsigned int: the low word is all it reads
    bpf.emit(LOAD_WORD, ARG0_OFFSET)
    for value in PERSONALITIES_ALLOWED:
        bpf.emit(JUMP_EQUAL, value, true="allow")
    bpf.emit(RETURN, DENY)
    bpf.label("socket")  # the family is an int: its low word
    bpf.emit(LOAD_WORD, ARG0_OFFSET)
    bpf.emit(JUMP_EQUAL, AF_UNIX, false="deny")
    bpf.label("allow")
    bpf.emit(RETURN, ALLOW)
    bpf.label("deny")
    bpf.emit(RETURN, DENY)
    return bpf.program()


class _Program(ctypes.Structure):
    _fields_ = [("length", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def install_filter() -> None:
    """Install the filter on this process (no_new_privs must be set) and its future children."""
    abi = ABIS.get(platform.machine())
    if abi is None:
        raise OSError(errno.ENOSYS, f"no seccomp filter for {platform.machine()}")
    instructions = filter_program(abi)
    raw = b"".join(struct.pack("HBBI", *instruction) for instruction in instructions)
    program = _Program(len(instructions), raw)
    check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0),
          "seccomp filter")
