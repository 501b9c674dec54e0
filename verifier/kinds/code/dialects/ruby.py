"""Ruby assert tests as calls: MultiPL-E's test/unit harness and `raise ... unless`.

    require 'test/unit'                               the frame: test methods of a TestCase
    class TestHumanEval < Test::Unit::TestCase        run after the script, by name
      def test_f
        candidate = method(:f)
        assert_equal(EXPECTED, candidate.call(ARGS))  also assert(CALL == K), assert_nil...
      end
    end
    raise 'assertion failed' unless f(ARGS) == K      (and `if CALL != K`)

Expected values are Ruby literals: nil, true, false, integers, floats, strings ('...' and
"..." without interpolation), symbols, arrays and hashes (`{k => v}`, `{k: v}`). `==` is
Ruby's: an Integer equals the same Float, arrays element by element, hashes by keys (`eql?`:
1 and 1.0 are different keys) and values, strings by their characters (a binary string with
other bytes than ASCII equals no text), a Rational (`x.quo(y)`, `1/3r`) by its value, and
against a Float as that Float, a BigDecimal by its exact value, and against a Float as
BigDecimal converts it (its shortest digits cut to 16), a Complex by its parts, equal to a real
number when its imaginary part is zero (`Complex(1, 0) == 1`). The driver's serialiser is made
of syntax and module functions (`Kernel.format`, `->`), so a solution's top-level methods do not
reach it, and it opens its channel with an Integer mode, which Ruby converts with no call a
solution's `method_missing` could answer.
"""

from __future__ import annotations

import re
from decimal import ROUND_DOWN, Context, Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    NotPlainCalls,
)
from verifier.kinds.code.dialects.lexer import (
    Token,
    closing,
    depth_at,
    is_punct,
    source_of,
    split_top,
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
    split_lines,
    texts,
    top_level,
)
from verifier.kinds.code.dialects.values import Map, OfType, Opaque

