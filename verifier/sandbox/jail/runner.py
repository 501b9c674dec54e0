"""A runner: PID 1 of namespaces of its own, serving the worker's requests one run after another.

Standard library only (see `__init__.py`). It prepares its namespaces before its first request
arrives, then takes requests from the channel itself, runs each, answers the worker directly and
tells the supervisor what it did (notes); it exits after the number of runs the request's
`runner_runs` allows (1: fresh namespaces for every run).

Between two runs every process of the namespace is killed and reaped, and /tmp, /dev/shm and the
IPC namespace are new (its network namespace has no interface up, and runs can make Unix
sockets only: nothing of theirs stays there, see namespaces.py); the runner's memory, which
each run's fork copies, never holds a request's blobs or a program's output (see runner_worker.py).
"""

from __future__ import annotations

import fcntl
import mmap
import os
import signal
import stat
import struct
import time

import worker_jail
from artefacts import (
    ARTEFACTS,
    UnusableArtefacts,
    cached,
    place_artefact,
    store_artefacts,
)
from linux import (
    CLONE_NEWIPC,
    CLONE_NEWNET,
    CLONE_NEWNS,
    MS_NODEV,
    MS_NOSUID,
    MS_PRIVATE,
    MS_REC,
    PR_SET_DUMPABLE,
    check,
    libc,
    mount,
)
from namespaces import (
    ISOLATED,
    SHM_FLAGS,
    SHM_OPTIONS,
    WORKDIR,
    Scratch,
    isolate_program,
    kill_namespace,
    mount_proc,
    renew_ipc,
    renew_scratch,
)
from privileges import lock_down_future_privileges
from program import (
    SETUP_FD,
    Launch,
    become_program,
    close_all_but,
    fork_program,
    prepare_launch,
)
from runner_worker import HOST_LOCK, Channel, receive, send_reply
from watch import Program, sleep_on, watch
from worker_jail import PEER
from workfiles import open_beneath

RUNNER_GRACE_S = 10.0  # beyond the run's wall limit, before the supervisor gives up on a runner
# An interactive run's solution works here, which becomes its /tmp in a mount namespace of its
# own; the interactor keeps the work directory itself (see namespaces.isolate_program).
SOLUTION_DIR = f"{WORKDIR}/.solution"


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
    enter_own_namespaces({channel.host_in, channel.host_out, channel.notes_w})
    cache_fd = os.open(ARTEFACTS, os.O_RDONLY | os.O_DIRECTORY)  # before /tmp hides it
    lock_fd = os.open(HOST_LOCK, os.O_RDWR)  # its own open file: its own lock
    oom_fd, workdir, shm = take_scratch(proc)
    fcntl.flock(lock_fd, fcntl.LOCK_EX)  # one runner at a time reads the worker's channel
    served = 0
    while True:
        try:
            spec, layout = worker_jail.read_header(channel.host_in)
            problem = _prepare_workdir(workdir, spec)  # before the request's files arrive
            inputs, receive_error = receive(channel.host_in, layout, _directories(spec))
        except worker_jail.ProtocolError:
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
                if spec.get("op") == "run" and _wants_proc(spec) != proc:
                    proc = not proc
                    mount_proc(proc, replace=True)  # the guess (or the last run's) was wrong
                reply, parts = _serve(spec, inputs, cache_fd, oom_fd, channel)
        except BaseException as exc:
            reply = {"error": f"sandbox runner failed: {exc!r}"}
            kill_namespace()  # a run that failed half-way may have left processes
        for fd in set(inputs.values()) - {fd for _, fd, _, _ in parts}:
            os.close(fd)  # a file-I/O run's stdin is a file of the work directory
        renew_scratch([workdir, shm])  # the reply's parts are memfds, none of them in there
        board.post(0.0)  # before the reply: the supervisor must never answer a second time
        send_reply(channel.host_out, reply, parts)  # closes the parts' memfds
        if last:
            os._exit(0)
        renew_ipc()


