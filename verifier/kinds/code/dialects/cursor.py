"""A position in a list of tokens, for the recursive-descent literal parsers of the dialects
that read their tests as tokens (Rust, D, Haskell, OCaml): look ahead, step, expect, and a
depth bound, every failure a NotPlainCalls."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from verifier.kinds.code.dialects.cfamily import _statement_end as semicolon
from verifier.kinds.code.dialects.core import MAX_NESTING, NotPlainCalls
from verifier.kinds.code.dialects.lexer import Token, closing, is_punct, token_at, unwrapped
from verifier.kinds.code.dialects.lexer import depth_at as depth


class Cursor:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.position = 0

    def peek(self, offset: int = 0) -> Token | None:
        at = self.position + offset
        return self.tokens[at] if 0 <= at < len(self.tokens) else None

    def next(self) -> Token:
        token = self.peek()
        if token is None:
            raise NotPlainCalls("an expression ends early")
        self.position += 1
        return token

    def at(self, *texts: str) -> bool:
        """Whether the next token is one of these punctuation marks or words."""
        token = self.peek()
        return token is not None and token.kind in ("punct", "name") and token.text in texts

    def take(self, *texts: str) -> bool:
        """Steps over the next token if it is one of `texts`."""
        if self.at(*texts):
            self.position += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.take(text):
            token = self.peek()
            where = f"line {token.line}: " if token is not None else ""
            raise NotPlainCalls(f"{where}expected {text!r}")

    def items(self, closer: str, separator: str, read: Callable[[], Any]
              ) -> tuple[list[Any], bool]:
        """What `read` reads up to `closer`, separated by `separator` (one may follow the last),
        and whether there was a separator."""
        found: list[Any] = []
        separated = False
        while not self.take(closer):
            found.append(read())
            if self.take(separator):
                separated = True
            elif not self.at(closer):
                raise NotPlainCalls(f"expected {closer!r}")
        return found, separated

    def done(self) -> bool:
        return self.position >= len(self.tokens)

    def end(self) -> None:
        """Fails unless every token was read."""
        if not self.done():
            raise NotPlainCalls(f"line {self.tokens[self.position].line}: not a literal")


def bounded(depth: int) -> int:
    """The next depth, or NotPlainCalls past MAX_NESTING."""
    if depth >= MAX_NESTING:
        raise NotPlainCalls("a literal nested too deep")
    return depth + 1


def negated(found: Any) -> int | float:
    """A literal after a minus: a number, negated."""
    if type(found) not in (int, float):
        raise NotPlainCalls("a minus before something else than a number")
    return -found


def applied(tokens: list[Token], aliases: set[str],
            argument: Callable[[list[Token]], None]) -> None:
    """The arguments of an ML-style application `f ARG ...` (Haskell, OCaml) after its head,
    each a bracketed group or one token, checked by `argument`; none may name the tests'
    aliases of functions."""
    position = 1
    while position < len(tokens):
        token = tokens[position]
        end = closing(tokens, position) if is_punct(token, "(", "[") else position
        group = tokens[position:end + 1]
        if any(is_name(t, *aliases) for t in group):
            raise NotPlainCalls(f"line {token.line}: an argument that is not a literal")
        argument(group)
        position = end + 1


def statements(tokens: list[Token]) -> Iterator[list[Token]]:
    """The statements of a block: each up to its `;` (not included), a `{ ... }` block whole
    (braces included); empty ones skipped."""
    position = 0
    while position < len(tokens):
        if is_punct(tokens[position], ";"):
            position += 1
            continue
        end = closing(tokens, position) + 1 if is_punct(tokens[position], "{") else semicolon(
            tokens, position)
        yield tokens[position:end]
        position = end if is_punct(tokens[position], "{") else end + 1


def is_name(token: Token | None, *texts: str) -> bool:
    return token is not None and token.kind == "name" and (not texts or token.text in texts)


# The C-family dialects' statement helpers, shared: `token_at` (None past either end), `depth`
# (brackets open before an index), `semicolon` (the `;` ending a statement), `unwrapped`
# (without parentheses around the whole).
__all__ = ["Cursor", "applied", "bounded", "depth", "is_name", "is_punct", "negated", "semicolon",
           "statements", "token_at", "unwrapped"]
