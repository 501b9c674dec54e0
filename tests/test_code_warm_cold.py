"""The warm Python path (a fork of the slot's interpreter) and the cold path (a fresh
interpreter per run) give identical verdicts, and a warm run cannot affect later runs."""

from __future__ import annotations

import shutil

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.config import Settings
from verifier.kinds.code import run_code_items

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


def stdio(code: str, stdin: str = "", expected: str = "", **limits) -> CodeItem:
    return CodeItem(language="python", response=code, limits=limits or {"time_s": 2},
                    tests={"type": "stdio", "cases": [{"input": stdin, "output": expected}]})


SUM = "a, b = map(int, input().split())\n"
CORPUS = [
    stdio(SUM + "print(a + b)", "1 2\n", "3\n"),
    stdio(SUM + "print(a * b)", "1 2\n", "3\n"),
    stdio(SUM + "print(a + b)\nraise ValueError('late')", "1 2\n", "3\n"),
    stdio("print(1 +", "", "1\n"),
    stdio("while True:\n    pass", time_s=0.5),
    stdio("x = bytearray(10**10)"),
    stdio("while True:\n    print('y' * 1000)"),
    stdio(SUM + "print(a + b)\nimport sys\nsys.exit(3)", "1 2\n", "3\n"),
    stdio(SUM + "print(a + b)\nexit()", "1 2\n", "3\n"),
    stdio(SUM + "import atexit\natexit.register(lambda: print(a + b))", "1 2\n", "3\n"),
    stdio(SUM + "import os\nprint(a + b)\nos._exit(0)", "1 2\n", "3\n"),
    stdio("input()", "", ""),
    stdio("import sys\nsys.setrecursionlimit(100000)\ndef d(n):\n    return 0 if n == 0 else "
          "1 + d(n - 1)\nprint(d(20000))", "", "20000\n"),
    stdio("import threading\nout = []\nts = [threading.Thread(target=lambda i=i: out.append(i))"
          " for i in range(8)]\n[t.start() for t in ts]\n[t.join() for t in ts]\n"
          "print(sum(out))", "", "28\n"),
    stdio("import sys\ndata = sys.stdin.buffer.read()\nprint(len(data), 'héllo')", "abc",
          "3 héllo\n"),
    stdio("import random\nprint(random.random() != random.random())", "", "True\n"),
    stdio("import time\ntime.sleep(5)", time_s=0.5),
    CodeItem(language="python", response="def f(x):\n    return x * 2\n",
             tests={"type": "call", "fn_name": "f", "cases": [{"args": [2], "expected": 4}]}),
    CodeItem(language="python", response="def f(x):\n    return x * 3\n",
             tests={"type": "call", "fn_name": "f", "cases": [{"args": [2], "expected": 4}]}),
    CodeItem(language="python", response="def f(x):\n    return x / 0\n",
             tests={"type": "call", "fn_name": "f", "cases": [{"args": [2], "expected": 4}]}),
    CodeItem(language="python", response="import ctypes\ndef f(x):\n    return 2 * x\n",
             tests={"type": "assert", "code": "assert f(2) == 4\n"}),
    CodeItem(language="python", response="def f(x):\n    return 2 * x\n",
             tests={"type": "assert", "code": "assert f(2) == 4\nassert f(3) == 6\n"}),
    CodeItem(language="python", response="class A:\n    def __eq__(s, o):\n        return True\n"
             "def f(x):\n    return A()\n", tests={"type": "assert", "code": "assert f(2) == 4"}),
]


def verdicts(**settings: object) -> list[tuple[str, float | None]]:
    return [(r.status.value, r.reward) for r in run_code_items(CORPUS, Settings(**settings))]


def test_warm_and_cold_verdicts_are_identical():
    warm = verdicts(python_warm=True)
    cold = verdicts(python_warm=False)
    assert warm == cold
    # a fresh runner for every run
    assert verdicts(python_warm=True, sandbox_runner_runs=1) == warm
    statuses = {status for status, _ in warm}
    assert statuses >= {"correct", "wrong", "runtime_error", "compile_error", "timeout",
                        "memory_limit", "output_limit"}


def test_the_two_paths_really_differ():
    # Modules the warm interpreter preloaded are already imported in a warm run only.
    probe = stdio("import sys\nprint('heapq' in sys.modules)", "", "True\n")
    assert run_code_items([probe], Settings(python_warm=True))[0].status.value == "correct"
    assert run_code_items([probe], Settings(python_warm=False))[0].status.value == "wrong"


def test_a_warm_run_cannot_leave_state_for_the_next():
    poison = stdio("import builtins, sys, os, heapq, json\nbuiltins.print = None\n"
                   "heapq.heappush = None\njson.dumps = None\nsys.modules['math'] = None\n"
                   "open('/tmp/marker', 'w').write('x')\nos.environ['POISON'] = '1'\n"
                   "import threading, time\nthreading.Thread(target=time.sleep, args=(60,),"
                   " daemon=True).start()\n", "", "")
    check = stdio("import os, heapq, math, json\nh = []\nheapq.heappush(h, 1)\n"
                  "print(os.path.exists('/tmp/marker'), 'POISON' in os.environ, h, "
                  "math.sqrt(4), json.dumps(1))", "", "False False [1] 2.0 1\n")
    results = run_code_items([poison, check], Settings(python_warm=True))
    assert [r.status.value for r in results] == ["correct", "correct"], results


def test_every_warm_run_draws_a_fresh_random_seed():
    # Runs fork from one interpreter: without a reseed in each fork they would all draw the
    # numbers that interpreter's generator holds.
    draws = [stdio(f"import random, sys\nprint(random.getrandbits(64), file=sys.stderr)  # {i}")
             for i in range(4)]
    results = run_code_items(draws, Settings(python_warm=True))
    drawn = [r.detail["tests"][0]["stderr"] for r in results]
    assert all(drawn) and len(set(drawn)) == len(drawn), drawn
