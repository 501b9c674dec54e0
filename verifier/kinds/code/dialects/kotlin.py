"""Kotlin assert tests as calls: MultiPL-E's `fun main() { assert(EXPECTED == CALL) ... }`
(also `check(...)`), and the shape that names each call's arguments, result and expected
value:

    fun main() {
        var arg00 : MutableList<Long> = mutableListOf(1L, 2L)
        var x0 : Long = f(arg00);
        var v0 : Long = 3L;
        assert(x0 == v0)              // or: if (x0 != v0) { throw Exception("...") }
    }

Each check is one of shapes.py's. Kotlin's `==` is `equals`: types count (`Int` 1 is not `Long`
1, a `List<Int>` is not a `List<Long>`), doubles compare as IEEE numbers where both sides are
doubles. An integer literal takes the type its context expects (`var v0 : Long = 3`,
`mutableListOf<Long>(1)`), else `Int` (`Long` past Int's range).

The driver is the tests' `main` with each call recorded (kotlin_record.py), after the solution
(whose own top-level `fun main`, if any, is renamed). In-process tests (anything else) are
hardened: each `assert(...)`/`check(...)` of the tests, and each `throw`, is the verifier's
own check (named per program), which prints the failure and halts the JVM, so neither a
`fun assert` of the solution nor disabled assertions (`-da`, which Kotlin's `assert` obeys)
nor a handler catching what the tests throw earns anything; a solution that declares a
library name the tests use (`object Math`, `fun listOf`, an extension `to`) is refused
(shadowing.py).
"""

from __future__ import annotations

from typing import Any

from verifier.kinds.code import appended
from verifier.kinds.code.dialects import keyed
from verifier.kinds.code.dialects.compiled_reading import kotlin_code
from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    Dialect,
    NotPlainCalls,
    Site,
    sites_within_bounds,
)
from verifier.kinds.code.dialects.entry import find_entry, line_statements, words_at
from verifier.kinds.code.dialects.kotlin_record import KOTLIN_RECORDER, RECORDER
from verifier.kinds.code.dialects.lexer import (
    Token,
    closing,
    is_punct,
    source_of,
    split_top,
    tokenize,
    used_declarations,
)
from verifier.kinds.code.dialects.rewrite import checks_rewritten
from verifier.kinds.code.dialects.shadowing import Declaring, driven, refusal
from verifier.kinds.code.dialects.shapes import Scope, ShapeReader, Spelling, judged, unwrapped
from verifier.kinds.code.dialects.tokens import at, top_level
from verifier.kinds.code.dialects.typed import (
    Generic,
    TypedReader,
    in_range,
    integer_value,
    of_float,
    read_generic,
    unescape,
)
from verifier.kinds.code.dialects.values import Map, OfType, SetOf

_NUMBERS = {"Int": ("Integer", 32), "Long": ("Long", 64), "Short": ("Short", 16),
            "Byte": ("Byte", 8)}
_FLOATS = {"Double": "Double", "Float": "Float"}
_LISTS = frozenset({"listOf", "mutableListOf", "arrayListOf", "emptyList"})
_SETS = frozenset({"setOf", "mutableSetOf", "hashSetOf", "emptySet", "linkedSetOf"})
_MAPS = frozenset({"mapOf", "mutableMapOf", "hashMapOf", "emptyMap", "linkedMapOf"})
_CHECKS = ("assert", "check")
_THROWN = frozenset({"Exception", "AssertionError", "RuntimeException", "IllegalStateException",
                     "Error"})


