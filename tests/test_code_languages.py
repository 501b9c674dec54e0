"""Per language: a right, a wrong and a broken program, through the real toolchains in the jail."""

from __future__ import annotations

import random
import re
import secrets
import shutil

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.kinds.code import (
    appended,
    installed_languages,
    process_settings,
    run_code_items,
    supported_languages,
)
from verifier.kinds.code.appended import _csharp_main_class
from verifier.kinds.code.languages import (
    java_main_class,
    java_source_name,
    jvm,
    kotlin_main_class,
    racket_program,
    scala_main_object,
)
from verifier.kinds.code.limits import compile_limits
from verifier.sandbox import ArtefactStore, RunRequest
from verifier.sandbox.backend import JAIL_PYTHON_FLAGS
from verifier.sandbox.factory import get_backend

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

TESTS = {"type": "stdio", "cases": [{"input": "1 2\n", "output": "3\n"},
                                    {"input": "40 2\n", "output": "42\n"},
                                    {"input": "-5 5\n", "output": "0\n"}]}

# language → (right, wrong, broken); wrong prints a-b, broken does not build (or parse).
PROGRAMS = {
    "python": ("a, b = map(int, input().split())\nprint(a + b)\n",
               "a, b = map(int, input().split())\nprint(a - b)\n",
               "a, b = map(int, input().split()\nprint(a + b)\n"),
    "c": ('#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);'
          'printf("%ld\\n",a+b);return 0;}\n',
          '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);'
          'printf("%ld\\n",a-b);return 0;}\n',
          '#include <stdio.h>\nint main(void){long a,b scanf("%ld %ld",&a,&b);}\n'),
    "cpp": ("#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a+b<<'\\n';}\n",
            "#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a-b<<'\\n';}\n",
            "#include <iostream>\nint main(){std::cout<<undeclared<<'\\n';}\n"),
    "java": ("import java.util.*;\npublic class Solution {\n  public static void main(String[] x) {"
             "\n    Scanner s = new Scanner(System.in);\n    System.out.println(s.nextLong() + "
             "s.nextLong());\n  }\n}\n",
             "import java.util.*;\nclass Main {\n  public static void main(String[] x) {\n    "
             "Scanner s = new Scanner(System.in);\n    System.out.println(s.nextLong() - "
             "s.nextLong());\n  }\n}\n",
             "public class Main { public static void main(String[] x) { int y = \"s\"; } }\n"),
    "javascript": ("const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/)"
                   ".map(Number);\nconsole.log(a + b);\n",
                   "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/)"
                   ".map(Number);\nconsole.log(a - b);\n",
                   "const [a, b] = ;\n"),
    "rust": ("use std::io::Read;\nfn main(){let mut s=String::new();std::io::stdin()"
             ".read_to_string(&mut s).unwrap();let v:Vec<i64>=s.split_whitespace().map(|x|x"
             ".parse().unwrap()).collect();println!(\"{}\",v[0]+v[1]);}\n",
             "use std::io::Read;\nfn main(){let mut s=String::new();std::io::stdin()"
             ".read_to_string(&mut s).unwrap();let v:Vec<i64>=s.split_whitespace().map(|x|x"
             ".parse().unwrap()).collect();println!(\"{}\",v[0]-v[1]);}\n",
             "fn main(){ let x: i32 = \"no\"; }\n"),
    "bash": ("read a b\necho $((a + b))\n", "read a b\necho $((a - b))\n",
             "read a b\necho $((a + ))\n"),
    "go": ("package main\nimport \"fmt\"\nfunc main() { var a, b int; fmt.Scan(&a, &b); "
           "fmt.Println(a + b) }\n",
           "package main\nimport \"fmt\"\nfunc main() { var a, b int; fmt.Scan(&a, &b); "
           "fmt.Println(a - b) }\n",
           "package main\nfunc main() { x := 1 }\n"),
    "typescript": ("const [a, b]: number[] = require('fs').readFileSync(0, 'utf8').trim()"
                   ".split(/\\s+/).map(Number);\nconsole.log(a + b);\n",
                   "const [a, b]: number[] = require('fs').readFileSync(0, 'utf8').trim()"
                   ".split(/\\s+/).map(Number);\nconsole.log(a - b);\n",
                   "const x: number = ;\n"),
    "csharp": ("using System;\nclass Program { static void Main() { var p = Console.ReadLine()"
               ".Split(' '); Console.WriteLine(long.Parse(p[0]) + long.Parse(p[1])); } }\n",
               "using System;\nclass Program { static void Main() { var p = Console.ReadLine()"
               ".Split(' '); Console.WriteLine(long.Parse(p[0]) - long.Parse(p[1])); } }\n",
               "class Program { static void Main() { int x = \"s\"; } }\n"),
    "d": ("import std.stdio;\nvoid main() { long a, b; readf(\" %d %d\", &a, &b); "
          "writeln(a + b); }\n",
          "import std.stdio;\nvoid main() { long a, b; readf(\" %d %d\", &a, &b); "
          "writeln(a - b); }\n",
          "void main() { int x = \"s\"; }\n"),
    "lua": ("local a, b = io.read('n', 'n')\nprint(a + b)\n",
            "local a, b = io.read('n', 'n')\nprint(a - b)\n", "local a = (1 +\n"),
    "php": ("<?php\n[$a, $b] = array_map('intval', explode(' ', trim(fgets(STDIN))));\n"
            "echo $a + $b, \"\\n\";\n",
            "<?php\n[$a, $b] = array_map('intval', explode(' ', trim(fgets(STDIN))));\n"
            "echo $a - $b, \"\\n\";\n", "<?php\necho (1 + ;\n"),
    "perl": ("my ($a, $b) = split ' ', <STDIN>;\nprint $a + $b, \"\\n\";\n",
             "my ($a, $b) = split ' ', <STDIN>;\nprint $a - $b, \"\\n\";\n", "print (1 + ;\n"),
    "r": ("x <- scan(file('stdin'), quiet = TRUE)\ncat(x[1] + x[2], '\\n', sep = '')\n",
          "x <- scan(file('stdin'), quiet = TRUE)\ncat(x[1] - x[2], '\\n', sep = '')\n",
          "x <- (1 +\n"),
    "ruby": ("a, b = gets.split.map(&:to_i)\nputs a + b\n",
             "a, b = gets.split.map(&:to_i)\nputs a - b\n", "puts (1 +\n"),
    "racket": ("#lang racket/base\n(define a (read))\n(define b (read))\n(displayln (+ a b))\n",
               "#lang racket/base\n(define a (read))\n(define b (read))\n(displayln (- a b))\n",
               "#lang racket/base\n(displayln (+ 1 2)\n"),
    "haskell": ("main :: IO ()\nmain = do\n  [a, b] <- map read . words <$> getLine\n"
                "  print (a + b :: Integer)\n",
                "main :: IO ()\nmain = do\n  [a, b] <- map read . words <$> getLine\n"
                "  print (a - b :: Integer)\n",
                "main :: IO ()\nmain = putStrLn (1 :: Int)\n"),
    "ocaml": ("let () = Scanf.scanf \" %d %d\" (fun a b -> Printf.printf \"%d\\n\" (a + b))\n",
              "let () = Scanf.scanf \" %d %d\" (fun a b -> Printf.printf \"%d\\n\" (a - b))\n",
              "let () = print_int \"s\"\n"),
    "scala": ("object Main { def main(args: Array[String]): Unit = { val Array(a, b) = "
              "scala.io.StdIn.readLine().trim.split(\"\\\\s+\").map(_.toLong); "
              "println(a + b) } }\n",
              "object Main { def main(args: Array[String]): Unit = { val Array(a, b) = "
              "scala.io.StdIn.readLine().trim.split(\"\\\\s+\").map(_.toLong); "
              "println(a - b) } }\n",
              "object Main { def main(args: Array[String]): Unit = { val x: Int = \"s\" } }\n"),
    "kotlin": ("fun main() { val (a, b) = readLine()!!.trim().split(Regex(\"\\\\s+\"))"
               ".map { it.toLong() }; println(a + b) }\n",
               "fun main() { val (a, b) = readLine()!!.trim().split(Regex(\"\\\\s+\"))"
               ".map { it.toLong() }; println(a - b) }\n",
               "fun main() { val x: Int = \"s\" }\n"),
}
# Interpreted languages report a syntax error when the program runs.
BROKEN_STATUS = {language: "runtime_error" for language in (
    "javascript", "bash", "lua", "php", "perl", "r", "ruby", "racket")}


