"""A solution's own entry point, renamed where its assert tests run: models answer with a whole
program, the function and a `main` that shows it at work (`int main`, `fn main`, `static void
Main`, `fun main`, Haskell's `main = ...`), and the tests, or the calls driver, bring the
program's entry themselves.

MultiPL-E's and HumanEval-X's harnesses append the tests to the model's completion of a
prompt, which ends before any `main`; given a whole program, their compilers refuse the second
`main` (a duplicate definition). A right solution is still right: its `main` is renamed, never
run, and the tests' or the driver's is the program's entry, as it would have been. Nothing of
the tests' or the driver's is renamed, and what the solution's `main` would have done is not
done, so no guard depends on it. Go's own `func main` is renamed by its dialect (go.py), which
rebuilds its file.

In C, C++, D, Rust and Kotlin the entry is a function at top level (`main(` outside braces,
read with the language's lexer; where it cannot read the solution, a definition at the start
of a line); in Java, Scala and C# a method of a class with the entry's signature (`static void
main(String`, `def main(args: Array[String]`, `static void Main(`, `static async Task Main(`);
in Haskell a binding or signature of `main` at the start of a line. A Ruby solution's example
under `if __FILE__ == $0` does not run (as Python's under `if __name__ == "__main__":` does not,
and JavaScript's under `require.main === module`: javascript.py). Perl's and bash's solutions
are loaded as a file of the program's, as a module is, not run as its main file: a Perl
example under `main() unless caller;` or a bash one under `[[ "${BASH_SOURCE[0]}" == "$0" ]]`
(or `(return 0 2>/dev/null) || main`) does not run.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from verifier.kinds.code import prompt_scope
from verifier.kinds.code.dialects import d, rust
from verifier.kinds.code.dialects.core import NotPlainCalls
from verifier.kinds.code.dialects.lexer import Token, is_punct
from verifier.kinds.code.dialects.lexer import tokenize as c_tokenize

RENAMED = {"java": "__verifierSolutionMain", "scala": "__verifierSolutionMain",
           "csharp": "__VerifierSolutionMain", "kotlin": "__verifierSolutionMain",
           "haskell": "verifierSolutionMain", "c": "__verifier_solution_main",
           "cpp": "__verifier_solution_main", "d": "__verifier_solution_main",
           "rust": "__verifier_solution_main"}

# Methods with an entry point's signature (a helper `main(int)` keeps its name).
_METHODS = {
    "java": re.compile(r"\b(static\s+void\s+)main(\s*\(\s*(?:final\s+)?(?:java\.lang\.)?String\b)"),
    "scala": re.compile(r"\b(def\s+)main(\s*\(\s*\w+\s*:\s*Array\s*\[\s*String\b)"),
    "csharp": re.compile(r"\b(static\s+(?:async\s+)?(?:void|int|Task\b(?:\s*<\s*int\s*>)?)\s+)"
                         r"Main(\s*\()"),
    "haskell": re.compile(r"^()main()(?![\w'])(?=\s*(?:::|=|\s[^\n=]*=))", re.M),
}
# Where the language's lexer cannot read the solution: a top-level definition starts a line.
_LINE_START = re.compile(r"^((?:(?:pub|int|void|auto|signed|static|fun)\s+)*(?:fn\s+)?)main"
                         r"(\s*\()", re.M)
_LEXERS: dict[str, Callable[[str], list[Token]]] = {
    "c": lambda source: c_tokenize(source, preprocessor=True),
    "cpp": lambda source: c_tokenize(source, preprocessor=True),
    "kotlin": c_tokenize, "d": d.tokenize, "rust": rust.tokenize}


# Ruby's `if __FILE__ == $0` (its `if __name__ == "__main__":`) is false where the program
# names itself otherwise first, by another path to the same file (`./main.rb`: `File.read($0)`
# still reads it): every BEGIN block runs before the program, wherever it is (so it goes after
# the solution, below its magic comments).
_RUBY_NOT_MAIN = "\nBEGIN { $0 = File.join(File.dirname($0), '.', File.basename($0)) }\n"


# Perl's `caller` is false only at the top of the main program: the solution is compiled and
# run first, at compile time, as a file `do` loads (through a hook of @INC that gives it from
# the program), so its top-level `caller` names the loader and its file-scoped lexicals stay
# its own; then the hook is taken off @INC. The hook gives the text as source to prepend (an
# in-memory file would load PerlIO::scalar: a millisecond of every run), or, for a solution
# with a __DATA__ or __END__ section to read, as that file.
_PERL_LOADED = """BEGIN {{
    my $text = <<'{end}';
{solution}
{end}
    my $hook = sub {{ return unless $_[1] eq 'solution.pl'; {source} }};
    unshift @INC, $hook;
    do 'solution.pl';
    @INC = grep {{ !ref $_ or $_ != $hook }} @INC;
    die $@ if $@;
}}
"""
# Bash's sourced file: its `${BASH_SOURCE[0]}` is not `$0`, and a top-level `return` returns.
# A solution that leaves a function open (a completion of MultiPL-E's prompt, which the tests'
# leading `}` closes: prompt_scope.py) is no file of its own, and is run as it is.
_BASH_SOURCED = """exec {{__verifier_solution}}<<'{end}'
{solution}
{end}
source "/proc/self/fd/$__verifier_solution"
"""
_LOADED = {"perl": _PERL_LOADED, "bash": _BASH_SOURCED}


def _loaded(language: str, solution: str) -> str:
    """The solution as the text of a here-document ending at a line no solution has (its own
    digest's), loaded as a file (see _PERL_LOADED, _BASH_SOURCED)."""
    end = f"__VERIFIER_SOLUTION_{hashlib.sha256(solution.encode()).hexdigest()[:24]}"
    sections = "__DATA__" in solution or "__END__" in solution
    source = ("open my $in, '<', \\$text or die; return $in;" if sections
              else "return (\\$text, sub { 0 });")
    return _LOADED[language].format(end=end, solution=solution, source=source)


def renamed(language: str, solution: str) -> str:
    """The solution with its own entry point renamed (see the module doc); as it is in a
    language without one."""
    if language == "ruby":
        return solution + _RUBY_NOT_MAIN
    if language == "perl" or language == "bash" and prompt_scope.open_scopes(
            language, solution) == 0:
        return _loaded(language, solution)
    name = RENAMED.get(language)
    if name is None:
        return solution
    def replaced(found: re.Match[str]) -> str:
        return f"{found.group(1)}{name}{found.group(2)}"
    if language in _METHODS:
        return _METHODS[language].sub(replaced, solution)
    try:
        tokens = _LEXERS[language](solution)
    except NotPlainCalls:
        return _LINE_START.sub(replaced, solution)
    pieces, last, depth = [], 0, 0
    for index, token in enumerate(tokens):
        if is_punct(token, "{"):
            depth += 1
        elif is_punct(token, "}"):
            depth -= 1
        elif depth == 0 and token.kind == "name" and token.text == "main" and index + 1 < len(
                tokens) and is_punct(tokens[index + 1], "(") and not (
                index and is_punct(tokens[index - 1], ".", "::", "->")):
            pieces += [solution[last:token.start], name]
            last = token.end
    return "".join(pieces) + solution[last:]
