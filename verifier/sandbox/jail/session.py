"""A session's jail: one persistent Python interpreter that runs cell after cell, as a notebook
kernel does, with everything a run gets from the jail.

Standard library only (see `__init__.py`). Started by the worker (verifier/sandbox/session_jail.py)
as the jail's first process instead of the supervisor: one jail per session, so no process,
file, byte of memory or namespace of one session is another's.

    keeper ── host: PID 1 of a new PID namespace, in mount, IPC and network namespaces of its
              │     own, with its own /tmp (the session's working directory), /dev/shm and an
              │     empty /proc, locked down for good as a runner is (runner.py). It serves the
              │     worker itself: puts a run's files in place, hands the cell to the
              │     interpreter, drains its output under the cap, enforces the wall clock, and
              │     answers. A run past a limit, or an interpreter that ends, ends the state:
              │     every process of the namespace is killed, /tmp, /dev/shm and IPC are new, a
              │     fresh interpreter is forked, and the answer says `restarted`.
              └─ interpreter (notebook.py): the program, with the run's rlimits, no capability,
                 the seccomp filter and a session of its own; its stdout and stderr are pipes
                 the host drains, cells come over a socket (the code and stdin as memfds), and
                 its answer goes back on it as one line of JSON.

The interpreter runs hostile code, so nothing it sends is trusted beyond its own run: its answer
is bounded and must carry the cell's number, its death or silence is a verdict, and the host
never reads more than the cap from it.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import json
import os
import resource
import select
import socket
import sys
import time

import notebook
import warm_python
import worker_jail
from linux import PR_SET_DUMPABLE, libc
from namespaces import WORKDIR, fork_in_new_pid_namespace, kill_namespace, renew_ipc
from privileges import drop_privileges
from program import PIPE_BYTES, close_all_but, fork_program, rlimits_for
from runner import collect_files, enter_own_namespaces, take_scratch
from runner_worker import receive, send_reply

ANSWER_SLACK_BYTES = 64 * 1024  # an answer's JSON beyond the result it carries
FINAL_DRAIN_S = 0.2  # after the answer: for output already written, in pipes being drained
CLOSE_GRACE_S = 0.1  # for an interpreter that closed its channel to be seen ending


class Interpreter:
    """The session's live interpreter: its process, its output pipes, its socket."""

    def __init__(self, oom_fd: int, limits: dict) -> None:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        for fd in (out_r, err_r):
            with contextlib.suppress(OSError):
                fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        host_end, own_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        rlimits = rlimits_for(limits)
        self.pid = fork_program(oom_fd)
        if self.pid == 0:
            _become_interpreter(own_end.detach(), out_w, err_w, rlimits)
        for fd in (out_w, err_w):
            os.close(fd)
        own_end.close()
        self.pidfd = os.pidfd_open(self.pid)
        self.socket = host_end
        self.outputs = {out_r: "stdout", err_r: "stderr"}
        for fd in (*self.outputs, host_end.fileno()):
            os.set_blocking(fd, False)
        self.status: int | None = None  # its wait status, once it ended
        self.cells = 0

    def ended(self) -> bool:
        """Whether it has ended; reaps it (its wait status in `status`) if it has."""
        if self.status is None and select.select([self.pidfd], [], [], 0)[0]:
            with contextlib.suppress(ChildProcessError):
                self.status = os.waitpid(self.pid, 0)[1]
        return self.status is not None or bool(select.select([self.pidfd], [], [], 0)[0])

    def close(self) -> None:
        self.socket.close()
        for fd in (*self.outputs, self.pidfd):
            os.close(fd)


def _become_interpreter(channel: int, out_w: int, err_w: int,
                        rlimits: list[tuple[int, tuple[int, int]]]) -> None:
    """In the fork: become the interpreter (never returns)."""
    try:
        os.setsid()  # kill(0) from it reaches neither the host nor the keeper
        null = os.open("/dev/null", os.O_RDONLY)
        for source, target in ((null, 0), (out_w, 1), (err_w, 2), (channel, notebook.CHANNEL_FD)):
            os.dup2(source, target)
        close_all_but({notebook.CHANNEL_FD})
        os.chdir(WORKDIR)
        for which, value in rlimits:
            resource.setrlimit(which, value)
        drop_privileges()
        notebook.serve()
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.write(2, f"sandbox setup failed: {exc!r}\n".encode())
    os._exit(127)


