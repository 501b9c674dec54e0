"""C and C++ literals and types, as the tests write them and the languages convert them.

Parses the expected values of C and C++ tests (`3`, `3.5f`, `"abc"`, `'a'`, `{1, 2}`,
`std::vector<long>({(long)1, (long)2})`, `std::make_tuple(1, "a")`, `std::map<std::string,long>(
{{"a", 1}})`, `std::optional<long>(3)`, `std::nullopt`, `2.0/3.0`) into the model of values.py
with C's typing: integers and chars are ints, a `float` is rounded to single precision, strings
are bytes (UTF-8, as the compiler encodes a narrow literal), a braced list takes the type its
context gives it. Iterative where input decides the depth, or bounded by MAX_NESTING; raises
only NotPlainCalls.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from typing import Any

from verifier.kinds.code.dialects.core import MAX_NESTING, NotPlainCalls
from verifier.kinds.code.dialects.lexer import Token, closing, is_punct, split_top, token_at
from verifier.kinds.code.dialects.values import Map, SetOf, Some

INTEGER_WORDS = frozenset({
    "int", "long", "short", "char", "signed", "unsigned", "size_t", "ssize_t", "ptrdiff_t",
    "intmax_t", "uintmax_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
    "uint16_t", "uint32_t", "uint64_t", "__int128", "wchar_t", "char16_t", "char32_t"})
_CONTAINERS = {"vector": "vector", "list": "vector", "deque": "vector", "array": "vector",
               "map": "map", "unordered_map": "map", "set": "set", "unordered_set": "set",
               "tuple": "tuple", "pair": "tuple", "optional": "optional",
               "string": "string", "basic_string": "string"}
_QUALIFIERS = frozenset({"const", "volatile", "struct", "typename"})


@dataclass(frozen=True)
class CType:
    """A C or C++ type, as far as conversions need it: int, float (single precision), double,
    bool, string, pointer (not to char), vector/set (args: the element), map (key, value),
    tuple (the elements; none: not stated), optional, or unknown (name: what it was)."""

    kind: str
    args: tuple[CType, ...] = ()
    name: str = ""


UNKNOWN = CType("unknown")
INT, DOUBLE, FLOAT, BOOL, STRING = (CType(k) for k in ("int", "double", "float", "bool",
                                                       "string"))


@dataclass(frozen=True)
class Typed:
    """A parsed literal and the type it has in the source (a braced list: kind "braced",
    `value` the list of its elements, each a Typed)."""

    value: Any
    type: CType


BRACED = CType("braced")
NULL = CType("null")  # nullptr, NULL, std::nullopt


def float32(value: float) -> float:
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def parse_type(tokens: list[Token], at: int, depth: int = 0) -> tuple[CType, int] | None:
    """The type written at tokens[at], and where it ends; None if there is none there."""
    if depth > MAX_NESTING:
        raise NotPlainCalls("a type nested too deep")
    position = at
    while position < len(tokens) and tokens[position].text in _QUALIFIERS:
        position += 1
    words: list[str] = []
    while position < len(tokens) and tokens[position].kind == "name" and (
            not words or {tokens[position].text, words[-1]} <= INTEGER_WORDS | {"double"}):
        words.append(tokens[position].text)
        position += 1
        if words[-1] in ("std", "boost") and is_punct(token_at(tokens, position), "::"):
            words.pop()
            position += 1
    if not words:
        return None
    name = words[-1]
    args: list[CType] = []
    if is_punct(token_at(tokens, position), "<") and name in _CONTAINERS:
        position += 1
        while True:
            if token_at(tokens, position) is not None and tokens[position].kind == "number":
                position += 1  # std::array's size
            else:
                found = parse_type(tokens, position, depth + 1)
                if found is None:
                    return None
                args.append(found[0])
                position = found[1]
            if is_punct(token_at(tokens, position), ","):
                position += 1
                continue
            if not is_punct(token_at(tokens, position), ">"):
                return None
            position += 1
            break
    pointer = False
    while position < len(tokens) and tokens[position].text in ("*", "&", "&&", "const"):
        pointer |= tokens[position].text == "*"
        position += 1
    return _named(words, name, args, pointer), position


def _named(words: list[str], name: str, args: list[CType], pointer: bool) -> CType:
    if pointer:
        return STRING if words == ["char"] else CType("pointer")
    if set(words) <= INTEGER_WORDS:
        return INT
    if words in (["double"], ["long", "double"]):
        return DOUBLE
    if words == ["float"]:
        return FLOAT
    if words in (["bool"], ["_Bool"]):
        return BOOL
    kind = _CONTAINERS.get(name) if len(words) == 1 else None
    if kind == "string" and not args or kind in ("vector", "set", "optional") and len(args) == 1:
        return CType(kind, tuple(args))
    if kind == "map" and len(args) == 2 or kind == "tuple":
        return CType(kind, tuple(args))
    return CType("unknown", name=" ".join(words))


# --------------------------------------------------------------------------- literals


class LiteralParser:
    """A literal expression over `tokens` (C++ when `cpp`); `variables` are the tests' own
    literal-initialised variables, usable by name."""

    def __init__(self, tokens: list[Token], cpp: bool, variables: dict[str, Typed] | None = None
                 ) -> None:
        self.tokens = tokens
        self.cpp = cpp
        self.variables = variables or {}
        self.position = 0

    def whole(self) -> Typed:
        """The literal the tokens are, all of them."""
        if not self.tokens:
            raise NotPlainCalls("an empty expression")
        found = self.expression(0)
        if self.position != len(self.tokens):
            raise NotPlainCalls(f"line {self.tokens[self.position].line}: not a literal")
        return found

    def peek(self, offset: int = 0) -> Token | None:
        return token_at(self.tokens, self.position + offset)

    def take(self, text: str) -> None:
        if not is_punct(self.peek(), text):
            raise NotPlainCalls(f"expected {text!r}")
        self.position += 1

    def expression(self, depth: int) -> Typed:
        left = self.term(depth)
        while is_punct(self.peek(), "+", "-"):
            operator = self.tokens[self.position].text
            self.position += 1
            left = arithmetic(operator, left, self.term(depth))
        return left

    def term(self, depth: int) -> Typed:
        left = self.unary(depth)
        while is_punct(self.peek(), "*", "/", "%"):
            operator = self.tokens[self.position].text
            self.position += 1
            left = arithmetic(operator, left, self.unary(depth))
        return left

    def unary(self, depth: int) -> Typed:
        if depth > MAX_NESTING:
            raise NotPlainCalls("a literal nested too deep")
        if is_punct(self.peek(), "-", "+"):
            sign = self.tokens[self.position].text
            self.position += 1
            operand = self.unary(depth + 1)
            if operand.type.kind not in ("int", "double", "float", "bool"):
                raise NotPlainCalls("a sign before something else than a number")
            value = -operand.value if sign == "-" else +operand.value
            return Typed(value, INT if operand.type is BOOL else operand.type)
        return self.primary(depth)

    def primary(self, depth: int) -> Typed:
        token = self.peek()
        if token is None:
            raise NotPlainCalls("an expression ends early")
        if token.kind == "number":
            self.position += 1
            return number(token.text)
        if token.kind == "string":
            data = b""
            while (token := self.peek()) is not None and token.kind == "string":
                data += string_bytes(token.text)
                self.position += 1
            return Typed(data, STRING)
        if token.kind == "char":
            self.position += 1
            return Typed(char_code(token.text), INT)
        if is_punct(token, "{"):
            return self.braced(depth)
        if is_punct(token, "("):
            return self.parenthesised(depth)
        if token.kind == "name":
            return self.named(depth)
        raise NotPlainCalls(f"line {token.line}: {token.text!r} is not a literal")

    def braced(self, depth: int) -> Typed:
        end = closing(self.tokens, self.position)
        inner = self.tokens[self.position + 1:end]
        parts = split_top(inner, ",")
        if parts and not parts[-1]:
            parts.pop()  # a trailing comma
        items = [LiteralParser(part, self.cpp, self.variables).nested(depth + 1)
                 for part in parts]
        self.position = end + 1
        return Typed(items, BRACED)

    def nested(self, depth: int) -> Typed:
        found = self.expression(depth)
        if self.position != len(self.tokens):
            raise NotPlainCalls("not a literal")
        return found

    def parenthesised(self, depth: int) -> Typed:
        end = closing(self.tokens, self.position)
        cast = parse_type(self.tokens, self.position + 1)
        if cast is not None and cast[1] == end and self._operand_follows(end + 1):
            self.position = end + 1
            return Typed(convert(self.unary(depth + 1), cast[0]), cast[0])
        inner = LiteralParser(self.tokens[self.position + 1:end], self.cpp, self.variables)
        found = inner.nested(depth + 1)
        self.position = end + 1
        return found

    def _operand_follows(self, position: int) -> bool:
        token = token_at(self.tokens, position)
        return token is not None and (token.kind in ("number", "string", "char", "name")
                                      or is_punct(token, "(", "{", "-", "+"))

    def named(self, depth: int) -> Typed:
        token = self.tokens[self.position]
        text = token.text
        if text in ("true", "false"):
            self.position += 1
            return Typed(text == "true", BOOL)
        if text in ("nullptr", "NULL"):
            self.position += 1
            return Typed(None, NULL)
        if text in self.variables and not is_punct(self.peek(1), "(", "::", "<", "{"):
            self.position += 1
            return self.variables[text]
        if self.cpp and self._qualified("nullopt"):
            return Typed(None, NULL)
        if self.cpp and (self._qualified("make_tuple") or self._qualified("make_pair")):
            return Typed(tuple(self.arguments(depth)), CType("tuple"))
        found = parse_type(self.tokens, self.position) if self.cpp or text in (
            INTEGER_WORDS | {"float", "double", "bool"}) else None
        if found is None or found[0].kind in ("unknown", "pointer"):
            raise NotPlainCalls(f"line {token.line}: {text!r} is not a literal")
        target, self.position = found
        if is_punct(self.peek(), "{"):
            built = self.braced(depth)
        elif is_punct(self.peek(), "("):
            arguments = self.arguments(depth)
            if target.kind == "tuple":
                built = Typed(arguments, BRACED)
            elif not arguments:
                built = Typed([], BRACED) if target.kind != "optional" else Typed(None, NULL)
            elif len(arguments) == 1:
                built = arguments[0]
            else:
                raise NotPlainCalls(f"line {token.line}: a constructor of several arguments")
        else:
            raise NotPlainCalls(f"line {token.line}: a type where a literal should be")
        return Typed(convert(built, target), target)

    def _qualified(self, name: str) -> bool:
        """Whether `std::name` (or `name`) starts here; if so, steps over it."""
        position = self.position
        if self.tokens[position].text == "std" and is_punct(self.peek(1), "::"):
            position += 2
        token = token_at(self.tokens, position)
        if token is not None and token.kind == "name" and token.text == name:
            self.position = position + 1
            return True
        return False

    def arguments(self, depth: int) -> list[Typed]:
        if not is_punct(self.peek(), "("):
            raise NotPlainCalls("expected arguments")
        end = closing(self.tokens, self.position)
        parts = split_top(self.tokens[self.position + 1:end], ",")
        self.position = end + 1
        if parts == [[]]:
            return []
        return [LiteralParser(part, self.cpp, self.variables).nested(depth + 1)
                for part in parts]


def arithmetic(operator: str, left: Typed, right: Typed) -> Typed:
    """`left op right` on numbers, as C computes it (integer division truncates; a float with
    a float stays a float)."""
    kinds = {left.type.kind, right.type.kind}
    if not kinds <= {"int", "bool", "float", "double"}:
        raise NotPlainCalls("arithmetic on something else than numbers")
    a, b = left.value, right.value
    if kinds <= {"int", "bool"}:
        if operator in "/%" and b == 0:
            raise NotPlainCalls("a division by zero")
        if operator == "/":
            quotient = abs(a) // abs(b)
            return Typed(quotient if (a < 0) == (b < 0) else -quotient, INT)
        if operator == "%":
            return Typed(int(math.fmod(a, b)), INT)
        result = {"+": a + b, "-": a - b, "*": a * b}[operator]
        if abs(result) >= 1 << 64:
            raise NotPlainCalls("an integer out of range")
        return Typed(result, INT)
    if operator == "%":
        raise NotPlainCalls("% on a float")
    a, b = float(a), float(b)
    if operator == "/" and b == 0:
        raise NotPlainCalls("a division by zero")
    result = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else 0.0}[operator]
    single = "double" not in kinds
    return Typed(float32(result) if single else result, FLOAT if single else DOUBLE)


def convert(found: Typed, target: CType) -> Any:
    """The model value of `found` once converted to `target` (a cast, a constructor, a braced
    list given its type); NotPlainCalls where the conversion is not a literal's."""
    value, kind = found.value, found.type.kind
    if target.kind == "unknown" or target.kind == "pointer":
        raise NotPlainCalls(f"a value of type {target.name or target.kind}")
    if target.kind == "optional":
        return None if kind == "null" else Some(convert(found, target.args[0]))
    if kind == "null":
        raise NotPlainCalls("a null where a value should be")
    if target.kind in ("int", "bool", "float", "double"):
        if kind not in ("int", "bool", "float", "double"):
            raise NotPlainCalls("a number of something else")
        if target.kind == "int":
            return int(value)
        if target.kind == "bool":
            return bool(value)
        return float32(value) if target.kind == "float" else float(value)
    if target.kind == "string":
        if kind != "string":
            raise NotPlainCalls("a string of something else")
        return value
    return _convert_compound(found, target)


