"""The supervisor: the trusted process inside the jail, one per worker slot.

Standard library only; started by the host with the jail's own Python (`python3 -s -S`). It
runs as uid 1000 of the jail's user namespace, holding CAP_SYS_ADMIN and CAP_SETPCAP *there*
only (bubblewrap gave the jail no other privilege, and user namespaces are disabled inside). It
never runs submitted code itself, and it stays off the path of a run:

    supervisor ── runner: PID 1 of a new PID namespace, with new mount and IPC namespaces, a
                  │       fresh tmpfs /tmp (the work directory) and /dev/shm, a private or hidden
                  │       /proc, prepared *before* its first request arrives. It takes the
                  │       worker's requests from the channel itself, runs each, moves the
                  │       program's output with caps, enforces the wall clock, kills every
                  │       process left in the namespace (double-forked daemons included),
                  │       answers the worker directly, and gives the next run a new /tmp,
                  │       /dev/shm and IPC namespace. After `runner_runs` runs it exits, and the
                  │       runner the supervisor has prepared meanwhile takes over.
                  └─ program: rlimits, every capability dropped for good (bounding set,
                              securebits, no_new_privs), the run's own environment, then exec,
                              or (warm Python) the harness runs in this forked interpreter.

So a run costs one fork (and, unless warm Python, one exec). The program cannot signal the
runner (PID 1 ignores what it has no handler for) or trace it (it holds capabilities the program
lacks, and is not dumpable), cannot see the supervisor (another PID namespace), cannot change
mounts (no capability), and shares no writable file with any other run: /tmp, /dev/shm and /proc
are its own, / and /dev are read-only, and the artefact cache is hidden under the fresh /tmp.
Nor does it find an earlier run's data in the memory it inherits from the runner: requests and
outputs pass through the runner only inside the kernel (see "the channel" below).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import gc
import json
import math
import mmap
import os
import platform
import resource
import select
import signal
import stat
import struct
import sys
import time
import traceback
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (HERE, os.path.join(HERE, "jail")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import protocol  # noqa: E402
import pyharness  # noqa: E402
from keyrings import deny_keyrings  # noqa: E402
from namespaces import (  # noqa: E402
    CLONE_NEWIPC,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_REC,
    Scratch,
    check,
    libc,
    mount,
    mount_proc,
    renew_run_state,
)

WORKDIR = "/tmp"
ARTEFACTS = "/tmp/.artefacts"
CACHE_MAX_BYTES = 512 * 1024 * 1024
CACHE_MAX_ENTRIES = 256
STDERR_TAIL_BYTES = 4096
HOST_LOCK = "/tmp/.host-channel.lock"  # held by the runner reading the worker's channel
SETUP_FD = 1023  # the program's end of the setup-error pipe; close-on-exec
RUNNER_GRACE_S = 10.0  # beyond the run's wall limit, before the supervisor gives up on a runner
WATCH_INTERVAL_S = 1.0  # how often the supervisor looks for a runner past its deadline
DRAIN_S = 2.0  # after the program ended, for the pipes to close once stragglers are killed
PIPE_BYTES = 1 << 20  # capacity of a program's output pipes
DRAIN_EVERY_S = 0.01  # while the program runs, how often the runner drains its pipes

CLONE_NEWNS = 0x00020000
CLONE_NEWPID = 0x20000000
PR_SET_DUMPABLE, PR_CAPBSET_DROP = 4, 24
PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 28, 38, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
# NOROOT, NO_SETUID_FIXUP, NO_CAP_AMBIENT_RAISE and KEEP_CAPS off, each with its lock bit.
LOCKED_SECUREBITS = 0b1110_1111
CAPABILITY_VERSION_3 = 0x20080522

_libc_holding_gil = ctypes.PyDLL(None, use_errno=True)  # for clone(): no GIL release around it
# clone(2) by architecture; its flags come first everywhere listed (s390 differs: not listed).
SYS_CLONE = {"x86_64": 56, "aarch64": 220, "riscv64": 220, "ppc64le": 120}.get(
    platform.machine())


def _lock_down_future_privileges() -> None:
    """In the runner, once: no exec, setuid binary or ambient set can ever grant a capability
    to it or its children, and none of them may use the kernel keyrings. What it holds now (for
    its mounts) stays until the program drops it.
    """
    check(libc.prctl(PR_SET_SECUREBITS, LOCKED_SECUREBITS, 0, 0, 0), "securebits")
    cap = 0
    while libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1
    check(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "ambient caps")
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    deny_keyrings(libc)  # the one kernel store all runs of the jail would share


# capset(2) arguments that clear every set, built once (a run forks with them ready).
_NO_CAPABILITIES = ((ctypes.c_uint32 * 2)(CAPABILITY_VERSION_3, 0), (ctypes.c_uint32 * 6)())
# ...passed as plain addresses to a prototype that converts nothing: the fork's call of it then
# touches (and copies) as few pages as it can.
_capset = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, use_errno=True)(
    ("capset", libc))
_CAPSET_ARGUMENTS = tuple(ctypes.addressof(part) for part in _NO_CAPABILITIES)


def _drop_privileges() -> None:
    """In the program: give up the capabilities it inherited; the runner's lock-down (empty
    bounding set, locked securebits, no_new_privs) keeps them from coming back."""
    check(_capset(*_CAPSET_ARGUMENTS), "capset")


def _rlimits(limits: dict) -> list[tuple[int, tuple[int, int]]]:
    """The program's rlimits, worked out in the runner before the fork."""
    cpu = max(1, math.ceil(limits["cpu_s"]))
    pairs = {
        resource.RLIMIT_CPU: (cpu, cpu + 1),
        resource.RLIMIT_STACK: (limits["stack_bytes"],) * 2,
        resource.RLIMIT_NPROC: (limits["nproc"],) * 2,
        resource.RLIMIT_FSIZE: (limits["fsize_bytes"],) * 2,
        resource.RLIMIT_NOFILE: (limits["nofile"],) * 2,
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_MEMLOCK: (0, 0),
        resource.RLIMIT_MSGQUEUE: (0, 0),
    }
    if limits.get("as_bytes"):
        pairs[resource.RLIMIT_AS] = (limits["as_bytes"],) * 2
    if limits.get("data_bytes"):
        pairs[resource.RLIMIT_DATA] = (limits["data_bytes"],) * 2
    return list(pairs.items())


