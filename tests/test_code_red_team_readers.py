"""The worker reads every submission before the jail runs it (its fenced code, its entry point,
the names it declares, the scopes its prompt left open, how its tests are planned, guarded and
appended): for each of the 21 languages, hostile text built from that language's own openers
(quotes, raw-string and comment openers, brackets, keywords, backslashes, unclosed everything)
is read without an exception (one becomes `infra_error`, the sample masked instead of
punished) and in linear time (a quadratic reader holds a worker for minutes on a 200 kB
response: a timeout the verifier owns).

The jail is a stub: everything up to the run is the worker's own reading, and that is all these
tests drive (CodeRunner.run_items, as the worker calls it).
"""

from __future__ import annotations

import gc
import random
import time

import pytest

from rlvr_contract.schemas import AssertTests, CodeItem, Result
from tests.test_code_dialects import MULTIPLE_CPP, MULTIPLE_JS
from tests.test_code_dialects_jvm import (
    MULTIPLE_CSHARP,
    MULTIPLE_GO,
    MULTIPLE_JAVA,
    MULTIPLE_KOTLIN,
    MULTIPLE_SCALA,
)
from tests.test_code_dialects_native import MULTIPLE as NATIVE_CALLS
from tests.test_code_dialects_scripts import MULTIPLE as SCRIPT_CALLS
from tests.test_code_red_team_infra import CALLS_TESTS
from verifier.config import Settings
from verifier.kinds.code import assert_tests
from verifier.kinds.code.languages import LANGUAGES
from verifier.kinds.code.runner import CodeRunner
from verifier.sandbox import RunOutcome, RunRequest

STUB = "the jail is a stub here"

# Tests each language's dialect reads as plain calls: a solution read beside them is read by
# the dialect's driver builder, not by the in-process path.
CALLS = {**NATIVE_CALLS, **SCRIPT_CALLS, "cpp": MULTIPLE_CPP, "javascript": MULTIPLE_JS,
         "typescript": MULTIPLE_JS, "java": MULTIPLE_JAVA, "csharp": MULTIPLE_CSHARP,
         "kotlin": MULTIPLE_KOTLIN, "scala": MULTIPLE_SCALA, "go": MULTIPLE_GO,
         "c": CALLS_TESTS["c"], "python": "assert f(1) == 2\n"}

# What opens something somewhere: every language's reader gets all of them (one language's
# opener is another's operator), its own keywords on top.
OPENERS = ['"', "'", "`", "```", '"""', "'''", "(", ")", "[", "]", "{", "}", "<", ">", "\\",
           "\\\\", "/*", "*/", "//", "#", "--", "{-", "-}", "(*", "*)", "#|", "|#", "#;",
           ";", ":", "::", "=", ",", ".", "$", "@", "%", "?", "!", "\n", " ", "\t", "\x1c",
           "\\u", "r#\"", 'r"', "R\"(", '@"', '$"', "q{", "x\"", "%q(", "<<EOF\n", "=begin\n",
           "[[", "]]", "--[[", "#[", "#define ", "#include ", "#lang ", "<?php", "?>", "main"]
KEYWORDS = {
    "python": ["def ", "class ", "lambda ", "import ", "if __name__"],
    "c": ["int main(", "static ", "struct ", "asm(", "#if ", "#endif"],
    "cpp": ["int main(", "namespace std ", "template < > ", "auto ", "struct ", "using "],
    "java": ["class ", "public static void main(", "package ", "import ", "interface "],
    "javascript": ["function ", "const ", "=> ", "class ", "module.exports"],
    "typescript": ["function ", "const ", "declare ", "interface ", "type "],
    "rust": ["fn ", "impl ", "mod ", "macro_rules! ", "fn main(", "struct "],
    "bash": ["function ", "() {", "$(", "${", "<<'X'\n", "case "],
    "go": ["func ", "var ", "const ", "type ", "package ", "import (", "(func main("],
    "csharp": ["class ", "static void Main(", "namespace ", "record ", "using "],
    "d": ["void main(", "import ", "unittest", "module ", "version(", "q\""],
    "lua": ["function ", "local ", "end ", "do ", "then "],
    "php": ["function ", "class ", "<<<EOT\n", "namespace ", "use "],
    "perl": ["sub ", "package ", "qw(", "s{", "my ", "__END__\n"],
    "r": ["function(", "<- ", "library(", "if (", "%in%"],
    "ruby": ["def ", "class ", "module ", "end ", "%w[", "__END__\n"],
    "racket": ["(define ", "(module ", "#rx\"", "(require ", "#:"],
    "haskell": ["module ", "main = ", "where ", "{-# OPTIONS -}", "import ", "let "],
    "ocaml": ["let ", "let rec ", "module ", "{|", "|}", "begin "],
    "scala": ["object ", "def main(", "class ", "package ", "s\""],
    "kotlin": ["fun ", "fun main(", "class ", "object ", "package "],
}
SMALL = 250  # characters; each reading is also done at 8x this (a quadratic reader: 64x)