def _convert_compound(found: Typed, target: CType) -> Any:
    value, kind = found.value, found.type.kind
    if kind == "braced":
        items = value
    elif kind == target.kind and kind in ("vector", "set", "map", "tuple"):
        return value  # already converted by its own constructor
    else:
        raise NotPlainCalls(f"a {kind} where a {target.kind} should be")
    if target.kind == "vector":
        return [convert(item, target.args[0]) for item in items]
    if target.kind == "set":
        return SetOf(tuple(convert(item, target.args[0]) for item in items))
    if target.kind == "map":
        if len(items) == 1 and items[0].type.kind == "braced" and all(
                i.type.kind == "braced" for i in items[0].value):
            items = items[0].value  # std::map<K,V>({{k, v}, ...})
        pairs = []
        for item in items:
            if item.type.kind != "braced" or len(item.value) != 2:
                raise NotPlainCalls("a map entry that is not {key, value}")
            key, entry = item.value
            pairs.append((convert(key, target.args[0]), convert(entry, target.args[1])))
        return Map(tuple(pairs))
    if target.args and len(target.args) != len(items):
        raise NotPlainCalls("a tuple of the wrong size")
    return tuple(convert(item, target.args[i]) if target.args else model(item)
                 for i, item in enumerate(items))


def model(found: Typed) -> Any:
    """The model value of a literal with no type imposed by its context."""
    kind = found.type.kind
    if kind == "braced":
        return [model(item) for item in found.value]
    if kind == "tuple" and isinstance(found.value, tuple) and all(
            isinstance(item, Typed) for item in found.value):
        return tuple(model(item) for item in found.value)
    return found.value


