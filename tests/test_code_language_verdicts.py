"""Per language, every verdict through its real toolchain in the jail: a run-time error, a
timeout, a memory limit, and MultiPL-E-style assert tests (the dataset's tests appended to the
solution) that pass, fail, or never run because the solution exits first.

Right, wrong and broken programs of every language are in test_code_languages.py. One request
per language; its four programs are compiled once each.
"""

from __future__ import annotations

import shutil
import textwrap

import httpx
import pytest

from rlvr_contract.schemas import CodeItem
from tests.procs import start_server
from verifier.config import Settings, SettingsError, load_settings
from verifier.kinds.code import (
    admitted_languages,
    check_code_item,
    installed_languages,
    run_code_items,
    supported_languages,
)
from verifier.kinds.code.extract import extract_code
from verifier.kinds.code.languages import find_language

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

def _program(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# language -> one program that fails by its first input character: r a run-time error, t a
# timeout, m a memory hog (one program, so a language's slow compiler builds it once).
FAILING = {language: _program(text) for language, text in {
    "python": """
        import sys
        mode = sys.stdin.read(1)
        if mode == "r":
            raise ValueError("boom")
        a = []
        while True:
            if mode == "m":
                a.append(bytearray(1 << 20))
        """,
    "c": """
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        int main(void) {
            int c = getchar(); volatile long i = 0;
            if (c == 'r') abort();
            for (;;) {
                if (c != 'm') { i++; continue; }
                char *p = malloc(1 << 20); if (!p) return 3; memset(p, 1, 1 << 20);
            }
        }
        """,
    "cpp": """
        #include <iostream>
        #include <stdexcept>
        #include <vector>
        int main() {
            char c; std::cin >> c; volatile long i = 0; std::vector<std::vector<char>> v;
            if (c == 'r') throw std::runtime_error("boom");
            for (;;) { if (c == 'm') v.emplace_back(1 << 20, 'x'); else i++; }
        }
        """,
    "java": """
        import java.util.*;
        public class Main {
            public static void main(String[] a) throws Exception {
                int c = System.in.read(); long i = 0; List<long[]> l = new ArrayList<>();
                if (c == 'r') throw new RuntimeException("boom");
                while (true) { if (c == 'm') l.add(new long[1 << 17]); else i++; }
            }
        }
        """,
    "javascript": """
        const c = require('fs').readFileSync(0, 'utf8')[0];
        if (c === 'r') throw new Error('boom');
        const a = [];
        while (true) if (c === 'm') a.push(new Array(1 << 20).fill(1));
        """,
    "typescript": """
        const c: string = require('fs').readFileSync(0, 'utf8')[0];
        if (c === 'r') throw new Error('boom');
        const a: number[][] = [];
        while (true) if (c === 'm') a.push(new Array(1 << 20).fill(1));
        """,
    "rust": """
        use std::io::Read;
        fn main() {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).unwrap();
            if s.starts_with('r') { panic!("boom"); }
            let mut v: Vec<Vec<u8>> = Vec::new();
            loop { if s.starts_with('m') { v.push(vec![1u8; 1 << 20]); } }
        }
        """,
    "bash": """
        read -r c
        if [ "$c" = r ]; then exit 3; fi
        x=a
        while :; do if [ "$c" = m ]; then x=$x$x; fi; done
        """,
    "go": """
        package main
        import "fmt"
        func main() {
            var c string
            fmt.Scan(&c)
            if c == "r" { panic("boom") }
            var s [][]byte
            for {
                if c != "m" { continue }
                b := make([]byte, 1<<20)
                for i := range b { b[i] = 1 }
                s = append(s, b)
            }
        }
        """,
    "csharp": """
        using System.Collections.Generic;
        class Program {
            static void Main() {
                var c = System.Console.ReadLine(); var l = new List<long[]>(); long i = 0;
                if (c == "r") throw new System.Exception("boom");
                while (true) { if (c == "m") l.Add(new long[1 << 17]); else i++; }
            }
        }
        """,
    "d": """
        import std.stdio;
        void main() {
            string c = readln(); ubyte[][] a;
            if (c[0] == 'r') throw new Exception("boom");
            for (;;) { if (c[0] == 'm') { auto b = new ubyte[1 << 20]; b[] = 1; a ~= b; } }
        }
        """,
    "lua": """
        local c = io.read(1)
        if c == 'r' then error('boom') end
        local t = {}
        while true do if c == 'm' then t[#t + 1] = string.rep('x', 1 << 20) .. #t end end
        """,
    "php": """
        <?php
        $c = fgetc(STDIN);
        if ($c === 'r') throw new Exception('boom');
        $a = [];
        while (true) if ($c === 'm') $a[] = str_repeat('x', 1 << 20) . count($a);
        """,
    "perl": """
        my $c = getc(STDIN);
        die 'boom' if $c eq 'r';
        my @a;
        while (1) { push @a, 'x' x (1 << 20) if $c eq 'm'; }
        """,
    "r": """
        c <- readLines(file('stdin'), n = 1)
        if (c == 'r') stop('boom')
        a <- list()
        while (TRUE) if (c == 'm') a[[length(a) + 1]] <- runif(1e6)
        """,
    "ruby": """
        c = $stdin.read(1)
        raise 'boom' if c == 'r'
        a = []
        loop { a << ('x' * (1 << 20)) + a.size.to_s if c == 'm' }
        """,
    "racket": r"""
        #lang racket/base
        (define c (read-char))
        (when (char=? c #\r) (error 'boom))
        (let loop ([l '()]) (loop (if (char=? c #\m) (cons (make-bytes 1000000 1) l) l)))
        """,
    "haskell": """
        loop :: Int -> Int
        loop n = if n < 0 then n else loop (n + 1)
        main :: IO ()
        main = do
          c <- getChar
          case c of
            'r' -> error "boom"
            't' -> print (loop 0)
            _ -> let xs = [(1 :: Integer) ..] in print (length xs + fromIntegral (sum xs))
        """,
    "ocaml": """
        let rec loop n = loop (n + 1)
        let () = match input_char stdin with
          | 'r' -> failwith "boom"
          | 't' -> loop 0
          | _ -> let l = ref [] in while true do l := Bytes.make 1000000 'x' :: !l done
        """,
    "scala": """
        object Main {
          def main(a: Array[String]): Unit = {
            val c = System.in.read(); val l = new java.util.ArrayList[Array[Long]](); var i = 0L
            if (c == 'r') throw new Exception("boom")
            while (true) { if (c == 'm') l.add(new Array[Long](1 << 17)) else i += 1 }
          }
        }
        """,
    "kotlin": """
        fun main() {
            val c = System.`in`.read(); val l = ArrayList<LongArray>(); var i = 0L
            if (c == 'r'.toInt()) throw Exception("boom")
            while (true) { if (c == 'm'.toInt()) l.add(LongArray(1 shl 17)) else i++ }
        }
        """,
}.items()}

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
LIMITS = {"time_s": 2, "memory_mb": 128}


def test_every_supported_language_has_cases_here():
    assert sorted(FAILING) == sorted(ASSERTS) == sorted(supported_languages())


@pytest.mark.parametrize("language", sorted(FAILING))
def test_verdicts(language: str):
    if language not in installed_languages():
        pytest.skip(f"{language} toolchain not installed")
    solution, passing, failing, early = ASSERTS[language]
    items = [CodeItem(language=language, response=FAILING[language], limits=LIMITS,
                      tests={"type": "stdio", "cases": [{"input": f"{mode}\n", "output": ""}]})
             for mode in "rtm"]
    items += [CodeItem(language=language, response=code, limits=LIMITS,
                       tests={"type": "assert", "code": tests})
              for code, tests in ((solution, passing), (solution, failing), (early, passing))]
    for item in items:
        assert check_code_item(item) is None
    results = run_code_items(items)
    statuses = [r.status.value for r in results]
    assert statuses == ["runtime_error", "timeout", "memory_limit", "correct",
                        "wrong", "runtime_error"], results
    assert [r.reward for r in results] == [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    assert results[5].detail["tests"][0]["message"] == "exited before the tests finished"


def test_aliases_and_fence_tags_of_every_language():
    # What users write in `language` and after a code fence, for the languages MultiPL-E has.
    for alias, name in (("ts", "typescript"), ("cs", "csharp"), ("c#", "csharp"), ("rb", "ruby"),
                        ("pl", "perl"), ("hs", "haskell"), ("kt", "kotlin"), ("golang", "go"),
                        ("ml", "ocaml"), ("rkt", "racket"), ("R", "r"), ("Lua", "lua")):
        assert find_language(alias).name == name, alias
    language = find_language("rb")
    response = "Try:\n```rb\nputs 1\n```\nOutput:\n```text\n1\n```\n"
    assert extract_code(response, (language.name, *language.aliases)) == "puts 1\n"


def test_a_language_without_its_toolchain_is_a_422(tmp_path):
    # VERIFIER_LANGUAGES names what the workers have; any other language is refused at the door
    # (never an infra_error per item), and /v1/info says what there is.
    server, url = start_server(tmp_path, "--workers", "1",
                               env={"VERIFIER_LANGUAGES": "python,c"})
    try:
        info = httpx.get(f"{url}/v1/info", timeout=120).json()
        assert info["languages"] == ["python", "c"]
        item = {"kind": "code", "language": "java", "response": "class Main {}",
                "tests": {"type": "stdio", "cases": [{"input": "", "output": ""}]}}
        response = httpx.post(f"{url}/v1/verify", json={"items": [item]}, timeout=60)
        assert response.status_code == 422, response.text
        assert response.json()["detail"][0]["loc"] == ["body", "items", 0, "language"]
        assert "java's toolchain is not installed" in response.json()["error"]
    finally:
        server.stop()


def test_admission_follows_the_toolchains_found():
    settings = Settings(languages="py,ts")
    item = CodeItem(language="rb", response="puts 1", tests={
        "type": "stdio", "cases": [{"input": "", "output": "1\n"}]})
    assert "ruby's toolchain is not installed here" in check_code_item(item, settings)
    assert check_code_item(item.model_copy(update={"language": "typescript"}), settings) is None
    assert admitted_languages(Settings()) == installed_languages(Settings())
    with pytest.raises(SettingsError, match="VERIFIER_LANGUAGES"):
        load_settings(languages="python,cobol")


def test_the_jail_holds_the_toolchains_not_the_host_usr():
    # Only the executables, the libraries and the toolchains' own directories are bound: the
    # host's /usr/local (its configuration too), /usr/src and /usr/share/doc are not there.
    probe = ("for p in /usr/local/etc /usr/local /usr/src /usr/share/doc /usr/lib/jvm /usr/bin/gcc;"
             " do if [ -e $p ]; then echo $p; fi; done\n")
    result = run_code_items([CodeItem(language="bash", response=probe, tests={
        "type": "stdio", "cases": [{"input": "", "output": "/usr/lib/jvm\n/usr/bin/gcc\n"}]})])[0]
    assert result.status.value == "correct", result
