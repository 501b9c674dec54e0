"""The Python harness, run inside the jail: stdio programs, `call` cases and `assert` tests.

Standard library only. Two entries behave identically: `run_forked` in a process forked from the
runner's warm interpreter, and `python3 pyharness.py` (the cold path); both read the payload
from fd 4. The payload is JSON: {"mode": "stdio"|"call"|"assert", "code", "nonce", ...}.

stdio runs the solution as `__main__` and ends the way the interpreter does (threads joined,
atexit run, streams flushed); the worker compares stdout outside the jail.

call and assert are judged: the harness writes one record, carrying the run's nonce, to fd 3
only after the work is done (`call`: the JSON-encoded return value, compared outside the jail by
the worker, so no user-defined `__eq__` ever runs; `assert`: that every assert held). Exiting
early in any way (sys.exit, os._exit, a signal, an atexit hook) leaves no record: a failure.
Everything the trusted path needs after the solution has run is bound to locals beforehand, so
patching modules or builtins cannot redirect it, and an audit hook blocks the ways of reaching
the harness's frames or rewriting code (frames, gc, tracing, ctypes, code objects).

For assert tests the trusted test code is rewritten with `ast` before the solution runs: every
value the tests compare, test for truth, compute with or hand to a builtin must be plain data
(exact builtin types, recursively), so an object whose `__eq__`, `__bool__`, `__abs__`, `__len__`
or `__float__` lies cannot pass; values returned by the solution's functions are checked as they
come back. The tests see a pristine copy of the builtins and of the modules they import.
"""

from __future__ import annotations

import ast
import builtins
import collections
import datetime
import decimal
import fractions
import io
import json
import linecache
import os
import sys
import traceback
import types

CHANNEL_FD = 3
PAYLOAD_FD = 4
SOLUTION_PATH = "/tmp/solution.py"
_SANDBOX = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the jail's /opt/verifier
_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: implemented in C, attributes cannot be set

PRELOADED = ("array", "bisect", "collections", "copy", "functools", "heapq", "itertools", "math",
             "operator", "random", "re", "statistics", "string", "typing",
             "dataclasses", "atexit", "_sitebuiltins", "traceback", "hashlib", "fractions",
             "decimal", "datetime", "textwrap", "numbers", "enum")


def preload() -> None:
    """Import what solutions commonly use, once, in the warm interpreter."""
    for name in PRELOADED:
        __import__(name)


# --------------------------------------------------------------------------- process setup


def reset_interpreter() -> None:
    """Make this process look like a fresh `python3 solution.py` to the solution: its argv,
    path, `exit`/`quit`, and new standard streams on fds 0-2.

    The warm path does this once in the process it forks runs from (which never uses these
    streams itself), so a run does not pay for it; the streams must then be built while fds
    0-2 are of the kinds a run gets (stdin a memfd, stdout and stderr pipes), because the I/O
    stack records whether its file is seekable when it is built.
    """
    sys.argv = ["solution.py"]
    sys.path[:] = [p for p in sys.path if p and not p.startswith(_SANDBOX)]
    streams = []
    for fd, template, mode in ((0, sys.__stdin__, "rb"), (1, sys.__stdout__, "wb"),
                               (2, sys.__stderr__, "wb")):
        raw = io.FileIO(fd, mode, closefd=False)
        buffered = io.BufferedReader(raw) if mode == "rb" else io.BufferedWriter(raw)
        streams.append(io.TextIOWrapper(buffered, encoding=template.encoding,
                                        errors=template.errors,
                                        line_buffering=template.line_buffering))
    sys.stdin, sys.stdout, sys.stderr = streams
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams
    import _sitebuiltins  # what `site` would add; the interpreter runs with -S

    builtins.exit = _sitebuiltins.Quitter("exit", "Ctrl-D (i.e. EOF)")
    builtins.quit = _sitebuiltins.Quitter("quit", "Ctrl-D (i.e. EOF)")
    sys.excepthook = traceback.print_exception  # quotes source lines from linecache