_INTEGER = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([uUlLzZ]*)")
_FLOAT = re.compile(r"([0-9]*\.?[0-9]*(?:[eE][+-]?[0-9]+)?)([fFlL]?)")


def number(text: str) -> Typed:
    """A C or C++ number literal (digit separators, suffixes, octal)."""
    text = text.replace("'", "")
    if (found := _INTEGER.fullmatch(text)) and len(found.group(2)) <= 3:
        digits = found.group(1)
        if digits[:2] in ("0x", "0X"):
            value = int(digits, 16)
        elif digits[:2] in ("0b", "0B"):
            value = int(digits[2:], 2)
        elif digits.startswith("0") and len(digits) > 1:
            if not set(digits) <= set("01234567"):
                raise NotPlainCalls(f"a bad octal number {text!r}")
            value = int(digits, 8)
        else:
            value = int(digits)
        if value >= 1 << 64:
            raise NotPlainCalls(f"an integer out of range {text[:30]!r}")
        return Typed(value, INT)
    if (found := _FLOAT.fullmatch(text)) and any(c.isdigit() for c in found.group(1)):
        value = float(found.group(1))
        if found.group(2) in ("f", "F"):
            return Typed(float32(value), FLOAT)
        return Typed(value, DOUBLE)
    raise NotPlainCalls(f"not a number {text[:30]!r}")


