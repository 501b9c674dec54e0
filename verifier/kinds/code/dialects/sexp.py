"""Racket's test code as data: tokens and nested lists with their offsets, for the Racket
calls dialect (the worker never evaluates it).

Reads what rackunit tests are written with: lists in `()`, `[]`, `{}`, quote forms (`'`, `` ` ``,
`,`, `,@`), `#(` vectors, `#hash(` tables, strings, chars (`#\\a`, `#\\space`), booleans, numbers
and symbols; drops `;` and nested `#| |#` comments and `#;` datum comments. Anything else
(`#lang`, `#rx`, here strings, reader extensions) is not read: NotPlainCalls. One pass over the
tokens with an explicit stack, so input decides no recursion depth here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from verifier.kinds.code.dialects.core import MAX_NESTING, NotPlainCalls
from verifier.kinds.code.dialects.scanner import scan

_DELIMITER = r"""(?=[\s()\[\]{}",'`;]|$)"""
_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f\v]+)
  | (?P<newline>\n)
  | (?P<comment>;[^\n]*)
  | (?P<opener>\#\|)
  | (?P<open>\#hash(?:eqv?)?\(|\#\(|[(\[{])
  | (?P<close>[)\]}])
  | (?P<quote>'|`|,@|,|\#;)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<char>\#\\(?:[a-z]{2,}|x[0-9a-fA-F]+|u[0-9a-fA-F]{1,6}|.)""" + _DELIMITER + r""")
  | (?P<boolean>\#(?:true|false|t|f)""" + _DELIMITER + r""")
  | (?P<atom>[^\s()\[\]{}",'`;\#|\\][^\s()\[\]{}",'`;|\\]*)
""", re.X | re.S)
_CLOSERS = {"(": ")", "[": "]", "{": "}"}


@dataclass
class Node:
    """A datum: an atom (`kind` string, char, boolean, atom; `text` its source) or a list
    (`kind` "list", "vector" or "hash", its `items`), a quoted datum `kind` "quote" with one
    item; `start` and `end` are its offsets in the source, `line` its line."""

    kind: str
    text: str
    start: int
    end: int
    line: int
    items: list[Node] = field(default_factory=list)

    def head(self) -> str | None:
        """The symbol a list starts with, if it does."""
        if self.kind == "list" and self.items and self.items[0].kind == "atom":
            return self.items[0].text
        return None


def read(source: str) -> list[Node]:
    """The top-level data of `source`."""
    tokens = scan(source, _TOKEN, {"#|": "|#"})
    top: list[Node] = []
    stack: list[Node] = []
    pending: list[tuple[int, Node | None]] = []  # quote marks waiting for their datum
    for token in tokens:
        if token.kind == "open":
            if len(stack) >= MAX_NESTING:
                raise NotPlainCalls("data nested too deep")
            kind = "hash" if token.text.startswith("#hash") else (
                "vector" if token.text == "#(" else "list")
            if token.text.startswith("#hash") and token.text != "#hash(":
                raise NotPlainCalls(f"line {token.line}: a hash of another equality")
            stack.append(Node(kind, token.text[-1], token.start, token.end, token.line))
            pending.append((len(stack), None))
            continue
        if token.kind == "quote":
            pending.append((len(stack), Node("quote" if token.text != "#;" else "skip",
                                             token.text, token.start, token.end, token.line)))
            continue
        if token.kind == "close":
            if not stack or _CLOSERS.get(stack[-1].text, ")") != token.text:
                raise NotPlainCalls(f"line {token.line}: unbalanced {token.text!r}")
            while pending and pending[-1][0] == len(stack) and pending[-1][1] is not None:
                raise NotPlainCalls(f"line {token.line}: a quote before a closing bracket")
            pending.pop()
            node = stack.pop()
            node.end = token.end
            datum: Node | None = node
        else:
            datum = Node(token.kind, token.text, token.start, token.end, token.line)
        while datum is not None and pending and pending[-1][1] is not None and \
                pending[-1][0] == len(stack):
            mark = pending.pop()[1]
            if mark.kind == "skip":
                datum = None
                break
            datum = Node("quote", mark.text, mark.start, datum.end, mark.line, [datum])
        if datum is not None:
            (stack[-1].items if stack else top).append(datum)
    if stack or pending:
        raise NotPlainCalls("an unclosed list")
    return top
