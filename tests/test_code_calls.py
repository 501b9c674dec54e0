"""Tests that are only calls run in one process (the harness's `calls` mode): a `call` test, and
assert tests that are only calls of the solution's function with literal arguments
(asserts.AssertPlan.calls). Which tests qualify, that they are judged as the judge would judge
them, and that nothing a solution does in that process (reading the run's nonce, writing
records of its own, exiting early) earns a reward."""

from __future__ import annotations

import json
import shutil

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.kinds.code import run_code_items
from verifier.kinds.code.asserts import Call, plan

needs_jail = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

HUMANEVAL = ('\n\nMETADATA = {"author": "jt", "dataset": "test"}\n\n\ndef check(candidate):\n'
             '    """Docstring."""\n    import math\n    assert candidate(17, 25) == 42\n'
             '    assert candidate(a=-1000, b=1) == -999, "message"\n'
             '    assert abs(candidate(0.5, 0.25) - 0.75) < 1e-6\n'
             '    assert True, "This prints if this assert fails (good for debugging!)"\n\n\n'
             'check(add)\n')
# MultiPL-E's Python: HumanEval's check, called through a wrapper of its own.
MULTIPLE = HUMANEVAL.replace("check(add)\n", "def test_check():\n    check(add)\n\ntest_check()\n")
MBPP = ("assert add(17, 25) == 42\nassert add(a=-1000, b=1) == -999\n"
        "assert add(0.5, 0.25) != 1\n")
CALLS = (Call("add", (17, 25), {}), Call("add", (), {"a": -1000, "b": 1}),
         Call("add", (0.5, 0.25), {}))

# Tests that are more than calls: they keep their two processes (the tests run in the judge).
NOT_ONLY_CALLS = {
    "a loop": "def check(c):\n    for x in range(2):\n        assert c(x) == x\n\ncheck(add)\n",
    "an argument that is not a constant": "def check(c):\n    assert c(len('ab'), 1) == 3\n\n"
                                          "check(add)\n",
    "repeated copies that would alias": "def check(c):\n    assert c([[0]] * 2, []) == 1\n\n"
                                        "check(add)\n",
    "a name as argument": "x = [1]\nassert add(x, 1) == 2\n",
    "a helper of the tests": "def ref(a, b):\n    return a + b\n\n"
                             "def check(c):\n    assert c(1, 2) == 3\n\ncheck(add)\n",
    "the candidate rebound": "def check(c):\n    c = len\n    assert c(1, 2) == 3\n\n"
                             "check(add)\n",
    "the candidate imported over": "def check(c):\n    import math as c\n"
                                   "    assert c(1, 2) == 3\n\ncheck(add)\n",
    "the function bound by the tests": "from operator import add\nassert add(1, 2) == 3\n",
    "a builtin's name": "assert sum(1, 2) == 3\n",
    "two functions": "assert add(1, 2) == 3\nassert sub(1, 2) == -1\n",
    "check called twice": "def check(c):\n    assert c(1, 2) == 3\n\ncheck(add)\ncheck(add)\n",
    "check called with two arguments": "def check(c, d):\n    assert c(1, 2) == 3\n\n"
                                       "check(add, add)\n",
    "a decorated check": "@staticmethod\ndef check(c):\n    assert c(1, 2) == 3\n\ncheck(add)\n",
    "a starred argument": "assert add(*[1, 2]) == 3\n",
    "an assert the worker cannot judge": "def check(c):\n    assert c(1, 2) == c(2, 1)\n\n"
                                         "check(add)\n",
    "a statement with effects": "def check(c):\n    print('hi')\n    assert c(1, 2) == 3\n\n"
                                "check(add)\n",
    "check rebound": "def check(c):\n    assert c(1, 2) == 3\n\ncheck = 3\ncheck(add)\n",
    "a default of check": "def check(c=print):\n    assert c(1, 2) == 3\n\ncheck(add)\n",
    "an annotation of check": "def check(c: print(1)):\n    assert c(1, 2) == 3\n\n"
                              "check(add)\n",
    "an assert in an if": "def check(c):\n    if True:\n        assert c(1, 2) == 3\n\n"
                          "check(add)\n",
    "a wrapper doing more": MULTIPLE.replace("    check(add)\n",
                                             "    check(add)\n    check(add)\n"),
    "a wrapper taking arguments": MULTIPLE.replace("def test_check():", "def test_check(x=print):"),
    "a wrapper rebound": MULTIPLE.replace("test_check()\n", "test_check = check\ntest_check()\n"),
    "a wrapper calling something else": MULTIPLE.replace("    check(add)", "    print(add)"),
}


