"""JavaScript and TypeScript assert tests against solutions that attack them, through node and
the jail (see test_code_red_team_cfamily.py for the C family).

A wrong solution (its function returns the wrong value) followed by a trick that beat the tests
when they ran in its process: patching `require('assert')`, `console.assert`, `JSON`, `Math`,
exiting early, swallowing the failure, forging the record, flooding, crashing. Each must earn
nothing, and never an infra_error, in MultiPL-E's shape, HumanEval-X's (`console.assert`, which
only prints when it fails), and a shape that is not plain calls (a loop, run in-process).
"""

from __future__ import annotations

import shutil

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.config import Settings
from verifier.kinds.code import run_code_items

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

LIMITS = {"time_s": 5, "memory_mb": 256}
RIGHT = ("function pairs(n) {\n  return [n, [n, n * 2], {sum: n * 3}];\n}\n"
         "const half = (n) => n / 2;\n")
WRONG = ("function pairs(n) {\n  return [n, [n, n], {sum: n}];\n}\n"
         "const half = (n) => n;\n")
TESTS = {
    "multiple": ("const assert = require('node:assert');\n\nfunction test() {\n"
                 "  let candidate = pairs;\n"
                 "  assert.deepEqual(candidate(1),[1, [1, 2], {\"sum\": 3}]);\n"
                 "  assert.deepEqual(candidate(2),[2, [2, 4], {\"sum\": 6}]);\n}\n\ntest();\n"),
    "humaneval_x": ("const testPairs = () => {\n"
                    "  console.assert(JSON.stringify(pairs(1)) === JSON.stringify([1, [1, 2], "
                    "{sum: 3}]))\n"
                    "  console.assert(Math.abs(half(3) - 1.5) < 1e-9)\n"
                    "  console.assert(\n    JSON.stringify(pairs(2)) !==\n"
                    "      JSON.stringify([2, [2, 2], {sum: 2}])\n  )\n"
                    "  console.assert(half(4) === 2)\n}\n\ntestPairs()\n"),
    "loop": ("const assert = require('assert');\nfor (let n = 1; n < 3; n++) {\n"
             "  assert.deepStrictEqual(pairs(n), [n, [n, 2 * n], {sum: 3 * n}]);\n"
             "  console.assert(Math.abs(half(n) - n / 2) < 1e-9);\n"
             "}\n"),
}
ATTACKS = {
    "nothing (console.assert only prints)": "",
    "assert's functions replaced": (
        "for (const m of ['node:assert', 'assert']) { const a = require(m);\n"
        "  for (const k of ['deepEqual', 'deepStrictEqual', 'strictEqual', 'equal', 'ok'])"
        " a[k] = () => {};\n  a.strict.deepStrictEqual = () => {}; }\n"),
    "console.assert replaced": "console.assert = () => {};\n",
    "JSON.stringify replaced": "JSON.stringify = () => '\"same\"';\n",
    "Math.abs replaced": "Math.abs = () => 0;\n",
    "Object.keys replaced": "Object.keys = () => [];\n",
    "every array's JSON the same": "Array.prototype.toJSON = function () { return 1; };\n",
    "exit 0 from the function": "const real = pairs;\npairs = (n) => process.exit(0);\n",
    "exit 0 at the start": "process.exit(0);\n",
    "exit code forced at exit": "process.on('exit', () => { process.exitCode = 0; });\n",
    "failures swallowed": "process.on('uncaughtException', () => {});\n",
    "record forged": ("const fs = require('fs');\nfs.writeSync(3, fs.readFileSync(4));\n"
                      "process.exit(0);\n"),
    "garbage on the channel": "require('fs').writeSync(3, '{\"passed\": true}\\n[0,');\n",
    "output flood": ("const fs = require('fs');\nfor (let i = 0; i < 1 << 20; i++) "
                     "fs.writeSync(1, '[0,1]\\n'.repeat(16));\n"),
    "a value that cannot be written": "pairs = () => { const a = []; a.push(a); return a; };\n",
    "a value that throws when read": "pairs = () => ({ get sum() { throw new Error('no'); } });\n",
}
# What no program can be kept from inside its own process (docs/code.md: which tests are judged
# outside the solution's process): forging the run's record, patching the prototypes of the
# values the tests build.
IN_PROCESS_ONLY = {"record forged", "every array's JSON the same"}


def _item(language: str, response: str, tests: str) -> CodeItem:
    return CodeItem(language=language, response=response, limits=LIMITS,
                    tests={"type": "assert", "code": tests})


