"""Submissions that try to turn their own failure into the verifier's, in every language: each
must end as a failure of its own (`wrong`, `runtime_error`, `timeout`, `memory_limit`,
`output_limit`, `compile_error`), within the item's limits, and never as `infra_error` (a
reward of null, masked instead of punished) nor as an HTTP 500.

The attacks are what a program can do to the machinery around it: close or garble its output,
kill every process it can reach, make its work directory unreadable (chmod 0: the jail's runner
holds no capability past a mode), remove its own program, leave a daemon behind that writes
after it ended, recurse without end; and builds that leave no program (a library, a package
other than main, a class without main). Each language does them its own way, its runtime
starting the shell where the attack is the system's, so every runtime's own spawning, output
and crash paths are crossed.
"""

from __future__ import annotations

import shutil
import time

import httpx
import pytest

from rlvr_contract.schemas import AssertTests, CodeItem, Result
from verifier.config import Settings
from verifier.kinds.code import assert_tests, process_settings, run_code_items
from verifier.kinds.code.languages import LANGUAGES, find_language
from verifier.kinds.code.limits import compile_limits, run_limits
from verifier.kinds.code.submission import case_count

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

LIMITS = {"time_s": 1, "memory_mb": 128}
CASES = [{"input": "1\n", "output": "x\n"}]  # no attack prints x
BLAMES_SUBMISSION = {"wrong", "runtime_error", "timeout", "memory_limit", "output_limit",
                     "compile_error"}