# --------------------------------------------------------------------------- artefact cache


class ArtefactCache:
    """The LRU index of compiled artefacts, kept by the supervisor from the runners' notes.

    The artefacts live under the jail's /tmp (hidden from every run by its own /tmp); runners
    look them up on disk, so a runner prepared before an artefact was stored still finds it.
    """

    def __init__(self) -> None:
        os.makedirs(ARTEFACTS, mode=0o700, exist_ok=True)
        self._sizes: dict[str, int] = {}  # insertion order doubles as LRU order

    def touch(self, key: str) -> None:
        if key in self._sizes:
            self._sizes[key] = self._sizes.pop(key)

    def add(self, key: str, size: int) -> None:
        self._sizes[key] = size
        while len(self._sizes) > CACHE_MAX_ENTRIES or (
                sum(self._sizes.values()) > CACHE_MAX_BYTES and len(self._sizes) > 1):
            oldest = next(iter(self._sizes))
            del self._sizes[oldest]
            _remove_tree(os.path.join(ARTEFACTS, oldest))


def _remove_tree(path: str) -> None:
    for root, dirs, files in os.walk(path, topdown=False):
        for name in files:
            os.unlink(os.path.join(root, name))
        for name in dirs:
            os.rmdir(os.path.join(root, name))
    if os.path.isdir(path):
        os.rmdir(path)


def _remove_at(name: str, dir_fd: int) -> None:
    """Remove the tree `name` below the directory `dir_fd`, if there is one."""
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    for _, dirs, files, root_fd in os.fwalk(name, topdown=False, dir_fd=dir_fd):
        for entry in files:
            os.unlink(entry, dir_fd=root_fd)
        for entry in dirs:
            os.rmdir(entry, dir_fd=root_fd)
    os.rmdir(name, dir_fd=dir_fd)


class ArtefactsTooLarge(OSError):
    """A compile step's outputs are over the cache's share for one artefact: the program's
    doing (a huge static array), never the sandbox's."""


