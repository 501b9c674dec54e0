"""Lua, PHP, Perl, Ruby, R and bash assert tests against solutions that attack them, through the
real interpreters and jail.

Each attack is a wrong solution (its `add` subtracts) with a trick that beat the tests when they
ran in its process: shadowing what the tests use (`assert`, `stopifnot`, `raise`, `set`, a
luaunit or Test::Deep of its own), overriding builtins, switching assertions off, exit handlers,
early exits, forged records, floods. Each must earn nothing, and never an infra_error, whatever
the tests' shape: MultiPL-E's harness and the languages' plain assert idioms (judged outside the
solution's process) and a loop (not plain calls: in the solution's process, hardened where the
language allows it; docs/code.md: which tests are judged outside the solution's process).
"""

from __future__ import annotations

import shutil

import pytest

from rlvr_contract.schemas import CodeItem
from tests.test_code_dialects_scripts import PHP_DEEP_EQUAL
from verifier.kinds.code import run_code_items

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

LIMITS = {"time_s": 5, "memory_mb": 256}
# {} in an attack stands for the wrong solution; an attack without it follows the solution.
LANGUAGES = {
    "lua": {
        "right": "local function add(a, b) return a + b end\n",
        "wrong": "local function add(a, b) return a - b end\n",
        "shapes": {
            "multiple": "lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = "
                        "add\n    lu.assertEquals(candidate(1, 2), 3)\n    lu.assertEquals("
                        "candidate(2, 2), 4)\nend\n\nos.exit(lu.LuaUnit.run())",
            "asserts": "local candidate = add\nassert(candidate(1, 2) == 3)\n"
                       "assert(candidate(2, 2) == 4)\n",
            "loop": "for i = 1, 3 do\n  assert(add(i, i) == 2 * i)\nend\n",
        },
        "attacks": {
            "assert shadowed": "assert = function() return true end\n",
            "assert shadowed by a local": "local assert = function() return true end\n",
            "luaunit preloaded": "package.preload['luaunit'] = function() return {assertEquals ="
                                 " function() end, LuaUnit = {run = function() return 0 end}} "
                                 "end\n",
            "luaunit written beside the program": (
                "do local f = io.open('luaunit.lua', 'w') if f then f:write('return {assertEqua"
                "ls = function() end, LuaUnit = {run = function() return 0 end}}') f:close() end "
                "end\n"),
            "os.exit(0) at load": "os.exit(0)\n",
            "driver's names taken": "__verifier_record = function() end\nio.open = nil\n",
            "garbage on the channel": "io.open('/proc/self/fd/3', 'w'):write('{\"passed\": true}"
                                      "\\n[0,3]\\n[0,4]\\n[')\n",
            "output flood": "for i = 1, 300000 do io.write('[0,3]\\n') end\n",
            "record forged": "do local i = io.open('/proc/self/fd/4', 'rb') local o = io.open("
                             "'/proc/self/fd/3', 'wb') o:write(i:read('a')) o:close() "
                             "os.exit(0) end\n",
            # A hook on every call: the serialiser's value made the right one, the argument of
            # the tests' assert true.
            "debug hook that rewrites locals": (
                "debug.sethook(function()\n  local f = debug.getinfo(2, 'f').func\n"
                "  if f == assert then debug.setlocal(2, 1, true) end\n  for i = 1, 4 do\n"
                "    local name, v = debug.getlocal(2, i)\n"
                "    if name == 'value' and (v == -1 or v == 0) then debug.setlocal(2, i, v + 4)"
                " end\n  end\nend, 'c')\n"),
        },
        "in_process_only": {"record forged"},
    },
    "php": {
        "right": "<?php\nfunction add($a, $b) { return $a + $b; }\n",
        "wrong": "<?php\nfunction add($a, $b) { return $a - $b; }\n",
        "shapes": {
            "multiple": "function candidate(...$args) {\n    return add(...$args);\n}\n\nfunction "
                        "test(): void {\n    if (candidate(1, 2) !== 3) { throw new Exception("
                        "\"Test failed!\"); }\n    if (candidate(2, 2) !== 4) { throw new "
                        "Exception(\"Test failed!\"); }\n}\n\ntest();",
            "asserts": "assert(add(1, 2) === 3);\nassert(add(2, 2) === 4);\n",
            "loop": "for ($i = 1; $i < 3; $i++) {\n    assert(abs(add($i, $i) - 2 * $i) < 1);\n"
                    "    if (count([add($i, $i)]) !== 1) { throw new Exception('x'); }\n}\n",
        },
        "attacks": {
            "exit(0) at load": "exit(0);\n",
            "assertions switched off": "ini_set('zend.assertions', '0');\n"
                                       "ini_set('assert.active', '0');\n",
            "builtins shadowed by a namespace": "<?php\nnamespace Sneaky;\nfunction add($a, $b) "
                                                "{ return $a - $b; }\nfunction abs($x) { return 0;"
                                                " }\n",
            "exception handler that exits 0": "set_exception_handler(function ($e) { exit(0); });"
                                              "\n",
            "shutdown function that exits 0": "register_shutdown_function(function () { exit(0);"
                                              " });\n",
            "error handler": "set_error_handler(function () { return true; });\n",
            "driver's names taken": "$__verifier_record = null;\n"
                                    "function __verifier_check_0() { return true; }\n",
            "record forged by a shutdown function": (
                "register_shutdown_function(function () { file_put_contents('php://fd/3', "
                "file_get_contents('php://fd/4')); });\n"),
        },
        "in_process_only": {"record forged by a shutdown function"},
    },
    "perl": {
        "right": "sub add { my ($a, $b) = @_; return $a + $b; }\n",
        "wrong": "sub add { my ($a, $b) = @_; return $a - $b; }\n",
        "shapes": {
            "multiple": "use Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&add;\n"
                        "        if(eq_deeply($candidate->(1, 2),3)) {\n        print \"ok!\" }"
                        "else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(2,"
                        " 2),4)) {\n        print \"ok!\" }else{\n        exit 1;\n        }\n}\n"
                        "\ntesthumaneval();",
            "asserts": "my $candidate = \\&add;\nif ($candidate->(1, 2) != 3) { die \"assertion "
                       "failed\"; }\ndie \"assertion failed\" unless add(2, 2) == 4;\n",
            "loop": "for my $i (1..3) { die \"assertion failed\" unless add($i, $i) == 2 * $i; }\n"
                    "exit 1 if add(1, 1) != 2;\n",
        },
        "attacks": {
            "die overridden globally": "BEGIN { *CORE::GLOBAL::die = sub { 1 }; }\n",
            "exit overridden globally": "BEGIN { *CORE::GLOBAL::exit = sub { 1 }; }\n",
            "die and exit overridden in the package": "use subs qw(die exit);\nsub die { 1 }\n"
                                                      "sub exit { 1 }\n",
            "Test::Deep of its own": "BEGIN { $INC{'Test/Deep.pm'} = 1; }\nsub eq_deeply { 1 }\n",
            "END block that exits 0": "END { $? = 0; }\n",
            "__DIE__ handler that exits 0": "$SIG{__DIE__} = sub { exit 0 };\n",
            "POSIX::_exit(0) at load": "use POSIX ();\nPOSIX::_exit(0);\n",
            "record forged": "BEGIN { open(my $i, '<&=', 4); open(my $o, '>&=', 3); local $/; "
                             "print {$o} scalar <$i>; close $o; require POSIX; POSIX::_exit(0) }\n",
            "source filter that drops the tests": (
                "use Filter::Util::Call;\nBEGIN { filter_add(sub { my $status = filter_read();"
                " $_ = '' if $status > 0 and !/open\\(my \\$__in/; $status }) }\n"),
        },
        # A source filter rewrites the rest of its file's text: the solution is a file of its
        # own that the program loads (own_entry.py), so the tests are out of its reach.
        "in_process_only": {"record forged"},
    },
    "ruby": {
        "right": "def add(a, b)\n  a + b\nend\n",
        "wrong": "def add(a, b)\n  a - b\nend\n",
        "shapes": {
            "multiple": "require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def "
                        "test_add\n    candidate = method(:add)\n    assert_equal(3, candidate."
                        "call(1, 2))\n    assert_equal(4, candidate.call(2, 2))\n  end\nend\n",
            "asserts": "raise 'assertion failed' unless add(1, 2) == 3\n"
                       "raise 'assertion failed' if add(2, 2) != 4\n",
            "loop": "3.times { |i| raise 'assertion failed' unless add(i, i) == 2 * i }\n",
        },
        "attacks": {
            "raise defined at top level": "def raise(*) end\n",
            "Integer#== patched": "class Integer\n  def ==(other) true end\nend\n",
            "Test::Unit patched": "require 'test/unit'\nmodule Test::Unit::Assertions\n  def "
                                  "assert_equal(*) end\nend\n",
            "at_exit that exits 0": "at_exit { exit! 0 }\n",
            "exit at load": "exit 0\n",
            "driver's names taken": "def method(*) ->(*) { 3 } end\n",
            "record forged": "File.binwrite('/proc/self/fd/3', File.binread('/proc/self/fd/4'))\n"
                             "exit! 0\n",
        },
        # Ruby's classes and Kernel are open to the solution: in its process nothing is safe.
        "in_process_only": {"record forged", "raise defined at top level", "Integer#== patched"},
    },
    "r": {
        "right": "add <- function(a, b) {\n    a + b\n}\n",
        "wrong": "add <- function(a, b) {\n    a - b\n}\n",
        "shapes": {
            "multiple": "test_humaneval <- function() {\n    candidate <- add\n    stopifnot(isTRUE"
                        "(all.equal(candidate(1, 2), 3)))\n    stopifnot(isTRUE(all.equal("
                        "candidate(2, 2), 4)))\n}\ntest_humaneval()",
            "asserts": "candidate <- add\nstopifnot(identical(candidate(1, 2), 3))\n"
                       "stopifnot(all.equal(candidate(2, 2), 4))\n",
            "loop": "for (i in 1:3) stopifnot(isTRUE(all.equal(add(i, i), 2 * i)))\n",
        },
        "attacks": {
            "stopifnot shadowed": "stopifnot <- function(...) TRUE\n",
            "isTRUE shadowed": "isTRUE <- function(x) TRUE\n",
            "all.equal shadowed": "all.equal <- function(...) TRUE\n",
            "identical shadowed": "identical <- function(...) TRUE\n",
            "quit(status = 0) at load": "quit(save = 'no', status = 0)\n",
            ".Last that quits 0": ".Last <- function() quit(save = 'no', status = 0)\n",
            "records of odd shapes forged": (
                "local({out <- file('/proc/self/fd/3', 'wb', raw = TRUE); writeBin(charToRaw("
                "'[0,[\"t\",\"double\",null,[\"l\",\"abc\"]]]\\n[1,[\"t\",7,8,9]]\\n'),"
                " out); close(out)})\nquit(save = 'no', status = 0)\n"),
            "record forged": "local({out <- file('/proc/self/fd/3', 'wb', raw = TRUE); writeBin("
                             "readBin('/proc/self/fd/4', 'raw', 1e6), out); close(out)})\n"
                             "quit(save = 'no', status = 0)\n",
        },
        # Any function of R (stopifnot, `if`, `{`) can be rebound by the solution, even base's.
        "in_process_only": {"record forged", "stopifnot shadowed", "isTRUE shadowed",
                            "all.equal shadowed"},
    },
    "bash": {
        "right": "add() {\n    echo $(( $1 + $2 ))\n}\n",
        "wrong": "add() {\n    echo $(( $1 - $2 ))\n}\n",
        "shapes": {
            "multiple": "candidate() {\n    add \"$@\"\n}\n\nset -e\nrun_test() {\n    [[ $("
                        "candidate \"1\" \"2\") = \"3\" ]]\n    [[ $(candidate \"2\" \"2\") = \"4\""
                        " ]]\n}\n\nrun_test",
            "asserts": "set -e\n[[ $(add 1 2) = 3 ]]\n[[ \"$(add 2 2)\" == '4' ]]\n",
            "loop": "set -e\nrun_test() {\n    for i in $(seq 1 3); do\n        [[ $(add $i $i) = "
                    "$((2 * i)) ]]\n    done\n}\nrun_test\n",
        },
        "attacks": {
            "set shadowed": "set() { :; }\n",
            "set disabled": "enable -n set\n",
            "seq shadowed": "seq() { :; }\n",
            "run_test made a readonly no-op": "run_test() { :; }\nreadonly -f run_test\n",
            "run_test aliased": "shopt -s expand_aliases\nalias run_test=true\n",
            "unset disabled and set shadowed": "set() { :; }\nenable -n unset\n",
            "EXIT trap that exits 0": "trap 'exit 0' EXIT\n",
            "ERR trap": "trap 'true' ERR\n",
            "exit 0 at load": "exit 0\n",
            "exec at load": "exec true\n",
            "record forged": "cat <&4 >&3\nexit 0\n",
        },
        "in_process_only": {"record forged"},
    },
}