# How each language has the shell run a command and waits for it (the command holds no `$`,
# `"` or backslash, so it goes into any language's double-quoted string as it is).
SHELL = {
    "python": 'import os\nos.system("{}")\n',
    "c": '#include <stdlib.h>\nint main(void) {{ system("{}"); return 0; }}\n',
    "cpp": '#include <cstdlib>\nint main() {{ std::system("{}"); }}\n',
    "java": ('public class Main {{ public static void main(String[] a) throws Exception {{ '
             'new ProcessBuilder("sh", "-c", "{}").inheritIO().start().waitFor(); }} }}\n'),
    "kotlin": 'fun main() {{ ProcessBuilder("sh", "-c", "{}").inheritIO().start().waitFor() }}\n',
    "scala": ('object Main {{ def main(a: Array[String]): Unit = {{ '
              'new ProcessBuilder("sh", "-c", "{}").inheritIO().start().waitFor() }} }}\n'),
    "csharp": ('using System.Diagnostics;\nclass P {{ static void Main() {{ var s = new '
               'ProcessStartInfo("sh", "-c \\"{}\\"") {{ UseShellExecute = false }}; '
               'Process.Start(s).WaitForExit(); }} }}\n'),
    "go": ('package main\nimport (\n\t"os"\n\t"os/exec"\n)\nfunc main() {{\n\tc := exec.Command('
           '"sh", "-c", "{}")\n\tc.Stdout, c.Stderr = os.Stdout, os.Stderr\n\tc.Run()\n}}\n'),
    "rust": ('fn main() {{ let _ = std::process::Command::new("sh").arg("-c").arg("{}")'
             '.status(); }}\n'),
    "d": 'import std.process;\nvoid main() {{ wait(spawnShell("{}")); }}\n',
    "haskell": 'import System.Process\nmain :: IO ()\nmain = system "{}" >> return ()\n',
    "ocaml": 'let _ = Sys.command "{}"\n',
    "racket": '#lang racket/base\n(require racket/system)\n(void (system "{}"))\n',
    "javascript": 'require("child_process").execSync("{}", {{stdio: "inherit"}});\n',
    "typescript": ('declare var require: any;\n'
                   'require("child_process").execSync("{}", {{stdio: "inherit"}});\n'),
    "bash": "{}\n",
    "lua": 'os.execute("{}")\n',
    "php": ('<?php\n$p = proc_open("{}", [1 => STDOUT, 2 => STDERR], $pipes);\n'
            'proc_close($p);\n'),  # system() would wait for the pipe the daemon holds
    "perl": 'system("{}");\n',
    "ruby": 'system("{}")\n',
    "r": 'system("{}")\n',
}
SHELL_ATTACKS = {
    # The runner, finding /tmp unreadable after the run, died (no answer: infra_error).
    "makes its work directory unreadable": "chmod 0 /tmp /dev/shm",
    "removes its own program": "rm -rf /tmp/* /tmp/.[!.]*",
    "kills every process it can, itself too": "kill -9 -1",
    "leaves a daemon that writes after it ended": "setsid sh -c 'sleep 0.3; echo x' &",
}
# The language's own way: its output closed, then written; bytes no decoder takes on stdout and
# stderr; recursion without end.
NATIVE = {
    "python": ("import os\nos.close(1)\nos.close(2)\nprint('x')\n",
               "import os\nos.write(1, b'\\0\\xff\\xfe\\n')\nos.write(2, b'\\xff\\0')\n",
               "import sys\nsys.setrecursionlimit(10 ** 8)\ndef f(n):\n    return f(n + 1) + 1\n"
               "f(0)\n"),
    "c": ('#include <stdio.h>\n#include <unistd.h>\nint main(void) { close(1); close(2); '
          'puts("x"); return 0; }\n',
          '#include <unistd.h>\nint main(void) { write(1, "\\0\\xff\\xfe\\n", 4); '
          'write(2, "\\xff\\0", 2); return 0; }\n',
          'int f(int n) { volatile char b[512]; b[0] = n; return f(n + 1) + b[0]; }\n'
          'int main(void) { return f(0); }\n'),
    "cpp": ('#include <iostream>\n#include <unistd.h>\nint main() { close(1); close(2); '
            'std::cout << "x" << std::endl; }\n',
            '#include <iostream>\nint main() { std::cout.write("\\0\\xff\\xfe\\n", 4); '
            'std::cerr.write("\\xff\\0", 2); }\n',
            'int f(int n) { volatile char b[512]; b[0] = n; return f(n + 1) + b[0]; }\n'
            'int main() { return f(0); }\n'),
    "java": ('public class Main { public static void main(String[] a) throws Exception { '
             'new java.io.FileOutputStream(java.io.FileDescriptor.out).close(); '
             'System.err.close(); System.out.println("x"); } }\n',
             'public class Main { public static void main(String[] a) { System.out.write('
             'new byte[] {0, -1, -2, 10}, 0, 4); System.out.flush(); System.err.write(-1); '
             'System.err.flush(); } }\n',
             'public class Main { static int f(int n) { return f(n + 1) + 1; } '
             'public static void main(String[] a) { f(0); } }\n'),
    "kotlin": ('fun main() { java.io.FileOutputStream(java.io.FileDescriptor.out).close(); '
               'System.err.close(); println("x") }\n',
               'fun main() { System.out.write(byteArrayOf(0, -1, -2, 10), 0, 4); '
               'System.out.flush(); System.err.write(-1); System.err.flush() }\n',
               'fun f(n: Int): Int = f(n + 1) + 1\nfun main() { f(0) }\n'),
    "scala": ('object Main { def main(a: Array[String]): Unit = { new java.io.FileOutputStream('
              'java.io.FileDescriptor.out).close(); System.err.close(); println("x") } }\n',
              'object Main { def main(a: Array[String]): Unit = { System.out.write('
              'Array[Byte](0, -1, -2, 10), 0, 4); System.out.flush(); System.err.write(-1); '
              'System.err.flush() } }\n',
              'object Main { def f(n: Int): Int = f(n + 1) + 1\n'
              'def main(a: Array[String]): Unit = { f(0) } }\n'),
    "csharp": ('using System.Runtime.InteropServices;\nclass P { [DllImport("libc")] static '
               'extern int close(int fd);\nstatic void Main() { close(1); close(2); '
               'System.Console.WriteLine("x"); } }\n',
               'class P { static void Main() { var o = System.Console.OpenStandardOutput(); '
               'o.Write(new byte[] {0, 255, 254, 10}, 0, 4); o.Flush(); '
               'System.Console.OpenStandardError().WriteByte(255); } }\n',
               'class P { static int F(int n) { return F(n + 1) + 1; } '
               'static void Main() { F(0); } }\n'),
    "go": ('package main\nimport (\n\t"fmt"\n\t"os"\n)\nfunc main() {\n\tos.Stdout.Close()\n'
           '\tos.Stderr.Close()\n\tfmt.Println("x")\n}\n',
           'package main\nimport "os"\nfunc main() {\n\tos.Stdout.Write([]byte{0, 255, 254, 10})'
           '\n\tos.Stderr.Write([]byte{255, 0})\n}\n',
           'package main\nfunc f(n int) int { return f(n+1) + 1 }\nfunc main() { f(0) }\n'),
    "rust": ('extern "C" { fn close(fd: i32) -> i32; }\nfn main() { unsafe { close(1); '
             'close(2); } println!("x"); }\n',
             'use std::io::Write;\nfn main() { let _ = std::io::stdout().write_all('
             'b"\\0\\xff\\xfe\\n"); let _ = std::io::stderr().write_all(b"\\xff\\0"); }\n',
             'fn f(n: u64) -> u64 { let b = [n; 64]; f(n + 1) + b[(n % 64) as usize] }\n'
             'fn main() { println!("{}", f(0)); }\n'),
    "d": ('import std.stdio;\nimport core.sys.posix.unistd : close;\n'
          'void main() { close(1); close(2); writeln("x"); }\n',
          'import std.stdio;\nvoid main() { stdout.rawWrite(cast(ubyte[]) [0, 255, 254, 10]); '
          'stderr.rawWrite(cast(ubyte[]) [255, 0]); }\n',
          'int f(int n) { int[64] b; b[0] = n; return f(n + 1) + b[0]; }\n'
          'void main() { f(0); }\n'),
    "haskell": ('import System.IO\nmain :: IO ()\nmain = hClose stdout >> hClose stderr >> '
                'putStrLn "x"\n',
                'import qualified Data.ByteString as B\nimport System.IO\nmain :: IO ()\n'
                'main = B.hPut stdout (B.pack [0, 255, 254, 10]) >> B.hPut stderr '
                '(B.pack [255, 0])\n',
                'f :: Int -> Int\nf n = 1 + f (n + 1)\nmain :: IO ()\nmain = print (f 0)\n'),
    "ocaml": ('let () = Unix.close Unix.stdout; Unix.close Unix.stderr; print_endline "x"\n',
              'let () = print_string "\\000\\255\\254\\n"; prerr_string "\\255\\000"\n',
              'let rec f n = 1 + f (n + 1)\nlet () = print_int (f 0)\n'),
    "racket": ('#lang racket/base\n(close-output-port (current-output-port))\n'
               '(close-output-port (current-error-port))\n(displayln "x")\n',
               '#lang racket/base\n(write-bytes (bytes 0 255 254 10))\n'
               '(write-bytes (bytes 255 0) (current-error-port))\n',
               '#lang racket/base\n(define (f n) (+ 1 (f (+ n 1))))\n(f 0)\n'),
    "javascript": ('const fs = require("fs");\nfs.closeSync(1);\nfs.closeSync(2);\n'
                   'console.log("x");\n',
                   'process.stdout.write(Buffer.from([0, 255, 254, 10]));\n'
                   'process.stderr.write(Buffer.from([255, 0]));\n',
                   'function f(n) { return f(n + 1) + 1; }\nf(0);\n'),
    "typescript": ('declare var require: any;\nconst fs = require("fs");\nfs.closeSync(1);\n'
                   'fs.closeSync(2);\nconsole.log("x");\n',
                   'declare var process: any, Buffer: any;\n'
                   'process.stdout.write(Buffer.from([0, 255, 254, 10]));\n'
                   'process.stderr.write(Buffer.from([255, 0]));\n',
                   'function f(n: number): number { return f(n + 1) + 1; }\nf(0);\n'),
    "bash": ("exec 1>&- 2>&-\necho x\n", "printf '\\0\\377\\376\\n'\nprintf '\\377\\0' >&2\n",
             "f() { f; }\nf\n"),
    "lua": ('local out = io.open("/dev/null", "w")\nout:close()\nout:write("x")\n',
            'io.stdout:write("\\0\\255\\254\\n")\nio.stderr:write("\\255\\0")\n',
            'local function f(n) return 1 + f(n + 1) end\nf(0)\n'),
    "php": ('<?php\nfclose(STDOUT);\nfclose(STDERR);\necho "x\\n";\n',
            '<?php\nfwrite(STDOUT, "\\0\\xff\\xfe\\n");\nfwrite(STDERR, "\\xff\\0");\n',
            '<?php\nfunction f($n) { return f($n + 1) + 1; }\nf(0);\n'),
    "perl": ('close(STDOUT);\nclose(STDERR);\nprint "x\\n";\n',
             'binmode STDOUT;\nprint "\\0\\xff\\xfe\\n";\nprint STDERR "\\xff\\0";\n',
             'no warnings "recursion";\nsub f { return 1 + f($_[0] + 1); }\nf(0);\n'),
    "ruby": ('$stdout.close\n$stderr.close\nputs "x"\n',
             '$stdout.write("\\0\\xff\\xfe\\n".b)\n$stderr.write("\\xff\\0".b)\n',
             'def f(n) = 1 + f(n + 1)\nf(0)\n'),
    "r": ('sink(file("/dev/null"))\nclose(stdout())\ncat("x\\n")\n',
          'writeBin(as.raw(c(0, 255, 254, 10)), stdout())\n'
          'writeBin(as.raw(c(255, 0)), stderr())\n',
          'options(expressions = 500000)\nf <- function(n) 1 + f(n + 1)\nf(0)\n'),
}
NATIVE_ATTACKS = ("closes its stdout and stderr (Lua cannot: a closed file), then prints",
                  "writes NUL and bytes that are not UTF-8", "recurses without end")

