"""The channel to the worker, as the runners use it: requests in, replies out, through the kernel.

Standard library only (see `__init__.py`). A runner serves many runs, and every run is a fork of
it: whatever a run's data left in the runner's memory, a later run could read in its own copy.
So a request's blobs and a program's output never enter the runner's memory: the kernel moves
them, with splice(2) from a pipe into a memfd or work-directory file, and with sendfile(2) from
a memfd into the worker's channel. Only the headers (`worker_jail.py` framing) are read by Python.
"""

from __future__ import annotations

import json
import os

import worker_jail
from namespaces import WORKDIR
from workfiles import open_beneath

HOST_LOCK = "/tmp/.host-channel.lock"  # held by the runner reading the worker's channel
END = "end"  # a reply's last blob (see send_reply); the worker ignores it


class Channel:
    """The descriptors every runner inherits from the supervisor: the worker's channel (in and
    out), and the pipe of notes to the supervisor."""

    def __init__(self, host_in: int, host_out: int) -> None:
        self.host_in, self.host_out = host_in, host_out
        self.notes_r, self.notes_w = os.pipe()
        with open(HOST_LOCK, "w"):
            pass

    def note(self, **fields: object) -> None:
        """A line to the supervisor (atomic: far below PIPE_BUF)."""
        os.write(self.notes_w, (json.dumps(fields) + "\n").encode())


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


def receive(channel_fd: int, layout: list[tuple[str, int]],
            directories: dict[str, str] | None = None,
            replace: bool = False) -> tuple[dict[str, int], str]:
    """Take a request's blobs off the channel: each `PREFIX:PATH` whose prefix `directories`
    names (default: `file:` for the work directory) into that directory, at PATH below it
    (parents made), any other into a memfd of its name (returned). A file that exists is an
    error unless `replace` (a session's directory keeps its files). A blob that cannot be
    placed is drained, so the channel stays in step, and named in the returned error."""
    directories = directories or {"file:": WORKDIR}
    memfds: dict[str, int] = {}
    error = ""
    for name, size in layout:
        moved, failure = 0, None
        place = next(((prefix, path) for prefix, path in directories.items()
                      if name.startswith(prefix)), None)
        try:
            if place is not None:
                sink = open_beneath(place[1], name[len(place[0]):], os.O_WRONLY | os.O_CREAT
                                    | (os.O_TRUNC if replace else os.O_EXCL),
                                    make_parents=True)
                try:
                    moved, failure = _move(channel_fd, sink, size)
                finally:
                    os.close(sink)
            else:
                memfds[name] = os.memfd_create(name, 0)
                moved, failure = _move(channel_fd, memfds[name], size)
        except (OSError, ValueError) as exc:  # ValueError: a name no file can have
            failure = exc
        if failure is not None:
            error = error or f"could not place {name}: {failure}"
            with open(os.devnull, "wb") as null:
                moved += _move(channel_fd, null.fileno(), size - moved)[0]
        if moved < size:
            raise worker_jail.ProtocolError("the peer closed the channel")
    for fd in memfds.values():
        os.lseek(fd, 0, os.SEEK_SET)
    return memfds, error


def send_reply(channel_fd: int, reply: dict, parts: list[tuple[str, int, int, int]]) -> None:
    """Write a reply whose blobs, (name, memfd, offset, size), come straight from memfds, and
    close the memfds.

    They are closed before the reply's last blob (END, one byte) is written: the worker takes
    the next run's memory baseline once it has the whole reply, and the memory cgroup must no
    longer hold this run's output then (see verifier/sandbox/cgroup.py)."""
    layout = [(name, size) for name, _, _, size in parts]
    worker_jail.write_header(channel_fd, reply, [*layout, (END, 1)])
    for _, fd, offset, size in parts:
        while size:
            sent = os.sendfile(channel_fd, fd, offset, size)
            offset, size = offset + sent, size - sent
    for fd in {fd for _, fd, _, _ in parts}:
        os.close(fd)
    os.write(channel_fd, b".")
