"""The integer types of C, C++ and D as their `==` converts them: a test's `f(x) == -1` is true
of a function returning an `unsigned` 4294967295, since the usual arithmetic conversions make
the `-1` unsigned too (and false of one returning a `long` 4294967295: there the `unsigned`
operand becomes a `long`).

Where the conversion can change a value, the drivers record an integer with its type
(values.py's `["y", tag, n]`) and the dialects give an integer literal its type the same way:
tags `i64`, `u32`, `u64`, `i128`, `u128`; an untagged integer is an `int` (smaller types are
promoted to it, and `bool`). `converted` applies the conversions to two tagged integers. The
platform is LP64 (`long` is 64 bits, as in D).
"""

from __future__ import annotations

from typing import Any

from verifier.kinds.code.dialects.lexer import Token, is_punct
from verifier.kinds.code.dialects.values import OfType

# tag: (bits, signed)
TYPES: dict[str, tuple[int, bool]] = {"i32": (32, True), "u32": (32, False), "i64": (64, True),
                                      "u64": (64, False), "i128": (128, True),
                                      "u128": (128, False)}
# A cast's integer type (of `int`'s width or wider), by its words.
_CASTS: dict[str, str] = {
    "int": "i32", "signed": "i32", "signed int": "i32", "int32_t": "i32", "unsigned": "u32",
    "unsigned int": "u32", "uint32_t": "u32", "long": "i64", "long int": "i64",
    "long long": "i64", "int64_t": "i64", "ssize_t": "i64", "ptrdiff_t": "i64",
    "intmax_t": "i64", "unsigned long": "u64", "unsigned long long": "u64", "size_t": "u64",
    "uint64_t": "u64", "uintmax_t": "u64", "__int128": "i128", "unsigned __int128": "u128"}


def wrapped(value: int, bits: int, signed: bool) -> int:
    """`value` as an integer of that width and signedness holds it (modulo 2^bits)."""
    value %= 1 << bits
    return value - (1 << bits) if signed and value >= 1 << (bits - 1) else value


def tagged(value: Any, tag: str | None) -> Any:
    """An integer literal's model value with its type: untagged where it is an `int`."""
    if tag is None or tag == "i32" or type(value) is not int:
        return value
    bits, signed = TYPES[tag]
    return OfType(tag, wrapped(value, bits, signed))


def literal_type(tokens: list[Token]) -> str | None:
    """The integer type of a literal written as `[(T)] [-] NUMBER` (parentheses around any
    part; `T` a C cast), as its suffix, its digits and C's rules make it; None for any other
    expression (then `int`, as before)."""
    position, end = 0, len(tokens)
    while end - position >= 2 and is_punct(tokens[position], "(") and is_punct(
            tokens[end - 1], ")") and _cast_words(tokens, position) is None:
        position, end = position + 1, end - 1
    cast = _cast_words(tokens[position:end], 0)
    if cast is not None:
        words, after = cast
        return _CASTS[words] if literal_type(tokens[position + after:end]) else None
    if position < end and is_punct(tokens[position], "-", "+"):
        position += 1
    if end - position != 1 or tokens[position].kind != "number":
        return None
    return _number_type(tokens[position].text)


def _cast_words(tokens: list[Token], position: int) -> tuple[str, int] | None:
    """`(T)` at `position` with T an integer type of _CASTS: T's words and the index after."""
    if not is_punct(tokens[position] if position < len(tokens) else None, "("):
        return None
    end = position + 1
    while end < len(tokens) and tokens[end].kind == "name":
        end += 1
    words = " ".join(t.text for t in tokens[position + 1:end])
    if end >= len(tokens) or not is_punct(tokens[end], ")") or words not in _CASTS:
        return None
    return words, end + 1 - position


def _number_type(text: str) -> str | None:
    """An integer literal's type (C's, LP64; D's are the same): decimal `int` or `long`; hex,
    octal or binary also unsigned where it does not fit the signed type; `u`, `l`, `ll`."""
    text = text.replace("'", "").replace("_", "")
    body = text.rstrip("uUlLzZ")
    suffix = text[len(body):].lower()
    try:
        value = int(body, 0) if body[:2].lower() in ("0x", "0b", "0o") else int(body, 8) if (
            body.startswith("0") and len(body) > 1) else int(body)
    except ValueError:
        return None
    decimal = not (body.startswith("0") and len(body) > 1)
    candidates = {"": ["i32", "i64"] if decimal else ["i32", "u32", "i64", "u64"],
                  "u": ["u32", "u64"], "l": ["i64"] if decimal else ["i64", "u64"],
                  "ll": ["i64"] if decimal else ["i64", "u64"], "ul": ["u64"], "lu": ["u64"],
                  "ull": ["u64"], "llu": ["u64"]}.get(suffix)
    for tag in candidates or ():
        bits, signed = TYPES[tag]
        if value < 1 << (bits - signed):
            return tag
    return None


def converted(actual: int, actual_tag: str, expected: int, expected_tag: str
              ) -> tuple[int, int]:
    """Two integers as `==` compares them after the usual arithmetic conversions: where the
    unsigned operand's type is at least as wide as the signed one's, the signed is converted
    to it (modulo 2^bits); otherwise both keep their values."""
    (a_bits, a_signed), (e_bits, e_signed) = TYPES[actual_tag], TYPES[expected_tag]
    if a_signed == e_signed:
        return actual, expected
    bits = a_bits if not a_signed else e_bits
    if bits >= (e_bits if not a_signed else a_bits):
        return wrapped(actual, bits, False), wrapped(expected, bits, False)
    return actual, expected


def untagged(value: Any) -> Any:
    """A recorded value without its integer type (an unknown tag's stays as it is)."""
    if isinstance(value, OfType) and value.type in TYPES and type(value.value) is int:
        return value.value
    return value


def typed(value: Any) -> tuple[str | None, Any]:
    """An integer's tag and value (`i32` for an untagged one or a bool, as `int` promotes it);
    None for what is no integer of a known type."""
    if isinstance(value, OfType):
        known = value.type in TYPES and type(value.value) is int
        return (value.type, value.value) if known else (None, value)
    return ("i32", int(value)) if type(value) in (int, bool) else (None, value)