def test_humaneval_and_mbpp_shapes_are_only_calls():
    assert plan(HUMANEVAL).calls == CALLS
    assert plan(HUMANEVAL).mode == "calls"
    assert plan(MBPP).calls == CALLS
    assert plan(MULTIPLE).calls == CALLS


# HumanEval's constant expressions (HumanEval/4, 8, 16, 25, 31): the worker computes them.
FOLDED = ("def check(candidate):\n"
          "    assert abs(candidate(2.0, 2.0 / 3.0) - (2.0 + 2.0 / 3.0)) < 1e-6\n"
          "    assert candidate(3 * 19, 3 * 19 * 3) == 3 * 19 + 3 * 19 * 3\n"
          "    assert candidate('abcde' + 'cade', 'x' * 3) == 'abcdecade' + 'xxx'\n"
          "    assert candidate([3, 5] + [7], [-1] * 2) == [3, 5, 7, -1, -1]\n"
          "    assert candidate((3 + 5 + 7, 3 * 5 * 7), ()) == (15, 105)\n\n"
          "check(add)\n")


def test_constant_expressions_are_computed_by_the_worker():
    tests = plan(FOLDED)
    assert tests.calls == (Call("add", (2.0, 2.0 / 3.0), {}), Call("add", (57, 171), {}),
                           Call("add", ("abcdecade", "xxx"), {}),
                           Call("add", ([3, 5, 7], [-1, -1]), {}),
                           Call("add", ((15, 105), ()), {}))
    payload = json.dumps(tests.payload())
    for expected in ("228", "2.6666", "abcdecadexxx", "assert"):
        assert expected not in payload


@needs_jail
def test_constant_expressions_are_judged_as_python_would():
    assert _run(HONEST, FOLDED).reward == 1.0
    wrong = _run("def add(a, b):\n    return a + b if a != 57 else 227\n", FOLDED)
    assert wrong.status.value == "wrong"
    assert wrong.detail["tests"][0]["message"] == "AssertionError at line 3 of the tests"


# HumanEval's truth asserts (HumanEval/52, 56, 61): the worker tests the value's truth.
TRUTHS = ("def check(candidate):\n    assert candidate('(())')\n"
          "    assert not candidate(')(')\n    assert candidate('()' * 3)\n\ncheck(balanced)\n")
BALANCED = ("def balanced(s):\n    depth = 0\n    for c in s:\n"
            "        depth += 1 if c == '(' else -1\n        if depth < 0:\n"
            "            return {answer_false}\n    return {answer}\n")


@needs_jail
@pytest.mark.parametrize(("answer", "answer_false", "reward"), [
    ("depth == 0", "False", 1.0),
    ("[1] if depth == 0 else []", "''", 1.0),  # truth as Python tests it
    ("True", "True", 0.0),  # `assert not` fails
    ("Liar()", "Liar()", 0.0),  # a lying __bool__ never runs where the tests decide
])
def test_the_truth_of_a_value_is_judged_by_the_worker(answer: str, answer_false: str,
                                                     reward: float):
    assert plan(TRUTHS).calls == (Call("balanced", ("(())",), {}),
                                  Call("balanced", (")(",), {}),
                                  Call("balanced", ("()()()",), {}))
    liar = ("class Liar:  # passes the asserts in plain Python\n    def __bool__(self):\n"
            "        return LIES.pop()\n\nLIES = [True, False, True]\n")
    result = _run(liar + BALANCED.format(answer=answer, answer_false=answer_false), TRUTHS)
    assert result.reward == reward and result.status.value in ("correct", "wrong"), result


@pytest.mark.parametrize("shape", sorted(NOT_ONLY_CALLS))
def test_tests_that_are_more_than_calls_run_in_the_judge(shape: str):
    tests = plan(NOT_ONLY_CALLS[shape])
    assert tests.calls is None and tests.mode == "assert"


def test_the_calls_payload_holds_no_expected_value():
    payload = plan(HUMANEVAL).payload()
    assert set(payload) == {"calls"}
    for expected in ("42", "999", "0.75", "message", "METADATA", "assert"):
        assert expected not in json.dumps(payload)


# --------------------------------------------------------------------------- in the jail

# A `call` test is a calls run too: one call per case.
SHAPES = {"humaneval": {"type": "assert", "code": HUMANEVAL},
          "multiple": {"type": "assert", "code": MULTIPLE},
          "call": {"type": "call", "fn_name": "add",
                   "cases": [{"args": [17, 25], "expected": 42}]}}


def _run(response: str, tests: str | dict = HUMANEVAL):
    if isinstance(tests, str):
        tests = {"type": "assert", "code": tests}
    return run_code_items([CodeItem(language="python", response=response, tests=tests)])[0]


