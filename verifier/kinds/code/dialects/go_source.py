"""Go source files taken apart and put back together: a solution and its tests (or a driver)
are one `package main` file, whatever package clauses and imports each came with.

MultiPL-E's Go prompt is `package f_test` with `import ("testing"; "fmt")` for its tests, which
the solution carries; HumanEval-X's tests bring `package main` and their own imports
(`testing`, testify's `assert`, `math`) while the solution brings its own. So each part is
split into its package clause, its import specs and the rest, and the file is rebuilt with
one clause and the imports the code uses: an import whose name the code never mentions is
dropped (Go refuses an unused import, and the tests that used it may be gone), one named `_`
or `.` is kept. The verifier's own imports get names of its own (`__verifier_os`), so nothing
of the solution's can take their place.

"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.kinds.code.dialects import lexer
from verifier.kinds.code.dialects.core import NotPlainCalls
from verifier.kinds.code.dialects.entry import ends_statement, line_statements
from verifier.kinds.code.dialects.lexer import Token, bracket_pairs, closing, is_punct
from verifier.kinds.code.dialects.tokens import at

# The universe block: names a solution's package-level declaration would shadow for the
# tests (a `func panic`, a `const true = false`).
_UNIVERSE_NAMES = """
bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string
uint uint8 uint16 uint32 uint64 uintptr any comparable true false iota nil append cap close
complex copy delete imag len make new panic print println real recover
"""
UNIVERSE = frozenset(_UNIVERSE_NAMES.split())
# The packages HumanEval-X's evaluation imports for a program that uses them (its `test_setup`
# imports testing and testify's assert; its tests may come without it).
HELPER_PACKAGES = {"math": "math", "strings": "strings", "fmt": "fmt", "strconv": "strconv",
                   "time": "time", "bytes": "bytes", "regexp": "regexp", "sort": "sort",
                   "rand": "math/rand", "md5": "crypto/md5", "testing": "testing",
                   "assert": "github.com/stretchr/testify/assert"}


@dataclass(frozen=True)
class Import:
    name: str  # the name it binds: its alias, else the path's last element; `_` or `.`
    path: str

    def spec(self) -> str:
        return f'{self.name} "{self.path}"'


@dataclass(frozen=True)
class GoFile:
    """A Go source taken apart: its imports and the text after them (package clause and
    imports removed, line breaks kept so lines still count)."""

    imports: tuple[Import, ...]
    body: str
    tokens: tuple[Token, ...]  # the body's tokens


def tokenize(source: str) -> list[Token]:
    """Go's tokens: the shared lexer's, with backquoted strings raw."""
    return lexer.tokenize(source, raw_backquotes=True)


def split_file(source: str) -> GoFile:
    """`source` as a GoFile; NotPlainCalls if it cannot be read (a string left open...)."""
    tokens = tokenize(source)
    position = 0
    cut: list[tuple[int, int]] = []
    if position < len(tokens) and tokens[position].text == "package":
        end = position + 2
        if end > len(tokens) or tokens[position + 1].kind != "name":
            raise NotPlainCalls("a package clause without its name")
        cut.append((tokens[position].start, tokens[end - 1].end))
        position = end
    imports: list[Import] = []
    while position < len(tokens) and (tokens[position].text == "import"
                                      or is_punct(tokens[position], ";")):
        if is_punct(tokens[position], ";"):
            position += 1
            continue
        start = tokens[position].start
        if is_punct(at(tokens, position + 1), "("):
            end = closing(tokens, position + 1)
            specs = tokens[position + 2:end]
        else:
            end = position + 1
            if at(tokens, end) is not None and tokens[end].kind != "string":
                end += 1
            specs = tokens[position + 1:end + 1]
            if end >= len(tokens):  # `import` ends the source
                raise NotPlainCalls("an import without its path")
        imports += _specs(specs)
        cut.append((start, tokens[end].end))
        position = end + 1
    body = _blanked(source, cut)
    return GoFile(tuple(imports), body, tuple(tokenize(body)))


def _specs(tokens: list[Token]) -> list[Import]:
    found: list[Import] = []
    position = 0
    while position < len(tokens):
        token = tokens[position]
        if is_punct(token, ";"):
            position += 1
            continue
        name = None
        if token.kind == "name" or is_punct(token, "."):
            name = token.text
            position += 1
            token = at(tokens, position)
        if token is None or token.kind not in ("string", "template"):
            raise NotPlainCalls("an import spec without its path")
        path = token.text[1:-1]
        found.append(Import(name or path.rsplit("/", 1)[-1], path))
        position += 1
    return found


def _blanked(source: str, cuts: list[tuple[int, int]]) -> str:
    """`source` with the spans removed, their line breaks kept."""
    out, last = [], 0
    for start, end in cuts:
        out += [source[last:start], "\n" * source.count("\n", start, end)]
        last = end
    out.append(source[last:])
    return "".join(out)


def used_names(tokens: tuple[Token, ...] | list[Token]) -> frozenset[str]:
    return frozenset(t.text for t in tokens if t.kind == "name")


def assemble(parts: list[GoFile], own: dict[str, str], tail: str = "") -> str:
    """One `package main` file of `parts` (their imports merged and kept where used, and the
    standard packages they use without importing them added, as HumanEval-X's evaluation
    adds them), the verifier's `own` imports (name: path), and `tail`."""
    tail_tokens = tokenize(tail)
    used = frozenset().union(*(used_names(part.tokens) for part in parts)) | used_names(
        tail_tokens)
    specs: list[str] = []
    seen: set[Import] = set()
    for part in parts:
        for spec in part.imports:
            if spec in seen or not (spec.name in ("_", ".") or spec.name in used):
                continue
            seen.add(spec)
            specs.append(spec.spec())
    imported = {spec.name for spec in seen}
    tokens = [t for part in parts for t in part.tokens]
    for name in sorted((_qualifiers_only(tokens) | _testify_news(tokens)) - imported):
        if name in HELPER_PACKAGES:
            specs.append(f'{name} "{HELPER_PACKAGES[name]}"')
    specs += [f'{name} "{path}"' for name, path in own.items()]
    lines = ["package main", "import (", *(f"\t{spec}" for spec in specs), ")"]
    # Each part's line numbers are its own again from here (compile errors name them).
    texts = [f"//line main.go:1\n{part.body}" for part in parts]
    return "\n".join([*lines, *texts, tail, ""])


