"""Equality for statically typed languages whose literals take the type of what they are
compared with (Rust, Haskell): `==` on the recorded value and the tests' literal.

The type checker made both sides one type in the tests, so the comparison is strict about
kinds: a string equals only a string, a list only a list, a bool only a bool; an integer
literal equals an integer, and also a float where the language lets an integer literal be a
float (Haskell's `14 :: Double`; not Rust, where `5` against an f64 does not compile). A float
literal compared with a single-precision value is that literal rounded to single precision,
as the compiler would have typed it. Floats compare as IEEE does (NaN equals nothing). Maps
and sets compare whatever their order. Never raises for a decoded value.
"""

from __future__ import annotations

import math
from typing import Any

from verifier.kinds.code.dialects.clike import float32
from verifier.kinds.code.dialects.core import Check
from verifier.kinds.code.dialects.values import Map, SetOf, Single, Some

_SCALARS = (bool, str, bytes)


def typed_equal(value: Any, expected: Any, integers_are_polymorphic: bool) -> bool:
    """Whether the recorded `value` equals the literal `expected` (see the module doc)."""
    if expected is None or isinstance(expected, Some):
        if expected is None or value is None:
            return value is None and expected is None
        return isinstance(value, Some) and typed_equal(value.value, expected.value,
                                                      integers_are_polymorphic)
    kind = type(expected)
    if kind in _SCALARS:
        return type(value) is kind and value == expected
    if kind in (int, float):
        return _number_equal(value, expected, integers_are_polymorphic)
    if kind in (list, tuple):
        return (type(value) is kind and len(value) == len(expected) and all(
            typed_equal(v, e, integers_are_polymorphic)
            for v, e in zip(value, expected, strict=True)))
    if kind is Map:
        return isinstance(value, Map) and _same_entries(value.pairs, expected.pairs,
                                                        integers_are_polymorphic)
    if kind is SetOf:
        return isinstance(value, SetOf) and _same_entries(
            tuple((item, True) for item in value.items),
            tuple((item, True) for item in expected.items), integers_are_polymorphic)
    return False


def typed_holds(check: Check, value: Any, integers_are_polymorphic: bool) -> bool:
    """A check of a typed language's assert on a recorded value: the truth of a bool, `==`
    (or `!=`), `(value - K).abs() < T`."""
    if check.kind == "truth":
        return type(value) is bool and value != check.negated
    if check.kind == "equal":
        return typed_equal(value, check.expected, integers_are_polymorphic) != check.negated
    if check.kind == "close":
        return close(value, check.expected, check.tolerance, check.strict)
    return False


def _number_equal(value: Any, expected: int | float, integers_are_polymorphic: bool) -> bool:
    if type(value) is int:
        return type(expected) is int and value == expected
    if type(expected) is int and not integers_are_polymorphic:
        return False
    if isinstance(value, Single):
        return value.value == float32(expected)
    if type(value) is float:
        try:
            return value == float(expected)
        except OverflowError:
            return False
    return False


def number_of(value: Any) -> float | None:
    """A recorded float (single or double precision) as a Python float, else None."""
    if isinstance(value, Single):
        return value.value
    return value if type(value) is float else None


def close(value: Any, expected: float, tolerance: float, strict: bool) -> bool:
    """`(value - expected).abs() < tolerance` (or `<=`), in the value's own precision: a
    single-precision value is compared in single precision, as its literals would be."""
    number = number_of(value)
    if number is None:
        return False
    try:
        if isinstance(value, Single):
            difference = abs(float32(number - float32(expected)))
            tolerance = float32(tolerance)
        else:
            difference = abs(number - float(expected))
    except OverflowError:
        return False
    if math.isnan(difference):
        return False
    return difference < tolerance if strict else difference <= tolerance


def _same_entries(actual: tuple, expected: tuple, integers_are_polymorphic: bool) -> bool:
    if len(actual) != len(expected):
        return False
    found: dict[Any, Any] = {}
    for key, value in actual:
        found.setdefault(_key(key), []).append(value)
    if any(len(values) != 1 for values in found.values()):
        return False
    for key, value in expected:
        values = found.get(_key(key))
        if values is None or not typed_equal(values[0], value, integers_are_polymorphic):
            return False
    return True


def map_literal(pairs: list[tuple[Any, Any]] | tuple[tuple[Any, Any], ...]) -> Map:
    """A map written as a literal: a key written twice holds its last value, as every
    language's map literal (or `from` of pairs) has it."""
    entries: dict[Any, tuple[Any, Any]] = {}
    for key, value in pairs:
        entries.pop(_key(key), None)
        entries[_key(key)] = (key, value)
    return Map(tuple(entries.values()))


def _key(value: Any) -> Any:
    """A hashable stand-in for a map key: equal keys (as `typed_equal` has them) share it."""
    if type(value) in (bool, str, bytes, int):
        return (type(value).__name__, value)
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(_key(item) for item in value))
    if isinstance(value, Some):
        return ("some", _key(value.value))
    if value is None:
        return ("none",)
    return ("other", id(value))
