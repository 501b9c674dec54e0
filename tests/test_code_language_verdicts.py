"""Per language, every verdict through its real toolchain in the jail: a run-time error, a
timeout, a memory limit, and MultiPL-E-style assert tests (the dataset's tests appended to the
solution) that pass, fail, or never run because the solution exits first.

Right, wrong and broken programs of every language are in test_code_languages.py. One request
per language, so each jail start and compiler warm-up is shared by its eight items.
"""

from __future__ import annotations

import shutil

import pytest

from verifier.code import check_code_item, installed_languages, run_code_items, supported_languages
from verifier.schemas import CodeItem

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

# language -> (runtime error, timeout, memory hog)
FAILING = {
    "python": ("raise ValueError('boom')\n", "while True:\n    pass\n",
               "a = []\nwhile True:\n    a.append(bytearray(1 << 20))\n"),
    "c": ("#include <stdlib.h>\nint main(void){abort();}\n",
          "int main(void){volatile long i=0;for(;;)i++;}\n",
          "#include <stdlib.h>\n#include <string.h>\nint main(void){for(;;){char*p=malloc(1<<20);"
          "if(!p)return 3;memset(p,1,1<<20);}}\n"),
    "cpp": ("#include <stdexcept>\nint main(){throw std::runtime_error(\"boom\");}\n",
            "int main(){volatile long i=0;for(;;)i++;}\n",
            "#include <vector>\nint main(){std::vector<std::vector<char>> v;"
            "for(;;)v.emplace_back(1<<20,'x');}\n"),
    "java": ("public class Main { public static void main(String[] a) { throw new "
             "RuntimeException(\"boom\"); } }\n",
             "public class Main { public static void main(String[] a) { long i = 0; "
             "while (true) i++; } }\n",
             "import java.util.*;\npublic class Main { public static void main(String[] a) { "
             "List<long[]> l = new ArrayList<>(); while (true) l.add(new long[1 << 17]); } }\n"),
    "javascript": ("throw new Error('boom');\n", "while (true) {}\n",
                   "const a = [];\nwhile (true) a.push(new Array(1 << 20).fill(1));\n"),
    "rust": ("fn main() { panic!(\"boom\"); }\n", "fn main() { loop {} }\n",
             "fn main() { let mut v: Vec<Vec<u8>> = Vec::new(); loop { v.push(vec![1u8; 1 << 20]);"
             " } }\n"),
    "bash": ("exit 3\n", "while :; do :; done\n", "x=a\nwhile :; do x=$x$x; done\n"),
    "go": ("package main\nfunc main() { panic(\"boom\") }\n", "package main\nfunc main() { for"
    " {} }\n",
           "package main\nfunc main() { var s [][]byte; for { b := make([]byte, 1<<20); "
           "for i := range b { b[i] = 1 }; s = append(s, b) } }\n"),
    "typescript": ("throw new Error('boom');\n", "while (true) {}\n",
                   "const a: number[][] = [];\nwhile (true) a.push(new Array(1 << 20).fill(1));\n"),
    "csharp": ("class Program { static void Main() { throw new System.Exception(\"boom\"); } }\n",
               "class Program { static void Main() { long i = 0; while (true) i++; } }\n",
               "using System.Collections.Generic;\nclass Program { static void Main() { var l = "
               "new List<long[]>(); while (true) l.Add(new long[1 << 17]); } }\n"),
    "d": ("void main() { throw new Exception(\"boom\"); }\n", "void main() { for (;;) {} }\n",
          "void main() { ubyte[][] a; for (;;) { auto b = new ubyte[1 << 20]; b[] = 1; a ~= b; }"
          " }\n"),
    "lua": ("error('boom')\n", "while true do end\n",
            "local t = {}\nwhile true do t[#t + 1] = string.rep('x', 1 << 20) .. #t end\n"),
    "php": ("<?php\nthrow new Exception('boom');\n", "<?php\nwhile (true) {}\n",
            "<?php\n$a = [];\nwhile (true) $a[] = str_repeat('x', 1 << 20) . count($a);\n"),
    "perl": ("die 'boom';\n", "while (1) {}\n",
             "my @a;\nwhile (1) { push @a, 'x' x (1 << 20); }\n"),
    "r": ("stop('boom')\n", "while (TRUE) {}\n",
          "a <- list()\nwhile (TRUE) a[[length(a) + 1]] <- runif(1e6)\n"),
    "ruby": ("raise 'boom'\n", "loop {}\n", "a = []\nloop { a << ('x' * (1 << 20)) + a.size.to_s"
    " }\n"),
    "racket": ("#lang racket/base\n(error 'boom)\n", "#lang racket/base\n(let loop () (loop))\n",
               "#lang racket/base\n(let loop ([l '()]) (loop (cons (make-bytes 1000000 1) l)))\n"),
    "haskell": ("main :: IO ()\nmain = error \"boom\"\n",
                "loop :: Int -> Int\nloop n = if n < 0 then n else loop (n + 1)\n"
                "main :: IO ()\nmain = print (loop 0)\n",
                "main :: IO ()\nmain = let xs = [(1 :: Integer) ..] in print (length xs + "
                "fromIntegral (sum xs))\n"),
    "ocaml": ("let () = failwith \"boom\"\n", "let rec loop n = loop (n + 1)\nlet () = loop 0\n",
              "let () = let l = ref [] in while true do l := Bytes.make 1000000 'x' :: !l done\n"),
    "scala": ("object Main { def main(a: Array[String]): Unit = throw new Exception(\"boom\") }\n",
              "object Main { def main(a: Array[String]): Unit = { var i = 0L; while (true) i += 1 }"
              " }\n",
              "object Main { def main(a: Array[String]): Unit = { val l = new java.util.ArrayList"
              "[Array[Long]](); while (true) l.add(new Array[Long](1 << 17)) } }\n"),
    "kotlin": ("fun main() { throw Exception(\"boom\") }\n",
               "fun main() { var i = 0L; while (true) i++ }\n",
               "fun main() { val l = ArrayList<LongArray>(); while (true) l.add(LongArray(1 shl"
               " 17))"
               " }\n"),
}

