"""Reward hacks: each one fails, while the honest solution to the same task passes."""

from __future__ import annotations

import shutil

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.kinds.code import run_code_items

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

HONEST = "def add(a, b):\n    return a + b\n"
CALL = {"type": "call", "fn_name": "add", "cases": [{"args": [1, 2], "expected": 3},
                                                    {"args": [0.1, 0.2], "expected": 0.3}]}
ASSERT = {"type": "assert", "code": "assert add(1, 2) == 3\nassert add(2, 2) != 5\n"}
HUMANEVAL = {"test": "import math\n\ndef check(candidate):\n    assert candidate(1, 2) == 3\n"
                     "    assert abs(candidate(0.1, 0.2) - 0.3) < 1e-9\n"
                     "    assert math.isclose(candidate(1.5, 1.5), 3.0)\n"
                     "    assert len(str(candidate(10, 5))) == 2\n"
                     "    assert candidate(2, 2)\n",
             "entry_point": "add"}
FORMATS = {"call": CALL, "assert": ASSERT, "humaneval": HUMANEVAL}

ALWAYS_EQUAL = """
class Liar:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return True
    __le__ = __gt__ = __ge__ = __lt__
    def __bool__(self): return True
    def __abs__(self): return 0
    def __sub__(self, other): return 0
    __rsub__ = __sub__
    def __float__(self): return 3.0
    def __len__(self): return 2
    def __str__(self): return "15"
    def __hash__(self): return 0
def add(a, b):
    return Liar()
"""
SUBCLASSED_INT = """
class Int(int):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = int.__hash__
def add(a, b):
    return Int(0)
"""
HACKS = {
    "always-equal object": ALWAYS_EQUAL,
    "int subclass with a lying __eq__": SUBCLASSED_INT,
    "sys.exit(0) before the tests": "import sys\nsys.exit(0)\n" + HONEST,
    "os._exit(0) before the tests": "import os\nos._exit(0)\n",
    "os._exit(0) inside the function": "import os\ndef add(a, b):\n    os._exit(0)\n",
    "SystemExit inside the function": "def add(a, b):\n    raise SystemExit(0)\n",
    "atexit hook then exit": "import atexit, os\natexit.register(lambda: os._exit(0))\n"
                             "def add(a, b):\n    raise SystemExit(0)\n",
    "patching builtins": "import builtins, math\nbuiltins.abs = lambda x: 0\n"
                         "builtins.len = lambda x: 2\nmath.isclose = lambda *a, **k: True\n"
                         "def add(a, b):\n    return -1\n",
    "reading the caller's frame": "import sys\ndef add(a, b):\n    f = sys._getframe(1)\n"
                                  "    return f.f_locals\n",
    "walking frames from a traceback": "def add(a, b):\n    try:\n        1 / 0\n"
                                       "    except ZeroDivisionError as e:\n"
                                       "        return e.__traceback__.tb_frame.f_back.f_locals\n",
    "reaching the harness through gc": "import gc\ndef add(a, b):\n"
                                       "    return len(gc.get_objects())\n",
    "ctypes": "import ctypes\nlibc = ctypes.CDLL(None)\n" + HONEST,
    "rewriting the harness's code": (
        "import sys, types\nfor m in list(sys.modules.values()):\n"
        "    if '/opt/verifier' in (getattr(m, '__file__', None) or ''):\n"
        "        for f in list(vars(m).values()):\n            try:\n"
        "                f.__code__ = (lambda *a, **k: True).__code__\n"
        "            except Exception:\n                pass\n"
        "def add(a, b):\n    return 0\n"),
    "forging the harness record": "import os, json\nos.write(3, json.dumps({'passed': True, "
                                  "'value': 3, 'nonce': 'guess'}).encode() + b'\\n')\n"
                                  "os._exit(0)\n",
    "killing itself after printing": "import os, signal\nprint('3')\n"
                                     "os.kill(os.getpid(), signal.SIGKILL)\n",
}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_honest_solution_passes(fmt: str):
    result = run_code_items([CodeItem(language="python", response=HONEST,
                                      tests=FORMATS[fmt])])[0]
    assert (result.status.value, result.reward) == ("correct", 1.0), result


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("hack", sorted(HACKS))
def test_reward_hack_fails(hack: str, fmt: str):
    result = run_code_items([CodeItem(language="python", response=HACKS[hack],
                                      tests=FORMATS[fmt])])[0]
    assert result.reward == 0.0, (hack, fmt, result)
    assert result.status.value in ("wrong", "runtime_error"), result