def enter_own_namespaces(keep: set[int]) -> None:
    """A runner's first steps (a session's host's too): only the descriptors in `keep` stay
    open, and it enters mount, IPC and network namespaces of its own, its mounts private.
    PID 1 of its namespace, it ignores SIGINT from inside once the handler is the default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    close_all_but(keep)
    check(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE)


def take_scratch(proc: bool) -> tuple[int, Scratch, Scratch]:
    """Once nothing more is needed from the jail's /tmp: its own /tmp (the work directory),
    /dev/shm and /proc (the run's procfs, or an empty one), then no privilege can ever come
    back (privileges.py). Returns its oom_score_adj file (see program.fork_program) and the
    two scratch areas."""
    # Before /proc is replaced. Files of a non-dumpable process belong to nobody: dumpable just
    # for this open, while nothing else runs in the namespace.
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    oom_fd = os.open("/proc/self/oom_score_adj", os.O_RDWR)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    workdir = Scratch(WORKDIR, MS_NOSUID | MS_NODEV, "nr_inodes=4096,mode=0700")
    shm = Scratch("/dev/shm", SHM_FLAGS, SHM_OPTIONS)
    mount_proc(proc)
    lock_down_future_privileges()
    return oom_fd, workdir, shm


def _runs_allowed(spec: dict) -> int:
    runs = spec.get("runner_runs", 1)
    return runs if isinstance(runs, int) and runs > 0 else 1


def _prepare_workdir(workdir: Scratch, spec: dict) -> str:
    """Give the work directory the run's size limit (and an interactive run's solution its
    directory); an error message if the spec is bad."""
    try:
        if spec.get("op") == "run":
            workdir.limit(int(spec["limits"]["tmpfs_bytes"]))
            if spec.get("peer"):
                os.mkdir(SOLUTION_DIR, 0o700)
        return ""
    except (OSError, KeyError, TypeError, ValueError) as exc:
        return f"bad run request: {exc!r}"


def _directories(spec: dict) -> dict[str, str]:
    """Where a request's file blobs go: the program's work directory; in an interactive run,
    the solution's and (prefixed) the interactor's."""
    if spec.get("peer"):
        return {"file:": SOLUTION_DIR, f"{PEER}file:": WORKDIR}
    return {"file:": WORKDIR}


def _wants_proc(spec: dict) -> bool:
    """The runner's own /proc: the run's program's choice; an interactive run's runner needs
    one (to see what its programs wait for at the wall limit), which only its interactor sees
    (the solution mounts its own)."""
    return bool(spec.get("peer") or spec.get("proc"))


def _serve(spec: dict, inputs: dict[str, int], cache_fd: int, oom_fd: int,
           channel: Channel) -> tuple[dict, list[tuple[str, int, int, int]]]:
    """Answer one request: the artefact-cache questions here, a run in this namespace."""
    if spec.get("op") == "ping":
        return {"pong": True}, []
    if spec.get("op") != "run":
        return {"error": f"unknown op {spec.get('op')!r}"}, []
    store, peer = spec.get("store"), spec.get("peer")
    if store and cached(cache_fd, store["key"]):
        channel.note(used=store["key"])
        return {"cached": True}, []
    placed = [(spec, SOLUTION_DIR if peer else WORKDIR)] + ([(peer, WORKDIR)] if peer else [])
    for program, directory in placed:
        if program.get("artefact"):
            if not cached(cache_fd, program["artefact"]):
                return {"missing_artefact": True}, []
            channel.note(used=program["artefact"])
            place_artefact(program, cache_fd, directory)
    if spec.get("stdin_file"):  # file I/O: the input file is stdin as well
        if "stdin" in inputs:
            os.close(inputs["stdin"])
        inputs["stdin"] = os.open(os.path.join(placed[0][1], spec["stdin_file"]),
                                  os.O_RDONLY | os.O_NOFOLLOW)
    elif "stdin" not in inputs:
        inputs["stdin"] = os.memfd_create("stdin", 0)
    reply, parts = _run_here(spec, inputs, cache_fd, oom_fd)
    if store and "stored_bytes" in reply:
        channel.note(stored=store["key"], size=reply["stored_bytes"])
    return reply, parts


def _run_here(spec: dict, inputs: dict[str, int], cache_fd: int,
              oom_fd: int) -> tuple[dict, list[tuple[str, int, int, int]]]:
    """Run the request's program (and an interactive run's interactor beside it), watch them,
    collect the files the request asks back, store a compile run's artefacts."""
    peer = spec.get("peer")
    launches = [prepare_launch(spec, inputs)]  # an isolated solution's /tmp is its directory
    talk: list[int] = []
    if peer:  # each program's stdout is the other's stdin
        to_peer, to_solution = os.pipe(), os.pipe()
        talk = [*to_peer, *to_solution]
        launches[0].stdin_fd, launches[0].stdout_fd = to_solution[0], to_peer[1]
        launches.append(prepare_launch(peer, {"stdin": to_peer[0]}))
        launches[1].stdout_fd, launches[1].ignore_sigpipe = to_solution[1], True
    started = time.monotonic()
    programs = []
    for index, launch in enumerate(launches):
        isolated = bool(peer) and index == 0
        pid = fork_program(oom_fd, ISOLATED if isolated else 0)
        if pid == 0:
            _become(launch, bool(spec.get("proc")) if isolated else None)
        pidfd = os.pidfd_open(pid)
        if not peer:  # an interactive run's two programs are watched together from the start
            sleep_on(pidfd, spec["limits"]["wall_s"])
        launch.close_program_ends()
        programs.append(Program(pid, pidfd, launch.pipes, prefix=PEER if index else ""))
    for fd in talk:
        os.close(fd)
    reports, parts = watch(spec["limits"], programs, started)
    output_cap = spec["limits"]["output_bytes"]
    requests = [(spec, SOLUTION_DIR), (peer, WORKDIR)] if peer else [(spec, WORKDIR)]
    for program, report, (request, directory) in zip(programs, reports, requests, strict=True):
        os.close(program.pidfd)
        report["setup_error"] = os.read(program.pipes.setup_r, 4096).decode(errors="replace")
        for fd in (*program.pipes.read_ends(), program.pipes.setup_r):  # no fd leaks
            os.close(fd)
        report["files"], collected = collect_files(request.get("collect") or [], directory,
                                              output_cap, program.prefix)
        parts += collected
    report = reports[0]
    if peer:
        report["peer"] = reports[1]
    if spec.get("store") and report["exit_code"] == 0 and not (
            report["wall_timeout"] or report["output_exceeded"]):
        try:
            report["stored_bytes"] = store_artefacts(spec, cache_fd)
        except UnusableArtefacts as exc:
            report["unusable_artefacts"] = str(exc)
        except OSError as exc:
            report["store_error"] = str(exc)
    return report, parts


