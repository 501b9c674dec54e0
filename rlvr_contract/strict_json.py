"""Strict JSON for everything a client sends: request bodies and the JSON inside labels.

Python's json module accepts NaN, Infinity and -Infinity, which are not JSON and which would
reach the comparisons as values no answer can match or, serialised again, as `null`; and it
raises RecursionError on deep nesting, which no caller expects. Here both are refused with an
error naming where they are (`items.0.tests.cases.1.expected`), and so is nesting deeper than
MAX_DEPTH levels in a document or in one value of a `call` test. Standard library only: the
schemas use it too.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 100
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|-?Infinity|NaN|[\[\]{}:,]|[^\s\[\]{}:,"]+')
_NON_FINITE = ("NaN", "Infinity", "-Infinity")
_DIGITS = 4300  # Python's limit on converting decimal text to an int
_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONRefused(ValueError):
    """Valid-looking input that strict JSON refuses; `path` says where."""

    def __init__(self, path: list[str | int], reason: str) -> None:
        super().__init__(f"{'.'.join(map(str, path)) or 'body'}: {reason}")
        self.path, self.reason = path, reason


def loads(text: str | bytes) -> Any:
    """json.loads, strict (see the module doc). Malformed JSON still raises JSONDecodeError."""
    constants: list[str] = []

    def refuse_later(name: str) -> None:
        constants.append(name)

    try:
        value = json.loads(text, parse_constant=refuse_later)
    except json.JSONDecodeError:
        raise
    except (RecursionError, ValueError) as exc:  # too deep; a number past the digit limit
        raise _locate(text) or JSONRefused([], str(exc)) from None
    if constants:
        raise _locate(text) or JSONRefused([], f"{constants[0]} is not a JSON number")
    return value


def problem(value: Any, max_depth: int = MAX_DEPTH) -> str | None:
    """Why a value decoded from JSON breaks the strict rules (a non-finite float, nesting deeper
    than max_depth, a string or key holding a lone surrogate, which JSON's `\\ud800` escape
    can write but no text holds), or None. For values of no declared type (a `call` test's
    arguments, constraint kwargs), which pydantic's own checks do not reach."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is float and not math.isfinite(item):
            return f"{item} is not a JSON number (only finite numbers are)"
        if kind is str and _SURROGATE.search(item):
            return "a lone surrogate (\\ud800 to \\udfff) is not a character"
        if kind is list or kind is tuple or kind is dict:
            if depth > max_depth:
                return f"nested deeper than {max_depth} levels"
            stack.extend((child, depth + 1) for child in (item.values() if kind is dict
                                                          else item))
            if kind is dict:
                stack.extend((key, depth) for key in item)
    return None


def _locate(text: str | bytes) -> JSONRefused | None:
    """Find the first refused token (by scanning, on the error path only) and name its path."""
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8", errors="replace")
    # each open container: [is_object, index or key]
    stack: list[list] = []
    expecting_key = False
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            if len(stack) >= MAX_DEPTH:
                return JSONRefused(_path(stack), f"nested deeper than {MAX_DEPTH} levels")
            stack.append([token == "{", 0 if token == "[" else None])
            expecting_key = token == "{"
        elif token in ("]", "}"):
            if stack:
                stack.pop()
            expecting_key = False
        elif token == ",":
            if stack and stack[-1][0]:
                expecting_key = True
            elif stack:
                stack[-1][1] += 1
        elif token == ":":
            expecting_key = False
        elif token.startswith('"'):
            if expecting_key and stack:
                try:
                    stack[-1][1] = json.loads(token)
                except ValueError:
                    stack[-1][1] = token[1:-1]
        elif token in _NON_FINITE:
            return JSONRefused(_path(stack), f"{token} is not a JSON number (only finite "
                                             "numbers are)")
        elif len(token) > _DIGITS:
            return JSONRefused(_path(stack), f"a number of more than {_DIGITS} digits")
    return None


def _path(stack: list[list]) -> list[str | int]:
    return [part for _, part in stack if part is not None]