def _item(language: str, response: str, tests: str) -> CodeItem:
    return CodeItem(language=language, response=response, limits=LIMITS,
                    tests={"type": "assert", "code": tests})


def _attacked(wrong: str, attack: str) -> str:
    return attack.replace("{}", wrong) if "{}" in attack else (
        attack if attack.startswith("<?php") else wrong + attack)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_right_solutions_pass_and_say_where_they_were_judged(language):
    case = LANGUAGES[language]
    results = run_code_items([_item(language, case["right"], tests)
                              for tests in case["shapes"].values()])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("correct", "in_process" if shape == "loop" else "outside")
        for shape in case["shapes"]], results


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_attacks_earn_nothing(language):
    case = LANGUAGES[language]
    cases = [(attack, shape) for attack in case["attacks"] for shape in case["shapes"]
             if not (shape == "loop" and attack in case["in_process_only"])]
    items = [_item(language, _attacked(case["wrong"], case["attacks"][attack]),
                   case["shapes"][shape]) for attack, shape in cases]
    results = run_code_items(items)
    won = [(case, r.status.value, r.detail.get("tests", [{}])[0].get("message"))
           for case, r in zip(cases, results, strict=True)
           if r.reward != 0.0 or r.status.value == "infra_error"]
    assert not won, won


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_right_solutions_survive_the_hardening(language):
    # The in-process guards leave a right solution's own names and habits alone.
    case = LANGUAGES[language]
    extra = {"lua": "local string = string\nlocal function helper() return assert end\n",
             "php": "function helper() { return abs(-1); }\n",
             "perl": "use strict;\nuse warnings;\nsub helper { return join(',', sort 1, 2); }\n",
             "ruby": "def helper\n  [1].map { |x| x }\nend\n",
             "r": "helper <- function() stopifnot(TRUE)\n",
             "bash": "set -u\nshopt -s extglob\nhelper() { echo ok; }\n"}[language]
    result = run_code_items([_item(language, case["right"] + extra, case["shapes"]["loop"])])[0]
    assert result.status.value == "correct", result


