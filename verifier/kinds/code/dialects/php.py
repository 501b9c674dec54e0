"""PHP assert tests as calls: MultiPL-E's harness and `assert`s of `===`.

    function candidate(...$args) {       the wrapper: the driver calls through one of its own
        return f(...$args);
    }
    function test(): void {              test functions, called by name
        if (candidate(ARGS) !== EXPECTED) { throw new Exception("Test failed!"); }
    }
    test();
    assert(f(ARGS) === K);               (either side the call)
    if (!deep_equal(candidate(ARGS), EXPECTED)) { throw ... }

`deep_equal` is MultiPL-E's (with its `normalize_array` and `is_int_keyed_array`, recognised
by their exact tokens): `===` after an array whose keys are all integers is renumbered from 0
in its order, nested arrays too.

Expected values are PHP literals: null, booleans, integers (an overflow is a float), floats,
strings ('...' and "..." without interpolation) and arrays (`array(...)`, `[...]`, keys with
PHP's coercions: "8" is 8). `===` is PHP's identity: the same type (1 is not 1.0), arrays with
the same pairs in the same order. The driver writes a string as its bytes, an array as its
pairs in order, a float exactly (`%.16e`, which no ini setting changes), names of PHP's own
functions fully qualified (a solution's namespace cannot shadow them).
"""

from __future__ import annotations

import math
import re
from typing import Any

from verifier.kinds.code import appended
from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    NotPlainCalls,
)
from verifier.kinds.code.dialects.lexer import (
    Token,
    closing,
    is_punct,
    source_of,
    split_top,
    token_at,
    unwrapped,
)
from verifier.kinds.code.dialects.scanner import Escape, bytes_of, character, resolve, simple
from verifier.kinds.code.dialects.scripts import (
    Frame,
    Reader,
    ScriptDialect,
    Step,
    lexer,
    literal,
    texts,
    top_level,
    utf8,
)
from verifier.kinds.code.dialects.values import Map

_NAME = r"[A-Za-z_\x80-\U0010ffff][A-Za-z0-9_\x80-\U0010ffff]*"
_tokenize = lexer([
    ("comment", r"//[^\n]*|\#(?!\[)[^\n]*|/\*.*?\*/"),
    ("open", r"<\?php\b"),
    ("string", r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""),
    ("variable", r"\$" + _NAME),
    ("number", r"0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+"
               r"|(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9_]+)?"),
    ("name", rf"\\?{_NAME}(?:\\{_NAME})*"),
    ("punct", r"\.\.\.|===|!==|<=>|\?->|\?\?=?|==|!=|<>|<=|>=|=>|->|::|&&|\|\||\+\+|--"
              r"|[-+*/%.=<>!&|^~?:;,(){}\[\]@]"),
])
_INT_MAX = (1 << 63) - 1
_INTERPOLATION = re.compile(r"\$[A-Za-z_\x80-\U0010ffff{]|\{\$")
_ESCAPES: list[Escape] = [
    simple({"n": "\n", "t": "\t", "r": "\r", "v": "\v", "e": "\x1b", "f": "\f", "\\": "\\",
            "$": "$", '"': '"'}),
    (re.compile("([0-7]{1,3})"), lambda found: bytes([int(found[1], 8) & 0xFF])),
    (re.compile("x([0-9a-fA-F]{1,2})"), lambda found: bytes([int(found[1], 16)])),
    (re.compile("u\\{([0-9a-fA-F]{1,6})\\}"), lambda found: character(int(found[1], 16))),
    (re.compile("(.)", re.S), lambda found: "\\" + found[1]),  # an unknown escape stays
]
_DECIMAL_KEY = re.compile(rb"0|-?[1-9][0-9]*")


