"""Assert tests: the worker's share (asserts.py) and the judge's (the tests run apart from the
solution): same verdicts as plain Python on honest solutions, expected values kept out."""

from __future__ import annotations

import ast
import math
import random
import shutil

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.kinds.code import run_code_items
from verifier.kinds.code.asserts import SITE_FUNCTION, BrokenTests, check_parses, plan
from verifier.sandbox.harness import values

needs_jail = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


# --------------------------------------------------------------------------- the worker's share

JUDGED = [
    "assert f(x) == 'zq-7'", "assert 'zq-7' == f(x)", "assert f(x) != 'zq-7'",
    "assert f(x) in ['zq-7', 'zq-8']", "assert f(x) not in 'zq-7'", "assert f(x) < 'zq-7'",
    "assert 0 <= f(x) <= 'zq-7'", "assert f(x) is None", "assert f(x) is not True",
    "assert math.isclose(f(x), 'zq-7', rel_tol=1e-3)", "assert math.isclose('zq-7', f(x))",
    "assert abs(f(x) - 'zq-7') < 1e-9", "assert abs('zq-7' - f(x)) <= 0.5",
    "assert 1e-9 > abs(f(x) - 'zq-7')", "assert f(x) == ('zq-7', ['zq-8', {'zq-9': None}])",
    "assert f(x) == 'zq-7', f'wanted zq-7, got {f(x)}'",
    # constant expressions: the worker computes them as the tests would
    "assert f(x) == 'zq-' + '7'", "assert f(x) == ('zq-7', 3 * 19, -2 ** 0.5, 2.0 / 3)",
    "assert f(x) == ['zq-7'] * 3 + [not 0]", "assert abs(f(x) - 'zq-7' * 2) < 1e-6 / 3",
    "assert math.isclose(f(x), 'zq-' + '7', rel_tol=1e-3 * 2)",
]
KEPT = [
    "for x in range(3):\n    assert f(x) == 'zq-7'",
    "while True:\n    assert f(x) == 'zq-7'\n    break",
    "try:\n    assert f(x) == 'zq-7'\nexcept AssertionError:\n    pass",
    "assert f(x) == g(x)", "assert f(x) is 5", "assert not not f(x)", "assert x.f(1)",
    "assert 'zq-7' in f(x)",
    "import cmath as math\nassert math.isclose(f(x), 1)",
    "assert math.isclose(f(x), 1, rel_tol=tol)",
    # not folded: past the bounds, raising, copies that alias, not arithmetic
    "assert f(x) == 'zq-7' * 10 ** 9", "assert f(x) == 2 ** 10 ** 10", "assert f(x) == 1 / 0",
    "assert f(x) == [['zq-7']] * 2", "assert f(x) == '%s' % 'zq-7'", "assert f(x) == -'zq-7'",
]


@pytest.mark.parametrize("source", JUDGED)
def test_judged_asserts_keep_their_constants_out_of_the_jail(source: str):
    tests = plan("import math\nx = 1\n" + source + "\n")
    assert len(tests.sites) == 1
    assert "zq-" not in tests.source and "wanted" not in tests.source
    assert f"{SITE_FUNCTION}(0, " in tests.source
    assert len(tests.source.splitlines()) == len(source.splitlines()) + 2  # lines stay put
    ast.parse(tests.source)


@pytest.mark.parametrize("source", ["assert f(x)", "assert not f(x, 'zq-7')",
                                    "assert isinstance(f(x), int)"])
def test_the_truth_of_a_call_is_judged_by_the_worker(source: str):
    tests = plan("x = 1\n" + source + "\n")
    assert [site.kind for site in tests.sites] == ["truth"]
    assert "assert" not in tests.source and f"{SITE_FUNCTION}(0, " in tests.source


@pytest.mark.parametrize("source", KEPT)
def test_other_asserts_stay_in_the_tests(source: str):
    tests = plan("import math\nx = 1\n" + source + "\n")
    assert tests.sites == ()
    assert "assert" in tests.source


