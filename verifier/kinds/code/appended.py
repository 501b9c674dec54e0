"""Assert tests for every language but Python: the dataset's tests appended to the solution.

This is MultiPL-E's format: the tests are code of the solution's language (a `main` full of
asserts, or top-level checks) that runs after the solution, in the same program. Positive
evidence is still required. After the tests comes an epilogue of ours that reports, on the
run's channel (fd 3), the record the worker handed it on fd 4: `{"nonce": ..., "passed": true}`,
with a nonce drawn for the run. The nonce is in neither the source nor the compiled program
(which are cached and shared between runs), so a program that exits before its tests ran, in
any way, reports nothing and earns nothing; faking the record takes a program written against
this verifier (reading fd 4 and writing fd 3), not an early `exit(0)`.

Where the tests define the entry point (`int main()`, `static void main`, `func main`), it is
renamed, and the epilogue's own entry calls it, then reports: only a `main` that returned
counts. Top-level tests (scripts, Racket, OCaml) are followed by the epilogue directly.
A failed assertion ends the program with an error; the worker tells it from other run-time
errors by the language's failure message (`signatures`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.kinds.code.languages import (
    class_declaring,
    csharp_main_class,
    java_main_class,
    scala_main_object,
)

MAIN_PLACEHOLDER = "__VERIFIER_MAIN__"  # the class or object whose renamed main the epilogue calls
ARGS_PLACEHOLDER = "__VERIFIER_ARGS__"  # what the epilogue passes the renamed main
# The D epilogue's entry up to the call of the tests' main (dialects/d.py runs the tests there).
D_MAIN_OPENS = "void main(string[] args) { import std.file : read, write; "
_COPY_C = ("{ char b[4096]; long n; while ((n = read(4, b, sizeof b)) > 0) "
           "if (write(3, b, n) != n) return 1; }")


@dataclass(frozen=True)
class Appended:
    """How one language's tests are appended: the entry point to rename in the tests
    (pattern, replacement), the epilogue, and the messages of a failed assertion.

    The pattern may capture the entry's return `type` and its `params`, which the replacement
    (a format string) keeps: every signature the language allows for it (`int main(int argc,
    char **argv)`, `static int Main()`, `fun main(args: Array<String>)`) is renamed, and the
    epilogue passes the renamed one `arguments` where it takes parameters, after the `spread`
    operator where the pattern's `spread` group says they are variadic (`vararg`)."""

    epilogue: str
    entry: tuple[str, str] | None = None
    signatures: tuple[str, ...] = ("ssert",)  # assert, Assertion, AssertionError
    arguments: str = ""
    spread: str = ""