_DRIVER_HEAD = r"""?><?php
$__verifier_record = (function () {
    // php:// as PHP made it: a solution may have registered a stream wrapper of its own there
    // (which would see, and could rewrite, every record). Unregistered first, so that restoring
    // it never notices (an error handler of the solution's would run) that nothing changed.
    @\stream_wrapper_unregister('php');
    \stream_wrapper_restore('php');
    $out = \fopen('php://fd/3', 'wb');
    $budget = 0;
    $put = function ($value, int $depth) use (&$put, &$budget): string {
        $budget -= 1;
        if ($value === null) return 'null';
        if (\is_bool($value)) return $value ? 'true' : 'false';
        if (\is_int($value)) return \sprintf('%d', $value);
        if (\is_float($value)) {
            if (\is_nan($value)) return '["f","nan"]';
            if (\is_infinite($value)) return $value > 0 ? '["f","inf"]' : '["f","-inf"]';
            return \sprintf('%.16e', $value);
        }
        if (\is_string($value)) return '["b","' . \bin2hex($value) . '"]';
        if (\is_array($value) && $depth < 100 && $budget > 0) {
            $text = '["m"';
            foreach ($value as $key => $item) {
                $text .= ',' . $put($key, $depth + 1) . ',' . $put($item, $depth + 1);
            }
            return $text . ']';
        }
        return '["x","' . \gettype($value) . '"]';
    };
    return function (int $site, $value) use ($out, $put, &$budget): void {
        $budget = 1000000;
        \fwrite($out, '[' . $site . ',' . $put($value, 0) . "]\n");
        \fflush($out);
    };
})();
"""


# In-process tests run through eval: code of their own, in the global namespace (a solution's
# `namespace` declaring its own `abs` or `count` does not reach them), their `assert`s the
# verifier's check (a solution may have switched PHP's assertions off), defined in that code.
# The tests run in the global namespace, where a function the solution declared in a namespace
# of its own has no name (MultiPL-E's harness appends them to the file, in that namespace): a
# short name the global namespace lacks (so none of PHP's) and the tests do not define calls
# the solution's function of that name.
_NAMED = ("(function (array $own) {{ foreach (\\get_defined_functions()['user'] as $name) {{ "
          "$cut = \\strrpos($name, '\\\\'); if ($cut === false) continue; "
          "$short = \\substr($name, $cut + 1); "
          "if (\\function_exists($short) || \\in_array($short, $own, true)) continue; "
          "eval('function ' . $short . '(...$a) {{ return \\\\' . $name . '(...$a); }}'); }} }})"
          "({own});\n")
_GUARD = ("\n?><?php\n" + _NAMED + "eval('?><?php function __verifier_check_{tag}($condition, "
          "$message = null) {{ if (!$condition) {{ \\fwrite(\\STDERR, \"Assertion failed\\n\"); "
          "exit(1); }} }} ' . {tests});\n")


# MultiPL-E's comparison helpers (its tests since nuprl/MultiPL-E#72), token by token after
# `function NAME`: `deep_equal` is `===` on arrays renumbered where every key is an integer.
_HELPERS = {name: shape.split() for name, shape in {
    "is_int_keyed_array": "( $value ) : bool { if ( ! is_array ( $value ) ) { return false ; } "
                          "foreach ( array_keys ( $value ) as $key ) { if ( ! is_int ( $key ) ) "
                          "{ return false ; } } return true ; }",
    "normalize_array": "( $value ) { if ( ! is_array ( $value ) ) { return $value ; } if ( "
                       "is_int_keyed_array ( $value ) ) { $values = array_values ( $value ) ; "
                       "foreach ( $values as $index => $item ) { $values [ $index ] = "
                       "normalize_array ( $item ) ; } return $values ; } $normalized = array ( "
                       ") ; foreach ( $value as $key => $item ) { $normalized [ $key ] = "
                       "normalize_array ( $item ) ; } return $normalized ; }",
    "deep_equal": "( $left , $right ) : bool { if ( is_array ( $left ) && is_array ( $right ) "
                  ") { return normalize_array ( $left ) === normalize_array ( $right ) ; } "
                  "return $left === $right ; }",
}.items()}


