"""The session's interpreter: runs cells one after another in one namespace, as a notebook
kernel does, and says how each ended.

Standard library only (see `__init__.py`); runs in the process session.py forks for a session,
privileges dropped. A cell arrives on CHANNEL_FD (a Unix socket) as one line of JSON with two
memfds, its code and its stdin; its output goes to fds 1 and 2 (pipes the host drains); its
answer goes back as one line of JSON: `ok` or `error`, the repr of a final expression (as a
notebook shows it), the exception's name, value and traceback. Variables and imports live on
in the namespace; so do the cell's threads and processes. A process forked by a cell that falls
out of the cell's code ends there, quietly: only the interpreter answers.
"""

from __future__ import annotations

import ast
import builtins
import io
import json
import linecache
import os
import socket
import sys
import traceback
import types

import interpreter

CHANNEL_FD = 3
TRACE_LINES, TRACE_LINE_CHARS = 200, 4096  # of an exception's description in the answer
_KERNEL_FILES = frozenset({os.path.abspath(__file__)})


def serve() -> None:
    """Answer cells until the host closes the channel. Never returns."""
    channel = socket.socket(fileno=CHANNEL_FD)
    interpreter.reset_interpreter()
    sys.argv = [""]
    sys.path.insert(0, "")  # the working directory, as an interactive interpreter has it
    main = types.ModuleType("__main__")
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    own_pid = os.getpid()
    pending = b""
    while True:
        message, fds, pending = _receive(channel, pending)
        code_fd, stdin_fd = fds
        code = _read_all(code_fd).decode("utf-8", errors="replace")
        os.close(code_fd)
        _use_stdin(stdin_fd)
        answer = run_cell(code, main.__dict__, message["cell"], int(message["result_bytes"]))
        if os.getpid() != own_pid:  # a fork the cell made, back from the cell's code
            os._exit(interpreter.flush_streams())
        interpreter.flush_streams()
        channel.sendall(json.dumps({"cell": message["cell"], **answer}, ensure_ascii=False)
                        .encode("utf-8", "replace") + b"\n")  # a lone surrogate: "?"


def _receive(channel: socket.socket, pending: bytes) -> tuple[dict, list[int], bytes]:
    """The next cell's message and its two memfds; exits when the host is gone."""
    fds: list[int] = []
    while b"\n" not in pending:
        data, received, _, _ = socket.recv_fds(channel, 1 << 16, 2)
        fds += received
        if not data:
            os._exit(0)
        pending += data
    line, pending = pending.split(b"\n", 1)
    if len(fds) != 2:
        os._exit(0)
    return json.loads(line), fds, pending


def _read_all(fd: int) -> bytes:
    return os.pread(fd, os.fstat(fd).st_size, 0)


def _use_stdin(fd: int) -> None:
    """The cell's stdin on fd 0, and sys.stdin on it."""
    os.dup2(fd, 0)
    os.close(fd)
    os.lseek(0, 0, os.SEEK_SET)
    encoding = getattr(sys.__stdin__, "encoding", None) or "utf-8"
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "rb",
                                                                             closefd=False)),
                                                 encoding=encoding, errors="strict")


def run_cell(code: str, namespace: dict, number: int, result_bytes: int) -> dict:
    """Run one cell; its answer (see the module doc). A final expression's value is shown
    unless it is None or the cell ends with a semicolon, and becomes `_`; its repr is cut at
    `result_bytes` of UTF-8 (what no encoding carries, a `__repr__`'s lone surrogate, is
    replaced), so the answer's JSON stays within twice that."""
    name = f"<cell-{number}>"
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    try:
        tree = ast.parse(code, name, "exec")
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, name, "exec", dont_inherit=True), namespace)
        if last is None:
            return {"status": "ok"}
        value = eval(compile(ast.Expression(last.value), name, "eval", dont_inherit=True),
                     namespace)
        if value is None or code.rstrip().endswith(";"):
            return {"status": "ok"}
        namespace["_"] = value
        shown = str.encode(repr(value), "utf-8", "replace")[:result_bytes]
        return {"status": "ok", "result": shown.decode("utf-8", "ignore")}
    except BaseException as exc:  # SystemExit and KeyboardInterrupt too, as a notebook says
        return {"status": "error", "error": _report(exc)}


def _report(exc: BaseException) -> dict:
    """Print the exception as Python does, without the kernel's frames; its description, each
    part bounded (the answer carries it, and the output cap holds for stderr only)."""
    try:
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename in _KERNEL_FILES:
            tb = tb.tb_next
        lines = traceback.format_exception(type(exc), exc, tb)
        try:
            value = str(exc)
        except BaseException:
            value = "<unprintable>"
        described = {"ename": type(exc).__name__, "evalue": value, "traceback": lines}
    except BaseException:  # an exception whose report itself fails (a hostile __str__)
        lines = [f"{type(exc).__name__}: <unprintable>\n"]
        described = {"ename": type(exc).__name__, "evalue": "<unprintable>", "traceback": lines}
    try:
        sys.stderr.write("".join(lines))
    except BaseException:
        os.write(2, "".join(lines).encode(errors="replace"))
    return {"ename": described["ename"][:TRACE_LINE_CHARS],
            "evalue": described["evalue"][:TRACE_LINE_CHARS],
            "traceback": [line[:TRACE_LINE_CHARS] for line in lines[-TRACE_LINES:]]}