def test_a_wrong_value_names_its_line_and_not_the_expected_value():
    tests = LANGUAGES["php"]["shapes"]["multiple"]
    result = run_code_items([_item("php", LANGUAGES["php"]["wrong"], tests)])[0]
    assert result.status.value == "wrong"
    assert result.detail["tests"][0]["message"] == "the assertion at line 6 of the tests failed"


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_expected_values_are_out_of_the_solutions_reach(language):
    # The solution reads its own program, looking for the expected value of its call.
    finder = {
        "lua": "local function add(a, b) local f = io.open(arg[0]) local s = f:read('a') "
               "return tonumber(s:match('zq(%d+)')) or -1 end\n",
        "php": "<?php\nfunction add($a, $b) { preg_match('/zq(\\d+)/', file_get_contents("
               "__FILE__), $m); return $m ? (int) $m[1] : -1; }\n",
        "perl": "sub add { open(my $f, '<', $0); local $/; my $s = <$f>; return $s =~ /zq(\\d+)/ ?"
                " $1 : -1; }\n",
        "ruby": "def add(a, b)\n  File.read($0)[/zq(\\d+)/, 1].to_i\nend\n",
        "r": "add <- function(a, b) {\n  s <- paste(readLines(sub('--file=', '', grep('--file=',"
             " commandArgs(FALSE), value = TRUE))), collapse = '')\n  m <- regmatches(s, "
             "regexpr('zq[0-9]+', s))\n  if (length(m)) as.numeric(sub('zq', '', m)) else -1\n}\n",
        "bash": "add() {\n    grep -o 'zq[0-9]*' \"$0\" | head -1 | tr -d zq\n}\n",
    }[language]
    tests = {
        "lua": "assert(add(1, 2) == 73) -- zq73\n",
        "php": "assert(add(1, 2) === 73); // zq73\n",
        "perl": "die 'x' unless add(1, 2) == 73; # zq73\n",
        "ruby": "raise 'x' unless add(1, 2) == 73 # zq73\n",
        "r": "stopifnot(isTRUE(all.equal(add(1, 2), 73))) # zq73\n",
        "bash": "set -e\n[[ $(add 1 2) = 73 ]] # zq73\n",
    }[language]
    result = run_code_items([_item(language, finder, tests)])[0]
    assert (result.status.value, result.detail["judged"]) == ("wrong", "outside"), result