def test_every_supported_language_has_programs_here():
    assert sorted(PROGRAMS) == sorted(supported_languages())


def test_every_toolchain_is_installed_here():
    # /v1/info lists these; on this project's machines every toolchain must be present.
    assert sorted(installed_languages()) == sorted(supported_languages())


@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_right_wrong_broken(language: str):
    if language not in installed_languages():
        pytest.skip(f"{language} toolchain not installed")
    right, wrong, broken = PROGRAMS[language]
    items = [CodeItem(language=language, response=f"```{language}\n{code}```\n", tests=TESTS,
                      limits={"time_s": 5}) for code in (right, wrong, broken)]
    results = run_code_items(items)
    assert [r.status.value for r in results] == [
        "correct", "wrong", BROKEN_STATUS.get(language, "compile_error")], results
    assert [r.reward for r in results] == [1.0, 0.0, 0.0]
    assert results[0].detail["passed"] == 3
    if language not in BROKEN_STATUS and language != "python":
        assert results[2].detail["compile"]["message"]
    assert all("output" not in str(test) for test in results[0].detail["tests"])


def test_compiled_once_then_cached():
    right = PROGRAMS["c"][0] + "/* cache probe */\n"
    first, second = run_code_items([
        CodeItem(language="c", response=right, tests=TESTS),
        CodeItem(language="c", response=f"Here you go:\n```c\n{right}```\n", tests=TESTS)])
    assert first.status.value == second.status.value == "correct"
    assert first.detail["compile"]["status"] in ("ok", "cached")
    assert second.detail["compile"]["status"] == "cached"  # same source, built once


