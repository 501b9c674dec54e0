"""Tokens of C-family test code (C, C++, JavaScript, TypeScript, and the other curly-brace
languages): what the calls dialects read the tests with, in the worker.

The tests are untrusted text: the lexer never raises anything but `NotPlainCalls` (a test it
cannot read is simply not a plain-call shape), works in one pass without recursion, and keeps
each token's line (failures name the line of the tests) and its offsets (the driver copies the
calls' source text verbatim). Comments are dropped; a C preprocessor line is one token.
`>` is never joined into `>>` (C++ closes nested templates with it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.kinds.code.dialects.core import NotPlainCalls

_PUNCTUATION = sorted((
    "===", "!==", "**=", "...", "<<=", "->*", "&&=", "||=", "??=",
    "::", "->", "++", "--", "&&", "||", "??", "?.", "==", "!=", "<=", ">=", "=>", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "**", ".*",
    "{", "}", "(", ")", "[", "]", ";", ",", ".", "<", ">", "+", "-", "*", "/", "%", "&", "|",
    "^", "!", "~", "?", ":", "=", "@", "#", "\\", "$",
), key=len, reverse=True)
_TOKEN_PATTERN = r"""
    (?P<space>[ \t\r\f\v]+)
  | (?P<newline>\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<number>(?:0[xX][0-9a-fA-F_']+|0[bB][01_']+|0[oO][0-7_]+
               |(?:[0-9][0-9_']*\.?[0-9_']*|\.[0-9][0-9_']*)(?:[eE][+-]?[0-9_]+)?)[a-zA-Z]*)
  | (?P<string>(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*")
  | (?P<char>(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*')
  | (?P<template>TEMPLATE)
  | (?P<name>[A-Za-z_$\u0080-\U0010ffff][A-Za-z0-9_$\u0080-\U0010ffff]*)
  | (?P<punct>""" + "|".join(re.escape(p) for p in _PUNCTUATION) + r""")
"""
_TOKEN = re.compile(_TOKEN_PATTERN.replace("TEMPLATE", r"`(?:[^`\\]|\\.)*`"), re.X | re.S)
# Go's backquoted strings are raw: a backslash escapes nothing (`\` is a string, which the
# template's escapes read on past its end, hiding the declarations after it from the guard).
_RAW_BACKQUOTES_TOKEN = re.compile(_TOKEN_PATTERN.replace("TEMPLATE", r"`[^`]*`"), re.X | re.S)
_DIRECTIVE = re.compile(r"[ \t]*#(?:[^\n\\]|\\.)*", re.S)


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # name, number, string, char, template, punct, directive (comment)
    text: str
    line: int  # 1-based, of the tests
    start: int  # offsets in the source
    end: int
    newline: bool  # a line break comes before it (JavaScript's automatic semicolons)


def tokenize(source: str, *, preprocessor: bool = False, comments: bool = False,
             raw_backquotes: bool = False) -> list[Token]:
    """The tokens of `source`; with `preprocessor`, a `#` line (C, C++) is one directive
    token; with `comments`, comments are tokens too; with `raw_backquotes`, a backquoted
    string has no escapes (Go). Raises NotPlainCalls on anything it cannot read (an
    unterminated string or comment, a stray character)."""
    pattern = _RAW_BACKQUOTES_TOKEN if raw_backquotes else _TOKEN
    tokens: list[Token] = []
    position, line, newline = 0, 1, True
    length = len(source)
    closers = Closers(source)
    while position < length:
        if preprocessor and newline and (found := _DIRECTIVE.match(source, position)):
            text = found.group().strip()
            tokens.append(Token("directive", text, line, position, found.end(), True))
            line += found.group().count("\n")
            position = found.end()
            newline = False
            continue
        found = pattern.match(source, position, position + 2 if source.startswith(
            "/*", position) and not closers.follow(position + 2, "*/") else length)
        if found is None:
            raise NotPlainCalls(f"line {line}: unreadable text")
        kind, text = found.lastgroup, found.group()
        if kind == "newline":
            newline = True
            line += 1
        elif kind == "comment" and not comments:
            newline = newline or "\n" in text
            line += text.count("\n")
        elif kind != "space":
            tokens.append(Token(kind, text, line, position, found.end(), newline))
            line += text.count("\n")
            newline = False
        position = found.end()
    return tokens


class Closers:
    """Whether a literal or comment that a fixed text closes (C's `*/`, Rust's `"#`) is closed
    after its opener in `source`. A tokenizer's pattern that tries such a literal scans to the
    end of the text where it is left open, from each opener (quadratic in a text of openers);
    asked here first, it reads an opener with none after it within the opener alone, as the
    pattern reads it once that literal fails (`/` then `*`). Openers are asked in order."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.absent: dict[str, int] = {}  # a closer, and from where none follows

    def follow(self, position: int, closer: str) -> bool:
        """Whether `closer` comes at or after `position`."""
        if position >= self.absent.get(closer, len(self.source) + 1):
            return False
        if self.source.find(closer, position) >= 0:
            return True
        self.absent[closer] = position
        return False


def closing(tokens: list[Token], index: int) -> int:
    """The index of the bracket closing the one at `index` (`(`, `[` or `{`), counting only
    those three kinds; raises NotPlainCalls if it is unbalanced."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack: list[str] = []
    for position in range(index, len(tokens)):
        text = tokens[position].text if tokens[position].kind == "punct" else ""
        if text in pairs:
            stack.append(pairs[text])
        elif text in (")", "]", "}"):
            if not stack or stack.pop() != text:
                raise NotPlainCalls(f"line {tokens[position].line}: unbalanced {text!r}")
            if not stack:
                return position
    raise NotPlainCalls("an unclosed bracket")


def bracket_pairs(tokens: list[Token]) -> dict[int, int]:
    """What `closing` says of every opening bracket, in one pass (`closing` per bracket is
    quadratic in a solution of brackets): its closing bracket's index, by the opening one's;
    one `closing` refuses (a mismatch before it closes, or none) is not there."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    found: dict[int, int] = {}
    stack: list[tuple[int, str]] = []
    for position, token in enumerate(tokens):
        text = token.text if token.kind == "punct" else ""
        if text in pairs:
            stack.append((position, pairs[text]))
        elif text in (")", "]", "}") and stack:
            opened, wanted = stack.pop()
            if wanted == text:
                found[opened] = position
            else:  # every bracket still open meets this mismatch before it closes
                stack.clear()
    return found


def within_any(spans: list[tuple[int, int]], length: int) -> list[bool]:
    """For each of `length` positions, whether it lies in one of `spans` (`[start, end)`), in
    one pass however they nest (a set per span of what it holds is quadratic in nested ones)."""
    opened = [0] * (length + 1)
    for start, end in spans:
        if start < end:
            opened[start] += 1
            opened[end] -= 1
    inside, depth = [], 0
    for change in opened[:length]:
        depth += change
        inside.append(depth > 0)
    return inside


def split_top(tokens: list[Token], separator: str, angles: bool = False) -> list[list[Token]]:
    """`tokens` split at each `separator` outside brackets (a list of comma-separated items);
    with `angles`, outside `<...>` too (C++ template arguments in a parameter list)."""
    parts: list[list[Token]] = [[]]
    depth = 0
    opening, closing_ = ("(", "[", "{", "<") if angles else ("(", "[", "{"), (
        (")", "]", "}", ">") if angles else (")", "]", "}"))
    for token in tokens:
        text = token.text if token.kind == "punct" else ""
        if text in opening:
            depth += 1
        elif text in closing_:
            depth -= 1
        if depth == 0 and text == separator:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def is_punct(token: Token | None, *texts: str) -> bool:
    return token is not None and token.kind == "punct" and token.text in texts


def source_of(source: str, tokens: list[Token]) -> str:
    """The source text the tokens span, comments within included."""
    return source[tokens[0].start:tokens[-1].end] if tokens else ""


def token_at(tokens: list[Token], position: int) -> Token | None:
    return tokens[position] if 0 <= position < len(tokens) else None


def depth_at(tokens: list[Token], index: int) -> int:
    """How many brackets are open before tokens[index]."""
    depth = 0
    for token in tokens[:index]:
        if is_punct(token, "(", "[", "{"):
            depth += 1
        elif is_punct(token, ")", "]", "}"):
            depth -= 1
    return depth


def unwrapped(tokens: list[Token]) -> list[Token]:
    """Without the parentheses around the whole of it."""
    while len(tokens) >= 2 and is_punct(tokens[0], "(") and closing(tokens, 0) == len(tokens) - 1:
        tokens = tokens[1:-1]
    return tokens


def used_declarations(lines: list[str], declared: dict[int, str]) -> list[str]:
    """A driver's lines without the declarations of the tests' literal variables
    (`declared`: a line's index, the name it declares) that no line kept after them names.
    A variable holding only an expected value (Kotlin's `var v0 : Long = 3L`, `let want =
    [1]`) is then never in the program the jail runs, where the solution could read it from
    its source or compiled class; one a call takes, directly or in another's value, stays."""
    named: set[str] = set()
    kept: list[str] = []
    for index in range(len(lines) - 1, -1, -1):
        if index in declared and declared[index] not in named:
            continue
        named |= {token.text for token in tokenize(lines[index]) if token.kind == "name"}
        kept.append(lines[index])
    return kept[::-1]