def soups(language: str) -> list[str]:
    """Motifs to repeat: each opener alone (unclosed everything), seeded pairs and triples of
    them (what one reader opens another closes), and seeded random soups."""
    tokens = OPENERS + KEYWORDS[language]
    rng = random.Random(f"readers {language}")
    motifs = [*tokens,
              *("".join(rng.choices(tokens, k=rng.randint(2, 3))) for _ in range(6))]
    motifs.append("".join(rng.choices(tokens, k=400)))
    return motifs


class StubJail:
    """A backend that builds nothing and runs nothing: builds succeed, runs are errors."""

    name = "stub"

    def __init__(self) -> None:
        self._tools = {tool: f"/usr/bin/{tool}" for language in LANGUAGES.values()
                       for tool in language.tools}

    def tools(self) -> dict[str, str]:
        return self._tools

    def run(self, request: RunRequest) -> RunOutcome:
        if request.store is not None:
            return RunOutcome(exit_code=0, stored=True)
        return RunOutcome(error=STUB)

    def bytecode_magic(self) -> str | None:
        return None

    def close(self) -> None:
        return None


RUNNER = CodeRunner(StubJail(), Settings())


def read(language: str, solution: str, tests: str) -> Result:
    """What the worker makes of `solution` (fenced as the policy writes it) under `tests`, the
    jail stubbed; fails the test if a reader raised."""
    item = CodeItem(language=language, response=f"```{language}\n{solution}\n```",
                    tests=AssertTests(code=tests))
    result = RUNNER.run_items([item])[0]
    error = (result.detail or {}).get("error", "")
    assert not error.startswith("code runner failed"), error[:2_000]
    return result


def cpu(language: str, solution: str, tests: str) -> float:
    """CPU seconds the worker spends reading, the collector off (its passes are noise here)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        started = time.process_time()
        read(language, solution, tests)
        return time.process_time() - started
    finally:
        if enabled:
            gc.enable()


def test_each_language_has_tests_its_dialect_reads_as_calls():
    assert sorted(CALLS) == sorted(LANGUAGES)
    for language, tests in CALLS.items():
        assert assert_tests.how_run(AssertTests(code=tests), language).judged == "outside"


def growth(language: str, motif: str, shape: str, small: int = SMALL) -> tuple[float, float]:
    """CPU seconds to read `motif` repeated to `small` and to 8 * `small` characters, as the
    solution, beside the language's plain calls (`shape` "calls") or as the tests too."""
    spent = []
    for size in (small, 8 * small):
        text = motif * max(1, size // len(motif))
        spent.append(cpu(language, text, CALLS[language] if shape == "calls" else text))
    return spent[0], spent[1]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_the_worker_reads_hostile_text_in_any_language_without_raising_in_linear_time(
        language: str):
    slow = []
    for motif in soups(language):
        for shape in ("calls", "soup"):
            # A small text can be cut short (no code found): what grows too fast is read again
            # at 8x the size, where a quadratic reader grows 64x again and a linear one 8x.
            if quadratic(growth(language, motif, shape)) and quadratic(
                    found := growth(language, motif, shape, 8 * SMALL)):
                slow.append((shape, motif[:40], *found))
    assert not slow


def quadratic(spent: tuple[float, float]) -> bool:
    """Whether the reading at 8x the size took over 20x the CPU time (a linear one: 8x)."""
    return spent[1] > 20 * max(spent[0], 1e-3)


# What this test found quadratic, at a size where the quadratic part dominates: Haskell's
# in-process guard walked back to the line's start from each token to see a signature's `::`
# (`*)` repeated: Prelude operators on one line), and from each lambda's `\` to the next `->`;
# Lua's long strings and comments (`[[`, `--[[` on lines of their own) were scanned to the end
# from each opener no closer follows.
@pytest.mark.parametrize(("language", "motif"), [
    ("haskell", "*)"), ("haskell", "\\x "), ("lua", "["), ("lua", "[=["), ("lua", "--[[\n")])
def test_what_was_read_in_quadratic_time_is_read_in_linear_time(language: str, motif: str):
    assert not quadratic(growth(language, motif, "soup", 8 * SMALL))