HONEST = "def add(a, b):\n    return a + b\n"
# The nonce lives in the harness's frame, below the solution's module code (sys._getframe(1)).
READ_NONCE = "import sys, os, json\nnonce = sys._getframe(1).f_locals['nonce']\n"
HACKS = {
    "a forged end record, then exit": READ_NONCE + (
        "os.write(3, json.dumps({'nonce': nonce, 'passed': True}).encode() + b'\\n')\n"
        "os._exit(0)\n"),
    "forged values for every call, then exit": READ_NONCE + (
        "for site in range(3):\n"
        "    os.write(3, json.dumps({'nonce': nonce, 'site': site, 'value': 42}).encode()"
        " + b'\\n')\n"
        "os.write(3, json.dumps({'nonce': nonce, 'passed': True}).encode() + b'\\n')\n"
        "os._exit(0)\n"),
    "forged records beside the honest ones": READ_NONCE + (
        "os.write(3, json.dumps({'nonce': nonce, 'site': 0, 'value': 42}).encode() + b'\\n')\n"
        + HONEST),
    "exiting cleanly inside a call": "import sys\ndef add(a, b):\n    sys.exit(0)\n",
    "malformed records": "import os\nos.write(3, b'[' * 100000)\n" + "def add(a, b):\n"
                         "    raise ValueError\n",
    "a lying object": "class Liar:\n    def __eq__(self, other):\n        return True\n"
                      "def add(a, b):\n    return Liar()\n",
}


@needs_jail
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_honest_solution_passes_in_one_process(shape: str):
    result = _run(HONEST, SHAPES[shape])
    assert (result.status.value, result.reward) == ("correct", 1.0), result


@needs_jail
def test_only_calls_run_without_a_judge():
    """The solution's process is the runner's own child (PID 1 of the run's namespace is the
    runner) only when the tests are only calls; otherwise the judge is its parent."""
    probe = "import os\ndef add(a, b):\n    return os.getppid()\n"
    assert _run(probe, "assert add(1, 2) == 1\n").reward == 1.0
    looped = "for _ in range(1):\n    assert add(1, 2) == 1\n"
    assert plan(looped).calls is None
    assert _run(probe, looped).reward == 0.0
    call = {"type": "call", "fn_name": "add", "cases": [{"args": [1, 2], "expected": 1}]}
    assert _run(probe, call).reward == 1.0


@needs_jail
@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("hack", sorted(HACKS))
def test_what_the_solution_writes_or_does_earns_nothing(hack: str, shape: str):
    result = _run(HACKS[hack], SHAPES[shape])
    assert result.reward == 0.0, result
    assert result.status.value in ("wrong", "runtime_error"), result


@needs_jail
def test_a_wrong_value_names_the_line_of_its_assert():
    result = _run("def add(a, b):\n    return a + b if a > 0 else 7\n")
    assert result.status.value == "wrong"
    assert result.detail["tests"][0]["message"] == "AssertionError at line 10 of the tests"


@needs_jail
def test_an_exception_keeps_the_solutions_traceback():
    result = _run("def add(a, b):\n    return helper(a)\n\ndef helper(a):\n"
                  "    raise KeyError('zq-7')\n")
    assert result.status.value == "runtime_error", result
    stderr = result.detail["tests"][0]["stderr"]
    assert 'File "/tmp/solution.py", line 5, in helper' in stderr
    assert "KeyError: 'zq-7'" in stderr and "pyharness" not in stderr


@needs_jail
def test_a_missing_function_and_a_syntax_error():
    missing = _run("def plus(a, b):\n    return a + b\n")
    assert missing.status.value == "runtime_error"
    assert "NameError: name 'add' is not defined" in missing.detail["tests"][0]["stderr"]
    broken = _run("def add(a, b)\n    return a + b\n")
    assert broken.status.value == "compile_error"


@needs_jail
def test_ctypes_is_refused_as_in_a_judged_run():
    result = _run("import ctypes\nctypes.CDLL(None)\n" + HONEST)
    assert result.reward == 0.0 and result.status.value == "runtime_error", result


@needs_jail
@pytest.mark.parametrize(("returned", "expected", "reward"), [
    ("(1, [2, 3])", [1, [2, 3]], 1.0),  # JSON has no tuples
    ("{1: 'a', None: 'b'}", {"1": "a", "null": "b"}, 1.0),  # nor keys other than strings
    ("{1, 2}", [1, 2], 0.0),  # a set is not JSON-like data
    ("10 ** 5000", 0, 0.0),  # past the decimal conversion limit
    ("True", 1, 0.0),  # a bool is not a number here
])
def test_a_call_tests_value_as_json(returned: str, expected, reward: float):
    tests = {"type": "call", "fn_name": "f", "cases": [{"args": [], "expected": expected}]}
    result = _run(f"def f():\n    return {returned}\n", tests)
    assert result.reward == reward and result.status.value in ("correct", "wrong"), result