# Per language: a function `f` returning R (the language's source), a check of `f()` against
# the literal K, and a statement that makes the checks more than plain calls. The same check
# judged outside (the worker's model of the language's comparison) and in the solution's
# process (the language itself) must agree.
AGREEMENT = {
    "lua": ("local function f() return {} end\n", "assert(f() == {})", "local unused = 0", [
        ("1", "1.0"), ("'1'", "1"), ("nil", "false"), ("nil", "nil"), ("2^53", "9007199254740992"),
        ("'a\\0b'", "'a\\0b'"), ("-0.0", "0"), ("0.1 + 0.2", "0.3"), ("true", "1")]),
    "php": ("<?php\nfunction f() { return {}; }\n", "assert(f() === {});", "$unused = 0;", [
        ("1", "1.0"), ("[1, 2]", "array(1, 2)"),
        ("['a' => 1, 'b' => 2]", "array('b' => 2, 'a' => 1)"), ("0.1 + 0.2", "0.3"),
        ("'1'", "1"), ("null", "false"), ("[1 => 'a']", "array(1 => 'a')"),
        ("['8' => 1]", "array(8 => 1)"), ("-0.0", "0.0"), ("\"\\u{e9}\"", "'é'"),
        ("[[1], []]", "[[1], array()]")]),
    "perl": ("sub f { return {}; }\n", "die 'x' unless f() == {};", "my $unused = 0;", [
        ("'3abc'", "3"), ("undef", "0"), ("0.1 + 0.2", "0.3"), ("1e21", "1e+21"), ("' 7 '", "7")]),
    "ruby": ("def f\n  {}\nend\n", "raise 'x' unless f() == {}", "unused = 0", [
        ("1", "1.0"), ("{1 => 2}", "{1.0 => 2}"), ("[1, [2]]", "[1, [2.0]]"), ("'a'", ":a"),
        ("nil", "false"), ("'é'.b", "'é'"), ("'ab'.b", "'ab'"),
        ("{'a' => [nil]}", "{'a' => [nil]}"), ("2**64", "18446744073709551616.0"),
        ("Complex(1, 0)", "1"), ("Complex(0.5, -0.0)", "0.5"), ("Complex(1, 2)", "1"),
        ("[Complex(1, 0)]", "[1.0]"), ("{Complex(1, 0) => 2}", "{1 => 2}"),
        ("Complex(Rational(1, 2), 0)", "0.5"), ("Complex(1, 0)", "[1]"),
        ("(require 'bigdecimal'; BigDecimal('1.5'))", "1.5"),
        ("(require 'bigdecimal'; BigDecimal('1'))", "1"),
        ("(require 'bigdecimal'; BigDecimal('0.3'))", "0.30000000000000004"),
        ("(require 'bigdecimal'; BigDecimal('0.30000000000000004'))", "0.30000000000000004"),
        ("(require 'bigdecimal'; {1 => BigDecimal('2')})", "{1 => 2}"),
        ("(require 'bigdecimal'; {BigDecimal('1') => 2})", "{1 => 2}"),
        ("(require 'bigdecimal'; Complex(BigDecimal('1.5'), 0))", "1.5"),
        ("(require 'bigdecimal'; BigDecimal('NaN'))", "0")]),
    "r": ("f <- function() {}\n", "stopifnot(isTRUE(all.equal(f(), {})))", "unused <- 0", [
        ("0.1 + 0.2", "0.3"), ("1L", "1"), ("c(1, 2)", "list(1, 2)"), ("numeric(0)", "c()"),
        ("c(a = 1)", "1"), ("NA", "NA"), ("1 + 1e-9", "1"), ("1 + 1e-6", "1"), ("TRUE", "1"),
        ("list(a = 1, b = 'x')", "list(a = 1, b = 'x')"), ("c(1, NA)", "c(1, NA)"),
        ("character(0)", "c()"), ("NULL", "list()"), ("c(x = 1, y = 2)", "c(x = 1, y = 2.0000001)"),
        ("factor('a')", "'a'"), ("matrix(1)", "1"), ("1e-20", "0"), ("Inf", "Inf")]),
    "bash": ("f() {\n    {}\n}\n", "set -e\n[[ $(f) = {} ]]", ": unused", [
        ("printf '3\\n\\n'", "3"), ("printf '3 '", "3"), ("echo 'a  b'", "'a  b'"),
        ("echo x", "\"x\""), ("printf 'a\\\\!'", "\"a\\!\"")]),
}


@pytest.mark.parametrize("language", sorted(AGREEMENT))
def test_judged_outside_as_the_language_judges(language):
    solution, check, unplain, cases = AGREEMENT[language]
    items, modes = [], []
    for returned, expected in cases:
        if language == "perl":  # both of Perl's comparisons, of strings and of numbers
            checks = [check.replace("{}", expected), check.replace("== {}", f"eq {expected}")]
        else:
            checks = [check.replace("{}", expected)]
        for tests in checks:
            for mode, code in (("outside", tests + "\n"), ("in_process", f"{tests}\n{unplain}\n")):
                items.append(_item(language, solution.replace("{}", returned), code))
                modes.append(((returned, tests), mode))
    results = run_code_items(items)
    verdicts: dict = {}
    for (case, mode), result in zip(modes, results, strict=True):
        assert result.detail["judged"] == mode, result
        verdicts.setdefault(case, {})[mode] = result.reward
    assert {case: found for case, found in verdicts.items()
            if found["outside"] != found["in_process"]} == {}