class KotlinReader(TypedReader):
    """Kotlin literals, typed as kotlinc types them (see the module doc)."""

    def number(self, text: str, expected: Any) -> OfType:
        negative = text.startswith("-")
        body = text.lstrip("-").replace("_", "")
        lower = body.lower()
        hexadecimal = lower.startswith(("0x", "0b"))
        target = expected.name if isinstance(expected, Generic) else None
        if not hexadecimal and (lower.endswith("f") or any(c in lower for c in ".e")):
            try:
                value = float(body.rstrip("fF"))
            except ValueError:
                raise NotPlainCalls(f"not a number {text[:30]!r}") from None
            single = lower.endswith("f")
            if target in _FLOATS and (target == "Float") != single:
                raise NotPlainCalls("a float literal of the other precision")
            return of_float(-value if negative else value, single, "Float" if single
                            else "Double")
        long = lower.endswith("l")
        value = integer_value(body.rstrip("lL"))
        value = -value if negative else value
        if long:
            name, bits = "Long", 64
        elif target in _NUMBERS:
            name, bits = _NUMBERS[target]
        elif target in _FLOATS:
            raise NotPlainCalls("an integer literal where a float is expected")
        else:
            name, bits = ("Integer", 32) if in_range(value, 32) else ("Long", 64)
        if not in_range(value, bits):
            raise NotPlainCalls("an integer out of its type's range")
        return OfType(name, value)

    def char(self, text: str) -> OfType:
        body = unescape(text[1:-1], escapes="ntrb\\\"'$")
        if len(body) != 1:
            raise NotPlainCalls("a char literal of other than one char")
        return OfType("Character", body)

    def string(self, text: str) -> Any:
        if not text.startswith('"') or text.startswith('"""'):
            raise NotPlainCalls("a string literal of another kind")
        body = text[1:-1]
        for index, char in enumerate(body):
            if char == "$" and (index == 0 or body[index - 1] != "\\") and (
                    body[index + 1:index + 2].isidentifier() or body[index + 1:index + 2] == "{"):
                raise NotPlainCalls("a string template")
        return unescape(body, escapes="ntrb\\\"'$")

    def named(self, depth: int, expected: Any) -> Any:
        token = self.peek()
        text = token.text
        found, value = self.word()
        if found:
            return value
        kind = expected if isinstance(expected, Generic) else None
        if text in _LISTS | _SETS | _MAPS:
            self.position += 1
            if is_punct(self.peek(), "<"):
                found_type = read_generic(self.tokens, self.position - 1)
                if found_type is None:
                    raise self.fail("unreadable type arguments")
                kind, self.position = found_type
            if text in _MAPS:
                return self._map(depth, kind)
            element = kind.arg(0) if kind else None
            items = self.items(depth, element)
            return SetOf(tuple(items)) if text in _SETS else items
        if text in ("Pair", "Triple") and is_punct(self.peek(1), "("):
            self.position += 1
            values = self.items(depth)
            if len(values) != (2 if text == "Pair" else 3):
                raise self.fail(f"a {text} of the wrong size")
            return tuple(values)
        raise self.fail(f"{text!r} is not a literal")

    def _map(self, depth: int, kind: Generic | None) -> Map:
        pairs = []
        for part in self.parts():
            splits = top_level(part, "to")
            if len(splits) != 1:
                raise self.fail("a map entry that is not `key to value`")
            at = splits[0]
            pairs.append((self.sub(part[:at], depth, kind.arg(0) if kind else None),
                          self.sub(part[at + 1:], depth, kind.arg(1) if kind else None)))
        return Map(tuple(pairs))


KOTLIN = Spelling(KotlinReader, absolute=(("Math", "abs"), ("kotlin", "math", "abs"),
                                          ("abs",)), object_equality="kotlin==",
                  primitive_equality="kotlin==")


def _main_header(tokens: list[Token], position: int) -> int | None:
    while words_at(tokens, position, ("@",)) is not None and position + 1 < len(tokens):
        position += 2  # an annotation: @JvmStatic
    after = words_at(tokens, position, ("fun", "main", "("))
    if after is None:
        return None
    end = closing(tokens, after - 1)
    return end + 1 if end + 1 < len(tokens) and is_punct(tokens[end + 1], "{") else None


