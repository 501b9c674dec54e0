"""JavaScript's value semantics on the model of values.py: `===`, `==`, node's
`assert.deepEqual` (loose) and `deepStrictEqual`, `JSON.stringify` equality, truthiness and
ToNumber, for the values a driver recorded and the literals the tests hold.

Numbers are doubles (an int of the model is one), strings are compared as JavaScript does
(code units; the model's str holds them), objects written in a test are fresh: never `===`
to anything. Everything here is bounded by the depth of the values (values.MAX_DEPTH).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from verifier.kinds.code.dialects.values import (
    UNDEFINED,
    BigInt,
    Map,
    OfType,
    Opaque,
    Record,
    SetOf,
)

_OBJECTS = (list, Record, Map, SetOf, Opaque)


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


def _primitive(value: Any) -> bool:
    return not isinstance(value, _OBJECTS)


def strict_equal(a: Any, b: Any) -> bool:
    """`a === b` (an object written in the tests is a fresh one: never identical)."""
    if _is_number(a) and _is_number(b):
        return float(a) == float(b)
    if isinstance(a, BigInt) and isinstance(b, BigInt):
        return a.value == b.value
    if not _primitive(a) or not _primitive(b):
        return False
    return type(a) is type(b) and a == b


def loose_equal(a: Any, b: Any) -> bool:
    """`a == b`: null and undefined alike, numbers against strings and booleans by value, an
    array or object against a primitive by its string form."""
    if strict_equal(a, b):
        return True
    nullish = (None, UNDEFINED)
    if a in nullish or b in nullish:
        return a in nullish and b in nullish
    if not _primitive(a) and not _primitive(b):
        return False
    if not _primitive(a):
        a = _to_primitive(a)
    if not _primitive(b):
        b = _to_primitive(b)
    if type(a) is bool:
        a = int(a)
    if type(b) is bool:
        b = int(b)
    if isinstance(a, BigInt) or isinstance(b, BigInt):
        left, right = _big(a), _big(b)
        return left is not None and right is not None and left == right
    if type(a) is str and type(b) is str:
        return a == b
    return to_number(a) == to_number(b)


def _big(value: Any) -> float | int | None:
    if isinstance(value, BigInt):
        return value.value
    if type(value) is str:
        text = value.strip()
        return int(text) if re.fullmatch(r"[+-]?[0-9]+", text) else None
    if _is_number(value) and math.isfinite(value):
        return int(value) if float(value).is_integer() else value
    return None


def _to_primitive(value: Any) -> Any:
    """What `==` and arithmetic turn an object into: an array its elements joined by commas,
    any other object "[object Object]"."""
    if isinstance(value, list):
        return ",".join("" if item in (None, UNDEFINED) else to_string(item) for item in value)
    return "[object Object]"


def to_string(value: Any) -> str:
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if type(value) is bool:
        return "true" if value else "false"
    if _is_number(value):
        return number_string(value)
    if isinstance(value, BigInt):
        return str(value.value)
    if type(value) is str:
        return value
    return _to_primitive(value)


def number_string(value: float | int) -> str:
    """JavaScript's Number::toString: the shortest digits that round-trip, placed as
    ECMAScript says (no exponent from 1e-6 up to 1e21)."""
    number = float(value)
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    digits, point = _shortest(abs(number))  # the value is 0.DIGITS times 10 ** point
    if len(digits) <= point <= 21:
        return sign + digits + "0" * (point - len(digits))
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * -point + digits
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'+' if point > 0 else '-'}{abs(point - 1)}"


def _shortest(number: float) -> tuple[str, int]:
    mantissa, _, power = repr(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(power) if power else 0)
    stripped = digits.lstrip("0")
    return stripped.rstrip("0") or "0", point - (len(digits) - len(stripped))


def to_number(value: Any) -> float:
    """ToNumber, for what a test subtracts from or compares with a number."""
    if _is_number(value):
        return float(value)
    if type(value) is bool:
        return float(value)
    if value is None:
        return 0.0
    if value is UNDEFINED or isinstance(value, Opaque):
        return math.nan
    if isinstance(value, BigInt):
        raise TypeError("Cannot mix BigInt and other types")
    if type(value) is str:
        return _string_number(value)
    return _string_number(_to_primitive(value))


def _string_number(text: str) -> float:
    text = text.strip(" \t\n\r\v\f\u00a0\ufeff\u2028\u2029")
    if not text:
        return 0.0
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", text):
        return float(int(text, 16))
    if re.fullmatch(r"0[oO][0-7]+", text):
        return float(int(text[2:], 8))
    if re.fullmatch(r"0[bB][01]+", text):
        return float(int(text[2:], 2))
    if re.fullmatch(r"[+-]?Infinity", text):
        return -math.inf if text.startswith("-") else math.inf
    if re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", text):
        return float(text)
    return math.nan


def truthy(value: Any) -> bool:
    if value is None or value is UNDEFINED:
        return False
    if type(value) is bool:
        return value
    if _is_number(value):
        return value != 0 and not math.isnan(value)
    if isinstance(value, BigInt):
        return value.value != 0
    if type(value) is str:
        return value != ""
    return True


def deep_equal(a: Any, b: Any, strict: bool, depth: int = 0) -> bool:
    """node's `assert.deepEqual` (`strict`: `deepStrictEqual`)."""
    if depth > 200:
        return False
    if _primitive(a) or _primitive(b):
        if not (_primitive(a) and _primitive(b)):
            return False
        if strict:
            return _same_value(a, b)
        return loose_equal(a, b) or (_is_number(a) and _is_number(b)
                                     and math.isnan(a) and math.isnan(b))
    if type(a) is not type(b) or isinstance(a, Opaque):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(deep_equal(x, y, strict, depth + 1)
                                        for x, y in zip(a, b, strict=True))
    if isinstance(a, Record):
        left, right = dict(a.pairs), dict(b.pairs)
        return left.keys() == right.keys() and all(
            deep_equal(left[key], right[key], strict, depth + 1) for key in left)
    if isinstance(a, SetOf):
        return len(a.items) == len(b.items) and all(
            any(deep_equal(x, y, strict, depth + 1) for y in b.items) for x in a.items)
    pairs_b = list(b.pairs)
    return len(a.pairs) == len(pairs_b) and all(
        any(deep_equal(k, k2, strict, depth + 1) and deep_equal(v, v2, strict, depth + 1)
            for k2, v2 in pairs_b) for k, v in a.pairs)


