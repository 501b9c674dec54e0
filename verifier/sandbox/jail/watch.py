"""Watching one run: its output into memfds within the cap, until the program ends or a limit
does; then the rest of the run's processes end, and the report is made.

Standard library only (see `__init__.py`). While the program lives, every page the runner writes
is copied (fork is copy-on-write), so the runner sleeps until it ends, waking only now and then
to drain its pipes.
"""

from __future__ import annotations

import os
import select
import time

from namespaces import kill_namespace
from program import PIPE_BYTES, Pipes

STDERR_TAIL_BYTES = 4096
DRAIN_S = 2.0  # after the program ended, for the pipes to close once stragglers are killed
DRAIN_EVERY_S = 0.01  # while the program runs, how often the runner drains its pipes


def watch(limits: dict, pipes: Pipes, program: int, program_fd: int,
          started: float) -> tuple[dict, list[tuple[str, int, int, int]]]:
    """Returns the report and the reply's parts (name, memfd, offset, size): stdout and the
    channel up to the cap, the tail of stderr."""
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
            if select.select([program_fd], [], [], min(remaining, DRAIN_EVERY_S))[0]:
                _, status, usage = os.wait4(program, 0)
                kill_namespace()  # daemons die with the run; their pipes close
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
        kill_namespace(reap=False)  # the program stays unreaped until its rusage is read
        _, status, usage = os.wait4(program, 0)
        kill_namespace()
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