APPENDED: dict[str, Appended] = {
    "c": Appended(
        entry=(r"\bint\s+main\s*\((?P<params>[^()]*)\)", "int __verifier_main({params})"),
        epilogue="#include <unistd.h>\nint main(int argc, char **argv) { int status = "
                 f"__verifier_main({ARGS_PLACEHOLDER}); if (status == 0) {_COPY_C} return "
                 "status; }\n",
        arguments="argc, argv"),
    # A lambda: a C++ function other than main may not fall off its end, the tests' main may.
    "cpp": Appended(
        entry=(r"\bint\s+main\s*\((?P<params>[^()]*)\)", "auto __verifier_main = []({params})"),
        epilogue=";\n#include <unistd.h>\n#include <type_traits>\ntemplate <class F, class... A> "
                 "int __verifier_call(F f, A... a) { if constexpr (std::is_void_v<decltype(f(a..."
                 "))>) { f(a...); return 0; } else { return f(a...); } }\nint main(int argc, "
                 f"char **argv) {{ int status = __verifier_call(__verifier_main{ARGS_PLACEHOLDER}"
                 f"); if (status == 0) {_COPY_C} return status; }}\n",
        arguments=", argc, argv"),
    # The JVM enables assertions for the classes it loads after the epilogue asked it to.
    "java": Appended(
        entry=(r"\bstatic\s+void\s+main\s*\(", "static void __verifierMain("),
        epilogue="class VerifierEpilogue { public static void main(String[] args) throws "
                 "Exception { ClassLoader.getSystemClassLoader().setDefaultAssertionStatus(true);"
                 f" {MAIN_PLACEHOLDER}.__verifierMain(args); try (var out = new java.io."
                 "FileOutputStream(\"/proc/self/fd/3\")) { out.write(java.nio.file.Files."
                 "readAllBytes(java.nio.file.Path.of(\"/proc/self/fd/4\"))); } } }\n"),
    # node names a failed check's error (assert's, and the hardened console.assert's); any
    # other error may quote a line of the tests that says assert.
    "javascript": Appended(
        epilogue="require('fs').writeFileSync(3, require('fs').readFileSync(4));\n",
        signatures=("AssertionError",)),
    "typescript": Appended(
        epilogue="require('fs').writeFileSync(3, require('fs').readFileSync(4));\n",
        signatures=("AssertionError",)),
    "rust": Appended(
        entry=(r"\bfn\s+main\s*\(\s*\)", "fn __verifier_main()"),
        epilogue="fn main() { __verifier_main(); std::fs::write(\"/proc/self/fd/3\", "
                 "std::fs::read(\"/proc/self/fd/4\").unwrap()).unwrap(); }\n"),
    # Without `set -e`, a script's status is its last command's: bash fails tests whose last
    # check is false, and the record is written only if they did not.
    "bash": Appended(epilogue="\n__verifier_status=$?\n(( __verifier_status == 0 )) || exit "
                              "\"$__verifier_status\"\ncat <&4 >&3\n", signatures=()),
    "go": Appended(
        entry=(r"\bfunc\s+main\s*\(\s*\)", "func __verifierMain()"),
        epilogue="func main() { __verifierMain(); if data, err := __verifierOS.ReadFile("
                 "\"/proc/self/fd/4\"); err == nil { __verifierOS.WriteFile(\"/proc/self/fd/3\", "
                 "data, 0) } }\n"),
    "csharp": Appended(
        entry=(r"\bstatic\s+(?P<type>void|int)\s+Main\s*\(", "static {type} __VerifierMain("),
        epilogue=(
            "class VerifierEpilogue : System.Diagnostics.TraceListener {\n"
            "  public override void Write(string m) {}\n"
            "  public override void WriteLine(string m) {}\n"
            "  public override void Fail(string m, string d) {\n"
            "    System.Console.Error.WriteLine(\"Assertion failed: \" + m);\n"
            "    System.Environment.Exit(1);\n  }\n"
            "  public static void Main(string[] args) {\n"
            "    System.Diagnostics.Trace.Listeners.Clear();\n"
            "    System.Diagnostics.Trace.Listeners.Add(new VerifierEpilogue());\n"
            f"    var main = typeof({MAIN_PLACEHOLDER}).GetMethod(\"__VerifierMain\", "
            "System.Reflection.BindingFlags.Static | System.Reflection.BindingFlags.Public | "
            "System.Reflection.BindingFlags.NonPublic);\n"
            "    object status = null;\n"
            "    try { status = main.Invoke(null, main.GetParameters().Length == 0 ? null : "
            "new object[] { args }); }\n"
            "    catch (System.Reflection.TargetInvocationException e) { "
            "System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(e.InnerException)"
            ".Throw(); }\n"
            "    if (status is int && (int)status != 0) System.Environment.Exit((int)status);\n"
            "    System.IO.File.WriteAllBytes(\"/proc/self/fd/3\", "
            "System.IO.File.ReadAllBytes(\"/proc/self/fd/4\"));\n  }\n}\n")),
    "d": Appended(
        entry=(r"\b(?P<type>void|int)\s+main\s*\((?P<params>\s*(?:string\s*\[\s*\]\s*\w+)?"
               r"\s*)\)", "{type} __verifier_main({params})"),
        epilogue="extern(C) __gshared string[] rt_options = [\"testmode=run-main\"];\n"
                 f"{D_MAIN_OPENS}static if (is(typeof(__verifier_main({ARGS_PLACEHOLDER})) == "
                 f"void)) __verifier_main({ARGS_PLACEHOLDER}); else if (auto status = "
                 f"__verifier_main({ARGS_PLACEHOLDER})) {{ import core.stdc.stdlib : exit; "
                 "exit(status); } write(\"/proc/self/fd/3\", read(\"/proc/self/fd/4\")); }\n",
        arguments="args",
        signatures=("ssert", "FAILED unittests")),
    "lua": Appended(
        epilogue="\ndo local i = io.open('/proc/self/fd/4', 'rb'); local o = io.open("
                 "'/proc/self/fd/3', 'wb'); o:write(i:read('a')); o:close() end\n"),
    # `?>` ends PHP mode where it is (and is text where the tests had ended it themselves).
    "php": Appended(
        epilogue="\n?><?php file_put_contents('php://fd/3', file_get_contents('php://fd/4'));\n",
        signatures=("ssert", "Test failed")),
    "perl": Appended(
        epilogue="\n{ local $/; open(my $__in, '<&=', 4) or die; open(my $__out, '>&=', 3) "
                 "or die; print {$__out} scalar <$__in>; close $__out; }\n"),
    "r": Appended(
        epilogue="\nlocal({out <- file('/proc/self/fd/3', 'wb', raw = TRUE); "
                 "writeBin(readBin('/proc/self/fd/4', 'raw', 1e6), out); close(out)})\n",
        signatures=("ssert", "is not TRUE", "are not all TRUE")),
    "ruby": Appended(
        epilogue="\nFile.binwrite('/proc/self/fd/3', File.binread('/proc/self/fd/4'))\n"),
    # rackunit reports a failed check and goes on; here a failed check ends the program.
    "racket": Appended(
        entry=(r"\(require\s+rackunit\)", "(require rackunit) (current-check-handler (lambda (e) "
               "(eprintf \"assertion failed: ~a\\n\" (exn-message e)) (exit 1)))"),
        epilogue="\n(call-with-output-file \"/proc/self/fd/3\" #:exists 'append (lambda (o) "
                 "(write-bytes (call-with-input-file \"/proc/self/fd/4\" (lambda (i) "
                 "(read-bytes 1000000 i))) o)))\n"),
    "haskell": Appended(
        entry=(r"^main\b", "verifierMain"),
        epilogue="\nmain :: IO ()\nmain = verifierMain >> readFile \"/proc/self/fd/4\" >>= "
                 "appendFile \"/proc/self/fd/3\"\n"),
    "ocaml": Appended(
        epilogue="\nlet () = let i = open_in_bin \"/proc/self/fd/4\" in let s = really_input_string"
                 " i (in_channel_length i) in let o = open_out_gen [Open_wronly; Open_binary] 0 "
                 "\"/proc/self/fd/3\" in output_string o s; close_out o\n"),
    "scala": Appended(
        entry=(r"\bdef\s+main\s*\(", "def __verifierMain("),
        epilogue=f"object VerifierEpilogue {{ def main(args: Array[String]): Unit = {{ "
                 f"{MAIN_PLACEHOLDER}.__verifierMain(args); java.nio.file.Files.write("
                 "java.nio.file.Paths.get(\"/proc/self/fd/3\"), java.nio.file.Files.readAllBytes("
                 "java.nio.file.Paths.get(\"/proc/self/fd/4\"))) } }\n"),
    "kotlin": Appended(
        entry=(r"\bfun\s+main\s*\(\s*(?P<spread>vararg\s+)?(?P<params>(?:\w+\s*:\s*(?:Array\s*"
               r"<\s*String\s*>|String))?\s*)\)", "fun verifierMain({spread}{params})"),
        epilogue="\nfun main(args: Array<String>) { ClassLoader.getSystemClassLoader()."
                 f"setDefaultAssertionStatus(true); verifierMain({ARGS_PLACEHOLDER}); "
                 "java.io.File(\"/proc/self/fd/3\").writeBytes(java.io.File(\"/proc/self/fd/4\")"
                 ".readBytes()) }\n",
        arguments="args", spread="*"),
}


