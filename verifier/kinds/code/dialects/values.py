"""The values a calls run records, as the worker reads and holds them: one model for every
language, and the records' wire form.

A driver writes one line per call on the run's channel (fd 3), once the calls are done (or
its buffer is full): `[site, value]` in JSON, the value encoded as

    null, true, false, numbers, strings   as themselves (a float keeps a `.` or an exponent)
    ["l", ...] list     ["t", ...] tuple     ["s", ...] set     ["m", k, v, ...] map
    ["o", key, value, ...]   an object with string keys, in their order (JavaScript)
    ["?", v]            an optional that holds v (an empty one is null)
    ["b", hex]          bytes (a C or C++ string)
    ["i", "digits"]     an integer of a type of its own (a JavaScript BigInt)
    ["q", "p", "q"]     an exact fraction p/q, q > 1 (a Racket rational)
    ["f32", x]          a single-precision float (Rust's f32, Haskell's Float): x as above
    ["f", "nan" | "inf" | "-inf" | "-0"]   a float JSON cannot write
    ["h", "-0x1.8000000000000p+1"]         a float as C99's hexadecimal text (C, C++)
    ["u"]               undefined (JavaScript)
    ["x", "type"]       a value the driver cannot write: equal to nothing
    ["y", "type", v]    v with the name its language gives its type, where the language's
                        equality tells types apart (Java's Integer.equals(Long) is false, Go's
                        reflect.DeepEqual(int64(1), 1) too)

and decoded into: None, bool, int, float, str, bytes, list, tuple, Fraction, and the classes
below. The
expected values the dialects parse out of the tests are built of the same, so a comparison
sees one model on both sides. Decoding is depth-bounded and raises only BadRecord.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

MAX_DEPTH = 100


class BadRecord(ValueError):
    """A record that is not what a driver writes: the run's own doing, never the verifier's."""


@dataclass(frozen=True)
class Map:
    """A map (C++ std::map, JavaScript Map): key/value pairs, in the order recorded."""

    pairs: tuple[tuple[Any, Any], ...]


@dataclass(frozen=True)
class Record:
    """A JavaScript object: string keys with their values, in the object's key order."""

    pairs: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class SetOf:
    items: tuple[Any, ...]


@dataclass(frozen=True)
class Some:
    """An optional that holds a value (an empty one is None)."""

    value: Any


@dataclass(frozen=True)
class BigInt:
    value: int


@dataclass(frozen=True)
class Single:
    """A single-precision float, where the language types a literal by what it is compared with
    (`0.1` against a Float is the float nearest 0.1): the value, exactly, as a double."""

    value: float


@dataclass(frozen=True)
class Opaque:
    """A value its driver could not write: it equals nothing, not even itself."""

    type_name: str


@dataclass(frozen=True)
class OfType:
    """A value and its type as its language names it (`Long`, `[]int`): for the dialects
    whose equality compares types; the others never see one."""

    type: str
    value: Any


class _Undefined:
    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = _Undefined()
_SPECIAL_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0": -0.0}
_SEQUENCES = {"l": list, "t": tuple}
_HEX_FLOAT = re.compile(r"-?0x[01]\.[0-9a-f]{13}p[+-][0-9]{1,4}")  # a double's, exactly


def decode(wire: Any, depth: int = 0) -> Any:
    """The value a record's JSON stands for (see the module doc)."""
    kind = type(wire)
    if wire is None or kind in (bool, int, float, str):
        return wire
    if kind is not list or not wire or type(wire[0]) is not str:
        raise BadRecord(f"not an encoded value: a {kind.__name__}")
    if depth >= MAX_DEPTH:
        raise BadRecord(f"a value nested deeper than {MAX_DEPTH} levels")
    tag, body = wire[0], wire[1:]
    if tag in _SEQUENCES:
        return _SEQUENCES[tag](decode(item, depth + 1) for item in body)
    if tag == "s":
        return SetOf(tuple(decode(item, depth + 1) for item in body))
    if tag in ("m", "o"):
        if len(body) % 2:
            raise BadRecord("a map with a key and no value")
        pairs = tuple((decode(body[i], depth + 1), decode(body[i + 1], depth + 1))
                      for i in range(0, len(body), 2))
        if tag == "m":
            return Map(pairs)
        if any(type(key) is not str for key, _ in pairs):
            raise BadRecord("an object with a key that is not a string")
        return Record(pairs)
    if tag == "?" and len(body) == 1:
        return Some(decode(body[0], depth + 1))
    if tag == "u" and not body:
        return UNDEFINED
    if tag == "y" and len(body) == 2 and type(body[0]) is str and len(body[0]) <= 200:
        return OfType(body[0], decode(body[1], depth + 1))
    if len(body) == 1 and type(body[0]) is str:
        text = body[0]
        if tag == "b":
            try:
                return bytes.fromhex(text)
            except ValueError:
                raise BadRecord("malformed bytes") from None
        if tag == "i" and len(text) <= 5000 and text.lstrip("-").isdigit():
            return BigInt(int(text))
        if tag == "f" and text in _SPECIAL_FLOATS:
            return _SPECIAL_FLOATS[text]
        if tag == "h" and _HEX_FLOAT.fullmatch(text):
            try:
                return float.fromhex(text)
            except OverflowError:
                raise BadRecord("a float beyond a double") from None
        if tag == "x":
            return Opaque(text[:80])
    if tag == "f32" and len(body) == 1:
        single = decode(body[0], depth + 1)
        if type(single) is int and abs(single) < 1 << 128:
            single = float(single)
        if type(single) is float:
            return Single(single)
    if tag == "q" and len(body) == 2 and all(type(part) is str and len(part) <= 5000
                                             and part.lstrip("-").isdigit() for part in body):
        numerator, denominator = int(body[0]), int(body[1])
        if denominator > 1:
            return Fraction(numerator, denominator)
    raise BadRecord(f"an unknown tag {tag[:20]!r}")


def read_records(channel: bytes, calls: int) -> tuple[list[Any], str | None]:
    """The values a calls run recorded, in order, as far as they go (at most `calls`), and
    what is wrong with the records, if anything: a line that is not a record, a site out of
    order, more records than calls. A run that stopped early has fewer values and no fault
    (a record it was writing when it stopped, its last line without its newline, is not one)."""
    recorded: list[Any] = []
    for line in channel.split(b"\n")[:-1]:
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            return recorded, "a malformed record"
        if (type(record) is not list or len(record) != 2 or type(record[0]) is not int
                or record[0] != len(recorded)):
            return recorded, "records out of order or more than one per call"
        if len(recorded) == calls:
            return recorded, "more records than calls"
        try:
            recorded.append(decode(record[1]))
        except (BadRecord, RecursionError) as exc:
            return recorded, f"a malformed value: {exc}"
    return recorded, None
