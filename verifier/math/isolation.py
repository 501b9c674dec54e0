"""A killable helper process for grading, owned by each calling thread.

Why a process: math-verify's own timeout is `signal.alarm`, which only works on a main thread;
converting some parsed answers to strings never ends; a huge integer power runs in C where no
signal can interrupt it. The only limit that always holds is killing the process doing the work.

How: the first call in a thread imports math-verify, warms it up and forks a helper that
grades items sent over a pipe. The caller waits with a deadline; on timeout it SIGKILLs the
helper and the next call forks a fresh one (cheap: the fork inherits the warm parser). The
helper's address space is capped (RLIMIT_AS), it dies with its parent (PR_SET_PDEATHSIG, and
the pipe closing), and one that died is detected and replaced. `os.fork` is used because the
callers are often daemonic pool processes, which may not start `multiprocessing` children.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import threading
import time
from collections import OrderedDict
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from typing import Any

from verifier.deadline import die_with_parent, limit_address_space
from verifier.schemas import MathOptions, Status

# Address space a helper may add to what it inherits; an item needing more fails in the helper.
DEFAULT_MEMORY_MB = 1024
# References that could not be parsed in time, remembered so they do not cost a kill each time.
SLOW_GOLD_MEMORY = 256

# Messages from the helper besides verdicts: around parsing a reference it has not seen.
GOLD_PARSE_STARTED = 1
GOLD_PARSE_DONE = 2
RETIRING = 3  # the next verdict is the helper's last: it exits after sending it
_PR_SET_PDEATHSIG = 1


class GradingProcess:
    """One helper process and the pipe to it. Not thread-safe: one per calling thread.

    A copy of this object inherited through `fork` never uses or kills the parent's helper.
    """

    def __init__(self, memory_mb: int = DEFAULT_MEMORY_MB) -> None:
        self._memory_mb = memory_mb
        self._pid: int | None = None
        self._conn: Connection | None = None
        self._owner_pid = os.getpid()  # the process that forked the helper
        self._slow_golds: OrderedDict[str, str] = OrderedDict()
        self._death = ""  # how the last helper that died mid-item ended

    @property
    def pid(self) -> int | None:
        """The helper's process id, None until it is started (for tests and diagnostics)."""
        return self._pid

    def grade(self, prediction: str, gold: str, timeout_s: float,
              options: MathOptions | None = None) -> tuple[Status, str | None]:
        """Grade in the helper; at most `timeout_s` once the helper runs (twice that if the
        helper dies mid-item, which is retried once on a fresh helper: an idle helper killed
        from outside, e.g. by the OOM killer, is only noticed when the next item is sent).

        A reference the helper has not parsed before gets a deadline of its own first (it is
        parsed once per helper and kept), so a slow reference does not eat the answer's time.
        """
        known_failure = self._slow_golds.get(gold)
        if known_failure is not None:
            return Status.infra_error, known_failure
        request = (prediction, gold, options)
        verdict = self._grade_once(request, timeout_s)
        if verdict is None:
            verdict = self._grade_once(request, timeout_s)
        if verdict is None:
            return Status.wrong, f"checking this answer killed the checker twice ({self._death})"
        return verdict

    def _grade_once(self, request: tuple[str, str, MathOptions | None],
                    timeout_s: float) -> tuple[Status, str | None] | None:
        """One try; None if the helper died on the way (its cause is kept in `_death`)."""
        gold = request[1]
        conn = self._send(request)
        deadline = time.monotonic() + timeout_s
        parsing_gold = retiring = False
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not conn.poll(remaining):
                self.stop()
                if parsing_gold:
                    return self._remember_slow_gold(
                        gold, f"the reference answer took longer than {timeout_s:g} s to parse")
                return Status.timeout, f"checking took longer than {timeout_s:g} s"
            try:
                message: Any = conn.recv()
            except (EOFError, OSError):
                self._death = self._reap()
                if parsing_gold:
                    return self._remember_slow_gold(
                        gold, f"parsing the reference answer killed the checker ({self._death})")
                return None
            if message == GOLD_PARSE_STARTED:
                parsing_gold = True
            elif message == GOLD_PARSE_DONE:  # the answer gets a whole deadline of its own
                parsing_gold = False
                deadline = time.monotonic() + timeout_s
            elif message == RETIRING:
                retiring = True
            else:
                if retiring:
                    self._reap()
                return message

    def ensure_started(self) -> None:
        """Fork the helper now if there is none (first use, or after a kill)."""
        if self._conn is not None and not self._owned():
            self._reap()  # inherited through a fork: that helper serves the parent process
        if self._conn is None:
            self._start()

    def stop(self) -> None:
        """Kill the helper (if any, and ours) and reap it."""
        if self._pid is not None and self._owned():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
        self._reap()

    def __del__(self) -> None:
        # A thread's helper handle goes when the thread does; its helper must not linger.
        with contextlib.suppress(Exception):
            self.stop()

    def _owned(self) -> bool:
        return self._owner_pid == os.getpid()

    def _send(self, request: tuple[str, str, MathOptions | None]) -> Connection:
        """Send a request, starting (or replacing a dead) helper as needed."""
        self.ensure_started()
        try:
            self._conn.send(request)
        except OSError:  # the helper died while idle (e.g. killed by the OOM killer)
            self._reap()
            self._start()
            self._conn.send(request)
        return self._conn

    def _start(self) -> None:
        _warm_up_once()
        parent_end, child_end = Pipe(duplex=True)
        parent_pid = os.getpid()
        pid = os.fork()
        if pid == 0:  # the helper: never returns into the caller's code
            status = 1
            try:
                parent_end.close()
                _serve(child_end, parent_pid, self._memory_mb)
                status = 0
            finally:
                os._exit(status)
        child_end.close()
        self._pid, self._conn, self._owner_pid = pid, parent_end, parent_pid

    def _reap(self) -> str:
        """Collect the helper's exit status; return how it ended, in words."""
        pid, conn = self._pid, self._conn
        self._pid = self._conn = None
        if conn is not None:
            conn.close()  # only this process's copy of the pipe
        if pid is None or not self._owned():
            return "no helper"
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:  # already reaped by someone else's SIGCHLD handler
            return "exit status unknown"
        if os.WIFSIGNALED(status):
            return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
        return f"exit code {os.WEXITSTATUS(status)}"

    def _remember_slow_gold(self, gold: str, reason: str) -> tuple[Status, str]:
        self._slow_golds[gold] = reason
        if len(self._slow_golds) > SLOW_GOLD_MEMORY:
            self._slow_golds.popitem(last=False)
        return Status.infra_error, reason


