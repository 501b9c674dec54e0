"""C# assert tests as calls: MultiPL-E's shape, a `Main` of the solution's class whose
statements are `Debug.Assert(CHECK);` (shapes.py's checks, `Equals` for equals):

        }
        public static void Main(string[] args) {
        Debug.Assert(Add((1L), (2L)) == (3L));
        Debug.Assert(Sort((new List<long>(new long[]{(long)5L, (long)1L}))).Equals((new List<long>(
            new long[]{(long)1L, (long)5L}))));
        }
    }

Values compare as C# does: a primitive `==` by value, `Equals` with types (`Int64` 1 is not
`Int32` 1). One exception, said in the README: MultiPL-E's `.Equals` of a `List` or a
`Dictionary` compares references in C# (nuprl/MultiPL-E#71), so no solution could pass such
a test but one that overrides `Equals` on what it returns; it is judged as the test means, the
elements (or entries) equal in order (or as sets of entries).

In-process tests (anything else) are hardened: each `Debug.Assert` or `Trace.Assert` of the
tests is a call of the verifier's own check (`global::` and named per program, so a `class
Debug` of the solution, or its Trace listeners, are not what it calls), which prints the
failure and ends the process at once (Environment.FailFast); a solution that declares a
`System` name the tests use (`class Math`, an extension `SequenceEqual`) is refused
(shadowing.py).
"""

from __future__ import annotations

from typing import Any

from verifier.kinds.code import appended
from verifier.kinds.code.dialects.clike import float32
from verifier.kinds.code.dialects.compiled_reading import csharp_code
from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    Dialect,
    NotPlainCalls,
    Site,
    sites_within_bounds,
)
from verifier.kinds.code.dialects.csharp_record import CSHARP_RECORDER, RECORDER
from verifier.kinds.code.dialects.entry import find_entry, statements, words_at
from verifier.kinds.code.dialects.lexer import Token, closing, is_punct, tokenize
from verifier.kinds.code.dialects.rewrite import checks_rewritten
from verifier.kinds.code.dialects.shadowing import Declaring, refusal
from verifier.kinds.code.dialects.shapes import Scope, ShapeReader, Spelling, judged
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

_INTEGERS = {"long": ("Int64", 64, False), "int": ("Int32", 32, False),
             "short": ("Int16", 16, False), "sbyte": ("SByte", 8, False),
             "ulong": ("UInt64", 64, True), "uint": ("UInt32", 32, True),
             "ushort": ("UInt16", 16, True), "byte": ("Byte", 8, True)}
_FLOATS = {"float": "Single", "double": "Double"}
_LISTS = frozenset({"List", "LinkedList"})
_SETS = frozenset({"HashSet", "SortedSet"})
_MAPS = frozenset({"Dictionary", "SortedDictionary"})
_ASSERTS = (("Debug", ".", "Assert"), ("Trace", ".", "Assert"),
            ("System", ".", "Diagnostics", ".", "Debug", ".", "Assert"),
            ("System", ".", "Diagnostics", ".", "Trace", ".", "Assert"))


def read_type(tokens: list[Token], position: int) -> tuple[Generic, int] | None:
    """A C# type (`List<long>`, `long[]`, `long?`) at tokens[position], and where it ends."""
    return read_generic(tokens, position, nullable="Nullable", arrays=True)


