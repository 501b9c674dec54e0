"""The supervisor: the trusted process inside the jail, one per worker slot.

Standard library only (see `__init__.py`); started by the host with the jail's own Python
(`python3 -s -S`), as the jail's first process. It runs as uid 1000 of the jail's user
namespace, holding CAP_SYS_ADMIN and CAP_SETPCAP *there* only (bubblewrap gave the jail no other
privilege, and user namespaces are disabled inside). It never runs submitted code itself, and it
stays off the path of a run:

    supervisor ── runner: PID 1 of a new PID namespace, with new mount, IPC and network
                  │       namespaces (no network interface up, not even loopback), a
                  │       fresh tmpfs /tmp (the work directory) and /dev/shm, a private or hidden
                  │       /proc, prepared *before* its first request arrives. It takes the
                  │       worker's requests from the channel itself, runs each, moves the
                  │       program's output with caps, enforces the wall clock, kills every
                  │       process left in the namespace (double-forked daemons included),
                  │       answers the worker directly, and gives the next run a new /tmp,
                  │       /dev/shm and IPC namespace. After `runner_runs` runs it exits, and the
                  │       runner the supervisor has prepared meanwhile takes over.
                  └─ program: rlimits, every capability dropped for good (bounding set,
                              securebits, no_new_privs), the runner's seccomp filter
                              (seccomp.py), the run's own environment, then exec,
                              or (warm Python) the harness runs in this forked interpreter.

So a run costs one fork (and, unless warm Python, one exec). The program cannot signal the
runner (PID 1 ignores what it has no handler for) or trace it (it holds capabilities the program
lacks, and is not dumpable), cannot see the supervisor (another PID namespace), cannot change
mounts (no capability), and shares no writable file with any other run: /tmp, /dev/shm and /proc
are its own, / and /dev are read-only, and the artefact cache is hidden under the fresh /tmp.
Nor does it find an earlier run's data in the memory it inherits from the runner: requests and
outputs pass through the runner only inside the kernel (see runner_worker.py).

The pieces: runner.py (a runner's loop), program.py (starting a program), watch.py (one run's
output and end), runner_worker.py, artefacts.py, namespaces.py, privileges.py, warm_python.py.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import platform
import select
import signal
import sys
import time
import traceback
from importlib.util import MAGIC_NUMBER

import warm_python
import worker_jail
from artefacts import artefact_index
from linux import PR_SET_DUMPABLE, SYS_CLONE, libc
from namespaces import fork_in_new_pid_namespace
from runner import Board, runner_main
from runner_worker import Channel

WATCH_INTERVAL_S = 1.0  # how often the supervisor looks for a runner past its deadline


class RunnerHandle:
    """The supervisor's handle on one runner (PID 1 of a namespace of its own)."""

    def __init__(self, number: int, channel: Channel, proc: bool) -> None:
        self.number = number
        self.took = False  # it has taken its first request
        self.board = Board()
        self.pid = fork_in_new_pid_namespace()
        if self.pid == 0:
            try:
                self.board.keep_from_forks()
                runner_main(number, channel, proc, self.board)
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


class Supervisor:
    """Keeps one runner prepared ahead of the worker's next request, and watches the runners.

    The supervisor is off the path of a run: the prepared runner reads the request and answers
    the worker itself. The supervisor keeps the artefact index from the runners' notes, answers
    for a runner that died or overran before answering, and ends the jail when the worker
    closes the channel.
    """

    def __init__(self, host_in: int, host_out: int) -> None:
        self.artefacts = artefact_index()
        self.channel = Channel(host_in, host_out)
        self.runners: dict[int, RunnerHandle] = {}
        self.numbers = 0
        self.last_proc = False
        self.notes = b""

    def prepare(self) -> None:
        self.numbers += 1
        self.runners[self.numbers] = RunnerHandle(self.numbers, self.channel, self.last_proc)

    def serve(self) -> None:
        self.prepare()
        worker_jail.write_message(self.channel.host_out,
                               {"ready": True, "python": sys.version.split()[0],
                                "bytecode_magic": MAGIC_NUMBER.hex()})
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
                self.artefacts[note["stored"]] = note["size"]
            elif "used" in note:
                self.artefacts.touch(note["used"])
        return True

    def _ended(self, runner: RunnerHandle) -> None:
        runner.reap()
        del self.runners[runner.number]
        if runner.board.busy_until():
            worker_jail.write_message(self.channel.host_out,
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
    warm_python.preload()
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