def _become(launch: Launch, isolated_proc: bool | None) -> None:
    """In the fork: become the program (never returns); an interactive run's solution first
    gets its own /tmp, /proc and /dev/shm (`isolated_proc`: whether its /proc is a procfs)."""
    try:
        if isolated_proc is not None:
            isolate_program(SOLUTION_DIR, isolated_proc)
        become_program(launch)
    except BaseException as exc:
        message = f"sandbox setup failed: {exc!r}".encode()
        for fd in (SETUP_FD, launch.pipes.setup_w):  # the first if become_program set it up
            try:
                os.write(fd, message)
                break
            except OSError:
                continue
    os._exit(127)


def collect_files(names: list[str], directory: str, cap: int, prefix: str
                  ) -> tuple[dict[str, int], list[tuple[str, int, int, int]]]:
    """The files a run asks back (file I/O's output, a checker's result, a tool's fetch_files):
    each regular file below `directory` named, as reply parts `file:PATH`, `cap` bytes for all
    of them together (a file past what is left is cut or left out: the worker compares with
    its full size, also returned)."""
    sizes: dict[str, int] = {}
    parts = []
    room = cap
    for name in dict.fromkeys(names):
        try:
            fd = open_beneath(directory, name, os.O_RDONLY | os.O_NONBLOCK)
        except (OSError, ValueError):  # not there, not a file, a name no file can have
            continue
        try:
            size = os.fstat(fd)
            if stat.S_ISREG(size.st_mode):
                sizes[name] = size.st_size
                part = _copy(fd, min(size.st_size, room))
                parts.append((f"{prefix}file:{name}", *part))
                room -= part[2]
        finally:
            os.close(fd)
    return sizes, parts


def _copy(fd: int, size: int) -> tuple[int, int, int]:
    """The first `size` bytes of a work-directory file in a memfd of their own, so the work
    directory can go before the reply is sent (see namespaces.renew_scratch): (memfd, 0, size
    copied)."""
    copy = os.memfd_create("collected", 0)
    offset = 0
    while offset < size:
        moved = os.sendfile(copy, fd, offset, size - offset)
        if not moved:
            break
        offset += moved
    return copy, 0, offset
