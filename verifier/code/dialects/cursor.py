"""A position in a list of tokens, for the recursive-descent literal parsers of the dialects
that read their tests as tokens (Rust, D, Haskell, OCaml): look ahead, step, expect, and a
depth bound, every failure a NotPlainCalls."""

from __future__ import annotations

from verifier.code.dialects.cfamily import _at as token_at
from verifier.code.dialects.cfamily import _depth as depth
from verifier.code.dialects.cfamily import _statement_end as semicolon
from verifier.code.dialects.cfamily import _unwrapped as unwrapped
from verifier.code.dialects.core import MAX_NESTING, NotPlainCalls
from verifier.code.dialects.lexer import Token, is_punct


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


def is_name(token: Token | None, *texts: str) -> bool:
    return token is not None and token.kind == "name" and (not texts or token.text in texts)


# The C-family dialects' statement helpers, shared: `token_at` (None past either end), `depth`
# (brackets open before an index), `semicolon` (the `;` ending a statement), `unwrapped`
# (without parentheses around the whole).
__all__ = ["Cursor", "bounded", "depth", "is_name", "is_punct", "semicolon", "token_at",
           "unwrapped"]
