"""The contestant: the process that runs the solution in a judged Python run.

Forked by the judge before the judge reads its payload, it closes the channel to the worker and
the payload before anything else, so it never holds the tests, an expected value, the run's
nonce or a way to write a record. It receives the solution's code over the pipe
(judge_contestant.py), runs it as the module `solution`, then serves the judge's requests: the
names the tests use, calls, attribute reads and writes, iteration. It holds no secret, so it
needs no guard: the solution may do anything here (rebind builtins, patch modules, walk its
frames), and all it can change is what this process answers, which the judge takes as the
solution's answers. Only ctypes is refused, as one more fence around the judge (which is not
dumpable: no ptrace, no /proc/PID/mem).
The module's helpers (compiling and loading the solution, its traceback) serve the one-process
`calls` runs as well (pyharness.py). Standard library only.
"""

from __future__ import annotations
import __future__

import binascii
import builtins
import linecache
import marshal
import os
import sys
import traceback
import types

import interpreter
import judge_contestant
import values

SOLUTION_PATH = "/tmp/solution.py"
SOLUTION_FLAGS = __future__.annotations.compiler_flag
TRACE_CHARS = 8000
_HARNESS_FILES = frozenset(os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
                           for name in ("contestant.py", "judge_contestant.py", "values.py",
                                        "pyharness.py"))
_MUTABLE = (list, dict, set, bytearray)


def main(read_fd: int, write_fd: int, max_message: int) -> None:
    """Serve the judge until it closes the pipe. Never returns."""
    sys.addaudithook(refuse_ctypes)
    peer = judge_contestant.Peer(read_fd, write_fd, Contestant(), max_message)
    while True:
        try:
            message = peer.receive()
            peer.send(peer.serve(message))
        except (judge_contestant.Broken, OSError):
            os._exit(0)  # the judge is done (or gone): nothing left to answer
        except SystemExit as exc:  # the solution exits: the process ends as python's would
            interpreter.flush_streams()
            os._exit(interpreter.system_exit_status(exc))
        except BaseException as exc:  # KeyboardInterrupt and the like, never answered
            os.write(2, traceback_text(exc).encode(errors="replace"))
            os._exit(1)


def refuse_ctypes(event: str, args: tuple) -> None:
    """Every use of ctypes (loading a library, calling or reading through it) is audited."""
    if event.startswith("ctypes."):
        raise ImportError("ctypes is not available in the sandbox")


class Remote(judge_contestant.Proxy):
    """An object of the tests, seen from the solution: everything goes to the judge."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        return self._ask("call", self._peer.encode(args), self._peer.encode(kwargs))

    def __len__(self) -> int:
        return self._ask("len")

    def __bool__(self) -> bool:
        return self._ask("bool")

    def __getitem__(self, key):
        return self._ask("getitem", self._peer.encode(key))

    def __repr__(self) -> str:
        return f"<the tests' {self._type}>"


class Contestant:
    """The contestant's policy on the pipe: it hands out anything, and serves the solution."""

    reported = (Exception,)

    # handles
    def handed_back(self, obj: object) -> int | None:
        return object.__getattribute__(obj, "_handle") if type(obj) is Remote else None

    def export_kind(self, obj: object) -> str:
        return "any"

    def proxy(self, peer: judge_contestant.Peer, handle: int, type_name: str) -> Remote:
        return Remote(peer, handle, type_name)

    # errors
    def error_reply(self, exc: BaseException) -> list:
        base = next((cls.__name__ for cls in type(exc).__mro__
                     if values.EXCEPTIONS.get(cls.__name__) is cls), "Exception")
        try:
            message = str(exc)[:1000]
        except Exception:
            message = "<unprintable>"
        return ["!", type(exc).__name__, base, message, traceback_text(exc)]

    def remote_exception(self, fields: list) -> BaseException:
        cls = values.EXCEPTIONS.get(fields[1]) if len(fields) > 1 else None
        if cls is None or not issubclass(cls, Exception):
            cls = RuntimeError
        return cls(f"the tests raised {fields[0]}" if fields else "the tests raised")

    # requests
    def serve(self, peer: judge_contestant.Peer, op: str, args: list) -> list:
        if op == "load":
            return self._load(peer, *args)
        handle, *rest = args
        target = peer.exported(handle, ("any",))
        if op == "call":
            return _call(peer, target, *rest)
        if op == "getattr":
            return ["=", peer.encode(getattr(target, rest[0]))]
        if op == "setattr":
            setattr(target, rest[0], peer.decode(rest[1]))
            return ["=", None]
        if op == "iter":
            return ["=", peer.encode(iter(target))]
        if op == "next":
            return ["=", peer.encode(next(target))]
        raise TypeError(f"unknown operation {op!r}")

    def _load(self, peer: judge_contestant.Peer, code: str, names: list | None,
              bytecode: str | None = None) -> list:
        """Run the solution as the module `solution`; answer the names the tests may use."""
        try:
            compiled = compile_solution(code, bytecode)
        except BaseException as exc:  # the solution's compile error, reported as such
            return ["C", *compile_error(exc)]
        space = solution_module().__dict__
        exec(compiled, space)
        wanted = [n for n in space if not n.startswith("__")] if names is None else names
        return ["L", {name: _describe(peer, space[name]) for name in wanted
                      if type(name) is str and name in space}]


