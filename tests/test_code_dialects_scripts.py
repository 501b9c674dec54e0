"""Calls dialects of the script languages (Lua, PHP, Perl, Ruby, R, bash) without the jail:
which tests are plain calls, what the worker expects, how it compares with each language's
semantics, and that no text of the tests can break the parsers."""

from __future__ import annotations

import math
import random

import pytest

from verifier.kinds.code.dialects import DIALECTS, calls_plan
from verifier.kinds.code.dialects.core import Check, NotPlainCalls
from verifier.kinds.code.dialects.values import Map, Opaque

# MultiPL-E's shapes, as its translators write them (humaneval_to_<lang>.py), on problems of
# our own.
MULTIPLE = {
    "lua": """lu = require('luaunit')

function test_humaneval()
local candidate = f
    lu.assertEquals(candidate({1.0, 2.5}, 'a\\tb'), {'zq9', None, true})
    lu.assertEquals(candidate({}, ''), {['k'] = -3, [2] = 0.5})
    lu.assertEquals(candidate({1}, "\\65\\x42\\u{e9}"), 7)
end

os.exit(lu.LuaUnit.run())""",
    "php": """function candidate(...$args) {
    return f(...$args);
}

function test(): void {
    if (candidate(array(1.0, 2.5), "a\\tb") !== array("zq9", null, true)) {
        throw new Exception("Test failed!"); }
    if (candidate(array(), "") !== array("k" => -3, "2" => 0.5)) {
        throw new Exception("Test failed!"); }
    if (candidate(array(1), 'it\\'s') !== 7) { throw new Exception("Test failed!"); }
}

test();""",
    "perl": """use Test::Deep;


sub testhumaneval {
    my $candidate = \\&f;
        if(eq_deeply($candidate->([1.0, 2.5], "a\\tb"),["zq9", undef, 1])) {
        print "ok!" }else{
        exit 1;
        }
        if(eq_deeply($candidate->([], ""),{"k" => -3, 2 => 0.5})) {
        print "ok!" }else{
        exit 1;
        }
        if(eq_deeply($candidate->([1], 'it\\'s'),7.0)) {
        print "ok!" }else{
        exit 1;
        }
}

testhumaneval();""",
    "ruby": """require 'test/unit'
class TestHumanEval < Test::Unit::TestCase
  def test_f
    candidate = method(:f)
    assert_equal(["zq9", nil, true], candidate.call([1.0, 2.5], "a\\tb"))
    assert_equal({"k" => -3, 2 => 0.5}, candidate.call([], ""))
    assert_equal(7, candidate.call([1], 'it\\'s'))
  end
end
""",
    "r": """test_humaneval <- function() {
    candidate <- f
    stopifnot(isTRUE(all.equal(candidate(c(1.0, 2.5), 'a\\tb'), list('zq9', NULL, TRUE))))
    stopifnot(isTRUE(all.equal(candidate(c(), ''), list('k' = -3, 'z' = c(0.5, 1L)))))
    stopifnot(isTRUE(all.equal(candidate(c(1), 'it\\'s'), 7)))
}
test_humaneval()""",
    "bash": """}

candidate() {
    f "$@"
}

set -e
run_test() {
    [[ $(candidate "1.0 2.5" "a\\tb") = "zq9 None true" ]]
    [[ $(candidate "" "") = "k,-3\\n2,0.5" ]]
    [[ $(candidate "1" "a\\$b\\!") = "7" ]]
}

run_test""",
}
EXPECTED = {
    "lua": [Map(((1, b"zq9"), (3, True))), Map(((b"k", -3), (2, 0.5))), 7],
    "php": [Map(((0, b"zq9"), (1, None), (2, True))), Map(((b"k", -3), (2, 0.5))), 7],
    "perl": [[("zq9", 0), None, ("1", 1)], Map(((("k", 0), ("-3", -3)), (("2", 2), ("0.5", 0.5)))),
             ("7", 7.0)],
    "ruby": [["zq9", None, True], Map((("k", -3), (2, 0.5))), 7],
    "r": [("list", None, [("character", None, [b"zq9"]), None, ("logical", None, [True])]),
          ("list", [b"k", b"z"], [("double", None, [-3.0]), ("double", None, [0.5, 1.0])]),
          ("double", None, [7.0])],
    "bash": [b"zq9 None true", b"k,-3\\n2,0.5", b"7"],
}
CALLS = {
    "lua": "candidate({1.0, 2.5}, 'a\\tb')",
    "php": 'candidate(array(1.0, 2.5), "a\\tb")',
    "perl": '$candidate->([1.0, 2.5], "a\\tb")',
    "ruby": 'candidate.call([1.0, 2.5], "a\\tb")',
    "r": "candidate(c(1.0, 2.5), 'a\\tb')",
    "bash": 'candidate "1.0 2.5" "a\\tb"',
}
LINES = {"lua": [5, 6, 7], "php": [6, 8, 10], "perl": [6, 10, 14], "ruby": [5, 6, 7],
         "r": [3, 4, 5], "bash": [9, 10, 11]}


