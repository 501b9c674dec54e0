"""Equality of recorded and expected values as the typed languages have it (Java's and
Kotlin's `equals`, C#'s `Equals`, Scala's `==`, Go's `reflect.DeepEqual`), by keys: each value
maps to a hashable key, and two values are equal exactly when their keys are. Sets and maps
compare as unordered (their keys' frozensets), so no comparison is quadratic in what a solution
returns, and none recurses deeper than values.MAX_DEPTH (the decoder's bound).

Modes:
- "typed": numbers equal only with their type (`Integer` 1 is not `Long` 1) and by bits (Java's
  `Double.equals`: NaN equals NaN, 0.0 is not -0.0): Java, Kotlin and C# equality of boxed
  values and collections.
- "cooperative": numbers by value whatever their type (Scala's `==`: `1 == 1L`, `List(1) ==
  List(1.0)`), IEEE for floats (NaN equal to nothing).
- "deep": Go's reflect.DeepEqual: types compared where the values carry them (`OfType`), a nil
  slice or map (None) unlike an empty one, IEEE floats.

An `Opaque` value equals nothing, not even itself.
"""

from __future__ import annotations

import math
from typing import Any

from verifier.kinds.code.dialects.values import Map, OfType, Opaque, SetOf, Some


class _Unequal:
    """A key equal only to itself: a NaN under IEEE, a value the driver could not write."""

    __slots__ = ()


def key(value: Any, mode: str) -> Any:
    """The hashable key of `value` under `mode` (see the module doc)."""
    if value is None or type(value) in (bool, str, bytes):
        return (type(value).__name__, value)
    if type(value) in (int, float):
        return _number(value, None, mode)
    if isinstance(value, OfType):
        if type(value.value) in (int, float):
            return _number(value.value, value.type, mode)
        if mode == "cooperative" and type(value.value) is str and len(value.value) == 1:
            return ("n", ord(value.value))  # Scala's chars are numbers: 'a' == 97
        return ("y", value.type, key(value.value, mode))
    if isinstance(value, list):
        return ("l", tuple(key(item, mode) for item in value))
    if isinstance(value, tuple):
        return ("t", tuple(key(item, mode) for item in value))
    if isinstance(value, SetOf):
        return ("s", frozenset(key(item, mode) for item in value.items))
    if isinstance(value, Map):
        entries = {}
        for name, item in value.pairs:
            entries[key(name, mode)] = key(item, mode)
        if len(entries) != len(value.pairs):
            return _Unequal()  # a map with a key twice: no map of the language is that
        return ("m", frozenset(entries.items()))
    if isinstance(value, Some):
        return ("?", key(value.value, mode))
    if isinstance(value, Opaque):
        return _Unequal()
    return _Unequal()


def _number(value: int | float, type_name: str | None, mode: str) -> Any:
    if type(value) is float:
        if math.isnan(value):
            return ("f", type_name, "nan") if mode == "typed" else _Unequal()
        if mode == "typed" and value == 0.0:
            return ("f", type_name, math.copysign(1.0, value))
        if mode == "cooperative":
            return ("n", int(value) if value.is_integer() and abs(value) < 2 ** 63 else value)
    if mode == "cooperative":
        return ("n", value)
    return ("n", type_name, value)


def equal(actual: Any, expected: Any, mode: str) -> bool:
    """Whether two values are equal under `mode`; never raises for a decoded value."""
    try:
        return key(actual, mode) == key(expected, mode)
    except RecursionError:
        return False


def number_of(value: Any) -> int | float | None:
    """The number a value is (through its type), or None: what a primitive `==` compares."""
    if isinstance(value, OfType):
        value = value.value
    if type(value) in (int, float):
        return value
    return None


def primitive_equal(actual: Any, expected: Any) -> bool:
    """A primitive `==` (Java, C#, Kotlin on numbers): numbers by value across their types
    (a long and a double compare as doubles), IEEE for floats; booleans with booleans; a
    char is its code."""
    left, right = _primitive(actual), _primitive(expected)
    if type(left) is bool or type(right) is bool:
        return type(left) is bool and type(right) is bool and left == right
    if type(left) not in (int, float) or type(right) not in (int, float):
        return False
    if type(left) is float or type(right) is float:
        try:
            return float(left) == float(right)
        except OverflowError:
            return False
    return left == right


def _primitive(value: Any) -> Any:
    if isinstance(value, OfType):
        if type(value.value) is str and len(value.value) == 1:
            return ord(value.value)  # a char compared with a number
        return value.value
    return value