def _typescript(tests: str) -> str:
    return tests.replace("const assert = require(", "declare var require: any;\n"
                                                     "const assert = require(", 1)


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_right_solutions_pass_and_say_where_they_were_judged(language):
    shapes = {name: _typescript(t) if language == "typescript" else t
              for name, t in TESTS.items()}
    results = run_code_items([_item(language, RIGHT, tests) for tests in shapes.values()])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("correct", "in_process" if shape == "loop" else "outside") for shape in shapes], results


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_attacks_earn_nothing(language):
    cases = [(attack, shape) for attack in ATTACKS for shape in TESTS
             if not (shape == "loop" and attack in IN_PROCESS_ONLY)]
    items = [_item(language, WRONG + ATTACKS[attack],
                   _typescript(TESTS[shape]) if language == "typescript" else TESTS[shape])
             for attack, shape in cases]
    results = run_code_items(items)
    won = [(case, r.status.value, r.detail.get("tests", [{}])[0].get("message"))
           for case, r in zip(cases, results, strict=True)
           if r.reward != 0.0 or r.status.value == "infra_error"]
    assert not won, won


def test_a_failed_console_assert_is_wrong_and_names_its_line():
    result = run_code_items([_item("javascript", WRONG, TESTS["humaneval_x"])])[0]
    assert result.status.value == "wrong"
    assert result.detail["tests"][0]["message"] == "the assertion at line 2 of the tests failed"


def test_in_process_forgery_is_marked_and_can_be_refused():
    forged = _item("javascript", WRONG + ATTACKS["record forged"], TESTS["loop"])
    assert run_code_items([forged])[0].detail["judged"] == "in_process"
    refused = run_code_items([forged], Settings(in_process_tests="refuse"))[0]
    assert (refused.status.value, refused.detail["judged"]) == ("infra_error", "in_process")


def test_expected_values_are_out_of_the_solutions_reach():
    # The program reads its own source and every file it can: the expected value is nowhere.
    finder = ("const fs = require('fs');\nconst seen = [];\nconst walk = (d) => { let names = []; "
              "try { names = fs.readdirSync(d); } catch (e) { return; }\n  for (const n of names)"
              " { const p = d + '/' + n; try { const s = fs.statSync(p); if (s.isDirectory()) "
              "walk(p); else if (s.size < 1 << 20) seen.push(fs.readFileSync(p, 'latin1')); } "
              "catch (e) {} } };\nwalk('.'); walk('/tmp');\n"
              "const found = seen.join('').match(new RegExp('zq-' + 'expected-[0-9]+'));\n"
              "function f() { return found ? found[0] : 'nothing'; }\n")
    tests = ("const assert = require('node:assert');\nfunction test() {\n  let candidate = f;\n"
             "  assert.deepEqual(candidate(), 'zq-expected-91');\n}\ntest();\n")
    result = run_code_items([_item("javascript", finder, tests)])[0]
    assert result.status.value == "wrong", result


def test_expected_values_the_tests_name_are_out_of_the_solutions_reach():
    # A literal variable the tests compare with (`let want = ...`) is no argument of a call:
    # the driver does not declare it, so the program's own source does not hold it.
    finder = ("const src = require('fs').readFileSync(__filename, 'latin1');\n"
              "function f() { const m = src.match(new RegExp('zq-' + 'expected-[0-9]+'));"
              " return m ? m[0] : 'nothing'; }\n")
    tests = ("const assert = require('node:assert');\nfunction test() {\n  let candidate = f;\n"
             "  let want = 'zq-expected-91';\n  assert.deepEqual(candidate(), want);\n}\ntest();\n")
    results = run_code_items([_item(language, finder, tests)
                              for language in ("javascript", "typescript")])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("wrong", "outside")] * 2, results


def test_a_tolerance_on_a_sum_concatenates_as_javascript_does():
    # `Math.abs(f(3) + 1.5)`: `+` joins a string (or an array's text) with 1.5's, so a value
    # of the right number but the wrong type is NaN there, as in node.
    tests = "const testF = () => {\n  console.assert(Math.abs(f(3) + 1.5) < 1e-9)\n}\ntestF()\n"
    bodies = ["-n / 2", "String(-n / 2)", "[-n / 2]"]
    results = run_code_items([_item("javascript", f"const f = (n) => {body};\n", tests)
                              for body in bodies])
    assert [r.status.value for r in results] == ["correct", "wrong", "wrong"], results


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_a_solution_that_starts_with_a_shebang_runs_in_process(language):
    # The prologue went before the `#!` line, which is then a SyntaxError: a right solution
    # was rejected by tests that are not plain calls.
    tests = _typescript(TESTS["loop"]) if language == "typescript" else TESTS["loop"]
    items = [_item(language, f"#!/usr/bin/env node\n{head}{solution}", tests)
             for head in ("", "'use strict';\n") for solution in (RIGHT, WRONG)]
    assert [r.status.value for r in run_code_items(items)] == ["correct", "wrong"] * 2


def test_a_legacy_octal_literal_is_the_number_javascript_reads():
    # Sloppy-mode JavaScript reads `010` as 8 (`08` is decimal): the solution returning 8 is
    # right, the one returning 10 wrong.
    tests = ("const assert = require('node:assert');\nfunction test() {\n  let candidate = f;\n"
             "  assert.deepEqual(candidate(), 010);\n  assert.deepEqual(candidate(), 08);\n}\n"
             "test();\n")
    results = run_code_items([_item("javascript", f"function f() {{ return {n}; }}\n", tests)
                              for n in (8, 10)])
    assert [r.status.value for r in results] == ["correct", "wrong"], results