def run_forked() -> None:
    """Warm path: this process was forked from a runner that has set the run's environment and
    called `reset_interpreter`. Never returns."""
    import signal  # loaded already; the runner (PID 1 of its namespace) keeps SIGINT default

    signal.signal(signal.SIGINT, signal.default_int_handler)  # as a fresh interpreter has it
    _execute(_read_payload())


def _cold_main() -> None:
    reset_interpreter()
    _execute(_read_payload())


def _read_payload() -> dict:
    """The payload, from the memfd on PAYLOAD_FD (read at its exact size: one small buffer)."""
    size = os.fstat(PAYLOAD_FD).st_size
    raw = os.pread(PAYLOAD_FD, size, 0)
    os.close(PAYLOAD_FD)
    return json.loads(raw)


def _execute(payload: dict) -> None:
    # The solution is not a file in the jail (a run that writes nothing leaves the work
    # directory as new); tracebacks still quote its lines, from here.
    code = payload["code"]
    linecache.cache[SOLUTION_PATH] = (len(code), None, code.splitlines(True), SOLUTION_PATH)
    try:
        solution = compile(code, SOLUTION_PATH, "exec")
    except BaseException as exc:  # the solution's compile error, reported as such
        sys.__excepthook__(type(exc), exc, None)
        record = {"nonce": payload["nonce"], "compile_error": f"{type(exc).__name__}: {exc}"}
        os.write(CHANNEL_FD, (json.dumps(record) + "\n").encode())
        os._exit(1)
    if payload["mode"] == "stdio":
        os.close(CHANNEL_FD)
        _run_stdio(solution)
    _run_judged(payload, solution)


# --------------------------------------------------------------------------- stdio