class SessionHost:
    """PID 1 of the session's namespaces: serves the worker's runs one after another."""

    def __init__(self, host_in: int, host_out: int) -> None:
        self.host_in, self.host_out = host_in, host_out
        enter_own_namespaces({host_in, host_out})
        self.oom_fd, self.workdir, self.shm = take_scratch(proc=False)
        self.interpreter: Interpreter | None = None

    def serve(self) -> None:
        worker_jail.write_message(self.host_out, {"ready": True, "python": sys.version.split()[0]})
        while True:
            try:
                spec, layout = worker_jail.read_header(self.host_in)
                restarted = self._check_interpreter()  # before the run's files are in place
                self.workdir.limit(int(spec["tmpfs_bytes"]))
                inputs, problem = receive(self.host_in, layout, replace=True)
            except (worker_jail.ProtocolError, KeyError, TypeError, ValueError, OSError):
                os._exit(0)  # the worker closed the channel (or broke it): the session ends
            parts: list[tuple[str, int, int, int]] = []
            try:
                reply, parts = self._run(spec, inputs, problem, restarted)
            except BaseException as exc:
                reply = {"error": f"the session host failed: {exc!r}"}
                self._reset()
            for fd in set(inputs.values()) - {fd for _, fd, _, _ in parts}:
                os.close(fd)
            send_reply(self.host_out, reply, parts)

    def _check_interpreter(self) -> bool:
        """Reap what ended since the last run; True if the interpreter did (a thread of its
        own, a signal): then the state is gone and the run starts from a fresh one."""
        ended = False
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if not pid:
                break
            if self.interpreter is not None and pid == self.interpreter.pid:
                self.interpreter.status = status
        if self.interpreter is not None and self.interpreter.ended():
            self._reset()
            ended = True
        return ended

    def _run(self, spec: dict, inputs: dict[str, int], problem: str, restarted: bool
             ) -> tuple[dict, list[tuple[str, int, int, int]]]:
        if problem:  # a file of the request could not be written (the session's own links)
            return {"status": "error", "restarted": restarted, "wall_s": 0.0,
                    "note": f"{problem}\n"}, []
        if self.interpreter is None:
            self.interpreter = Interpreter(self.oom_fd, spec["limits"])
        interpreter = self.interpreter
        interpreter.cells += 1
        cap = int(spec["output_bytes"])
        started = time.monotonic()
        outcome = _watch(interpreter, inputs, cap, started + float(spec["wall_s"]))
        if outcome.pop("ended"):
            restarted = True
            self._reset()
            self.interpreter = Interpreter(self.oom_fd, spec["limits"])  # ready for the next
        outcome.update(restarted=restarted, wall_s=time.monotonic() - started)
        sizes, collected = collect_files(spec.get("collect") or [], WORKDIR, cap, "")
        outcome["files"] = sizes
        return outcome, [*outcome.pop("parts"), *collected]

    def _reset(self) -> None:
        """End the state: every process of the namespace, /tmp, /dev/shm, IPC objects."""
        kill_namespace()
        if self.interpreter is not None:
            self.interpreter.close()
            self.interpreter = None
        for area in (self.workdir, self.shm):
            area.renew()
        renew_ipc()


def _watch(interpreter: Interpreter, inputs: dict[str, int], cap: int, deadline: float) -> dict:
    """Hand one cell to the interpreter and wait for its answer, its end, the deadline or the
    output cap. The outcome: status, the answer's fields, `ended` (the state is lost), and the
    reply's parts (stdout, stderr and the result, in memfds)."""
    sinks = {fd: os.memfd_create(name, 0) for fd, name in interpreter.outputs.items()}
    moved = dict.fromkeys(sinks, 0)
    open_outputs = set(sinks)
    answer = b""
    status, note, fields = "", "", {}
    with contextlib.suppress(OSError):  # what it wrote since its last answer, within bounds
        for _ in range(64):
            if not interpreter.socket.recv(1 << 16):
                break
    try:
        header = json.dumps({"cell": interpreter.cells, "result_bytes": cap}).encode() + b"\n"
        socket.send_fds(interpreter.socket, [header], [inputs["code"], inputs["stdin"]])
    except OSError:
        status, note = "died", "the interpreter's channel was closed: it was restarted\n"
    while not status:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            status = "timeout"
            break
        watched = [*open_outputs, interpreter.socket.fileno(), interpreter.pidfd]
        for fd in select.select(watched, [], [], remaining)[0]:
            if fd in sinks:
                step = _drain(fd, sinks[fd], cap + 1 - sum(moved.values()))
                moved[fd] += step
                if not step:
                    open_outputs.discard(fd)
            elif fd == interpreter.pidfd:
                interpreter.ended()  # reaped now, before anything else can reap it
                status = "died"
            else:
                answer, status, note, fields = _read_answer(interpreter, answer, cap)
        if sum(moved.values()) > cap:
            status = "output_limit"
    ended = status in ("timeout", "output_limit", "died")
    if ended:
        kill_namespace()  # its output pipes close: what it wrote stays readable
    finish = time.monotonic() + FINAL_DRAIN_S
    for fd in sinks:  # the output written before its answer (or its end)
        while fd in open_outputs and sum(moved.values()) <= cap and time.monotonic() < finish:
            step = _drain(fd, sinks[fd], cap + 1 - sum(moved.values()))
            if step is None:
                break
            moved[fd] += step
            if not step:
                open_outputs.discard(fd)
    if status == "died" and not note:
        note = _end_note(interpreter.status)
    if not ended and len(open_outputs) < len(sinks):  # it closed its stdout or stderr
        ended, note = True, "the interpreter closed its standard output: it was restarted\n"
    if status == "died":
        status = "error"
    parts = [(name, sinks[fd], 0, min(moved[fd], cap)) for fd, name in interpreter.outputs.items()]
    result = fields.pop("result", None)
    if isinstance(result, str):
        memfd = os.memfd_create("result", 0)
        size = os.write(memfd, result.encode(errors="replace")[:cap])
        parts.append(("result", memfd, 0, size))
    return {"status": status, "note": note, "ended": ended, "parts": parts,
            "stdout_bytes": moved[next(iter(sinks))], **fields}