GO_TESTIFY_LOOP = ("package main\n\nimport (\n    \"testing\"\n"
                   "    \"github.com/stretchr/testify/assert\"\n)\n\n"
                   "func TestTwice(t *testing.T) {\n    for k := 1; k < 3; k++ {\n"
                   "        assert.Equal(t, 2*k, Twice(k))\n    }\n}\n")


def test_go_builds_with_testify_start_from_a_warm_cache():
    """Each Go program of in-process testify tests (HumanEval-X's that loop) compiled testify,
    with net/http and yaml, anew: about 10 s of CPU a program. Now a build of the verifier's
    own fills a cache once per jail, and each build starts from a copy of it."""
    if "go" not in installed_languages():
        pytest.skip("go is not installed")
    items = [CodeItem(language="go", response=f"func Twice(x int) int {{ return x * {two} }}\n"
                      f"// {secrets.token_hex(8)}\n", tests={"type": "assert",
                                                            "code": GO_TESTIFY_LOOP})
             for two in (2, 2, 3)]
    results = run_code_items(items)
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("correct", "in_process"), ("correct", "in_process"), ("wrong", "in_process")]
    assert all(r.detail["compile"]["time_ms"] < 4000 for r in results[1:]), results


def test_java_class_and_file_names():
    assert java_source_name("public final class Foo { }") == "Foo.java"
    assert java_source_name("class Foo { }") == "Main.java"
    assert java_source_name("class S { public class Node { } }\npublic class Main { }") == (
        "Main.java")  # a nested public class names no file
    assert java_source_name('// public class X\nclass S { String s = "public class Y"; }') == (
        "Main.java")
    assert java_source_name("public record R(int x) { }") == "R.java"
    code = "class Helper { }\nclass Prog {\n  public static void main(String[] a) {}\n}\n"
    assert java_main_class(code) == "Prog"
    assert java_main_class("public class Solution { static void f() {} }") == "Solution"
    nested = ("import java.util.*;\nclass Problem {\n"
              "  static class Helper extends ArrayList<Long> { }\n"
              "  public static void main(String[] a) { String s = \"class X {\"; }\n}\n")
    assert java_main_class(nested) == "Problem"  # not the class nested before main
    assert java_main_class("public class Main {\n  static class Solver {\n    public static "
                           "void main(String[] a) {}\n  }\n}\n") == "Main.Solver"
    assert kotlin_main_class('@file:JvmName("Sol")\npackage p\nfun main() {}\n') == "p.Sol"
    assert kotlin_main_class('// @file:JvmName("Sol")\nfun main() {}\n') == "MainKt"
    assert scala_main_object("object Problem {\n  object Helper { def f = 1 }\n"
                             "  def main(args: Array[String]) = {}\n}\n") == "Problem"
    assert scala_main_object("package a.b\nobject Main extends App { }\n") == "a.b.Main"
    assert scala_main_object("package object util { }\nobject Main extends App { }\n") == "Main"


