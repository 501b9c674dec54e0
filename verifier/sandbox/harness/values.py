"""Plain values as JSON, across the jail's process boundaries and out to the worker.

The judge of a Python run never unpickles, evaluates or calls what the solution made: it gets
the solution's values in this form and rebuilds them as its own objects of exact builtin (or
pristine standard-library) types, so no method the solution defined can run while the tests
compare, hash or test them. What is not plain data crosses as a handle (see judge_contestant.py).
Standard library only; the worker imports this module too, to read the judge's records.

    None, bool, float, str, int within +-2**63    as themselves
    ["i", hex]              any other int (no decimal conversion limit)
    ["l"|"t"|"s"|"f", ...]  list, tuple, set, frozenset of values
    ["d"|"o"|"C", k, v, ...] dict, OrderedDict, Counter;  ["D", factory, k, v, ...] defaultdict
    ["q", maxlen, ...]      deque;   ["K"|"V"|"I", ...] a dict's keys, values or items view
    ["b"|"B", hex]          bytes, bytearray;   ["c", re, im] complex;   ["R", start, stop, step]
    ["F", num, den]         Fraction;   ["M", text] Decimal
    ["date"|"time"|"datetime"|"delta", ...]   datetime values (fixed-offset time zones only)
    ["x", name, *args]      an exception of a builtin type
    ["h", id, type name]    a handle to an object the sender holds
    ["r", id]               a handle the receiver gave out, handed back
"""

from __future__ import annotations

import builtins
import collections
import datetime
import decimal
import fractions

MAX_DEPTH = 200  # nesting of one value; deeper is refused (the door allows 100, see schemas)
_BIG = 1 << 63
_SCALARS = frozenset({type(None), bool, int, float, str})
_FACTORIES = {"list": list, "dict": dict, "set": set, "int": int, "float": float, "str": str,
              "tuple": tuple, "None": None}
EXCEPTIONS = {name: cls for name, cls in vars(builtins).items()
              if isinstance(cls, type) and issubclass(cls, BaseException)}
_VIEWS = {type({}.keys()): "K", type({}.values()): "V", type({}.items()): "I"}


class NotPlain(TypeError):
    """A value that cannot cross as data (and no handle was allowed for it)."""


class BadWire(ValueError):
    """An encoded value that is malformed: from a solution's process, a broken promise."""


def _no_handles(value: object) -> list:
    raise NotPlain(f"a {type(value).__name__} is not plain data")


def encode(value: object, export=_no_handles, depth: int = 0):
    """The JSON form of `value`; what is not plain data goes through `export` (a handle), which
    by default refuses. Looks only at exact types, so no method of the value's class runs."""
    kind = type(value)
    if kind in _SCALARS:
        return value if kind is not int or -_BIG < value < _BIG else ["i", hex(value)]
    if depth >= MAX_DEPTH:
        raise NotPlain(f"a value nested deeper than {MAX_DEPTH} levels")
    depth += 1
    if kind is list or kind is tuple:
        return _sequence("l" if kind is list else "t", value, export, depth)
    if kind is set or kind is frozenset:
        return _unordered("s" if kind is set else "f", value, export, depth)
    if kind is dict or kind is collections.OrderedDict or kind is collections.Counter:
        return _mapping({dict: "d", collections.OrderedDict: "o",
                         collections.Counter: "C"}[kind], [], value, export, depth)
    if kind is collections.defaultdict:
        factory = next((name for name, f in _FACTORIES.items() if f is value.default_factory),
                       None)
        if factory is not None:
            return _mapping("D", [factory], value, export, depth)
    elif kind is collections.deque:
        return _sequence("q", value, export, depth, [value.maxlen])
    elif kind in _VIEWS:
        tag = _VIEWS[kind]
        if tag == "I":
            return ["I", *(encode(pair, _no_handles, depth) for pair in value)]
        return _sequence(tag, value, export if tag == "V" else _no_handles, depth)
    elif kind is bytes or kind is bytearray:
        return ["b" if kind is bytes else "B", value.hex()]
    elif kind is complex:
        return ["c", value.real, value.imag]
    elif kind is range:
        return ["R", encode(value.start), encode(value.stop), encode(value.step)]
    elif kind is fractions.Fraction:
        return ["F", encode(value.numerator), encode(value.denominator)]
    elif kind is decimal.Decimal:
        return ["M", str(value)]
    elif kind is datetime.timedelta:
        return ["delta", value.days, value.seconds, value.microseconds]
    elif kind is datetime.date:
        return ["date", value.year, value.month, value.day]
    elif kind is datetime.time or kind is datetime.datetime:
        zone = _zone(value.tzinfo)
        if zone is not False:
            fields = [value.hour, value.minute, value.second, value.microsecond, zone]
            if kind is datetime.time:
                return ["time", *fields]
            return ["datetime", value.year, value.month, value.day, *fields]
    elif EXCEPTIONS.get(kind.__name__) is kind:
        try:
            return ["x", kind.__name__, *(encode(a, _no_handles, depth) for a in value.args)]
        except NotPlain:
            pass
    return export(value)


def _zone(tzinfo) -> float | None | bool:
    if tzinfo is None:
        return None
    if type(tzinfo) is datetime.timezone:
        return tzinfo.utcoffset(None).total_seconds()
    return False


