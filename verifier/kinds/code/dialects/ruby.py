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
before the solution runs, of the core classes' methods as they were then (see _SERIALISER), so
a solution that reopens Integer, String, Array, Module or IO does not reach it; it opens its
channel with an Integer mode, which Ruby converts with no call a solution's `method_missing`
could answer.
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
    drawn_name,
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


# The serialiser, made before the solution runs (a BEGIN block, which runs before any of the
# solution's, on its first line of code so that its lines keep their numbers and its magic
# comments stay first): a frozen object whose singleton methods call only methods of the core
# classes taken then (UnboundMethod#bind_call, UnboundMethod frozen) and classes kept in its
# instance variables, so a solution that redefines or prepends to Integer#to_s, Array#each,
# Module#===, Kernel#format, IO#write..., or rebinds `Integer`, does not reach the record. Its
# one local has a name drawn per program, which the driver's head binds.
_SERIALISER = r"""BEGIN { RECORD = Object.new
RECORD.instance_eval {
  m = ->(owner, name) { owner.instance_method(name).freeze }
  @is, @same, @int_s = m.(Module, :===), m.(BasicObject, :equal?), m.(Integer, :to_s)
  @add, @sub, @lt, @gt = m.(Integer, :+), m.(Integer, :-), m.(Integer, :<), m.(Integer, :>)
  @and, @shift, @chr = m.(Integer, :&), m.(Integer, :>>), m.(Integer, :chr)
  @numerator, @denominator = m.(Rational, :numerator), m.(Rational, :denominator)
  @real, @imaginary = m.(Complex, :real), m.(Complex, :imaginary)
  @nan, @infinite, @format = m.(Float, :nan?), m.(Float, :infinite?), m.(Kernel, :format)
  @valid, @ascii = m.(String, :valid_encoding?), m.(String, :ascii_only?)
  @encoding = m.(String, :encoding)
  @encode, @unpack, @unpack1 = m.(String, :encode), m.(String, :unpack), m.(String, :unpack1)
  @match, @name = m.(Regexp, :match?), m.(Symbol, :to_s)
  @each, @push, @join = m.(Array, :each), m.(Array, :push), m.(Array, :join)
  @pairs = m.(Hash, :each_pair)
  @defined, @constant = m.(Module, :const_defined?), m.(Module, :const_get)
  @method, @bound = m.(Module, :instance_method), m.(UnboundMethod, :bind_call)
  @source, @write = m.(UnboundMethod, :source_location), m.(IO, :write)
  @Integer, @Rational, @Complex, @Float, @String = Integer, Rational, Complex, Float, String
  @Symbol, @Array, @Hash, @Object, @Numeric, @Module = Symbol, Array, Hash, Object, Numeric, Module
  @utf8 = Encoding::UTF_8
  @out = IO.new(3, 1)
  @out.binmode
  @out.sync = true
  UnboundMethod.freeze
  def text(string, parts)
    @push.bind_call(parts, '"')
    @each.bind_call(@unpack.bind_call(@encode.bind_call(string, @utf8), 'U*')) { |c|
      if @gt.bind_call(c, 0xffff)
        c = @sub.bind_call(c, 0x10000)
        @push.bind_call(parts, @format.bind_call(nil, '\u%04x\u%04x',
                                                 @add.bind_call(0xd800, @shift.bind_call(c, 10)),
                                                 @add.bind_call(0xdc00, @and.bind_call(c, 0x3ff))))
      elsif @lt.bind_call(c, 0x20) || @gt.bind_call(c, 0x7e) ||
            @same.bind_call(c, 0x22) || @same.bind_call(c, 0x5c)
        @push.bind_call(parts, @format.bind_call(nil, '\u%04x', c))
      else
        @push.bind_call(parts, @chr.bind_call(c))
      end
    }
    @push.bind_call(parts, '"')
  end
  def put(value, depth, parts, budget)
    budget = @sub.bind_call(budget, 1)
    if @same.bind_call(value, nil) then @push.bind_call(parts, 'null')
    elsif @same.bind_call(value, true) then @push.bind_call(parts, 'true')
    elsif @same.bind_call(value, false) then @push.bind_call(parts, 'false')
    elsif @is.bind_call(@Integer, value) then @push.bind_call(parts, @int_s.bind_call(value))
    elsif @is.bind_call(@Rational, value)
      if @same.bind_call(@denominator.bind_call(value), 1)
        @push.bind_call(parts, '["y","Rational",', @int_s.bind_call(@numerator.bind_call(value)),
                        ']')
      else
        @push.bind_call(parts, '["q","', @int_s.bind_call(@numerator.bind_call(value)), '","',
                        @int_s.bind_call(@denominator.bind_call(value)), '"]')
      end
    elsif @is.bind_call(@Complex, value)
      @push.bind_call(parts, '["y","Complex",["t",')
      budget = put(@real.bind_call(value), @add.bind_call(depth, 1), parts, budget)
      @push.bind_call(parts, ',')
      budget = put(@imaginary.bind_call(value), @add.bind_call(depth, 1), parts, budget)
      @push.bind_call(parts, ']]')
    elsif @is.bind_call(@Float, value)
      infinite = @infinite.bind_call(value)
      if @nan.bind_call(value) then @push.bind_call(parts, '["f","nan"]')
      elsif @same.bind_call(infinite, 1) then @push.bind_call(parts, '["f","inf"]')
      elsif @same.bind_call(infinite, -1) then @push.bind_call(parts, '["f","-inf"]')
      else
        digits = @format.bind_call(nil, '%.17g', value)
        @push.bind_call(parts, digits)
        @push.bind_call(parts, '.0') unless @match.bind_call(/[.e]/, digits)
      end
    elsif @is.bind_call(@String, value)
      if @valid.bind_call(value) &&
         (@same.bind_call(@encoding.bind_call(value), @utf8) || @ascii.bind_call(value))
        text(value, parts)
      else
        @push.bind_call(parts, '["b","', @unpack1.bind_call(value, 'H*'), '"]')
      end
    elsif @is.bind_call(@Symbol, value)
      @push.bind_call(parts, '["t","sym",')
      text(@name.bind_call(value), parts)
      @push.bind_call(parts, ']')
    elsif (@is.bind_call(@Array, value) || @is.bind_call(@Hash, value)) &&
          (@gt.bind_call(depth, 99) || @lt.bind_call(budget, 0))
      @push.bind_call(parts, '["x","deep"]')
    elsif @is.bind_call(@Array, value)
      @push.bind_call(parts, '["l"')
      @each.bind_call(value) { |item|
        @push.bind_call(parts, ',')
        budget = put(item, @add.bind_call(depth, 1), parts, budget)
      }
      @push.bind_call(parts, ']')
    elsif @is.bind_call(@Hash, value)
      @push.bind_call(parts, '["m"')
      @pairs.bind_call(value) { |key, item|
        @push.bind_call(parts, ',')
        budget = put(key, @add.bind_call(depth, 1), parts, budget)
        @push.bind_call(parts, ',')
        budget = put(item, @add.bind_call(depth, 1), parts, budget)
      }
      @push.bind_call(parts, ']')
    else
      digits = decimal(value)
      if digits
        @push.bind_call(parts, '["y","BigDecimal",')
        text(digits, parts)
        @push.bind_call(parts, ']')
      else
        @push.bind_call(parts, '["x","object"]')
      end
    end
    budget
  end
  def decimal(value)
    return nil unless @is.bind_call(@Numeric, value) &&
                      @defined.bind_call(@Object, :BigDecimal, false)
    type = @constant.bind_call(@Object, :BigDecimal, false)
    return nil unless @is.bind_call(@Module, type) && @is.bind_call(type, value)
    to_s = @method.bind_call(type, :to_s)
    return nil unless @same.bind_call(@source.bind_call(to_s), nil)
    digits = @bound.bind_call(to_s, value)
    @is.bind_call(@String, digits) ? digits : nil
  end
  def call(site, value)
    parts = ['[', @int_s.bind_call(site), ',']
    put(value, 0, parts, 1000000)
    @push.bind_call(parts, "]\n")
    @write.bind_call(@out, @join.bind_call(parts, ''))
    nil
  end
  freeze
} }
"""
# One line: a line that goes on (after `,`, `(`, `||`, `&&`) joined with a space, others with `;`.
_SERIALISER_LINE = "; ".join(line.strip() for line in re.sub(
    r"(,|\(|\|\||&&)\n\s*", r"\1 ", _SERIALISER.strip()).split("\n")) + "; "
_DRIVER_HEAD = "\n;__verifier_record = __verifier_serialiser\n"


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

    def program(self, solution: str, plan: CallsPlan) -> str:
        """The serialiser made first (on the solution's first line of code: after its comments,
        which hold its magic comments, and `=begin` blocks), the solution, the driver."""
        name = drawn_name(solution, plan.driver)
        driver = plan.driver.replace("__verifier_serialiser", name, 1)
        bom = "\ufeff" if solution.startswith("\ufeff") else ""
        lines = solution[len(bom):].splitlines(keepends=True)
        at, documentation = 0, False
        while at < len(lines) and (documentation or lines[at].startswith("=begin")
                                   or lines[at].lstrip().startswith("#") or not lines[at].strip()):
            documentation = (documentation or lines[at].startswith("=begin")) and not (
                lines[at].startswith("=end"))
            at += 1
        prelude = _SERIALISER_LINE.replace("RECORD", name)
        if at == len(lines):
            return f"{bom}{''.join(lines)}\n{prelude}\n{driver}"
        lines[at] = prelude + lines[at]
        return f"{bom}{''.join(lines)}\n{driver}"

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