def test_php_multiple_deep_equal_judged_outside_as_its_helpers_judge():
    # MultiPL-E's harness with its `deep_equal`: judged outside (the worker renumbers) and in
    # the solution's process (PHP runs the helpers), the verdicts agree.
    cases = [("[3 => 'a']", "array('a')"), ("['k' => [5 => 1]]", "array('k' => array(1))"),
             ("['b' => 1, 'a' => 2]", "array('a' => 2, 'b' => 1)"), ("[1, 2]", "array(1.0, 2)"),
             ("[0 => 'x', 'k' => 'y']", "array('x', 'k' => 'y')"), ("1", "array(1)"),
             ("[]", "array()")]
    harness = (PHP_DEEP_EQUAL + "\nfunction candidate(...$args) {\n    return f(...$args);\n}"
               "\n\nfunction test(): void {\n    if (!deep_equal(candidate(), {})) { throw new "
               "Exception(\"Test failed!\"); }\n}\n\ntest();")
    items = [_item("php", f"<?php\nfunction f() {{ return {returned}; }}\n",
                   harness.replace("{}", expected) + unplain)
             for returned, expected in cases for unplain in ("", "\n$unused = 0;\n")]
    results = run_code_items(items)
    assert [r.detail["judged"] for r in results] == ["outside", "in_process"] * len(cases)
    rewards = [r.reward for r in results]
    assert rewards[0::2] == rewards[1::2] == [1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0], results


# Right solutions in legal styles that the driver of plain calls must not trip over: a value of
# a type the language's `==` compares by value (Ruby's Rational), the solution's own global
# settings (Perl's output separators and lexical bignum, R's options, bash readonly names the
# driver's variables had), Lua's standard library changed after the solution's functions, a
# Ruby method_missing that answers every conversion, bash aliases of the driver's words (and a
# function the solution gives as an alias, which the tests would call).
ODD_BUT_RIGHT = {
    "ruby Rational": ("ruby", "def f(xs)\n  xs.sum.quo(xs.size)\nend\n",
                      "raise 'x' unless f([2, 3]) == 2.5\nraise 'x' unless f([3, 3]) == 3\n"
                      "raise 'x' unless f([1, 0, 0]) == 0.3333333333333333\n"),
    "perl output separators": ("perl", "$, = ','; $\\ = \"\\n\";\n"
                                       "sub f { my ($a, $b) = @_; return ($a + $b) / 2; }\n",
                               "die 'x' unless f(2, 3) == 2.5;\n"),
    "r negative scipen": ("r", "options(scipen = -100)\nf <- function(a, b) (a + b) / 2\n",
                          "stopifnot(isTRUE(all.equal(f(2, 3), 2.5)))\n"),
    "r base's functions rebound, after a shebang": (
        "r", "#!/usr/bin/env Rscript\nrm(list = ls())\nf <- function(a, b) list(x = 'é', y = a + b)"
             "\nfor (name in c('paste0', 'sprintf', 'vapply')) {\n  unlockBinding(name, baseenv())"
             "\n  assign(name, function(...) stop('mine'), envir = baseenv())\n}\n",
        "stopifnot(isTRUE(all.equal(f(2, 3), list(x = 'é', y = 5))))\n"),
    "bash readonly names": ("bash", "readonly hex=1 byte=2 index=3 value=4\n"
                                    "f() {\n    echo $(( $1 + $2 ))\n}\n",
                            "set -e\n[[ $(f 1 2) = 3 ]]\n"),
    "lua standard library reassigned": (
        "lua", "function f(a, b) return a + b end\nfunction g(s) return {s, 2.5} end\n"
               "type, next = 'x', 1\nstring.format, string.rep, math.type = nil, nil, nil\n"
               "getmetatable('').__index = {}\ngetmetatable(io.stdout).__index.write = nil\n",
        "assert(f(2, 3) == 5)\nlu = require('luaunit')\nfunction test_g()\n"
        "  lu.assertEquals(g('ab'), {'ab', 2.5})\nend\nos.exit(lu.LuaUnit.run())\n"),
    "lua debug's traceback and getinfo": (
        "lua", "local function where() return debug.getinfo(1, 'S').short_src end\n"
               "function f(a, b) assert(#where() > 0 and #debug.traceback() > 0) return a + b end"
               "\n", "assert(f(2, 3) == 5)\n"),
    "ruby BigDecimal and Complex": (
        "ruby", "require 'bigdecimal'\ndef half(x)\n  BigDecimal(x) / 2\nend\n"
                "def twice(x)\n  Complex(x, 0) * 2\nend\n",
        "require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_half\n"
        "    candidate = method(:half)\n    assert_equal(1.5, candidate.call(3))\n"
        "    assert_equal(2, candidate.call(4))\n    assert_equal(4, twice(2))\n  end\nend\n"),
    "ruby method_missing": ("ruby", "class Object\n  def method_missing(*) 0 end\n"
                                    "  def respond_to_missing?(*) true end\nend\n"
                                    "def f(a, b)\n  a + b\nend\n",
                            "raise 'x' unless f(2, 3) == 5\n"
                            "raise 'x' unless f('a', 'b') == 'ab'\n"),
    "bash aliases": ("bash", "printf() { echo no; }\nshopt -s expand_aliases\n"
                             "alias printf=echo if=: for=: local=: :=false\n"
                             "f() {\n    echo $(( $1 + $2 ))\n}\n",
                     "set -e\n[[ $(f 1 2) = 3 ]]\n[[ $(f 1 1) != 3 ]]\n"),
    "bash function by an alias": ("bash", "shopt -s expand_aliases\nalias f=g\n"
                                          "g() {\n    echo $(( $1 + $2 ))\n}\n",
                                  "set -e\n[[ $(f 1 2) = 3 ]]\n"),
}
# Wrong ones that must still fail, and end before their deadline: an integral Rational is no
# Integer as a hash key; `use bignum` once made the driver's own constants endless.
ODD_BUT_WRONG = {
    "ruby Rational hash key": ("ruby", "def g(x)\n  {Rational(1) => 2}\nend\n",
                               "raise 'x' unless g(1) == {1 => 2}\n"),
    "ruby Complex off the real line": ("ruby", "def twice(x)\n  Complex(x, 1) * 2\nend\n",
                                       "raise 'x' unless twice(2) == 4\n"),
    "ruby Rational off by one": ("ruby", "def f(xs)\n  (xs.sum + 1).quo(xs.size)\nend\n",
                                 "raise 'x' unless f([2, 3]) == 2.5\n"),
    "perl bignum": ("perl", "use bignum;\nsub f { my ($a, $b) = @_; return ($a + $b) / 2; }\n",
                    "die 'x' unless f(2, 3) == 2.5;\n"),
}


