"""A whole solution against tests written to follow a prompt's completion.

MultiPL-E's prompt is a function's header, left open (in Java, C# and Scala inside a class left
open too); the model completes its body, and the tests begin by closing what the prompt opened
(`}` in C++, Rust and bash; `    }` then a `main` inside the class, then its `}`, in Java, C#
and Scala). A model asked for the whole function answers with it closed: the tests' leading
`}` then closes nothing (C++, Rust: a compile error; bash: a syntax error), and the tests'
`main` lands outside the class that holds the function (Java, C#, Scala). MultiPL-E's
harness, given such an answer, fails it; it is right all the same.

So where the solution ends with fewer scopes open than the tests close, it is fitted to them:
what it closed last is reopened (its final `}`s taken out: its last function, and in Java, C#
and Scala the class that holds it, where the tests' `main` belongs; HumanEval-X's Java tests
close only the class), for the tests to close again; where it does not end so (a bash script
ending in `fi`, a C++ `struct`'s `};`), an empty function of the verifier's is opened for the
tests' leading `}` to close. Nothing of the solution's code changes meaning, and nothing of
the tests' or the driver's changes at all. Where it cannot be read (its code read as its
compiler would, compiled_reading), it is left as it is (the compiler says why).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from verifier.kinds.code.dialects import rust
from verifier.kinds.code.dialects.compiled_reading import csharp_code, java_code, scala_code
from verifier.kinds.code.dialects.core import NotPlainCalls
from verifier.kinds.code.dialects.lexer import Token, is_punct
from verifier.kinds.code.dialects.lexer import tokenize as c_tokenize

# What the tests' leading `}` may close where the solution does not end with the `}`s they
# expect: an empty function, where the solution left off (at top level, or in a class).
# (The languages whose MultiPL-E tests start so; its Go, Kotlin and D prompts end where the
# completion closes the function itself.)
_OPENINGS = {
    "cpp": "static void __verifier_prompt() {",
    "rust": "#[allow(dead_code)]\nfn __verifier_prompt() {", "java": "void __verifierPrompt() {",
    "csharp": "void __VerifierPrompt() {",
    "scala": "def __verifierPrompt(): Unit = {", "bash": "__verifier_prompt() { :"}


_IN_CLASS = frozenset({"java", "csharp", "scala"})


def _c_family(source: str) -> list[Token]:
    return c_tokenize(source, preprocessor=True)


def _read(reading: Callable[[str], str | None]) -> Callable[[str], list[Token]]:
    """Tokens of the code as the compiler reads it (its strings and comments out)."""
    def tokens(source: str) -> list[Token]:
        code = reading(source)
        if code is None:
            raise NotPlainCalls("a reading that is unsure")
        return c_tokenize(code)
    return tokens


_CODE: dict[str, Callable[[str], list[Token]]] = {
    "cpp": _c_family, "rust": rust.tokenize, "java": _read(java_code),
    "csharp": _read(csharp_code), "scala": _read(scala_code)}
# Bash's scopes, read by lines: a function's header opens one, a line of `}` alone closes one.
_BASH_OPENS = re.compile(r"^[ \t]*(?:function[ \t]+)?[A-Za-z_][\w-]*[ \t]*(?:\(\)[ \t]*)?\{[ \t]*$")
_BASH_CLOSES = re.compile(r"^[ \t]*\}[ \t]*$")


def fitted(language: str, solution: str, tests: str) -> str:
    """The solution fitted to tests that close the prompt's scopes (see the module doc)."""
    opening = _OPENINGS.get(language)
    if opening is None:
        return solution
    try:
        closes, expected = _tests_closes(language, tests)
        depth = open_scopes(language, solution)
    except NotPlainCalls:
        return solution
    if closes == 0 or depth >= expected:
        return solution
    cut = _trailing_closes(language, solution, expected - depth)
    if cut is not None:
        return solution[:cut]
    inside = expected - closes  # how deep the tests' own code sits: in a class, or at top
    if expected - depth == 1 and depth == inside and (inside > 0) == (language in _IN_CLASS):
        return f"{solution}\n{opening}\n"
    return solution


def _tests_closes(language: str, tests: str) -> tuple[int, int]:
    """How many `}` the tests start with, and how many scopes they close in all (the depth
    they expect to start at)."""
    if language == "bash":
        lines = [line for line in tests.split("\n") if line.strip()]
        closes = int(bool(lines) and bool(_BASH_CLOSES.fullmatch(lines[0])))
        return closes, _bash_depth_needed(lines)
    tokens = _c_family(tests) if language == "cpp" else (
        rust.tokenize(tests) if language == "rust" else c_tokenize(tests))
    closes = 0
    while closes < len(tokens) and is_punct(tokens[closes], "}"):
        closes += 1
    depth = lowest = 0
    for token in tokens:
        depth += is_punct(token, "{") - is_punct(token, "}")
        lowest = min(lowest, depth)
    return closes, -lowest


def _bash_depth_needed(lines: list[str]) -> int:
    depth = lowest = 0
    for line in lines:
        depth += bool(_BASH_OPENS.fullmatch(line)) - bool(_BASH_CLOSES.fullmatch(line))
        lowest = min(lowest, depth)
    return -lowest


def open_scopes(language: str, solution: str) -> int:
    """How many scopes the solution leaves open at its end."""
    if language == "bash":
        lines = solution.split("\n")
        return sum(bool(_BASH_OPENS.fullmatch(line)) - bool(_BASH_CLOSES.fullmatch(line))
                   for line in lines)
    tokens = _CODE[language](solution)
    return sum(is_punct(token, "{") - is_punct(token, "}") for token in tokens)


def _trailing_closes(language: str, solution: str, count: int) -> int | None:
    """Where the last `count` tokens of the solution start, if they are all `}` (comments
    may follow them); None otherwise. Bash's: its last lines, each a `}` alone."""
    if language == "bash":
        lines = solution.rstrip().split("\n")
        if len(lines) < count or not all(_BASH_CLOSES.fullmatch(line) for line in lines[-count:]):
            return None
        return len("\n".join(lines[:-count]))
    try:
        tokens = rust.tokenize(solution) if language == "rust" else c_tokenize(
            solution, preprocessor=language == "cpp")
    except NotPlainCalls:
        return None
    last = tokens[-count:]
    if len(last) < count or not all(is_punct(token, "}") for token in last):
        return None
    return last[0].start