class CSharpReader(TypedReader):
    """C# literals, typed as the compiler types them (an untyped integer takes the type an
    array, a list or a dictionary gives its elements)."""

    def number(self, text: str, expected: Any) -> OfType:
        negative = text.startswith("-")
        body = text.lstrip("-").replace("_", "")
        lower = body.lower()
        hexadecimal = lower.startswith("0x")
        if lower.endswith("m"):
            raise NotPlainCalls("a decimal")
        if not hexadecimal and (lower.endswith(("f", "d")) or any(c in lower for c in ".e")):
            try:
                value = float(body.rstrip("fFdD"))
            except ValueError:
                raise NotPlainCalls(f"not a number {text[:30]!r}") from None
            single = lower.endswith("f")
            target = _target(expected)
            if target in _FLOATS and not single:
                single = target == "float"
            return of_float(-value if negative else value, single,
                            "Single" if single else "Double")
        suffix = "".join(c for c in lower[-2:] if c in "ul") if not hexadecimal else (
            "".join(c for c in lower[-2:] if c in "ul"))
        value = integer_value(body[:len(body) - len(suffix)] if suffix else body)
        value = -value if negative else value
        target = _target(expected)
        if target in _INTEGERS and not suffix:
            name, bits, unsigned = _INTEGERS[target]
        elif target in _FLOATS and not suffix:
            return of_float(float(value), target == "float", _FLOATS[target])
        elif "u" in suffix and "l" in suffix:
            name, bits, unsigned = "UInt64", 64, True
        elif "l" in suffix:
            name, bits, unsigned = "Int64", 64, False
        elif "u" in suffix:
            name, bits, unsigned = "UInt32", 32, True
        else:
            name, bits, unsigned = ("Int32", 32, False) if in_range(value, 32) else (
                "Int64", 64, False)
        if not in_range(value, bits, unsigned):
            raise NotPlainCalls("an integer out of its type's range")
        return OfType(name, value)

    def char(self, text: str) -> OfType:
        body = unescape(text[1:-1], escapes="ntr0\\\"'bfav")
        if len(body) != 1:
            raise NotPlainCalls("a char literal of other than one char")
        return OfType("Char", body)

    def string(self, text: str) -> Any:
        if not text.startswith('"'):
            raise NotPlainCalls("a string literal of another kind")
        return unescape(text[1:-1], escapes="ntr0\\\"'bfav")

    def cast(self, tokens: list[Token]) -> Generic | None:
        found = read_type(tokens, 0)
        if found is None or found[1] != len(tokens):
            return None
        kind = found[0]
        if kind.name in _INTEGERS or kind.name in _FLOATS or kind.name in (
                "string", "char", "Nullable", "[]", "Tuple") or kind.name in _LISTS | _SETS | _MAPS:
            return kind
        return None

    def convert(self, value: Any, target: Generic) -> Any:
        return _converted(value, target)

    def promoted(self, left: str, right: str) -> str:
        order = ["Int32", "Int64", "Single", "Double"]
        if left not in order or right not in order:
            raise NotPlainCalls("arithmetic on something else than numbers")
        return order[max(order.index(left), order.index(right))]

    def single(self, type_name: str) -> bool:
        return type_name == "Single"

    def named(self, depth: int, expected: Any) -> Any:
        token = self.peek()
        text = token.text
        found, value = self.word()
        if found:
            return value
        if self.taking("Tuple", ".", "Create"):
            return tuple(self.items(depth))
        if text == "new":
            return self._new(depth)
        raise self.fail(f"{text!r} is not a literal")

    def _new(self, depth: int) -> Any:
        self.position += 1
        if is_punct(self.peek(), "[") and is_punct(self.peek(1), "]"):
            self.position += 2  # new[] { ... }: an implicitly typed array
            return self._elements(depth, None)
        found = read_type(self.tokens, self.position)
        if found is None:
            raise self.fail("new of something else than a type")
        kind, self.position = found
        if kind.name == "[]":
            return self._elements(depth, kind.args[0])
        if kind.name not in _LISTS | _SETS | _MAPS:
            raise self.fail(f"new {kind.name}")
        arguments = self.items(depth, kind) if is_punct(self.peek(), "(") else []
        if len(arguments) > 1 or arguments and not isinstance(arguments[0], list | SetOf | Map):
            raise self.fail(f"new {kind.name} of something else than a collection")
        if is_punct(self.peek(), "{"):  # a collection initializer
            if arguments:
                raise self.fail("a collection both copied and initialised")
            if kind.name in _MAPS:
                entries = [self.sub(part, depth, None) for part in self.parts("{")]
                if any(not isinstance(entry, list) or len(entry) != 2 for entry in entries):
                    raise self.fail("a dictionary entry that is not {key, value}")
                arguments = [Map(tuple((e[0], e[1]) for e in entries))]
            else:
                arguments = [self._elements(depth, kind.args[0] if kind.args else None)]
        return _converted(arguments[0] if arguments else (Map(()) if kind.name in _MAPS
                                                          else []), kind)

    def _elements(self, depth: int, element: Generic | None) -> list[Any]:
        if not is_punct(self.peek(), "{"):
            raise self.fail("an array without its elements")
        return [self.sub(part, depth, element) for part in self.parts("{")]

    def primary(self, depth: int, expected: Any) -> Any:
        if is_punct(self.peek(), "{"):  # a nested initializer: {key, value}
            return [self.sub(part, depth, None) for part in self.parts("{")]
        return super().primary(depth, expected)


def _target(expected: Any) -> str | None:
    if isinstance(expected, Generic):
        if expected.name == "Nullable" and expected.args:
            return expected.args[0].name
        return expected.name
    return None