def seen(value: Any, how: str, depth: int = 0) -> Any:
    """A recorded value as the comparison `how` sees it. The driver marks an object of another
    prototype than its kind's (a class instance, `Object.create(null)`, an Array subclass:
    `["y", "proto", v]`) and an array with properties of its own beyond its elements
    (`["y", "props", v]`): node's deepStrictEqual tells both from any literal, deepEqual the
    second (such a value equals nothing there); JSON.stringify, `==` and `===` see neither."""
    if depth > 200:
        raise ValueError("nested too deep")
    if isinstance(value, OfType):
        if how == "deep_strict" or (how == "deep" and value.type == "props"):
            return Opaque(value.type)
        return seen(value.value, how, depth + 1)
    if isinstance(value, list):
        return [seen(item, how, depth + 1) for item in value]
    if isinstance(value, Record):
        return Record(tuple((key, seen(item, how, depth + 1)) for key, item in value.pairs))
    if isinstance(value, Map):
        return Map(tuple((seen(key, how, depth + 1), seen(item, how, depth + 1))
                         for key, item in value.pairs))
    if isinstance(value, SetOf):
        return SetOf(tuple(seen(item, how, depth + 1) for item in value.items))
    return value


def _same_value(a: Any, b: Any) -> bool:
    """Object.is on primitives."""
    if _is_number(a) and _is_number(b):
        x, y = float(a), float(b)
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return x == y and math.copysign(1, x) == math.copysign(1, y)
    return strict_equal(a, b)


def stringify(value: Any, depth: int = 0) -> str | None:
    """What `JSON.stringify(value)` returns, as text (None: undefined), in a canonical form:
    equal exactly where JavaScript's strings would be."""
    if depth > 200:
        raise ValueError("nested too deep")
    if value is None:
        return "null"
    if type(value) is bool:
        return "true" if value else "false"
    if _is_number(value):
        return json.dumps(float(value) + 0.0) if math.isfinite(value) else "null"
    if type(value) is str:
        return json.dumps(value)
    if isinstance(value, BigInt):
        raise TypeError("Do not know how to serialize a BigInt")
    if value is UNDEFINED or isinstance(value, Opaque):
        return None
    if isinstance(value, list):
        return "[" + ",".join(stringify(item, depth + 1) or "null" for item in value) + "]"
    if isinstance(value, Record):
        entries = [(key, stringify(item, depth + 1)) for key, item in value.pairs]
        return "{" + ",".join(f"{json.dumps(key)}:{text}" for key, text in entries
                              if text is not None) + "}"
    return "{}"  # a Map or a Set
