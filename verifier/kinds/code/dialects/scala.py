"""Scala assert tests as calls: MultiPL-E's shape, a `main` of the solution's object whose
statements are `assert(CHECK)` (shapes.py's checks):

        }
        def main(args: Array[String]) = {
        assert(hasCloseElements((List[Float](1.0f.toFloat, 2.0f)), (0.3f)) == (true));
        assert(sortArray((List[Long](5l, 1l))).equals((List[Long](1l.toLong, 5l))));
        }
    }

Scala's `==` is cooperative: numbers equal by value whatever their type (`1 == 1L`,
`List(1) == List(1.0)`), and so is `equals` on its collections, options and tuples (they
compare their elements with `==`); a sequence is not a set, `None` is not null.

In-process tests (anything else) are hardened: each `assert(...)` of the tests is the
verifier's own check (named per program), which prints the failure and halts the JVM, so a
`def assert` of the solution (in its object, where the tests' `main` is) earns nothing; a
solution whose object declares a library name the tests use (`object Math`, `def Some`) is
refused (shadowing.py).
"""

from __future__ import annotations

from typing import Any

from verifier.kinds.code import appended
from verifier.kinds.code.dialects import keyed
from verifier.kinds.code.dialects.compiled_reading import scala_code
from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    Dialect,
    NotPlainCalls,
    Site,
    sites_within_bounds,
)
from verifier.kinds.code.dialects.entry import find_entry, line_statements, words_at
from verifier.kinds.code.dialects.lexer import Token, closing, is_punct, split_top, tokenize
from verifier.kinds.code.dialects.rewrite import checks_rewritten
from verifier.kinds.code.dialects.scala_record import RECORDER, SCALA_RECORDER
from verifier.kinds.code.dialects.shadowing import Declaring, driven, refusal
from verifier.kinds.code.dialects.shapes import Scope, ShapeReader, Spelling, judged
from verifier.kinds.code.dialects.tokens import top_level
from verifier.kinds.code.dialects.typed import (
    TypedReader,
    in_range,
    integer_value,
    of_float,
    unescape,
)
from verifier.kinds.code.dialects.values import Map, OfType, SetOf, Some

_SEQUENCES = frozenset({"List", "Seq", "Vector", "ArrayBuffer", "ListBuffer", "IndexedSeq"})
_CONVERSIONS = {"toLong": ("Long", 64), "toInt": ("Integer", 32), "toShort": ("Short", 16),
                "toByte": ("Byte", 8), "toDouble": ("Double", 0), "toFloat": ("Float", 0)}
NONE = OfType("Option", None)


class ScalaReader(TypedReader):
    """Scala literals (see the module doc)."""

    WORDS = {**TypedReader.WORDS, "None": NONE, "Nil": []}

    def number(self, text: str, expected: Any) -> OfType:
        negative = text.startswith("-")
        body = text.lstrip("-")
        lower = body.lower()
        if not lower.startswith("0x") and (lower.endswith(("f", "d")) or any(
                c in lower for c in ".e")):
            try:
                value = float(body.rstrip("fFdD"))
            except ValueError:
                raise NotPlainCalls(f"not a number {text[:30]!r}") from None
            single = lower.endswith("f")
            return of_float(-value if negative else value, single,
                            "Float" if single else "Double")
        long = lower.endswith("l")
        value = integer_value(body.rstrip("lL"))
        value = -value if negative else value
        if not in_range(value, 64 if long else 32):
            raise NotPlainCalls("an integer out of its type's range")
        return OfType("Long" if long else "Integer", value)

    def char(self, text: str) -> OfType:
        body = unescape(text[1:-1])
        if len(body) != 1:
            raise NotPlainCalls("a char literal of other than one char")
        return OfType("Character", body)

    def suffixed(self, value: Any) -> Any:
        while is_punct(self.peek(), ".") and self.peek(1) is not None and (
                self.peek(1).text in _CONVERSIONS):
            name, bits = _CONVERSIONS[self.peek(1).text]
            self.position += 2
            if not isinstance(value, OfType) or type(value.value) not in (int, float):
                raise self.fail("a conversion of something else than a number")
            if bits == 0:
                value = of_float(float(value.value), name == "Float", name)
            elif type(value.value) is float:
                raise self.fail("a float converted to an integer")
            elif not in_range(value.value, bits):
                raise self.fail("a conversion out of range")
            else:
                value = OfType(name, value.value)
        return value

    def group(self, inner: list[Token], depth: int, expected: Any) -> Any:
        parts = split_top(inner, ",")
        if len(parts) == 1:
            return self.sub(inner, depth, expected)
        return tuple(self.sub(part, depth, None) for part in parts)

    def named(self, depth: int, expected: Any) -> Any:
        token = self.peek()
        text = token.text
        found, value = self.word()
        if found:
            return value
        if text == "Some" and is_punct(self.peek(1), "("):
            self.position += 1
            values = self.items(depth)
            if len(values) != 1:
                raise self.fail("Some of other than one value")
            return Some(values[0])
        if text in _SEQUENCES | {"Set", "Map"}:
            self.position += 1
            if is_punct(self.peek(), "["):
                self.position = closing(self.tokens, self.position) + 1
            if text == "Map":
                return self._map(depth)
            values = self.items(depth)
            return SetOf(tuple(values)) if text == "Set" else values
        raise self.fail(f"{text!r} is not a literal")

    def _map(self, depth: int) -> Map:
        pairs = []
        for part in self.parts():
            arrows = top_level(part, "->")
            if len(arrows) != 1:
                raise self.fail("a map entry that is not key -> value")
            at = arrows[0]
            pairs.append((self.sub(part[:at], depth), self.sub(part[at + 1:], depth)))
        return Map(tuple(pairs))