# language -> (solution defining add, tests that pass, tests that fail, a solution whose add
# exits 0 before the tests could finish). Tests follow each language's MultiPL-E harness.
ASSERTS = {
    "python": ("def add(a, b):\n    return a + b\n", "assert add(1, 2) == 3\n",
               "assert add(1, 2) == 4\n", "import sys\ndef add(a, b):\n    sys.exit(0)\n"),
    "c": ("int add(int a, int b) { return a + b; }\n",
          "#include <assert.h>\nint main() {\n    assert(add(1, 2) == 3);\n    return 0;\n}\n",
          "#include <assert.h>\nint main() {\n    assert(add(1, 2) == 4);\n    return 0;\n}\n",
          "#include <stdlib.h>\nint add(int a, int b) { exit(0); }\n"),
    "cpp": ("int add(int a, int b) { return a + b; }\n",
            "#include <cassert>\nint main() {\n    auto candidate = add;\n"
            "    assert(candidate(1, 2) == 3);\n}\n",
            "#include <cassert>\nint main() {\n    auto candidate = add;\n"
            "    assert(candidate(1, 2) == 4);\n}\n",
            "#include <cstdlib>\nint add(int a, int b) { std::exit(0); }\n"),
    "java": ("import java.util.*;\nclass Problem {\n    public static long add(long a, long b) { "
             "return a + b; }\n",
             "    public static void main(String[] args) {\n    assert(add((1l), (2l)) == (3l));\n"
             "    }\n\n}\n",
             "    public static void main(String[] args) {\n    assert(add((1l), (2l)) == (4l));\n"
             "    }\n\n}\n",
             "class Problem {\n    public static long add(long a, long b) { System.exit(0); "
             "return 0; }\n"),
    "javascript": ("function add(a, b) { return a + b; }\n",
                   "const assert = require('node:assert');\nfunction test() {\n"
                   "  let candidate = add;\n  assert.deepEqual(candidate(1, 2), 3);\n}\ntest();\n",
                   "const assert = require('node:assert');\nfunction test() {\n"
                   "  let candidate = add;\n  assert.deepEqual(candidate(1, 2), 4);\n}\ntest();\n",
                   "function add(a, b) { process.exit(0); }\n"),
    "rust": ("fn add(a: i64, b: i64) -> i64 { a + b }\n",
             "fn main() {\n    let candidate = add;\n    assert_eq!(candidate(1, 2), 3);\n}\n",
             "fn main() {\n    let candidate = add;\n    assert_eq!(candidate(1, 2), 4);\n}\n",
             "fn add(_a: i64, _b: i64) -> i64 { std::process::exit(0) }\n"),
    "bash": ("add() {\n    echo $(( $1 + $2 ))\n}\n",
             "set -e\ncandidate() {\n    add \"$@\"\n}\nrun_test() {\n"
             "    [[ $(candidate \"1\" \"2\") = \"3\" ]]\n}\nrun_test\n",
             "set -e\ncandidate() {\n    add \"$@\"\n}\nrun_test() {\n"
             "    [[ $(candidate \"1\" \"2\") = \"4\" ]]\n}\nrun_test\n",
             "add() {\n    echo 3\n}\nexit 0\n"),
    "go": ("package main\nfunc add(a int, b int) int { return a + b }\n",
           "func main() {\n    if add(1, 2) != 3 { panic(\"assertion failed\") }\n}\n",
           "func main() {\n    if add(1, 2) != 4 { panic(\"assertion failed\") }\n}\n",
           "package main\nimport \"os\"\nfunc add(a int, b int) int { os.Exit(0); return 0 }\n"),
    "typescript": ("function add(a: number, b: number): number { return a + b; }\n",
                   "declare var require: any;\nconst assert = require('node:assert');\n"
                   "function test() {\n  let candidate = add;\n"
                   "  assert.deepEqual(candidate(1, 2), 3);\n}\ntest();\n",
                   "declare var require: any;\nconst assert = require('node:assert');\n"
                   "function test() {\n  let candidate = add;\n"
                   "  assert.deepEqual(candidate(1, 2), 4);\n}\ntest();\n",
                   "function add(a: number, b: number): number { process.exit(0); }\n"),
    "csharp": ("using System;\nusing System.Diagnostics;\nclass Problem {\n"
               "    public static long Add(long a, long b) { return a + b; }\n",
               "    public static void Main(string[] args) {\n    Debug.Assert(Add(1L, 2L) =="
               " 3L);\n"
               "    }\n\n}\n",
               "    public static void Main(string[] args) {\n    Debug.Assert(Add(1L, 2L) =="
               " 4L);\n"
               "    }\n\n}\n",
               "using System;\nusing System.Diagnostics;\nclass Problem {\n"
               "    public static long Add(long a, long b) { "
               "System.Environment.Exit(0); return 0; }\n"),
    "d": ("long add(long a, long b) { return a + b; }\n",
          "unittest\n{\n    alias candidate = add;\n    assert(candidate(1L, 2L) == 3L);\n}\n"
          "void main(){}\n",
          "unittest\n{\n    alias candidate = add;\n    assert(candidate(1L, 2L) == 4L);\n}\n"
          "void main(){}\n",
          "import core.stdc.stdlib : exit;\nlong add(long a, long b) { exit(0); return 0; }\n"),
    "lua": ("local function add(a, b) return a + b end\n",
            "local candidate = add\nassert(candidate(1, 2) == 3)\n",
            "local candidate = add\nassert(candidate(1, 2) == 4)\n",
            "local function add(a, b) os.exit(0) end\n"),
    "php": ("<?php\nfunction add($a, $b) { return $a + $b; }\n",
            "function candidate(...$args) {\n    return add(...$args);\n}\n\nfunction test():"
            " void {\n"
            "    if (candidate(1, 2) !== 3) { throw new Exception(\"Test failed!\");"
            " }\n}\n\ntest();\n",
            "function candidate(...$args) {\n    return add(...$args);\n}\n\nfunction test():"
            " void {\n"
            "    if (candidate(1, 2) !== 4) { throw new Exception(\"Test failed!\");"
            " }\n}\n\ntest();\n",
            "<?php\nfunction add($a, $b) { exit(0); }\n"),
    "perl": ("sub add { my ($a, $b) = @_; return $a + $b; }\n",
             "my $candidate = \\&add;\nif ($candidate->(1, 2) != 3) { die \"assertion failed\";"
             " }\n",
             "my $candidate = \\&add;\nif ($candidate->(1, 2) != 4) { die \"assertion failed\";"
             " }\n",
             "sub add { exit 0; }\n"),
    "r": ("add <- function(a, b) {\n    a + b\n}\n",
          "test_humaneval <- function() {\ncandidate <- add\n"
          "    stopifnot(isTRUE(all.equal(candidate(1, 2), 3)))\n}\ntest_humaneval()\n",
          "test_humaneval <- function() {\ncandidate <- add\n"
          "    stopifnot(isTRUE(all.equal(candidate(1, 2), 4)))\n}\ntest_humaneval()\n",
          "add <- function(a, b) {\n    quit(save = 'no', status = 0)\n}\n"),
    "ruby": ("def add(a, b)\n  a + b\nend\n",
             "raise 'assertion failed' unless add(1, 2) == 3\n",
             "raise 'assertion failed' unless add(1, 2) == 4\n", "def add(a, b)\n  exit 0\nend\n"),
    "racket": ("#lang racket/base\n(define (add a b) (+ a b))\n",
               "(require rackunit)\n\n(define (test-humaneval) \n\n  (let (( candidate add))\n"
               "    (check-equal? (candidate 1 2) 3)\n))\n\n(test-humaneval)\n",
               "(require rackunit)\n\n(define (test-humaneval) \n\n  (let (( candidate add))\n"
               "    (check-equal? (candidate 1 2) 4)\n))\n\n(test-humaneval)\n",
               "#lang racket/base\n(define (add a b) (exit 0))\n"),
    "haskell": ("add :: Int -> Int -> Int\nadd a b = a + b\n",
                "main :: IO ()\nmain = if add 1 2 == 3 then return () else error"
                " \"assertion failed\"\n",
                "main :: IO ()\nmain = if add 1 2 == 4 then return () else error"
                " \"assertion failed\"\n",
                "import System.Exit\nimport System.IO.Unsafe\nadd :: Int -> Int -> Int\n"
                "add _ _ = unsafePerformIO exitSuccess\n"),
    "ocaml": ("let add a b = a + b\n", "let () = assert (add 1 2 = 3)\n",
              "let () = assert (add 1 2 = 4)\n", "let add a b = exit 0\n"),
    "scala": ("object Problem {\n    def add(a : Long, b : Long) : Long = a + b\n",
              "    def main(args: Array[String]) = {\n    assert(add((1l), (2l)) == (3l));\n   "
              " }\n\n}\n",
              "    def main(args: Array[String]) = {\n    assert(add((1l), (2l)) == (4l));\n   "
              " }\n\n}\n",
              "object Problem {\n    def add(a : Long, b : Long) : Long = sys.exit(0)\n"),
    "kotlin": ("fun add(a : Long, b : Long) : Long = a + b\n",
               "fun main() {\n    var arg00 : Long = 1L\n    var x0 : Long = add(arg00, 2L);\n"
               "    var v0 : Long = 3L;\n    assert(x0 == v0)\n}\n",
               "fun main() {\n    var arg00 : Long = 1L\n    var x0 : Long = add(arg00, 2L);\n"
               "    var v0 : Long = 4L;\n    assert(x0 == v0)\n}\n",
               "fun add(a : Long, b : Long) : Long { kotlin.system.exitProcess(0) }\n"),
}
# A failed test is `wrong` where the language says an assertion failed; bash's only say so by
# their exit status.
FAILED_TEST = {"bash": "runtime_error"}
STDIO = {"type": "stdio", "cases": [{"input": "", "output": ""}]}
LIMITS = {"time_s": 2, "memory_mb": 128}


def test_every_supported_language_has_cases_here():
    assert sorted(FAILING) == sorted(ASSERTS) == sorted(supported_languages())


@pytest.mark.parametrize("language", sorted(FAILING))
def test_verdicts(language: str):
    if language not in installed_languages():
        pytest.skip(f"{language} toolchain not installed")
    runtime, timeout, memory = FAILING[language]
    solution, passing, failing, early = ASSERTS[language]
    items = [CodeItem(language=language, response=code, tests=STDIO, limits=LIMITS)
             for code in (runtime, timeout, memory)]
    items += [CodeItem(language=language, response=code, limits=LIMITS,
                       tests={"type": "assert", "code": tests})
              for code, tests in ((solution, passing), (solution, failing), (early, passing))]
    for item in items:
        assert check_code_item(item) is None
    results = run_code_items(items)
    statuses = [r.status.value for r in results]
    assert statuses == ["runtime_error", "timeout", "memory_limit", "correct",
                        FAILED_TEST.get(language, "wrong"), "runtime_error"], results
    assert [r.reward for r in results] == [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    assert results[5].detail["tests"][0]["message"] == "exited before the tests finished"
