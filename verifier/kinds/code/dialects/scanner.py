"""A tokenizer built from one language's token pattern (Rust, D, Haskell, OCaml): the same
tokens as lexer.py's (kinds, lines, offsets), with the language's nesting block comments.

The pattern is a verbose regex of named groups: `space`, `newline` and `comment` (a line
comment) are dropped, `opener` starts a block comment that nests (`/* /* */ */` in Rust,
`/+ +/` in D, `{- -}` in Haskell, `(* *)` in OCaml), any other group is a token of that
kind (`number`, `string`, `char`, `name`, `punct`, ...). Raises only NotPlainCalls.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from verifier.kinds.code.dialects.core import NotPlainCalls
from verifier.kinds.code.dialects.lexer import Closers, Token

# The opener of a literal or comment a fixed text closes, and that closer: the first of the
# pattern's alternatives that can match where the opener does (lexer.Closers).
Closed = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]


def scan(source: str, pattern: re.Pattern[str], comments: dict[str, str],
         closed: Closed | None = None, kept: bool = False,
         unclosed: re.Pattern[str] | None = None) -> list[Token]:
    """The tokens of `source`; `comments` maps each nesting comment's opener to its closer;
    `closed` finds the pattern's literals that a fixed text closes (read in linear time):
    where no closer follows, the text is read by `unclosed` (the pattern without those
    literals), or else by the pattern within the opener; with `kept`, each comment is a token
    too (kind "comment")."""
    tokens: list[Token] = []
    position, line, newline = 0, 1, True
    closers = Closers(source)
    while position < len(source):
        opened = closed[0].match(source, position) if closed else None
        if opened and not closers.follow(opened.end(), closed[1](opened)):
            found = (unclosed.match(source, position) if unclosed
                     else pattern.match(source, position, opened.end()))
        else:
            found = pattern.match(source, position)
        if found is None:
            raise NotPlainCalls(f"line {line}: unreadable text")
        kind, text = found.lastgroup, found.group()
        if kind == "opener":
            end = _comment_end(source, position, text, comments[text])
            text = source[position:end]
            if kept:
                tokens.append(Token("comment", text, line, position, end, newline))
            newline = newline or "\n" in text
            line += text.count("\n")
            position = end
            continue
        if kind == "newline":
            newline = True
            line += 1
        elif kind == "comment" and not kept:
            newline = newline or "\n" in text
            line += text.count("\n")
        elif kind != "space":
            tokens.append(Token(kind, text, line, position, found.end(), newline))
            line += text.count("\n")
            newline = False
        position = found.end()
    return tokens


def _comment_end(source: str, position: int, opener: str, closer: str) -> int:
    depth = 0
    while position < len(source):
        if source.startswith(opener, position):
            depth += 1
            position += len(opener)
        elif source.startswith(closer, position):
            depth -= 1
            position += len(closer)
            if depth == 0:
                return position
        else:
            position += 1
    raise NotPlainCalls("an unterminated comment")


def punctuation(*marks: str) -> str:
    """A regex alternative of the marks, longest first."""
    return "|".join(re.escape(mark) for mark in sorted(marks, key=len, reverse=True))


# One kind of escape in a literal: what follows the backslash, and what it stands for.
Escape = tuple[re.Pattern[str], Callable[[re.Match[str]], str | bytes]]


def resolve(body: str, escapes: list[Escape]) -> list[str | bytes]:
    """The pieces of a string literal's body: its text, and each escape resolved by the
    first of `escapes` matching what follows its backslash; NotPlainCalls for any other."""
    pieces: list[str | bytes] = []
    position = 0
    while (slash := body.find("\\", position)) >= 0:
        pieces.append(body[position:slash])
        for pattern, meaning in escapes:
            if found := pattern.match(body, slash + 1):
                pieces.append(meaning(found))
                position = found.end()
                break
        else:
            raise NotPlainCalls("an unknown escape")
    pieces.append(body[position:])
    return pieces


def text_of(pieces: list[str | bytes]) -> str:
    """The pieces of a literal of characters (whose escapes all stand for characters)."""
    return "".join(str(piece) for piece in pieces)


def bytes_of(pieces: list[str | bytes]) -> bytes:
    """The pieces as bytes: text as UTF-8, as a compiler encodes a narrow literal."""
    return b"".join(piece if type(piece) is bytes else piece.encode("utf-8", "surrogatepass")
                    for piece in pieces)


def character(code: int) -> str:
    """A character by its code point; NotPlainCalls for one out of range or a surrogate."""
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        raise NotPlainCalls("a bad character escape")
    return chr(code)


def simple(table: dict[str, str]) -> Escape:
    """The one-character escapes of `table` (`n` for a newline...)."""
    return re.compile("[" + re.escape("".join(table)) + "]"), lambda found: table[found.group()]
