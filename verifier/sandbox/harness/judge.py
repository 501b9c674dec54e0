"""The judge: the process of a judged Python run (`assert` tests) that holds the tests.

A run is two processes. The judge is the one the runner started; before it reads its payload it
forks the contestant (contestant.py), which runs the solution and answers over a pipe
(judge_contestant.py), and makes itself non-dumpable, so nothing of the solution can trace it,
read its memory or open its descriptors. The judge alone holds the tests, the run's nonce and the
channel to the worker (fd 3), and it writes the run's records there only when the work is done.

The tests run here, on pristine builtins and modules (this process never ran solution code),
with the solution's names bound to what the contestant reports: its functions, classes and
objects as proxies (`Remote`), which the tests can call, read attributes of and iterate, and
its plain values rebuilt as this process's own objects of exact builtin types. A proxy refuses
everything else (comparing, hashing, truth, arithmetic, `len`): the tests compare only plain
data, so no method the solution defined ever runs while they decide. Builtins are never taken
from the solution, nor a standard-library module the tests use as a module (`math.isclose`),
whatever the solution bound to that name.

The worker has taken out of the tests every assert it can judge itself (verifier/kinds/code/
asserts.py): for those, the judge records only the value the solution's code computed, and the
worker compares it with the expected value, which never enters the jail. Tests that are only
such asserts on calls with literal arguments never come here: one process makes the calls
(pyharness.py, `calls` mode). Standard library only.
"""

from __future__ import annotations

import _json
import builtins
import importlib
import json
import os
import signal
import sys
import types

import judge_contestant
import values

CHANNEL_FD = 3
TESTS_FILE = "<tests>"
TESTS_MODULE = "__main__"  # the tests run as __main__: the classes they define say so
TRACE_CHARS = 8000
_BUILTIN_NAMES = frozenset(vars(builtins))
_NO_IMPORT = frozenset({"antigravity", "this", "__hello__", "__phello__", "idlelib", "turtle",
                        "turtledemo", "tkinter", "webbrowser", "pydoc"})
# Never handed to the solution, even when the tests pass them: they reach this process's frames.
_HIDDEN = frozenset({"globals", "locals", "vars", "eval", "exec", "compile", "getattr",
                     "setattr", "delattr", "__import__", "open", "breakpoint", "input", "help",
                     "dir", "exc_info", "exception", "_getframe", "settrace", "setprofile",
                     "get_objects", "get_referrers", "get_referents", "currentframe", "stack",
                     "trace"})


class NotPlain(BaseException):
    """The tests got an object of the solution's where they need plain data: the test fails.
    A BaseException, so that a test's `except Exception` cannot swallow it."""


class NoLength(TypeError):
    """`len()` of a solution's object: a TypeError, so that `list(proxy)` still iterates."""


class SolutionExit(BaseException):
    """The solution raised SystemExit, KeyboardInterrupt or the like inside a call."""


def _refused(operation: str):
    def refuse(self, *args):
        raise NotPlain(f"the tests got the solution's {self._type} where plain data is needed "
                       f"({operation})")
    return refuse