# Builds that leave no program, or one that is not where the language runs it from.
NOT_A_PROGRAM = {
    "c": ("no main", "int f(void) { return 1; }\n"),
    "cpp": ("main is data", "extern const char main[] = \"\\xff\\xff\\xff\\xff\";\n"),
    "java": ("an interface, no class", "interface X {}\n"),
    "kotlin": ("a package and no main", "package x.y\nfun f() = 1\n"),
    "scala": ("a trait, no object", "trait T\n"),
    "csharp": ("a class without Main", "class A { void F() {} }\n"),
    "go": ("a package other than main", "package foo\nfunc F() {}\n"),
    "rust": ("a library crate", "#![crate_type = \"lib\"]\npub fn f() {}\n"),
    "d": ("no main", "int f() { return 1; }\n"),
    "haskell": ("a module other than Main", "module Foo where\nf :: Int\nf = 1\n"),
    "ocaml": ("a C primitive that is not there",
              "external f : unit -> unit = \"no_such_primitive\"\nlet () = f ()\n"),
    "racket": ("a #lang that is not there", "#lang no-such-language\n1\n"),
    "typescript": ("a module that only exports", "export function f() {}\n"),
}


def _item(language: str, program: str, **tests: object) -> CodeItem:
    return CodeItem(language=language, response=f"```{language}\n{program}```", limits=LIMITS,
                    tests={"type": "stdio", "cases": CASES, **tests})


