"""Haskell's literals, as tests write them and as `show` writes values: the tokens, the
literal parser (numbers, strings with every escape, Bool, lists, tuples, Maybe, `()`), and the
reading of a value the calls driver recorded as its `show` and the `show` of its type.

A value is recorded as Haskell shows it, which is its literal, and its type (`typeOf`), which
says where a number is a Float: such a number is the single-precision float it shows (show
round-trips), so it compares with a literal typed as a Float, as Haskell would. Anything that
is not a literal (a Char, a Ratio, a Map, a constructor of the solution's own type) reads as a
value that equals nothing.
"""

from __future__ import annotations

import re
from typing import Any

from verifier.kinds.code.dialects.clike import float32
from verifier.kinds.code.dialects.core import NotPlainCalls
from verifier.kinds.code.dialects.cursor import Cursor, bounded, is_name, negated
from verifier.kinds.code.dialects.lexer import Token, is_punct
from verifier.kinds.code.dialects.scanner import Escape, character, resolve, scan, simple, text_of
from verifier.kinds.code.dialects.values import Opaque, Single, Some

_SYMBOL = r"!#$%&*+./<=>?@\\^|~:\-"
_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f\v]+)
  | (?P<newline>\n)
  | (?P<comment>--+(?![""" + _SYMBOL + r"""]|[^\x00-\x7f])[^\n]*)
  | (?P<opener>\{-)
  | (?P<string>"(?:[^"\\\n]|\\(?:\s+\\|.))*")
  | (?P<name>(?:[A-Z][\w']*\.)*[^\W\d][\w']*
             |(?:[A-Z][\w']*\.)+[""" + _SYMBOL + r"""]+)
  | (?P<char>'(?:[^'\\\n]|\\(?:'|[^'\n]{1,10}))')
  | (?P<number>0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+
               |[0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9]+)?)
  | (?P<punct>[(),;\[\]`{}]|[""" + _SYMBOL + r"""]+)
""", re.X | re.S)


def tokenize(source: str, comments: bool = False) -> list[Token]:
    """Haskell's tokens (a name may be any letters, `λx`); with `comments`, comments and
    pragmas too. `--` then a symbol is an operator, not a comment (`-->`), and so, this reading
    being unsure of which other characters GHC takes for symbols, is `--` then any non-ASCII
    character (`--→`): such text is unreadable here, never a comment."""
    return scan(source, _TOKEN, {"{-": "-}"}, kept=comments)


def column(source: str, token: Token) -> int:
    return token.start - (source.rfind("\n", 0, token.start) + 1)


# --------------------------------------------------------------------------- literals


_ASCII_CONTROLS = ("NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 "
                   "NAK SYN ETB CAN EM SUB ESC FS GS RS US SP DEL")
_ASCII_NAMES = _ASCII_CONTROLS.split()
_ASCII_CODES = {name: 32 if name == "SP" else 127 if name == "DEL" else code
                for code, name in enumerate(_ASCII_NAMES)}
_ESCAPES: list[Escape] = [
    (re.compile(r"\s+\\|&"), lambda found: ""),  # a gap, an empty escape
    (re.compile(r"[0-9]+"), lambda found: character(int(found.group()))),
    (re.compile(r"x([0-9a-fA-F]+)"), lambda found: character(int(found.group(1), 16))),
    (re.compile(r"o([0-7]+)"), lambda found: character(int(found.group(1), 8))),
    (re.compile(r"\^([@-_])"), lambda found: chr(ord(found.group(1)) - 64)),
    (re.compile("|".join(sorted(_ASCII_NAMES, key=len, reverse=True))),
     lambda found: chr(_ASCII_CODES[found.group()])),
    simple({"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a",
            "b": "\b", "f": "\f", "v": "\v"}),
]


def string_value(text: str) -> str:
    """A Haskell string literal's value: its escapes (`\\n`, `\\123`, `\\x7f`, `\\o17`,
    `\\NUL`, `\\^A`), `\\&` and gaps resolved."""
    return text_of(resolve(text[1:-1], _ESCAPES))


def number_value(text: str) -> int | float:
    digits = text.replace("_", "")
    if digits[:2].lower() in ("0x", "0o", "0b"):
        return int(digits, 0)
    if "." in digits or "e" in digits.lower():
        return float(digits)
    return int(digits)


class Char:
    """A Char literal: an argument may hold one; an expected value may not (a Char is
    recorded as a value that equals nothing, so such tests run in-process)."""


class LiteralParser(Cursor):
    """A Haskell literal expression into the model of values.py; with `chars`, Char literals
    are read (as markers) rather than refused; with `shown`, also what `show` writes of a
    Double that is no literal (`NaN`, `Infinity`)."""

    def __init__(self, tokens: list[Token], chars: bool = False, shown: bool = False) -> None:
        super().__init__(tokens)
        self.chars = chars
        self.shown = shown

    def value(self, depth: int = 0) -> Any:
        depth = bounded(depth)
        if self.take("-"):
            return negated(self.value(depth))
        if self.take("Just"):
            return Some(self.atom(depth))
        return self.atom(depth)

    def atom(self, depth: int) -> Any:
        depth = bounded(depth)
        token = self.next()
        if token.kind == "number":
            return number_value(token.text)
        if token.kind == "string":
            return string_value(token.text)
        if token.kind == "char":
            if not self.chars:
                raise NotPlainCalls("a Char literal")
            return Char()
        if is_name(token, "True", "False"):
            return token.text == "True"
        if is_name(token, "Nothing"):
            return None
        if self.shown and is_name(token, "NaN", "Infinity"):
            return float(token.text.lower().replace("infinity", "inf"))
        if is_punct(token, "["):
            return self.items("]", ",", lambda: self.value(depth))[0]
        if is_punct(token, "("):
            items, commas = self.items(")", ",", lambda: self.value(depth))
            return items[0] if len(items) == 1 and not commas else tuple(items)
        raise NotPlainCalls(f"line {token.line}: {token.text!r} is not a literal")


def literal(tokens: list[Token]) -> Any:
    parser = LiteralParser(tokens)
    found = parser.value()
    parser.end()
    return found


# --------------------------------------------------------------------------- recorded values


MAX_SHOWN = 50 << 20  # characters of one recorded value


def recorded(wire: Any) -> Any:
    """The model of a value the driver recorded as (the show of its type, its show)."""
    if not (isinstance(wire, tuple) and len(wire) == 2 and all(type(part) is str
                                                               for part in wire)):
        return Opaque("unreadable")
    type_text, shown = wire
    if len(shown) > MAX_SHOWN:
        return Opaque("too large")
    try:
        kind = _type(Cursor(tokenize(type_text)), 0)
        parser = LiteralParser(tokenize(shown), chars=True, shown=True)
        value = parser.value()
        parser.end()
        return _typed(value, kind, 0)
    except (NotPlainCalls, RecursionError, ValueError):
        return Opaque("unreadable")


def _type(cursor: Cursor, depth: int) -> Any:
    """A shown TypeRep: ("list", T), ("tuple", [T...]), ("maybe", T), or a type's name."""
    depth = bounded(depth)
    token = cursor.next()
    if is_punct(token, "["):
        inner = _type(cursor, depth)
        cursor.expect("]")
        found: Any = ("list", inner)
    elif is_punct(token, "("):
        items = [] if cursor.at(")") else [_type(cursor, depth)]
        while cursor.take(","):
            items.append(_type(cursor, depth))
        cursor.expect(")")
        found = items[0] if len(items) == 1 else ("tuple", items)
    elif is_name(token):
        found = token.text
        if found == "Maybe":
            return ("maybe", _type(cursor, depth))
        while not cursor.done() and not cursor.at(",", ")", "]"):
            _type(cursor, depth)  # a type applied to arguments: its values equal nothing
            found = "other"
    else:
        raise NotPlainCalls("not a type")
    return found


def _typed(value: Any, kind: Any, depth: int) -> Any:
    """The value with each number a Float holds made single precision; a Char opaque."""
    if depth > 200:
        raise NotPlainCalls("a value nested too deep")
    if isinstance(value, Char):
        return Opaque("char")
    if kind == "Float" and type(value) in (int, float):
        return Single(float32(float(value)))
    if kind == "Double" and type(value) in (int, float):
        return float(value)
    if isinstance(kind, tuple) and kind[0] == "list" and type(value) is list:
        return [_typed(item, kind[1], depth + 1) for item in value]
    if isinstance(kind, tuple) and kind[0] == "maybe" and isinstance(value, Some):
        return Some(_typed(value.value, kind[1], depth + 1))
    if (isinstance(kind, tuple) and kind[0] == "tuple" and type(value) is tuple
            and len(value) == len(kind[1])):
        return tuple(_typed(item, part, depth + 1)
                     for item, part in zip(value, kind[1], strict=True))
    if kind == "other":
        return Opaque("unreadable")
    return value