def _copy_entry(name: str, src_fd: int, dst_fd: int, budget: list[int]) -> bool:
    """Copy one regular file or directory (recursively) between two directory fds, within the
    byte budget. Returns False, copying nothing, for anything else (links, devices...)."""
    info = os.stat(name, dir_fd=src_fd, follow_symlinks=False)
    if stat.S_ISDIR(info.st_mode):
        os.mkdir(name, 0o755, dir_fd=dst_fd)
        sub_src = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=src_fd)
        sub_dst = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=dst_fd)
        try:
            for entry in os.listdir(sub_src):
                _copy_entry(entry, sub_src, sub_dst, budget)
        finally:
            os.close(sub_src)
            os.close(sub_dst)
        return True
    if not stat.S_ISREG(info.st_mode):
        return False
    budget[0] -= info.st_size
    if budget[0] < 0:
        raise ArtefactsTooLarge("the compiled program is larger than the artefact cache allows")
    src = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=src_fd)
    dst = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, info.st_mode & 0o755,
                  dir_fd=dst_fd)
    try:
        while os.sendfile(dst, src, None, 1 << 24):
            pass
    finally:
        os.close(src)
        os.close(dst)
    return True


# --------------------------------------------------------------------------- one run


class _Pipes:
    """The program's pipes, made by the runner for each run; the output pipes hold PIPE_BYTES,
    so most programs end before the runner has to drain them (see _watch)."""

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


def _close_all_but(keep: set[int]) -> None:
    low = 3
    for fd in sorted(keep):
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, 1 << 16)


# --------------------------------------------------------------------------- the channel
#
# A runner serves many runs, and every run is a fork of it: whatever a run's data left in the
# runner's memory, a later run could read in its own copy. So a request's blobs and a program's
# output never enter the runner's memory: the kernel moves them, with splice(2) from a pipe into
# a memfd or work-directory file, and with sendfile(2) from a memfd into the worker's channel.


def _move(source: int, sink: int, size: int) -> tuple[int, OSError | None]:
    """Move up to `size` bytes from the pipe `source` into `sink`, inside the kernel. Returns
    how many moved (fewer at EOF) and the error that stopped it early, if any."""
    moved = 0
    while moved < size:
        try:
            step = os.splice(source, sink, min(size - moved, 1 << 20))
        except OSError as exc:
            return moved, exc
        if not step:
            break
        moved += step
    return moved, None