def supported(language: str) -> bool:
    return language in APPENDED


def assemble(language: str, solution: str, tests: str) -> str:
    """The program an assert run compiles and runs: solution, tests, epilogue."""
    appended = APPENDED[language]
    main = {"java": java_main_class, "scala": scala_main_object,
            "csharp": _csharp_entry_class}.get(language, lambda _: "")(f"{solution}\n{tests}")
    passed, renamed = "", 0
    if appended.entry is not None:
        tests, passed, renamed = _rename_entry(appended, tests)
    epilogue = appended.epilogue.replace(MAIN_PLACEHOLDER, main).replace(ARGS_PLACEHOLDER,
                                                                          passed)
    if language == "scala" and not renamed:  # an object that `extends App`: its own main
        epilogue = epilogue.replace(".__verifierMain(", ".main(")
    if language == "go":
        solution = _go_import_os(solution)
    return f"{solution}\n{tests}\n{epilogue}"


def _rename_entry(appended: Appended, tests: str) -> tuple[str, str, int]:
    """The tests with every entry point renamed, what the epilogue passes the renamed one (by
    the first entry's parameters), and how many were renamed."""
    pattern, replacement = appended.entry
    first: dict[str, str | None] = {}

    def rename(entry: re.Match) -> str:
        groups = entry.groupdict()
        if not first:
            first.update(groups)
        return replacement.format(**{name: value or "" for name, value in groups.items()})

    tests, renamed = re.subn(pattern, rename, tests, flags=re.M)
    passed = ""
    if (first.get("params") or "").strip() not in ("", "void"):
        passed = (appended.spread if first.get("spread") else "") + appended.arguments
    return tests, passed, renamed


def failed_assertion(language: str, stderr: str) -> bool:
    """Whether a run that ended in an error reports a failed assertion of the tests."""
    return any(signature in stderr for signature in APPENDED[language].signatures)


_CSHARP_MAIN = re.compile(r"\bstatic\s+(?:void|int)\s+Main\s*\(")
_GO_PACKAGE = re.compile(r"^[^\S\n]*package\s+\w+[^\n]*\n", re.M)  # linear: see languages.py


def _csharp_main_class(code: str) -> str:
    return class_declaring(code, _CSHARP_MAIN) or "Program"


def _csharp_entry_class(code: str) -> str:
    """The class the epilogue's `typeof` names: the one around the tests' `Main` by the braces
    (a class the solution nests before it is not), else the first declaring it."""
    return csharp_main_class(code) or _csharp_main_class(code)


def _go_import_os(solution: str) -> str:
    """The epilogue's `os`, under a name no solution uses, imported after the package clause."""
    found = _GO_PACKAGE.search(solution)
    if found is None:
        return f"package main\nimport __verifierOS \"os\"\n{solution}"
    return f"{solution[:found.end()]}import __verifierOS \"os\"\n{solution[found.end():]}"
