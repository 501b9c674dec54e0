"""A runner: PID 1 of namespaces of its own, serving the worker's requests one run after another.

Standard library only (see `__init__.py`). It prepares its namespaces before its first request
arrives, then takes requests from the channel itself, runs each, answers the worker directly and
tells the supervisor what it did (notes); it exits after the number of runs the request's
`runner_runs` allows (1: fresh namespaces for every run).

Between two runs every process of the namespace is killed and reaped, and /tmp, /dev/shm and the
IPC namespace are new; the runner's memory, which each run's fork copies, never holds a
request's blobs or a program's output (see channel.py).
"""

from __future__ import annotations

import fcntl
import mmap
import os
import signal
import struct
import time

import protocol
from artefacts import ARTEFACTS, cached, place_artefact, store_artefacts
from channel import HOST_LOCK, Channel, receive, send_reply
from linux import (
    CLONE_NEWIPC,
    CLONE_NEWNS,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_REC,
    PR_SET_DUMPABLE,
    check,
    libc,
    mount,
)
from namespaces import WORKDIR, Scratch, kill_namespace, mount_proc, renew_run_state
from privileges import lock_down_future_privileges
from program import SETUP_FD, become_program, close_all_but, fork_program, prepare_launch
from watch import watch

RUNNER_GRACE_S = 10.0  # beyond the run's wall limit, before the supervisor gives up on a runner


class Board:
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


def runner_main(number: int, channel: Channel, proc: bool, board: Board) -> None:
    """Prepare, then serve requests until the allowance is used or the worker closes the
    channel; never returns."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # PID 1 then ignores it from inside
    close_all_but({channel.host_in, channel.host_out, channel.notes_w})
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
    lock_down_future_privileges()
    fcntl.flock(lock_fd, fcntl.LOCK_EX)  # one runner at a time reads the worker's channel
    served = 0
    while True:
        try:
            spec, layout = protocol.read_header(channel.host_in)
            problem = _size_workdir(workdir, spec)  # before the request's files arrive
            inputs, receive_error = receive(channel.host_in, layout)
        except protocol.ProtocolError:
            channel.note(eof=number)  # the worker closed the channel: the jail shuts down
            os._exit(0)
        served += 1
        last = served >= _runs_allowed(spec)
        if last:
            os.close(lock_fd)  # the next runner may take the next request
        limits = spec.get("limits")
        wall = limits.get("wall_s", 0) if isinstance(limits, dict) else 0
        board.post(time.monotonic() + float(wall) + RUNNER_GRACE_S)
        if served == 1:
            channel.note(took=number, proc=bool(spec.get("proc")))
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
            kill_namespace()  # a run that failed half-way may have left processes
        board.post(0.0)  # before the reply: the supervisor must never answer a second time
        send_reply(channel.host_out, reply, parts)
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
           channel: Channel) -> tuple[dict, list[tuple[str, int, int, int]]]:
    """Answer one request: the artefact-cache questions here, a run in this namespace."""
    if spec.get("op") == "ping":
        return {"pong": True}, []
    if spec.get("op") != "run":
        return {"error": f"unknown op {spec.get('op')!r}"}, []
    store, artefact = spec.get("store"), spec.get("artefact")
    if store and cached(cache_fd, store["key"]):
        channel.note(used=store["key"])
        return {"cached": True}, []
    if artefact:
        if not cached(cache_fd, artefact):
            return {"missing_artefact": True}, []
        channel.note(used=artefact)
        place_artefact(spec, cache_fd)
    if "stdin" not in inputs:
        inputs["stdin"] = os.memfd_create("stdin", 0)
    reply, parts = _run_here(spec, inputs, cache_fd, oom_fd)
    if store and "stored_bytes" in reply:
        channel.note(stored=store["key"], size=reply["stored_bytes"])
    return reply, parts


def _run_here(spec: dict, inputs: dict[str, int], cache_fd: int,
              oom_fd: int) -> tuple[dict, list[tuple[str, int, int, int]]]:
    limits = spec["limits"]
    launch = prepare_launch(spec, inputs)
    pipes = launch.pipes
    started = time.monotonic()
    program = fork_program(oom_fd)
    if program == 0:
        try:
            become_program(launch)
        except BaseException as exc:
            os.write(SETUP_FD, f"sandbox setup failed: {exc!r}".encode())
        os._exit(127)
    launch.close_program_ends()
    program_fd = os.pidfd_open(program)
    report, parts = watch(limits, pipes, program, program_fd, started)
    os.close(program_fd)
    report["setup_error"] = os.read(pipes.setup_r, 4096).decode(errors="replace")
    for fd in (*pipes.read_ends(), pipes.setup_r):  # a runner serves many runs: no fd leaks
        os.close(fd)
    if spec.get("store") and report["exit_code"] == 0 and not (
            report["wall_timeout"] or report["output_exceeded"]):
        try:
            report["stored_bytes"] = store_artefacts(spec, cache_fd)
        except OSError as exc:
            report["store_error"] = str(exc)
    return report, parts