@pytest.mark.parametrize(("source", "value"), [
    ("assert v == 3", 3), ("assert v == 3", 3.0), ("assert v == 3", True),
    ("assert v == 3", "3"), ("assert v == (1, 2)", [1, 2]), ("assert v == [1, 2]", [1, 2]),
    ("assert v == {1, 2}", frozenset({2, 1})), ("assert v == {'a': [1]}", {"a": [1]}),
    ("assert v in 'abc'", "b"), ("assert v in 'abc'", 3), ("assert v not in [1, 2]", 2),
    ("assert 0 < v < 5", 4), ("assert 0 < v < 5", 5), ("assert v is None", None),
    ("assert v is not None", 0), ("assert v != 0.1 + 0.2", 0.3),
    ("assert math.isclose(v, 0.3)", 0.1 + 0.2), ("assert math.isclose(v, 0.3)", "0.3"),
    ("assert math.isclose(v, 0.3)", True), ("assert math.isclose(v, 1, abs_tol=0.5)", 1.4),
    ("assert abs(v - 0.3) < 1e-9", 0.1 + 0.2), ("assert abs(v - 0.3) < 1e-9", None),
    ("assert abs(v - 3) <= 0", 3 + 0j), ("assert v == float('nan')", math.nan),
    ("assert v < 3", [1]), ("assert v == b'x'", b"x"), ("assert v == 10**20", 10**20),
    ("assert v == 2.0 / 3.0", 2 / 3), ("assert v == 3 * 19", 57), ("assert v == -2 ** 2", -4),
    ("assert v == -2 ** 2", 4), ("assert v == 'ab' + 'c'", "abc"), ("assert v == [0] * 3", [0] * 3),
    ("assert v == 7 // 2 + 7 % 2", 4), ("assert v == (1, 2) + (3,)", [1, 2, 3]),
    ("assert v == 1e308 * 10", math.inf), ("assert v == (not 0)", True),
    ("assert same(v)", []), ("assert same(v)", "0"), ("assert not same(v)", 0.0),
    ("assert not same(v)", {0: 0}), ("assert same(v)", math.nan), ("assert not same(v)", None),
])
def test_the_worker_judges_like_python(source: str, value):
    sites = plan(source).sites
    if not sites:  # not a judged form (a call in the constant): nothing to compare
        return
    try:
        exec(compile(source, "<t>", "exec"), {"v": value, "math": math, "same": lambda v: v})
        expected = True
    except (AssertionError, TypeError):
        expected = False
    wire = values.encode(value)
    assert sites[0].holds(values.decode(wire)) is expected


def _random_expression(rng: random.Random, depth: int) -> str:
    leaves = ["0", "3", "-7", "10**20", "0.5", "-2.25", "1e308", "True", "None", "'ab'", "''",
              "b'x'", "2j", "[1, 'a']", "(2,)", "{1: 'b'}", "()"]
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(leaves)
    kind = rng.random()
    if kind < 0.15:
        return f"{rng.choice(['-', '+', '~', 'not '])}({_random_expression(rng, depth - 1)})"
    if kind < 0.3:
        items = ", ".join(_random_expression(rng, depth - 1) for _ in range(rng.randint(1, 3)))
        return rng.choice(["[{}]", "({},)", "{{{}}}"]).format(items)
    left, right = (_random_expression(rng, depth - 1) for _ in range(2))
    return f"({left}) {rng.choice(['+', '-', '*', '/', '//', '%', '**'])} ({right})"


def _same(value, expected) -> bool:
    """Equal and of the same types throughout (-0.0 is not 0.0; NaN is NaN); a set's order
    is its own."""
    if type(value) is not type(expected):
        return False
    if isinstance(value, list | tuple):
        return len(value) == len(expected) and all(map(_same, value, expected))
    if isinstance(value, dict):
        return list(value) == list(expected) and all(map(_same, value.values(),
                                                         expected.values()))
    return value == expected if isinstance(value, set) else repr(value) == repr(expected)