def _drain(fd: int, sink: int, room: int) -> int | None:
    """Move what the pipe holds (at most `room` bytes, at least one to notice the cap) into the
    sink; 0 at EOF, None if nothing is there yet."""
    try:
        return os.splice(fd, sink, max(1, min(room, PIPE_BYTES)), flags=os.SPLICE_F_NONBLOCK)
    except BlockingIOError:
        return None


def _read_answer(interpreter: Interpreter, answer: bytes, cap: int
                 ) -> tuple[bytes, str, str, dict]:
    """Read what the interpreter's socket has: (the bytes so far, the status once its answer
    for this cell is complete, a note, the answer's fields)."""
    try:
        data = interpreter.socket.recv(1 << 20)
    except BlockingIOError:
        return answer, "", "", {}
    except OSError:
        data = b""
    if not data:  # closed: by its own code, or because it is ending
        select.select([interpreter.pidfd], [], [], CLOSE_GRACE_S)
        interpreter.ended()
        return answer, "died", "", {}
    answer += data
    while b"\n" in answer:
        line, answer = answer.split(b"\n", 1)
        try:
            fields = json.loads(line)
        except ValueError:
            continue
        if type(fields) is dict and fields.get("cell") == interpreter.cells and \
                fields.get("status") in ("ok", "error"):
            kept = {"status": fields["status"]}
            if isinstance(fields.get("result"), str):
                kept["result"] = fields["result"]
            if isinstance(fields.get("error"), dict):
                kept["exception"] = _error_fields(fields["error"])
            return answer, kept.pop("status"), "", kept
    if len(answer) > 2 * cap + ANSWER_SLACK_BYTES:  # a result's JSON: its escapes double it
        return b"", "output_limit", "", {}
    return answer, "", "", {}


def _error_fields(error: dict) -> dict:
    """The exception's name, value and traceback lines, as strings, nothing else."""
    lines = error.get("traceback")
    lines = [str(line)[:notebook.TRACE_LINE_CHARS] for line in lines[-notebook.TRACE_LINES:]] \
        if isinstance(lines, list) else []
    return {"ename": str(error.get("ename", ""))[:notebook.TRACE_LINE_CHARS],
            "evalue": str(error.get("evalue", ""))[:notebook.TRACE_LINE_CHARS],
            "traceback": lines}


def _end_note(status: int | None) -> str:
    if status is None:
        return "the interpreter's channel was closed: it was restarted\n"
    if os.WIFSIGNALED(status):
        return f"the interpreter was killed by signal {os.WTERMSIG(status)}: it was restarted\n"
    return (f"the interpreter exited with status {os.waitstatus_to_exitcode(status)}: it was "
            "restarted\n")


def main() -> None:
    """The keeper: the jail's first process. It forks the session's host into a new PID
    namespace and lives as long as it does."""
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    host_in, host_out = os.dup(0), os.dup(1)
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    os.close(null)
    warm_python.preload()  # the interpreter forks from here: what it imports is loaded once
    gc.freeze()
    pid = fork_in_new_pid_namespace()
    if pid == 0:
        try:
            SessionHost(host_in, host_out).serve()
        finally:
            os._exit(0)
    for fd in (host_in, host_out):
        os.close(fd)
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