class _Literal(Reader):
    """A PHP literal: null, booleans, numbers (a unary minus), strings, arrays."""

    def value(self) -> Any:
        token = self.next()
        word = token.text.lower() if token.kind == "name" else ""
        if word in ("null", "\\null"):
            return None
        if word in ("true", "false", "\\true", "\\false"):
            return word.endswith("true")
        if token.kind == "number":
            return _number(token.text)
        if token.kind == "string":
            return _string(token.text)
        if is_punct(token, "-", "+") and self.peek() is not None and (
                self.peek().kind == "number"):
            number = _number(self.next().text)
            if token.text == "+":
                return number
            return float(-number) if number == _INT_MAX + 1 else -number
        if word == "array" and self.at("("):
            self.next()
            return self._array(")")
        if is_punct(token, "["):
            return self._array("]")
        raise NotPlainCalls(f"line {token.line}: not a literal")

    def _array(self, end: str) -> Map:
        self.nested()
        entries: dict[Any, Any] = {}
        following = 0
        while not self.at(end):
            if self.peek() is None:
                raise NotPlainCalls("an array without its end")
            item = self.value()
            if self.at("=>"):
                self.next()
                key = _key(item)
                item = self.value()
            else:
                key = following
            entries[key] = item  # an existing key keeps its place
            if type(key) is int and key >= following:
                following = key + 1
            if not self.at(end):
                self.expect(",")
        self.next()
        self.depth -= 1
        return Map(tuple(entries.items()))


class PhpDialect(ScriptDialect):
    language = "php"

    def plan(self, tests: str) -> CallsPlan:
        return _Frame(tests, _tokenize(tests)).plan(_DRIVER_HEAD)

    def judge(self, check: Check, value: Any) -> bool:
        if check.kind == "equal" and check.how == "deep_equal":
            return identical(_renumbered(value), _renumbered(check.expected)) != check.negated
        if check.kind == "equal":
            return identical(value, check.expected) != check.negated
        return False

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        try:
            tokens = _tokenize(tests)
        except NotPlainCalls:
            return None
        rewritten, last = [], 0
        if tokens and tokens[0].kind == "open":
            last = tokens[0].end
        for index, token in enumerate(tokens):
            if token.kind == "name" and token.text.lower() in ("assert", "\\assert") and (
                    index + 1 < len(tokens) and is_punct(tokens[index + 1], "(")):
                rewritten += [tests[last:token.start], f"__verifier_check_{tag}"]
                last = token.end
        rewritten.append(tests[last:])
        quoted = "'" + "".join(rewritten).replace("\\", "\\\\").replace("'", "\\'") + "'"
        own = sorted({tokens[index + 1].text.lower() for index, token in enumerate(tokens[:-1])
                      if token.kind == "name" and token.text.lower() == "function"
                      and tokens[index + 1].kind == "name"})
        return appended.assemble(self.language, solution, _GUARD.format(
            tag=tag, tests=quoted, own="[" + ", ".join(f"'{name}'" for name in own) + "]"))