_SIMPLE_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, '"': 34, "'": 39, "a": 7,
                   "b": 8, "f": 12, "v": 11, "?": 63}


def string_bytes(text: str) -> bytes:
    """The bytes of a narrow string literal (`u8` too), escapes resolved."""
    if text.startswith("u8"):
        text = text[2:]
    if not text.startswith('"'):
        raise NotPlainCalls("a wide string literal")
    return _unescape(text[1:-1])


def char_code(text: str) -> int:
    if not text.startswith("'"):
        raise NotPlainCalls("a wide char literal")
    data = _unescape(text[1:-1])
    if len(data) != 1:
        raise NotPlainCalls("a multi-character char literal")
    value = data[0]
    return value - 256 if value >= 128 else value  # a plain char is signed on x86-64


def _unescape(body: str) -> bytes:
    out = bytearray()
    position = 0
    while position < len(body):
        char = body[position]
        if char != "\\":
            out += char.encode("utf-8", errors="surrogatepass")
            position += 1
            continue
        escape = body[position + 1:position + 2]
        if escape in _SIMPLE_ESCAPES and not (escape == "0" and body[position + 2:position + 3]
                                              .isdigit()):
            out.append(_SIMPLE_ESCAPES[escape])
            position += 2
        elif escape == "x" and (found := re.match(r"[0-9a-fA-F]{1,2}", body[position + 2:])):
            out.append(int(found.group(), 16))
            position += 2 + len(found.group())
        elif escape in "01234567" and (found := re.match(r"[0-7]{1,3}", body[position + 1:])):
            out.append(int(found.group(), 8) & 0xFF)
            position += 1 + len(found.group())
        elif escape in ("u", "U") and (found := re.match(r"[0-9a-fA-F]{4}" if escape == "u"
                                                         else r"[0-9a-fA-F]{8}",
                                                         body[position + 2:])):
            try:
                out += chr(int(found.group(), 16)).encode("utf-8")
            except (ValueError, UnicodeEncodeError):
                raise NotPlainCalls("a bad universal character name") from None
            position += 2 + len(found.group())
        else:
            raise NotPlainCalls("an unknown escape in a literal")
    return bytes(out)
