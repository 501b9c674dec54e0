"""Questions the typed dialects (Java, Kotlin, Scala, C#, Go) ask of a list of tokens: the
token at a position, where an operator stands outside any bracket, whether a position is
inside brackets. Each answer is one pass over the list."""

from __future__ import annotations

from verifier.kinds.code.dialects.lexer import Token, is_punct


def at(tokens: list[Token] | tuple[Token, ...], position: int) -> Token | None:
    """The token at `position`, or None past either end."""
    return tokens[position] if 0 <= position < len(tokens) else None


def top_level(tokens: list[Token] | tuple[Token, ...], *texts: str,
              ternary: bool = False) -> list[int]:
    """Where the tokens `texts` (operators, or words like Kotlin's `to`) stand outside any
    bracket; with `ternary`, a `?` opens a level its `:` closes (Java's `a ? b : c`, whose
    `:` is not an assert's)."""
    found: list[int] = []
    depth = questions = 0
    for index, token in enumerate(tokens):
        if is_punct(token, "(", "[", "{"):
            depth += 1
        elif is_punct(token, ")", "]", "}"):
            depth -= 1
        elif depth or token.kind not in ("punct", "name"):
            continue
        elif ternary and is_punct(token, "?"):
            questions += 1
        elif ternary and questions and is_punct(token, ":"):
            questions -= 1
        elif token.text in texts:
            found.append(index)
    return found


def depths(tokens: list[Token] | tuple[Token, ...]) -> list[int]:
    """For each position, how many brackets opened in the list before it are still open
    (one pass for every position: a walk from the start for each is quadratic)."""
    found, depth = [], 0
    for token in tokens:
        found.append(depth)
        if is_punct(token, "(", "[", "{"):
            depth += 1
        elif is_punct(token, ")", "]", "}"):
            depth -= 1
    return found
