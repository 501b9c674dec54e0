"""The in-process programs' checks: the tests' own assertions (`assert(...)`,
`Debug.Assert(...)`, `throw new AssertionError()`) rewritten as calls of the verifier's check,
a class or object of the verifier's whose name is drawn per program, so nothing the solution
declares (a `def assert`, a `class Debug`) is what the tests call, and a failure ends the
process at once whatever handlers the solution installed."""

from __future__ import annotations

from verifier.kinds.code.dialects.entry import words_at
from verifier.kinds.code.dialects.lexer import Token, closing, is_punct, tokenize
from verifier.kinds.code.dialects.tokens import at

# A call is not one of the tests' checks where it follows these: a definition of the name.
_DEFINING = frozenset({"def", "fun", "void", "static", "bool", "Unit"})


def checks_rewritten(tests: str, heads: tuple[tuple[str, ...], ...], check: str,
                     thrown: frozenset[str] = frozenset()) -> str:
    """The tests with each call of a `heads` path (`("Debug", ".", "Assert")`) a call of
    `check` taking the line first (`check(LINE, ...)`), and each `throw [new] X(...)` of a
    `thrown` X its failure (`throw FAIL(LINE)`, FAIL being `check` with `fail` for its last
    name); NotPlainCalls if the tests cannot be read."""
    tokens = tokenize(tests)
    failure = check.rsplit(".", 1)[0] + ".fail"
    out: list[str] = []
    last = 0
    index = 0
    while index < len(tokens):
        token = tokens[index]
        end = _head(tokens, index, heads)
        if end is not None:
            out += [tests[last:token.start], f"{check}({token.line}, "]
            last = tokens[end].end
            index = end + 1
            continue
        if token.text == "throw" and thrown:
            name = index + (2 if (at(tokens, index + 1) or token).text == "new" else 1)
            if at(tokens, name) is not None and tokens[name].text in thrown and is_punct(
                    at(tokens, name + 1), "("):
                out += [tests[last:tokens[index + 1].start], f"{failure}({token.line})"]
                last = tokens[closing(tokens, name + 1)].end
                index = name + 1
                continue
        index += 1
    out.append(tests[last:])
    return "".join(out)


def _head(tokens: list[Token], index: int, heads: tuple[tuple[str, ...], ...]) -> int | None:
    """Where a check's `(` is if one of `heads` starts a call at `index`, else None."""
    previous = at(tokens, index - 1)
    if previous is not None and (is_punct(previous, ".") or previous.text in _DEFINING):
        return None
    for path in heads:
        end = words_at(tokens, index, path)
        if end is not None and is_punct(at(tokens, end), "("):
            return end
    return None