class Remote(judge_contestant.Proxy):
    """An object of the solution's, seen from the tests (see the module doc)."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        peer = self._peer
        reply = peer.request("call", self._handle, peer.encode(args), peer.encode(kwargs))
        result = peer.value(reply)
        if len(reply) > 2:
            _write_back(peer, reply[2], args, kwargs)
        return result

    def __len__(self) -> int:
        raise NoLength(f"the tests got the solution's {self._type} where plain data is needed "
                       "(__len__)")

    def __repr__(self) -> str:
        return f"<the solution's {self._type}>"

    __str__ = __repr__


_REFUSED = ("eq ne lt le gt ge hash bool getitem setitem delitem index int float complex "
            "round trunc floor ceil abs neg pos invert bytes fspath enter exit await aiter "
            "anext delattr")
_OPERATORS = "add sub mul matmul truediv floordiv mod divmod pow lshift rshift and xor or"
for _name in [*_REFUSED.split(), *(form + op for op in _OPERATORS.split()  # noqa: SIM905
                                   for form in ("", "r", "i"))]:
    setattr(Remote, f"__{_name}__", _refused(f"__{_name}__"))


def _write_back(peer: judge_contestant.Peer, changes, args: tuple, kwargs: dict) -> None:
    """Containers the tests passed and the solution changed in place change here too."""
    if type(changes) is not list:
        raise judge_contestant.Broken("a malformed write-back")
    for change in changes:
        if type(change) is not list or len(change) != 2:
            raise judge_contestant.Broken("a malformed write-back")
        key, encoded = change
        if type(key) is int and 0 <= key < len(args):
            original = args[key]
        elif type(key) is str and key in kwargs:
            original = kwargs[key]
        else:
            raise judge_contestant.Broken("a write-back to an argument that was not passed")
        new, kind = peer.decode(encoded), type(original)
        if type(new) is not kind:
            continue
        if kind is list or kind is bytearray:
            original[:] = new
        elif kind is dict or kind is set:
            original.clear()
            original.update(new)


class Judge:
    """The judge's policy on the pipe: what it hands the solution, and what it serves."""

    reported = (Exception, NotPlain)

    # handles
    def handed_back(self, obj: object) -> int | None:
        return object.__getattribute__(obj, "_handle") if type(obj) is Remote else None

    def export_kind(self, obj: object) -> str:
        kind = type(obj)
        if kind is types.ModuleType or getattr(obj, "__name__", None) in _HIDDEN:
            raise values.NotPlain(f"a {kind.__name__} cannot be handed to the solution")
        if (obj if isinstance(obj, type) else kind).__module__ == TESTS_MODULE:
            return "object"  # a class the tests defined, or an instance of one
        if callable(obj):
            return "callable"
        if hasattr(kind, "__next__"):
            return "iterator"
        raise values.NotPlain(f"a {kind.__name__} cannot be handed to the solution")

    def proxy(self, peer: judge_contestant.Peer, handle: int, type_name: str) -> Remote:
        return Remote(peer, handle, type_name)

    # errors
    def error_reply(self, exc: BaseException) -> list:
        return ["!", type(exc).__name__, "Exception", "", ""]  # nothing of the tests' leaves

    def remote_exception(self, fields: list) -> BaseException:
        name, base, message, trace = (
            [str(f)[:TRACE_CHARS] if type(f) is str else "" for f in fields] + [""] * 4)[:4]
        cls = values.EXCEPTIONS.get(base)
        if cls is None or not issubclass(cls, Exception):
            exc: BaseException = SolutionExit(f"{name}: {message}")
        else:
            try:
                exc = cls(message)
            except Exception:
                exc = RuntimeError(message)
        exc.solution_traceback = trace or f"{name}: {message}\n"
        return exc

    # the solution's requests on the tests' objects
    def serve(self, peer: judge_contestant.Peer, op: str, args: list) -> list:
        handle, *rest = args
        if op == "call":
            target = peer.exported(handle, ("callable", "object"))
            call_args, call_kwargs = (peer.decode(part) for part in rest)
            if type(call_args) is not tuple or type(call_kwargs) is not dict:
                raise TypeError("malformed arguments")
            return ["=", peer.encode(target(*call_args, **call_kwargs))]
        if op in ("getattr", "setattr"):
            name = rest[0]
            if type(name) is not str or name.startswith("_"):
                raise AttributeError("only public attributes of the tests' objects")
            target = peer.exported(handle, ("object",))
            if op == "setattr":
                setattr(target, name, peer.decode(rest[1]))
                return ["=", None]
            return ["=", peer.encode(getattr(target, name))]
        if op == "iter":
            return ["=", peer.encode(iter(peer.exported(handle, ("object", "iterator"))))]
        if op == "next":
            return ["=", peer.encode(next(peer.exported(handle, ("iterator",))))]
        target = peer.exported(handle, ("object",))
        if op == "len":
            return ["=", len(target)]
        if op == "bool":
            return ["=", bool(target)]
        if op == "getitem":
            return ["=", peer.encode(target[peer.decode(rest[0])])]
        raise TypeError(f"unknown operation {op!r}")


# --------------------------------------------------------------------------- one run


class _Run:
    """The judge's side of one run: the pipe, the records it will write, how it ends."""

    def __init__(self, payload: dict, peer: judge_contestant.Peer, policy: Judge) -> None:
        self.payload, self.peer, self.policy = payload, peer, policy
        self.nonce = payload["nonce"]
        self.records: list[dict] = []
        self._seen_sites: set[tuple[int, str]] = set()

    def record(self, **fields) -> None:
        self.records.append({"nonce": self.nonce, **fields})

    def load(self, names: list | None) -> dict | None:
        """The solution runs in the contestant; its name table, or None on a compile error."""
        reply = self.peer.request("load", self.payload["code"], names,
                                  self.payload.get("bytecode"))
        if reply[0] == "C" and len(reply) == 3:
            os.write(2, str(reply[2])[-TRACE_CHARS:].encode(errors="replace"))
            self.record(compile_error=str(reply[1])[:1000])
            return None
        if reply[0] == "L" and len(reply) == 2 and type(reply[1]) is dict:
            return reply[1]
        self.peer.value(reply)  # raises what the solution raised
        raise judge_contestant.Broken("an answer of the wrong shape")

    def asserts(self) -> None:
        """`assert` tests, run here on the solution's names."""
        payload = self.payload
        table = self.load(payload["names"])
        if table is None:
            return
        main = types.ModuleType(TESTS_MODULE)
        namespace = main.__dict__
        solution = types.ModuleType("solution")
        solution.__file__ = "/tmp/solution.py"
        attr_bases = set(payload["attr_bases"])
        for name, description in table.items():
            value = self._bind(description)
            setattr(solution, name, value)
            if name in _BUILTIN_NAMES:
                continue  # the tests' builtins are the real ones
            if name in attr_bases:  # `math.isclose`: the real module's, if it is one
                value = _import(name) or value
            namespace[name] = value
        namespace.update({"__builtins__": builtins, "__name__": TESTS_MODULE,
                          payload["site_function"]: self._site})
        sys.modules["solution"], sys.modules["__main__"] = solution, main
        exec(compile(payload["tests"], TESTS_FILE, "exec"), namespace)
        self.record(passed=True)

    def _bind(self, description) -> object:
        if type(description) is not list or not description:
            raise judge_contestant.Broken("a malformed name")
        kind, *rest = description
        if kind == "m" and len(rest) == 2 and type(rest[0]) is str:
            module = _import(rest[0])
            return module if module is not None else self.peer.decode(rest[1])
        if kind == "a" and len(rest) == 3 and type(rest[0]) is str and type(rest[1]) is str:
            found: object = _import(rest[0])
            for part in rest[1].split("."):
                found = getattr(found, part, None) if found is not None else None
            return found if found is not None else self.peer.decode(rest[2])
        if kind == "v" and len(rest) == 1:
            return self.peer.decode(rest[0])
        raise judge_contestant.Broken("a malformed name")

    def _site(self, site: int, value: object) -> None:
        """An assert the worker judges: record the value the solution's code computed (each
        distinct value of a site once)."""
        try:
            encoded = values.encode(value, _not_plain)
        except values.NotPlain as exc:
            raise NotPlain(str(exc)) from None
        key = (site, json.dumps(encoded))
        if key not in self._seen_sites:
            self._seen_sites.add(key)
            self.record(site=site, value=encoded)


