"""What the script languages' dialects share (Lua, PHP, Perl, Ruby, R, bash): a lexer built from
a language's token patterns, a reader over tokens for their literal parsers, and the plan every
one of them builds: each check a call copied verbatim and a value the driver records.

Their tests (MultiPL-E's) are a frame (a `require`, a test function and its invocation, an
alias of the solution's function: `local candidate = f`, `my $candidate = \\&f;`) around
checks of one call each; a dialect recognises the frame by its exact statements, the checks by
their shapes, and refuses everything else (NotPlainCalls). Every token pattern here is
anchored and non-recursive; a text the lexer cannot read is not plain calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    Dialect,
    NotPlainCalls,
    Site,
    sites_within_bounds,
)
from verifier.kinds.code.dialects.cursor import Cursor, bounded
from verifier.kinds.code.dialects.lexer import Token, is_punct, source_of, unwrapped
from verifier.kinds.code.dialects.scanner import Closed, scan

_DROPPED = frozenset({"space", "newline", "comment"})


class ScriptDialect(Dialect):
    """A script language's dialect: `judge` compares as the language does; `holds` says no,
    never raises, for a value of a shape the comparison does not expect (a solution may write
    records of any shape on the channel itself)."""

    def holds(self, check: Check, value: Any) -> bool:
        try:
            return self.judge(check, value)
        except (TypeError, ValueError, KeyError, IndexError, ArithmeticError, RecursionError):
            return False

    def judge(self, check: Check, value: Any) -> bool:
        raise NotImplementedError


def lexer(patterns: list[tuple[str, str]], space: str = r"[ \t\r\f\v]+",
          closed: Closed | None = None, unclosed: list[tuple[str, str]] | None = None
          ) -> Callable[[str], list[Token]]:
    """A tokenizer for one language (scanner.py's): after `space` and newlines, `patterns`
    are (kind, regex), the first that matches wins; spaces, newlines and "comment" tokens are
    dropped. `closed` finds the literals a fixed text closes, `unclosed` is `patterns` without
    them (scanner.scan reads an opener no closer follows by it, in linear time)."""
    def combined(kinds: list[tuple[str, str]]) -> re.Pattern[str]:
        rules = [("space", space), ("newline", r"\n"), *kinds]
        return re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in rules),
                          re.S | re.X)
    pattern, without = combined(patterns), combined(unclosed) if unclosed else None
    return lambda source: scan(source, pattern, {}, closed, unclosed=without)


class Reader(Cursor):
    """A cursor for a literal parser: `value` (a subclass's) reads one literal."""

    def __init__(self, tokens: list[Token]) -> None:
        super().__init__(tokens)
        self.depth = 0

    def at_next(self, text: str) -> bool:
        """Whether the token after the next one is the punctuation mark `text`."""
        return is_punct(self.peek(1), text)

    def separator(self, *texts: str) -> None:
        if not self.take(*texts):
            raise NotPlainCalls(f"expected {texts[0]!r}")

    def nested(self) -> None:
        self.depth = bounded(self.depth)

    def value(self) -> Any:
        raise NotImplementedError

    def whole(self) -> Any:
        """The one literal the tokens are, nothing after it."""
        found = self.value()
        self.end()
        return found


def literal(reader: type[Reader], tokens: list[Token]) -> Any:
    """The value of `tokens`, a literal of the reader's language, or NotPlainCalls."""
    if not tokens:
        raise NotPlainCalls("an empty literal")
    return reader(tokens).whole()


def split_lines(tokens: list[Token], separators: tuple[str, ...] = (";",)) -> list[list[Token]]:
    """Statements: tokens split where a new line starts outside brackets, and at
    `separators` (empty statements dropped)."""
    statements: list[list[Token]] = [[]]
    depth = 0
    for token in tokens:
        punct = token.kind == "punct"
        if token.newline and depth == 0 and statements[-1]:
            statements.append([])
        if punct and token.text in ("(", "[", "{"):
            depth += 1
        elif punct and token.text in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                raise NotPlainCalls(f"line {token.line}: unbalanced {token.text!r}")
        if punct and depth == 0 and token.text in separators:
            statements.append([])
            continue
        statements[-1].append(token)
    if depth:
        raise NotPlainCalls("an unclosed bracket")
    return [statement for statement in statements if statement]


def texts(tokens: list[Token]) -> list[str]:
    return [token.text for token in tokens]


def utf8(text: str) -> bytes:
    """The bytes a source's text stands for (lone surrogates kept, as a file would)."""
    return text.encode("utf-8", "surrogatepass")


def top_level(tokens: list[Token], *operators: str) -> list[int]:
    """Where `operators` stand outside any bracket."""
    found, depth = [], 0
    for index, token in enumerate(tokens):
        if is_punct(token, "(", "[", "{"):
            depth += 1
        elif is_punct(token, ")", "]", "}"):
            depth -= 1
        elif depth == 0 and is_punct(token, *operators):
            found.append(index)
    return found


# A statement the driver runs: its source, or a call to record (its tokens and its site).
Step = str | tuple[list[Token], int]


class Frame:
    """The order the tests would run their checks in, and the sites: test functions are kept
    (`define`) and their checks placed where they run (`run`); a dialect's `record` is the
    driver's statement for one call, with {site} and {call}."""

    record: str
    reader: type[Reader]
    closing: tuple[str, ...] = ()  # the driver's lines after the calls

    def __init__(self, tests: str) -> None:
        self.tests = tests
        self.opening: list[str] = []  # the driver's lines before the calls
        self.sites: list[Site] = []
        self.functions: dict[str, list[Step]] = {}
        self.order: list[Step] = []
        self.taken: set[str] = set()  # the tests' own names: never the solution's function

    def read(self) -> None:
        """Reads the tests (a subclass's): the sites, the order, the driver's openings."""
        raise NotImplementedError

    def plan(self, head: str) -> CallsPlan:
        """The tests as calls, the driver `head` (its serialiser) first."""
        self.read()
        lines = [head, *self.opening, *self.emitted(), *self.closing, ""]
        return CallsPlan(sites_within_bounds(self.sites), "\n".join(lines))

    def define(self, name: str, body: list[Step]) -> None:
        if name in self.taken:
            raise NotPlainCalls(f"{name!r} defined twice")
        self.taken.add(name)
        self.functions[name] = body

    def run(self, name: str) -> None:
        self.order += self.functions[name]

    def site(self, call: list[Token], line: int, check: Check, into: list[Step]) -> None:
        into.append((call, len(self.sites)))
        self.sites.append(Site(line, source_of(self.tests, call), check))

    def either(self, first: list[Token], second: list[Token], line: int
               ) -> tuple[list[Token], Any]:
        """One side a call, the other a literal, in either order."""
        for call, expected in ((first, second), (second, first)):
            try:
                value = literal(self.reader, unwrapped(expected))
            except NotPlainCalls:
                continue
            return self.call(unwrapped(call), line), value
        raise NotPlainCalls(f"line {line}: no literal to compare with")

    def call(self, tokens: list[Token], line: int) -> list[Token]:
        """The tokens of a call of the solution's function, checked; else NotPlainCalls."""
        raise NotImplementedError

    def emitted(self) -> list[str]:
        """The driver's statements: each check once, in the order of the sites."""
        if not self.sites:
            raise NotPlainCalls("no checks")
        lines, seen = [], 0
        for step in self.order:
            if isinstance(step, str):
                lines.append(step)
                continue
            call, site = step
            if site != seen:
                raise NotPlainCalls("checks run out of order or more than once")
            seen += 1
            lines.append(self.recorded(site, call))
        if seen != len(self.sites):
            raise NotPlainCalls("checks the tests never run")
        return lines

    def recorded(self, site: int, call: list[Token]) -> str:
        """The driver's statement that makes a call and records its value."""
        return self.record.format(site=site, call=source_of(self.tests, call))