def _system_exit_code(exc: SystemExit) -> int:
    """The exit status the interpreter derives from SystemExit."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _run_stdio(solution: types.CodeType) -> None:
    main = types.ModuleType("__main__")
    main.__file__ = SOLUTION_PATH
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    status = 0
    try:
        exec(solution, main.__dict__)
    except SystemExit as exc:
        status = _system_exit_code(exc)
    except BaseException as exc:
        exc.__traceback__ = exc.__traceback__.tb_next  # start at the solution, as python would
        sys.excepthook(type(exc), exc, exc.__traceback__)
        status = 1
    os._exit(_finalize(status))


def _finalize(status: int) -> int:
    """Interpreter shutdown as Py_FinalizeEx does it: join threads, run atexit, flush."""
    threading = sys.modules.get("threading")
    if threading is not None:
        threading._shutdown()
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            if stream is sys.stdout and status == 0:
                status = 120
    return status


# --------------------------------------------------------------------------- judged modes


class _TestRewriter(ast.NodeTransformer):
    """Route every value the tests inspect through the plain-data guard (see module doc)."""

    FRAME_SENSITIVE = frozenset({"super", "locals", "globals", "vars", "dir", "eval", "exec"})

    @staticmethod
    def _guard(name: str, node: ast.expr) -> ast.expr:
        return ast.copy_location(ast.Call(ast.Name(name, ast.Load()), [node], []), node)

    def _plain(self, node: ast.expr) -> ast.expr:
        return self._guard("__v_plain__", node)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if all(isinstance(op, ast.Is | ast.IsNot) for op in node.ops):
            return node
        node.left = self._plain(node.left)
        node.comparators = [self._plain(c) for c in node.comparators]
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        node.values = [self._plain(v) for v in node.values]
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        node.operand = self._plain(node.operand)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        node.left, node.right = self._plain(node.left), self._plain(node.right)
        return node

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.AST:
        self.generic_visit(node)
        node.value = self._plain(node.value)
        return node

    def _guard_test(self, node: ast.Assert | ast.If | ast.While | ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        node.test = self._plain(node.test)
        return node

    visit_Assert = visit_If = visit_While = visit_IfExp = _guard_test

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        self.generic_visit(node)
        node.ifs = [self._plain(cond) for cond in node.ifs]
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in self.FRAME_SENSITIVE:
            return node
        node.args = [node.func, *node.args]
        node.func = ast.Name("__v_call__", ast.Load())
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self.generic_visit(node)
        node.decorator_list.append(ast.Name("__v_class__", ast.Load()))
        return node


def compile_tests(source: str) -> tuple[types.CodeType, list[str]]:
    """Rewrite and compile trusted assert tests; also name the modules they import."""
    tree = _TestRewriter().visit(ast.parse(source, "<tests>"))
    imports = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imports.append(node.module)
    return compile(ast.fix_missing_locations(tree), "<tests>", "exec"), imports


def _code_objects(code: types.CodeType) -> list[types.CodeType]:
    found = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found.extend(_code_objects(const))
    return found


def _module_snapshots(names: list[str]) -> dict[str, types.ModuleType]:
    """Copies of the modules the tests import, taken before the solution can patch them."""
    snapshots: dict[str, types.ModuleType] = {}
    for name in names:
        parts = name.split(".")
        for depth in range(1, len(parts) + 1):
            dotted = ".".join(parts[:depth])
            if dotted in snapshots:
                continue
            try:
                real = __import__(dotted)
                for part in parts[1:depth]:
                    real = getattr(real, part)
            except Exception:  # the tests will fail on it themselves, in the open
                break
            copy = types.ModuleType(dotted)
            copy.__dict__.update(real.__dict__)
            snapshots[dotted] = copy
            if depth > 1:
                setattr(snapshots[".".join(parts[:depth - 1])], parts[depth - 1], copy)
    return snapshots


class _Guards:
    """The plain-data checks; built before the solution runs, reachable only from the tests."""

    def __init__(self, test_codes: list[types.CodeType]) -> None:
        type_, id_, issubclass_, hasattr_, set_ = type, id, issubclass, hasattr, set
        frozenset_, all_, vars_, dict_, len_ = frozenset, all, vars, dict, len
        dict_keys, dict_values, missing = dict.keys, dict.values, object()
        immutable_flag = _IMMUTABLE_TYPE
        function, method = types.FunctionType, types.MethodType
        scalars = frozenset_({type(None), bool, int, float, complex, str, bytes, bytearray, range,
                              decimal.Decimal, datetime.date, datetime.datetime, datetime.time,
                              datetime.timedelta, datetime.timezone})
        sequences = frozenset_({list, tuple, set, frozenset, collections.deque, type({}.keys()),
                                type({}.values()), type({}.items())})
        mappings = frozenset_({dict, collections.OrderedDict, collections.defaultdict})
        exceptions = frozenset_(v for v in vars(builtins).values()
                                if isinstance(v, type) and issubclass(v, BaseException))
        # Python-level stdlib value types: trusted only while their classes are untouched.
        pristine_classes = {cls: [(klass, dict(vars(klass))) for klass in cls.__mro__
                                  if not klass.__flags__ & _IMMUTABLE_TYPE]
                            for cls in (collections.Counter, fractions.Fraction)}
        c_callables = frozenset_({types.BuiltinFunctionType, types.WrapperDescriptorType,
                                  types.MethodWrapperType, types.MethodDescriptorType,
                                  types.ClassMethodDescriptorType})
        test_code_ids = frozenset_(id_(code) for code in test_codes)
        test_classes: set[type] = set_()
        self._keep_alive = test_codes

        class Failure(Exception):
            """A test value was not plain data: the test fails."""

        def untouched(cls: type) -> bool:
            """Identity, not equality: comparing attribute values could run the solution's code."""
            for klass, snapshot in pristine_classes[cls]:
                current = vars_(klass)
                if len_(current) != len_(snapshot) or not all_(
                        current.get(name, missing) is value for name, value in snapshot.items()):
                    return False
            return True

        def plain(value):
            stack, seen = [value], set_()
            while stack:
                item = stack.pop()
                kind = type_(item)
                if kind in scalars or kind in test_classes:
                    continue
                if id_(item) in seen:
                    continue
                seen.add(id_(item))
                if kind in sequences:
                    stack.extend(item)
                elif kind in mappings or (kind in pristine_classes and untouched(kind)):
                    if issubclass_(kind, dict_):
                        stack.extend(dict_keys(item))
                        stack.extend(dict_values(item))
                elif kind in exceptions:
                    stack.extend(item.args)
                else:
                    raise Failure(f"the tests got a {kind.__name__}, not plain data")
            return value

        def checked_items(iterator):
            for item in iterator:
                yield plain(item)

        def admit(value):
            """Plain data, a callable or class, or an iterator whose items get checked."""
            kind = type_(value)
            if kind in (function, method) or kind in c_callables or issubclass_(kind, type_):
                return value
            if kind in scalars or kind in sequences or kind in mappings or kind in test_classes:
                return plain(value)
            if hasattr_(kind, "__next__"):
                return checked_items(value)
            return plain(value)

        def test_defined(func) -> bool:
            kind = type_(func)
            if kind is method:
                func, kind = func.__func__, type_(func.__func__)
            if kind is function:
                return id_(func.__code__) in test_code_ids
            return kind in test_classes

        def call(func, *args, **kwargs):
            kind = type_(func)
            is_class = issubclass_(kind, type_)
            if kind in c_callables or (is_class and func.__flags__ & immutable_flag):
                return func(*[admit(a) for a in args], **{k: admit(v) for k, v in kwargs.items()})
            if is_class or test_defined(func):
                return func(*args, **kwargs)
            return admit(func(*args, **kwargs))

        def register_class(cls):
            test_classes.add(cls)
            return cls

        self.failure = Failure
        self.names = {"__v_plain__": plain, "__v_call__": call, "__v_class__": register_class}