def _receive(channel_fd: int, layout: list[tuple[str, int]]) -> tuple[dict[str, int], str]:
    """Take a request's blobs off the channel: each `file:NAME` into the work directory, any
    other into a memfd of its name (returned). A blob that cannot be placed is drained, so the
    channel stays in step, and named in the returned error."""
    memfds: dict[str, int] = {}
    error = ""
    for name, size in layout:
        moved, failure = 0, None
        try:
            if name.startswith("file:"):
                sink = os.open(os.path.join(WORKDIR, name[5:]),
                               os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
                try:
                    moved, failure = _move(channel_fd, sink, size)
                finally:
                    os.close(sink)
            else:
                memfds[name] = os.memfd_create(name, 0)
                moved, failure = _move(channel_fd, memfds[name], size)
        except OSError as exc:
            failure = exc
        if failure is not None:
            error = error or f"could not place {name}: {failure}"
            with open(os.devnull, "wb") as null:
                moved += _move(channel_fd, null.fileno(), size - moved)[0]
        if moved < size:
            raise protocol.ProtocolError("the peer closed the channel")
    for fd in memfds.values():
        os.lseek(fd, 0, os.SEEK_SET)
    return memfds, error


def _send_reply(channel_fd: int, reply: dict, parts: list[tuple[str, int, int, int]]) -> None:
    """Write a reply whose blobs, (name, memfd, offset, size), come straight from memfds."""
    protocol.write_header(channel_fd, reply, [(name, size) for name, _, _, size in parts])
    for _, fd, offset, size in parts:
        while size:
            sent = os.sendfile(channel_fd, fd, offset, size)
            offset, size = offset + sent, size - sent


@dataclass
class _Launch:
    """Everything a program needs, made ready by the runner before the fork: the forked side
    then only moves descriptors, sets limits, drops privileges and execs (or, warm Python,
    runs the harness), since every page a fork writes is a copy."""

    argv: list[str]
    env: dict[str, str]
    rlimits: list[tuple[int, tuple[int, int]]]
    pipes: _Pipes
    stdin_fd: int  # memfds, owned by the runner's request loop
    payload_fd: int = -1  # the harness reads its payload from here (fd 4)
    warm: bool = False  # warm Python: the harness runs in the fork itself, without exec

    def close_program_ends(self) -> None:
        for fd in self.pipes.write_ends():
            os.close(fd)


_warm_streams_ready = False  # per runner: see _prepare_warm_python
_warm_env: dict[str, str] | None = None  # the environment it last gave itself


def _prepare_warm_python(env: dict[str, str]) -> None:
    """Before a warm run's fork, give this runner the state the run must start from, so the
    fork inherits it instead of building it: the run's environment and (once per runner) a
    fresh interpreter's streams and globals. The runner itself never uses either. Then freeze
    what is alive, so the run's garbage collections do not walk (and copy) the runner's memory.
    """
    global _warm_streams_ready, _warm_env
    if env != _warm_env:
        os.environ.clear()
        os.environ.update(env)
        _warm_env = env
    if not _warm_streams_ready:
        # Built on descriptors of the kinds a run gets (stdin a memfd, stdout and stderr pipes),
        # then fds 0-2 go back to what they were.
        saved = [os.dup(fd) for fd in (0, 1, 2)]
        stand_ins = [os.memfd_create("stdin"), *os.pipe()]
        for fd, source in ((0, stand_ins[0]), (1, stand_ins[2]), (2, stand_ins[2])):
            os.dup2(source, fd)
        try:
            pyharness.reset_interpreter()
        finally:
            for fd, source in enumerate(saved):
                os.dup2(source, fd)
                os.close(source)
            for fd in stand_ins:
                os.close(fd)
        _warm_streams_ready = True
    gc.freeze()


def _launch(spec: dict, inputs: dict[str, int]) -> _Launch:
    env = {str(k): str(v) for k, v in spec.get("env", {}).items()}
    if spec.get("warm_python"):
        _prepare_warm_python(env)
    return _Launch(argv=spec["argv"], env=env, rlimits=_rlimits(spec["limits"]),
                   pipes=_Pipes(with_channel=bool(spec.get("channel"))),
                   stdin_fd=inputs["stdin"], payload_fd=inputs.get("payload", -1),
                   warm=bool(spec.get("warm_python")))


def _program(launch: _Launch) -> None:
    """Become the submitted program (never returns).

    A failure before exec is reported on SETUP_FD, which exec closes: an infra error the program
    itself cannot fake (it never holds that descriptor).
    """
    pipes = launch.pipes
    os.dup2(pipes.setup_w, SETUP_FD, inheritable=False)
    os.dup2(launch.stdin_fd, 0)
    os.dup2(pipes.out_w, 1)
    os.dup2(pipes.err_w, 2)
    keep = {SETUP_FD}
    if pipes.chan_w >= 0:
        os.dup2(pipes.chan_w, 3)
        keep.add(3)
        if launch.payload_fd >= 0:
            os.dup2(launch.payload_fd, 4)
            keep.add(4)
    _close_all_but(keep)
    os.chdir(WORKDIR)
    for which, value in launch.rlimits:
        resource.setrlimit(which, value)
    _drop_privileges()
    if launch.warm:
        os.close(SETUP_FD)
        pyharness.run_forked()  # exits the process
    for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)
    os.execve(launch.argv[0], launch.argv, launch.env)


def _place_artefact(spec: dict, cache_fd: int) -> None:
    """Copy the compiled artefact the run names into the work directory."""
    artefact_fd = os.open(spec["artefact"], os.O_RDONLY | os.O_DIRECTORY, dir_fd=cache_fd)
    try:
        work_fd = os.open(WORKDIR, os.O_RDONLY | os.O_DIRECTORY)
        try:
            budget = [spec["limits"]["tmpfs_bytes"]]
            for name in os.listdir(artefact_fd):
                _copy_entry(name, artefact_fd, work_fd, budget)
        finally:
            os.close(work_fd)
    finally:
        os.close(artefact_fd)