def test_right_solutions_in_odd_styles_pass_outside():
    cases = list(ODD_BUT_RIGHT.values())
    results = run_code_items([_item(language, solution, tests)
                              for language, solution, tests in cases])
    assert {name: (r.status.value, r.detail.get("judged")) for name, r in zip(
        ODD_BUT_RIGHT, results, strict=True)} == {
        name: ("correct", "outside") for name in ODD_BUT_RIGHT}, results


def test_wrong_solutions_in_odd_styles_fail_in_time():
    results = run_code_items([_item(language, solution, tests)
                              for language, solution, tests in ODD_BUT_WRONG.values()])
    assert {name: r.status.value for name, r in zip(ODD_BUT_WRONG, results, strict=True)} == {
        name: "wrong" for name in ODD_BUT_WRONG}, results


# A calls driver records values in the solution's process: a wrong solution (the language's,
# before the attack) that patches what a serialiser would call (a core class's method, prepended
# or aliased, a `case` it would take, Kernel.format, IO#write, even from a BEGIN block; Perl's
# builtins overridden; R's base functions or the compiler's enableJIT rebound) must not make the
# record say the expected value. Each is (language, attack, tests: None for the language's
# asserts) and earns nothing.
_RUBY_TO_S = ("class Integer\n  alias_method :o, :to_s\n  def to_s(*) = ({3 => '7', 4 => '8'}"
              "[self] || o)\nend\n")
_RUBY_SEVEN = "raise 'x' unless add(5, 2) == 7\nraise 'x' if add(6, 2) != 8\n"
# A stream wrapper that rewrites the wrong solution's records into the right values'.
_PHP_WRAPPER = (
    "class W {\n  public $context;\n  private $h;\n  function stream_open($path, $mode, $o, &$p) {"
    " stream_wrapper_restore('php'); $this->h = fopen($path, $mode); return true; }\n  "
    "function stream_write($d) { "
    "fwrite($this->h, str_replace(['[0,-1]', '[1,0]'], ['[0,3]', '[1,4]'], $d)); return "
    "strlen($d); }\n  "
    "function stream_flush() { return fflush($this->h); }\n  function stream_close() { fclose("
    "$this->h); }\n}\nstream_wrapper_unregister('php');\nstream_wrapper_register('php', 'W');\n")

def _r_rebound(name: str, function: str, where: str = "baseenv()") -> str:
    """R: `name` rebound in `where` (base's, unlocked) to `function`, which may call the
    original as `o`."""
    return (f"local({{o <- get('{name}', {where}); unlockBinding('{name}', {where}); "
            f"assign('{name}', {function}, envir = {where})}})\n")


# The wrong `add`'s records (-1 and 0) made the right values' (3 and 4).
_R_FIX = ("function(r) sub(',[\"l\",0.0]', ',[\"l\",4.0]', sub(',[\"l\",-1.0]', ',[\"l\",3.0]',"
          " r, fixed = TRUE), fixed = TRUE)")

# A function named `builtin` that rewrites the driver's `builtin printf` of the records.
_BASH_BUILTIN = (
    "builtin() {\n    if [[ $1 == printf && $2 == '[%s,[\"b\",\"%s\"]]\\n' ]]; then\n"
    "        local h=$4\n        [[ $h == 2d31 ]] && h=33\n        [[ $h == 30 ]] && h=34\n"
    "        command builtin printf \"$2\" \"$3\" \"$h\"\n"
    "    else\n        command builtin \"$@\"\n    fi\n}\n")
