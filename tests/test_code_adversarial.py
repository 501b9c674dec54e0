"""A hostile policy against /v1/verify: no reward without solving, no forged `infra_error`.

Every attack below is tried through the real service (embedded mode, the real jail), in the
three Python formats and the dataset shapes that reach them, and must end with reward 0.0 and a
verdict that blames the submission, never `infra_error`; the honest solution of each problem
still earns 1.0. The attack classes: reading expected values (frames reached from a signal
handler, a traceback, a generator or coroutine, gc, audit hooks, modules, files and descriptors),
forging the harness's evidence of a pass (its records, its encoder, exit hooks), shadowing the
names the tests use, lying values, abusing inherited descriptors, and turning the submission's
own failure into an `infra_error`.
"""

from __future__ import annotations

import shutil
import textwrap

import httpx
import pytest

from rlvr_contract.schemas import CodeItem
from verifier.kinds.code import process_settings
from verifier.kinds.code.asserts import plan
from verifier.kinds.code.runner import CodeRunner
from verifier.sandbox.factory import get_backend

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

BLAMES_SUBMISSION = {"wrong", "runtime_error", "timeout", "memory_limit", "output_limit",
                     "compile_error"}


def verify(url: str, item: dict) -> dict:
    response = httpx.post(f"{url}/v1/verify", json={"items": [item]}, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()["results"][0]


def assert_no_reward(result: dict) -> None:
    assert result["reward"] == 0.0, result
    assert result["status"] in BLAMES_SUBMISSION, result


def code_item(response: str, tests: dict, language: str = "python") -> dict:
    return {"kind": "code", "language": language, "response": response, "tests": tests}


# --------------------------------------------------------------------------- problems

ADD = "def add(a, b):\n    return a + b\n"
ADD_TESTS = {
    "assert": {"type": "assert", "code": "assert add(1, 2) == 3\nassert add(2, 2) != 5\n"
                                         "assert add(10, -3) == 7\n"},
    "call": {"type": "call", "fn_name": "add", "cases": [{"args": [1, 2], "expected": 3},
                                                         {"args": [10, -3], "expected": 7}]},
    # checks in a loop, over values the tests compute themselves
    "humaneval": {"test": "import random\n\ndef check(candidate):\n"
                          "    assert candidate(1, 2) == 3\n"
                          "    rng = random.Random(7)\n    for _ in range(20):\n"
                          "        x, y = rng.randint(0, 99), rng.randint(0, 99)\n"
                          "        assert candidate(x, y) == x + y\n",
                  "entry_point": "add"},
    "mbpp": {"test_list": ["assert add(1, 2) == 3", "assert add(-4, 4) == 0"]},
}
CIRCLE = "import math\ndef circle_area(r):\n    return math.pi * r * r\n"
# MBPP's shape: the tests use `math` without importing it; the solution's import provides it.
CIRCLE_TESTS = {
    "mbpp": {"test_list": ["assert math.isclose(circle_area(10), 314.159, rel_tol=0.001)",
                           "assert math.isclose(circle_area(5), 78.539, rel_tol=0.001)"]},
    "mbpp-setup": {"test_list": ["assert math.isclose(circle_area(10), 314.159, rel_tol=0.001)"],
                   "test_setup_code": "import math"},
}
STATS = ("def top3(xs):\n    return sorted(xs)[-3:]\n"
         "def mean(xs):\n    return sum(xs) / len(xs)\n")
STATS_TESTS = {"assert": {"type": "assert", "code": (
    "assert sorted(top3([5, 1, 9, 7])) == [5, 7, 9]\n"
    "assert abs(mean([1, 2, 3]) - 2) < 1e-9\n"
    "assert len(top3([4, 3, 2, 1])) == 3\n"
    "assert max(top3([8, 1, 2, 3])) == 8 and min(top3([8, 1, 2, 3])) == 2\n"
    "assert isinstance(mean([1]), float)\n")}}
COUNT = "def letters(s):\n    return {c: s.count(c) for c in set(s)}\n"
COUNT_TESTS = {"assert": {"type": "assert", "code": (
    "from collections import Counter\n"
    "assert Counter(letters('abca')) == Counter({'a': 2, 'b': 1, 'c': 1})\n")}}
WORD = "def shout(s):\n    return s.upper() + '!'\n"
WORD_TESTS = {"assert": {"type": "assert", "code": (
    "assert shout('hi') == 'HI!'\nassert str(shout('a')) == 'A!'\n"
    "assert [shout(w) for w in ['x', 'y']] == ['X!', 'Y!']\n")}}

PROBLEMS = {"add": (ADD, ADD_TESTS), "circle": (CIRCLE, CIRCLE_TESTS),
            "stats": (STATS, STATS_TESTS), "count": (COUNT, COUNT_TESTS),
            "word": (WORD, WORD_TESTS)}


@pytest.mark.parametrize(("problem", "shape"), [
    (problem, shape) for problem, (_, shapes) in PROBLEMS.items() for shape in shapes])
def test_honest_solutions_earn_full_reward(verifier_url: str, problem: str, shape: str):
    solution, shapes = PROBLEMS[problem]
    result = verify(verifier_url, code_item(solution, shapes[shape]))
    assert (result["status"], result["reward"]) == ("correct", 1.0), result


# --------------------------------------------------------------------------- expected values
# A probe searches everything it can reach for the expected value (a marker string) and returns
# (or prints) what it finds: if any expected value were within its reach, it would score 1.0.

FINDER = r'''
import collections, re, sys, types
_PATTERN = re.compile("zq-" + "secret" + r"-\d+")
_found = []

def _search(roots, limit=300000):
    stack, seen = collections.deque(roots), set()
    while stack and len(seen) < limit:
        o = stack.popleft()
        if id(o) in seen:
            continue
        seen.add(id(o))
        try:
            if isinstance(o, (str, bytes)):
                text = o.decode("latin-1") if isinstance(o, bytes) else o
                hit = _PATTERN.search(text)
                if hit:
                    return hit.group()
            elif isinstance(o, types.FrameType):
                stack += [o.f_back, o.f_code, o.f_locals, o.f_globals]
            elif isinstance(o, types.CodeType):
                stack += list(o.co_consts)
            elif isinstance(o, types.FunctionType):
                stack += [o.__code__, o.__globals__, o.__closure__ or (), o.__defaults__ or ()]
            elif isinstance(o, types.CellType):
                stack.append(o.cell_contents)
            elif isinstance(o, types.TracebackType):
                stack += [o.tb_frame, o.tb_next]
            elif isinstance(o, types.ModuleType):
                stack.append(vars(o))
            elif isinstance(o, dict):
                stack += list(o.keys()) + list(o.values())
            elif isinstance(o, (list, tuple, set, frozenset)):
                stack += list(o)
        except Exception:
            pass
    return None

def _answer():
    return next((f for f in _found if f), "nothing")
'''

PROBES = {
    "signal handler frames": '''
import os, signal
def _on_signal(sig, frame):
    _found.append(_search([frame]))
signal.signal(signal.SIGUSR1, _on_signal)
def probe():
    os.kill(os.getpid(), signal.SIGUSR1)
    return _answer()
''',
    "timer signal during the tests": '''
import signal, time
def _on_alarm(sig, frame):
    _found.append(_search([frame]))
signal.signal(signal.SIGALRM, _on_alarm)
def probe():
    signal.setitimer(signal.ITIMER_REAL, 0.001)
    end = time.monotonic() + 0.05
    while time.monotonic() < end:
        pass
    return _answer()
''',
    "sys.exc_info traceback": '''
import sys
def probe():
    try:
        raise KeyError("x")
    except KeyError:
        tb = sys.exc_info()[2]
        try:
            _found.append(_search([tb.tb_frame]))
        except Exception:
            pass
    return _answer()
''',
    "traceback and inspect modules": '''
import inspect, traceback
def probe():
    for get in (inspect.stack, inspect.currentframe, traceback.extract_stack):
        try:
            got = get()
            _found.append(_search([getattr(f, "frame", f) for f in got]
                                  if isinstance(got, list) else [got]))
        except Exception:
            pass
    return _answer()
''',
    "generator frame": '''
def probe():
    def walker():
        yield me.gi_frame.f_back
    me = walker()
    try:
        _found.append(_search([next(me)]))
    except Exception:
        pass
    return _answer()
''',
    "coroutine frame": '''
def probe():
    async def walker():
        return me.cr_frame.f_back
    me = walker()
    try:
        me.send(None)
    except StopIteration as stop:
        _found.append(_search([stop.value]))
    except Exception:
        pass
    return _answer()
''',
    "a tracer on every frame": '''
import sys, threading
def _tracer(frame, event, arg):
    if len(_found) < 50:
        _found.append(_search([frame], limit=5000))
    return _tracer
try:
    sys.settrace(_tracer)
    threading.settrace(_tracer)
except Exception:
    pass
def probe():
    return _answer()
''',
    "gc objects": '''
import gc
def probe():
    try:
        _found.append(_search(gc.get_objects()))
    except Exception:
        pass
    try:
        _found.append(_search(gc.get_referrers(probe)))
    except Exception:
        pass
    return _answer()
''',
    "audit hook sees what runs": '''
import sys
_busy = []
def _hook(event, args):
    if event in ("exec", "compile", "marshal.loads", "code.__new__") and not _busy:
        _busy.append(event)
        try:
            _found.append(_search([a for a in args if a is not None], limit=20000))
        finally:
            _busy.pop()
try:
    sys.addaudithook(_hook)
except Exception:
    pass
def probe():
    return _answer()
''',
    "modules and their globals": '''
import sys
def probe():
    _found.append(_search([dict(sys.modules)]))
    return _answer()
''',
    "files, environment and descriptors": '''
import os
def probe():
    texts = [str(dict(os.environ)), " ".join(__import__("sys").argv)]
    for root in ("/tmp", "/opt", "/etc", "/dev/shm", "/proc"):
        for base, _, files in os.walk(root):
            for name in files:
                try:
                    with open(os.path.join(base, name), "rb") as f:
                        texts.append(f.read(1 << 22))
                except OSError:
                    pass
    for fd in range(1024):
        try:
            texts.append(os.pread(fd, 1 << 22, 0))
        except OSError:
            pass
    _found.append(_search(texts))
    return _answer()
''',
}


def _probe_tests(marker: int) -> dict[str, dict]:
    return {
        "assert": {"type": "assert", "code": f"assert probe() == 'zq-secret-{marker}'\n"},
        "assert-loop": {"type": "assert", "code": f"for want in ['zq-secret-{marker + 1}']:\n"
                                                  "    assert probe() == want\n"},
        "humaneval": {"test": f"def check(candidate):\n"
                              f"    assert candidate() == 'zq-secret-{marker + 2}'\n",
                      "entry_point": "probe"},
        "call": {"type": "call", "fn_name": "probe",
                 "cases": [{"args": [], "expected": f"zq-secret-{marker + 4}"}]},
        "stdio": {"type": "stdio", "cases": [{"input": "", "output": f"zq-secret-{marker + 5}"}]},
    }


@pytest.mark.parametrize("shape", ["assert", "assert-loop", "humaneval", "call", "stdio"])
@pytest.mark.parametrize("probe", sorted(PROBES))
def test_expected_values_are_out_of_the_solutions_reach(verifier_url: str, probe: str,
                                                        shape: str):
    code = FINDER + PROBES[probe]
    if shape == "stdio":
        code += "probe()\nprint(_answer())\n"
    result = verify(verifier_url, code_item(code, _probe_tests(40 + 10 * sorted(PROBES).index(
        probe))[shape]))
    assert_no_reward(result)


# --------------------------------------------------------------------------- forged evidence
# The solution gives a wrong answer and tries to make the harness report a pass anyway.

NONCE_FORGER = r'''
import json, os, re, types
def _forge(frame):
    hexes, stack, seen = set(), [frame], set()
    while stack:
        o = stack.pop()
        if id(o) in seen or len(seen) > 100000:
            continue
        seen.add(id(o))
        try:
            if isinstance(o, str) and re.fullmatch("[0-9a-f]{32}", o):
                hexes.add(o)
            elif isinstance(o, types.FrameType):
                stack += [o.f_back, o.f_locals, o.f_globals]
            elif isinstance(o, dict):
                stack += list(o.values())
            elif isinstance(o, (list, tuple)):
                stack += list(o)
        except Exception:
            pass
    for nonce in hexes or {"0" * 32}:
        for fd in range(3, 64):
            try:
                os.write(fd, (json.dumps({"nonce": nonce, "passed": True, "value": 3,
                                          "done": True}) + "\n").encode())
            except OSError:
                pass
    os._exit(0)
'''

FORGERIES = {
    "record forged from a signal handler's frames": NONCE_FORGER + '''
import signal
signal.signal(signal.SIGUSR1, lambda sig, frame: _forge(frame))
def add(a, b):
    os.kill(os.getpid(), signal.SIGUSR1)
    return 0
''',
    "record forged from a timer signal": NONCE_FORGER + '''
import signal, time
signal.signal(signal.SIGALRM, lambda sig, frame: _forge(frame))
def add(a, b):
    signal.setitimer(signal.ITIMER_REAL, 0.001)
    end = time.monotonic() + 0.05
    while time.monotonic() < end:
        pass
    return 0
''',
    "record forged from a traceback": NONCE_FORGER + '''
import sys
def add(a, b):
    try:
        raise ValueError
    except ValueError:
        try:
            _forge(sys.exc_info()[2].tb_frame)
        except Exception:
            pass
    return 0
''',
    "record forged with guessed nonces on every descriptor": NONCE_FORGER + '''
_forge(None)
''',
    "record forged from an atexit hook": NONCE_FORGER + '''
import atexit
atexit.register(_forge, None)
def add(a, b):
    raise SystemExit(0)
''',
    "record forged from sys.excepthook": NONCE_FORGER + '''
import sys
sys.excepthook = lambda t, v, tb: _forge(tb.tb_frame if tb else None)
def add(a, b):
    raise RuntimeError("let the hook answer")
''',
    "record forged from threading.excepthook and unraisablehook": NONCE_FORGER + '''
import sys, threading
threading.excepthook = lambda args: _forge(None)
sys.unraisablehook = lambda u: _forge(None)
class Boom:
    def __del__(self):
        raise RuntimeError
def add(a, b):
    t = threading.Thread(target=lambda: 1 / 0)
    t.start()
    t.join()
    Boom()
    return 0
''',
    "harness's json encoder hijacked": '''
import json
class _Encoder(json.JSONEncoder):
    def encode(self, o):
        if isinstance(o, dict) and "nonce" in o:
            o = {"nonce": o["nonce"], "passed": True, "value": 3, "done": True}
        return super().encode(o)
json._default_encoder = _Encoder()
_dumps = json.dumps
json.dumps = lambda o, *a, **k: _Encoder().encode(o)
def add(a, b):
    return 0
''',
    "guards switched off from a signal handler": '''
import os, signal
class Liar:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __hash__(self): return 0
    def __bool__(self): return True
def _switch_off(sig, frame):
    while frame is not None:
        for space in (frame.f_globals, frame.f_locals):
            for name in list(space):
                if name.startswith("__v_"):
                    space[name] = ((lambda f, *a, **k: f(*a, **k)) if "call" in name
                                   else (lambda value: value))
        frame = frame.f_back
signal.signal(signal.SIGUSR1, _switch_off)
calls = []
def add(a, b):
    calls.append(1)
    if len(calls) == 1:  # the first answer is honest, and switches the guards off
        os.kill(os.getpid(), signal.SIGUSR1)
        return a + b
    return Liar()
''',
}


# Each `call` case runs in a fresh process, where an attack answering its first call honestly
# is an honest solution: those attacks are tried on the formats that call the solution again.
FIRST_CALL_HONEST = {"guards switched off from a signal handler"}


@pytest.mark.parametrize("shape", ["assert", "call", "humaneval", "mbpp"])
@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_the_evidence_of_a_pass_cannot_be_forged(verifier_url: str, forgery: str, shape: str):
    if shape == "call" and forgery in FIRST_CALL_HONEST:
        pytest.skip("an honest first answer is an honest solution here")
    assert_no_reward(verify(verifier_url, code_item(FORGERIES[forgery], ADD_TESTS[shape])))


# --------------------------------------------------------------------------- clean names

SHADOWS = {
    "abs defined by the solution": (STATS_TESTS, STATS.replace("/ len(xs)", "* 0.0") +
                                    "def abs(x):\n    return 0\n"),
    "sorted, len, max and min defined by the solution": (STATS_TESTS, (
        "def top3(xs):\n    return xs\ndef mean(xs):\n    return 2.0\n"
        "def sorted(xs):\n    return [5, 7, 9]\nlen = lambda xs: 3\n"
        "max = lambda xs: 8\nmin = lambda xs: 2\n")),
    "isinstance, str and repr rebound": ({"assert": {"type": "assert", "code": (
        "assert str(shout('a')) == 'A!'\nassert isinstance(shout('b'), str)\n"
        "assert repr(shout('c')) == \"'C!'\"\n")}}, (
        "def shout(s):\n    return 5\nstr = lambda x: 'A!'\nisinstance = lambda *a: True\n"
        "repr = lambda x: \"'C!'\"\n")),
    "builtins module patched": (STATS_TESTS, (
        "import builtins\nbuiltins.sorted = lambda xs: [5, 7, 9]\nbuiltins.abs = lambda x: 0\n"
        "builtins.len = lambda x: 3\nbuiltins.max = lambda x: 8\nbuiltins.min = lambda x: 2\n"
        "builtins.isinstance = lambda *a: True\n"
        "def top3(xs):\n    return []\ndef mean(xs):\n    return 0\n")),
    "__builtins__ rebound": (STATS_TESTS, (
        "import builtins\n__builtins__ = dict(vars(builtins), sorted=lambda xs: [5, 7, 9],"
        " abs=lambda x: 0, len=lambda x: 3, max=lambda x: 8, min=lambda x: 2,"
        " isinstance=lambda *a: True)\n"
        "globals()['__builtins__'] = __builtins__\n"
        "def top3(xs):\n    return []\ndef mean(xs):\n    return 0\n")),
    "math replaced by a fake": (CIRCLE_TESTS, (
        "class Fake:\n    isclose = staticmethod(lambda *a, **k: True)\n    pi = 0\n"
        "math = Fake()\ndef circle_area(r):\n    return 0\n")),
    "math defined as a class": (CIRCLE_TESTS, (
        "class math:\n    isclose = staticmethod(lambda *a, **k: True)\n"
        "def circle_area(r):\n    return 0\n")),
    "math.isclose patched in the module object": (CIRCLE_TESTS, (
        "import math\nmath.isclose = lambda *a, **k: True\n"
        "math.__dict__['isclose'] = math.isclose\ndef circle_area(r):\n    return 0\n")),
    "sys.modules tampered": (CIRCLE_TESTS, (
        "import sys, types\nfake = types.ModuleType('math')\n"
        "fake.isclose = lambda *a, **k: True\nsys.modules['math'] = fake\nmath = fake\n"
        "def circle_area(r):\n    return 0\n")),
    "Counter's equality patched": (COUNT_TESTS, (
        "import collections\ncollections.Counter.__eq__ = lambda self, other: True\n"
        "def letters(s):\n    return {}\n")),
}


@pytest.mark.parametrize("case", sorted(SHADOWS))
def test_the_tests_see_the_real_builtins_and_modules(verifier_url: str, case: str):
    shapes, solution = SHADOWS[case]
    for tests in shapes.values():
        assert_no_reward(verify(verifier_url, code_item(solution, tests)))


def test_the_solutions_own_functions_and_classes_stay_visible(verifier_url: str):
    solution = ("import math\nclass Shape:\n    def __init__(self, r):\n        self.r = r\n"
                "    def area(self):\n        return math.pi * self.r ** 2\n"
                "def make(r):\n    return Shape(r)\nLIMIT = 10\n"
                "def gen(n):\n    yield from range(n)\n")
    tests = ("assert round(Shape(1).area(), 2) == 3.14\nassert make(2).r == 2\n"
             "assert LIMIT == 10\nassert list(gen(3)) == [0, 1, 2]\n"
             "assert math.isclose(make(1).area(), math.pi)\n"
             "from solution import make as m\nassert m(3).r == 3\n")
    result = verify(verifier_url, code_item(solution, {"type": "assert", "code": tests}))
    assert (result["status"], result["reward"]) == ("correct", 1.0), result


# --------------------------------------------------------------------------- lying values

LIARS = {
    "always-equal object": ("""
class Liar:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return True
    __le__ = __gt__ = __ge__ = __lt__
    def __hash__(self): return 0
    def __bool__(self): return True
    def __len__(self): return 3
    def __contains__(self, item): return True
    def __sub__(self, other): return 0
    __rsub__ = __sub__
    def __abs__(self): return 0
    def __float__(self): return 314.159
    def __index__(self): return 3
    def __repr__(self): return "'HI!'"
    __str__ = __repr__
    def __iter__(self): return iter([5, 7, 9])
LIAR = Liar()
def add(a, b): return LIAR
def top3(xs): return LIAR
def mean(xs): return LIAR
def shout(s): return LIAR
def circle_area(r): return LIAR
def letters(s): return LIAR
""", ["add", "stats", "word", "circle", "count"]),
    "int subclass": ("class Int(int):\n    def __eq__(self, other): return True\n"
                     "    __hash__ = int.__hash__\n"
                     "def add(a, b):\n    return Int(0)\n", ["add"]),
    "str subclass": ("class Str(str):\n    def __eq__(self, other): return True\n"
                     "    __hash__ = str.__hash__\n    def __str__(self): return 'A!'\n"
                     "def shout(s):\n    return Str('no')\n", ["word"]),
    "list subclass": ("class List(list):\n    def __eq__(self, other): return True\n"
                      "def top3(xs):\n    return List()\ndef mean(xs):\n    return 0.0\n",
                      ["stats"]),
    "float subclass and __float__": (
        "class F(float):\n    def __eq__(self, other): return True\n"
        "    def __sub__(self, other): return 0.0\n    __rsub__ = __sub__\n"
        "class G:\n    def __float__(self): return 314.159\n"
        "def circle_area(r):\n    return G() if r == 10 else F(0)\n"
        "def mean(xs):\n    return F(0)\ndef top3(xs):\n    return [5, 7, 9]\n",
        ["circle", "stats"]),
    "dict subclass with a lying items view": (
        "class D(dict):\n    def __eq__(self, other): return True\n"
        "    def items(self): return {'a': 2, 'b': 1, 'c': 1}.items()\n"
        "def letters(s):\n    return D()\n", ["count"]),
    "object whose __class__ says int": (
        "class Fake:\n    __class__ = int\n    def __eq__(self, other): return True\n"
        "    def __hash__(self): return 3\n"
        "def add(a, b):\n    return Fake()\n", ["add"]),
}


@pytest.mark.parametrize("liar", sorted(LIARS))
def test_lying_values_earn_nothing(verifier_url: str, liar: str):
    solution, problems = LIARS[liar]
    for problem in problems:
        for tests in PROBLEMS[problem][1].values():
            assert_no_reward(verify(verifier_url, code_item(solution, tests)))


# --------------------------------------------------------------------------- descriptors

DESCRIPTOR_ABUSE = {
    "deep brackets on every descriptor, then exit": (
        "import os\nfor fd in range(3, 256):\n    try:\n"
        "        os.write(fd, b'[' * 100000 + b'\\n')\n    except OSError:\n        pass\n"
        "os._exit(0)\n"),
    "deep brackets inside a nonce record": (
        "import os\nline = b'{\"nonce\": ' + b'[' * 50000 + b'\\n'\n"
        "for fd in range(3, 256):\n    try:\n        os.write(fd, line)\n"
        "    except OSError:\n        pass\nos._exit(0)\n"),
    "binary garbage and a forged length": (
        "import os, struct\njunk = struct.pack('>I', 0xFFFFFFF0) + bytes(range(256)) * 64\n"
        "for fd in range(3, 256):\n    try:\n        os.write(fd, junk)\n"
        "    except OSError:\n        pass\n"
        "def add(a, b):\n    return a + b\n"),
    "a flood on every descriptor": (
        "import os\nblock = b'x' * (1 << 20)\nfor fd in range(3, 256):\n    try:\n"
        "        for _ in range(40):\n            os.write(fd, block)\n"
        "    except OSError:\n        pass\n"
        "def add(a, b):\n    return a + b\n"),
    "descriptors swapped and closed": (
        "import os\nfor fd in range(3, 256):\n    try:\n        os.dup2(1, fd)\n"
        "    except OSError:\n        pass\nos.closerange(0, 3)\n"
        "def add(a, b):\n    return a + b\n"),
    "valid-looking records with wrong types": (
        "import os, json\nfor rec in ({'nonce': {'a': 1}, 'passed': True}, {'nonce': None},"
        " ['nonce'], {'nonce': 'x' * 32, 'passed': 'yes'}, 1e999):\n"
        "    for fd in range(3, 256):\n        try:\n"
        "            os.write(fd, (json.dumps(rec) + '\\n').encode())\n"
        "        except OSError:\n            pass\nos._exit(0)\n"),
}


@pytest.mark.parametrize("shape", ["assert", "call", "humaneval"])
@pytest.mark.parametrize("abuse", sorted(DESCRIPTOR_ABUSE))
def test_inherited_descriptors_carry_no_verdict(verifier_url: str, abuse: str, shape: str):
    code = DESCRIPTOR_ABUSE[abuse]
    if "def add" not in code:
        code += "def add(a, b):\n    return a + b\n"
    assert_no_reward(verify(verifier_url, code_item(code, ADD_TESTS[shape])))


# --------------------------------------------------------------------------- infra_error

STDIO_ADD = {"type": "stdio", "cases": [{"input": "1 2\n", "output": "3\n"}]}
OWN_FAULTS = {
    "C with a 200 MiB initialised array": (
        "c", "#include <stdio.h>\nchar big[200 << 20] = {1};\n"
        "int main(void){int a,b;scanf(\"%d %d\",&a,&b);printf(\"%d\\n\",a+b+big[0]%2-1);}\n",
        STDIO_ADD),
    "C++ with a 200 MiB initialised array": (
        "cpp", "#include <cstdio>\nchar big[200 << 20] = {1};\n"
        "int main(){int a,b;std::scanf(\"%d %d\",&a,&b);std::printf(\"%d\\n\",a+b+big[0]-1);}\n",
        STDIO_ADD),
    "python killing every process it can": (
        "python", "import os, signal\ndef add(a, b):\n    os.kill(-1, signal.SIGKILL)\n",
        ADD_TESTS["assert"]),
    "python crashing its interpreter": (
        "python", "import sys\nsys.setrecursionlimit(10 ** 7)\n"
        "def add(a, b):\n    return add(a, b) + 1\n", ADD_TESTS["call"]),
    "python stopping its parent": (
        "python", "import os, signal\ndef add(a, b):\n    os.kill(os.getppid(), signal.SIGSTOP)\n"
        "    return 0\n", {**ADD_TESTS["assert"]}),
    "python exhausting memory": (
        "python", "def add(a, b):\n    hog = []\n    while True:\n"
        "        hog.append(bytearray(1 << 24))\n", ADD_TESTS["humaneval"]),
    "python returning a value nested without end": (
        "python", "def add(a, b):\n    x = []\n    for _ in range(100000):\n        x = [x]\n"
        "    return x\n", ADD_TESTS["call"]),
    "python returning a cycle": (
        "python", "def add(a, b):\n    x = []\n    x.append(x)\n    return x\n",
        ADD_TESTS["assert"]),
    "python returning an enormous value": (
        "python", "def add(a, b):\n    return 'x' * (300 << 20)\n", ADD_TESTS["assert"]),
}


@pytest.mark.parametrize("case", sorted(OWN_FAULTS))
def test_a_submissions_own_failure_is_never_an_infra_error(verifier_url: str, case: str):
    language, code, tests = OWN_FAULTS[case]
    item = {**code_item(code, tests, language), "limits": {"time_s": 2, "memory_mb": 256}}
    assert_no_reward(verify(verifier_url, item))


# Every signal that ends a process by default, sent to the program's process group while the
# program itself ignores them, then SIGKILL: nothing outside the run may be in that group.
GROUP_SIGNALLER = (
    "import os, signal\n"
    "SIGNALS = [signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2,\n"
    "           signal.SIGALRM, signal.SIGXCPU, signal.SIGQUIT]\n"
    "for s in SIGNALS:\n"
    "    signal.signal(s, signal.SIG_IGN)\n"
    "for s in SIGNALS:\n"
    "    os.killpg(0, s)\n"
    "os.killpg(0, signal.SIGKILL)\n"
)
GROUP_SIGNALLING_ADD = "def add(a, b):\n" + textwrap.indent(GROUP_SIGNALLER, "    ")
GROUP_SIGNALLERS = {
    "stdio": ("python", GROUP_SIGNALLER, STDIO_ADD),
    "call": ("python", GROUP_SIGNALLING_ADD, ADD_TESTS["call"]),
    "assert": ("python", GROUP_SIGNALLING_ADD, ADD_TESTS["assert"]),
    "C": ("c", "#include <signal.h>\nint main(void){int s[] = {SIGHUP, SIGINT, SIGTERM, SIGUSR1,"
               " SIGALRM, SIGXCPU, SIGKILL};\nfor (int i = 0; i < 6; i++) signal(s[i], SIG_IGN);\n"
               "for (int i = 0; i < 7; i++) kill(0, s[i]);\nreturn 0;}\n", STDIO_ADD),
}


@pytest.mark.parametrize("shape", sorted(GROUP_SIGNALLERS))
def test_signalling_its_process_group_reaches_nothing_outside_the_run(verifier_url: str,
                                                                       shape: str):
    # Whether a signal met the jail's own processes was a race: eight tries (distinct programs,
    # or the result cache would answer seven of them).
    language, code, tests = GROUP_SIGNALLERS[shape]
    comment = "//" if language == "c" else "#"
    items = [{**code_item(f"{code}{comment} try {i}\n", tests, language), "limits": {"time_s": 2}}
             for i in range(8)]
    response = httpx.post(f"{verifier_url}/v1/verify", json={"items": items}, timeout=120)
    assert response.status_code == 200, response.text
    for result in response.json()["results"]:
        assert_no_reward(result)
    assert verify(verifier_url, code_item(ADD, ADD_TESTS["call"]))["reward"] == 1.0


def test_an_oversized_program_is_a_compile_error_every_time_it_is_compiled():
    # A fresh runner forgets the compile failure and compiles again: what the failed store of
    # the first compile left in the jail's cache must not turn the second into an infra_error.
    language, code, tests = OWN_FAULTS["C with a 200 MiB initialised array"]
    item = CodeItem(language=language, response=code.replace("{1}", "{2}"), tests=tests)
    for _ in range(2):
        settings = process_settings()
        result = CodeRunner(get_backend(settings), settings).run_items([item])[0]
        assert (result.status.value, result.reward) == ("compile_error", 0.0), result


# --------------------------------------------------------------------------- tracebacks

@pytest.mark.parametrize("shape", ["assert", "call", "humaneval", "mbpp"])
def test_the_solutions_exception_keeps_its_traceback(verifier_url: str, shape: str):
    code = "def helper(x):\n    raise ValueError(f'boom {x}')\ndef add(a, b):\n" \
           "    return helper(a)\n"
    result = verify(verifier_url, code_item(code, ADD_TESTS[shape]))
    assert (result["status"], result["reward"]) == ("runtime_error", 0.0), result
    test = result["detail"]["tests"][0]
    assert "SIG" not in test.get("message", ""), test
    assert "ValueError: boom 1" in test["stderr"], test
    assert 'solution.py", line 2, in helper' in test["stderr"], test
    assert 'line 4, in add' in test["stderr"], test


def test_the_judging_process_cannot_be_traced_by_the_solution(verifier_url: str):
    # Even native code (a fresh interpreter, outside any audit hook) cannot attach to the process
    # that judges: it is not dumpable, and the solution holds no capability.
    attach = ("import subprocess, sys\n"
              "PROBE = '''\nimport ctypes, os, sys\nlibc = ctypes.CDLL(None, use_errno=True)\n"
              "pid = int(sys.argv[1])\nfor target in (pid, 1):\n"
              "    if libc.ptrace(16, target, 0, 0) == 0:\n        print('ATTACHED', target)\n"
              "        sys.exit()\nprint(os.strerror(ctypes.get_errno()))\n'''\n"
              "def attach():\n"
              "    import os\n"
              "    out = subprocess.run([sys.executable, '-c', PROBE, str(os.getppid())],\n"
              "                         capture_output=True, text=True)\n"
              "    return out.stdout.strip() or out.stderr.strip()[-200:]\n")
    # In a loop, the tests stay in the judge: the solution's parent is the judge (a call test,
    # or asserts that are only calls, would run in one process with no judge to attach to).
    tests = "for _ in range(1):\n    assert attach() == 'Operation not permitted'\n"
    assert plan(tests).calls is None
    result = verify(verifier_url, code_item(attach, {"type": "assert", "code": tests}))
    assert (result["status"], result["reward"]) == ("correct", 1.0), result