@pytest.mark.parametrize("language", sorted(MULTIPLE))
def test_multiple_shapes_are_plain_calls_with_the_languages_literals(language):
    found = calls_plan(language, MULTIPLE[language])
    assert found is not None
    assert [site.check.expected for site in found.sites] == EXPECTED[language]
    assert found.sites[0].call == CALLS[language]
    assert [site.line for site in found.sites] == LINES[language]
    assert "zq9" not in found.driver  # no expected value is in the program the jail runs


def test_the_third_lua_string_decodes_every_escape():
    found = calls_plan("lua", MULTIPLE["lua"])
    assert "\\65\\x42\\u{e9}" in found.sites[2].call


# The same checks written the other ways each language's tests write them.
OTHER_SHAPES = {
    "lua": ("local candidate = add\nassert(candidate(1, 2) == 3)\nassert(not add(0, 0))\n"
            "assert(add(1, 1) ~= 3)\nlu = require(\"luaunit\")\nlu.assertTrue(add(1, 2))\n", 4),
    "php": ("<?php\nassert(add(1, 2) === 3);\nif (3 !== add(1, 2)) throw new Exception('no');\n"
            "if (!(add(1, 2) === 3)) { throw new AssertionError(); }\n", 3),
    "perl": ("my $candidate = \\&add;\nif ($candidate->(1, 2) != 3) { die \"assertion failed\"; }"
             "\ndie 'no' unless add(1, 2) eq '3';\nunless (add(1, 2) == 3) { exit(2); }\n", 3),
    "ruby": ("raise 'assertion failed' unless add(1, 2) == 3\nraise 'no' if add(1, 2) != 3\n"
             "candidate = method(:add)\nassert(candidate.call(1, 2) == 3)\n"
             "assert_nil(add(nil, nil))\n", 4),
    "r": ("candidate <- add\nstopifnot(all.equal(3, candidate(1, 2)))\n"
          "stopifnot(identical(add(1L, 2L), 3L))\n", 2),
    "bash": ("set -e\ncandidate() { add \"$@\"; }\nrun_test() {\n"
             "    [[ \"$(candidate 1 2)\" == '3' ]]\n    [[ $(add 1 2) != 4 ]]\n}\nrun_test\n", 2),
}


@pytest.mark.parametrize("language", sorted(OTHER_SHAPES))
def test_other_shapes_of_plain_calls(language):
    tests, count = OTHER_SHAPES[language]
    found = calls_plan(language, tests)
    assert found is not None and len(found.sites) == count


# MultiPL-E's PHP comparison helpers (its tests since nuprl/MultiPL-E#72, before its
# `candidate` wrapper): `deep_equal` is `===` after integer-keyed arrays are renumbered.
PHP_DEEP_EQUAL = """function is_int_keyed_array($value): bool {
    if (!is_array($value)) {
        return false;
    }
    foreach (array_keys($value) as $key) {
        if (!is_int($key)) {
            return false;
        }
    }
    return true;
}

function normalize_array($value) {
    if (!is_array($value)) {
        return $value;
    }
    if (is_int_keyed_array($value)) {
        $values = array_values($value);
        foreach ($values as $index => $item) {
            $values[$index] = normalize_array($item);
        }
        return $values;
    }
    $normalized = array();
    foreach ($value as $key => $item) {
        $normalized[$key] = normalize_array($item);
    }
    return $normalized;
}

function deep_equal($left, $right): bool {
    if (is_array($left) && is_array($right)) {
        return normalize_array($left) === normalize_array($right);
    }
    return $left === $right;
}
"""


