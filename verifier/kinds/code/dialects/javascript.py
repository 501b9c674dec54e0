"""JavaScript and TypeScript assert tests as calls.

The shapes recognised are MultiPL-E's

    const assert = require('node:assert');          ('assert', '.../strict' too; TS: with
    function test() {                                 `declare var require: any;` before)
      let candidate = f;
      assert.deepEqual(candidate(ARGS), EXPECTED);  (deepStrictEqual, strictEqual, equal, the
    }                                                 `not` ones, assert.ok(CALL), assert(CALL))
    test();

and HumanEval-X's

    const testF = () => {
      console.assert(f(ARGS) === K)                 (!==, ==, !=, either order)
      console.assert(JSON.stringify(f(ARGS)) === JSON.stringify(K))
      console.assert(Math.abs(f(ARGS) - K) < T)     (<=, + K, K - f(ARGS))
      console.assert(f(ARGS))   console.assert(!f(ARGS))
    }
    testF()

with the statements anywhere at top level or in test functions (no parameters, each called
once at top level), literal variables `let x = [1, 2]` the calls may take, semicolons or not.
Every argument is a literal or such a variable; K is a literal (numbers, strings, booleans,
null, undefined, NaN, Infinity, arrays, objects with literal keys, arithmetic on them).

A failed `console.assert` fails the test here (it only prints in JavaScript; HumanEval-X's own
harness fails a run that printed it). The in-process program (`harden`) gives the tests pristine
copies of `assert`, `console.assert` (one that throws), `Math`, `JSON`, `Object`, `Number`,
`Array` and `String`, taken before the solution runs.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from verifier.kinds.code import appended
from verifier.kinds.code.dialects import jsvalues
from verifier.kinds.code.dialects.core import (
    MAX_NESTING,
    CallsPlan,
    Check,
    Dialect,
    NotPlainCalls,
    Site,
    drawn_name,
    sites_within_bounds,
)
from verifier.kinds.code.dialects.lexer import (
    Token,
    closing,
    depth_at,
    is_punct,
    source_of,
    split_top,
    tokenize,
    unwrapped,
    used_declarations,
)
from verifier.kinds.code.dialects.values import UNDEFINED, BigInt, Record

_ASSERT_MODULES = {"assert": False, "node:assert": False, "assert/strict": True,
                   "node:assert/strict": True}
# assert.X -> (how, negated), for the legacy module; the strict one makes deepEqual and equal
# their strict forms.
_ASSERT_METHODS = {"deepEqual": ("deep", False), "deepStrictEqual": ("deep_strict", False),
                   "strictEqual": ("===", False), "equal": ("==", False),
                   "notDeepEqual": ("deep", True), "notDeepStrictEqual": ("deep_strict", True),
                   "notStrictEqual": ("===", True), "notEqual": ("==", True)}
_STRICT_FORMS = {"deep": "deep_strict", "==": "==="}
_COMPARISONS = {"===": ("===", False), "!==": ("===", True), "==": ("==", False),
                "!=": ("==", True)}
# A newline ends a statement unless the next line starts with one of these (JavaScript's
# automatic semicolons, as far as the shapes above need them).
_CONTINUES = frozenset({"(", "[", ".", "?.", ",", "+", "-", "*", "/", "%", "**", "=", "==",
                        "===", "!=", "!==", "<", ">", "<=", ">=", "&&", "||", "??", "?", ":",
                        "=>", "&", "|", "^"})
_DECLARES = ("let", "const", "var")
_STRINGS = ("string", "char", "template")  # the lexer's kinds: '...' is a C char
_RESERVED_CALLEES = frozenset({"assert", "console", "require", "JSON", "Math", "eval",
                               "Function"})
# The serialiser, made before the solution runs (a prologue after its `#!` line and directive,
# under a name drawn per program: a module-scope const the solution can neither see nor
# reassign) of the intrinsics as they were: it writes the JSON text itself, calling only
# functions it kept (JSON.stringify of a string, which reads no toJSON; Map and Set's forEach;
# Object.keys), never a method of a prototype, so a solution that replaces JSON.stringify,
# Array.prototype.push or join, adds a toJSON or patches fs.writeSync does not reach the record.
# An array's hole is a value that equals nothing: reading it would reach Array.prototype,
# where a solution can put the value the tests want (node's deepEqual sees no element there).
# An object of a prototype other than its kind's (a class instance, `Object.create(null)`, an
# Array subclass) and an array with properties beyond its elements are marked (jsvalues.seen):
# node's deepStrictEqual tells both from a literal, deepEqual the second.
# Kept short: TypeScript transpiles it with every program.
_SERIALISER = """
const NAME = (() => {
const write = require('fs').writeSync, apply = Reflect.apply, keys = Object.keys;
const isArray = Array.isArray, is = Object.is, text = JSON.stringify, string = String;
const MapType = Map, SetType = Set, DateType = Date, PromiseType = Promise;
const mapEach = Map.prototype.forEach, setEach = Set.prototype.forEach;
const own = Object.prototype.hasOwnProperty, proto = Object.getPrototypeOf;
const kinds = [Array.prototype, Map.prototype, Set.prototype, Object.prototype];
let records = '';
const put = (v, d) => {
if (v === null) return 'null';
switch (typeof v) {
case 'undefined': return '["u"]';
case 'boolean': return v ? 'true' : 'false';
case 'string': return text(v);
case 'number': return v !== v ? '["f","nan"]' : v === 1 / 0 ? '["f","inf"]' :
v === -1 / 0 ? '["f","-inf"]' : is(v, -0) ? '["f","-0"]' : string(v);
case 'bigint': return '["i","' + string(v) + '"]';
case 'function': case 'symbol': return '["x","' + typeof v + '"]';
}
if (d > 90) return '["x","nested too deep"]';
if (v instanceof DateType) return '["x","Date"]';
if (v instanceof PromiseType) return '["x","Promise"]';
const kind = isArray(v) ? 0 : v instanceof MapType ? 1 : v instanceof SetType ? 2 : 3;
let out = '', extra = false;
if (kind === 0) {
for (let i = 0; i < v.length; i++)
out += ',' + (apply(own, v, [i]) ? put(v[i], d + 1) : '["x","hole"]');
const names = keys(v);
for (let i = 0; i < names.length; i++) {
const n = +names[i];
if (!(string(n) === names[i] && n >= 0 && n < v.length)) extra = true;
}
out = '["l"' + out + ']';
} else if (kind === 1) {
apply(mapEach, v, [(x, k) => { out += ',' + put(k, d + 1) + ',' + put(x, d + 1); }]);
out = '["m"' + out + ']';
} else if (kind === 2) {
apply(setEach, v, [(x) => { out += ',' + put(x, d + 1); }]);
out = '["s"' + out + ']';
} else {
const names = keys(v);
for (let i = 0; i < names.length; i++) out += ',' + text(names[i]) + ',' + put(v[names[i]], d + 1);
out = '["o"' + out + ']';
}
if (proto(v) !== kinds[kind]) out = '["y","proto",' + out + ']';
return extra ? '["y","props",' + out + ']' : out;
};
return Object.freeze({
record: (site, value) => { records += '[' + string(site) + ',' + put(value, 0) + ']\\n'; },
flush: () => { write(3, records); } });
})();
"""
# The driver: made of the serialiser's functions, under the name `program` gives.
_DRIVER = "\n;(() => {\nconst __verifier_record = __verifier_serialiser.record;\n"


@dataclass
class _Scope:
    aliases: set[str] = field(default_factory=set)
    variables: dict[str, Any] = field(default_factory=dict)
    functions: set[str] = field(default_factory=set)  # the tests' own
    assert_name: str | None = None
    strict: bool = False
    as_arguments: set[str] = field(default_factory=set)
    as_expected: set[str] = field(default_factory=set)
    declared: dict[int, str] = field(default_factory=dict)  # the lines declaring variables


class JavaScriptDialect(Dialect):
    language = "javascript"

    def plan(self, tests: str) -> CallsPlan:
        tokens = tokenize(tests)
        spans = _statements(tokens, 0, len(tokens))
        scope = _Scope()
        bodies: dict[str, list[tuple[int, int]]] = {}
        for start, end in spans:  # the test functions, wherever they are defined
            found = _test_function(tokens, start, end)
            if found is not None:
                name, body_start, body_end = found
                if name in bodies:
                    raise NotPlainCalls(f"{name!r} defined twice")
                bodies[name] = _statements(tokens, body_start, body_end)
        scope.functions = set(bodies)
        lines: list[str] = []
        sites: list[Site] = []
        called: set[str] = set()
        for start, end in spans:
            if _test_function(tokens, start, end) is not None:
                continue
            statement = tokens[start:end]
            head = statement[0]
            if (len(statement) == 3 and head.text in bodies and is_punct(statement[1], "(")
                    and is_punct(statement[2], ")")):
                if head.text in called:
                    raise NotPlainCalls(f"{head.text!r} called twice")
                called.add(head.text)
                lines.append("{")
                for inner_start, inner_end in bodies[head.text]:
                    self._statement(tests, tokens[inner_start:inner_end], scope, lines, sites)
                lines.append("}")
            else:
                self._statement(tests, statement, scope, lines, sites)
        if called != set(bodies):
            raise NotPlainCalls("a test function never called")
        if scope.as_arguments & scope.as_expected:
            raise NotPlainCalls("a variable both passed to a call and expected")
        return CallsPlan(sites_within_bounds(sites), "\n".join(
            [_DRIVER, *used_declarations(lines, scope.declared),
             "__verifier_serialiser.flush();", "})();", ""]))

    def _statement(self, tests: str, statement: list[Token], scope: _Scope, lines: list[str],
                   sites: list[Site]) -> None:
        head = statement[0]
        if head.kind in _STRINGS and len(statement) == 1:
            return  # "use strict"
        if [t.text for t in statement[:3]] == ["declare", "var", "require"]:
            return  # TypeScript's declaration of require
        if head.text in _DECLARES:
            self._declaration(tests, statement, scope, lines)
            return
        site = self._site(tests, statement, scope)
        lines.append(f"__verifier_record({len(sites)}, {site.call});")
        sites.append(site)

    def _declaration(self, tests: str, statement: list[Token], scope: _Scope,
                     lines: list[str]) -> None:
        if len(statement) < 4 or statement[1].kind != "name" or not is_punct(statement[2], "="):
            raise NotPlainCalls(f"line {statement[0].line}: a declaration of something else")
        name, value = statement[1].text, statement[3:]
        if name in scope.variables or name in scope.aliases or name in scope.functions:
            raise NotPlainCalls(f"line {statement[0].line}: {name!r} bound twice")
        strict = _assert_module(value)
        if strict is not None:
            scope.assert_name, scope.strict = name, strict
            return
        if len(value) == 1 and value[0].kind == "name" and value[0].text not in (
                scope.variables.keys() | scope.functions | _CONSTANTS.keys()):
            scope.aliases.add(name)
        else:
            scope.variables[name] = _Literals(value, scope.variables).whole()
            scope.declared[len(lines)] = name
        lines.append(source_of(tests, statement) + ";")

    def _site(self, tests: str, statement: list[Token], scope: _Scope) -> Site:
        line = statement[0].line
        arguments, callee = _called(statement)
        if callee == ["console", "assert"]:
            if len(arguments) < 1 or not all(_is_literal(a) for a in arguments[1:]):
                raise NotPlainCalls(f"line {line}: console.assert of something else")
            return self._expression(tests, arguments[0], scope, line)
        if scope.assert_name is None or callee[:1] != [scope.assert_name]:
            raise NotPlainCalls(f"line {line}: a statement that is not plain calls")
        method = callee[1] if len(callee) == 2 else None
        if method in (None, "ok"):
            if len(arguments) < 1 or not all(_is_literal(a) for a in arguments[1:]):
                raise NotPlainCalls(f"line {line}: assert of something else")
            return self._truth(tests, arguments[0], scope, line)
        if method not in _ASSERT_METHODS or len(arguments) not in (2, 3) or (
                len(arguments) == 3 and not _is_literal(arguments[2])):
            raise NotPlainCalls(f"line {line}: assert.{method}")
        how, negated = _ASSERT_METHODS[method]
        if scope.strict:
            how = _STRICT_FORMS.get(how, how)
        call, expected = self._either(tests, arguments[0], arguments[1], scope, line)
        return Site(line, call, Check("equal", expected, negated=negated, how=how))

    def _expression(self, tests: str, tokens: list[Token], scope: _Scope, line: int) -> Site:
        tokens = unwrapped(tokens)
        comparisons = [i for i, t in enumerate(tokens)
                       if is_punct(t, *_COMPARISONS) and depth_at(tokens, i) == 0]
        if len(comparisons) > 1:
            raise NotPlainCalls(f"line {line}: several comparisons")
        if comparisons:
            at = comparisons[0]
            how, negated = _COMPARISONS[tokens[at].text]
            left, right = unwrapped(tokens[:at]), unwrapped(tokens[at + 1:])
            inner = _stringified(left), _stringified(right)
            if inner[0] is not None and inner[1] is not None:
                call, expected = self._either(tests, inner[0], inner[1], scope, line)
                return Site(line, call, Check("equal", expected, negated=negated,
                                              how="stringify"))
            call, expected = self._either(tests, left, right, scope, line)
            return Site(line, call, Check("equal", expected, negated=negated, how=how))
        for index, token in enumerate(tokens):
            if is_punct(token, "<", "<=", ">", ">=") and depth_at(tokens, index) == 0:
                return self._close(tests, tokens, index, scope, line)
        return self._truth(tests, tokens, scope, line)

    def _truth(self, tests: str, tokens: list[Token], scope: _Scope, line: int) -> Site:
        tokens = unwrapped(tokens)
        negated = bool(tokens) and is_punct(tokens[0], "!")
        call = self._call(tests, unwrapped(tokens[1:]) if negated else tokens, scope)
        return Site(line, call, Check("truth", negated=negated))

    def _close(self, tests: str, tokens: list[Token], index: int, scope: _Scope,
               line: int) -> Site:
        """`Math.abs(CALL - K) < T` and its variants."""
        left, right = tokens[:index], tokens[index + 1:]
        operator = tokens[index].text
        if operator in (">", ">="):
            left, right = right, left
        if not (len(left) > 4 and [t.text for t in left[:4]] == ["Math", ".", "abs", "("]
                and closing(left, 3) == len(left) - 1):
            raise NotPlainCalls(f"line {line}: a comparison of something else")
        tolerance = _Literals(right, scope.variables).whole()
        if not jsvalues._is_number(tolerance):
            raise NotPlainCalls(f"line {line}: a tolerance that is not a number")
        inside = unwrapped(left[4:-1])
        for at, token in enumerate(inside):
            if not is_punct(token, "-", "+") or at == 0 or depth_at(inside, at):
                continue
            for call_side, literal_side, flip in ((inside[:at], inside[at + 1:], True),
                                                  (inside[at + 1:], inside[:at], False)):
                if token.text == "+" and not flip:
                    continue
                try:
                    expected = self._expected(literal_side, scope)
                    call = self._call(tests, call_side, scope)
                except NotPlainCalls:
                    continue
                if not jsvalues._is_number(expected):
                    raise NotPlainCalls(f"line {line}: a difference with something else")
                value = -expected if token.text == "+" else expected
                return Site(line, call, Check("close", value, tolerance=float(tolerance),
                                              strict=operator in ("<", ">"),
                                              how="+" if token.text == "+" else ""))
        raise NotPlainCalls(f"line {line}: Math.abs of something else than CALL - K")

    def _either(self, tests: str, first: list[Token], second: list[Token], scope: _Scope,
                line: int) -> tuple[str, Any]:
        for call_side, literal_side in ((first, second), (second, first)):
            try:
                expected = self._expected(literal_side, scope)
            except NotPlainCalls:
                continue
            return self._call(tests, call_side, scope), expected
        raise NotPlainCalls(f"line {line}: no literal to compare with")

    def _expected(self, tokens: list[Token], scope: _Scope) -> Any:
        value = _Literals(tokens, scope.variables).whole()
        scope.as_expected |= {t.text for t in tokens if t.text in scope.variables}
        return value

    def _call(self, tests: str, tokens: list[Token], scope: _Scope) -> str:
        """The source of `f(ARGS)`, every argument a literal or a variable of the tests."""
        tokens = unwrapped(tokens)
        if (len(tokens) < 3 or tokens[0].kind != "name" or not is_punct(tokens[1], "(")
                or closing(tokens, 1) != len(tokens) - 1):
            raise NotPlainCalls("not a call")
        callee = tokens[0].text
        if (callee in scope.variables or callee in scope.functions or callee in _RESERVED_CALLEES
                or callee == scope.assert_name):
            raise NotPlainCalls(f"line {tokens[0].line}: a call of {callee!r}")
        arguments = split_top(tokens[2:-1], ",")
        for argument in arguments if arguments != [[]] else []:
            if len(argument) == 1 and argument[0].text in scope.variables:
                scope.as_arguments.add(argument[0].text)
            elif not argument or argument[0].text in scope.aliases:
                raise NotPlainCalls(f"line {tokens[0].line}: an argument that is not a literal")
            else:
                _Literals(argument, {}).whole()
        return source_of(tests, tokens)

    def holds(self, check: Check, value: Any) -> bool:
        try:
            value = jsvalues.seen(value, check.how if check.kind == "equal" else "")
            if check.kind == "truth":
                return jsvalues.truthy(value) != check.negated
            if check.kind == "close":
                difference = abs(_inside_abs(value, check))
                return difference < check.tolerance if check.strict else (
                    difference <= check.tolerance)
            if check.kind == "equal":
                return _equal(check.how, value, check.expected) != check.negated
        except (TypeError, ValueError, ArithmeticError, RecursionError):
            return False
        return False

    def program(self, solution: str, plan: CallsPlan) -> str:
        """The serialiser made first (see _SERIALISER), the solution, the driver."""
        name = drawn_name(solution, plan.driver)
        return (f"{_with_prologue(solution, _SERIALISER.replace('NAME', name, 1))}\n"
                f"{plan.driver.replace('__verifier_serialiser', name)}")

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        """The appended program, the tests' `require('assert')`, `console.assert`, `Math`,
        `JSON`, `Object`, `Number`, `Array` and `String` replaced by copies taken before the
        solution ran (frozen, under a name drawn per program)."""
        try:
            tokens = tokenize(tests)
        except NotPlainCalls:
            return None
        name = f"__verifier_{tag}"
        edits: list[tuple[int, int, str]] = []
        for index, token in enumerate(tokens):
            following = [t.text for t in tokens[index + 1:index + 4]]
            if token.text == "require" and len(following) == 3 and following[0] == "(" and (
                    following[2] == ")") and tokens[index + 2].kind in _STRINGS:
                module = _string_value(tokens[index + 2].text)
                if module in _ASSERT_MODULES:
                    strict = _ASSERT_MODULES[module]
                    edits.append((token.start, tokens[index + 3].end,
                                  f"{name}.{'strict' if strict else 'legacy'}"))
            elif token.text == "console" and following[:2] == [".", "assert"] and not (
                    index and is_punct(tokens[index - 1], ".")):
                edits.append((token.start, tokens[index + 2].end, f"{name}.check"))
            elif token.text in _PRISTINE and following[:1] == ["."] and not (
                    index and is_punct(tokens[index - 1], ".", "?.")):
                edits.append((token.start, token.end, f"{name}.{token.text}"))
        rewritten, last = [], 0
        for start, end, replacement in edits:
            rewritten += [tests[last:start], replacement]
            last = end
        rewritten.append(tests[last:])
        return appended.assemble(self.language, _with_prologue(
            solution, _PROLOGUE.replace("NAME", name)), self._scoped("".join(rewritten)))

    def _scoped(self, tests: str) -> str:
        """The tests in a block of their own: their `const assert = require(...)`, `let`s and
        classes are theirs, beside a solution that declares the same names at its top level
        (its example usage's `const assert`), which one scope would refuse (a SyntaxError)."""
        return f"{{\n{tests}\n}}\n"


def _with_prologue(solution: str, prologue: str) -> str:
    """The solution with `prologue` first: after a `#!` line (node and tsc take one only at the
    very start) and a `use strict` directive (which must come first to count). Then the
    solution is no main module (`require.main === module` is false), as where a test harness
    requires it: its example (`if (require.main === module) main();`, JavaScript's `if
    __name__ == "__main__":`) does not run, as Python's does not."""
    shebang = re.match(r"#![^\n]*", solution)
    start = shebang.end() if shebang else 0
    head = re.compile(r"""\s*(['"])use strict\1;?""").match(solution, start)
    cut = head.end() if head else start
    return f"{solution[:cut]}{prologue}require.main = undefined;\n{solution[cut:]}"


class TypeScriptDialect(JavaScriptDialect):
    language = "typescript"

    def _scoped(self, tests: str) -> str:
        """As JavaScript's, the tests' `declare` lines (`declare var require: any;`) before
        the block: TypeScript takes them at top level only."""
        lines = tests.split("\n")
        declared = [line for line in lines if _DECLARATION.match(line)]
        rest = [line for line in lines if not _DECLARATION.match(line)]
        return "\n".join(declared) + "\n" + super()._scoped("\n".join(rest))


_DECLARATION = re.compile(r"declare\s")


_PRISTINE = ("Math", "JSON", "Object", "Number", "Array", "String")
_PROLOGUE = """
const NAME = (() => {
  const assert = require('node:assert'), Failure = assert.AssertionError;
  const copy = (source, callable) => {
    const target = callable ? (...args) => source(...args) : {};
    for (const key of Object.getOwnPropertyNames(source))
      if (key !== 'prototype' && key !== 'length' && key !== 'name' && key !== 'caller'
          && key !== 'arguments') target[key] = source[key];
    return target;
  };
  const strict = Object.freeze(copy(assert.strict, true)), legacy = copy(assert, true);
  legacy.strict = strict;
  const check = (condition) => {
    if (!condition) throw new Failure({ message: 'Assertion failed' });
  };
  return Object.freeze({ legacy: Object.freeze(legacy), strict, check,
    Math: Object.freeze(copy(Math)), JSON: Object.freeze(copy(JSON)),
    Object: Object.freeze(copy(Object)), Number: Object.freeze(copy(Number)),
    Array: Object.freeze(copy(Array)), String: Object.freeze(copy(String)) });
})();
"""


def _inside_abs(value: Any, check: Check) -> float:
    """What `Math.abs` is given: `CALL - K`, or for `CALL + K` (`how` "+", `expected` -K) the
    sum, where `+` concatenates a string, or an object's string form, with K's text
    (`"-1.5" + 1.5` is "-1.51.5": NaN) before ToNumber reads it."""
    if check.how == "+" and (type(value) is str or not jsvalues._primitive(value)):
        return jsvalues.to_number(jsvalues.to_string(value)
                                  + jsvalues.number_string(-check.expected))
    return jsvalues.to_number(value) - check.expected


def _equal(how: str, value: Any, expected: Any) -> bool:
    if how == "===":
        return jsvalues.strict_equal(value, expected)
    if how == "==":
        return jsvalues.loose_equal(value, expected)
    if how == "stringify":
        return jsvalues.stringify(value) == jsvalues.stringify(expected)
    return jsvalues.deep_equal(value, expected, strict=how == "deep_strict")


def _statements(tokens: list[Token], start: int, end: int) -> list[tuple[int, int]]:
    """The spans of the statements of tokens[start:end], by semicolons and JavaScript's line
    rules."""
    spans: list[tuple[int, int]] = []
    position = start
    while position < end:
        if is_punct(tokens[position], ";"):
            position += 1
            continue
        current = position
        while current < end:
            token = tokens[current]
            if current > position and token.newline and not is_punct(token, *_CONTINUES) \
                    and _can_end(tokens[current - 1]):
                break
            if is_punct(token, ";"):
                break
            if is_punct(token, "(", "[", "{"):
                current = closing(tokens, current) + 1
                if current > end:
                    raise NotPlainCalls("an unclosed bracket")
                continue
            if is_punct(token, ")", "]", "}"):
                raise NotPlainCalls(f"line {token.line}: an unbalanced {token.text!r}")
            current += 1
        spans.append((position, current))
        position = current
    return spans


def _can_end(token: Token) -> bool:
    return token.kind in ("name", "number", *_STRINGS) or is_punct(
        token, ")", "]", "}", "++", "--")


def _test_function(tokens: list[Token], start: int, end: int) -> tuple[str, int, int] | None:
    """`function NAME() {...}`, or `const NAME = () => {...}` / `= function () {...}`, at
    tokens[start:end]: its name and its body's span, else None."""
    texts = [t.text for t in tokens[start:min(end, start + 7)]]
    if texts[:1] == ["function"] and texts[2:5] == ["(", ")", "{"]:
        name, body = tokens[start + 1], start + 4
    elif texts[:1] and texts[0] in _DECLARES and texts[2:3] == ["="] and (
            texts[3:7] == ["(", ")", "=>", "{"] or texts[3:7] == ["function", "(", ")", "{"]):
        name, body = tokens[start + 1], start + 6
    else:
        return None
    if name.kind != "name" or closing(tokens, body) != end - 1:
        return None
    return name.text, body + 1, end - 1


def _called(statement: list[Token]) -> tuple[list[list[Token]], list[str]]:
    """A statement that is `a.b(ARGS)` or `a(ARGS)`: the arguments and the callee's names."""
    position = 0
    names = []
    while position < len(statement) and statement[position].kind == "name":
        names.append(statement[position].text)
        if not is_punct(statement[position + 1] if position + 1 < len(statement) else None, "."):
            position += 1
            break
        position += 2
    if (not names or position >= len(statement) or not is_punct(statement[position], "(")
            or closing(statement, position) != len(statement) - 1):
        raise NotPlainCalls(f"line {statement[0].line}: a statement that is not plain calls")
    arguments = split_top(statement[position + 1:-1], ",")
    if arguments and not arguments[-1]:
        arguments.pop()
    return arguments, names


def _assert_module(value: list[Token]) -> bool | None:
    """`require('assert')` (and its strict forms): whether strict, else None."""
    texts = [t.text for t in value]
    if len(value) < 4 or texts[:2] != ["require", "("] or texts[3] != ")" or (
            value[2].kind not in _STRINGS):
        return None
    module = _string_value(value[2].text)
    if module not in _ASSERT_MODULES:
        return None
    if texts[4:] == [".", "strict"]:
        return True
    return _ASSERT_MODULES[module] if len(value) == 4 else None


def _stringified(tokens: list[Token]) -> list[Token] | None:
    """X of `JSON.stringify(X)`, else None."""
    texts = [t.text for t in tokens[:4]]
    if texts == ["JSON", ".", "stringify", "("] and closing(tokens, 3) == len(tokens) - 1:
        return tokens[4:-1]
    return None


def _is_literal(tokens: list[Token]) -> bool:
    try:
        _Literals(tokens, {}).whole()
    except NotPlainCalls:
        return False
    return True


# --------------------------------------------------------------------------- literals

_NUMBER = re.compile(r"(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|"
                     r"(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9_]+)?)n?")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_CONSTANTS = {"true": True, "false": False, "null": None, "undefined": UNDEFINED,
              "NaN": math.nan, "Infinity": math.inf}


class _Literals:
    """A JavaScript literal expression, as the model of values.py."""

    def __init__(self, tokens: list[Token], variables: dict[str, Any]) -> None:
        self.tokens = tokens
        self.variables = variables
        self.position = 0

    def whole(self) -> Any:
        if not self.tokens:
            raise NotPlainCalls("an empty expression")
        value = self.sum(0)
        if self.position != len(self.tokens):
            raise NotPlainCalls(f"line {self.tokens[self.position].line}: not a literal")
        return value

    def peek(self) -> Token | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def sum(self, depth: int) -> Any:
        value = self.product(depth)
        while is_punct(self.peek(), "+", "-"):
            operator = self.tokens[self.position].text
            self.position += 1
            right = self.product(depth)
            if operator == "+" and type(value) is str and type(right) is str:
                value = value + right
                if len(value) > 1 << 16:
                    raise NotPlainCalls("a string too long")
            else:
                value = _arithmetic(operator, value, right)
        return value

    def product(self, depth: int) -> Any:
        value = self.unary(depth)
        while is_punct(self.peek(), "*", "/", "%", "**"):
            operator = self.tokens[self.position].text
            self.position += 1
            value = _arithmetic(operator, value, self.unary(depth))
        return value

    def unary(self, depth: int) -> Any:
        if depth > MAX_NESTING:
            raise NotPlainCalls("a literal nested too deep")
        if is_punct(self.peek(), "-", "+"):
            sign = self.tokens[self.position].text
            self.position += 1
            value = self.unary(depth + 1)
            if isinstance(value, BigInt) and sign == "-":
                return BigInt(-value.value)
            if not jsvalues._is_number(value):
                raise NotPlainCalls("a sign before something else than a number")
            if sign == "+":
                return value
            return -float(value) if value == 0 else -value
        return self.primary(depth)

    def primary(self, depth: int) -> Any:
        token = self.peek()
        if token is None:
            raise NotPlainCalls("an expression ends early")
        self.position += 1
        if token.kind == "number":
            return _number(token.text)
        if token.kind in _STRINGS:
            return _string_value(token.text)
        if token.kind == "name":
            if token.text in _CONSTANTS:
                return _CONSTANTS[token.text]
            if token.text in self.variables:
                return self.variables[token.text]
            raise NotPlainCalls(f"line {token.line}: {token.text!r} is not a literal")
        if is_punct(token, "("):  # (a, b) is b: the comma operator
            end = closing(self.tokens, self.position - 1)
            parts = [_Literals(part, self.variables).nested(depth + 1)
                     for part in split_top(self.tokens[self.position:end], ",")]
            self.position = end + 1
            return parts[-1]
        if is_punct(token, "["):
            end = closing(self.tokens, self.position - 1)
            parts = split_top(self.tokens[self.position:end], ",")
            if parts and not parts[-1]:
                parts.pop()  # a trailing comma
            self.position = end + 1
            return [UNDEFINED if not part else
                    _Literals(part, self.variables).nested(depth + 1) for part in parts]
        if is_punct(token, "{"):
            end = closing(self.tokens, self.position - 1)
            entries = split_top(self.tokens[self.position:end], ",")
            if entries and not entries[-1]:
                entries.pop()
            self.position = end + 1
            return self.object(entries, depth)
        raise NotPlainCalls(f"line {token.line}: {token.text!r} is not a literal")

    def nested(self, depth: int) -> Any:
        value = self.sum(depth)
        if self.position != len(self.tokens):
            raise NotPlainCalls("not a literal")
        return value

    def object(self, entries: list[list[Token]], depth: int) -> Record:
        """An object literal: integer keys first, ascending, then the others in order."""
        values: dict[str, Any] = {}
        for entry in entries:
            if len(entry) < 3 or not is_punct(entry[1], ":"):
                raise NotPlainCalls("an object entry that is not `key: value`")
            key = entry[0]
            if key.kind == "name":
                name = key.text
            elif key.kind in _STRINGS:
                name = _string_value(key.text)
            elif key.kind == "number":
                name = jsvalues.number_string(_number(key.text))
            else:
                raise NotPlainCalls("a computed key")
            values[name] = _Literals(entry[2:], self.variables).nested(depth + 1)
        indices = sorted((k for k in values if re.fullmatch(r"0|[1-9][0-9]*", k)
                          and int(k) < 2 ** 32 - 1), key=int)
        order = indices + [k for k in values if k not in indices]
        return Record(tuple((key, values[key]) for key in order))


def _arithmetic(operator: str, left: Any, right: Any) -> Any:
    if not jsvalues._is_number(left) or not jsvalues._is_number(right):
        raise NotPlainCalls("arithmetic on something else than numbers")
    a, b = float(left), float(right)
    try:
        if operator == "+":
            result = a + b
        elif operator == "-":
            result = a - b
        elif operator == "*":
            result = a * b
        elif operator == "/":
            result = a / b if b else (math.nan if a == 0 or math.isnan(a)
                                      else math.copysign(math.inf, a) * math.copysign(1, b))
        elif operator == "%":
            result = math.fmod(a, b) if b else math.nan
        else:
            result = a ** b
    except (OverflowError, ZeroDivisionError, ValueError):
        raise NotPlainCalls("arithmetic out of range") from None
    if type(result) is not float:
        raise NotPlainCalls("arithmetic out of range")
    return int(result) if result.is_integer() and abs(result) < 2 ** 53 and not (
        result == 0 and math.copysign(1, result) < 0) else result


def _number(text: str) -> Any:
    if not _NUMBER.fullmatch(text):
        raise NotPlainCalls(f"not a number {text[:30]!r}")
    bigint = text.endswith("n")
    digits = text.rstrip("n").replace("_", "")
    if digits[:2].lower() in ("0x", "0o", "0b"):
        value: Any = int(digits, {"x": 16, "o": 8, "b": 2}[digits[1].lower()])
    elif bigint or re.fullmatch(r"[0-9]+", digits):
        if len(digits) > 400:
            raise NotPlainCalls("a number too long")
        # a legacy octal literal (sloppy mode's `010` is 8; `08` is decimal)
        value = int(digits, 8) if not bigint and re.fullmatch(r"0[0-7]+", digits) else int(digits)
    else:
        value = float(digits)
    if bigint:
        if type(value) is not int:
            raise NotPlainCalls("a BigInt that is not an integer")
        return BigInt(value)
    if type(value) is int and abs(value) >= 2 ** 53:
        return float(value)
    return value


def _string_value(text: str) -> str:
    """A string or template literal's value (a template with substitutions is not one)."""
    body = text[1:-1]
    if text[0] == "`" and "${" in body:
        raise NotPlainCalls("a template with substitutions")
    out, position = [], 0
    while position < len(body):
        char = body[position]
        if char != "\\":
            out.append(char)
            position += 1
            continue
        escape = body[position + 1:position + 2]
        if escape in _ESCAPES and not (escape == "0" and body[position + 2:position + 3]
                                       .isdigit()):
            out.append(_ESCAPES[escape])
            position += 2
        elif escape == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", body[position + 2:position + 4]):
            out.append(chr(int(body[position + 2:position + 4], 16)))
            position += 4
        elif escape == "u" and (found := re.match(r"\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4})",
                                                  body[position + 2:])):
            code = int(found.group(1) or found.group(2), 16)
            if code > 0x10FFFF:
                raise NotPlainCalls("a code point out of range")
            out.append(chr(code))
            position += 2 + len(found.group())
        elif escape == "\n":
            position += 2
        elif escape and escape not in "123456789":
            out.append(escape)
            position += 2
        else:
            raise NotPlainCalls("an escape JavaScript does not allow here")
    return _utf16("".join(out))


def _utf16(text: str) -> str:
    """Surrogate pairs written as escapes joined into the character they are, as the driver's
    JSON of the same string arrives (lone surrogates stay)."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
