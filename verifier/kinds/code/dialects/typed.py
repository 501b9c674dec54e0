"""Literals of the languages whose numbers carry their type into equality (Java, Kotlin, Scala,
C#, Go): the reader the dialects parse expected values and check arguments with.

A number is read into `OfType(type, value)` with the type the language gives it (`1l` is a
`Long`, `1.5f` a `Float` rounded to single precision, Go's `1` an `int`), so an `equals` that
tells `Integer` from `Long` can be judged as the language judges it; strings are `str`, lists
`list`, maps `Map`, tuples `tuple`, optionals `Some`/None. Each language's reader says how its
names read (`true`, `null`, `Arrays.asList(...)`, `mutableListOf(...)`, `[]int{...}`) and how
an untyped number takes the type its context expects (`long[]{1}` in C#, `[]int64{1}` in
Go): `number(text, expected)`.

Depth is bounded (MAX_NESTING) and only NotPlainCalls is raised, whatever the tokens.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from verifier.kinds.code.dialects.clike import float32
from verifier.kinds.code.dialects.core import MAX_NESTING, NotPlainCalls
from verifier.kinds.code.dialects.lexer import Token, closing, is_punct, split_top
from verifier.kinds.code.dialects.values import OfType

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'",
            "b": "\b", "f": "\f", "$": "$", "a": "\a", "v": "\v"}
INTEGER_RANGES = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


def utf16_joined(text: str) -> str:
    """Surrogate pairs (`"\\uD83D\\uDE00"`) joined into the character they are, as a string of
    UTF-16 units (Java's, Kotlin's, Scala's, C#'s) arrives in its recorded JSON; lone
    surrogates stay."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def unescape(body: str, escapes: str = "ntr0\\\"'bf", unicode: bool = True,
             extended: bool = False) -> str:
    """A string literal's body with its escapes resolved (`escapes`: the one-letter escapes
    the language has; `\\uXXXX` where `unicode`; with `extended`, Go's `\\xhh`, `\\ooo` (ASCII
    only: they are bytes) and `\\UXXXXXXXX`); NotPlainCalls on any other escape."""
    out: list[str] = []
    position = 0
    while position < len(body):
        char = body[position]
        if char != "\\":
            out.append(char)
            position += 1
            continue
        escape = body[position + 1:position + 2]
        if escape and escape in escapes and not (escape == "0" and body[position + 2:position + 3]
                                                 .isdigit()):
            out.append(_ESCAPES[escape])
            position += 2
            continue
        found = unicode and re.match(r"u([0-9a-fA-F]{4})", body[position + 1:]) or (
            extended and (re.match(r"x([0-9a-fA-F]{2})", body[position + 1:])
                          or re.match(r"([0-7]{3})", body[position + 1:])
                          or re.match(r"U([0-9a-fA-F]{8})", body[position + 1:])))
        if not found:
            raise NotPlainCalls("an escape in a literal the dialect does not read")
        code = int(found.group(1), 8 if escape.isdigit() else 16)
        if escape in "x01234567" and code > 127 or code > 0x10FFFF or (
                escape == "U" and 0xD800 <= code < 0xE000):
            raise NotPlainCalls("an escape of a byte or an invalid code point")
        out.append(chr(code))
        position += 1 + len(found.group())
    return utf16_joined("".join(out))


@dataclass(frozen=True)
class Generic:
    """A type as far as literals need it: its name and type arguments (`List<Long>`, C#'s
    `long[]` as `[]` of `long`, `long?` as `Nullable` of `long`)."""

    name: str
    args: tuple[Generic, ...] = ()

    def arg(self, index: int) -> Generic | None:
        return self.args[index] if index < len(self.args) else None