class _Frame(Frame):
    """The wrapper (`function candidate(...$args) { return f(...$args); }`), test functions
    called by name, and checks at top level or in them."""

    record = "$__verifier_record({site}, {call});"
    reader = _Literal

    def __init__(self, tests: str, tokens: list[Token]) -> None:
        super().__init__(tests)
        self.tokens = tokens
        self.wrapped: dict[str, str] = {}  # the tests' wrapper -> the driver's
        self.helpers: set[str] = set()  # MultiPL-E's comparison helpers the tests define

    def read(self) -> None:
        tokens, position = self.tokens, 0
        if tokens and tokens[0].kind == "open":
            position = 1
        while position < len(tokens):
            position = self._statement(position, self.order, top=True)

    def _statement(self, position: int, into: list[Step], top: bool = False) -> int:
        tokens = self.tokens
        head = tokens[position]
        words = texts(tokens[position:position + 4])
        if is_punct(head, ";"):
            return position + 1
        if top and head.kind == "name" and head.text.lower() == "function":
            return self._function(position + 1)
        if top and words[:1] and words[0].lower() in self.functions and words[1:4] == [
                "(", ")", ";"]:
            self.run(words[0].lower())
            return position + 4
        if head.kind == "name" and head.text.lower() == "if" and is_punct(
                token_at(tokens, position + 1), "("):
            end = closing(tokens, position + 1)
            after = self._throws(end + 1)
            self._failed_if(tokens[position + 2:end], head.line, into)
            return after
        if head.kind == "name" and head.text.lower() in ("assert", "\\assert") and is_punct(
                token_at(tokens, position + 1), "("):
            end = closing(tokens, position + 1)
            if not is_punct(token_at(tokens, end + 1), ";"):
                raise NotPlainCalls(f"line {head.line}: an assert inside an expression")
            parts = split_top(tokens[position + 2:end], ",")
            if len(parts) > 2:
                raise NotPlainCalls(f"line {head.line}: an assert of something else")
            self._identity(parts[0], "===", head.line, into)
            return end + 2
        raise NotPlainCalls(f"line {head.line}: a statement that is not plain calls")

    def _function(self, position: int) -> int:
        tokens = self.tokens
        name = token_at(tokens, position)
        if name is None or name.kind != "name" or not is_punct(token_at(tokens, position + 1), "("):
            raise NotPlainCalls("a function of the tests")
        parameters_end = closing(tokens, position + 1)
        body_start = parameters_end + 1
        shape = _HELPERS.get(name.text.lower())
        if shape is not None and texts(tokens[position + 1:position + 1 + len(shape)]) == shape:
            if name.text.lower() in self.taken:
                raise NotPlainCalls(f"{name.text!r} defined twice")
            self.taken.add(name.text.lower())
            self.helpers.add(name.text.lower())
            return position + 1 + len(shape)
        if texts(tokens[body_start:body_start + 2]) == [":", "void"]:
            body_start += 2
        if not is_punct(token_at(tokens, body_start), "{"):
            raise NotPlainCalls("a function of the tests without a body")
        body_end = closing(tokens, body_start)
        parameters = texts(tokens[position + 2:parameters_end])
        body = texts(tokens[body_start + 1:body_end])
        if len(parameters) == 2 and parameters[0] == "..." and body[:1] == ["return"] and (
                body[2:] == ["(", "...", parameters[1], ")", ";"]):
            self._wrapper(name.text, tokens[body_start + 2])
            return body_end + 1
        if parameters:
            raise NotPlainCalls("a test function that takes arguments")
        steps: list[Step] = []
        inner = body_start + 1
        while inner < body_end:
            inner = self._statement(inner, steps)
        self.define(name.text.lower(), steps)
        return body_end + 1

    def _wrapper(self, name: str, target: Token) -> None:
        """`function candidate(...$args) { return f(...$args); }`: the driver calls f
        through a closure of its own (by-reference parameters work as through the tests')."""
        if target.kind != "name" or target.text.lower() in self.taken:
            raise NotPlainCalls("a wrapper of the tests' own function")
        driver = f"$__verifier_call_{len(self.wrapped)}"
        self.opening.append(f"{driver} = function (...$arguments) {{ return "
                             f"{target.text}(...$arguments); }};")
        self.wrapped[name.lower()] = driver
        self.taken.add(name.lower())

    def _throws(self, position: int) -> int:
        """`{ throw new E(...); }` (or without braces): where it ends."""
        tokens = self.tokens
        braced = is_punct(token_at(tokens, position), "{")
        at = position + 1 if braced else position
        if texts(tokens[at:at + 2]) != ["throw", "new"] or token_at(tokens, at + 2) is None or (
                tokens[at + 2].kind != "name") or not is_punct(token_at(tokens, at + 3), "("):
            raise NotPlainCalls("a failed check that does not throw")
        end = closing(tokens, at + 3)
        if not is_punct(token_at(tokens, end + 1), ";"):
            raise NotPlainCalls("a throw of something else")
        if braced and not is_punct(token_at(tokens, end + 2), "}"):
            raise NotPlainCalls("more than a throw")
        return end + 3 if braced else end + 2

    def _failed_if(self, condition: list[Token], line: int, into: list[Step]) -> None:
        condition = unwrapped(condition)
        if texts(condition[:3]) == ["!", "deep_equal", "("] and closing(condition, 2) == len(
                condition) - 1:
            if self.helpers != set(_HELPERS):
                raise NotPlainCalls(f"line {line}: a deep_equal not MultiPL-E's")
            parts = split_top(condition[3:-1], ",")
            if len(parts) != 2:
                raise NotPlainCalls(f"line {line}: a deep_equal of something else")
            call, expected = self.either(parts[0], parts[1], line)
            self.site(call, line, Check("equal", expected, how="deep_equal"), into)
        elif is_punct(condition[0], "!") and closing(condition, 1) == len(condition) - 1:
            self._identity(condition[1:], "===", line, into)
        else:
            self._identity(condition, "!==", line, into)

    def _identity(self, condition: list[Token], passing: str, line: int,
                  into: list[Step]) -> None:
        """`CALL === K` (`passing` "==="), or `CALL !== K` that fails the test."""
        condition = unwrapped(condition)
        comparisons = top_level(condition, "===", "!==", "==", "!=", "<>")
        if len(comparisons) != 1:
            raise NotPlainCalls(f"line {line}: not one identity")
        at = comparisons[0]
        if condition[at].text not in ("===", "!=="):
            raise NotPlainCalls(f"line {line}: a loose comparison")
        call, expected = self.either(condition[:at], condition[at + 1:], line)
        negated = condition[at].text != passing
        self.site(call, line, Check("equal", expected, negated=negated), into)

    def call(self, tokens: list[Token], line: int) -> list[Token]:
        if (len(tokens) < 3 or tokens[0].kind != "name" or not is_punct(tokens[1], "(")
                or closing(tokens, 1) != len(tokens) - 1):
            raise NotPlainCalls(f"line {line}: not a call")
        name = tokens[0].text.lower()
        if name in self.taken and name not in self.wrapped or name in (
                "array", "list", "isset", "empty", "eval", "exit", "die", "assert", "new"):
            raise NotPlainCalls(f"line {line}: a call of the tests' own {name!r}")
        arguments = split_top(tokens[2:-1], ",")
        for argument in arguments if arguments != [[]] else []:
            literal(_Literal, argument)
        return tokens

    def recorded(self, site: int, call: list[Token]) -> str:
        source = source_of(self.tests, call)
        driver = self.wrapped.get(call[0].text.lower())
        if driver is not None:
            source = driver + source[len(call[0].text):]
        return self.record.format(site=site, call=source)


