"""The Python harness, run inside the jail: the entry of every Python run.

Two entries behave identically: `run_forked` in a process forked from the runner's warm
interpreter, and `python3 pyharness.py` (the cold path). Both read the payload from fd 4: its
first line names the mode (`stdio`, `calls` or `assert`), the rest is marshal data (see
verifier/kinds/code/harness.py).

A warm run's first steps are C calls where it can (`_signal`, not `signal`'s enum wrappers):
every page of the warm interpreter that Python code writes to is copied for the run.

stdio runs the solution as `__main__` in this process and ends the way the interpreter does
(threads joined, atexit run, streams flushed); the worker compares stdout outside the jail.

calls runs (a `call` test, and assert tests that are only calls of the solution's function with
literal arguments, see verifier/kinds/code/asserts.py) are one process too: it runs the solution,
makes the calls, and records each value returned for the worker to judge. Nothing here is
secret (no expected value, no test): a value it reports is one the solution's function could
have returned, and the worker accepts the records only with one value for every call.

assert runs are judged by two processes: this one becomes the judge (judge.py), which
forks the contestant (contestant.py) that runs the solution. The first line of the payload is
all this process reads before that fork, so the contestant never holds anything of the tests;
it closes the channel to the worker (fd 3) and the payload before the solution runs. Only the
judge writes records, and only when the work is done: exiting early, in any way, leaves none.
Standard library only.
"""

from __future__ import annotations

import _signal
import builtins
import marshal
import os
import sys
import types

import contestant
import interpreter
import judge
import judge_contestant
import values
from interpreter import reset_interpreter
from linux import PR_SET_DUMPABLE, libc  # libc loaded in the warm interpreter, before any fork

CHANNEL_FD = 3
PAYLOAD_FD = 4
SOLUTION_PATH = contestant.SOLUTION_PATH
MAX_MESSAGE = 64 << 20  # one value between the two processes of a judged run

PRELOADED = ("array", "bisect", "collections", "copy", "functools", "heapq", "itertools", "math",
             "operator", "random", "re", "statistics", "string", "typing",
             "dataclasses", "atexit", "_sitebuiltins", "traceback", "hashlib", "fractions",
             "decimal", "datetime", "textwrap", "numbers", "enum", "importlib")

__all__ = ["preload", "reset_interpreter", "run_forked"]


def preload() -> None:
    """Import what solutions and tests commonly use, once, in the warm interpreter."""
    _import_random()
    for name in PRELOADED:
        __import__(name)


def _import_random() -> None:
    """Import `random` with its reseed in every fork made one C call.

    `random` has each fork reseed its generator through `Random.seed`, Python code that
    copied some 16 more pages of the warm interpreter in every run (measured in a runner;
    about 40 in a bare fork of it). Its C base, `_random.Random.seed` on the same instance,
    draws the same fresh seed from the system (the wrapper's only other step resets
    `gauss_next`, which nothing in the interpreter a run forks from ever sets).
    """
    import _random
    import functools

    register = os.register_at_fork
    os.register_at_fork = lambda **hooks: None  # for random's import only
    try:
        import random
    finally:
        os.register_at_fork = register
    os.register_at_fork(after_in_child=functools.partial(_random.Random.seed, random._inst))


def run_forked() -> None:
    """Warm path: this process was forked from a runner that has set the run's environment and
    called `reset_interpreter`. Never returns."""
    _signal.signal(_signal.SIGINT, _signal.default_int_handler)  # a fresh interpreter's
    _execute()


def _cold_main() -> None:
    reset_interpreter()
    _execute()


def _execute() -> None:
    try:
        head = os.pread(PAYLOAD_FD, 16, 0)
        mode = head[:head.index(b"\n")].decode()
        if mode == "stdio":
            payload = _read_payload(len(mode) + 1)
            _run_stdio(payload["code"], payload["nonce"], bool(payload.get("script_path")),
                       payload.get("bytecode"))
        elif mode == "calls":
            _run_calls(_read_payload(len(mode) + 1))
        elif mode == "assert":
            _run_judged()
        os.write(2, f"harness: unknown mode {mode!r}\n".encode())
    except BaseException as exc:  # a broken payload or harness: never the solution's doing
        os.write(2, f"harness failed: {exc!r}\n".encode(errors="replace"))
    os._exit(125)


def _read_payload(offset: int) -> dict:
    """The payload after its first line, from the memfd on PAYLOAD_FD (read at its exact
    size: one small buffer)."""
    raw = os.pread(PAYLOAD_FD, os.fstat(PAYLOAD_FD).st_size - offset, offset)
    os.close(PAYLOAD_FD)
    return marshal.loads(raw)