def test_php_multiple_deep_equal_renumbers_integer_keyed_arrays():
    tests = (PHP_DEEP_EQUAL + "\nfunction candidate(...$args) {\n    return f(...$args);\n}\n\n"
             "function test(): void {\n    if (!deep_equal(candidate(array(1, 2)), array(\"b\"))) "
             "{ throw new Exception(\"Test failed!\"); }\n    if (!deep_equal(candidate(\"x\"), "
             "array(\"k\" => array(5 => 1)))) { throw new Exception(\"Test failed!\"); }\n}\n\n"
             "test();")
    found = calls_plan("php", tests)
    assert found is not None and [site.line for site in found.sites] == [43, 44]
    listed, keyed = (site.check for site in found.sites)
    assert _holds("php", listed.expected, Map(((3, b"b"),)), how=listed.how)
    assert not _holds("php", listed.expected, Map(((0, b"b"), (1, b"c"))), how=listed.how)
    assert _holds("php", keyed.expected, Map(((b"k", Map(((0, 1),))),)), how=keyed.how)
    assert not _holds("php", keyed.expected, Map(((7, Map(((0, 1),))),)), how=keyed.how)
    assert not _holds("php", keyed.expected, Map(((b"k", Map(((0, 1.0),))),)), how=keyed.how)
    # a helper that is not MultiPL-E's, or one missing, is no comparison we know
    assert calls_plan("php", tests.replace("=== normalize_array($right)",
                                           "== normalize_array($right)")) is None
    assert calls_plan("php", tests.replace("function is_int_keyed_array",
                                           "function is_int_keyed")) is None


NOT_PLAIN = {
    "lua": [
        "for i = 1, 3 do assert(f(i) == i) end\n",
        "local x = f(1)\nassert(x == 2)\n",
        "assert(f(1) == {1, 2})\n",  # a new table: equal to nothing with ==
        "assert(f(g(1)) == 2)\n",
        "assert(f(1) == 2 and f(2) == 3)\n",
        "function test_x()\n assert(f(1) == 2)\nend\n",  # never run
        "lu = require('other')\nlu.assertEquals(f(1), 2)\n",
        "assert(f(1) == 1 + 1)\n",
        "local function helper(x) return x end\nassert(helper(1) == 1)\n",
    ],
    "php": [
        "for ($i = 0; $i < 3; $i++) { if (f($i) !== $i) { throw new Exception('x'); } }\n",
        "if (f(1) != 2) { throw new Exception('x'); }\n",  # loose
        "if (f(1) !== \"a$b\") { throw new Exception('x'); }\n",  # interpolation
        "if (f(1) !== 2) { echo 'x'; }\n",
        "function helper() { return 2; }\nif (f(1) !== helper()) { throw new Exception('x'); }\n",
        "$x = f(1);\nassert($x === 2);\n",
    ],
    "perl": [
        "for my $i (1..3) { die 'x' unless f($i) == $i; }\n",
        "if (f(1) == 2) { print 'ok' } else { print 'no' }\n",  # never fails
        "die 'x' unless f(1) == 1 + 1;\n",
        "die 'x' unless f(\"@a\") eq 'b';\n",  # interpolation
        "die 'x' unless f(1) == [1];\n",
        "sub helper { 1 }\ndie 'x' unless helper(1) == 1;\n",
        "use Test::More;\nis(f(1), 2);\n",
    ],
    "ruby": [
        "3.times { |i| raise 'x' unless f(i) == i }\n",
        "raise 'x' unless f(1) == \"#{1}\"\n",
        "assert_equal(2, f(1) + 0)\n",
        "x = f(1)\nassert_equal(2, x)\n",
        "def helper\n  1\nend\nassert_equal(1, helper())\n",
        "class T < Test::Unit::TestCase\n  def setup\n  end\nend\n",
    ],
    "r": [
        "for (i in 1:3) stopifnot(isTRUE(all.equal(f(i), i)))\n",
        "stopifnot(f(1) == 2)\n",
        "stopifnot(isTRUE(all.equal(f(1), 2, tolerance = 0.5)))\n",
        "stopifnot(isTRUE(all.equal(f(1), sqrt(2))))\n",
        "test <- function() {\n stopifnot(isTRUE(all.equal(f(1), 2)))\n}\n",  # never run
        "stopifnot(isTRUE(all.equal(f(1), c(1, 'a'))))\n",
    ],
    "bash": [
        "for i in 1 2; do [[ $(f $i) = $i ]]; done\n",
        "[[ $(f 1) = \"$x\" ]]\n",
        "[[ $(f 1) = a* ]]\n",  # a pattern
        "[[ $(f \"$(cat /etc/passwd)\") = 1 ]]\n",
        "[ \"$(f 1)\" = 1 ]\n",
        "run_test() {\n    [[ $(f 1) = 1 ]]\n}\n",  # never run
    ],
}