def test_folding_computes_what_python_computes():
    # Differential: every expression the worker folds, Python evaluates to the same value of
    # the same type (expressions it does not fold stay in the tests, where Python runs them).
    rng, folded = random.Random(11), 0
    for _ in range(4000):
        source = _random_expression(rng, 3)
        sites = plan(f"assert f(x) == ({source})\n").sites
        if sites:
            folded += 1
            value = sites[0].operands[1]
            expected = eval(source)  # bounded: the worker computed it first
            assert _same(value, expected), source
    assert folded > 1000


def test_what_a_plan_folds_is_bounded_in_all():
    # Each fold is within its own bound; the plan's budget bounds their sum, and the asserts
    # past it stay in the tests (their values are not computed).
    tests = plan("x = 1\n" + "assert f(x) == [0] * 30000\n" * 40)
    assert 0 < len(tests.sites) < 40 and tests.folded <= 1 << 20
    assert tests.source.count("assert f(x) == [0] * 30000") == 40 - len(tests.sites)


def test_broken_tests_are_the_datasets_fault():
    for source in ("assert ((", "x = [" * 10_000, 'x = """#\nassert 1'):
        with pytest.raises(BrokenTests):
            plan(source)
        with pytest.raises(BrokenTests):  # what admission checks
            check_parses(source)
    check_parses("assert f(1) == 2  # fine\n")


# Lines where Python's lines and str.splitlines' differ (a form feed, a line separator in a
# string, a file separator in a triple-quoted one), quotes and hashes in strings and comments.
WITH_COMMENTS = ("\fimport math  # zq-1\nx = 'a\u2028b#'  # zq-2 'q\n"
                 "for i in range(1):\n    assert f(x) == g(x) + '\\'#'  # zq-3 \"\n"
                 "y = '''#\n\x1c'''  # zq-4\nz = r\"\\\"#\"  \t# zq-5\r\n")


def test_comments_are_dropped_and_nothing_else():
    tests = plan(WITH_COMMENTS)
    assert tests.source == ("\fimport math  \nx = 'a\u2028b#'  \n"
                            "for i in range(1):\n    assert f(x) == g(x) + '\\'#'  \n"
                            "y = '''#\n\x1c'''  \nz = r\"\\\"#\"  \t\r\n")


def test_the_judge_is_asked_only_for_the_names_the_tests_use():
    tests = plan("import math\ndef check(candidate):\n    assert candidate(1) == 2\n"
                 "check(solve)\nassert math.pi > helper.x\n")
    assert {"solve", "helper", "candidate", "check"} <= set(tests.names)
    assert tests.attr_bases == ["helper", "math"]
    assert plan("from solution import *\n").names is None
    assert plan("assert globals()['f'](1) == 2\n").names is None


# --------------------------------------------------------------------------- the judge's share

def verdict(solution: str, tests: str) -> tuple[str, str]:
    result = run_code_items([CodeItem(language="python", response=solution,
                                      tests={"type": "assert", "code": tests})])[0]
    detail = result.detail.get("tests", [{}])[0]
    return result.status.value, detail.get("message", "") + detail.get("stderr", "")