def read_generic(tokens: list[Token], position: int, nullable: str | None = None,
                 arrays: bool = False) -> tuple[Generic, int] | None:
    """The type at tokens[position] and where it ends, or None: a name, `<...>` arguments,
    with `arrays` C#'s `[]`, and a `?` (wrapped in `nullable`, else stepped over)."""
    if position >= len(tokens) or tokens[position].kind != "name":
        return None
    name = tokens[position].text
    position += 1
    args: list[Generic] = []
    if position < len(tokens) and is_punct(tokens[position], "<"):
        position += 1
        while True:
            found = read_generic(tokens, position, nullable, arrays)
            if found is None:
                return None
            args.append(found[0])
            position = found[1]
            if position < len(tokens) and is_punct(tokens[position], ","):
                position += 1
                continue
            if position < len(tokens) and is_punct(tokens[position], ">"):
                position += 1
                break
            return None
    kind = Generic(name, tuple(args))
    while arrays and position + 1 < len(tokens) and is_punct(tokens[position], "[") and (
            is_punct(tokens[position + 1], "]")):
        kind = Generic("[]", (kind,))
        position += 2
    if position < len(tokens) and is_punct(tokens[position], "?"):
        kind = Generic(nullable, (kind,)) if nullable else kind
        position += 1
    return kind, position


def integer_value(digits: str) -> int:
    """The value of an integer literal's digits (`0x1F`, `0b101`, `1_000`); NotPlainCalls for
    anything else (octal included: no test writes it, and the languages disagree on it)."""
    digits = digits.replace("_", "")
    try:
        if digits[:2] in ("0x", "0X"):
            return int(digits[2:], 16)
        if digits[:2] in ("0b", "0B"):
            return int(digits[2:], 2)
        if digits.isdigit() and (digits == "0" or not digits.startswith("0")):
            return int(digits)
    except ValueError:
        pass
    raise NotPlainCalls(f"not an integer {digits[:30]!r}")


def in_range(value: int, bits: int, unsigned: bool = False) -> bool:
    return 0 <= value < 1 << bits if unsigned else -(1 << (bits - 1)) <= value < 1 << (bits - 1)


def of_float(value: float, single: bool, type_name: str) -> OfType:
    return OfType(type_name, float32(value) if single else value)


