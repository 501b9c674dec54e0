"""Go literals as the compiler types them: an untyped constant takes the type its context
gives it (`[]float64{1, 2}` holds 1.0 and 2.0, `[]int64{1}` an int64) and its default type
in an `interface{}` (`1` is an `int`, `1.5` a `float64`, `'a'` an `int32`), composite literals
(`[]int{...}`, `[2]int{...}`, `map[string]int{...}`, elided inner types `{{1, 2}, {3}}`),
conversions (`float64(3)`, `[]byte("ab")`), `nil`, raw strings.

Each value is an `OfType(type, value)` with reflect's spelling of the type (`[]interface {}`,
`uint8` for byte, `int32` for rune); within a typed container the elements are bare (their
type is the container's), within an `interface {}` one they keep theirs: go_record.py writes
what a program returns the same way.
"""

from __future__ import annotations

from typing import Any

from verifier.kinds.code.dialects.clike import float32
from verifier.kinds.code.dialects.core import MAX_NESTING, NotPlainCalls
from verifier.kinds.code.dialects.go_format import element_type, map_types
from verifier.kinds.code.dialects.lexer import closing, is_punct, split_top
from verifier.kinds.code.dialects.tokens import top_level
from verifier.kinds.code.dialects.typed import TypedReader, in_range, integer_value, unescape
from verifier.kinds.code.dialects.values import Map, OfType

INTERFACE = "interface {}"
_ALIASES = {"byte": "uint8", "rune": "int32", "any": INTERFACE}
_BITS = {"int": 64, "int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint": 64, "uint8": 8,
         "uint16": 16, "uint32": 32, "uint64": 64, "uintptr": 64}
_FLOATS = frozenset({"float32", "float64"})
_BASIC = frozenset({*_BITS, *_FLOATS, "string", "bool"})
_GO_ESCAPES = "abfnrtv\\'\""


def go_unescape(body: str) -> str:
    r"""A Go interpreted string's body: \n..., \xhh and \ooo (ASCII ones only: they are
    bytes), \uXXXX, \UXXXXXXXX."""
    return unescape(body, escapes=_GO_ESCAPES, extended=True)


def bare(value: Any, type_name: str) -> Any:
    """An element as a container of `type_name` elements holds it: bare, unless the
    elements are interfaces."""
    if type_name == INTERFACE or not isinstance(value, OfType):
        return value
    return value.value


