"""Run a check in a killable helper process, under a hard deadline.

The generic form of math's helper (`verifier/kinds/math/isolation.py`), for the kinds whose checks
run code we do not control on input we do not trust: a regex from a dataset against a
completion (catastrophic backtracking), a reasoning-gym scorer or generator (arbitrary Python,
configs that can ask for huge puzzles), language detection on a 200 kB response. The only limit
that always holds is killing the process doing the work, so each calling thread owns one forked
helper; the caller sends `(function, args)` over a pipe and waits with a deadline; on timeout it
SIGKILLs the helper and the next call forks a fresh one. The helper's address space is capped
and it dies with its parent (the same two guards math's helper uses, shared from here).

Functions travel by reference (module and name), so only module-level functions can be called.
Heavy imports happen in the caller before the fork (`warm_up=`), so every helper starts warm
and an import never counts against an item's deadline. A function may split its work into
phases (`enter_phase`), each with a deadline of its own; an outcome that ended early says in
which phase, so a caller can tell, say, a reference that hangs from an answer that does.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from typing import Any, Literal

from rlvr_contract.schemas import Result, Status

# Address space a helper may add to what it inherits; an item needing more fails in the helper.
DEFAULT_MEMORY_MB = 1024
_PR_SET_PDEATHSIG = 1
_RETIRING = "retiring"  # the helper exits after its next message (it ran out of memory)
_helper_conn: Connection | None = None  # set in a helper process: where phases are reported


@dataclass(frozen=True)
class Outcome:
    """How one call ended. `value` is the function's return value when `how` is "ok"."""

    how: Literal["ok", "error", "timeout", "memory", "recursion", "died"]
    value: Any = None
    message: str = ""
    phase: str | None = None  # the phase a call that timed out or died was in


@dataclass(frozen=True)
class _Phase:
    name: str | None


class DeadlineHelper:
    """One helper process and the pipe to it. Not thread-safe: one per calling thread.

    A copy of this object inherited through `fork` never uses or kills the parent's helper.
    """

    def __init__(self, memory_mb: int = DEFAULT_MEMORY_MB) -> None:
        self._memory_mb = memory_mb
        self._pid: int | None = None
        self._conn: Connection | None = None
        self._owner_pid = os.getpid()
        self._inherited: frozenset[Callable[[], None]] = frozenset()

    @property
    def pid(self) -> int | None:
        """The helper's process id, None until it is started (for tests and diagnostics)."""
        return self._pid

    def call(self, function: Callable[..., Any], args: tuple[Any, ...], timeout_s: float, *,
             warm_up: Callable[[], None] | None = None) -> Outcome:
        """`function(*args)` in the helper, at most `timeout_s` once the helper runs.

        A helper that dies before the call entered a phase (killed from outside while idle is
        only noticed then) is replaced and the call tried once more. `warm_up` runs once per
        process, in the caller; a helper forked before it ran is replaced so that the next one
        inherits its work. Each phase the call enters restarts its `timeout_s`.
        """
        self.ensure_started(warm_up)
        outcome = self._call_once(function, args, timeout_s)
        if outcome.how == "died" and outcome.phase is None:
            outcome = self._call_once(function, args, timeout_s)
        return outcome

    def _call_once(self, function: Callable[..., Any], args: tuple[Any, ...],
                   timeout_s: float) -> Outcome:
        conn = self._send((function, args))
        deadline = time.monotonic() + timeout_s
        retiring = False
        phase: str | None = None
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not conn.poll(remaining):
                self.stop()
                return Outcome("timeout", message=f"took longer than {timeout_s:g} s",
                               phase=phase)
            try:
                message = conn.recv()
            except (EOFError, OSError):
                return Outcome("died", message=f"the checker died ({self._reap()})", phase=phase)
            if isinstance(message, _Phase):
                phase = message.name
                deadline = time.monotonic() + timeout_s
                continue
            if message == _RETIRING:
                retiring = True
                continue
            if retiring:
                self._reap()
            return message

    def ensure_started(self, warm_up: Callable[[], None] | None = None) -> None:
        """Fork the helper now if there is none (first use, or after a kill), after `warm_up`."""
        if warm_up is not None:
            _warm(warm_up)
            if warm_up not in self._inherited:
                self.stop()
        if self._conn is not None and self._owner_pid != os.getpid():
            self._reap()  # inherited through a fork: that helper serves the parent process
        if self._conn is None:
            self._start()

    def stop(self) -> None:
        """Kill the helper (if any, and ours) and reap it."""
        if self._pid is not None and self._owner_pid == os.getpid():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
        self._reap()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.stop()

    def _send(self, request: tuple[Callable[..., Any], tuple[Any, ...]]) -> Connection:
        self.ensure_started()
        try:
            self._conn.send(request)
        except OSError:  # the helper died while idle
            self._reap()
            self._start()
            self._conn.send(request)
        return self._conn

    def _start(self) -> None:
        parent_end, child_end = Pipe(duplex=True)
        parent_pid = os.getpid()
        inherited = frozenset(_warmed)
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
        self._inherited = inherited

    def _reap(self) -> str:
        """Collect the helper's exit status; return how it ended, in words."""
        pid, conn = self._pid, self._conn
        self._pid = self._conn = None
        if conn is not None:
            conn.close()
        if pid is None or self._owner_pid != os.getpid():
            return "no helper"
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            return "exit status unknown"
        if os.WIFSIGNALED(status):
            return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
        return f"exit code {os.WEXITSTATUS(status)}"