def _number(text: str) -> int | float:
    digits = text.replace("_", "").lower()
    if "_" in text and ("__" in text or text.endswith("_")):
        raise NotPlainCalls(f"a number {text[:20]!r}")
    if digits.startswith(("0x", "0b", "0o")) or (len(digits) > 1 and digits[0] == "0"
                                                 and digits.isdigit()):
        base = {"x": 16, "b": 2, "o": 8}.get(digits[1], 8)
        value = int(digits[2:] if base != 8 or digits[1] == "o" else digits, base)
        return value if value <= _INT_MAX else float(value)
    if "." in digits or "e" in digits:
        return float(digits)
    value = int(digits)
    return value if value <= _INT_MAX else float(value)


def _string(text: str) -> bytes:
    body = text[1:-1]
    if text[0] == "'":
        return utf8(body.replace("\\\\", "\0").replace("\\'", "'").replace("\0", "\\"))
    pieces = resolve(body, _ESCAPES)
    if any(_INTERPOLATION.search(piece) for piece in pieces[::2]):  # the text between escapes
        raise NotPlainCalls("a string with interpolation")
    return bytes_of(pieces)


def _key(value: Any) -> Any:
    """An array key as PHP stores it: integers, strings ("8" is 8), bools and floats as
    integers, null as ""."""
    if value is None:
        return b""
    if type(value) is bool:
        return int(value)
    if type(value) is float:
        if not math.isfinite(value):
            raise NotPlainCalls("a key that is not a finite number")
        return int(value)
    if type(value) is bytes:
        if _DECIMAL_KEY.fullmatch(value) and -_INT_MAX - 1 <= int(value) <= _INT_MAX:
            return int(value)
        return value
    if type(value) is int:
        return value
    raise NotPlainCalls("an array as a key")


def _renumbered(value: Any) -> Any:
    """MultiPL-E's `normalize_array`: an array whose keys are all integers keeps its values in
    order under keys 0, 1, ...; nested arrays likewise."""
    if not isinstance(value, Map):
        return value
    listed = all(type(key) is int for key, _ in value.pairs)
    return Map(tuple((index if listed else key, _renumbered(item))
                     for index, (key, item) in enumerate(value.pairs)))


def identical(actual: Any, expected: Any) -> bool:
    """PHP's `===` on the model: the same type and value; arrays pair by pair, in order."""
    if type(actual) is not type(expected):
        return False
    if isinstance(actual, Map):
        return len(actual.pairs) == len(expected.pairs) and all(
            type(ka) is type(ke) and ka == ke and identical(va, ve)
            for (ka, va), (ke, ve) in zip(actual.pairs, expected.pairs, strict=True))
    return actual == expected