def compile_solution(code: str, bytecode: str | None = None) -> types.CodeType:
    """The solution's code object: `bytecode`, when the worker compiled it for this interpreter
    (verifier/kinds/code/bytecode.py: the same source, flags and file name, as marshal data in
    base64), else compiled here. Its annotations are not evaluated (SOLUTION_FLAGS: what
    solutions have always been compiled with here, so `List[int]` without an import passes,
    as on LeetCode)."""
    # The solution is not a file in the jail (a run that writes nothing leaves the work
    # directory as new); tracebacks still quote its lines, from here.
    linecache.cache[SOLUTION_PATH] = (len(code), None, code.splitlines(True), SOLUTION_PATH)
    if bytecode:
        compiled = marshal.loads(binascii.a2b_base64(bytecode))
        if type(compiled) is types.CodeType:
            return compiled
    return compile(code, SOLUTION_PATH, "exec", flags=SOLUTION_FLAGS, dont_inherit=True)


def compile_error(exc: BaseException) -> tuple[str, str]:
    """The solution's compile error: its one-line summary, and the text python prints."""
    text = "".join(traceback.format_exception_only(type(exc), exc))
    return f"{type(exc).__name__}: {exc}"[:1000], text[-TRACE_CHARS:]


def solution_module() -> types.ModuleType:
    """A new module `solution` for the solution to run in, as importing it would give."""
    module = types.ModuleType("solution")
    module.__file__, module.__builtins__ = SOLUTION_PATH, builtins
    sys.modules["solution"] = module
    sys.modules["__main__"] = types.ModuleType("__main__")  # not the supervisor's module
    return module


def _describe(peer: judge_contestant.Peer, value: object) -> list:
    """How the judge should bind a name of the solution's: a module or a standard-library
    object by its name (the judge then uses its own, untouched copy), else the value itself."""
    if isinstance(value, types.ModuleType):
        return ["m", str(value.__name__), peer.encode(value)]
    module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if type(module) is str and type(name) is str and module in sys.stdlib_module_names:
        found = sys.modules.get(module)
        for part in name.split("."):
            found = getattr(found, part, None)
        if found is value:
            return ["a", module, name, peer.encode(value)]
    return ["v", peer.encode(value)]


def _call(peer: judge_contestant.Peer, target, args_wire: list, kwargs_wire: list) -> list:
    """Call for the judge; containers it passed and the call changed go back (in-place work)."""
    args, kwargs = peer.decode(args_wire), peer.decode(kwargs_wire)
    result = peer.encode(target(*args, **kwargs))
    keys = [*range(len(args)), *kwargs]
    sent = [*args_wire[1:], *kwargs_wire[2::2]]  # a tuple's items; a dict's values
    changed = []
    for key, before, arg in zip(keys, sent, [*args, *kwargs.values()], strict=True):
        if type(arg) in _MUTABLE:
            after = peer.encode(arg)
            if after != before:
                changed.append([key, after])
    return ["=", result, changed]


def traceback_text(exc: BaseException) -> str:
    """The exception as python would print it, from the solution's first frame on."""
    try:
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename in _HARNESS_FILES:
            tb = tb.tb_next
        return "".join(traceback.format_exception(type(exc), exc, tb))[-TRACE_CHARS:]
    except Exception:
        return f"{type(exc).__name__} (its traceback could not be formatted)\n"