HONEST_SHAPES = {
    "in-place changes are seen by the tests": (
        "def sort_colors(nums):\n    nums.sort()\ndef fill(d, s):\n    d['k'] = 1\n"
        "    s.add(2)\n",
        "nums = [2, 0, 1]\nassert sort_colors(nums) is None\nassert nums == [0, 1, 2]\n"
        "d, s = {}, set()\nfill(d, s=s)\nassert d == {'k': 1} and s == {2}\n"),
    "the tests pass functions and their own objects": (
        "def apply(f, xs):\n    return [f(x) for x in xs]\n"
        "def total(node):\n    s = 0\n    while node:\n        s += node.val\n"
        "        node = node.next\n    return s\n"
        "def relink(node):\n    node.next = None\n    return node\n",
        "class Node:\n    def __init__(self, val, next=None):\n        self.val = val\n"
        "        self.next = next\n"
        "assert apply(lambda x: x * 2, [1, 2]) == [2, 4]\nassert apply(len, ['ab']) == [2]\n"
        "chain = Node(1, Node(2, Node(3)))\nassert total(chain) == 6\n"
        "assert relink(chain).next is None and chain.next is None\n"),
    "solution classes, generators and exceptions": (
        "class ListNode:\n    def __init__(self, val=0, next=None):\n        self.val = val\n"
        "        self.next = next\n"
        "def build(xs):\n    head = None\n    for x in reversed(xs):\n"
        "        head = ListNode(x, head)\n    return head\n"
        "def squares(n):\n    for i in range(n):\n        yield i * i\n"
        "def checked(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x\n",
        "def to_list(node):\n    out = []\n    while node is not None:\n"
        "        out.append(node.val)\n        node = node.next\n    return out\n"
        "assert to_list(build([1, 2, 3])) == [1, 2, 3]\n"
        "assert list(squares(4)) == [0, 1, 4, 9] and sum(squares(3)) == 5\n"
        "assert 4 in squares(3)\n"
        "try:\n    checked(-1)\n    assert False\nexcept ValueError as e:\n"
        "    assert 'negative' in str(e)\n"
        "import copy\nassert copy.copy([checked(2)]) == [2]\n"),
    "values of every plain type": (
        "import collections, fractions, decimal, datetime\n"
        "def v():\n    return (collections.Counter('aab'), fractions.Fraction(1, 3),"
        " decimal.Decimal('1.5'), datetime.date(2020, 1, 2), b'x', 1 + 2j, range(3),"
        " {1: {2: [frozenset({3})]}}, 10 ** 30, float('inf'))\n",
        "import collections, fractions, decimal, datetime\n"
        "r = v()\nassert r[0] == collections.Counter({'a': 2, 'b': 1})\n"
        "assert r[1] * 3 == 1 and r[2] == decimal.Decimal('1.5')\n"
        "assert r[3].year == 2020 and r[4] == b'x' and r[5].imag == 2 and list(r[6]) == [0, 1, 2]\n"
        "assert r[7][1][2][0] == {3} and r[8] == 10 ** 30 and r[9] > 1e308\n"),
    "LeetCode style, imports from the solution module": (
        "from typing import List\nclass Solution:\n"
        "    def twoSum(self, nums: List[int], target: int) -> List[int]:\n"
        "        seen = {}\n        for i, n in enumerate(nums):\n"
        "            if target - n in seen:\n                return [seen[target - n], i]\n"
        "            seen[n] = i\n",
        "from solution import Solution\nimport solution\n"
        "assert Solution().twoSum([2, 7, 11, 15], 9) == [0, 1]\n"
        "assert solution.Solution().twoSum([3, 3], 6) == [0, 1]\n"),
    "pytest-style checks the tests call themselves": (
        "def add(a, b):\n    return a + b\n",
        "def test_add():\n    assert add(2, 3) == 5\n\ndef test_more():\n"
        "    for a in range(3):\n        assert add(a, a) == 2 * a\n\ntest_add()\ntest_more()\n"),
}


@needs_jail
@pytest.mark.parametrize("shape", sorted(HONEST_SHAPES))
def test_honest_solutions_pass_whatever_the_tests_do(shape: str):
    solution, tests = HONEST_SHAPES[shape]
    assert verdict(solution, tests)[0] == "correct", verdict(solution, tests)


@needs_jail
def test_failures_name_their_line_and_never_their_expected_value():
    status, message = verdict("def f():\n    return 1\n", "x = 1\nassert f() == 'zq-9', 'zq-9'\n")
    assert (status, message) == ("wrong", "AssertionError at line 2 of the tests")
    status, message = verdict("def f():\n    return 1\n",
                              "for want in ['zq-9']:\n    assert f() == want, want\n")
    assert status == "wrong" and "line 2 of the tests" in message and "zq-9" not in message
    status, message = verdict("def f():\n    return object()\n", "assert f() == 1\n")
    assert status == "wrong" and "object" in message
    status, message = verdict("def f():\n    return None\n", "x = f() + 1\n")
    assert status == "runtime_error" and "TypeError at line 1 of the tests" in message