def test_cpp_programs_have_boost_and_libcrypto():
    """HumanEval-X's C++ uses `boost::any` (CPP/22, CPP/137) and OpenSSL's MD5 (CPP/162, built
    with -lcrypto by its harness): its canonical solutions failed to compile."""
    if "cpp" not in installed_languages():
        pytest.skip("cpp is not installed")
    code = ("#include <boost/any.hpp>\n#include <openssl/md5.h>\n#include <cstdio>\n"
            "int main() {\n  boost::any a = 7;\n  unsigned char d[MD5_DIGEST_LENGTH];\n"
            "  MD5_CTX c;\n  MD5_Init(&c);\n  MD5_Update(&c, \"a\", 1);\n  MD5_Final(d, &c);\n"
            "  printf(\"%d %02x\\n\", boost::any_cast<int>(a), d[0]);\n}\n")
    [result] = run_code_items([CodeItem(
        language="cpp", response=code,
        tests={"type": "stdio", "cases": [{"input": "", "output": "7 0c\n"}]})])
    assert (result.status.value, result.reward) == ("correct", 1.0), result.detail


def test_a_scala_package_names_the_object_to_run():
    """Objects of a `package a.b` are a.b.Name: the run names them so (it named them without
    their package, which no JVM finds: a right solution failed)."""
    if "scala" not in installed_languages():
        pytest.skip("scala is not installed")
    [result] = run_code_items([CodeItem(
        language="scala", response="package a.b\nobject Main {\n"
        "  def main(args: Array[String]): Unit =\n"
        "    println(2 * scala.io.StdIn.readLine().trim.toLong)\n}\n",
        tests={"type": "stdio", "cases": [{"input": "3\n", "output": "6\n"}]})])
    assert (result.status.value, result.reward) == ("correct", 1.0), result.detail




# Builds that are no program, and programs that do not start: the submission's failure in every
# language that builds (compile_error or runtime_error), never the sandbox's (infra_error).
NOT_A_PROGRAM = {
    "c: no main": ("c", "int add(int a, int b) { return a + b; }\n", "compile_error"),
    "c: over the artefact cap": ("c", "char big[200 << 20] = {1};\nint main(void) "
                                      "{ return big[5]; }\n", "compile_error"),
    "cpp: no main": ("cpp", "int add(int a, int b) { return a + b; }\n", "compile_error"),
    "java: no class": ("java", "// a comment and nothing else\n", "compile_error"),
    "java: no main": ("java", "class Sum { }\n", "runtime_error"),
    "java: a package a thousand directories deep": (
        "java", "package " + ".".join(["a"] * 1100) + ";\nclass Sum { }\n", "compile_error"),
    "java: a public class no file can be named after": (
        "java", f"public class {'A' * 300} {{ public static void main(String[] a) {{ }} }}\n",
        "compile_error"),
    "rust: a library crate": ("rust", '#![crate_type = "lib"]\npub fn add(a: i64, b: i64) -> '
                                      "i64 { a + b }\n", "runtime_error"),
    "rust: a static library": ("rust", '#![crate_type = "staticlib"]\npub fn f() {}\n',
                               "runtime_error"),
    "go: a package other than main": ("go", "package sum\nfunc Add(a, b int) int "
                                            "{ return a + b }\n", "runtime_error"),
    "go: an external test package": ("go", "package main_test\nfunc main() {}\n",
                                     "runtime_error"),
    "go: no main function": ("go", "package main\nfunc add() {}\n", "compile_error"),
    "typescript: not TypeScript": ("typescript", "let = ;\n", "compile_error"),
    "csharp: no Main": ("csharp", "class Sum { }\n", "compile_error"),
    "d: no main": ("d", "int add(int a, int b) { return a + b; }\n", "compile_error"),
    "haskell: a module other than Main": ("haskell", "module Sum where\nadd :: Int -> Int -> "
                                                     "Int\nadd = (+)\n", "compile_error"),
    "ocaml: not OCaml": ("ocaml", "let = in\n", "compile_error"),
    "scala: no object": ("scala", "class Sum\n", "runtime_error"),
    "kotlin: no main": ("kotlin", "fun add(a: Int, b: Int) = a + b\n", "runtime_error"),
}


