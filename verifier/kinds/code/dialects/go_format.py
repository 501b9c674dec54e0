"""Go's `fmt.Sprintf("%v", x)` of a recorded or expected value: what MultiPL-E's Go tests
compare (`fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected)`).

Values carry their Go types as go_record.py writes them (`OfType("[]float32", [...])`); a
float prints by the shortest digits that give it back at its own size (a float32 0.1 is
`0.1`), in an exponent's form below 1e-4 and from 1e6 on, as strconv does for the shortest
form (`1e+06`); a nil slice prints `[]`, a nil map `map[]`, a
nil interface `<nil>`; maps print sorted by key (fmt sorts them); a value the driver could not
write (a pointer, a struct) prints as nothing any other value prints as (None).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from verifier.kinds.code.dialects.clike import float32
from verifier.kinds.code.dialects.values import Map, OfType, Opaque

_INTEGER_TYPES = frozenset({"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
                            "uint32", "uint64", "uintptr"})


class Unprintable(Exception):
    """A value whose %v is not known here (it equals nothing)."""


def sprint_v(value: Any, type_name: str = "interface {}") -> str | None:
    """`fmt.Sprintf("%v", value)`, or None where it is not known (see the module doc)."""
    try:
        return _format(value, type_name, 0)
    except (Unprintable, RecursionError, ValueError, OverflowError):
        return None


def _format(value: Any, type_name: str, depth: int) -> str:
    if depth > 100:
        raise Unprintable("too deep")
    if isinstance(value, OfType):
        return _format(value.value, value.type, depth + 1)
    if isinstance(value, Opaque):
        raise Unprintable(value.type_name)
    if value is None:
        if type_name.startswith("[]"):
            return "[]"
        if type_name.startswith("map["):
            return "map[]"
        return "<nil>"
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is str:
        return value
    if type(value) is int:
        return str(value)
    if type(value) is float:
        return format_float(value, type_name == "float32")
    if isinstance(value, list):
        element = element_type(type_name)
        return "[" + " ".join(_format(item, element, depth + 1) for item in value) + "]"
    if isinstance(value, Map):
        key_type, value_type = map_types(type_name)
        entries = sorted(value.pairs, key=lambda pair: _order(pair[0]))
        return "map[" + " ".join(f"{_format(k, key_type, depth + 1)}:"
                                 f"{_format(v, value_type, depth + 1)}"
                                 for k, v in entries) + "]"
    raise Unprintable(type(value).__name__)


def _order(key: Any) -> Any:
    """fmt's order of map keys: numbers by value, strings by bytes, false before true."""
    if isinstance(key, OfType):
        key = key.value
    if type(key) in (int, float, bool):
        return (0, -math.inf if key != key else key)
    if type(key) is str:
        return (1, key.encode("utf-8", "surrogatepass"))
    raise Unprintable("a map key fmt's order is not known for")


def element_type(type_name: str) -> str:
    """`[]T` or `[N]T`: T."""
    if type_name.startswith("["):
        end = type_name.index("]")
        return type_name[end + 1:]
    return "interface {}"


def map_types(type_name: str) -> tuple[str, str]:
    """`map[K]V`: K and V."""
    if not type_name.startswith("map["):
        return "interface {}", "interface {}"
    depth = 0
    for index in range(3, len(type_name)):
        if type_name[index] == "[":
            depth += 1
        elif type_name[index] == "]":
            depth -= 1
            if depth == 0:
                return type_name[4:index], type_name[index + 1:]
    return "interface {}", "interface {}"


def format_float(value: float, single: bool) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32 or 64), which %v prints."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    digits, point = _shortest(abs(value), single)
    sign = "-" if value < 0 else ""
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _shortest(value: float, single: bool) -> tuple[str, int]:
    """The shortest decimal digits that read back as `value` (at single precision with
    `single`), and where the decimal point goes (digits 0.d1d2... times 10**point)."""
    text = repr(value)
    if single:
        for precision in range(1, 10):
            candidate = f"{value:.{precision - 1}e}"
            if float32(float(candidate)) == value:
                text = candidate
                break
    _, digits, exponent = Decimal(text).as_tuple()
    shown = "".join(map(str, digits)).rstrip("0") or "0"
    stripped = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    point = len(shown) + exponent + stripped
    return shown, point


def is_integer_type(type_name: str) -> bool:
    return type_name in _INTEGER_TYPES