def _converted(value: Any, target: Generic) -> Any:
    """`value` as `target` holds it (C#'s implicit and explicit numeric conversions, a
    list's or a dictionary's elements converted, `(string)` and `(Nullable<T>)` no-ops)."""
    name = target.name
    if name == "Nullable":
        return None if value is None else _converted(value, target.args[0])
    if value is None:
        if name in _INTEGERS or name in _FLOATS or name == "char":
            raise NotPlainCalls("a null of a value type")
        return None
    if name in _INTEGERS or name in _FLOATS or name == "char":
        if not isinstance(value, OfType) or type(value.value) not in (int, float, str):
            raise NotPlainCalls("a number of something else")
        number = ord(value.value) if type(value.value) is str else value.value
        if name in _FLOATS:
            return of_float(float(number), name == "float", _FLOATS[name])
        if type(number) is float:
            if number != number or abs(number) == float("inf"):
                raise NotPlainCalls("a cast of a float that is not finite")
            number = int(number)
        if name == "char":
            return OfType("Char", chr(number & 0xFFFF))
        clr, bits, unsigned = _INTEGERS[name]
        if not in_range(number, bits, unsigned):
            raise NotPlainCalls("a cast out of range")
        return OfType(clr, number)
    if name == "string":
        if type(value) is not str:
            raise NotPlainCalls("a string of something else")
        return value
    element = target.args[0] if target.args else None
    if name == "[]" or name in _LISTS | _SETS:
        items = value.items if isinstance(value, SetOf) else value
        if not isinstance(items, list | tuple):
            raise NotPlainCalls(f"a {name} of something else")
        converted = [_converted(item, element) if element else item for item in items]
        return SetOf(tuple(converted)) if name in _SETS else converted
    if name == "Tuple":
        if not isinstance(value, tuple) or len(value) != len(target.args):
            raise NotPlainCalls("a tuple of something else")
        return tuple(_converted(item, kind) for item, kind in zip(value, target.args,
                                                                 strict=True))
    if name in _MAPS:
        if not isinstance(value, Map) or len(target.args) not in (0, 2):
            raise NotPlainCalls("a dictionary of something else")
        if not target.args:
            return value
        return Map(tuple((_converted(k, target.args[0]), _converted(v, target.args[1]))
                         for k, v in value.pairs))
    raise NotPlainCalls(f"a value of type {name}")


CSHARP = Spelling(CSharpReader, equals="Equals", absolute=(("Math", "Abs"),),
                  object_equality=None, sequence_equals="SequenceEqual")


def _main_header(tokens: list[Token], position: int) -> int | None:
    start = position
    while position < len(tokens) and tokens[position].text in ("public", "static", "private",
                                                               "internal"):
        position += 1
    if "static" not in {t.text for t in tokens[start:position]}:
        return None
    for result in ("void", "int"):
        after = words_at(tokens, position, (result, "Main", "("))
        if after is not None:
            end = closing(tokens, after - 1)
            return end + 1 if end + 1 < len(tokens) and is_punct(tokens[end + 1], "{") else None
    return None


class CSharpDialect(Dialect):
    language = "csharp"

    def plan(self, tests: str) -> CallsPlan:
        tokens = tokenize(tests)
        entry = find_entry(tests, tokens, _main_header)
        scope = Scope()
        lines: list[str] = []
        sites: list[Site] = []
        for statement in statements(entry.body):
            arguments = _assert_arguments(statement)
            if arguments is None:
                raise NotPlainCalls(f"line {statement[0].line}: a statement that is not an "
                                    "assert")
            site = ShapeReader(tests, CSHARP, scope).asserted(arguments, statement[0].line)
            sites.append(site)
            lines.append(f"        {RECORDER}.Record({len(sites) - 1}, {site.call});")
        driver = "\n".join([tests[:entry.body_start], *lines, tests[entry.body_end:],
                            CSHARP_RECORDER])
        return CallsPlan(sites_within_bounds(sites), driver)

    def holds(self, check: Check, value: Any) -> bool:
        if check.kind == "equal" and check.how == "equals":
            converted = _equals_argument(check.expected, value)
            if converted is not None:
                number = value.value
                same = number == converted or (number != number and converted != converted)
                return same != check.negated
        return judged(check, value)

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        check = f"__VerifierCheck_{tag}"
        try:
            rewritten = checks_rewritten(tests, _ASSERTS, f"global::{check}.Check")
            checked = rewritten + _CHECK.replace("__VerifierCheck", check)
            refused = refusal(CSHARP_DECLARING, solution, checked)
        except NotPlainCalls:
            return None
        return refused or appended.assemble(self.language, solution, checked)


# C#'s implicit numeric conversions: `x.Equals(K)` on a primitive x calls x's own overload
# (`long.Equals(long)`) when K converts to x's type, and compares values (`5L.Equals(5)`,
# `0.5.Equals(0.5f)` and `0.0.Equals(-0.0)` are true); otherwise `Equals(object)`, with types.
_FLOATING = frozenset({"Single", "Double"})
_WIDENS = {"SByte": {"Int16", "Int32", "Int64", *_FLOATING},
           "Byte": {"Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64", *_FLOATING},
           "Int16": {"Int32", "Int64", *_FLOATING},
           "UInt16": {"Int32", "UInt32", "Int64", "UInt64", *_FLOATING},
           "Int32": {"Int64", *_FLOATING}, "UInt32": {"Int64", "UInt64", *_FLOATING},
           "Int64": _FLOATING, "UInt64": _FLOATING, "Single": {"Double"},
           "Char": {"UInt16", "Int32", "UInt32", "Int64", "UInt64", *_FLOATING}}