def _store_artefacts(spec: dict, cache_fd: int) -> int:
    """Copy the compile run's outputs into the cache (atomically, by rename). Returns bytes."""
    store = spec["store"]
    temporary = store["key"] + ".partial"
    _remove_at(temporary, cache_fd)  # what a store that failed half-way left
    os.mkdir(temporary, 0o700, dir_fd=cache_fd)
    budget = [CACHE_MAX_BYTES // 4]
    tmp_fd = os.open(temporary, os.O_RDONLY | os.O_DIRECTORY, dir_fd=cache_fd)
    work_fd = os.open(WORKDIR, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for path in store["paths"]:
            if not _copy_entry(path, work_fd, tmp_fd, budget):
                raise OSError(f"artefact {path} is not a regular file or directory")
    except BaseException:
        _remove_at(temporary, cache_fd)  # a failed store keeps no space in the cache
        raise
    finally:
        os.close(tmp_fd)
        os.close(work_fd)
    os.rename(temporary, store["key"], src_dir_fd=cache_fd, dst_dir_fd=cache_fd)
    return CACHE_MAX_BYTES // 4 - budget[0]


def _kill_namespace(reap: bool = True) -> None:
    """From PID 1: SIGKILL every other process of the namespace, then reap what died."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)
    while reap:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _fork_in_new_pid_namespace() -> int:
    """fork() whose child is PID 1 of a new PID namespace.

    unshare(CLONE_NEWPID) works once per process (and setns back to the jail's own namespace is
    refused: that namespace belongs to bubblewrap's outer user namespace), so this is clone()
    with the interpreter's own before/after-fork steps around it, as os.fork does them.
    """
    python_api = ctypes.pythonapi
    python_api.PyOS_BeforeFork()
    pid = _libc_holding_gil.syscall(ctypes.c_long(SYS_CLONE),
                                    ctypes.c_ulong(CLONE_NEWPID | signal.SIGCHLD),
                                    None, None, None, None)
    if pid == 0:
        python_api.PyOS_AfterFork_Child()
        return 0
    errno = ctypes.get_errno()
    python_api.PyOS_AfterFork_Parent()
    if pid < 0:
        raise OSError(errno, f"clone: {os.strerror(errno)}")
    return pid


class _Board:
    """A page shared by the supervisor and one runner: the monotonic deadline of the request
    the runner is serving, 0.0 while it waits. The runner writes it without a syscall; the
    supervisor reads it when it checks. Forks of the runner (programs) do not inherit it."""

    _DEADLINE = struct.Struct("d")

    def __init__(self) -> None:
        self._page = mmap.mmap(-1, mmap.PAGESIZE)

    def keep_from_forks(self) -> None:
        self._page.madvise(mmap.MADV_DONTFORK)

    def post(self, deadline: float) -> None:
        self._DEADLINE.pack_into(self._page, 0, deadline)

    def busy_until(self) -> float:
        """The deadline, 0.0 if idle; a read that raced with a write reads as idle."""
        first, second = (self._DEADLINE.unpack_from(self._page)[0] for _ in range(2))
        return first if first == second else 0.0


class _Runner:
    """The supervisor's handle on one runner (PID 1 of a namespace of its own)."""

    def __init__(self, number: int, channel: _Channel, proc: bool) -> None:
        self.number = number
        self.took = False  # it has taken its first request
        self.board = _Board()
        self.pid = _fork_in_new_pid_namespace()
        if self.pid == 0:
            try:
                self.board.keep_from_forks()
                _runner_main(number, channel, proc, self.board)
            except BaseException:
                traceback.print_exc()  # to the jail's stderr, which the worker reports
            finally:
                os._exit(0)
        self.board.keep_from_forks()  # the supervisor's later runners do not get it either
        self.pidfd = os.pidfd_open(self.pid)

    def kill(self) -> None:
        """SIGKILL to a namespace's PID 1 from outside ends the whole namespace."""
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)

    def reap(self) -> None:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        os.close(self.pidfd)


class _Channel:
    """The descriptors every runner inherits from the supervisor."""

    def __init__(self, host_in: int, host_out: int) -> None:
        self.host_in, self.host_out = host_in, host_out
        self.notes_r, self.notes_w = os.pipe()
        with open(HOST_LOCK, "w"):
            pass


def _note(channel: _Channel, **fields) -> None:
    """A line to the supervisor (atomic: far below PIPE_BUF)."""
    os.write(channel.notes_w, (json.dumps(fields) + "\n").encode())


def _runner_main(number: int, channel: _Channel, proc: bool, board: _Board) -> None:
    """PID 1 of its namespaces: prepare, then take the worker's requests one by one, run each,
    answer the worker directly and tell the supervisor; exit after the number of runs the
    request's `runner_runs` allows (1: a fresh namespace for every run).

    Between two runs every process of the namespace is killed and reaped, and /tmp, /dev/shm
    and the IPC namespace are new; the runner's memory, which each run's fork copies, never
    holds a request's blobs or a program's output (see "the channel" above).
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # PID 1 then ignores it from inside
    _close_all_but({channel.host_in, channel.host_out, channel.notes_w})
    check(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    cache_fd = os.open(ARTEFACTS, os.O_RDONLY | os.O_DIRECTORY)  # before /tmp hides it
    lock_fd = os.open(HOST_LOCK, os.O_RDWR)  # its own open file: its own lock
    # Before /proc is replaced. Files of a non-dumpable process belong to nobody: dumpable just
    # for this open, while nothing else runs in the namespace.
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    oom_fd = os.open("/proc/self/oom_score_adj", os.O_RDWR)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    workdir = Scratch(WORKDIR, MS_NOSUID | MS_NODEV, "nr_inodes=4096,mode=0700")
    shm = Scratch("/dev/shm", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                   "size=16m,nr_inodes=256,mode=0700")
    mount_proc(proc)
    _lock_down_future_privileges()
    fcntl.flock(lock_fd, fcntl.LOCK_EX)  # one runner at a time reads the worker's channel
    served = 0
    while True:
        try:
            spec, layout = protocol.read_header(channel.host_in)
            problem = _size_workdir(workdir, spec)  # before the request's files arrive
            inputs, receive_error = _receive(channel.host_in, layout)
        except protocol.ProtocolError:
            _note(channel, eof=number)  # the worker closed the channel: the jail shuts down
            os._exit(0)
        served += 1
        last = served >= _runs_allowed(spec)
        if last:
            os.close(lock_fd)  # the next runner may take the next request
        limits = spec.get("limits")
        wall = limits.get("wall_s", 0) if isinstance(limits, dict) else 0
        board.post(time.monotonic() + float(wall) + RUNNER_GRACE_S)
        if served == 1:
            _note(channel, took=number, proc=bool(spec.get("proc")))
        parts: list[tuple[str, int, int, int]] = []
        try:
            if problem or receive_error:
                reply = {"error": problem or receive_error}
            else:
                if spec.get("op") == "run" and bool(spec.get("proc")) != proc:
                    proc = not proc
                    mount_proc(proc, replace=True)  # the guess (or the last run's) was wrong
                reply, parts = _serve(spec, inputs, cache_fd, oom_fd, channel)
        except BaseException as exc:
            reply = {"error": f"sandbox runner failed: {exc!r}"}
            _kill_namespace()  # a run that failed half-way may have left processes
        board.post(0.0)  # before the reply: the supervisor must never answer a second time
        _send_reply(channel.host_out, reply, parts)
        for fd in {*inputs.values(), *(fd for _, fd, _, _ in parts)}:
            os.close(fd)
        if last:
            os._exit(0)
        renew_run_state([workdir, shm])


def _runs_allowed(spec: dict) -> int:
    runs = spec.get("runner_runs", 1)
    return runs if isinstance(runs, int) and runs > 0 else 1


def _size_workdir(workdir: Scratch, spec: dict) -> str:
    """Give the work directory the run's size limit; an error message if the spec is bad."""
    try:
        if spec.get("op") == "run":
            workdir.limit(int(spec["limits"]["tmpfs_bytes"]))
        return ""
    except (OSError, KeyError, TypeError, ValueError) as exc:
        return f"bad run request: {exc!r}"


def _serve(spec: dict, inputs: dict[str, int], cache_fd: int, oom_fd: int,
           channel: _Channel) -> tuple[dict, list[tuple[str, int, int, int]]]:
    """Answer one request: the artefact-cache questions here, a run in this namespace."""
    if spec.get("op") == "ping":
        return {"pong": True}, []
    if spec.get("op") != "run":
        return {"error": f"unknown op {spec.get('op')!r}"}, []
    store, artefact = spec.get("store"), spec.get("artefact")
    if store and _cached(cache_fd, store["key"]):
        _note(channel, used=store["key"])
        return {"cached": True}, []
    if artefact:
        if not _cached(cache_fd, artefact):
            return {"missing_artefact": True}, []
        _note(channel, used=artefact)
        _place_artefact(spec, cache_fd)
    if "stdin" not in inputs:
        inputs["stdin"] = os.memfd_create("stdin", 0)
    reply, parts = _run_here(spec, inputs, cache_fd, oom_fd)
    if store and "stored_bytes" in reply:
        _note(channel, stored=store["key"], size=reply["stored_bytes"])
    return reply, parts


def _cached(cache_fd: int, key: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(key, dir_fd=cache_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _fork_program(oom_fd: int) -> int:
    """fork(), the child first in line for the OOM killer, this process back to its own score.

    Raising a score needs no privilege and returning to the inherited one is allowed, so the
    supervisor and runners stay the last choice when a run exhausts the jail's memory cgroup.
    """
    own = os.pread(oom_fd, 16, 0).strip()
    os.pwrite(oom_fd, b"1000", 0)
    try:
        return os.fork()
    finally:
        if os.getpid() == 1:  # the runner itself, not the child
            with contextlib.suppress(OSError):
                os.pwrite(oom_fd, own, 0)


def _run_here(spec: dict, inputs: dict[str, int], cache_fd: int,
              oom_fd: int) -> tuple[dict, list[tuple[str, int, int, int]]]:
    limits = spec["limits"]
    launch = _launch(spec, inputs)
    pipes = launch.pipes
    started = time.monotonic()
    program = _fork_program(oom_fd)
    if program == 0:
        try:
            _program(launch)
        except BaseException as exc:
            os.write(SETUP_FD, f"sandbox setup failed: {exc!r}".encode())
        os._exit(127)
    launch.close_program_ends()
    program_fd = os.pidfd_open(program)
    report, parts = _watch(limits, pipes, program, program_fd, started)
    os.close(program_fd)
    report["setup_error"] = os.read(pipes.setup_r, 4096).decode(errors="replace")
    for fd in (*pipes.read_ends(), pipes.setup_r):  # a runner serves many runs: no fd leaks
        os.close(fd)
    if spec.get("store") and report["exit_code"] == 0 and not (
            report["wall_timeout"] or report["output_exceeded"]):
        try:
            report["stored_bytes"] = _store_artefacts(spec, cache_fd)
        except ArtefactsTooLarge as exc:
            report["too_large"] = f"{exc} ({CACHE_MAX_BYTES // 4 >> 20} MiB)"
        except OSError as exc:
            report["store_error"] = str(exc)
    return report, parts


def _watch(limits: dict, pipes: _Pipes, program: int, program_fd: int,
           started: float) -> tuple[dict, list[tuple[str, int, int, int]]]:
    """Move the pipes' output into memfds, within the cap, until the program ends (or a limit
    does); then end the rest. Returns the report and the reply's parts (name, memfd, offset,
    size): stdout and the channel up to the cap, the tail of stderr."""
    output_cap = limits["output_bytes"]
    names = {pipes.out_r: "stdout", pipes.err_r: "stderr", pipes.chan_r: "channel"}
    sinks = {fd: os.memfd_create(names[fd], 0) for fd in pipes.read_ends()}
    moved = dict.fromkeys(sinks, 0)
    deadline = started + limits["wall_s"]
    wall_timeout = output_exceeded = False
    usage = status = None
    open_fds = set(pipes.read_ends())
    while open_fds or usage is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            if usage is None:
                wall_timeout = True
            break
        if usage is None:
            # While the program lives, every page this process writes is copied (fork is
            # copy-on-write): sleep until it ends, waking only now and then to drain its pipes.
            if select.select([program_fd], [], [], min(remaining, DRAIN_EVERY_S))[0]:
                _, status, usage = os.wait4(program, 0)
                _kill_namespace()  # daemons die with the run; their pipes close
                deadline = min(deadline, time.monotonic() + DRAIN_S)
                continue
            ready = select.select(list(open_fds), [], [], 0)[0]
        else:
            ready = select.select(list(open_fds), [], [], remaining)[0]
        for fd in ready:
            step = os.splice(fd, sinks[fd], PIPE_BYTES)
            moved[fd] += step
            if not step:
                open_fds.discard(fd)
        if sum(moved.values()) > output_cap:
            output_exceeded = True
            break
    if usage is None:  # the wall clock or the output cap ended it
        _kill_namespace(reap=False)  # the program stays unreaped until its rusage is read
        _, status, usage = os.wait4(program, 0)
        _kill_namespace()
    wall_s = time.monotonic() - started
    stderr_bytes = moved[pipes.err_r]
    report = {
        "wall_s": wall_s, "wall_timeout": wall_timeout, "output_exceeded": output_exceeded,
        "stdout_bytes": moved[pipes.out_r], "stderr_bytes": stderr_bytes,
        "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "cpu_s": usage.ru_utime + usage.ru_stime, "maxrss_kb": usage.ru_maxrss,
    }
    tail = min(stderr_bytes, STDERR_TAIL_BYTES)
    parts = [("stdout", sinks[pipes.out_r], 0, min(moved[pipes.out_r], output_cap)),
             ("stderr", sinks[pipes.err_r], stderr_bytes - tail, tail)]
    if pipes.chan_r >= 0:
        parts.append(("channel", sinks[pipes.chan_r], 0, min(moved[pipes.chan_r], output_cap)))
    return report, parts


# --------------------------------------------------------------------------- main loop


class Supervisor:
    """Keeps one runner prepared ahead of the worker's next request, and watches the runners.

    The supervisor is off the path of a run: the prepared runner reads the request and answers
    the worker itself. The supervisor keeps the artefact index from the runners' notes, answers
    for a runner that died or overran before answering, and ends the jail when the worker
    closes the channel.
    """

    def __init__(self, host_in: int, host_out: int) -> None:
        self.cache = ArtefactCache()
        self.channel = _Channel(host_in, host_out)
        self.runners: dict[int, _Runner] = {}
        self.numbers = 0
        self.last_proc = False
        self.notes = b""

    def prepare(self) -> None:
        self.numbers += 1
        self.runners[self.numbers] = _Runner(self.numbers, self.channel, self.last_proc)

    def serve(self) -> None:
        self.prepare()
        protocol.write_message(self.channel.host_out,
                               {"ready": True, "python": sys.version.split()[0]})
        while True:
            by_fd = {r.pidfd: r for r in self.runners.values()}
            ready = select.select([self.channel.notes_r, *by_fd], [], [], WATCH_INTERVAL_S)[0]
            for fd in ready:
                if fd == self.channel.notes_r:
                    if not self._read_notes():
                        return
                else:
                    self._ended(by_fd[fd])
            now = time.monotonic()
            for runner in list(self.runners.values()):
                if 0.0 < runner.board.busy_until() < now:
                    runner.kill()  # _ended answers for it once it is gone

    def _read_notes(self) -> bool:
        """Handle the runners' notes; False when the worker has closed the channel."""
        self.notes += os.read(self.channel.notes_r, 1 << 16)
        *lines, self.notes = self.notes.split(b"\n")
        for line in lines:
            note = json.loads(line)
            if "eof" in note:
                return False
            if "took" in note:
                if note["took"] in self.runners:
                    self.runners[note["took"]].took = True
                self.last_proc = note["proc"]
                if all(r.took for r in self.runners.values()):
                    self.prepare()  # the next runner gets ready while this one serves
            elif "stored" in note:
                self.cache.add(note["stored"], note["size"])
            elif "used" in note:
                self.cache.touch(note["used"])
        return True

    def _ended(self, runner: _Runner) -> None:
        runner.reap()
        del self.runners[runner.number]
        if runner.board.busy_until():
            protocol.write_message(self.channel.host_out,
                                   {"error": "the sandbox runner ended without an answer"})
        if all(r.took for r in self.runners.values()):
            self.prepare()  # no runner waits for the next request: one must

    def close(self) -> None:
        for runner in self.runners.values():
            runner.kill()
            runner.reap()


def main() -> None:
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    if SYS_CLONE is None:
        raise SystemExit(f"the sandbox supervisor does not support {platform.machine()}")
    host_in, host_out = os.dup(0), os.dup(1)
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    os.close(null)
    pyharness.preload()
    # Everything loaded so far is shared with every fork: keep the collector from walking it,
    # since each page it touches would be copied into the fork (fewer faults, cheaper runs).
    gc.freeze()
    libc.malloc_trim(0)  # and hand back the heap's free pages: fewer to map in every fork
    supervisor = Supervisor(host_in, host_out)
    try:
        supervisor.serve()
    finally:
        supervisor.close()


if __name__ == "__main__":
    main()
