"""The check shapes Java, C#, Kotlin and Scala tests share, read from one check's tokens: the
call that is recorded and the `Check` the worker applies to its value.

    CALL == K    K == CALL    CALL != K          a primitive `==` (or the language's `==` on
                                                 objects: Kotlin's and Scala's are `equals`)
    CALL.equals(K)    K.equals(CALL)             the language's equals (`Equals` in C#)
    CALL.SequenceEqual(K)                        (C#) K a list: its elements' Equals, in order
    Objects.equals(CALL, K)                      (Java) null-safe equals
    Objects.equals(CALL.get(), K)                (Java) the Optional holds K
    CALL.isEmpty()                               an empty Optional, list, map or string
    CALL    !CALL                                the call is true / false
    Math.abs(CALL - K) < T   (<=, K - CALL)      within a tolerance

where CALL is a call of the solution, `f(ARGS)`, `s.f(ARGS)` or `Problem.f(ARGS)`, its
arguments literals or the tests' literal variables (copied verbatim: the language converts
them as the tests would have), and K a literal read by the language's TypedReader. Anything
else raises NotPlainCalls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from verifier.kinds.code.dialects import keyed
from verifier.kinds.code.dialects.core import Check, NotPlainCalls, Site
from verifier.kinds.code.dialects.lexer import Token, closing, is_punct, source_of, split_top
from verifier.kinds.code.dialects.tokens import top_level
from verifier.kinds.code.dialects.typed import TypedReader
from verifier.kinds.code.dialects.values import Map, OfType, SetOf, Some


@dataclass
class Scope:
    """What the tests bound before a check: literal variables (usable as arguments and as
    expected values) and instances of the solution's classes (`Solution s = new
    Solution();`), the receivers of calls."""

    variables: dict[str, Any] = field(default_factory=dict)
    instances: set[str] = field(default_factory=set)
    aliases: set[str] = field(default_factory=set)  # names for the solution's function


@dataclass(frozen=True)
class Spelling:
    """How one language spells the shapes: its literal reader, its equals method, its
    absolute value, how its `==` compares objects (None: by reference, not a plain check) and
    primitives (the `how` of the check), and whether `Objects.equals` is Java's."""

    reader: type[TypedReader]
    equals: str = "equals"
    absolute: tuple[tuple[str, ...], ...] = (("Math", "abs"),)
    object_equality: str | None = None
    java_objects: bool = False
    primitive_equality: str = "=="
    sequence_equals: str | None = None  # a method comparing sequences element by element


def unwrapped(tokens: list[Token]) -> list[Token]:
    """Without the parentheses around the whole of it (not a tuple's: `(1, 2)` stays); in
    one pass, however deep the parentheses."""
    partner: dict[int, int] = {}
    commas: dict[int, int] = {}
    stack: list[int] = []
    for index, token in enumerate(tokens):
        if is_punct(token, "(", "[", "{"):
            stack.append(index)
            commas[index] = 0
        elif is_punct(token, ")", "]", "}"):
            if not stack:
                return tokens
            partner[stack.pop()] = index
        elif is_punct(token, ",") and stack:
            commas[stack[-1]] += 1
    start, end = 0, len(tokens) - 1
    while (start < end and is_punct(tokens[start], "(") and partner.get(start) == end
           and not commas[start]):
        start, end = start + 1, end - 1
    return tokens[start:end + 1]


class ShapeReader:
    """Reads one check (`site`) in a language's `Spelling`."""

    def __init__(self, tests: str, spelling: Spelling, scope: Scope) -> None:
        self.tests = tests
        self.spelling = spelling
        self.scope = scope

    def asserted(self, arguments: list[Token], line: int) -> Site:
        """The check of an assert's arguments: one check, perhaps with a string message."""
        parts = split_top(arguments, ",")
        if len(parts) == 2 and len(parts[1]) == 1 and parts[1][0].kind == "string":
            parts = parts[:1]  # the message, shown on failure
        if len(parts) != 1:
            raise NotPlainCalls(f"line {line}: an assert of several values")
        return self.site(parts[0], line)

    def site(self, tokens: list[Token], line: int) -> Site:
        tokens = unwrapped(tokens)
        if not tokens:
            raise NotPlainCalls(f"line {line}: an empty check")
        if is_punct(tokens[0], "!"):
            operand = unwrapped(tokens[1:])
            if (found := self._method(operand, "isEmpty")) is not None:
                return Site(line, found, Check("empty", negated=True))
            if (found := self._equals(operand)) is not None:
                call, expected = found
                return Site(line, call, Check("equal", expected, negated=True, how="equals"))
            return Site(line, self.call(operand), Check("truth", negated=True))
        comparisons = top_level(tokens, "==", "!=")
        if len(comparisons) > 1:
            raise NotPlainCalls(f"line {line}: several comparisons")
        if comparisons:
            return self._comparison(tokens, comparisons[0], line)
        bounds = top_level(tokens, "<", "<=")
        if len(bounds) == 1:
            return self._close(tokens, bounds[0], line)
        if (found := self._equals(tokens)) is not None:
            call, expected = found
            return Site(line, call, Check("equal", expected, how="equals"))
        if (found := self._method(tokens, "isEmpty")) is not None:
            return Site(line, found, Check("empty"))
        return Site(line, self.call(tokens), Check("truth"))

    # ------------------------------------------------------------------ shapes

    def _comparison(self, tokens: list[Token], at: int, line: int) -> Site:
        call, expected = self.either(tokens[:at], tokens[at + 1:], line)
        held = expected.value if isinstance(expected, Some) else expected
        how = self.spelling.primitive_equality if primitive(held) else (
            self.spelling.object_equality)
        if how is None:
            raise NotPlainCalls(f"line {line}: == compares references here")
        return Site(line, call, Check("equal", expected, negated=tokens[at].text == "!=",
                                      how=how))

    def _equals(self, tokens: list[Token]) -> tuple[str, Any] | None:
        """`X.equals(Y)` (one a call, the other a literal) or Java's `Objects.equals`."""
        if self.spelling.java_objects and len(tokens) > 4 and [t.text for t in tokens[:4]] == [
                "Objects", ".", "equals", "("] and closing(tokens, 3) == len(tokens) - 1:
            parts = split_top(tokens[4:-1], ",")
            if len(parts) != 2:
                raise NotPlainCalls("Objects.equals of other than two values")
            for call_side, literal_side in ((parts[0], parts[1]), (parts[1], parts[0])):
                inner = self._method(unwrapped(call_side), "get")
                if inner is not None:
                    return inner, Some(self.literal(literal_side))
            return self.either(parts[0], parts[1], tokens[0].line)
        split = self._receiver_and_argument(tokens, self.spelling.equals)
        if split is not None:
            return self.either(*split, tokens[0].line)
        if self.spelling.sequence_equals is None:
            return None
        split = self._receiver_and_argument(tokens, self.spelling.sequence_equals)
        if split is None:
            return None
        # a list's elements, each by its Equals in order: what the equals of a list means here
        call, expected = self.either(*split, tokens[0].line)
        if not isinstance(expected, list):
            raise NotPlainCalls(f"line {tokens[0].line}: a sequence compared with other than "
                                "a list")
        return call, expected

    def _method(self, tokens: list[Token], name: str) -> str | None:
        """`CALL.name()`: the call's source, or None."""
        split = self._receiver_and_argument(tokens, name)
        if split is None or split[1]:
            return None
        return self.call(split[0])

    @staticmethod
    def _receiver_and_argument(tokens: list[Token], name: str
                               ) -> tuple[list[Token], list[Token]] | None:
        if len(tokens) < 4 or not is_punct(tokens[-1], ")"):
            return None
        opening = _opening(tokens)
        if opening < 2 or tokens[opening - 1].text != name or not is_punct(
                tokens[opening - 2], "."):
            return None
        return unwrapped(tokens[:opening - 2]), tokens[opening + 1:-1]

    def _close(self, tokens: list[Token], at: int, line: int) -> Site:
        left, right = unwrapped(tokens[:at]), tokens[at + 1:]
        tolerance = self.literal(right)
        if not isinstance(tolerance, OfType) or type(tolerance.value) not in (int, float):
            raise NotPlainCalls(f"line {line}: a bound that is not a number")
        inside = self._absolute(left)
        if inside is None:
            raise NotPlainCalls(f"line {line}: a comparison the dialect does not know")
        for index in top_level(inside, "-"):
            if index == 0:
                continue
            try:
                call, expected = self.either(inside[:index], inside[index + 1:], line,
                                             optional=False)
            except NotPlainCalls:
                continue
            if isinstance(expected, OfType) and type(expected.value) in (int, float):
                return Site(line, call, Check("close", expected.value,
                                              tolerance=float(tolerance.value),
                                              strict=tokens[at].text == "<"))
        raise NotPlainCalls(f"line {line}: abs of something else than CALL - K")

    def _absolute(self, tokens: list[Token]) -> list[Token] | None:
        for path in self.spelling.absolute:
            length = 2 * len(path) - 1
            if len(tokens) > length + 1 and [t.text for t in tokens[:length]] == list(
                    " . ".join(path).split()) and is_punct(tokens[length], "(") and closing(
                    tokens, length) == len(tokens) - 1:
                return unwrapped(tokens[length + 1:-1])
        return None

    # ------------------------------------------------------------------ parts

    def either(self, first: list[Token], second: list[Token], line: int,
               optional: bool = True) -> tuple[str, Any]:
        """One side the call, the other a literal, in either order. With `optional`, the
        call may be read through Java's `CALL.get()` (the value expected is then an Optional
        holding the literal) and cast to `(String)` (a no-op where a string is expected)."""
        for call_side, literal_side in ((first, second), (second, first)):
            try:
                expected = self.literal(literal_side)
            except NotPlainCalls:
                continue
            call_side = unwrapped(call_side)
            if optional and self.spelling.java_objects:
                if len(call_side) > 3 and [t.text for t in call_side[:3]] == ["(", "String", ")"]:
                    if type(expected) is not str:
                        raise NotPlainCalls(f"line {line}: a cast the dialect does not read")
                    call_side = unwrapped(call_side[3:])
                if (inner := self._method(call_side, "get")) is not None:
                    return inner, Some(expected)
            return self.call(call_side), expected
        raise NotPlainCalls(f"line {line}: no literal to compare with")

    def literal(self, tokens: list[Token]) -> Any:
        return self.spelling.reader(unwrapped(tokens), self.scope.variables).whole()

    def call(self, tokens: list[Token]) -> str:
        """The source of a call of the solution (see the module doc)."""
        tokens = unwrapped(tokens)
        if len(tokens) < 3 or not is_punct(tokens[-1], ")"):
            raise NotPlainCalls("not a call")
        opening = _opening(tokens)
        path = tokens[:opening]
        if not path or len(path) % 2 == 0 or any(
                (t.kind != "name") if i % 2 == 0 else not is_punct(t, ".")
                for i, t in enumerate(path)):
            raise NotPlainCalls(f"line {tokens[0].line}: not a call of a named function")
        head = path[0].text
        if head in self.scope.variables or (len(path) > 1 and head in self.scope.aliases):
            raise NotPlainCalls(f"line {tokens[0].line}: a call on the tests' own value")
        if len(path) > 1 and head not in self.scope.instances and not head[:1].isupper():
            raise NotPlainCalls(f"line {tokens[0].line}: a call on something else than the "
                                "solution")
        for argument in split_top(tokens[opening + 1:-1], ","):
            if not argument and opening + 1 == len(tokens) - 1:
                break
            if len(argument) == 1 and argument[0].text in self.scope.variables:
                continue
            if argument and argument[0].text in self.scope.instances | self.scope.aliases:
                raise NotPlainCalls(f"line {tokens[0].line}: an argument that is not a literal")
            self.literal(argument)
        return source_of(self.tests, tokens)


def _opening(tokens: list[Token]) -> int:
    """The index of the `(` matching the last token, a `)`."""
    depth = 0
    for index in range(len(tokens) - 1, -1, -1):
        if is_punct(tokens[index], ")", "]", "}"):
            depth += 1
        elif is_punct(tokens[index], "(", "[", "{"):
            depth -= 1
            if depth == 0:
                return index
    raise NotPlainCalls("an unbalanced call")


def primitive(value: Any) -> bool:
    """Whether a literal is of a primitive type (a number, a char, a boolean)."""
    return type(value) is bool or (isinstance(value, OfType) and type(value.value) in (
        int, float, str))


def judged(check: Check, value: Any) -> bool:
    """Whether a value passes a check of these shapes, with Java's semantics (C#'s and
    Kotlin's but for their `how`): a primitive `==` by value, `equals` with types (keyed.py),
    truth only of a boolean, emptiness only of what has it."""
    try:
        if check.kind == "equal":
            if check.how == "==" and isinstance(check.expected, Some):
                # Java's CALL.get() == K: an Optional holding a value equal to K
                held = isinstance(value, Some) and keyed.primitive_equal(
                    value.value, check.expected.value)
                return held != check.negated
            if check.how == "==":
                return keyed.primitive_equal(value, check.expected) != check.negated
            return keyed.equal(value, check.expected, "typed") != check.negated
        if check.kind == "truth":
            return type(value) is bool and value is not check.negated
        if check.kind == "empty":
            empty = _emptiness(value)
            return empty is not None and empty != check.negated
        if check.kind == "close":
            number = keyed.number_of(value)
            if number is None:
                return False
            distance = abs(float(number) - float(check.expected))
            return distance < check.tolerance if check.strict else distance <= check.tolerance
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return False
    return False


def _emptiness(value: Any) -> bool | None:
    """Whether an Optional, collection or string is empty; None for anything else (a null:
    its `isEmpty()` throws)."""
    if isinstance(value, OfType) and value.type in ("Optional", "Option") and value.value is None:
        return True
    if isinstance(value, Some):
        return False
    if isinstance(value, list | str):
        return not value
    if isinstance(value, SetOf):
        return not value.items
    if isinstance(value, Map):
        return not value.pairs
    return None