def _deadline_s(item: CodeItem, settings: Settings) -> float:
    """The most an item may take: its compile step's wall limit, then each case's."""
    language = find_language(item.language)
    limits = run_limits(language, item.limits, 1)
    built = compile_limits(settings.compile_time_s).wall_s if language.compile else 0.0
    return built + case_count(item) * limits.wall_s + 5.0  # 5 s: the worker's own share


def _assert_own_failures(cases: list[str], items: list[CodeItem], results: list[Result]) -> None:
    settings = process_settings()
    wrong = [(case, result.status.value, result.reward, result.detail)
             for case, result in zip(cases, results, strict=True)
             if result.status.value not in BLAMES_SUBMISSION or result.reward != 0.0]
    assert not wrong, wrong
    late = [(case, result.elapsed_ms) for case, item, result in zip(cases, items, results,
                                                                   strict=True)
            if result.elapsed_ms > 1000 * _deadline_s(item, settings)]
    assert not late, late


def test_every_language_is_attacked_here():
    assert set(SHELL) == set(NATIVE) == set(LANGUAGES)


@pytest.mark.parametrize("language", sorted(SHELL))
def test_a_programs_own_failures_are_its_own(language: str):
    cases = [*SHELL_ATTACKS, *NATIVE_ATTACKS]
    programs = [SHELL[language].format(command) for command in SHELL_ATTACKS.values()]
    programs += NATIVE[language]
    if language in NOT_A_PROGRAM:
        name, program = NOT_A_PROGRAM[language]
        cases.append(name)
        programs.append(program)
    items = [_item(language, program) for program in programs]
    _assert_own_failures(cases, items, run_code_items(items))