def _serve(conn: Connection, parent_pid: int, memory_mb: int) -> None:
    """The helper's loop: grade each request until the pipe closes."""
    from verifier.math.grade import grade

    die_with_parent(parent_pid)
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1,
                   signal.SIGUSR2, signal.SIGQUIT, signal.SIGALRM):
        signal.signal(signum, signal.SIG_DFL)  # the caller's handlers mean nothing here
    limit_address_space(memory_mb)

    def report_gold_parse(started: bool) -> None:
        conn.send(GOLD_PARSE_STARTED if started else GOLD_PARSE_DONE)

    while True:
        try:
            prediction, gold, options = conn.recv()
        except EOFError:
            return
        try:
            verdict = tuple(grade(prediction, gold, options, report_gold_parse))
        except MemoryError:
            conn.send(RETIRING)  # a helper that ran out of memory is not trusted any more
            conn.send((Status.wrong, f"checking this answer needs more than {memory_mb} MiB"))
            return
        except Exception as exc:  # a bug in the grader, not the policy's fault
            verdict = (Status.infra_error, f"grader error: {type(exc).__name__}")
        conn.send(verdict)


@functools.cache
def _warm_up_once() -> None:
    from verifier.math import grade  # heavy (sympy): only in processes that grade

    grade.warm_up()


_local = threading.local()


def grading_process() -> GradingProcess:
    """The calling thread's helper handle (created on first use)."""
    process = getattr(_local, "process", None)
    if process is None:
        process = _local.process = GradingProcess()
    return process