# --------------------------------------------------------------------------- judged runs


def _run_judged() -> None:
    """Fork the contestant, then read the payload and judge. Never returns."""
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # inherited by the contestant too
    to_contestant, to_judge = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            for fd in (CHANNEL_FD, PAYLOAD_FD, to_contestant[1], to_judge[0]):
                os.close(fd)
            contestant.main(to_contestant[0], to_judge[1], MAX_MESSAGE)
        finally:
            os._exit(1)
    os.close(to_contestant[0])
    os.close(to_judge[1])
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    payload = _read_payload(len("assert\n"))
    peer = judge_contestant.Peer(to_judge[0], to_contestant[1], judge.Judge(), MAX_MESSAGE)
    judge.main(payload, peer, pid)


# --------------------------------------------------------------------------- calls


def _run_calls(payload: dict) -> None:
    """Run the solution as the module `solution`, then each call in order; record the values
    returned (see the module doc). Ends as a judged run would. Never returns.

    A call names a function of the solution's; a `call` test's (`methods`) may also name
    `Class.method` (on a fresh instance) or a method of a LeetCode-style `Solution` class.
    """
    nonce = payload["nonce"]
    records: list[dict] = []
    try:
        solution = contestant.compile_solution(payload["code"], payload.get("bytecode"))
    except BaseException as exc:  # the solution's compile error, reported as such
        summary, text = contestant.compile_error(exc)
        os.write(2, text.encode(errors="replace"))
        judge.emit([{"nonce": nonce, "compile_error": summary}])
        os._exit(1)
    status = 1
    sys.addaudithook(contestant.refuse_ctypes)  # as in a judged run: the same rules either way
    try:
        namespace = contestant.solution_module().__dict__
        exec(solution, namespace)
        for site, (name, args, kwargs) in enumerate(payload["calls"]):
            value = _function(namespace, name, payload.get("methods"))(*args, **kwargs)
            try:
                records.append({"nonce": nonce, "site": site, "value": values.encode(value)})
            except values.NotPlain:
                failed = f"returned a {type(value).__name__}, not plain data"
                records.append({"nonce": nonce, "failed": failed})
                os.write(2, f"test failed: {failed}\n".encode())
                break
        else:
            records.append({"nonce": nonce, "passed": True})
            status = 0
    except SystemExit as exc:  # no record says the tests finished
        status = interpreter.system_exit_status(exc)
    except BaseException as exc:
        os.write(2, contestant.traceback_text(exc).encode(errors="replace"))
    judge.emit(records)
    os._exit(interpreter.flush_streams(status))


def _function(namespace: dict, name: str, methods: bool):
    """The function a call names (see `_run_calls`)."""
    head, *rest = name.split(".") if methods else [name]
    if methods and head not in namespace and not rest and isinstance(namespace.get("Solution"),
                                                                      type):
        head, rest = "Solution", [name]
    if head not in namespace:
        raise NameError(f"name {head!r} is not defined")
    target = namespace[head]
    if rest and isinstance(target, type):
        target = target()
    for part in rest:
        target = getattr(target, part)
    return target


# --------------------------------------------------------------------------- stdio


def _run_stdio(code: str, nonce: str, script_path: bool = False,
               bytecode: str | None = None) -> None:
    """Run the solution as `__main__`; with `script_path`, its directory (the work directory)
    comes first on sys.path, as `python solution.py` puts it (a tool run's own modules)."""
    if script_path:
        sys.path.insert(0, os.path.dirname(SOLUTION_PATH))
    try:
        solution = contestant.compile_solution(code, bytecode)
    except BaseException as exc:  # the solution's compile error, reported as such
        sys.__excepthook__(type(exc), exc, None)
        record = {"nonce": nonce, "compile_error": contestant.compile_error(exc)[0]}
        judge.emit([record])
        os._exit(1)
    os.close(CHANNEL_FD)
    main = types.ModuleType("__main__")
    main.__file__ = SOLUTION_PATH
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    status = 0
    try:
        exec(solution, main.__dict__)
    except SystemExit as exc:
        status = interpreter.system_exit_status(exc)
    except BaseException as exc:
        exc.__traceback__ = exc.__traceback__.tb_next  # start at the solution, as python would
        sys.excepthook(type(exc), exc, exc.__traceback__)
        status = 1
    os._exit(interpreter.finalize(status))


if __name__ == "__main__":
    _cold_main()