def _sequence(tag: str, items, export, depth: int, head: list | None = None) -> list:
    out = [tag, *(head or [])]
    for item in items:
        out.append(encode(item, export, depth))
    return out


def _unordered(tag: str, items, export, depth: int) -> list:
    """Set members cross as data or not at all: a handle would not hash like the member."""
    try:
        return _sequence(tag, items, _no_handles, depth)
    except NotPlain:
        if export is _no_handles:
            raise
        return export(items)


def _mapping(tag: str, head: list, mapping, export, depth: int) -> list:
    """Keys cross as data (or the whole mapping as a handle), values as data or handles."""
    try:
        keys = [encode(key, _no_handles, depth) for key in mapping]
    except NotPlain:
        if export is _no_handles:
            raise
        return export(mapping)
    out = [tag, *head]
    for key, item in zip(keys, dict.values(mapping), strict=True):
        out += (key, encode(item, export, depth))
    return out


def _no_resolver(tag: str, ident: int, name: str) -> object:
    raise BadWire("a handle where only plain data may be")


def decode(wire, resolve=_no_resolver, depth: int = 0):
    """Rebuild a value from its JSON form, as objects of exact builtin types; handles go
    through `resolve(tag, id, type name)`. Raises BadWire on anything malformed."""
    kind = type(wire)
    if kind in _SCALARS:
        return wire
    if kind is not list or not wire or type(wire[0]) is not str:
        raise BadWire(f"not an encoded value: a {kind.__name__}")
    if depth >= MAX_DEPTH:
        raise BadWire(f"a value nested deeper than {MAX_DEPTH} levels")
    depth += 1
    tag, body = wire[0], wire[1:]
    try:
        if tag in "ltsfKV" and len(tag) == 1:
            items = [decode(item, resolve, depth) for item in body]
            if tag == "K":
                return dict.fromkeys(items).keys()
            if tag == "V":
                return dict(enumerate(items)).values()
            return {"l": list, "t": tuple, "s": set, "f": frozenset}[tag](items)
        if tag in ("d", "o", "C", "D", "I"):
            if tag == "D":
                factory, body = _FACTORIES[body[0]], body[1:]
            if tag == "I":
                pairs = [decode(item, resolve, depth) for item in body]
                if any(type(p) is not tuple or len(p) != 2 for p in pairs):
                    raise BadWire("an items view of something else than pairs")
                return dict(pairs).items()
            if len(body) % 2:
                raise BadWire("a mapping with a key and no value")
            pairs = [(decode(body[i], resolve, depth), decode(body[i + 1], resolve, depth))
                     for i in range(0, len(body), 2)]
            if tag == "D":
                return collections.defaultdict(factory, pairs)
            if tag == "C":
                return collections.Counter(dict(pairs))
            return (dict if tag == "d" else collections.OrderedDict)(pairs)
        if tag == "q":
            maxlen = body[0]
            if maxlen is not None and type(maxlen) is not int:
                raise BadWire("a deque's maxlen is not an int")
            return collections.deque((decode(item, resolve, depth) for item in body[1:]),
                                     maxlen)
        if tag == "i":
            return _checked_int(int(_one_str(body), 16))
        if tag in ("b", "B"):
            return (bytes if tag == "b" else bytearray).fromhex(_one_str(body))
        if tag == "c":
            re_, im = body
            return complex(_float(re_), _float(im))
        if tag == "R":
            return range(*(_int(decode(part, _no_resolver, depth)) for part in body))
        if tag == "F":
            num, den = (_int(decode(part, _no_resolver, depth)) for part in body)
            return fractions.Fraction(num, den)
        if tag == "M":
            return decimal.Decimal(_one_str(body))
        if tag == "delta":
            return datetime.timedelta(*map(_int, body))
        if tag == "date":
            return datetime.date(*map(_int, body))
        if tag in ("time", "datetime"):
            *fields, zone = body
            tz = None if zone is None else datetime.timezone(
                datetime.timedelta(seconds=_float(zone)))
            return getattr(datetime, tag)(*map(_int, fields), tzinfo=tz)
        if tag == "x":
            cls = EXCEPTIONS.get(body[0]) if body and type(body[0]) is str else None
            if cls is None:
                raise BadWire("an exception of an unknown type")
            return cls(*(decode(arg, _no_resolver, depth) for arg in body[1:]))
        if tag in ("h", "r") and body and type(body[0]) is int:
            name = body[1] if len(body) > 1 and type(body[1]) is str else "object"
            return resolve(tag, body[0], name[:80])
    except BadWire:
        raise
    except (TypeError, ValueError, KeyError, IndexError, OverflowError, ArithmeticError) as exc:
        raise BadWire(f"a malformed {tag!r} value: {type(exc).__name__}") from None
    raise BadWire(f"an unknown tag {tag[:20]!r}")


def _one_str(body: list) -> str:
    if len(body) != 1 or type(body[0]) is not str:
        raise BadWire("expected one string")
    return body[0]


def _int(value) -> int:
    if type(value) is not int:
        raise BadWire("expected an int")
    return value


def _float(value) -> float:
    if type(value) not in (int, float):
        raise BadWire("expected a number")
    return float(value)


def _checked_int(value: int) -> int:
    if value.bit_length() > 1 << 20:  # a million bits: beyond any sane answer
        raise BadWire("an int of more than a million bits")
    return value