class TypedReader:
    """A literal over `tokens`: the language's reader overrides `number`, `string`, `char`,
    `named` (and `cast`); `variables` are the tests' literal-valued names; `WORDS`, the
    language's literal words."""

    WORDS: dict[str, Any] = {"true": True, "false": False, "null": None}

    def __init__(self, tokens: list[Token], variables: dict[str, Any] | None = None) -> None:
        self.tokens = tokens
        self.variables = variables or {}
        self.position = 0

    # ---------------------------------------------------------------- entry points

    def whole(self, expected: Any = None) -> Any:
        """The literal the tokens are, all of them (`expected`: the type the context gives
        it, in the language's terms)."""
        if not self.tokens:
            raise NotPlainCalls("an empty expression")
        found = self.expression(0, expected)
        if self.position != len(self.tokens):
            raise NotPlainCalls(f"line {self.tokens[self.position].line}: not a literal")
        return found

    def sub(self, tokens: list[Token], depth: int, expected: Any = None) -> Any:
        """A nested literal (an element, an argument) read by a reader of the same kind."""
        reader = type(self)(tokens, self.variables)
        reader.__dict__.update({k: v for k, v in self.__dict__.items()
                                if k not in ("tokens", "position")})
        if not tokens:
            raise NotPlainCalls("an empty element")
        found = reader.expression(depth + 1, expected)
        if reader.position != len(tokens):
            raise NotPlainCalls(f"line {tokens[reader.position].line}: not a literal")
        return found

    def items(self, depth: int, expected: Any = None, open_: str = "(") -> list[Any]:
        """The comma-separated literals inside the brackets at the current position."""
        if not is_punct(self.peek(), open_):
            raise NotPlainCalls(f"expected {open_!r}")
        end = closing(self.tokens, self.position)
        parts = split_top(self.tokens[self.position + 1:end], ",", angles=True)
        self.position = end + 1
        if parts and not parts[-1] and len(parts) > 1:
            parts.pop()  # a trailing comma
        if parts == [[]]:
            return []
        return [self.sub(part, depth, expected) for part in parts]

    def parts(self, open_: str = "(") -> list[list[Token]]:
        """The raw comma-separated token lists inside the brackets here (stepped over)."""
        if not is_punct(self.peek(), open_):
            raise NotPlainCalls(f"expected {open_!r}")
        end = closing(self.tokens, self.position)
        found = split_top(self.tokens[self.position + 1:end], ",", angles=True)
        self.position = end + 1
        if found and not found[-1] and len(found) > 1:
            found.pop()
        return [] if found == [[]] else found

    # ---------------------------------------------------------------- helpers

    def peek(self, offset: int = 0) -> Token | None:
        position = self.position + offset
        return self.tokens[position] if 0 <= position < len(self.tokens) else None

    def take(self, text: str) -> None:
        if not is_punct(self.peek(), text) and not (self.peek() is not None
                                                    and self.peek().text == text):
            raise NotPlainCalls(f"expected {text!r}")
        self.position += 1

    def taking(self, *texts: str) -> bool:
        """Steps over the tokens `texts` if they come next."""
        for offset, text in enumerate(texts):
            token = self.peek(offset)
            if token is None or token.text != text or token.kind in ("string", "char"):
                return False
        self.position += len(texts)
        return True

    def fail(self, why: str) -> NotPlainCalls:
        token = self.peek() or (self.tokens[-1] if self.tokens else None)
        return NotPlainCalls(f"line {token.line if token else 0}: {why}")

    # ---------------------------------------------------------------- grammar

    def expression(self, depth: int, expected: Any) -> Any:
        return self._binary(depth, expected, ("+", "-"), self.term)

    def term(self, depth: int, expected: Any) -> Any:
        return self._binary(depth, expected, ("*", "/"), self.unary)

    def _binary(self, depth: int, expected: Any, operators: tuple[str, ...],
                operand: Any) -> Any:
        left = operand(depth, expected)
        while is_punct(self.peek(), *operators):
            operator = self.tokens[self.position].text
            self.position += 1
            left = self.arithmetic(operator, left, operand(depth, expected))
        return left

    def unary(self, depth: int, expected: Any) -> Any:
        if depth > MAX_NESTING:
            raise NotPlainCalls("a literal nested too deep")
        if is_punct(self.peek(), "-", "+"):
            sign = self.tokens[self.position].text
            self.position += 1
            token = self.peek()
            if sign == "-" and token is not None and token.kind == "number":
                self.position += 1
                return self.suffixed(self.number("-" + token.text, expected))
            operand = self.unary(depth + 1, expected)
            if not (isinstance(operand, OfType) and type(operand.value) in (int, float)):
                raise NotPlainCalls("a sign before something else than a number")
            return self.retyped(operand, -operand.value if sign == "-" else operand.value)
        return self.postfix(depth, expected)

    def postfix(self, depth: int, expected: Any) -> Any:
        """A primary and what follows it (Scala's `.toLong`)."""
        return self.suffixed(self.primary(depth, expected))

    def suffixed(self, value: Any) -> Any:
        """`value` with what follows it applied (Scala's `.toLong`, also after a negative
        number: `-3l.toLong`): by default nothing."""
        return value

    def primary(self, depth: int, expected: Any) -> Any:
        token = self.peek()
        if token is None:
            raise NotPlainCalls("an expression ends early")
        if token.kind == "number":
            self.position += 1
            return self.number(token.text, expected)
        if token.kind in ("string", "template"):
            self.position += 1
            return self.string(token.text)
        if token.kind == "char":
            self.position += 1
            return self.char(token.text)
        if is_punct(token, "("):
            return self.parenthesised(depth, expected)
        if token.kind == "name" or is_punct(token, "[", "{"):
            return self.named(depth, expected)
        raise NotPlainCalls(f"line {token.line}: {token.text!r} is not a literal")

    def parenthesised(self, depth: int, expected: Any) -> Any:
        end = closing(self.tokens, self.position)
        cast = self.cast(self.tokens[self.position + 1:end])
        following = self.tokens[end + 1] if end + 1 < len(self.tokens) else None
        if cast is not None and following is not None and (
                following.kind in ("number", "string", "char", "name")
                or is_punct(following, "(", "-")):
            self.position = end + 1
            return self.convert(self.unary(depth + 1, cast), cast)
        inner = self.tokens[self.position + 1:end]
        self.position = end + 1
        return self.group(inner, depth, expected)

    def group(self, inner: list[Token], depth: int, expected: Any) -> Any:
        """What `( ... )` is: the literal within (Scala and C# make tuples of several)."""
        return self.sub(inner, depth, expected)

    def word(self) -> tuple[bool, Any]:
        """A literal word (`true`, `null`) or a variable of the tests, if one is here
        (stepped over): (found, its value)."""
        token = self.peek()
        if token is not None and token.kind == "name" and token.text in self.WORDS:
            self.position += 1
            return True, self.WORDS[token.text]
        found = self.variable()
        return found is not None, found

    def variable(self) -> Any | None:
        """A name of the tests' literal variables, if one is here (stepped over)."""
        token = self.peek()
        if token is not None and token.kind == "name" and token.text in self.variables and not (
                is_punct(self.peek(1), "(", ".", "[", "<", "{")):
            self.position += 1
            return self.variables[token.text]
        return None

    # ---------------------------------------------------------------- language hooks

    def number(self, text: str, expected: Any) -> OfType:
        raise NotPlainCalls("numbers are not read")

    def string(self, text: str) -> Any:
        if not text.startswith('"'):
            raise NotPlainCalls("a string literal of another kind")
        return unescape(text[1:-1])

    def char(self, text: str) -> Any:
        raise NotPlainCalls("chars are not read")

    def named(self, depth: int, expected: Any) -> Any:
        raise self.fail(f"{self.peek().text!r} is not a literal")

    def cast(self, tokens: list[Token]) -> Any | None:
        """The type a parenthesised type names (a cast), or None."""
        return None

    def convert(self, value: Any, target: Any) -> Any:
        raise NotPlainCalls("a cast")

    def retyped(self, number: OfType, value: int | float) -> OfType:
        if type(value) is int and number.type in INTEGER_RANGES and not in_range(
                value, INTEGER_RANGES[number.type]):
            raise NotPlainCalls("an integer out of its type's range")
        return OfType(number.type, value)

    def arithmetic(self, operator: str, left: Any, right: Any) -> Any:
        """`left op right` on numbers of one type (C-like: integer division truncates)."""
        if not (isinstance(left, OfType) and isinstance(right, OfType)
                and type(left.value) in (int, float) and type(right.value) in (int, float)):
            raise NotPlainCalls("arithmetic on something else than numbers")
        kind = self.promoted(left.type, right.type)
        a, b = left.value, right.value
        if type(a) is int and type(b) is int:
            if operator == "/":
                if b == 0:
                    raise NotPlainCalls("a division by zero")
                quotient = abs(a) // abs(b)
                return self.retyped(OfType(kind, 0), quotient if (a < 0) == (b < 0) else -quotient)
            return self.retyped(OfType(kind, 0), {"+": a + b, "-": a - b, "*": a * b}[operator])
        a, b = float(a), float(b)
        if operator == "/" and b == 0:
            raise NotPlainCalls("a division by zero")
        result = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else 0.0}[operator]
        return OfType(kind, float32(result) if self.single(kind) else result)

    def promoted(self, left: str, right: str) -> str:
        """The type of arithmetic on two numbers (both of one type, by default)."""
        if left != right:
            raise NotPlainCalls("arithmetic across types")
        return left

    def single(self, type_name: str) -> bool:
        return type_name in ("Float", "float32", "Single")


def is_finite_number(value: Any) -> bool:
    return isinstance(value, OfType) and type(value.value) in (int, float) and (
        type(value.value) is int or math.isfinite(value.value))
