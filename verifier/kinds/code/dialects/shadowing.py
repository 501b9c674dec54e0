"""In-process tests against a solution that declares a library name they call by its simple
name: a `class Math` (Java, C#), an `object List` or `def Some` (Scala, in the object that
holds the tests), a top-level `fun listOf` or `val Math` (Kotlin), an enum constant `Math`
imported statically. Java, Kotlin, Scala and C# all take the solution's declaration over the
library's (a type of the compilation unit before an on-demand or default import, a member of
the enclosing class before anything imported, an explicit import before a default one), so
the tests would call what the solution wrote and it would judge itself. No rewrite of the
tests reaches every library name robustly in all four (Kotlin has no `_root_`, and a
declaration named `kotlin` or `java` obscures a qualified name), so such a program is not
run: one that says why and exits 1 runs instead (`runtime_error`), whatever the tests.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from verifier.kinds.code.dialects.core import NotPlainCalls, renamed_driver
from verifier.kinds.code.dialects.lexer import Token, is_punct, tokenize

# Tokens before `TYPE NAME =` that make it no declaration (`return Math;`, `import x.List;`).
_NOT_TYPES = frozenset({"throws", "instanceof", "new", "return", "case", "extends", "implements",
                        "super", "throw", "yield", "else", "import", "package", "using", "in",
                        "is", "as", "out", "ref", "await", "goto", "typeof", "nameof"})
# What a Kotlin receiver type or type parameter list between `fun` and the name holds.
_RECEIVER = frozenset({".", "<", ">", ",", "?", "(", ")", "->", "*", ":", "@"})
_IMPORTED = frozenset({".", ",", "{", "=>", "as"})
_PROPERTY = frozenset({".", ",", "?", "*"})  # what a Kotlin property's receiver type holds
_PATTERN = frozenset({"(", ")", ",", ":", ".", "@", "[", "]"})  # what a Scala val's pattern holds


@dataclass(frozen=True)
class Declaring:
    """A language's library names its tests may call by simple name (or, extensions, as
    methods), and how its code declares a name: after a keyword (each with the tokens that may
    follow the name, None for any), as a typed field or variable (`TYPE NAME` then one of
    `typed`), as the alias of an import (`import a.B as NAME`: `alias`), as an extension
    (Kotlin's `fun <T> R.NAME(` or `val R.NAME`: `receiver` "fun"; C#'s `NAME(this R r)`:
    "this"), in a pattern (`patterns`) or as an enum constant. `refused` is the program run
    instead, NAMES in its message."""

    library: frozenset[str]
    keywords: Mapping[str, frozenset[str] | None]
    refused: str
    reading: Callable[[str], str | None]  # the code as the compiler reads it (compiled_reading)
    typed: frozenset[str] = frozenset()
    alias: str | None = None
    receiver: str | None = None
    patterns: bool = False  # `val (math, x) = ...` binds its lowercase names (Scala)


def refusal(declaring: Declaring, solution: str, tests: str) -> str | None:
    """The program run instead of solution and tests where the solution declares a library
    name the tests use (NotPlainCalls from the lexer if either cannot be read), else None.
    A plain declaration counts where the tests name it alone (`Math.abs` uses `Math`, not
    `abs`), an extension wherever they call it (`xs.sorted()`)."""
    tests_tokens = tokenize(tests)
    named = {_name(t) for i, t in enumerate(tests_tokens)
             if not (i and is_punct(tests_tokens[i - 1], ".", "?."))}
    code = _as_compiled(declaring, solution)
    if code is not None:
        plain, extensions = declared(declaring, code)
    else:
        try:
            plain, extensions = declared(declaring, tokenize(solution))
        except NotPlainCalls:
            plain, extensions = set(), set()
        plain |= declared(_keywords_only(declaring), tokenize(_bare(solution)), enums=False)[0]
    shadowed = sorted(plain & named | extensions & {_name(t) for t in tests_tokens})
    if not shadowed:
        return None
    return declaring.refused.replace("NAMES", ", ".join(shadowed))


def driven(declaring: Declaring, solution: str, placed: str, driver: str,
           recorder: tuple[str, str]) -> str:
    """The calls program: `placed` (the solution as the program holds it) and `driver`, whose
    recorder (`recorder`: its class's name, its source) sits at the driver's end. The class is
    renamed to a name drawn per program: the driver's calls sit in the solution's class (Java's
    and Scala's `main`), where a nested class of that name of the solution's would take them.
    The program that says why runs instead (see Declaring) where the solution declares a name
    the recorder's qualified names start with (`class java`, `object kotlin`, `object scala`:
    the compilers take a type or value before a package, so `java.lang.StringBuilder` would be
    the solution's)."""
    name, source = recorder
    refused = refusal(declaring, solution,
                      " ".join(sorted(_qualified_roots(source) & declaring.library)))
    return refused or renamed_driver(placed, driver, name)


@functools.cache
def _qualified_roots(source: str) -> frozenset[str]:
    """The first names of `source`'s qualified names (`java` of `java.lang.StringBuilder`):
    a recorder's source is one of a few constants, read once."""
    tokens = tokenize(source)
    return frozenset(token.text for index, token in enumerate(tokens[:-1]) if is_punct(
        tokens[index + 1], ".") and not (index and is_punct(tokens[index - 1], ".")))


def declared(declaring: Declaring, tokens: list[Token], enums: bool = True
             ) -> tuple[set[str], set[str]]:
    """The library names `tokens` declare (see Declaring): plainly, and as extensions."""
    plain = _enum_constants(tokens) & declaring.library if enums else set()
    extensions: set[str] = set()
    imported = _chains(tokens, _IMPORTED, "import")
    received = _chains(tokens, _RECEIVER, "fun")
    properties = _declaring(tokens, _PROPERTY, angles=True)
    bound = _declaring(tokens, _PATTERN, angles=False)
    runs = _runs(tokens)
    for index, token in enumerate(tokens):
        name = _name(token)
        if name not in declaring.library or index == 0:
            continue
        before = index - 1
        if is_punct(tokens[before], "@") and before > 0:  # C#'s verbatim `@Math`
            before -= 1
        after = tokens[index + 1] if index + 1 < len(tokens) else None
        if _declares(declaring, tokens[before], after) or (
                tokens[before].text == declaring.alias and before and imported[before - 1]) or (
                declaring.patterns and name[:1].islower() and is_punct(tokens[before], "(", ",")
                and bound[before]):
            plain.add(name)
        elif (declaring.receiver == "fun" and (
                is_punct(after, "(") and is_punct(tokens[before], ".", ">") and received[before]
                or is_punct(tokens[before], ".") and properties[before])
              or declaring.receiver == "this" and _takes_this(tokens, index + 1, runs)):
            extensions.add(name)
    return plain, extensions


def _keywords_only(declaring: Declaring) -> Declaring:
    """`declaring` with only its keywords and typed fields, less what prose writes around a
    type name (`type List`, `the List, then`): what _bare's text is read with."""
    return Declaring(declaring.library, {keyword: follows for keyword, follows
                                         in declaring.keywords.items() if keyword != "type"},
                     declaring.refused, declaring.reading, typed=declaring.typed - {","})


_ESCAPE = re.compile(r"\\u+([0-9a-fA-F]{4})")
_NOT_CODE = re.compile(r"[^\w \t\n\r\f\v$.<>(){}\[\],;:=?@*]")


def _as_compiled(declaring: Declaring, solution: str) -> list[Token] | None:
    """The tokens of the solution's code as its compiler reads it, its strings and comments
    taken out; None where that reading is unsure."""
    code = declaring.reading(solution)
    if code is None:
        return None
    try:
        return tokenize(code)
    except NotPlainCalls:
        return None


def _bare(solution: str) -> str:
    """The solution with its unicode escapes decoded (Java, Scala and C# read them in names)
    and every quote, comment mark, backslash and character the lexer cannot read (a control
    character a comment may hold, `\\x1c`) a space: read so, whatever a string or a
    comment may hide is code, and so is a solution the lexer cannot read at all. Only where
    its compiler's reading is unsure (compiled_reading: Scala's XML, C#'s `#if`): otherwise a
    comment or a string that says `class Math` would be taken for a declaration."""
    return _NOT_CODE.sub(" ", _ESCAPE.sub(lambda found: chr(int(found.group(1), 16)), solution))


def _declares(declaring: Declaring, before: Token, after: Token | None) -> bool:
    """Whether a name between `before` and `after` is declared by a keyword (`class NAME`,
    `val NAME =`) or as a typed field or variable (`Fake NAME =`, `List<X> NAME;`)."""
    previous = _name(before) if before.kind == "name" else None
    follows = declaring.keywords.get(previous, ()) if previous else ()
    if follows is None or after is not None and after.text in (follows or ()):
        return True
    if after is None or after.text not in declaring.typed:
        return False
    if is_punct(before, ","):  # `Fake a = null, Math = ...;`, not `Triplet<Long, String, X>`
        return after.text in ("=", ";")
    return previous is not None and previous not in _NOT_TYPES or is_punct(before, ">", "]", "?")


def _name(token: Token) -> str:
    """A name's text; a backquoted one (Kotlin's and Scala's `` `Math` ``) without its quotes."""
    if token.kind == "template" and token.text[1:-1].isidentifier():
        return token.text[1:-1]
    return token.text


def _chains(tokens: list[Token], over: frozenset[str], start: str) -> list[bool]:
    """For each position, whether going back from it over names and `over` (a `{` only as
    Scala's import selectors open, after a `.`), `start` comes first: one pass, however long
    the chains."""
    found: list[bool] = []
    for position, token in enumerate(tokens):
        if token.kind == "name" and token.text == start:
            found.append(True)
        elif (token.kind == "name" or token.text in over) and not (
                is_punct(token, "{") and not (position and is_punct(tokens[position - 1], "."))):
            found.append(bool(found) and found[-1])
        else:
            found.append(False)
    return found


def _declaring(tokens: list[Token], over: frozenset[str], angles: bool) -> list[bool]:
    """For each position, whether it is in the head of a `val`/`var` (what comes before its
    type or value): over names and `over`; with `angles`, a `:` only within `<...>` (Kotlin's
    `val <T: Any> List<T>.NAME`, not `val x: kotlin.Int`), else none before `=`. One pass."""
    found: list[bool] = []
    alive, depth = False, 0
    for token in tokens:
        if token.kind == "name" and token.text in ("val", "var"):
            alive, depth = True, 0
        elif alive and token.kind != "name":
            depth += is_punct(token, "<") - is_punct(token, ">")
            alive = depth >= 0 and (token.text in over or angles and depth > 0 and is_punct(
                token, ":") or is_punct(token, "<", ">") and angles)
        found.append(alive)
    return found


def _takes_this(tokens: list[Token], position: int, runs: list[int]) -> bool:
    """Whether tokens[position:] are `[<T, U>](this`: a C# extension method's parameters
    (`runs`: where each run of names and commas ends)."""
    if is_punct(tokens[position] if position < len(tokens) else None, "<"):
        position = runs[position + 1] if position + 1 < len(tokens) else position + 1
        if position >= len(tokens) or not is_punct(tokens[position], ">"):
            return False
        position += 1
    return (position + 1 < len(tokens) and is_punct(tokens[position], "(")
            and tokens[position + 1].text == "this")


def _runs(tokens: list[Token]) -> list[int]:
    """For each position, the first at or after it that is neither a name nor a comma."""
    ends = [len(tokens)] * (len(tokens) + 1)
    for position in range(len(tokens) - 1, -1, -1):
        ends[position] = ends[position + 1] if (
            tokens[position].kind == "name" or is_punct(tokens[position], ",")) else position
    return ends


def _enum_constants(tokens: list[Token]) -> set[str]:
    """The constants of each `enum` body (`enum E { Math, B(1); ... }`): a static import of
    them (Java, Kotlin) names them as the tests' `Math`; `enum` then a name (Kotlin's `val
    enum = 1` is none). One pass, with a stack of the open brackets: whether each is an enum
    body still listing its constants."""
    found: set[str] = set()
    listing: list[bool] = []
    pending = False  # an `enum NAME` whose body is the next `{`
    for index, token in enumerate(tokens):
        if token.kind == "name" and token.text == "enum" and index + 1 < len(tokens) and (
                tokens[index + 1].kind == "name"):
            pending = True
        elif is_punct(token, "{", "(", "["):
            listing.append(pending and is_punct(token, "{"))
            pending = pending and not is_punct(token, "{")
        elif is_punct(token, "}", ")", "]"):
            if listing:
                listing.pop()
        elif listing and listing[-1] and is_punct(token, ";"):
            listing[-1] = False
        elif is_punct(token, ";"):
            pending = False
        elif listing and listing[-1] and is_punct(tokens[index - 1], "{", ","):
            found.add(_name(token))
    return found