SCALA = Spelling(ScalaReader, absolute=(("Math", "abs"), ("math", "abs"), ("abs",)),
                 object_equality="cooperative", primitive_equality="cooperative")


def _main_header(tokens: list[Token], position: int) -> int | None:
    after = words_at(tokens, position, ("def", "main", "("))
    if after is None:
        return None
    position = closing(tokens, after - 1) + 1
    if words_at(tokens, position, (":", "Unit")) is not None:
        position += 2
    if position < len(tokens) and is_punct(tokens[position], "="):
        position += 1
    return position if position < len(tokens) and is_punct(tokens[position], "{") else None


class ScalaDialect(Dialect):
    language = "scala"

    def plan(self, tests: str) -> CallsPlan:
        tokens = tokenize(tests)
        entry = find_entry(tests, tokens, _main_header)
        scope = Scope()
        lines: list[str] = []
        sites: list[Site] = []
        for statement in line_statements(entry.body):
            if not (statement[0].text == "assert" and len(statement) > 2 and is_punct(
                    statement[1], "(") and closing(statement, 1) == len(statement) - 1):
                raise NotPlainCalls(f"line {statement[0].line}: a statement that is not an "
                                    "assert")
            site = ShapeReader(tests, SCALA, scope).asserted(statement[2:-1], statement[0].line)
            if site.check.how == "equals":
                site = Site(site.line, site.call, Check(
                    site.check.kind, site.check.expected, negated=site.check.negated,
                    how="cooperative"))
            sites.append(site)
            lines.append(f"    {RECORDER}.record({len(sites) - 1}, {site.call})")
        driver = "\n".join([tests[:entry.body_start], *lines, tests[entry.body_end:],
                            SCALA_RECORDER])
        return CallsPlan(sites_within_bounds(sites), driver)

    def program(self, solution: str, plan: CallsPlan) -> str:
        return driven(SCALA_DECLARING, solution, solution, plan.driver,
                      (RECORDER, SCALA_RECORDER))

    def holds(self, check: Check, value: Any) -> bool:
        if check.kind == "equal" and check.how == "cooperative":
            try:
                return keyed.equal(value, check.expected, "cooperative") != check.negated
            except (TypeError, ValueError):
                return False
        return judged(check, value)

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        check = f"__VerifierCheck_{tag}"
        try:
            rewritten = checks_rewritten(tests, (("assert",),), f"{check}.check")
            checked = rewritten + _CHECK.replace("__VerifierCheck", check)
            refused = refusal(SCALA_DECLARING, solution, checked)
        except NotPlainCalls:
            return None
        return refused or appended.assemble(self.language, solution, checked)


_CHECK = r"""
object __VerifierCheck {
  def check(line: scala.Int, condition: scala.Boolean, message: => scala.Any = ""): scala.Unit =
    if (!condition) {
      java.lang.System.err.println("Assertion failed at line " + line + " of the tests")
      java.lang.System.err.flush()
      java.lang.Runtime.getRuntime().halt(1)
      throw new java.lang.Error("Assertion failed")
    }
}
"""

# The library names Scala's tests call by simple name (scala's, Predef's, java.lang's, and the
# packages' own names). The tests run in the solution's object, where its members come before
# anything imported (`object List`, `def Some`, `val math`, `type Long`, `import x.{Fake =>
# Math}`, `val (math, x) = ...`): such a program is refused. `val List(a, b) = xs` binds `a`
# and `b` only.
_VALUE = frozenset({"=", ":", ","})
SCALA_DECLARING = Declaring(
    reading=scala_code,
    library=frozenset({
        "List", "Seq", "Vector", "IndexedSeq", "Array", "ArrayBuffer", "ListBuffer", "Map",
        "Set", "Some", "None", "Option", "Nil", "Tuple2", "Tuple3", "Left", "Right", "Either",
        "Int", "Long", "Short", "Byte", "Float", "Double", "Boolean", "Char", "String", "Unit",
        "Any", "AnyRef", "Nothing", "BigInt", "BigDecimal", "Math", "math", "scala", "java",
        "Predef", "sys", "Console", "System", "Runtime", "mutable", "collection", "immutable",
        "println", "print", "require", "identity", "implicitly", "Range", "Iterator",
        "Ordering", "Exception", "AssertionError", "RuntimeException", "Error", "Throwable",
        "abs", "sqrt", "pow", "round", "floor", "ceil", "max", "min"}),
    keywords={"class": None, "object": None, "trait": None, "def": None, "type": None,
              "val": _VALUE, "var": _VALUE},
    alias="=>", patterns=True,
    refused="""object VerifierRefused {
  def main(args: Array[String]): Unit = {
    System.err.println("the solution declares NAMES, which the tests use: they would not be " +
      "the library's, so the tests cannot run in its process")
    System.exit(1)
  }
}
""")