@pytest.mark.parametrize(("language", "tests"), [
    (language, tests) for language, cases in NOT_PLAIN.items() for tests in cases])
def test_what_is_not_plain_calls_runs_in_process(language, tests):
    with pytest.raises(NotPlainCalls):
        DIALECTS[language].plan(tests)
    assert calls_plan(language, tests) is None


def _holds(language: str, expected, value, **check) -> bool:
    return DIALECTS[language].holds(Check("equal", expected, **check), value)


def test_lua_equality_is_luaunits():
    assert _holds("lua", 1, 1.0) and not _holds("lua", 1, b"1")
    assert _holds("lua", Map(((1, b"a"), (2, b"b"))), Map(((2, b"b"), (1.0, b"a"))))
    assert not _holds("lua", Map(((1, b"a"),)), Map(((1, b"a"), (2, b"b"))))
    assert not _holds("lua", math.nan, math.nan) and not _holds("lua", True, 1)
    assert not _holds("lua", None, False) and not _holds("lua", 1, Opaque("function"))
    assert DIALECTS["lua"].holds(Check("truth"), 0) and not DIALECTS["lua"].holds(
        Check("truth"), None)


def test_php_identity_is_strict():
    assert not _holds("php", 1, 1.0) and not _holds("php", b"1", 1) and _holds("php", 0.0, -0.0)
    assert _holds("php", Map(((0, b"a"),)), Map(((0, b"a"),)))
    assert not _holds("php", Map(((b"a", 1), (b"b", 2))), Map(((b"b", 2), (b"a", 1))))
    assert not _holds("php", Map(((0, 1),)), Map(((b"0", 1),)))
    assert not _holds("php", None, False) and not _holds("php", math.nan, math.nan)


def test_php_keys_coerce_as_php_does():
    found = calls_plan("php", 'if (f(1) !== array("8" => 1, "08" => 2, true => 3, 1.7 => 4, '
                              'null => 5, 9 => 6, 7)) { throw new Exception("x"); }\n')
    assert found.sites[0].check.expected == Map((
        (8, 1), (b"08", 2), (1, 4), (b"", 5), (9, 6), (10, 7)))


def test_perl_compares_as_eq_deeply_does():
    # eq_deeply(LIST, EXPECTED): the call's list, then the literal; scalars by `eq`.
    assert _holds("perl", ("1", 1), [("1.0", 1.0)], how="eq_deeply") is False
    assert _holds("perl", ("1", 1.0), [("1", 1)], how="eq_deeply")
    assert _holds("perl", ("", 0), [("", 0)], how="eq_deeply")
    assert not _holds("perl", ("", 0), [None], how="eq_deeply")
    assert not _holds("perl", [("1", 1), ("2", 2)], [("1", 1), ("2", 2)], how="eq_deeply")
    assert _holds("perl", [("1", 1)], [[("1", 1)]], how="eq_deeply")
    assert _holds("perl", None, [], how="eq_deeply")  # `return;` is undef
    # eq_deeply($candidate->(...), K) of a sub returning (2, 2) compares 2 with 2, whatever K:
    # a call of more than one value fails instead.
    assert not _holds("perl", ("7", 7), [("2", 2), ("2", 2)], how="eq_deeply")
    assert not _holds("perl", None, [Opaque("ref")], how="eq_deeply")
    assert _holds("perl", ("3", 3), ("3.0", 3.0), how="==")
    assert not _holds("perl", ("3", 3), ("3.0", 3.0), how="eq")
    assert _holds("perl", ("0", 0), None, how="==")  # undef is 0


def test_perl_numbers_are_written_as_perl_writes_them():
    found = calls_plan("perl", "die 'x' unless f(1) eq 0.30000000000000004;\n"
                               "die 'x' unless f(2) eq 1e21;\ndie 'x' unless f(3) eq 100.0;\n")
    assert [site.check.expected[0] for site in found.sites] == ["0.3", "1e+21", "100"]


def test_ruby_equality():
    assert _holds("ruby", 1, 1.0) and not _holds("ruby", "a", ("sym", "a"))
    assert not _holds("ruby", Map(((1, 2),)), Map(((1.0, 2),)))
    assert _holds("ruby", Map(((1, 2), ("a", [1]))), Map((("a", [1.0]), (1, 2))))
    assert not _holds("ruby", "é", "é".encode()) and not _holds("ruby", None, False)