# The driver records values in the solution's process: a wrong solution that patches what a
# serialiser would call, to rewrite its values' records into the right values', earns nothing.
_REWRITE = r"""const __fix = (s) => typeof s !== 'string' ? s : s.replace(
  /\["l",(\d+),\["l",\1,\1\],\["o","sum",\1\]\]/g,
  (m, n) => '["l",' + n + ',["l",' + n + ',' + 2 * n + '],["o","sum",' + 3 * n + ']]');
"""
SERIALISER_ATTACKS = {
    # A hole where the right element belongs, and that element on Array.prototype: node's
    # deepEqual sees no element there, reading the array's index found the prototype's.
    "a hole filled from Array.prototype": (
        "function pairs(n) {\n  const inner = new Array(2);\n  inner[0] = n;\n"
        "  Array.prototype[1] = 2 * n;\n  return [n, inner, {sum: 3 * n}];\n}\n"),
    "JSON.stringify": "const __s = JSON.stringify;\nJSON.stringify = (...a) => __fix(__s(...a));\n",
    "Array.prototype.push": (
        "const __p = Array.prototype.push;\nArray.prototype.push = function (...a) "
        "{ return __p.apply(this, a.map(__fix)); };\n"),
    "Array.prototype.join": (
        "const __j = Array.prototype.join;\nArray.prototype.join = function (s) "
        "{ return __fix(__j.call(this, s)); };\n"),
    "fs.writeSync": ("const __fs = require('fs'), __w = __fs.writeSync;\n"
                     "__fs.writeSync = (fd, s, ...r) => __w(fd, __fix(s), ...r);\n"),
    "Array.prototype.toJSON": (
        "Array.prototype.toJSON = function () { const n = this[1];\n  return this[0] === 'l' && "
        "Array.isArray(this[2]) && this[2][0] === 'l' && this[2][2] === n\n    ? ['l', n, ['l', n, "
        "2 * n], ['o', 'sum', 3 * n]] : this.slice(); };\n"),
}


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_the_serialiser_is_out_of_the_solutions_reach(language):
    tests = TESTS["multiple"]
    tests = _typescript(tests) if language == "typescript" else tests
    results = run_code_items([_item(language, WRONG + _REWRITE + attack, tests)
                              for attack in SERIALISER_ATTACKS.values()])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("wrong", "outside")] * len(SERIALISER_ATTACKS), results


# node's deepStrictEqual tells an object of another prototype (a class instance,
# Object.create(null), an Array subclass) from a literal, and both deepEqual and
# deepStrictEqual an array with properties beyond its elements; JSON.stringify sees neither.
# The driver recorded them as the literal's kind, so such a wrong result passed outside. Each
# (solution, check) judged outside and in-process (a loop makes it more than plain calls)
# gets the same verdict.
_PROTOTYPES = [
    ("function f() { const o = Object.create(null); o.a = 1; return o; }\n",
     "assert.deepStrictEqual(f(), {a: 1});"),
    ("class Foo { constructor() { this.a = 1; } }\nfunction f() { return new Foo(); }\n",
     "assert.deepStrictEqual(f(), {a: 1});"),
    ("class Foo { constructor() { this.a = 1; } }\nfunction f() { return [new Foo()]; }\n",
     "assert.deepEqual(f(), [{a: 1}]);"),
    ("class A extends Array {}\nfunction f() { return A.from([1, 2]); }\n",
     "assert.deepStrictEqual(f(), [1, 2]);"),
    ("class A extends Array {}\nfunction f() { return A.from([1, 2]); }\n",
     "assert.deepEqual(f(), [1, 2]);"),
    ("function f() { const a = [1, 2]; a.extra = 1; return a; }\n",
     "assert.deepEqual(f(), [1, 2]);"),
    ("function f() { const a = [1, 2]; a.extra = 1; return a; }\n",
     "console.assert(JSON.stringify(f()) === JSON.stringify([1, 2]));"),
    ("function f() { return new Map([[1, [2]]]); }\n",
     "assert.deepStrictEqual(f(), new Map([[1, [2]]]));"),
]


def test_prototypes_and_properties_are_judged_as_node_compares_them():
    head = "const assert = require('node:assert');\n"
    items = [_item("javascript", solution, head + check + tail) for solution, check in _PROTOTYPES
             for tail in ("\n", "\nfor (let i = 0; i < 1; i++) {}\n")]
    results = run_code_items(items)
    verdicts = [r.status.value for r in results]
    assert verdicts[0::2] == verdicts[1::2], results
    assert verdicts[0::2] == ["wrong", "wrong", "correct", "wrong", "correct", "wrong", "correct",
                              "correct"], results