class NotPlain(TypeError):
    """A `call` return value that is not JSON-like data: the case fails."""


def make_encoder():
    """Build the encoder of return values (exact builtin types only) as a closure."""
    type_, all_, dumps, not_plain = type, all, json.dumps, NotPlain
    scalars, keys = (bool, int, float, str), (str, int, float, bool)

    def encode(value, depth: int = 0):
        kind = type_(value)
        if value is None or kind in scalars:
            return value
        if depth > 200:
            raise not_plain("the return value is nested too deeply")
        if kind is list or kind is tuple:
            return [encode(item, depth + 1) for item in value]
        if kind is dict and all_(type_(k) in keys or k is None for k in value):
            return {k if type_(k) is str else dumps(k): encode(v, depth + 1)
                    for k, v in value.items()}
        raise not_plain(f"returned a {kind.__name__}, not JSON-like data")

    return encode


def make_audit_hook():
    """Deny what would reach the harness's frames or forge code (see the module doc).

    Everything the hook consults is bound here, so patching this module or the builtins later
    cannot switch it off; an audit hook cannot be removed once added.
    """
    frame_attributes = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
    denied = frozenset({
        "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys.settrace",
        "sys.setprofile", "sys._current_frames", "sys._current_exceptions", "code.__new__",
        "function.__new__", "marshal.loads", "marshal.load"})
    protected_attributes = frozenset({"__code__", "__defaults__", "__kwdefaults__"})
    str_, permission_error, value_error = str, PermissionError, ValueError
    attribute_error, import_error = AttributeError, ImportError

    def hook(event: str, args: tuple) -> None:
        event = str_(event)
        if event in denied or event.startswith("ctypes."):
            raise permission_error(f"{event} is not allowed in the sandbox")
        if event == "sys._getframe":
            raise value_error("call stack is not deep enough")  # what the stdlib is ready for
        if event == "object.__getattr__" and str_(args[1]) in frame_attributes:
            raise attribute_error(f"{args[1]} is not available in the sandbox")
        if event == "object.__setattr__" and str_(args[1]) in protected_attributes:
            raise permission_error(f"setting {args[1]} is not allowed in the sandbox")
        if event == "import" and str_(args[0]).split(".")[0] in ("ctypes", "_ctypes"):
            raise import_error("ctypes is not available in the sandbox")

    return hook


