"""Comparators, run in the worker (outside the jail): expected outputs never enter it."""

from __future__ import annotations

import json
import math
from typing import Any

from rlvr_contract.schemas import StdioTests


def _lines(text: str) -> list[str]:
    lines = [" ".join(line.split()) for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _float_tokens_equal(expected: str, actual: str, abs_tol: float, rel_tol: float) -> bool:
    if expected == actual:
        return True
    try:
        want, got = float(expected), float(actual)
    except ValueError:
        return False
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return math.isclose(want, got, rel_tol=rel_tol, abs_tol=abs_tol)


def stdout_matches(expected: str, stdout: bytes, tests: StdioTests) -> bool:
    """Compare a program's stdout with the expected output under the tests' comparator."""
    actual = stdout.decode("utf-8", errors="replace")
    match tests.compare:
        case "exact":
            return actual == expected
        case "lines":
            return _lines(actual) == _lines(expected)
        case "lines_ci":
            return _lines(actual.casefold()) == _lines(expected.casefold())
        case "tokens":
            return actual.split() == expected.split()
        case "float":
            want, got = expected.split(), actual.split()
            return len(want) == len(got) and all(
                _float_tokens_equal(w, g, tests.abs_tol, tests.rel_tol)
                for w, g in zip(want, got, strict=True))
    raise ValueError(f"unknown comparator {tests.compare!r}")


class NotJSONLike(ValueError):
    """A `call` test's return value that JSON cannot hold: the case fails."""


def json_like(value: Any) -> Any:
    """A `call` test's return value (plain data of exact builtin types, as the jail's record
    decodes) as JSON data: tuples as lists, a dict's non-string keys as their JSON text."""
    kind = type(value)
    if value is None or kind is bool or kind is str or kind is float:
        return value
    if kind is int:
        if abs(value).bit_length() > 14000:  # past the decimal conversion limit
            raise NotJSONLike("returned an int of more than 4000 digits")
        return value
    if kind is list or kind is tuple:
        return [json_like(item) for item in value]
    if kind is dict and all(type(k) in (str, int, float, bool) or k is None for k in value):
        return {k if type(k) is str else json.dumps(k): json_like(v) for k, v in value.items()}
    raise NotJSONLike(f"returned a {kind.__name__}, not JSON-like data")


def values_equal(expected: Any, actual: Any, rel_tol: float = 1e-6, abs_tol: float = 1e-9) -> bool:
    """Structural equality of JSON values for `call` tests.

    Both sides are plain JSON data (`json_like`), so no user code runs here. Numbers compare
    across int/float with a float tolerance; booleans only equal booleans; tuples arrive as
    lists.
    """
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        if isinstance(expected, int) and isinstance(actual, int):
            return expected == actual
        try:
            want, got = float(expected), float(actual)
        except OverflowError:  # an int past a float's range is close to no float
            return False
        if math.isnan(want) or math.isnan(got):
            return math.isnan(want) and math.isnan(got)
        return math.isclose(want, got, rel_tol=rel_tol, abs_tol=abs_tol)
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        return len(expected) == len(actual) and all(
            values_equal(e, a, rel_tol, abs_tol) for e, a in zip(expected, actual, strict=True))
    if isinstance(expected, dict) and isinstance(actual, dict):
        expected = {str(k): v for k, v in expected.items()}
        return expected.keys() == actual.keys() and all(
            values_equal(expected[k], actual[k], rel_tol, abs_tol) for k in expected)
    return type(expected) is type(actual) and expected == actual