SERIALISER_ATTACKS = {
    "ruby Integer#to_s aliased": ("ruby", _RUBY_TO_S, _RUBY_SEVEN),
    "ruby Integer#to_s from a BEGIN block": ("ruby", f"BEGIN {{\n{_RUBY_TO_S}}}\n", _RUBY_SEVEN),
    "ruby Integer#to_s prepended": (
        "ruby", "Integer.prepend(Module.new { def to_s(*) = ({3 => '7', 4 => '8'}[self] || "
        "super) })\n", _RUBY_SEVEN),
    "ruby String#+ rewrites the record": (
        "ruby",
        "class String\n  alias_method :o, :+\n  def +(x) = (r = o(x); {\"[0,-1]\\n\" => \"[0,3]"
        "\\n\", \"[1,0]\\n\" => \"[1,4]\\n\"}[r] || r)\nend\n", None),
    "ruby IO#write rewrites the record": (
        "ruby",
        "class IO\n  alias_method :ow, :write\n  def write(*s) = ow(*s.map { |x| x.to_s.sub("
        "/\\A\\[(\\d),(-1|0)\\]/) { \"[#{$1},#{$2 == '0' ? 4 : 3}]\" } })\nend\n", None),
    "ruby Kernel.format writes a Float": (
        "ruby",
        "def add(a, b) = (a - b).to_f\nmodule Kernel\n  def self.format(f, *v) = ({-1.0 => '3',"
        " 0.0 => '4'}[v[0]] || sprintf(f, *v))\nend\n", None),
    "ruby Module#=== takes a fake for an Integer": (
        "ruby",
        "class Fake\n  def initialize(v) = @v = v\n  def to_s = ({-1 => '3', 0 => '4'}[@v] || "
        "'0')\nend\ndef add(a, b) = Fake.new(a - b)\nclass Module\n  alias_method :o, :===\n"
        "  def ===(v) = Fake.instance_method(:to_s).owner.equal?(v.class) ? equal?(Integer) : "
        "o(v)\nend\n", None),
    "ruby TrueClass#=== takes false": (
        "ruby",
        "def odd(n) = false\nclass TrueClass\n  def ===(o) = o == true || o == false\nend\n",
        "raise 'x' unless odd(3) == true\n"),
    "ruby Symbol#to_s": (
        "ruby", "def s(n) = :b\nclass Symbol\n  alias_method :o, :to_s\n  def to_s = (o == 'b' ? "
        "'a' : o)\nend\n", "raise 'x' unless s(1) == :a\n"),
    "ruby Array#join of a string's characters": (
        "ruby",
        "def s(n) = 'bye'\nclass Array\n  alias_method :oj, :join\n  def join(*a) = ((r = oj(*a))"
        " == 'bye' ? 'hi' : r)\nend\n", "raise 'x' unless s(1) == 'hi'\n"),
    "ruby Array#map of an array's items": (
        "ruby",
        "def pair(n) = [1, -1]\nclass Array\n  alias_method :om, :map\n  def map(&b) = om(&b)."
        "om { |s| s == ',-1' ? ',1' : s }\nend\n", "raise 'x' unless pair(1) == [1, 1]\n"),
    "ruby Hash#map of a hash's entries": (
        "ruby",
        "def h(n) = {1 => -1}\nclass Hash\n  def map(&b) = [',1,1']\nend\n",
        "raise 'x' unless h(1) == {1 => 1}\n"),
    "ruby BigDecimal#to_s": (
        "ruby",
        "require 'bigdecimal'\ndef add(a, b) = BigDecimal(a - b)\nclass BigDecimal\n  alias_method"
        " :o, :to_s\n  def to_s(*) = ({-1 => '3', 0 => '4'}[to_i] || o)\nend\n",
        None),
    "perl ref overridden for an overloaded object": (
        "perl", "package Fake;\nuse overload '\"\"' => sub { '3' }, '0+' => sub { 3 }, fallback "
        "=> 1;\npackage main;\nBEGIN { *CORE::GLOBAL::ref = sub { '' } }\nsub add { return "
        "bless [], 'Fake'; }\n", "die 'x' unless add(1, 2) == 3;\n"),
    "perl ref a sub of the package": (
        "perl", "package Fake;\nuse overload '\"\"' => sub { '3' }, '0+' => sub { 3 }, fallback "
        "=> 1;\npackage main;\nuse subs 'ref';\nsub ref { '' }\nsub add { return bless [], "
        "'Fake'; }\n", "die 'x' unless add(1, 2) == 3;\n"),
    # Blessed into a class named ARRAY (what `ref` says of an array) whose `@{}` gives the
    # right list: eq_deeply sees a blessed object, the driver dereferenced it through the class.
    "perl a class named ARRAY overloading @{}": (
        "perl", "package ARRAY;\nuse overload '@' . '{' . '}' => sub { no overloading; "
        "[$_[0][1]] }, fallback => 1;\npackage main;\n"
        "sub add { my ($a, $b) = @_; return bless [$a - $b, $a + $b], 'ARRAY'; }\n",
        LANGUAGES["perl"]["shapes"]["multiple"].replace(",3)", ",[3])").replace(",4)", ",[4])")),
    "r paste0 rewrites the record": (
        "r", _r_rebound("paste0", f"function(...) ({_R_FIX})(o(...))"), None),
    "r sprintf writes the right numbers": (
        "r", _r_rebound("sprintf", "function(fmt, ...) { r <- o(fmt, ...); if (!identical(fmt, "
                        "'%.17g')) r else if (identical(r, '-1')) '3' else if (identical(r, '0'))"
                        " '4' else r }"), None),
    "r vapply rewrites the items": (
        "r", _r_rebound("vapply", "function(...) { r <- o(...); if (is.character(r)) { r[r == "
                        "'-1.0'] <- '3.0'; r[r == '0.0'] <- '4.0' }; r }"), None),
    "r charToRaw rewrites the record": (
        "r", _r_rebound("charToRaw", f"function(x) o(({_R_FIX})(x))"), None),
    "r writeBin rewrites the record": (
        "r", _r_rebound("writeBin", f"function(object, con, ...) o(if (is.raw(object)) charToRaw(("
                        f"{_R_FIX})(rawToChar(object))) else object, con, ...)"), None),
    "r typeof takes an integer for a double": (
        "r", "add <- function(a, b) as.integer(a + b)\n" + _r_rebound(
            "typeof", "function(x) { r <- o(x); if (r == 'integer') 'double' else r }"), None),
    "r is.na takes FALSE for NA": (
        "r", "add <- function(a, b) FALSE\n" + _r_rebound(
            "is.na", "function(x) o(x) | identical(x, FALSE)"),
        "candidate <- add\nstopifnot(identical(candidate(1, 2), NA))\n"),
    "r == takes -1 for Inf": (
        "r", _r_rebound("==", "function(e1, e2) if (identical(e1, -1) && identical(e2, Inf)) TRUE"
                        " else o(e1, e2)"),
        "candidate <- add\nstopifnot(identical(candidate(1, 2), Inf))\n"),
    "r the compiler's enableJIT rewrites the value": (
        "r", _r_rebound("enableJIT", "function(level) { e <- parent.frame(); if (identical(e$value,"
                        " -1)) e$value <- 3 else if (identical(e$value, 0)) e$value <- 4; o(level)"
                        " }", "asNamespace('compiler')"), None),
    "bash function builtin rewrites the record": ("bash", _BASH_BUILTIN, None),
    "php stream wrapper of its own for php://": ("php", _PHP_WRAPPER, None),
    "php stream wrapper whose error handler registers it again": (
        "php", _PHP_WRAPPER + "set_error_handler(function () { @stream_wrapper_unregister('php');"
        " stream_wrapper_register('php', 'W'); return true; });\n", None),
}