# What the worker reads of a solution before its run (the in-process program's guards against
# shadowing, the calls driver's) must take time linear in it: at the door's 200 kB, each of
# these took hours of a worker, outside every run's limit (its chunk ended as infra_error past
# its deadline), or (D: a check per imported module and name the tests use) built a program of
# 130 MB; C's and C++'s unbalanced ones (`abs(` never closed) raised out of the guard.
IN_PROCESS_TESTS = {
    "rust": "fn main() {\n    for k in 1..4 {\n        assert!(scale(vec![1], k).contains(&k));\n"
            "    }\n}\n",
    "d": "import std.math;\nimport std.algorithm;\nunittest\n{\n    foreach (k; 1 .. 4)\n"
         "        assert(equal(scale([1L], k), [k]) && abs(k) > 0 && sqrt(1.0) == 1);\n}\n"
         "void main(){}",
    "c": "#include <assert.h>\n#include <stdlib.h>\n#include <string.h>\nint main() {\n"
         "    for (int k = 1; k < 4; k++) assert(scale(k) == k && abs(k) > 0);\n"
         "    assert(strcmp(\"a\", \"a\") == 0);\n    return 0;\n}\n",
    "cpp": "#include <cassert>\n#include <cstdlib>\n#include <cstring>\nint main() {\n"
           "    for (int k = 1; k < 4; k++) assert(scale(k) == k && abs(k) > 0);\n"
           "    assert(strcmp(\"a\", \"a\") == 0);\n}\n",
    "go": "func main() {\n    for k := 1; k < 4; k++ {\n"
          "        if scale(k) != k { panic(\"failed\") }\n    }\n}\n",
    "haskell": "main :: IO ()\nmain = mapM_ (\\k -> if scale k == k then return () else error "
               "\"failed\") [1, 2, 3]\n",
}
CALLS_TESTS = {
    "c": "#include <assert.h>\nint main() {\n    assert(scale(1) == 1);\n    return 0;\n}\n",
    "cpp": "#include <cassert>\nint main() {\n    auto candidate = scale;\n"
           "    assert(candidate(1) == 1);\n}\n",
    "haskell": "main :: IO ()\nmain = if scale 1 == 1 then return () else error \"failed\"\n",
}
C_SLOW = ["abs(" * 50_000, "abs()" * 40_000, "abs<" * 50_000, "abs(" * 25_000 + ")" * 25_000,
          "#define D(x) x\n" + "D(" * 50_000 + ")" * 50_000, "asm(" * 25_000 + ")" * 25_000,
          "/* " * 66_000]
SLOW_TO_READ = {
    ("rust", "in_process"): ["(" * 200_000, "impl " * 40_000, "fn f() -> Vec<i64> " * 10_000,
                             'r#"' * 66_000],
    ("d", "in_process"): ["import " * 28_000, "".join(f"import m{i};\n" for i in range(14_000)),
                          "/* " * 66_000],
    ("go", "in_process"): ["var " * 49_000, "type " * 39_000, "var var, " * 22_000,
                           "()" * 99_000, "(func main(" * 18_000],
    ("haskell", "in_process"): ["/* " * 66_000, "{-# OPTIONS -}" * 14_000],
    ("haskell", "outside"): ["/* " * 66_000, "{-# OPTIONS -}" * 14_000],
    ("c", "in_process"): C_SLOW,
    ("cpp", "in_process"): C_SLOW,
    ("cpp", "outside"): ["namespace std " * 14_000, "namespace std {" * 12_000 + "}" * 12_000,
                         "template < > " * 15_000, "template < > " + "a<" * 90_000],
}


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("language", "judged", "solution"), [
    (language, judged, solution) for (language, judged), solutions in SLOW_TO_READ.items()
    for solution in solutions], ids=lambda value: value[:12])
def test_the_worker_reads_any_solution_in_linear_time(language: str, judged: str,
                                                      solution: str):
    tests = AssertTests(code=(IN_PROCESS_TESTS if judged == "in_process" else CALLS_TESTS)[
        language])
    assert assert_tests.how_run(tests, language).judged == judged
    calls = assert_tests.how_run(tests, language).calls
    started = time.process_time()
    program = assert_tests.program(language, find_language(language).program(solution), tests,
                                   calls)
    assert time.process_time() - started < 5
    assert len(program) < 40 * len(solution) + 100_000


# The tests are read by the same code (to plan their calls, to guard them in process): a test
# set of the same size, however hostile, is read in linear time too (a dataset's tests come back
# for every sample of their problem; a quadratic read held each chunk of them for minutes).
SLOW_TESTS = {"go": ["func " * 39_000]}


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("language", "tests"), [
    (language, tests) for language, texts in SLOW_TESTS.items() for tests in texts],
    ids=lambda value: value[:12])