def _testify_news(tokens: list[Token]) -> set[str]:
    """{"assert"} where the code makes `assert := assert.New(t)` (HumanEval-X's tests): the
    package's name is then a variable's too, but `assert.New` is the package's."""
    for index, token in enumerate(tokens[:-2]):
        if (token.text == "assert" and token.kind == "name" and is_punct(tokens[index + 1], ".")
                and tokens[index + 2].text == "New"
                and not (index and is_punct(tokens[index - 1], "."))):
            return {"assert"}
    return set()


def _qualifiers_only(tokens: list[Token]) -> set[str]:
    """The names the code uses only as `name.` (a package's), never otherwise."""
    qualifiers: set[str] = set()
    other: set[str] = set()
    for index, token in enumerate(tokens):
        if token.kind != "name":
            continue
        if (index + 1 < len(tokens) and is_punct(tokens[index + 1], ".")
                and not (index and is_punct(tokens[index - 1], "."))):
            qualifiers.add(token.text)
        elif not (index and is_punct(tokens[index - 1], ".")):
            other.add(token.text)
    return qualifiers - other


def package_names(file: GoFile) -> frozenset[str]:
    """The names a Go file declares at package level (funcs, not methods; vars, consts,
    types, grouped or not). A bracket never closed is stepped into, so what follows it
    counts too. Time linear in the file (one pass of each kind)."""
    tokens = list(file.tokens)
    pairs = bracket_pairs(tokens)
    names: set[str] = set()
    lone: list[int] = []  # where each ungrouped spec starts
    position = 0
    while position < len(tokens):
        token = tokens[position]
        if is_punct(token, "(", "[", "{") and position in pairs:
            position = pairs[position] + 1
            continue
        if token.text == "func":
            following = at(tokens, position + 1)
            if following is not None and following.kind == "name":
                names.add(following.text)
        elif token.text in ("var", "const", "type"):
            if position + 1 in pairs and is_punct(tokens[position + 1], "("):
                end = pairs[position + 1]
                names |= _group_names(tokens[position + 2:end])
                position = end + 1
                continue
            lone.append(position + 1)
        position += 1
    return frozenset(names | _lone_spec_names(tokens, lone))


def _lone_spec_names(tokens: list[Token], starts: list[int]) -> set[str]:
    """The leading identifiers of the spec starting at each of `starts` (past any `;`),
    as _group_names reads a group's first spec: `a, b` up to a line break that ends the
    statement. Each token read once, however many specs share it (`var var, var, ...`)."""
    names: set[str] = set()
    past_semicolons = [len(tokens)] * (len(tokens) + 1)
    for position in range(len(tokens) - 1, -1, -1):
        past_semicolons[position] = (past_semicolons[position + 1]
                                     if is_punct(tokens[position], ";") else position)
    seen: set[int] = set()
    for start in starts:
        position = past_semicolons[start]
        while position < len(tokens) and position not in seen and (
                tokens[position].kind == "name"):
            seen.add(position)
            names.add(tokens[position].text)
            comma = at(tokens, position + 1)
            if not is_punct(comma, ",") or comma.newline and ends_statement(tokens[position]):
                break
            position += 2
    return names


def _group_names(tokens: list[Token]) -> set[str]:
    """The names declared by the specs of a var/const/type group: each spec's leading list
    of identifiers."""
    specs = line_statements(tokens)
    names: set[str] = set()
    for spec in specs:
        position = 0
        while position < len(spec) and spec[position].kind == "name":
            names.add(spec[position].text)
            if not is_punct(at(spec, position + 1), ","):
                break
            position += 2
    return names
