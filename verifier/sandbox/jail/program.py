"""Starting a run's program: everything made ready in the runner, then a fork that only moves
descriptors, sets limits, drops privileges and execs (or, warm Python, runs the harness).

Standard library only (see `__init__.py`). Every page a fork writes is a copy, so the forked
side does as little as it can.
"""

from __future__ import annotations

import _signal
import contextlib
import errno
import fcntl
import math
import os
import resource
from dataclasses import dataclass

import warm_python
from namespaces import WORKDIR, fork_in_new_pid_namespace
from privileges import drop_privileges

SETUP_FD = 1023  # the program's end of the setup-error pipe; close-on-exec
PIPE_BYTES = 1 << 20  # capacity of a program's output pipes


class Pipes:
    """The program's pipes, made by the runner for each run; the output pipes hold PIPE_BYTES,
    so most programs end before the runner has to drain them (see watch.py)."""

    def __init__(self, with_channel: bool) -> None:
        self.out_r, self.out_w = os.pipe()
        self.err_r, self.err_w = os.pipe()
        self.setup_r, self.setup_w = os.pipe()
        self.chan_r, self.chan_w = os.pipe() if with_channel else (-1, -1)
        for fd in self.read_ends():
            with contextlib.suppress(OSError):  # past the host's pipe-max-size: the default
                fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)

    def read_ends(self) -> list[int]:
        return [fd for fd in (self.out_r, self.err_r, self.chan_r) if fd >= 0]

    def write_ends(self) -> list[int]:
        return [fd for fd in (self.out_w, self.err_w, self.chan_w, self.setup_w) if fd >= 0]


@dataclass
class Launch:
    """Everything a program needs, made ready by the runner before the fork."""

    argv: list[str]
    env: dict[str, str]
    rlimits: list[tuple[int, tuple[int, int]]]
    pipes: Pipes
    stdin_fd: int  # memfds, owned by the runner's request loop
    payload_fd: int = -1  # the harness reads its payload from here (fd 4)
    warm: bool = False  # warm Python: the harness runs in the fork itself, without exec
    # An interactive run connects two programs: each one's stdout is the other's stdin (pipes
    # the runner makes), instead of the output pipe the runner drains.
    stdout_fd: int = -1
    # An interactor ignores SIGPIPE (set before exec, it survives it): a solution that quits
    # early makes its writes fail, which it reports as a verdict, instead of killing it.
    ignore_sigpipe: bool = False

    def close_program_ends(self) -> None:
        for fd in self.pipes.write_ends():
            os.close(fd)


def rlimits_for(limits: dict) -> list[tuple[int, tuple[int, int]]]:
    """The program's rlimits, worked out in the runner before the fork (no CPU limit where
    `cpu_s` is None: a session's interpreter, whose runs have wall limits of their own)."""
    pairs = {
        resource.RLIMIT_STACK: (limits["stack_bytes"],) * 2,
        resource.RLIMIT_NPROC: (limits["nproc"],) * 2,
        resource.RLIMIT_FSIZE: (limits["fsize_bytes"],) * 2,
        resource.RLIMIT_NOFILE: (limits["nofile"],) * 2,
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_MEMLOCK: (0, 0),
        resource.RLIMIT_MSGQUEUE: (0, 0),
    }
    if limits.get("cpu_s") is not None:
        cpu = max(1, math.ceil(limits["cpu_s"]))
        pairs[resource.RLIMIT_CPU] = (cpu, cpu + 1)
    if limits.get("as_bytes"):
        pairs[resource.RLIMIT_AS] = (limits["as_bytes"],) * 2
    if limits.get("data_bytes"):
        pairs[resource.RLIMIT_DATA] = (limits["data_bytes"],) * 2
    return list(pairs.items())


def prepare_launch(spec: dict, inputs: dict[str, int]) -> Launch:
    """The run's launch, from its request and the memfds its blobs arrived in."""
    env = {str(k): str(v) for k, v in spec.get("env", {}).items()}
    if spec.get("warm_python"):
        warm_python.prepare(env)
    return Launch(argv=spec["argv"], env=env, rlimits=rlimits_for(spec["limits"]),
                  pipes=Pipes(with_channel=bool(spec.get("channel"))),
                  stdin_fd=inputs["stdin"], payload_fd=inputs.get("payload", -1),
                  warm=bool(spec.get("warm_python")))


def close_all_but(keep: set[int]) -> None:
    low = 3
    for fd in sorted(keep):
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, 1 << 16)


def fork_program(oom_fd: int, namespaces: int = 0) -> int:
    """fork(), the child first in line for the OOM killer, this process back to its own score.
    With `namespaces` (CLONE_NEW* flags), the child is PID 1 of a new PID namespace as well.

    Raising a score needs no privilege and returning to the inherited one is allowed, so the
    supervisor and runners stay the last choice when a run exhausts the jail's memory cgroup.
    """
    own = os.pread(oom_fd, 16, 0).strip()
    os.pwrite(oom_fd, b"1000", 0)
    pid = 0
    try:
        pid = fork_in_new_pid_namespace(namespaces) if namespaces else os.fork()
        return pid
    finally:
        if pid:  # the runner itself, not the child
            with contextlib.suppress(OSError):
                os.pwrite(oom_fd, own, 0)


def become_program(launch: Launch) -> None:
    """In the fork: become the submitted program (never returns).

    A failure before exec is reported on SETUP_FD, which exec closes: an infra error the program
    itself cannot fake (it never holds that descriptor). A program file of the run's own (a
    relative path: a compiled submission) that cannot be executed is the program's failure
    instead, exit status 126 (127: not there) with the reason on stderr. The program gets a
    session of its own: in the runner's process group, kill(0) would reach the supervisor and
    the runners (the standby runner, PID 1 of a namespace the program cannot see, even by
    SIGKILL).
    """
    os.setsid()
    pipes = launch.pipes
    os.dup2(pipes.setup_w, SETUP_FD, inheritable=False)
    os.dup2(launch.stdin_fd, 0)
    os.dup2(launch.stdout_fd if launch.stdout_fd >= 0 else pipes.out_w, 1)
    os.dup2(pipes.err_w, 2)
    keep = {SETUP_FD}
    if pipes.chan_w >= 0:
        os.dup2(pipes.chan_w, 3)
        keep.add(3)
        if launch.payload_fd >= 0:
            os.dup2(launch.payload_fd, 4)
            keep.add(4)
    close_all_but(keep)
    os.chdir(WORKDIR)
    for which, value in launch.rlimits:
        resource.setrlimit(which, value)
    drop_privileges()
    if launch.warm:
        os.close(SETUP_FD)
        warm_python.run()  # exits the process
    for sig in (_signal.SIGPIPE, _signal.SIGXFSZ, _signal.SIGINT):  # not `signal`'s enum
        _signal.signal(sig, _signal.SIG_DFL)  # wrappers: Python code, pages copied
    if launch.ignore_sigpipe:
        _signal.signal(_signal.SIGPIPE, _signal.SIG_IGN)
    try:
        os.execve(launch.argv[0], launch.argv, launch.env)
    except OSError as exc:
        if os.path.isabs(launch.argv[0]):
            raise  # a toolchain's executable: the sandbox's failure
        # The run's own file, built from the submission (a Rust library, a Go package other
        # than main), is no program: its failure, reported the way a shell reports it.
        os.write(2, f"{launch.argv[0]}: cannot execute: {exc.strerror}\n".encode())
        os._exit(127 if exc.errno == errno.ENOENT else 126)
