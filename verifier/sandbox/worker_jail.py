"""Message framing between the worker and the supervisor inside the jail.

Standard library only: this file is also imported inside the jail by the supervisor. A message
is a 4-byte big-endian length, a header, then the raw bytes of each blob the header names
(`"blobs": [[name, length], ...]`). Payloads (code, stdin, stdout) travel as raw bytes, never
base64, and the receiver never unpickles anything. Inside the jail, blobs are moved between the
channel and files by the kernel (see jail/runner_worker.py), so they never enter the runner's
memory.

The header is a dict of plain data (strings, numbers, lists, dicts) as marshal format 4, which
every Python 3 reads. Both ends are the verifier's own processes (the worker; the jail's
supervisor, runners and session hosts): no submission ever writes on this channel. Marshal,
not JSON: a runner decodes and encodes a header with one C call each, where JSON's Python code
would write to (and so copy) some 50 more of the pages it shares with the run it just forked.
"""

from __future__ import annotations

import marshal
import os
import select
import struct
import time

MAX_HEADER_BYTES = 16 * 1024 * 1024
PEER = "peer:"  # an interactive run's second program: the prefix of its blobs and its files
MAX_BLOB_BYTES = 256 * 1024 * 1024
_LENGTH = struct.Struct(">I")
_IOV_MAX = 1024  # buffers one writev(2) takes


class ProtocolError(Exception):
    """The peer sent something malformed, closed the channel, or did not answer in time."""


def _framed_header(header: dict, layout: list[tuple[str, int]]) -> bytes:
    """The length prefix and the header naming the blobs, (name, size) in order."""
    raw = marshal.dumps({**header, "blobs": layout}, 4)
    return _LENGTH.pack(len(raw)) + raw


def write_message(fd: int, header: dict, blobs: dict[str, bytes] | None = None) -> None:
    """Write one message; blobs go out as they are (gathered by writev), never joined into a
    copy, so a large test input exists once in the writer's memory."""
    blobs = blobs or {}
    layout = [(name, len(data)) for name, data in blobs.items()]
    views = [memoryview(part) for part in (_framed_header(header, layout), *blobs.values())
             if part]
    while views:
        written = os.writev(fd, views[:_IOV_MAX])
        while views and written >= len(views[0]):
            written -= len(views.pop(0))
        if views:
            views[0] = views[0][written:]


def write_header(fd: int, header: dict, layout: list[tuple[str, int]]) -> None:
    """Write a header whose blobs the caller writes next."""
    _write_all(fd, _framed_header(header, layout))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise ProtocolError("timed out waiting for the peer")
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise ProtocolError("the peer closed the channel")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_header(fd: int, deadline: float | None = None) -> tuple[dict, list[tuple[str, int]]]:
    """Read a message's header; its blobs, (name, size) in order, are still to be read."""
    (length,) = _LENGTH.unpack(_read_exact(fd, _LENGTH.size, deadline))
    if length > MAX_HEADER_BYTES:
        raise ProtocolError(f"header of {length} bytes is over the limit")
    try:
        header = marshal.loads(_read_exact(fd, length, deadline))
        if type(header) is not dict:
            raise TypeError(f"a {type(header).__name__}, not a dict")
        layout = [(str(name), size) for name, size in header.pop("blobs")]
    except (ValueError, EOFError, KeyError, TypeError) as exc:
        raise ProtocolError(f"malformed header: {exc}") from exc
    for name, size in layout:
        if not isinstance(size, int) or not 0 <= size <= MAX_BLOB_BYTES:
            raise ProtocolError(f"blob {name!r} has an invalid size")
    return header, layout


def read_message(fd: int, timeout_s: float | None = None) -> tuple[dict, dict[str, bytes]]:
    """Read one message; raises ProtocolError on EOF, timeout or a malformed frame."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    header, layout = read_header(fd, deadline)
    return header, {name: _read_exact(fd, size, deadline) for name, size in layout}
