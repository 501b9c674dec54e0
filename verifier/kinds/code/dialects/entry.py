"""Where the checks are in tests that are one entry function (Java's and C#'s `main` in a
class, Scala's in an object, Kotlin's top-level `fun main()`, Go's `func TestX(t *testing.T)`):
the function's body, and the text around it, which the driver keeps as the tests wrote it.

MultiPL-E's Java, C# and Scala tests start inside the solution's class (a `}` closing the
function the solution completes, then `main`, then the `}` closing the class); HumanEval-X's
Java tests are a class of their own. So the text before the entry may only be closing braces
and class or object headers, the text after it only closing braces: anything else there
(fields, helpers, static initialisers) makes the tests more than plain calls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from verifier.kinds.code.dialects.core import NotPlainCalls
from verifier.kinds.code.dialects.lexer import Token, closing, is_punct

# A matcher: at tokens[i], the entry function's header? The index of its `{`, or None.
Header = Callable[[list[Token], int], "int | None"]
_CONTAINER_WORDS = frozenset({"public", "final", "static", "internal", "sealed", "class",
                              "object"})


@dataclass(frozen=True)
class Entry:
    header_start: int  # offset in the tests of the entry function's first token
    body_start: int  # offset just after its `{`
    body: list[Token]  # the tokens of its body
    body_end: int  # offset of its closing `}`


def find_entry(tests: str, tokens: list[Token], header: Header) -> Entry:
    """The entry function of the tests, checking what surrounds it (see the module doc)."""
    position = 0
    while position < len(tokens):
        opening = header(tokens, position)
        if opening is not None:
            end = closing(tokens, opening)
            if any(not is_punct(t, "}", ";") for t in tokens[end + 1:]):
                raise NotPlainCalls(f"line {tokens[end].line}: code after the tests' entry")
            return Entry(tokens[position].start, tokens[opening].end,
                         tokens[opening + 1:end], tokens[end].start)
        position = _container_header(tokens, position)
    raise NotPlainCalls("no entry function the dialect knows")


def _container_header(tokens: list[Token], position: int) -> int:
    """Steps over a `}` or a class/object header up to its `{`; NotPlainCalls on anything
    else before the entry."""
    token = tokens[position]
    if is_punct(token, "}", ";"):
        return position + 1
    start = position
    while position < len(tokens) and tokens[position].kind == "name" and (
            tokens[position].text in _CONTAINER_WORDS):
        position += 1
    if (position > start and tokens[position - 1].text in ("class", "object")
            and position + 1 < len(tokens) and tokens[position].kind == "name"
            and is_punct(tokens[position + 1], "{")):
        return position + 2
    raise NotPlainCalls(f"line {token.line}: {token.text!r} before the tests' entry")


def words_at(tokens: list[Token], position: int, words: tuple[str, ...]) -> int | None:
    """Where `words` (token texts, in order) end if they start at `position`, else None."""
    for offset, word in enumerate(words):
        at = position + offset
        if at >= len(tokens) or tokens[at].text != word or tokens[at].kind in ("string", "char"):
            return None
    return position + len(words)


def statements(tokens: list[Token]) -> list[list[Token]]:
    """A body's statements, split at `;` outside brackets; an `if (...) {...}` is one."""
    found: list[list[Token]] = []
    position = 0
    while position < len(tokens):
        if is_punct(tokens[position], ";"):
            position += 1
            continue
        start = position
        if tokens[position].text == "if" and position + 1 < len(tokens) and is_punct(
                tokens[position + 1], "("):
            position = closing(tokens, position + 1) + 1
            if position < len(tokens) and is_punct(tokens[position], "{"):
                found.append(tokens[start:closing(tokens, position) + 1])
                position = closing(tokens, position) + 1
                continue
        while position < len(tokens) and not is_punct(tokens[position], ";"):
            if is_punct(tokens[position], "(", "[", "{"):
                position = closing(tokens, position)
            elif is_punct(tokens[position], ")", "]", "}"):
                raise NotPlainCalls(f"line {tokens[position].line}: an unbalanced bracket")
            position += 1
        found.append(tokens[start:position])
    return found


_ENDS_STATEMENT_WORDS = frozenset({"break", "continue", "fallthrough", "return"})


def line_statements(tokens: list[Token]) -> list[list[Token]]:
    """A body's statements where a line break ends one (Go, Kotlin, Scala): at `;`, and at a
    line break after a token that can end a statement (Go's automatic semicolons)."""
    found: list[list[Token]] = [[]]
    position = 0
    while position < len(tokens):
        token = tokens[position]
        if found[-1] and token.newline and ends_statement(found[-1][-1]):
            found.append([])
        if is_punct(token, ";"):
            found.append([])
            position += 1
            continue
        if is_punct(token, "(", "[", "{"):
            end = closing(tokens, position)
            found[-1] += tokens[position:end + 1]
            position = end + 1
            continue
        found[-1].append(token)
        position += 1
    return [statement for statement in found if statement]


def ends_statement(token: Token) -> bool:
    """Whether a line break after `token` ends its statement (Go's automatic semicolons)."""
    return (token.kind in ("name", "number", "string", "char", "template")
            and token.text not in ("else",)) and (
        token.kind != "name" or token.text not in ("func", "if", "for", "switch", "select",
                                                    "go", "defer", "var", "const", "type",
                                                    "import", "package", "struct", "map",
                                                    "chan", "interface", "case", "default",
                                                    "range")
        or token.text in _ENDS_STATEMENT_WORDS) or is_punct(token, ")", "]", "}", "++", "--")