@pytest.mark.parametrize("case", sorted(NOT_A_PROGRAM))
def test_a_build_that_is_no_program_is_the_submissions_failure(case: str):
    language, code, status = NOT_A_PROGRAM[case]
    if language not in installed_languages():
        pytest.skip(f"{language} toolchain not installed")
    [result] = run_code_items([CodeItem(language=language, response=f"```{language}\n{code}```",
                                        tests=TESTS)])
    assert (result.status.value, result.reward) == (status, 0.0), result


def test_a_compile_step_that_leaves_no_file_is_the_programs_failure():
    """A build whose program is a link (or missing) is refused as the compile step's own
    result (the program's doing: a Template Haskell splice can write files), not reported as
    the sandbox failing to store it."""
    backend = get_backend(process_settings())
    python = backend.tools()["python"]
    for script in ("import os\nos.symlink('/etc/passwd', 'main')", "pass",
                   "import os\nos.mkfifo('main')"):
        outcome = backend.run(RunRequest(
            argv=[python, *JAIL_PYTHON_FLAGS, "-c", script], limits=compile_limits(10),
            store=ArtefactStore(secrets.token_hex(16), ("main",)), runner_runs=1))
        assert outcome.exit_code == 0 and outcome.error is None, outcome
        assert not outcome.stored and "no main" in outcome.unusable_artefacts, outcome


def test_a_compile_step_that_leaves_an_unreadable_or_huge_tree_is_the_programs_failure():
    """A build that leaves its program or its work directory unreadable (a preprocessor of
    `{-# OPTIONS_GHC -F -pgmF #-}` or a splice can chmod them), or nested too deep (past
    Python's recursion) is refused as the compile step's own result (compile_error), not
    reported as the sandbox failing to store it (infra_error)."""
    backend = get_backend(process_settings())
    python = backend.tools()["python"]
    for script in ("open('main', 'w').write('x')\nimport os\nos.chmod('main', 0)",
                   "import os\nos.makedirs('main/a')\nos.chmod('main', 0)",
                   "import os\nos.makedirs('main/a')\nos.chmod('main', 0o600)",
                   "open('main', 'w').write('x')\nimport os\nos.chmod('/tmp', 0)",
                   "import os\nos.mkdir('main')\nos.chdir('main')\nfor _ in range(1500):\n"
                   "    os.mkdir('a')\n    os.chdir('a')"):
        outcome = backend.run(RunRequest(
            argv=[python, *JAIL_PYTHON_FLAGS, "-c", script], limits=compile_limits(10),
            store=ArtefactStore(secrets.token_hex(16), ("main",)), runner_runs=1))
        assert outcome.exit_code == 0 and outcome.error is None, (script, outcome)
        assert not outcome.stored and outcome.unusable_artefacts, (script, outcome)


