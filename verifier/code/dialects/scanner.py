"""A tokenizer built from one language's token pattern (Rust, D, Haskell, OCaml): the same
tokens as lexer.py's (kinds, lines, offsets), with the language's nesting block comments.

The pattern is a verbose regex of named groups: `space`, `newline` and `comment` (a line
comment) are dropped, `opener` starts a block comment that nests (`/* /* */ */` in Rust,
`/+ +/` in D, `{- -}` in Haskell, `(* *)` in OCaml), any other group is a token of that
kind (`number`, `string`, `char`, `name`, `punct`, ...). Raises only NotPlainCalls.
"""

from __future__ import annotations

import re

from verifier.code.dialects.core import NotPlainCalls
from verifier.code.dialects.lexer import Token


def scan(source: str, pattern: re.Pattern[str], comments: dict[str, str]) -> list[Token]:
    """The tokens of `source`; `comments` maps each nesting comment's opener to its closer."""
    tokens: list[Token] = []
    position, line, newline = 0, 1, True
    while position < len(source):
        found = pattern.match(source, position)
        if found is None:
            raise NotPlainCalls(f"line {line}: unreadable text")
        kind, text = found.lastgroup, found.group()
        if kind == "opener":
            end = _comment_end(source, position, text, comments[text])
            text = source[position:end]
            newline = newline or "\n" in text
            line += text.count("\n")
            position = end
            continue
        if kind == "newline":
            newline = True
            line += 1
        elif kind == "comment":
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
