"""Calls dialects without the jail: which tests are plain calls, what the worker expects, how it
compares, and that nothing the tests hold can break the parsers (verifier/kinds/code/dialects)."""

from __future__ import annotations

import contextlib
import json
import math
import random

import pytest

from verifier.kinds.code.dialects import DIALECTS, calls_plan
from verifier.kinds.code.dialects.core import Check, NotPlainCalls
from verifier.kinds.code.dialects.values import (
    UNDEFINED,
    BigInt,
    Map,
    OfType,
    Opaque,
    Record,
    SetOf,
    Some,
    read_records,
)

# MultiPL-E's C++ shape (our own problems, written the way its translator writes them).
MULTIPLE_CPP = """#include<assert.h>
#include<bits/stdc++.h>
int main() {
    auto candidate = f;
    assert(candidate((std::vector<long>({(long)1, (long)2, (long)-3})), (2)) == \
(std::vector<long>({(long)3, (long)-1})));
    assert(candidate((std::vector<long>()), (0)) == (std::vector<long>()));
    assert(candidate((std::vector<std::string>({(std::string)"a", (std::string)"b"})), (1)) \
== (std::vector<std::string>({(std::string)"b"})));
    assert(candidate(("ab\\tc"), (3.5f)) == (std::map<std::string,long>({{"a", 1}, {"b", 2}})));
    assert(candidate((7), (8)) == std::make_tuple(1, "x", 2.5f));
    assert(candidate((1)) == std::nullopt);
    assert(candidate((2)) == (float(3)));
    assert(candidate((3)) == (true));
}
"""
# HumanEval-X's C++ shapes (our own problems in its layout).
HUMANEVAL_X_CPP = """#undef NDEBUG
#include<assert.h>
bool issame(vector<float> a,vector<float>b){
    if (a.size()!=b.size()) return false;
    for (int i=0;i<a.size();i++)
    {
    if (abs(a[i]-b[i])>1e-4) return false;
    }
    return true;
}
int main(){
    vector<float> a={1.0, 2.5};
    assert (scale(a, 2) == 7.0);
    assert (issame(halves({1, 3}) , {0.5, 1.5}));
    assert (abs(mean({1.0, 2.0}) - 3.0/2.0) < 1e-4);
    assert (abs(neg(1) +1)<0.01);
    assert (not (even(3)));
    assert (!even(5));
    assert (even(4));
}
"""


def plan(language: str, tests: str):
    return DIALECTS[language].plan(tests)


def test_multiple_cpp_expected_values_are_parsed_with_cpp_types():
    found = plan("cpp", MULTIPLE_CPP)
    expected = [site.check.expected for site in found.sites]
    assert expected == [[3, -1], [], [b"b"], Map(((b"a", 1), (b"b", 2))), (1, b"x", 2.5), None,
                        3.0, True]
    assert [site.call for site in found.sites][:2] == [
        "candidate((std::vector<long>({(long)1, (long)2, (long)-3})), (2))",
        "candidate((std::vector<long>()), (0))"]
    assert [site.line for site in found.sites] == list(range(5, 13))


def test_multiple_cpp_tests_first_close_the_prompts_function():
    # MultiPL-E's C++ prompt leaves its function open: the tests' first `}` closes it, so the
    # driver must too, before anything of its own.
    found = plan("cpp", "}\nint main() {\n    auto candidate = add;\n"
                        "    assert(candidate((1), (2)) == (3));\n}\n")
    assert [site.line for site in found.sites] == [4]
    assert found.driver.startswith("}\n#undef ")


def test_humaneval_x_cpp_shapes():
    found = plan("cpp", HUMANEVAL_X_CPP)
    checks = [site.check for site in found.sites]
    assert [c.kind for c in checks] == ["equal", "close_each", "close", "close", "truth",
                                        "truth", "truth"]
    assert checks[1].expected == [0.5, 1.5] and checks[1].how == "f32"
    assert checks[1].tolerance == pytest.approx(1e-4)
    assert checks[2].expected == 1.5 and checks[3].expected == -1
    assert [c.negated for c in checks[4:]] == [True, True, False]
    assert "vector<float> a={1.0, 2.5};" in found.driver  # the variable the calls take


