"""The pipe between the two processes of a judged Python run.

The judge holds the tests and the channel to the worker; the contestant runs the solution. They
talk in JSON lines over a pair of pipes: a request `["?", op, *args]` is answered by
`["=", value, writebacks]`, `["!", type, builtin base, message, traceback]` (an exception) or
`["$"]` (StopIteration), and while one side waits for its answer it serves the other's requests,
so calls may nest both ways (the solution calling a key function the tests passed it). Values
cross in the form of values.py; an object that is not plain data crosses as a handle, which the
other side sees as a proxy and can only call, query and iterate through this pipe. What each
side hands out, serves and builds proxies as is its policy (judge.py, contestant.py).
Standard library only.
"""

from __future__ import annotations

import json
import os

import values

READ_BYTES = 1 << 16


class Broken(Exception):  # noqa: N818 (a state, not an error kind)
    """The other side broke the protocol, sent too much, or went away."""


class Peer:
    """One end of the pipe: framing, the handles this side gave out, the proxies it holds."""

    def __init__(self, read_fd: int, write_fd: int, policy, max_message: int) -> None:
        self.read_fd, self.write_fd = read_fd, write_fd
        self.policy = policy
        self.max_message = max_message
        self._buffer = bytearray()
        self._scanned = 0
        self.exports: dict[int, tuple[object, str]] = {}  # handle -> (object, kind)
        self._export_ids: dict[int, int] = {}  # id(object) -> handle
        self._proxies: dict[int, object] = {}  # the other side's handle -> our proxy
        self._dumps = json.JSONEncoder(separators=(",", ":")).encode
        self._loads = json.JSONDecoder().decode

    # ----------------------------------------------------------------------- framing

    def send(self, message: list) -> None:
        data = memoryview((self._dumps(message) + "\n").encode())
        while data:
            data = data[os.write(self.write_fd, data):]

    def receive(self) -> list:
        while (end := self._buffer.find(b"\n", self._scanned)) < 0:
            self._scanned = len(self._buffer)
            if self._scanned > self.max_message:
                raise Broken(f"a message over {self.max_message} bytes")
            try:
                chunk = os.read(self.read_fd, max(READ_BYTES, self._scanned))
            except OSError as exc:
                raise Broken(f"the pipe failed: {exc}") from None
            if not chunk:
                raise Broken("the other process went away")
            self._buffer += chunk
        line = bytes(self._buffer[:end])
        del self._buffer[:end + 1]
        self._scanned = 0
        try:
            message = self._loads(line.decode())
        except (ValueError, RecursionError):
            raise Broken("a malformed message") from None
        if type(message) is not list or not message or type(message[0]) is not str:
            raise Broken("a message of the wrong shape")
        return message

    # ----------------------------------------------------------------------- calls

    def request(self, op: str, *args) -> list:
        """Send a request; serve the other side's requests until its answer comes back."""
        try:
            self.send(["?", op, *args])
        except OSError as exc:
            raise Broken(f"the pipe failed: {exc}") from None
        while True:
            message = self.receive()
            if message[0] != "?":
                return message
            reply = self.serve(message)
            try:
                self.send(reply)
            except OSError as exc:
                raise Broken(f"the pipe failed: {exc}") from None

    def serve(self, message: list) -> list:
        if len(message) < 2 or type(message[1]) is not str:
            raise Broken("a request without an operation")
        try:
            return self.policy.serve(self, message[1], message[2:])
        except StopIteration:
            return ["$"]
        except Broken:
            raise
        except self.policy.reported as exc:
            return self.policy.error_reply(exc)

    def value(self, reply: list):
        """The value of an answer (raising what the other side raised)."""
        if reply[0] == "=" and len(reply) >= 2:
            return self.decode(reply[1])
        if reply[0] == "$":
            raise StopIteration
        if reply[0] == "!":
            raise self.policy.remote_exception(reply[1:])
        raise Broken("an answer of the wrong shape")

    # ----------------------------------------------------------------------- handles

    def encode(self, value: object):
        return values.encode(value, self._export)

    def decode(self, wire):
        try:
            return values.decode(wire, self._resolve)
        except values.BadWire as exc:
            raise Broken(f"a malformed value: {exc}") from None

    def _export(self, obj: object) -> list:
        handed_back = self.policy.handed_back(obj)
        if handed_back is not None:
            return ["r", handed_back]
        handle = self._export_ids.get(id(obj))
        if handle is None:
            kind = self.policy.export_kind(obj)  # raises NotPlain for what may not leave
            handle = len(self.exports) + 1
            self.exports[handle] = (obj, kind)
            self._export_ids[id(obj)] = handle
        return ["h", handle, type(obj).__name__]

    def _resolve(self, tag: str, handle: int, type_name: str) -> object:
        if tag == "r":
            if handle not in self.exports:
                raise values.BadWire("a handle this side never gave out")
            return self.exports[handle][0]
        proxy = self._proxies.get(handle)
        if proxy is None:
            proxy = self._proxies[handle] = self.policy.proxy(self, handle, type_name)
        return proxy

    def exported(self, handle, kinds: tuple[str, ...]) -> object:
        """The object behind one of our handles, if its kind allows the operation."""
        entry = self.exports.get(handle) if type(handle) is int else None
        if entry is None or entry[1] not in kinds:
            raise TypeError("that operation is not available on this object")
        return entry[0]


class Proxy:
    """An object of the other side's: reading and setting its attributes and iterating it go
    through the pipe. Each side's policy subclasses it with what else its proxies do."""

    __slots__ = ("_peer", "_handle", "_type")

    def __init__(self, peer: Peer, handle: int, type_name: str) -> None:
        object.__setattr__(self, "_peer", peer)
        object.__setattr__(self, "_handle", handle)
        object.__setattr__(self, "_type", type_name)

    def _ask(self, op: str, *args):
        return self._peer.value(self._peer.request(op, self._handle, *args))

    def __getattr__(self, name: str):
        return self._ask("getattr", name)

    def __setattr__(self, name: str, value) -> None:
        self._ask("setattr", name, self._peer.encode(value))

    def __iter__(self):
        return self._ask("iter")

    def __next__(self):
        return self._ask("next")