class KotlinDialect(Dialect):
    language = "kotlin"

    def plan(self, tests: str) -> CallsPlan:
        tokens = tokenize(tests)
        entry = find_entry(tests, tokens, _main_header)
        if tests[:entry.header_start].strip():
            raise NotPlainCalls("a main inside an object: MainKt would have none to run")
        scope = Scope()
        lines: list[str] = []
        sites: list[Site | None] = []
        results: dict[str, int] = {}  # a name holding a call's result: its site
        declared: dict[int, str] = {}  # the lines declaring literal variables
        for statement in line_statements(entry.body):
            head = statement[0]
            if head.text in _CHECKS and is_punct(at(statement, 1), "(") and closing(
                    statement, 1) == len(statement) - 1:
                parts = split_top(statement[2:-1], ",")
                if len(parts) != 1:
                    raise NotPlainCalls(f"line {head.line}: an assert with a message")
                self._check(tests, parts[0], head.line, scope, results, sites, lines)
            elif head.text == "if":
                condition = _thrown_unless(statement)
                self._check(tests, condition, head.line, scope, results, sites, lines,
                            negate=True)
            elif head.text in ("var", "val"):
                known = len(scope.variables)
                self._declaration(tests, statement, scope, results, sites, lines)
                if len(scope.variables) > known:
                    declared[len(lines) - 1] = list(scope.variables)[-1]
            else:
                raise NotPlainCalls(f"line {head.line}: a statement that is not plain calls")
        if any(site is None for site in sites):
            raise NotPlainCalls("a call whose result is never checked")
        driver = "\n".join([tests[:entry.body_start], *used_declarations(lines, declared),
                            tests[entry.body_end:], KOTLIN_RECORDER])
        return CallsPlan(sites_within_bounds([s for s in sites if s is not None]), driver)

    @staticmethod
    def _declaration(tests: str, statement: list[Token], scope: Scope,
                     results: dict[str, int], sites: list[Site | None],
                     lines: list[str]) -> None:
        """`var NAME [: TYPE] = VALUE`: a literal (kept) or a call (recorded)."""
        name = at(statement, 1)
        if name is None or name.kind != "name" or name.text in scope.variables or (
                name.text in results):
            raise NotPlainCalls(f"line {statement[0].line}: a declaration the dialect does not "
                                "know")
        position, kind = 2, None
        if is_punct(at(statement, 2), ":"):
            found = read_generic(statement, 3)
            if found is None:
                raise NotPlainCalls(f"line {statement[0].line}: an unreadable type")
            kind, position = found
        if not is_punct(at(statement, position), "=") or position + 1 >= len(statement):
            raise NotPlainCalls(f"line {statement[0].line}: a declaration without a value")
        value = unwrapped(statement[position + 1:])
        try:
            scope.variables[name.text] = KotlinReader(value, scope.variables).whole(kind)
        except NotPlainCalls:
            call = ShapeReader(tests, KOTLIN, scope).call(value)
            results[name.text] = len(sites)
            lines.append(f"    {RECORDER}.record({len(sites)}, {call})")
            sites.append(None)
            return
        lines.append(f"    {source_of(tests, statement)}")

    @staticmethod
    def _check(tests: str, tokens: list[Token], line: int, scope: Scope,
               results: dict[str, int], sites: list[Site | None], lines: list[str],
               negate: bool = False) -> None:
        tokens = unwrapped(tokens)
        names = [t.text for t in tokens]
        if len(tokens) == 3 and is_punct(tokens[1], "==", "!=") and (
                names[0] in results or names[2] in results):
            result, other = (names[0], tokens[2:]) if names[0] in results else (
                names[2], tokens[:1])
            index = results.pop(result)
            expected = KotlinReader(other, scope.variables).whole()
            negated = (names[1] == "!=") != negate
            sites[index] = Site(line, _recorded(lines, index),
                                Check("equal", expected, negated=negated, how="kotlin=="))
            return
        if negate:
            raise NotPlainCalls(f"line {line}: an if the dialect does not know")
        site = ShapeReader(tests, KOTLIN, scope).site(tokens, line)
        lines.append(f"    {RECORDER}.record({len(sites)}, {site.call})")
        sites.append(site)

    def holds(self, check: Check, value: Any) -> bool:
        if check.kind == "equal" and check.how == "kotlin==":
            expected = check.expected
            if (isinstance(expected, OfType) and isinstance(value, OfType)
                    and expected.type == value.type in ("Double", "Float")):
                same = value.value == expected.value  # IEEE, as `==` on two doubles
                return same != check.negated
            return keyed.equal(value, expected, "typed") != check.negated
        return judged(check, value)

    def program(self, solution: str, plan: CallsPlan) -> str:
        return driven(KOTLIN_DECLARING, solution, solution, plan.driver,
                      (RECORDER, KOTLIN_RECORDER))

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        try:
            rewritten = checks_rewritten(tests, (("assert",), ("check",)),
                                         f"__VerifierCheck_{tag}.check", _THROWN)
            check = _CHECK.replace("__VerifierCheck", f"__VerifierCheck_{tag}")
            refused = refusal(KOTLIN_DECLARING, solution, rewritten + check)
        except NotPlainCalls:
            return None
        return refused or appended.assemble(self.language, solution, rewritten + check)


def _recorded(lines: list[str], index: int) -> str:
    """The call recorded for site `index`, from its driver line."""
    marker = f"{RECORDER}.record({index}, "
    for line in lines:
        if line.strip().startswith(marker):
            return line.strip()[len(marker):-1]
    raise NotPlainCalls("a result without its call")