@pytest.mark.parametrize("tests", [
    # a loop
    "int main() {\n for (int i = 0; i < 3; i++) assert(f(i) == i);\n}\n",
    # a helper the dialect does not know
    "bool ok(int x) { return x > 0; }\nint main() {\n assert(ok(f(1)));\n}\n",
    # a macro of the tests
    "#define CHECK(x) assert(x)\nint main() {\n CHECK(f(1) == 2);\n}\n",
    # computed on both sides, or compared with a call
    "int main() {\n assert(f(1) == g(2));\n}\n",
    "int main() {\n assert(f(1) + 1 == 3);\n}\n",
    "int main() {\n assert(f(g(1)) == 3);\n}\n",
    "int main() {\n assert(f(1) == 2 && f(2) == 3);\n}\n",
    "int main() {\n assert(f(1) == 2 ? 1 : 0);\n}\n",
    "int main() {\n int x = f(1);\n assert(x == 2);\n}\n",
    "int main() {\n f(1);\n assert(f(1) == 2);\n}\n",
    # a call of the tests' own function, or the tests' variable expected and passed
    "int main() {\n vector<int> a = {1};\n assert(issame(f(a), a));\n}\n",
    "int main() {\n return 0;\n assert(f(1) == 2);\n}\n",
    "int main() {\n}\n",
    "int main(int argc, char **argv) {\n assert(f(1) == 2);\n}\n",
])
def test_what_is_not_plain_calls_runs_in_process(tests: str):
    with pytest.raises(NotPlainCalls):
        plan("cpp", tests)
    assert calls_plan("cpp", tests) is None


def test_an_unknown_comparison_helper_is_not_trusted():
    lying = HUMANEVAL_X_CPP.replace("if (abs(a[i]-b[i])>1e-4) return false;", "")
    assert calls_plan("cpp", lying) is None


def test_c_shapes():
    tests = ('#include <assert.h>\n#include <string.h>\n#include <math.h>\nint main() {\n'
             '    assert(add(1, 2) == 3);\n    assert(fabs(half(3) - 1.5) < 1e-9);\n'
             '    assert(abs(half(3) - 1) < 1);\n    assert(strcmp(name(1), "bob") == 0);\n'
             '    assert(!strcmp(name(2), "al"));\n    assert(strcmp(name(3), "x") != 0);\n'
             '    return 0;\n}\n')
    checks = [site.check for site in plan("c", tests).sites]
    assert [(c.kind, c.expected, c.negated) for c in checks] == [
        ("equal", 3, False), ("close", 1.5, False), ("close", 1, False),
        ("equal", b"bob", False), ("equal", b"al", False), ("equal", b"x", True)]
    assert checks[2].how == "int_abs"  # C's abs truncates a double to an int
    dialect = DIALECTS["c"]
    assert dialect.holds(checks[2], 1.9) and not dialect.holds(checks[1], 1.4)


def test_expected_values_never_enter_the_driver():
    marker = "zq-expected-91"
    tests = (f'int main() {{\n auto candidate = f;\n assert(candidate("in") == "{marker}");\n'
             f' assert(candidate("x") != std::string("{marker}"));\n}}\n')
    found = plan("cpp", tests)
    assert marker not in found.driver and marker.encode() in [s.check.expected
                                                               for s in found.sites]