_NUMERIC = frozenset(_WIDENS) - {"Char"} | {"Double"}
# An int (or long) constant converts to a narrower integral type whose range holds it.
_CONSTANT_RANGES = {"SByte": (-1 << 7, 1 << 7), "Byte": (0, 1 << 8), "Int16": (-1 << 15, 1 << 15),
                    "UInt16": (0, 1 << 16), "UInt32": (0, 1 << 32), "UInt64": (0, 1 << 64)}


def _equals_argument(expected: Any, value: Any) -> int | float | None:
    """K as the primitive `value`'s own `Equals` overload receives it, or None where C# calls
    `Equals(object)` or the types are the same integral one (the typed comparison's)."""
    if not (isinstance(expected, OfType) and isinstance(value, OfType)) or (
            expected.type == value.type not in _FLOATING or value.type not in _NUMERIC):
        return None
    low, high = _CONSTANT_RANGES.get(value.type, (0, 0))
    constant = (expected.type == "Int32" or expected.type == "Int64" and value.type == "UInt64"
                ) and type(expected.value) is int and low <= expected.value < high
    if not constant and value.type not in {expected.type, *_WIDENS.get(expected.type, ())}:
        return None
    number = expected.value
    if expected.type == "Char":
        if type(number) is not str or len(number) != 1:
            return None
        number = ord(number)
    if type(number) not in (int, float) or type(value.value) not in (int, float):
        return None
    try:
        if value.type == "Single":
            return float32(float(number))
        return float(number) if value.type == "Double" else number
    except OverflowError:
        return None


def _assert_arguments(statement: list[Token]) -> list[Token] | None:
    for path in _ASSERTS:
        end = words_at(statement, 0, path)
        if end is not None and end < len(statement) and is_punct(statement[end], "(") and (
                closing(statement, end) == len(statement) - 1):
            return statement[end + 1:-1]
    return None


# The verifier's own check for in-process tests: the failure on stderr, then the process ended
# at once (no finally block, ProcessExit handler or listener runs).
_CHECK = r"""
static class __VerifierCheck {
    public static void Check(int line, bool condition, params object[] message) {
        if (condition) return;
        global::System.Console.Error.WriteLine(
            "Assertion failed at line " + line + " of the tests");
        global::System.Console.Error.Flush();
        global::System.Environment.FailFast("Assertion failed");
    }
}
"""

# The System types C#'s tests call by simple name (System's, System.Collections.Generic's,
# System.Linq's, the namespaces' own names) and the LINQ methods they call on values. A type of
# the solution's (the global namespace's, or nested in the tests' class), a member of the
# tests' class, a `using Math = Fake;` alias or an extension method of its own comes before
# what the tests' `using`s import: such a program is refused.
CSHARP_DECLARING = Declaring(
    reading=csharp_code,
    library=frozenset({
        "Math", "MathF", "List", "Dictionary", "HashSet", "SortedSet", "SortedDictionary",
        "LinkedList", "Queue", "Stack", "KeyValuePair", "Tuple", "ValueTuple", "Enumerable",
        "Console", "Convert", "String", "Array", "Object", "Int16", "Int32", "Int64", "UInt32",
        "UInt64", "Double", "Single", "Decimal", "Boolean", "Char", "Byte", "Nullable",
        "Func", "Action", "Environment", "Exception", "ArgumentException", "Debug", "Trace",
        "StringBuilder", "Random", "BigInteger", "IEnumerable", "IList", "ICollection",
        "IDictionary", "Comparer", "EqualityComparer", "StringComparison", "System",
        "Collections", "Generic", "Linq", "Diagnostics", "Text", "Numerics",
        "SequenceEqual", "ToList", "ToArray", "ToDictionary", "ToHashSet", "Sum", "Count",
        "Select", "Where", "All", "Any", "OrderBy", "OrderByDescending", "First", "Last",
        "Max", "Min", "Average", "Reverse", "Zip", "Distinct", "Contains", "SetEquals",
        "Equals", "Abs"}),
    keywords={"class": None, "struct": None, "interface": None, "enum": None, "record": None,
              "namespace": None, "delegate": None, "using": frozenset({"="})},
    typed=frozenset({"=", ";", ",", "{", "=>"}),
    receiver="this",
    refused="""class VerifierRefused {
    static void Main() {
        System.Console.Error.WriteLine("the solution declares NAMES, which the tests use: " +
            "they would not be System's, so the tests cannot run in its process");
        System.Environment.Exit(1);
    }
}
""")
