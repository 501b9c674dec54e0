"""Per language: a right, a wrong and a broken program, through the real toolchains in the jail."""

from __future__ import annotations

import shutil

import pytest

from rl_client.schemas import CodeItem
from verifier.code import installed_languages, run_code_items, supported_languages
from verifier.code.languages import java_main_class, java_source_name, scala_main_object

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


def test_java_class_and_file_names():
    assert java_source_name("public final class Foo { }") == "Foo.java"
    assert java_source_name("class Foo { }") == "Main.java"
    code = "class Helper { }\nclass Prog {\n  public static void main(String[] a) {}\n}\n"
    assert java_main_class(code) == "Prog"
    assert java_main_class("public class Solution { static void f() {} }") == "Solution"
    nested = ("import java.util.*;\nclass Problem {\n"
              "  static class Helper extends ArrayList<Long> { }\n"
              "  public static void main(String[] a) { String s = \"class X {\"; }\n}\n")
    assert java_main_class(nested) == "Problem"  # not the class nested before main
    assert scala_main_object("object Problem {\n  object Helper { def f = 1 }\n"
                             "  def main(args: Array[String]) = {}\n}\n") == "Problem"