def test_the_worker_reads_any_tests_in_linear_time(language: str, tests: str):
    started = time.process_time()
    calls = assert_tests.how_run(AssertTests(code=tests), language).calls
    program = assert_tests.program(language, "", AssertTests(code=tests), calls)
    assert time.process_time() - started < 5
    assert len(program) < 40 * len(tests) + 100_000


# Responses cut off where the guard reads a definition (a parameter list, a macro's or an asm
# label's arguments, a namespace never closed): the program's own failure (it does not
# compile, or the guard refuses it as defining the library's `abs`), not the guard's.
CUT_OFF = ["long abs(long x", "long scale(long k) { return k; }\nlong abs(long x",
           "#define DEF(f) long f(long x) { return x; }\nDEF(abs",
           "long scale(long k) __asm__(\"abs\"", "namespace std { long get(long x"]


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_a_solution_cut_off_mid_definition_fails_as_its_own(language: str):
    cases = [f"{tests} tests, {cut!r}" for tests in ("in-process", "calls") for cut in CUT_OFF]
    items = [CodeItem(language=language, response=f"```{language}\n{cut}\n```", limits=LIMITS,
                      tests={"type": "assert", "code": tests})
             for tests in (IN_PROCESS_TESTS[language], CALLS_TESTS[language])
             for cut in CUT_OFF]
    _assert_own_failures(cases, items, run_code_items(items))


GUESS_INTERACTOR = (
    "#include <cstdio>\nint main(int argc, char** argv) {\n  long hidden = 0, guess = 0;\n"
    "  std::FILE* input = std::fopen(argv[1], \"r\");\n"
    "  if (!input || std::fscanf(input, \"%ld\", &hidden) != 1) return 3;\n"
    "  for (int asked = 0; asked < 40; asked++) {\n"
    "    char kind[2];\n    if (std::scanf(\"%1s %ld\", kind, &guess) != 2) return 1;\n"
    "    if (kind[0] == '!') return guess == hidden ? 0 : 1;\n"
    "    std::puts(guess < hidden ? \"<\" : guess > hidden ? \">\" : \"=\");\n"
    "    std::fflush(stdout);\n  }\n  return 1;\n}\n")


def _code(language: str, program: str, tests: dict) -> dict:
    return {"kind": "code", "language": language, "response": f"```{language}\n{program}```",
            "limits": LIMITS, "tests": tests}


def test_hostile_items_through_the_service_are_never_a_500_nor_masked(verifier_url: str):
    """The attacks above, and hostile programs facing a checker and an interactor, through
    the HTTP API: a 200 with each item's own failure, and the workers still score."""
    stdio = {"type": "stdio", "cases": CASES}
    checker = {**stdio, "checker": {"language": "python", "protocol": "cms", "limits": LIMITS,
                                    "code": "import sys\nprint(int(open(sys.argv[2]).read()"
                                            " == open(sys.argv[3]).read()))"}}
    interactive = {"type": "stdio", "cases": [{"input": "5\n"}],
                   "interactor": {"language": "cpp", "code": GUESS_INTERACTOR, "limits": LIMITS}}
    chmod = SHELL_ATTACKS["makes its work directory unreadable"]
    flood = "#include <cstdio>\nint main() { for (;;) std::puts(\"? 1\"); }\n"
    items = [
        _code("c", SHELL["c"].format(chmod), stdio),
        _code("java", SHELL["java"].format(chmod), stdio),
        _code("ruby", NATIVE["ruby"][1], checker),
        _code("cpp", SHELL["cpp"].format(chmod), checker),
        _code("cpp", flood, interactive),
        _code("cpp", SHELL["cpp"].format(chmod + "; kill -9 -1"), interactive),
        _code("go", NOT_A_PROGRAM["go"][1], stdio),
        _code("rust", NOT_A_PROGRAM["rust"][1], stdio),
        {"kind": "code", "language": "python", "response": "def f(x):\n    return 10 ** 400\n",
         "tests": {"type": "call", "fn_name": "f", "cases": [{"args": [1], "expected": 1.5}]}},
    ]
    response = httpx.post(f"{verifier_url}/v1/verify", json={"items": items}, timeout=600)
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert [(r["status"] in BLAMES_SUBMISSION, r["reward"]) for r in results] == [
        (True, 0.0)] * len(items), results
    right = _code("python", "print('x')\n", stdio)
    again = httpx.post(f"{verifier_url}/v1/verify", json={"items": [right] * 4}, timeout=120)
    assert [r["status"] for r in again.json()["results"]] == ["correct"] * 4