def _resolve(namespace: dict, fn_name: str):
    """`fn`, `Class.method` (on a fresh instance), or a method of a LeetCode-style `Solution`."""
    head, *rest = fn_name.split(".")
    if head not in namespace and not rest and isinstance(namespace.get("Solution"), type):
        head, rest = "Solution", [fn_name]
    if head not in namespace:
        raise NameError(f"name {head!r} is not defined")
    target = namespace[head]
    if rest and isinstance(target, type):
        target = target()
    for part in rest:
        target = getattr(target, part)
    return target


def _run_judged(payload: dict, solution: types.CodeType) -> None:
    """call/assert: write the nonce record only when the work is done. Never returns."""
    # Bound now, before the solution can patch anything the trusted path uses afterwards.
    write, exit_now, dumps, exec_, dict_, type_ = os.write, os._exit, json.dumps, exec, dict, type
    base_exception, assertion_error, resolve = BaseException, AssertionError, _resolve
    excepthook, channel = sys.excepthook, CHANNEL_FD
    encode, not_plain = make_encoder(), NotPlain
    nonce, mode = payload["nonce"], payload["mode"]

    def fail(message: str) -> None:
        write(2, f"test failed: {message}\n".encode(errors="replace"))
        write(channel, (dumps({"nonce": nonce, "failed": message}) + "\n").encode())
        exit_now(1)

    module = types.ModuleType("solution")  # a module, as importing the solution would give
    module.__file__, module.__builtins__ = SOLUTION_PATH, builtins
    sys.modules["solution"] = module
    sys.modules["__main__"] = types.ModuleType("__main__")  # not the warm supervisor's module
    solution_globals = module.__dict__
    failure: type[BaseException] = not_plain
    if mode == "assert":
        tests, imports = compile_tests(payload["tests"])
        guards = _Guards(_code_objects(tests))
        failure, guard_names = guards.failure, guards.names
        test_builtins = dict_(vars(builtins))
        test_builtins["__import__"] = _snapshot_importer(_module_snapshots(imports))
    else:
        fn_name, args, kwargs = payload["fn_name"], payload["args"], payload["kwargs"]
    for name in [name for name in sys.modules if name.split(".")[0] in ("ctypes", "_ctypes")]:
        del sys.modules[name]  # loaded by the warm supervisor; a fresh import is then audited
    # Imports compile from source instead of unmarshalling .pyc files, so the hook can refuse
    # marshal.loads (hand-made bytecode is not verified by the interpreter) without breaking them.
    sys.pycache_prefix = "/dev/null/no-bytecode-cache"
    sys.addaudithook(make_audit_hook())
    try:
        exec_(solution, solution_globals)
        if mode == "assert":
            test_globals = dict_(solution_globals)
            test_globals.update(guard_names)
            test_globals["__builtins__"] = test_builtins
            test_globals["__name__"] = "__main__"
            exec_(tests, test_globals)
            record = {"nonce": nonce, "passed": True}
        else:
            record = {"nonce": nonce, "value": encode(resolve(solution_globals, fn_name)(
                *args, **kwargs))}
    except failure as exc:  # a guard refused a value; the message names types, never values
        fail(f"{type_(exc).__name__}: {exc}"[:500])
    except assertion_error:  # its message may quote expected values: not repeated
        fail("AssertionError")
    except base_exception as exc:
        excepthook(type_(exc), exc, exc.__traceback__)
        exit_now(1)
    write(channel, (dumps(record) + "\n").encode())
    exit_now(0)


def _snapshot_importer(snapshots: dict[str, types.ModuleType]):
    """`__import__` for the tests: their modules come from the snapshots."""
    real_import = builtins.__import__

    def test_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name in snapshots:
            return snapshots[name] if fromlist else snapshots[name.split(".")[0]]
        return real_import(name, globals, locals, fromlist, level)

    return test_import


if __name__ == "__main__":
    _cold_main()
