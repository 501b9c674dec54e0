"""Watching one run: its programs' output into memfds within the cap, until they end or a limit
does; then the rest of the run's processes end, and the report is made.

Standard library only (see `__init__.py`). While a program lives, every page the runner writes
is copied (fork is copy-on-write), so the runner sleeps until it ends, waking only now and then
to drain its pipes. A run has one program, or two (an interactive run: the solution and its
interactor, talking through pipes the runner never reads); the run ends when all have ended.
"""

from __future__ import annotations

import os
import select
import time
from dataclasses import dataclass, field
from typing import Any

from linux import SYS_READ, SYS_WRITE
from namespaces import kill_namespace
from program import PIPE_BYTES, Pipes

STDERR_TAIL_BYTES = 4096
DRAIN_S = 2.0  # after the programs ended, for the pipes to close once stragglers are killed
DRAIN_EVERY_S = 0.01  # while a program runs, how often the runner drains its pipes


@dataclass(eq=False)  # compared by identity
class Program:
    """One program of a run: its process, its pipes, and what the watch saw of it."""

    pid: int
    pidfd: int
    pipes: Pipes
    prefix: str = ""  # of its reply blobs' names ("peer:" for an interactor)
    status: int | None = None
    usage: Any = None  # resource.struct_rusage once reaped
    moved: dict[int, int] = field(default_factory=dict)  # read end -> bytes drained
    sinks: dict[int, int] = field(default_factory=dict)  # read end -> memfd

    def reap(self, flags: int = 0) -> None:
        _, self.status, self.usage = os.wait4(self.pid, flags)


def watch(limits: dict, programs: list[Program], started: float
          ) -> tuple[list[dict], list[tuple[str, int, int, int]]]:
    """Returns one report per program and the reply's parts (name, memfd, offset, size): each
    program's stdout and channel up to the cap, the tail of its stderr. The output cap holds
    for each program; the wall clock for the run."""
    output_cap = limits["output_bytes"]
    owner: dict[int, Program] = {}
    for program in programs:
        names = {program.pipes.out_r: "stdout", program.pipes.err_r: "stderr",
                 program.pipes.chan_r: "channel"}
        for fd in program.pipes.read_ends():
            program.sinks[fd] = os.memfd_create(names[fd], 0)
            program.moved[fd] = 0
            owner[fd] = program
    deadline = started + limits["wall_s"]
    flooded: Program | None = None
    open_fds = set(owner)
    while open_fds or _running(programs):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        running = _running(programs)
        if running:
            ended = select.select([p.pidfd for p in running], [], [],
                                  min(remaining, DRAIN_EVERY_S))[0]
            for program in running:
                if program.pidfd in ended:
                    program.reap()
            if ended and not _running(programs):
                kill_namespace()  # daemons die with the run; their pipes close
                deadline = min(deadline, time.monotonic() + DRAIN_S)
                continue
            ready = select.select(list(open_fds), [], [], 0)[0]
        else:
            ready = select.select(list(open_fds), [], [], remaining)[0]
        for fd in ready:
            step = os.splice(fd, owner[fd].sinks[fd], PIPE_BYTES)
            owner[fd].moved[fd] += step
            if not step:
                open_fds.discard(fd)
        flooded = next((p for p in programs if sum(p.moved.values()) > output_cap), None)
        if flooded is not None:
            break
    timed_out = _running(programs)
    blocked = {id(p): blocked_on(p.pid) for p in timed_out} if len(programs) > 1 else {}
    if timed_out:  # the wall clock or the output cap ended it
        kill_namespace(reap=False)  # the programs stay unreaped until their rusage is read
        for program in timed_out:
            program.reap()
        kill_namespace()
    wall_s = time.monotonic() - started
    reports, parts = [], []
    for program in programs:
        report, program_parts = _report(program, limits)
        report.update(wall_s=wall_s, wall_timeout=program in timed_out and flooded is None,
                      output_exceeded=program is flooded)
        if id(program) in blocked:
            report["blocked_on"] = blocked[id(program)]
        reports.append(report)
        parts += program_parts
    return reports, parts


def sleep_on(pidfd: int, wall_s: float) -> None:
    """Right after the fork, before the runner makes anything for the watch: sleep until the
    program ends or its pipes are first due for a drain. Most programs end within that wait,
    so the pages the runner writes next are its own again (fault, no copy), not copied for a
    program that still shares them."""
    select.select([pidfd], [], [], min(DRAIN_EVERY_S, max(wall_s, 0.0)))


def blocked_on(pid: int) -> str | None:
    """What a live program of an interactive run is doing: waiting to read its stdin or to
    write its stdout (the other program's side of their pipes), "running", or "other" (asleep
    for a reason of its own); None if the runner's /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/syscall") as syscall:
            fields = syscall.read().split()
        if fields[0] == "running":
            return "running"
        number, first = int(fields[0]), int(fields[1], 16)
    except (OSError, ValueError, IndexError):
        return None
    if (number, first) == (SYS_READ, 0):
        return "stdin"
    if (number, first) == (SYS_WRITE, 1):
        return "stdout"
    return "other"


def _running(programs: list[Program]) -> list[Program]:
    return [program for program in programs if program.usage is None]


def _report(program: Program, limits: dict) -> tuple[dict, list[tuple[str, int, int, int]]]:
    """How the program ended, and its output as reply parts: stdout and the channel up to the
    cap, the tail of stderr (`stderr_bytes` of the limits, else STDERR_TAIL_BYTES)."""
    output_cap = limits["output_bytes"]
    pipes, status, usage = program.pipes, program.status, program.usage
    stdout_bytes, stderr_bytes = program.moved[pipes.out_r], program.moved[pipes.err_r]
    report = {
        "stdout_bytes": stdout_bytes, "stderr_bytes": stderr_bytes,
        "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "cpu_s": usage.ru_utime + usage.ru_stime, "maxrss_kb": usage.ru_maxrss,
    }
    tail = min(stderr_bytes, limits.get("stderr_bytes") or STDERR_TAIL_BYTES)
    prefix = program.prefix
    parts = [(f"{prefix}stdout", program.sinks[pipes.out_r], 0, min(stdout_bytes, output_cap)),
             (f"{prefix}stderr", program.sinks[pipes.err_r], stderr_bytes - tail, tail)]
    if pipes.chan_r >= 0:
        parts.append((f"{prefix}channel", program.sinks[pipes.chan_r], 0,
                      min(program.moved[pipes.chan_r], output_cap)))
    return report, parts