@pytest.mark.parametrize(("language", "tests"), [
    ("c", 'int main() {\n const char *want = "zq-expected-91";\n long k = 2;\n'
          ' assert(strcmp(f(k), want) == 0);\n}\n'),
    ("cpp", 'int main() {\n std::string want = "zq-expected-91";\n long k = 2;\n'
            ' assert(f(k) == want);\n}\n'),
    ("cpp", 'int main() {\n std::string record = "zq-expected-91";\n long k = 2;\n'
            ' assert(f(k) == record);\n}\n'),  # named as nothing of the driver's own
    ("java", '    public static void main(String[] args) {\n    long k = 2l;\n'
             '    String want = "zq-expected-91";\n    assert(f(k).equals(want));\n    }\n}\n'),
    ("kotlin", 'fun main() {\n    var arg00 : Long = 2L\n    var x0 : String = f(arg00);\n'
               '    var v0 : String = "zq-expected-91";\n    assert(x0 == v0)\n}\n'),
    ("javascript", "const assert = require('node:assert');\nfunction test() {\n"
                   "  let k = 2;\n  let want = 'zq-expected-91';\n"
                   "  assert.deepEqual(f(k), want);\n}\ntest();\n"),
])
def test_expected_values_the_tests_name_never_enter_the_driver(language: str, tests: str):
    # A literal variable only compared with is not declared by the driver; one a call takes is.
    found = plan(language, tests)
    assert "zq-expected-91" not in found.driver and "k = 2" in found.driver.replace(
        "arg00 : Long = 2L", "k = 2")


CPP = DIALECTS["cpp"]


@pytest.mark.parametrize(("check", "value", "holds"), [
    (Check("equal", 3), 3, True),
    (Check("equal", 3), 3.0, True),  # long == double: converted, equal
    (Check("equal", 3), True, False),
    (Check("equal", 1), True, True),  # bool == long: promoted
    (Check("equal", 0.1), 0.10000000149011612, False),  # a float 0.1f is not the double 0.1
    (Check("equal", 0.10000000149011612), 0.10000000149011612, True),
    (Check("equal", math.nan), math.nan, False),
    (Check("equal", b"ab"), b"ab", True),
    (Check("equal", b"ab"), "ab", False),
    (Check("equal", [1, 2]), [1, 2], True),
    (Check("equal", [1, 2]), [2, 1], False),
    (Check("equal", Map(((b"a", 1), (b"b", 2)))), Map(((b"b", 2), (b"a", 1))), True),
    (Check("equal", Map(((b"a", 1),))), Map(((b"a", 1), (b"a", 1))), False),
    (Check("equal", SetOf((1, 2))), SetOf((2, 1)), True),
    (Check("equal", 3), Some(3), True),  # optional<long> == 3
    (Check("equal", None), Some(3), False),
    (Check("equal", Some(3)), None, False),
    (Check("equal", None), None, True),
    (Check("equal", 3), Opaque("unknown"), False),
    (Check("equal", 3, negated=True), Opaque("unknown"), True),
    (Check("truth"), Some(0), True),  # an optional holding 0 is engaged
    (Check("truth"), 0.0, False),
    (Check("truth"), [1], False),  # a vector is not a condition
    (Check("truth", negated=True), 0, True),
    (Check("close", 1.5, tolerance=1e-4), 1.50001, True),
    (Check("close", 1.5, tolerance=1e-4), math.nan, False),
    (Check("close", 1.5, tolerance=1e-4), b"1.5", False),
    (Check("close_each", [0.5, 1.5], tolerance=1e-4), [0.50001, 1.5], True),
    (Check("close_each", [0.5, 1.5], tolerance=1e-4), [0.5], False),
    (Check("close_each", [0.5], tolerance=1e-4), [math.nan], True),  # HumanEval-X's issame
    (Check("equal", 10 ** 30), 10 ** 30 + 1, False),
    (Check("equal", 1e308), 10 ** 400, False),  # no OverflowError escapes
    # Integers with their types (cintegers.py): the usual arithmetic conversions.
    (Check("equal", -1), OfType("u32", 4294967295), True),  # unsigned == int: unsigned
    (Check("equal", OfType("i64", -1)), OfType("u32", 4294967295), False),  # long holds it
    (Check("equal", OfType("u32", 4294967295)), -1, True),  # int == 4294967295u
    (Check("equal", OfType("u32", 4294967295)), OfType("i64", -1), False),
    (Check("equal", -1), OfType("u64", 2 ** 64 - 1), True),
    (Check("equal", OfType("u64", 2 ** 64 - 1)), OfType("i64", -1), True),
    (Check("equal", -1), 65535, False),  # an unsigned short is promoted to int
    (Check("equal", OfType("u32", 4294967295)), 4294967295.0, True),  # to double: its value
    (Check("equal", -1), Some(OfType("u32", 4294967295)), True),  # *optional == -1
    (Check("equal", (-1, 2)), (OfType("u32", 4294967295), 2), True),  # a pair's ==
    (Check("equal", [-1]), [OfType("u32", 4294967295)], False),  # vectors: by value
    (Check("equal", [3]), [OfType("u64", 3)], True),
    (Check("equal", Map(((1, 2),))), Map(((OfType("u64", 1), OfType("i64", 2)),)), True),
    (Check("equal", 3), OfType("q64", 3), False),  # a type no driver writes
    (Check("truth"), OfType("u64", 0), False),
    (Check("close", 1.0, tolerance=0.5), OfType("u32", 1), True),
])
def test_cpp_values_compare_as_cpp_does(check: Check, value, holds: bool):
    assert CPP.holds(check, value) is holds