def test_stdio_early_exit_and_printing_without_computing():
    tests = {"type": "stdio", "cases": [{"input": "2 3\n", "output": "5\n"},
                                        {"input": "10 20\n", "output": "30\n"}]}
    memorised = CodeItem(language="python", response="print(5)", tests=tests)
    assert run_code_items([memorised])[0].status.value == "wrong"
    crash_after = CodeItem(language="python", response="a, b = map(int, input().split())\n"
                           "print(a + b, flush=True)\nimport os\nos.kill(os.getpid(), 9)\n",
                           tests=tests)
    assert run_code_items([crash_after])[0].status.value == "runtime_error"
    c_abort = CodeItem(language="c", response="#include <stdio.h>\n#include <stdlib.h>\n"
                       "int main(){int a,b;scanf(\"%d %d\",&a,&b);printf(\"%d\\n\",a+b);"
                       "fflush(stdout);abort();}", tests=tests)
    assert run_code_items([c_abort])[0].status.value == "runtime_error"


# Searches every file the program can read, and its own memory (what its process was handed:
# a payload, the harness's state), for the marker; `answer` is what it finds.
FINDER = """
import os, re, sys
found = []
pattern = re.compile(b'zq-' + b'expected-[0-9]+')
for root in ('/tmp', '/opt/verifier', '/etc', '/dev/shm', '/proc'):
    for base, _, files in os.walk(root):
        for name in files:
            try:
                with open(os.path.join(base, name), 'rb') as f:
                    found += pattern.findall(f.read())
            except OSError:
                pass
try:
    with open('/proc/self/maps') as maps, open('/proc/self/mem', 'rb', 0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            start, end = (int(x, 16) for x in span.split('-'))
            if perms[0] == 'r' and end - start < 1 << 28:
                try:
                    mem.seek(start)
                    found += pattern.findall(mem.read(end - start))
                except (OSError, ValueError, OverflowError):
                    pass
except OSError:
    pass
found += pattern.findall(sys.stdin.buffer.read())
answer = found[0].decode() if found else 'nothing'
"""


def test_expected_outputs_never_enter_the_jail():
    # Were the expected output anywhere in the jail (a file, the program's own memory), the
    # program would find it and print (or return) it, and pass.
    marker = "zq-expected-91"
    finder = FINDER
    for tests in ({"type": "stdio", "cases": [{"input": "", "output": marker}]},
                  {"type": "call", "fn_name": "f", "cases": [{"args": [], "expected": marker}]},
                  {"type": "assert", "code": f"assert f() == {marker!r}\n"}):
        code = finder + ("print(answer)\n" if tests["type"] == "stdio"
                         else "def f():\n    return answer\n")
        # It reads every file of /etc: on a cold page cache, under load, that takes seconds.
        result = run_code_items([CodeItem(language="python", response=code, tests=tests,
                                          limits={"time_s": 10})])[0]
        assert result.status.value == "wrong", result
    # The control: where the marker is within the probe's reach, the probe finds and prints it.
    planted = ("with open('/tmp/planted', 'w') as f:\n    f.write('zq-' + 'expected-91')\n"
               + finder + "print(answer)\n")
    control = CodeItem(language="python", response=planted, tests={
        "type": "stdio", "cases": [{"input": "", "output": marker}]})
    assert run_code_items([control])[0].status.value == "correct"