MACROS = "#define A0 x\n" + "".join(f"#define A{i + 1} A{i} A{i}\n" for i in range(30))
# A compiler that runs out of time (2 s here) or floods its diagnostics (over the output cap).
COMPILER_LIMITS = {
    "cpp: a macro that expands past the time limit": (
        "cpp", MACROS + "int main() { int x = 0; return A30; }\n"),
    "rust: a macro that expands past the time limit": (
        "rust", "macro_rules! b { () => {1}; ($x:tt $($r:tt)*) => { b!($($r)*) + b!($($r)*) }; }"
                "\nfn main() { println!(\"{}\", b!(a a a a a a a a a a a a a a a a a a a a a a a"
                " a a a a a a a a)); }\n"),
    "c: diagnostics past the output cap": ("c", "#error\n" * 25_000),
}


@pytest.mark.parametrize("case", sorted(COMPILER_LIMITS))
def test_a_compiler_out_of_time_or_flooding_is_a_compile_error(case: str):
    language, code = COMPILER_LIMITS[case]
    settings = process_settings().model_copy(update={"compile_time_s": 2.0})
    [result] = run_code_items([CodeItem(language=language, response=f"```{language}\n{code}```",
                                        tests=TESTS)], settings)
    assert (result.status.value, result.reward) == ("compile_error", 0.0), result
    message = result.detail["compile"]["message"]
    assert "time limit" in message or "too much output" in message, message


# What the entry points were found by: regexes that rescan to the end for each class (and
# each line below blank lines), minutes on a hostile 200 kB program, before any deadline.
MAIN_REGEXES = {
    "csharp": (re.compile(r"\bclass\s+(\w+)[^{]*\{(?:(?!\bclass\b).)*?\bstatic\s+(?:void|int)"
                          r"\s+Main\s*\(", re.S),
               lambda code: None if (name := _csharp_main_class(code)) == "Program" else name),
    "kotlin": (re.compile(r"^\s*package\s+([\w.]+)", re.M),
               lambda code: None if (name := kotlin_main_class(code)) == "MainKt"
               else name[: -len(".MainKt")]),
}
MAIN_PIECES = ["class ", "class", " A", "B ", "{", "}", " static void main(", "static  void main (",
               "static int Main(", "static void Main(", " ", "\n", "subclass ", "classes",
               "Foo.class", "package a.b", " package", "\r", "\t", "class\nX", "static", "void"]


@pytest.mark.parametrize("language", sorted(MAIN_REGEXES))
def test_entry_points_are_found_as_the_regexes_said(language: str):
    regex, finds = MAIN_REGEXES[language]
    rng = random.Random(5)
    for _ in range(20_000):
        code = "".join(rng.choice(MAIN_PIECES) for _ in range(rng.randint(0, 20)))
        found = regex.search(code)
        if language == "csharp" and found and found.group(1) == "Program":
            continue  # the fallback's own name
        assert finds(code) == (found.group(1) if found else None), code


@pytest.mark.timeout(120)
@pytest.mark.parametrize("code", ["class A " * 250_000, "class A {" * 200_000, "\n" * 2_000_000,
                                  " \n" * 1_000_000, "class A { static " * 120_000,
                                  "/* " * 700_000, '"\\' * 1_000_000, "'\\" * 1_000_000,
                                  "\"'\\" * 700_000])
def test_entry_points_are_found_in_linear_time(code: str):
    """2 MB of each: the regexes took minutes at the door's 200 kB, hours here (a quote no
    quote closes, each escaped in the scan from the one before: a scan to the line's end from
    each)."""
    for language in ("java", "scala", "kotlin", "csharp", "go"):
        if appended.supported(language):
            appended.assemble(language, code, "")
    for find in (java_main_class, java_source_name, kotlin_main_class, scala_main_object,
                 racket_program):
        find(code)


def test_jvm_runs_have_the_java_se_modules_only():
    # jdk.unsupported's sun.misc.Unsafe wrote into the JDK's own objects (the cached Long a
    # calls driver boxes a result into): a run uses the java.se runtime where the host has it
    # (sandbox/images/java-se-runtime.sh), else the JDK's java limited to those modules.
    tools = {"java": "/jdk/bin/java", "java-se": "/se/bin/java"}
    assert jvm(tools, 256)[0] == "/se/bin/java" and "--limit-modules" not in jvm(tools, 256)
    assert jvm({"java": "/jdk/bin/java"}, 256)[:3] == ["/jdk/bin/java", "--limit-modules",
                                                       "java.se"]