def test_records_are_one_value_per_call_in_order():
    good = b'[0,3]\n[1,["l",1,2.5]]\n[2,["m",["b","61"],1]]\n'
    assert read_records(good, 3) == ([3, [1, 2.5], Map(((b"a", 1),))], None)
    assert read_records(good, 2)[1] == "more records than calls"
    assert read_records(b"[0,1]\n[0,1]\n", 2) == ([1], "records out of order or more than one "
                                                       "per call")
    assert read_records(b"[1,1]\n", 2)[1] is not None
    assert read_records(b"[0,1]\n", 2) == ([1], None)  # stopped early: the runner says so
    assert read_records(b'[0,["zz"]]\n', 1)[1].startswith("a malformed value")
    deep = b"[0," + b'["l",' * 200 + b"1" + b"]" * 201 + b"\n"
    assert read_records(deep, 1)[1].startswith("a malformed value")
    assert read_records(b"[0," + b"[" * 100000 + b"\n", 1)[1] == "a malformed record"
    assert read_records(b'[0,["i","12"]]\n[1,["f","nan"]]\n[2,["x","a"]]\n', 3)[0][2] == \
        Opaque("a")
    # C's and C++'s floats, as hexadecimal text: exactly, and nothing beyond a double.
    hexadecimal = b'[0,["h","-0x1.8000000000000p+1"]]\n[1,["h","0x0.0000000000001p-1022"]]\n'
    assert read_records(hexadecimal, 2) == ([-3.0, 5e-324], None)
    assert read_records(b'[0,["h","0x1.0000000000000p+9999"]]\n', 1)[1].startswith(
        "a malformed value")
    assert read_records(b'[0,["h","0x1.8p+1"]]\n', 1)[1].startswith("a malformed value")