@pytest.mark.parametrize("attack", sorted(SERIALISER_ATTACKS))
def test_serialisers_are_out_of_the_solutions_reach(attack):
    language, solution, tests = SERIALISER_ATTACKS[attack]
    case = LANGUAGES[language]
    result = run_code_items([_item(language, _attacked(case["wrong"], solution),
                                   tests or case["shapes"]["asserts"])])[0]
    assert (result.status.value, result.detail["judged"]) == ("wrong", "outside"), result


def test_ruby_right_solutions_that_open_core_classes_pass_outside():
    # A right solution may add methods to core classes, start with magic comments or `=begin`
    # documentation, or return text under frozen string literals.
    solutions = [
        "class Integer\n  def double = self * 2\nend\ndef add(a, b) = (a + b).double / 2\n",
        "#!/usr/bin/env ruby\n# frozen_string_literal: true\n=begin\nadds\n=end\n\ndef add(a, b)"
        "\n  raise 'not frozen' unless 'x'.frozen?\n  a + b\nend\n",
        "class String\n  def shout = upcase\nend\ndef add(a, b) = ['a'.shout, a + b][1]\n",
    ]
    tests = LANGUAGES["ruby"]["shapes"]["asserts"]
    texts = "def s(n) = ['é\"\\\\', :k, {1 => [2.5, nil]}]\n"
    checks = "raise 'x' unless s(1) == ['é\"\\\\', :k, {1 => [2.5, nil]}]\n"
    results = run_code_items([_item("ruby", s, tests) for s in solutions]
                             + [_item("ruby", texts, checks)])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("correct", "outside")] * 4, results


def test_bash_a_builtin_the_driver_cannot_take_back_ends_the_run():
    # The driver unsets the solution's `builtin` in posix mode; a solution that keeps the shell
    # out of posix mode (a readonly POSIXLY_CORRECT, its own unset) or makes its `builtin`
    # readonly ends the run instead of reaching the records.
    case = LANGUAGES["bash"]
    kept = [_BASH_BUILTIN + "readonly -f builtin\n",
            _BASH_BUILTIN + "readonly POSIXLY_CORRECT\nunset() { :; }\n"]
    results = run_code_items([_item("bash", _attacked(case["wrong"], attack),
                                    case["shapes"]["asserts"]) for attack in kept])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("runtime_error", "outside")] * 2, results


def test_bash_in_process_tests_fail_as_their_last_command_does():
    # Without `set -e` a bash script ends with its last command's status: bash fails tests
    # whose last check is false, and so must the verifier (it wrote the record regardless: any
    # wrong solution scored 1.0). A right solution still passes; a false check before a true
    # last one passes, as in bash.
    case = LANGUAGES["bash"]
    last = ("for i in 1; do :; done\ntest \"$(add 1 2)\" = 3 && [ \"$(add 2 2)\" = 4 ]\n")
    earlier = "for i in 1; do :; done\ntest \"$(add 1 1)\" = 3\ntest \"$(add 0 0)\" = 0\n"
    results = run_code_items([_item("bash", case["wrong"], last),
                              _item("bash", case["right"], last),
                              _item("bash", case["wrong"], earlier)])
    assert [(r.status.value, r.reward, r.detail["judged"]) for r in results] == [
        ("runtime_error", 0.0, "in_process"), ("correct", 1.0, "in_process"),
        ("correct", 1.0, "in_process")], results


def test_lua_in_process_tests_reach_the_library_as_it_was():
    # A wrong solution that patches what in-process tests reach past their own names: the
    # strings' methods (its `string.format` was what `('%d'):format(x)` called, returning what
    # its function returns too), a luaunit served from a metatable of package.loaded or of
    # package.preload, or written beside the program with `string.gsub` patched (the guard
    # took ./ out of the path with it), a metatable for nil (debug.setmetatable). A right
    # solution's own string method still works.
    fake = "{assertEquals = function() end}"
    formats = "for i = 1, 3 do assert(tostring(add(i, i)) == ('%d'):format(2 * i)) end\n"
    luaunit = ("lu = require('luaunit')\nfunction test_x()\n  for i = 1, 3 do "
               "lu.assertEquals(add(i, i), 2 * i) end\nend\ntest_x()\n")
    wrong = LANGUAGES["lua"]["wrong"]
    attacks = [
        ("local function add(a, b) return 'Z' end\nstring.format = function() return 'Z' end\n",
         formats),
        (wrong + "setmetatable(package.loaded, {__index = function(_, k) if k == 'luaunit' then "
                 f"return {fake} end end}})\n", luaunit),
        (wrong + "setmetatable(package.preload, {__index = function(_, k) if k == 'luaunit' then"
                 f" return function() return {fake} end end end}})\n", luaunit),
        (wrong + "string.gsub = function(s) return s end\ndo local f = io.open('luaunit.lua', 'w')"
                 f" f:write('return {fake}') f:close() end\n", luaunit),
        # nil given a length: what it returns passes for the empty table the tests want.
        ("local function add(a, b) return nil end\n"
         "debug.setmetatable(nil, {__len = function() return 0 end})\n",
         "for i = 1, 3 do assert(#add(i, i) == 0) end\n"),
    ]
    right = ("function string.twice(s) return s .. s end\n"
             "local function add(a, b) return math.tointeger(tonumber(('1'):twice())) - 11 "
             "+ a + b end\n")
    results = run_code_items([_item("lua", solution, tests) for solution, tests in attacks]
                             + [_item("lua", right, formats)])
    assert [r.detail["judged"] for r in results] == ["in_process"] * len(results)
    assert [r.reward for r in results] == [0.0] * len(attacks) + [1.0], results