_tokenize = lexer([
    ("comment", r"\#[^\n]*|(?<![^\n])=begin\b.*?\n=end\b[^\n]*"),
    ("string", r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'"),
    ("symbol", r":[A-Za-z_][A-Za-z0-9_]*[?!=]?(?!:)"),
    ("number", r"0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO]?[0-7_]+(?![.0-9])"
               r"|[0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9]+)?"),
    ("variable", r"@@?[A-Za-z_][A-Za-z0-9_]*|\$[A-Za-z_][A-Za-z0-9_]*"),
    ("name", r"[A-Za-z_][A-Za-z0-9_]*[?!]?"),
    ("punct", r"\*\*|===|==|!=|<=>|<=|>=|=>|&&|\|\||<<|>>|::|\.\.\.?|&\.|->"
              r"|[-+*/%=<>!&|^~?:;,.(){}\[\]]"),
], space=r"[ \t\r\f\v]+|\\\n")
_INTERPOLATION = re.compile("#[{@$]")
_ESCAPES: list[Escape] = [
    simple({"n": "\n", "t": "\t", "s": " ", "r": "\r", "e": "\x1b", "a": "\a", "b": "\b",
            "f": "\f", "v": "\v"}),
    (re.compile("([0-7]{1,3})"), lambda found: bytes([int(found[1], 8) & 0xFF])),
    (re.compile("x([0-9a-fA-F]{1,2})"), lambda found: bytes([int(found[1], 16)])),
    (re.compile("u\\{([0-9a-fA-F ]+)\\}|u([0-9a-fA-F]{4})"), lambda found: "".join(
        character(int(code, 16)) for code in (found[1] or found[2]).split())),
    (re.compile("([^A-Za-z0-9])", re.S), lambda found: found[1]),
]
_NUMBERS = (int, float, Fraction, Decimal)
_BIGDECIMAL_DOUBLE = Context(prec=16, rounding=ROUND_DOWN)  # BIGDECIMAL_DOUBLE_FIGURES
_CONSTANT = {"assert_nil": None, "assert_true": True, "assert_false": False}
_BUILTINS = frozenset({"assert", "assert_equal", "raise", "puts", "print", "p", "method",
                       "require", "exit", "fail", "eval", "send", "lambda", "proc"})


_DRIVER_HEAD = r"""
;__verifier_record = ->() {
  # The mode as an Integer (O_WRONLY), binary set apart: a String mode is asked for #to_int,
  # which a solution's Object#method_missing or respond_to_missing? may answer.
  out = IO.new(3, 1)
  out.binmode
  out.sync = true
  budget = 0
  text = ->(string) {
    '"' + string.unpack('U*').map { |c|
      if c >= 0x20 && c < 0x7f && c != 0x22 && c != 0x5c then c.chr
      elsif c > 0xffff then Kernel.format('\u%04x\u%04x', 0xd800 + ((c - 0x10000) >> 10),
                                          0xdc00 + ((c - 0x10000) & 0x3ff))
      else Kernel.format('\u%04x', c)
      end
    }.join + '"'
  }
  put = nil
  put = ->(value, depth) {
    budget -= 1
    case value
    when nil then 'null'
    when true then 'true'
    when false then 'false'
    when Integer then value.to_s
    when Rational
      if value.denominator == 1 then '["y","Rational",' + value.numerator.to_s + ']'
      else '["q","' + value.numerator.to_s + '","' + value.denominator.to_s + '"]'
      end
    when Complex
      '["y","Complex",["t",' + put.(value.real, depth + 1) + ',' +
        put.(value.imaginary, depth + 1) + ']]'
    when Float
      if value.nan? then '["f","nan"]'
      elsif value.infinite? then value > 0 ? '["f","inf"]' : '["f","-inf"]'
      else Kernel.format('%.17g', value).then { |s| s.match?(/[.e]/) ? s : s + '.0' }
      end
    when String
      if value.valid_encoding? && (value.encoding == Encoding::UTF_8 || value.ascii_only?)
        text.(value.encode(Encoding::UTF_8))
      else '["b","' + value.unpack1('H*') + '"]'
      end
    when Symbol then '["t","sym",' + text.(value.to_s.encode(Encoding::UTF_8)) + ']'
    when Array
      if depth >= 100 || budget < 0 then '["x","deep"]'
      else '["l"' + value.map { |item| ',' + put.(item, depth + 1) }.join + ']'
      end
    when Hash
      if depth >= 100 || budget < 0 then '["x","deep"]'
      else
        '["m"' + value.map { |k, v| ',' + put.(k, depth + 1) + ',' + put.(v, depth + 1) }.join +
          ']'
      end
    else
      # BigDecimal is a library's: named only where the solution loaded it.
      if defined?(::BigDecimal) && ::BigDecimal === value
        '["y","BigDecimal",' + text.(value.to_s) + ']'
      else '["x","object"]'
      end
    end
  }
  ->(site, value) {
    budget = 1_000_000
    out.write('[' + site.to_s + ',' + put.(value, 0) + "]\n")
  }
}.()
"""


class _Literal(Reader):
    """A Ruby literal: nil, booleans, numbers (a unary minus), strings, symbols, arrays,
    hashes."""

    def value(self) -> Any:
        token = self.next()
        if token.kind == "name" and token.text in ("nil", "true", "false"):
            return {"nil": None, "true": True, "false": False}[token.text]
        if token.kind == "number":
            return _number(token.text)
        if token.kind == "string":
            return _string(token.text)
        if token.kind == "symbol":
            return ("sym", token.text[1:])
        if is_punct(token, "-") and self.peek() is not None and self.peek().kind == "number":
            return -_number(self.next().text)
        if is_punct(token, "["):
            self.nested()
            items = []
            while not self.at("]"):
                if self.peek() is None:
                    raise NotPlainCalls("an array without its end")
                items.append(self.value())
                if not self.at("]"):
                    self.expect(",")
            self.next()
            self.depth -= 1
            return items
        if is_punct(token, "{"):
            return self._hash()
        raise NotPlainCalls(f"line {token.line}: not a literal")

    def _hash(self) -> Map:
        self.nested()
        entries: dict[Any, tuple[Any, Any]] = {}
        while not self.at("}"):
            token = self.peek()
            if token is None:
                raise NotPlainCalls("a hash without its end")
            if token.kind == "name" and self.at_next(":"):  # key: value
                self.position += 2
                key: Any = ("sym", token.text)
            else:
                key = self.value()
                self.expect("=>")
            entries[_key(key)] = (key, self.value())  # a repeated key keeps its place
            if not self.at("}"):
                self.expect(",")
        self.next()
        self.depth -= 1
        return Map(tuple(entries.values()))


class RubyDialect(ScriptDialect):
    language = "ruby"

    def plan(self, tests: str) -> CallsPlan:
        return _Frame(tests, split_lines(_tokenize(tests))).plan(_DRIVER_HEAD)

    def judge(self, check: Check, value: Any) -> bool:
        if check.kind == "equal":
            return equal(value, check.expected) != check.negated
        return False


class _Frame(Frame):
    """`require 'test/unit'`, TestCase classes of `test*` methods, aliases, checks."""

    record = "__verifier_record.({site}, {call})"
    reader = _Literal

    def __init__(self, tests: str, statements: list[list[Token]]) -> None:
        super().__init__(tests)
        self.statements = statements
        self.aliases: set[str] = set()
        self.methods: list[str] = []

    def read(self) -> None:
        position = 0
        while position < len(self.statements):
            statement = self.statements[position]
            words = texts(statement)
            if words[:1] == ["require"] and len(statement) == 2 and statement[1].kind == (
                    "string") and _string(statement[1].text) == "test/unit":
                position += 1
            elif words[:1] == ["class"]:
                position = self._class(position)
            else:
                self._statement(statement, self.order)
                position += 1
        for name in sorted(self.methods):  # test/unit runs them after the script, by name
            self.run(name)

    def _class(self, position: int) -> int:
        words = texts(self.statements[position])
        if words[2:] != ["<", "Test", "::", "Unit", "::", "TestCase"] or len(words) != 8:
            raise NotPlainCalls("a class that is not a TestCase")
        position += 1
        while position < len(self.statements) and texts(self.statements[position]) != ["end"]:
            words = texts(self.statements[position])
            if words[:1] != ["def"] or len(words) != 2 or not words[1].startswith("test"):
                raise NotPlainCalls("a TestCase with more than test methods")
            steps: list[Step] = []
            position += 1
            while position < len(self.statements) and texts(self.statements[position]) != [
                    "end"]:
                self._statement(self.statements[position], steps)
                position += 1
            if position >= len(self.statements):
                raise NotPlainCalls("a method without its end")
            self.define(words[1], steps)
            self.methods.append(words[1])
            position += 1
        if position >= len(self.statements):
            raise NotPlainCalls("a class without its end")
        return position + 1

    def _statement(self, statement: list[Token], into: list[Step]) -> None:
        words = texts(statement)
        line = statement[0].line
        if (len(words) == 6 and statement[0].kind == "name" and words[1:4] == [
                "=", "method", "("] and statement[4].kind == "symbol" and words[5] == ")"):
            if words[0] in self.taken or words[0] in _BUILTINS:
                raise NotPlainCalls(f"line {line}: an alias of the tests' own name")
            self.aliases.add(words[0])
            into.append(source_of(self.tests, statement))
            return
        if words[:1] in (["raise"], ["fail"]):
            modifiers = [i for i, t in enumerate(statement) if t.kind == "name"
                         and t.text in ("if", "unless") and depth_at(statement, i) == 0]
            if len(modifiers) != 1 or not all(
                    t.kind == "string" or is_punct(t, "(", ")", ",")
                    for t in statement[1:modifiers[0]]):
                raise NotPlainCalls(f"line {line}: a raise that is not a check")
            at = modifiers[0]
            self._comparison(statement[at + 1:], statement[at].text == "unless", line, into)
            return
        if len(words) > 2 and words[1] == "(" and closing(statement, 1) == len(statement) - 1:
            parts = split_top(statement[2:-1], ",")
            if words[0] == "assert_equal" and len(parts) in (2, 3):
                call, expected = self.either(parts[0], parts[1], line)
                self.site(call, line, Check("equal", expected), into)
                return
            if words[0] in _CONSTANT and len(parts) in (1, 2):
                self.site(self.call(unwrapped(parts[0]), line), line,
                          Check("equal", _CONSTANT[words[0]]), into)
                return
            if words[0] == "assert" and len(parts) in (1, 2):
                self._comparison(parts[0], True, line, into)
                return
        raise NotPlainCalls(f"line {line}: a statement that is not plain calls")

    def _comparison(self, condition: list[Token], passes: bool, line: int,
                    into: list[Step]) -> None:
        """`CALL == K` (or !=) that holds when the test passes (`passes`), or fails it."""
        condition = unwrapped(condition)
        comparisons = top_level(condition, "==", "!=")
        if len(comparisons) != 1:
            raise NotPlainCalls(f"line {line}: not one comparison")
        at = comparisons[0]
        call, expected = self.either(condition[:at], condition[at + 1:], line)
        negated = (condition[at].text == "!=") == passes
        self.site(call, line, Check("equal", expected, negated=negated), into)

    def call(self, tokens: list[Token], line: int) -> list[Token]:
        """`candidate.call(ARGS)` or `f(ARGS)`, each argument a literal."""
        if (len(tokens) >= 4 and tokens[0].text in self.aliases
                and texts(tokens[1:4]) == [".", "call", "("]):
            opening = 3
        elif (len(tokens) >= 3 and tokens[0].kind == "name" and tokens[0].text not in self.taken
              and tokens[0].text not in _BUILTINS and tokens[0].text not in self.aliases):
            opening = 1
        else:
            raise NotPlainCalls(f"line {line}: not a call of the solution")
        if not is_punct(tokens[opening], "(") or closing(tokens, opening) != len(tokens) - 1:
            raise NotPlainCalls(f"line {line}: not a call of the solution")
        arguments = split_top(tokens[opening + 1:-1], ",")
        for argument in arguments if arguments != [[]] else []:
            literal(_Literal, argument)
        return tokens


def _number(text: str) -> int | float:
    digits = text.replace("_", "").lower()
    if digits.startswith(("0x", "0b", "0o")):
        return int(digits[2:], {"x": 16, "b": 2, "o": 8}[digits[1]])
    if "." in digits or "e" in digits:
        return float(digits)
    return int(digits, 8) if len(digits) > 1 and digits[0] == "0" else int(digits)


def _string(text: str) -> str | bytes:
    """A Ruby string literal: its text, or its bytes where escapes make it other than UTF-8;
    interpolation is not a literal."""
    body = text[1:-1]
    if text[0] == "'":
        return body.replace("\\\\", "\0").replace("\\'", "'").replace("\0", "\\")
    pieces = resolve(body, _ESCAPES)
    if any(_INTERPOLATION.search(piece) for piece in pieces[::2]):  # the text between escapes
        raise NotPlainCalls("a string with interpolation")
    data = bytes_of(pieces)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def _key(value: Any) -> Any:
    """A hash key as `eql?` tells keys apart: 1 and 1.0 differ; arrays by their items."""
    if isinstance(value, list):
        return ("a", tuple(_key(item) for item in value))
    if isinstance(value, Map):
        return ("h", frozenset((_key(k), _key(v)) for k, v in value.pairs))
    if type(value) is float and value != value:
        return ("nan", id(value))
    return (type(value).__name__, value)


def _number_of(value: Any) -> Any:
    """A Rational or a BigDecimal as a number (Fraction, Decimal): the driver writes them with
    their types, so that as hash keys they stay apart from the Integer (`eql?`), as in Ruby. A
    BigDecimal that is no number Ruby writes (only a forged record) is Opaque."""
    if isinstance(value, OfType) and value.type == "Rational" and type(value.value) is int:
        return Fraction(value.value)
    if isinstance(value, OfType) and value.type == "BigDecimal" and type(value.value) is str:
        try:
            number = Decimal(value.value)
        except InvalidOperation:
            return Opaque("BigDecimal")
        return Opaque("BigDecimal") if number.is_snan() else number
    return value


def _as_bigdecimal(value: float) -> Decimal:
    """A Float as BigDecimal's `==` converts it: its shortest digits (those `to_s` shows), cut
    (not rounded) to 16."""
    return _BIGDECIMAL_DOUBLE.plus(Decimal(repr(value)))


def _complex_equal(parts: Any, other: Any) -> bool:
    """Complex#==: part by part with a Complex, with a real number when the imaginary part is
    zero and the real part equals it, never with anything else."""
    if isinstance(other, OfType) and other.type == "Complex":
        return type(other.value) is tuple and len(other.value) == 2 and all(
            equal(mine, theirs) for mine, theirs in zip(parts, other.value, strict=True))
    return type(_number_of(other)) in _NUMBERS and equal(parts[1], 0) and equal(parts[0], other)


def equal(actual: Any, expected: Any) -> bool:
    """Ruby's `==` on the model; a Rational equals a Float when it converts to it (Ruby
    compares them as Floats), a BigDecimal a Float as BigDecimal converts it, other numbers by
    their exact values."""
    for mine, other in ((actual, expected), (expected, actual)):
        if isinstance(mine, OfType) and mine.type == "Complex":
            return type(mine.value) is tuple and len(mine.value) == 2 and _complex_equal(
                mine.value, other)
    actual, expected = _number_of(actual), _number_of(expected)
    if actual is None or expected is None or type(actual) is bool or type(expected) is bool:
        return type(actual) is type(expected) and actual == expected
    if type(actual) in _NUMBERS and type(expected) in _NUMBERS:
        if Fraction in (type(actual), type(expected)) and float in (type(actual),
                                                                    type(expected)):
            return float(actual) == float(expected)
        if Decimal in (type(actual), type(expected)) and float in (type(actual),
                                                                   type(expected)):
            return (_as_bigdecimal(actual) if type(actual) is float else actual) == (
                _as_bigdecimal(expected) if type(expected) is float else expected)
        return actual == expected
    if type(actual) in (str, bytes, tuple) or type(expected) in (str, bytes, tuple):
        return type(actual) is type(expected) and actual == expected
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(
            equal(a, e) for a, e in zip(actual, expected, strict=True))
    if isinstance(actual, Map) and isinstance(expected, Map):
        found = {_key(key): value for key, value in actual.pairs}
        return len(found) == len(actual.pairs) == len(expected.pairs) and all(
            _key(key) in found and equal(found[_key(key)], value)
            for key, value in expected.pairs)
    return False