def _mutations(source: str, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pieces = ["(", ")", "{", "}", "<", ">", '"', "'", ",", ";", "==", "assert(", "-", "/*",
              "\\", "\n", "1e", "0x", "(long)", "std::", "{{", "}}", "u8\"", "#define x\n"]
    out = []
    for _ in range(count):
        text = list(source)
        for _ in range(rng.randint(1, 6)):
            at = rng.randrange(len(text) + 1)
            if rng.random() < 0.5 and text:
                del text[min(at, len(text) - 1)]
            else:
                text.insert(at, rng.choice(pieces))
        out.append("".join(text))
    return out


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_broken_tests_never_break_the_parser(language: str):
    # Mutated tests are plain calls or not, and either way the worker gets an answer; nesting
    # beyond any bound is refused, not a RecursionError.
    for source in [*_mutations(MULTIPLE_CPP, 300, 1), *_mutations(HUMANEVAL_X_CPP, 300, 2),
                   "int main() {\n assert(f(" + "{" * 5000 + "1" + "}" * 5000 + ") == 1);\n}\n",
                   "int main() {\n assert(f(1) == " + "(" * 5000 + "1" + ")" * 5000 + ");\n}\n",
                   "int main() {\n assert(f(1) == " + "-" * 5000 + "1);\n}\n"]:
        with contextlib.suppress(NotPlainCalls):
            DIALECTS[language].plan(source)


def test_plans_are_cached_and_json_free_of_python_objects():
    first = calls_plan("cpp", MULTIPLE_CPP)
    assert calls_plan("cpp", MULTIPLE_CPP) is first
    json.dumps([site.call for site in first.sites])


# MultiPL-E's JavaScript shape and HumanEval-X's (our own problems in their layouts).
MULTIPLE_JS = """const assert = require('node:assert');

function test() {
  let candidate = f;
  assert.deepEqual(candidate([1, 2], "a\\tb"),[3, {"x": 1, "2": [true, null]}]);
  assert.deepEqual(candidate([], ""),undefined);
  assert.deepEqual(candidate(1.5, 2),0.1 + 0.2);
}

test();
"""
HUMANEVAL_X_JS = """const testF = () => {
  console.assert(f([1.0, 2.5], 0.3) === true)
  console.assert(
    JSON.stringify(g('(()())')) ===
      JSON.stringify(['(()())', [(0, 1), (2, 3)]])
  )
  console.assert(Math.abs(h(1.33) - 0.33) < 1e-6)
  console.assert(Math.abs(h(2) + 1) <= 0.01)
  console.assert(!f([], 1))
  console.assert(f([1], 2) !== -0)
}

testF()
"""


def test_multiple_js_shape():
    found = plan("javascript", MULTIPLE_JS)
    checks = [site.check for site in found.sites]
    assert [c.how for c in checks] == ["deep", "deep", "deep"]
    assert checks[0].expected == [3, Record((("2", [True, None]), ("x", 1)))]  # JS key order
    assert checks[1].expected is UNDEFINED
    assert checks[2].expected == 0.30000000000000004
    assert found.sites[0].call == 'candidate([1, 2], "a\\tb")'
    strict = plan("javascript", MULTIPLE_JS.replace("'node:assert'", "'node:assert/strict'"))
    assert [s.check.how for s in strict.sites] == ["deep_strict"] * 3


def test_a_js_line_ending_in_a_single_quoted_string_ends_its_statement():
    # `const x = 'ab'` without a semicolon is a statement of its own (the lexer calls '...' a
    # char): the tests are plain calls, judged outside, not merged into one odd statement.
    found = plan("javascript", "const x = 'ab'\nconsole.assert(f(x) === 2)\n")
    assert [site.call for site in found.sites] == ["f(x)"]


def test_humaneval_x_js_shape():
    checks = [site.check for site in plan("javascript", HUMANEVAL_X_JS).sites]
    assert [(c.kind, c.how, c.negated) for c in checks] == [
        ("equal", "===", False), ("equal", "stringify", False), ("close", "", False),
        ("close", "+", False), ("truth", "", True), ("equal", "===", True)]
    assert checks[1].expected == ["(()())", [1, 3]]  # (0, 1) is the comma operator's 1
    assert checks[3].expected == -1 and checks[3].strict is False


@pytest.mark.parametrize("tests", [
    "for (let i = 0; i < 3; i++) console.assert(f(i) === i)\n",
    "console.assert(f(1) === g(1))\n",
    "console.assert(f(1) === 1 && f(2) === 2)\n",
    "console.assert(f(1).length === 1)\n",
    "console.assert(f(g(1)) === 1)\n",
    "const x = f(1)\nconsole.assert(x === 1)\n",
    "f(1)\nconsole.assert(f(1) === 1)\n",
    "function test() { console.assert(f(1) === 1) }\n",  # never called
    "function test() { console.assert(f(1) === 1) }\ntest()\ntest()\n",
    "console.assert(f(`${1}`) === 1)\n",
    "console.assert(f(1) === 1, 'message ' + g(2))\n",
    "const assert = require('assert');\nassert.throws(() => f(1));\n",
    "const assert = require('assert');\nassert.deepEqual(f(1), [...g()]);\n",
    "console.assert(f({a}) === 1)\n",
    "console.assert(f(1) === new Map())\n",
])
def test_what_is_not_plain_calls_in_js_runs_in_process(tests: str):
    assert calls_plan("javascript", tests) is None


JS = DIALECTS["javascript"]


@pytest.mark.parametrize(("check", "value", "holds"), [
    (Check("equal", 3, how="==="), 3.0, True),
    (Check("equal", 3, how="==="), "3", False),
    (Check("equal", 3, how="=="), "3", True),
    (Check("equal", None, how="=="), UNDEFINED, True),
    (Check("equal", UNDEFINED, how="deep"), None, True),  # node's loose deepEqual
    (Check("equal", UNDEFINED, how="deep_strict"), None, False),
    (Check("equal", [1, 2], how="==="), [1, 2], False),  # a fresh array is never ===
    (Check("equal", "1,2", how="=="), [1, 2], True),
    (Check("equal", [1, "2"], how="deep"), [1, 2], True),
    (Check("equal", [1, "2"], how="deep_strict"), [1, 2], False),
    (Check("equal", Record((("a", 1), ("b", 2))), how="deep"), Record((("b", 2), ("a", 1))),
     True),
    (Check("equal", Record((("a", 1), ("b", 2))), how="stringify"),
     Record((("b", 2), ("a", 1))), False),  # JSON.stringify keeps the order
    (Check("equal", [0.0, 1.0], how="stringify"), [0, 1], True),
    (Check("equal", [None], how="stringify"), [UNDEFINED], True),
    (Check("equal", [None], how="stringify"), [math.nan], True),
    (Check("equal", Record(()), how="stringify"), Record((("a", UNDEFINED),)), True),
    (Check("equal", 0.0, how="deep_strict"), -0.0, False),
    (Check("equal", math.nan, how="deep_strict"), math.nan, True),
    (Check("equal", math.nan, how="==="), math.nan, False),
    (Check("equal", 5, how="stringify"), BigInt(5), False),
    (Check("truth"), [], True),
    (Check("truth"), "", False),
    (Check("truth"), math.nan, False),
    (Check("close", 0.33, tolerance=1e-6), 0.33000000000000007, True),
    (Check("close", 0.33, tolerance=1e-6), "0.33", True),  # '0.33' - 0.33 is 0
    (Check("close", 0.33, tolerance=1e-6), UNDEFINED, False),
    (Check("close", 1, tolerance=1), BigInt(1), False),  # a TypeError in JavaScript
])
def test_js_values_compare_as_js_does(check: Check, value, holds: bool):
    assert JS.holds(check, value) is holds


def test_broken_js_tests_never_break_the_parser():
    pieces_from = MULTIPLE_JS + HUMANEVAL_X_JS
    for source in [*_mutations(pieces_from, 400, 3), "console.assert(f(" + "[" * 5000 + ")",
                   "console.assert(f(1) === " + "-" * 5000 + "1)\n",
                   "console.assert(f(1) === " + "(" * 3000 + "1" + ")" * 3000 + ")\n",
                   "console.assert(f(1) === '\\u{110000}')\n"]:
        with contextlib.suppress(NotPlainCalls):
            JS.plan(source)