def _serve(conn: Connection, parent_pid: int, memory_mb: int) -> None:
    """The helper's loop: run each request until the pipe closes."""
    global _helper_conn
    _helper_conn = conn
    die_with_parent(parent_pid)
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1,
                   signal.SIGUSR2, signal.SIGQUIT, signal.SIGALRM):
        signal.signal(signum, signal.SIG_DFL)
    limit_address_space(memory_mb)
    while True:
        try:
            function, args = conn.recv()
        except EOFError:
            return
        try:
            outcome = Outcome("ok", function(*args))
        except MemoryError:
            conn.send(_RETIRING)  # a helper that ran out of memory is not trusted any more
            conn.send(Outcome("memory", message=f"needs more than {memory_mb} MiB"))
            return
        except RecursionError:  # what it was given nests deeper than the check can follow
            outcome = Outcome("recursion", message="nests deeper than the check can follow")
        except Exception as exc:
            outcome = Outcome("error", message=f"{type(exc).__name__}: {exc}"[:500])
        try:
            conn.send(outcome)
        except Exception as exc:  # a return value that does not pickle is the function's bug
            conn.send(Outcome("error", message=f"unpicklable result: {exc!r}"[:500]))


_warmed: set[Callable[[], None]] = set()


def enter_phase(name: str | None) -> None:
    """Tell the caller the running function entered a phase with a deadline of its own
    (`None`: back to the function's main work). Does nothing outside a helper."""
    if _helper_conn is not None:
        _helper_conn.send(_Phase(name))



def _warm(warm_up: Callable[[], None]) -> None:
    if warm_up not in _warmed:
        warm_up()
        _warmed.add(warm_up)


def die_with_parent(parent_pid: int) -> None:
    """Have the kernel SIGKILL this process when its parent dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(0)


def limit_address_space(memory_mb: int) -> None:
    """Cap this process's address space at what it has now plus `memory_mb`."""
    with open("/proc/self/statm") as statm:
        inherited = int(statm.read().split()[0]) * resource.getpagesize()
    limit = inherited + memory_mb * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def early_result(item_id: str | None, outcome: Outcome, doing: str,
                 detail: dict[str, Any]) -> Result:
    """The result of an item whose check did not return: past its deadline `timeout`, out of
    memory or recursion depth `wrong` (the response's doing: request data is bounded at the
    door), anything else `infra_error` (the verifier's)."""
    if outcome.how in ("timeout", "memory", "recursion"):
        status = Status.timeout if outcome.how == "timeout" else Status.wrong
        return Result(id=item_id, reward=0.0, status=status,
                      detail={**detail, "reason": f"{doing} {outcome.message}"})
    return Result.infra_error(item_id, f"{doing} failed: {outcome.message}")


_local = threading.local()


def deadline_helper() -> DeadlineHelper:
    """The calling thread's helper handle (created on first use)."""
    helper = getattr(_local, "helper", None)
    if helper is None:
        helper = _local.helper = DeadlineHelper()
    return helper