def _not_plain(value: object) -> list:
    named = f"the solution's {value._type}" if type(value) is Remote else \
        f"a {type(value).__name__}"
    raise values.NotPlain(f"the tests got {named} where plain data is needed")


def _import(name: str) -> types.ModuleType | None:
    """This process's own copy of a standard-library module (never the solution's), if any."""
    if name in sys.stdlib_module_names and name not in _NO_IMPORT:
        try:
            return importlib.import_module(name)
        except Exception:
            return None
    return None


# --------------------------------------------------------------------------- the process


def main(payload: dict, peer: judge_contestant.Peer, contestant: int) -> None:
    """Judge the run, write its records, end (mirroring the contestant if it died). Never
    returns."""
    run = _Run(payload, peer, peer.policy)
    try:
        run.asserts()
    except judge_contestant.Broken as exc:
        emit(run.records)
        _end_like_contestant(contestant, str(exc))
    except AssertionError as exc:
        line = _test_line(exc)
        run.record(failed=f"AssertionError{line}")
        os.write(2, f"test failed: AssertionError{line}\n".encode())
    except NotPlain as exc:
        run.record(failed=f"{exc}"[:500])
        os.write(2, f"test failed: {exc}\n"[:600].encode(errors="replace"))
    except BaseException as exc:
        trace = getattr(exc, "solution_traceback", None)
        if trace is None:  # the tests' own error: its type and line, never its message
            trace = f"the tests raised {type(exc).__name__}{_test_line(exc)}\n"
        os.write(2, trace.encode(errors="replace"))
    emit(run.records)
    _stop(contestant)
    last = run.records[-1] if run.records else {}
    os._exit(0 if "passed" in last else 1)


def _test_line(exc: BaseException) -> str:
    tb, line = exc.__traceback__, ""
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == TESTS_FILE:
            line = f" at line {tb.tb_lineno} of the tests"
        tb = tb.tb_next
    return line


# What json.dumps writes, from its C encoder made here, in the warm interpreter: a run's records
# are written without json's Python code, whose every page the run would copy.
_RECORD_ENCODER = _json.make_encoder(None, None, _json.encode_basestring_ascii, None, ": ", ", ",
                                     False, False, True)


def emit(records: list[dict]) -> None:
    data = memoryview("".join("".join(_RECORD_ENCODER(r, 0)) + "\n" for r in records).encode())
    while data:
        data = data[os.write(CHANNEL_FD, data):]


def _stop(contestant: int) -> None:
    """End the contestant and reap it, so its CPU time and memory count in this run's."""
    try:
        os.kill(contestant, signal.SIGKILL)
        os.waitpid(contestant, 0)
    except OSError:
        pass


def _end_like_contestant(contestant: int, reason: str) -> None:
    """The contestant broke the pipe: if it died, end the way it ended (its exit status, its
    signal: a CPU-time or memory kill stays one); if it lives, it broke the protocol."""
    try:
        pid, status = os.waitpid(contestant, os.WNOHANG)
        if pid == 0:
            if "went away" not in reason:
                os.write(2, f"the solution broke the harness's pipe: {reason}\n".encode())
                _stop(contestant)
                os._exit(1)
            pid, status = os.waitpid(contestant, 0)  # it closed the pipe: it is ending
    except ChildProcessError:
        os._exit(1)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