def test_r_all_equal_is_rs():
    double = lambda *items: ("double", None, list(items))  # noqa: E731
    assert _holds("r", double(0.3), double(0.1 + 0.2))
    assert _holds("r", double(1.0, 2.0), ("integer", None, [1, 2]))
    assert _holds("r", double(1.0), double(1.0 + 1e-9))
    assert not _holds("r", double(1.0), double(1.0 + 1e-6))
    assert not _holds("r", double(1.0), ("logical", None, [True]))
    assert not _holds("r", None, ("list", None, []))
    assert not _holds("r", None, ("double", None, []))
    assert not _holds("r", double(1.0), ("double", [b"a"], [1.0]))
    assert not _holds("r", ("list", None, [double(1.0)]), double(1.0))
    assert _holds("r", double(None, 2.0), double(math.nan, 2.0))
    assert not _holds("r", double(math.inf), double(1e308))
    assert not _holds("r", double(1.0), Opaque("object"))
    assert not _holds("r", ("integer", None, [1]), double(1.0), how="identical")


def test_bash_compares_bytes():
    assert _holds("bash", b"3", b"3") and not _holds("bash", b"3", b"3 ")
    assert _holds("bash", b"3", b"4", negated=True)


def test_no_text_of_the_tests_breaks_a_parser():
    # Tests are untrusted: cut, shuffled or spliced, they are plain calls or not, nothing else.
    chaos = random.Random(22)
    for language, tests in MULTIPLE.items():
        pieces = [*tests, *"()[]{}\"'$@#\\,;=<>!~-\n", "end", "function", "[[", "]]", "--[[",
                  "array(", "=>", "c(", "list(", "sub ", "def ", "<<EOF"]
        for _ in range(300):
            text = list(tests)
            for _ in range(chaos.randint(1, 4)):
                at = chaos.randrange(len(text) + 1)
                if chaos.random() < 0.5 and text:
                    del text[at:at + chaos.randint(1, 8)]
                else:
                    text[at:at] = chaos.choice(pieces)
            calls_plan(language, "".join(text))  # raises nothing


def test_deep_nesting_is_refused_not_a_crash():
    for language, opening, closing in (("lua", "{", "}"), ("php", "[", "]"),
                                       ("perl", "[", "]"), ("ruby", "[", "]")):
        deep = opening * 5000 + closing * 5000
        tests = {"lua": f"assert(f(1) == {deep})\n",
                 "php": f"assert(f(1) === {deep});\n",
                 "perl": f"die 'x' unless eq_deeply(f(1), {deep});\n",
                 "ruby": f"assert_equal({deep}, f(1))\n"}[language]
        assert calls_plan(language, tests) is None
    assert calls_plan("r", "stopifnot(isTRUE(all.equal(f(1), " + "list(" * 5000 + ")" * 5000
                      + ")))\n") is None


def _forged(chaos: random.Random, depth: int = 0):
    """A value as a record can hold it: whatever a solution writes on the channel itself."""
    atoms = [None, True, False, 0, 1, -1, 2.5, math.nan, "x", "", b"x", b"", ("t", "sym", "a")]
    if depth > 3 or chaos.random() < 0.4:
        return chaos.choice(atoms)
    kind = chaos.choice(["list", "tuple", "map", "r"])
    items = [_forged(chaos, depth + 1) for _ in range(chaos.randint(0, 3))]
    if kind == "list":
        return items
    if kind == "tuple":
        return tuple(items)
    if kind == "map":
        return Map(tuple((_forged(chaos, depth + 1), item) for item in items))
    return (chaos.choice(["double", "integer", "character", "logical", "list"]),
            chaos.choice([None, [b"a"] * len(items), items]), items)


def test_no_recorded_value_breaks_a_comparison():
    # A solution can write records of any shape on the channel itself: each check says no to
    # what it does not expect, it never raises.
    chaos = random.Random(7)
    checks = [(language, site.check) for language, tests in MULTIPLE.items()
              for site in calls_plan(language, tests).sites]
    checks += [(language, Check(kind, expected, how=how)) for language in MULTIPLE
               for kind in ("equal", "truth") for how in ("", "==", "eq", "eq_deeply",
                                                          "identical", "all.equal current")
               for expected in (None, 1, ("1", 1), ("double", None, [1.0]))]
    for _ in range(3000):
        language, check = chaos.choice(checks)
        DIALECTS[language].holds(check, _forged(chaos))