class GoReader(TypedReader):
    """A Go literal (see the module doc); `expected` is a type's reflect spelling or None."""

    WORDS = {"true": OfType("bool", True), "false": OfType("bool", False), "nil": None}

    def whole(self, expected: Any = None) -> Any:
        return super().whole(expected or INTERFACE)

    def number(self, text: str, expected: Any) -> OfType:
        body = text.replace("_", "")
        negative = body.startswith("-")
        body = body.lstrip("-")
        if body.endswith("i"):
            raise NotPlainCalls("an imaginary number")
        is_float = not body.lower().startswith("0x") and any(c in body.lower() for c in ".e")
        if is_float:
            try:
                value: int | float = float(body)
            except ValueError:
                raise NotPlainCalls(f"not a number {text[:30]!r}") from None
        else:
            if len(body) > 1 and body.startswith("0") and body[1:].isdigit():
                raise NotPlainCalls("an octal number")
            value = integer_value(body)
        value = -value if negative else value
        return self.constant(value, "float64" if is_float else "int", expected)

    def constant(self, value: int | float, default: str, expected: Any) -> OfType:
        """An untyped constant given the type its context expects (else its default)."""
        target = expected if expected in _BASIC else default
        if expected not in (INTERFACE, None) and expected not in _BASIC:
            raise NotPlainCalls(f"a number where a {expected} is expected")
        if target in _FLOATS:
            number = float(value)
            return OfType(target, float32(number) if target == "float32" else number)
        if target in _BITS:
            if type(value) is float:
                if not value.is_integer():
                    raise NotPlainCalls("a constant truncated to an integer")
                value = int(value)
            if not in_range(value, _BITS[target], target.startswith("uint")):
                raise NotPlainCalls("a constant out of its type's range")
            return OfType(target, value)
        raise NotPlainCalls(f"a number where a {target} is expected")

    def retyped(self, number: OfType, value: int | float) -> OfType:
        return self.constant(value, number.type, number.type)

    def promoted(self, left: str, right: str) -> str:
        if left == right:
            return left
        if {left, right} == {"int", "float64"}:
            return "float64"  # untyped constants: an integer and a float make a float
        raise NotPlainCalls("arithmetic across types")

    def arithmetic(self, operator: str, left: Any, right: Any) -> Any:
        if operator == "+" and isinstance(left, OfType) and isinstance(right, OfType) and (
                left.type == right.type == "string"):
            return OfType("string", left.value + right.value)
        return super().arithmetic(operator, left, right)

    def string(self, text: str) -> Any:
        if text.startswith("`"):
            if "\\`" in text[1:-1]:
                raise NotPlainCalls("a raw string the lexer split")
            return OfType("string", text[1:-1].replace("\r", ""))
        return OfType("string", go_unescape(text[1:-1]))

    def char(self, text: str) -> Any:
        body = go_unescape(text[1:-1])
        if len(body) != 1:
            raise NotPlainCalls("a rune literal of other than one character")
        return self.constant(ord(body), "int32", None)

    def named(self, depth: int, expected: Any) -> Any:
        token = self.peek()
        found, value = self.word()
        if found:
            return value
        if is_punct(token, "{"):
            if expected in (None, INTERFACE):
                raise self.fail("a composite literal without its type")
            return self.composite(expected, depth)
        written = self.type_here()
        if written is None:
            raise self.fail(f"{token.text!r} is not a literal")
        if is_punct(self.peek(), "{"):
            return self.composite(written, depth)
        if is_punct(self.peek(), "("):
            values = self.parts()
            if len(values) != 1:
                raise self.fail("a conversion of other than one value")
            return self.conversion(self.sub(values[0], depth, written if written in _BASIC
                                            else None), written)
        raise self.fail("a type where a value should be")

    def conversion(self, value: Any, target: str) -> OfType:
        if target in _BITS or target in _FLOATS:
            if not isinstance(value, OfType) or type(value.value) not in (int, float):
                raise NotPlainCalls("a conversion of something else than a number")
            number = value.value
            if target in _BITS and type(number) is float:
                raise NotPlainCalls("a float converted to an integer")
            return self.constant(number, target, target)
        if target == "string" and isinstance(value, OfType) and value.type == "string":
            return value
        if target == "[]uint8" and isinstance(value, OfType) and value.type == "string":
            return OfType(target, list(value.value.encode("utf-8")))
        raise NotPlainCalls(f"a conversion to {target}")

    def composite(self, type_name: str, depth: int) -> OfType:
        if depth > MAX_NESTING:
            raise NotPlainCalls("a literal nested too deep")
        end = closing(self.tokens, self.position)
        parts = split_top(self.tokens[self.position + 1:end], ",")
        self.position = end + 1
        if parts and not parts[-1]:
            parts.pop()
        if type_name.startswith("map["):
            key_type, value_type = map_types(type_name)
            pairs = []
            for part in parts:
                colons = top_level(part, ":")
                if len(colons) != 1:
                    raise NotPlainCalls("a map entry that is not key: value")
                key = self.sub(part[:colons[0]], depth, key_type)
                pairs.append((bare(key, key_type),
                              bare(self.sub(part[colons[0] + 1:], depth, value_type),
                                   value_type)))
            return OfType(type_name, Map(tuple(pairs)))
        if not type_name.startswith("["):
            raise NotPlainCalls(f"a composite literal of {type_name}")
        element = element_type(type_name)
        items = []
        for part in parts:
            if top_level(part, ":"):
                raise NotPlainCalls("an indexed element")
            items.append(bare(self.sub(part, depth, element), element))
        if type_name[1] != "]":  # an array: [N]T
            size = int(type_name[1:type_name.index("]")])
            if len(items) > size:
                raise NotPlainCalls("more elements than the array holds")
            if len(items) < size:
                raise NotPlainCalls("an array with elements left to their zero value")
        return OfType(type_name, items)

    def type_here(self) -> str | None:
        """The type written here, in reflect's spelling (stepped over), or None."""
        start = self.position
        found = self._type(0)
        if found is None:
            self.position = start
        return found

    def _type(self, depth: int) -> str | None:
        if depth > MAX_NESTING:
            raise NotPlainCalls("a type nested too deep")
        token = self.peek()
        if token is None:
            return None
        if is_punct(token, "["):
            end = closing(self.tokens, self.position)
            inside = self.tokens[self.position + 1:end]
            self.position = end + 1
            if not inside:
                prefix = "[]"
            elif len(inside) == 1 and inside[0].kind == "number" and inside[0].text.isdigit():
                prefix = f"[{int(inside[0].text)}]"
            else:
                return None
            element = self._type(depth + 1)
            return None if element is None else prefix + element
        if token.kind != "name":
            return None
        if token.text == "map" and is_punct(self.peek(1), "["):
            self.position += 1
            end = closing(self.tokens, self.position)
            key = GoReader(self.tokens[self.position + 1:end]).type_here()
            self.position = end + 1
            value = self._type(depth + 1)
            return None if key is None or value is None else f"map[{key}]{value}"
        if token.text == "interface" and is_punct(self.peek(1), "{") and is_punct(
                self.peek(2), "}"):
            self.position += 3
            return INTERFACE
        name = _ALIASES.get(token.text, token.text)
        if name in _BASIC or name == INTERFACE:
            self.position += 1
            return name
        return None