def _thrown_unless(statement: list[Token]) -> list[Token]:
    """`if (CONDITION) { throw Exception(...) }`: CONDITION (the check fails when it holds)."""
    if not is_punct(at(statement, 1), "("):
        raise NotPlainCalls(f"line {statement[0].line}: an if the dialect does not know")
    end = closing(statement, 1)
    body = statement[end + 1:]
    texts = [t.text for t in body]
    if not (len(body) >= 6 and texts[:2] == ["{", "throw"] and texts[2] in (
            "Exception", "AssertionError", "RuntimeException", "IllegalStateException")
            and texts[3] == "(" and closing(body, 3) == len(body) - 2 and texts[-1] == "}"):
        raise NotPlainCalls(f"line {statement[0].line}: an if that does more than throw")
    return statement[2:end]


_CHECK = r"""
object __VerifierCheck {
    @JvmStatic fun check(line: kotlin.Int, condition: kotlin.Boolean) {
        if (!condition) throw fail(line)
    }
    @JvmStatic fun check(line: kotlin.Int, condition: kotlin.Boolean, message: () -> kotlin.Any) {
        if (!condition) throw fail(line)
    }
    @JvmStatic fun fail(line: kotlin.Int): java.lang.Error {
        java.lang.System.err.println("Assertion failed at line " + line + " of the tests")
        java.lang.System.err.flush()
        java.lang.Runtime.getRuntime().halt(1)
        return java.lang.Error("Assertion failed")
    }
}
"""

# The library names Kotlin's tests call by simple name (kotlin's and java.lang's default imports,
# kotlin.math's, and the packages' own names) or as extensions (`xs.sorted()`, `a to b`). A
# top-level declaration of the solution's comes before a default import (`object Math`, `fun
# listOf`, `val kotlin`), an explicit import before both (`import x.Fake as Math`, an enum
# constant of its own), an extension of its own before the library's: such a program is
# refused.
KOTLIN_DECLARING = Declaring(
    reading=kotlin_code,
    library=frozenset({
        "Any", "Unit", "Nothing", "Int", "Long", "Short", "Byte", "Double", "Float", "Boolean",
        "Char", "String", "Number", "CharSequence", "Comparable", "List", "MutableList",
        "ArrayList", "Map", "MutableMap", "HashMap", "LinkedHashMap", "Set", "MutableSet",
        "HashSet", "LinkedHashSet", "Collection", "Iterable", "Sequence", "Pair", "Triple",
        "Array", "IntArray", "LongArray", "DoubleArray", "CharArray", "BooleanArray",
        "Comparator", "StringBuilder", "Regex", "Exception", "RuntimeException",
        "IllegalStateException", "IllegalArgumentException", "AssertionError", "Error",
        "Throwable", "Math", "StrictMath", "System", "Runtime", "Thread", "Character",
        "Integer", "Objects", "Arrays", "Collections", "Random", "kotlin", "java",
        "listOf", "mutableListOf", "arrayListOf", "emptyList", "listOfNotNull", "setOf",
        "mutableSetOf", "hashSetOf", "linkedSetOf", "sortedSetOf", "emptySet", "mapOf",
        "mutableMapOf", "hashMapOf", "linkedMapOf", "sortedMapOf", "emptyMap", "arrayOf",
        "intArrayOf", "longArrayOf", "doubleArrayOf", "charArrayOf", "emptyArray", "println",
        "print", "require", "requireNotNull", "checkNotNull", "error", "repeat", "run", "with",
        "maxOf", "minOf", "abs", "sqrt", "pow", "round", "floor", "ceil", "sign", "buildString",
        "to", "until", "downTo", "step", "sorted", "sortedBy", "sortedDescending", "reversed",
        "sum", "sumOf", "toList", "toMutableList", "toSet", "toMap", "toTypedArray",
        "contentEquals", "contentToString", "joinToString", "all", "any", "none", "map",
        "filter", "zip", "first", "last", "count", "contains", "containsAll", "isEmpty",
        "isNotEmpty", "plus", "minus", "let", "also", "apply", "equals", "toString", "indices",
        "lastIndex", "absoluteValue"}),
    keywords={"class": None, "object": None, "interface": None, "typealias": None,
              "fun": None, "val": None, "var": None},
    alias="as", receiver="fun",
    refused="""fun main() {
    System.err.println("the solution declares NAMES, which the tests use: they would not be \
the library's, so the tests cannot run in its process")
    kotlin.system.exitProcess(1)
}
""")
