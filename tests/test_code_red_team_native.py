"""Rust, D, Haskell, OCaml and Racket assert tests against solutions that attack them, through
the real compilers and jail.

Each attack is a wrong solution (its functions return wrong values) with a trick that beat the
tests when they ran in its process: shadowing what the tests use (macros, operators, the
Prelude, rackunit's checks, `require`, `#%app`), replacing D's unit-test runner or its assert
handler, module constructors, static initialisers, panic hooks and exit handlers that exit 0,
equality that lies, forged records, floods, macros, rewrite rules and a preprocessor that rewrite
the tests. An attack is appended to the wrong solution, or is a whole program where it says
`{wrong}`. Each must earn nothing, and never an infra_error, whatever the tests' shape:
MultiPL-E's (judged outside the solution's process) and one that is not plain calls (a loop,
run in its process, hardened).
"""

from __future__ import annotations

import shutil

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.kinds.code import run_code_items
from verifier.kinds.code.dialects import DIALECTS

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

LIMITS = {"time_s": 10, "memory_mb": 512}


# --------------------------------------------------------------------------- Rust

RUST_RIGHT = ("fn scale(v: Vec<i64>, k: i64) -> Vec<i64> { v.iter().map(|x| x * k).collect() }\n"
              "fn half(x: i64) -> f64 { x as f64 / 2.0 }\n")
RUST_WRONG = ("fn scale(v: Vec<i64>, k: i64) -> Vec<i64> { v.iter().map(|x| x + k).collect() }\n"
              "fn half(x: i64) -> f64 { x as f64 }\n")
RUST_TESTS = {
    "multiple": ("fn main() {\n    let candidate = scale;\n"
                 "    assert_eq!(candidate(vec![1, 2], 3), vec![3, 6]);\n"
                 "    assert_eq!(candidate(Vec::<i64>::new(), 3), Vec::<i64>::new());\n"
                 "    assert!((half(3) - 1.5).abs() < 1e-9);\n}\n"),
    "loop": ("fn main() {\n    for k in 1..4 {\n"
             "        assert_eq!(scale(vec![1, 2], k), vec![k, 2 * k]);\n    }\n"
             "    assert!(half(3) == 1.5);\n}\n"),
}
_RUST_CTOR = ('#[link_section = ".init_array"]\n#[used]\nstatic INIT: extern "C" fn() = {{ '
              'extern "C" fn init() {{ {} }} init }};\n')
RUST_ATTACKS = {
    "assert_eq and assert shadowed": ("macro_rules! assert_eq { ($($t:tt)*) => {}; }\n"
                                      "macro_rules! assert { ($($t:tt)*) => {}; }\n"),
    "assert_eq exported and std made the crate itself": (
        "#[macro_export]\nmacro_rules! assert_eq { ($($t:tt)*) => {}; }\n"
        "#[macro_export]\nmacro_rules! assert { ($($t:tt)*) => {}; }\n"
        "extern crate std as real_std;\npub mod fs {\n"
        "    pub fn write(p: &str, d: Vec<u8>) -> crate::real_std::io::Result<()> {\n"
        "        crate::real_std::fs::write(p, d) }\n"
        "    pub fn read(p: &str) -> crate::real_std::io::Result<Vec<u8>> {\n"
        "        crate::real_std::fs::read(p) } }\n"
        "extern crate self as std;\n"),
    "equality that lies": (
        "struct Liar;\nimpl PartialEq<Vec<i64>> for Liar { fn eq(&self, _: &Vec<i64>) -> bool "
        "{ true } }\nimpl PartialEq<f64> for Liar { fn eq(&self, _: &f64) -> bool { true } }\n"
        "impl std::fmt::Debug for Liar { fn fmt(&self, f: &mut std::fmt::Formatter) -> "
        "std::fmt::Result { write!(f, \"Liar\") } }\n"
        "fn scale(_v: Vec<i64>, _k: i64) -> Liar { Liar }\nfn half(_x: i64) -> Liar { Liar }\n"
        "{nothing}"),
    "exit(0) from a static initialiser": _RUST_CTOR.format("std::process::exit(0);"),
    "panic hook that exits 0": _RUST_CTOR.format(
        "std::panic::set_hook(Box::new(|_| std::process::exit(0)));"),
    "exit(0) from a Drop": (
        "struct Quit;\nimpl Drop for Quit { fn drop(&mut self) { std::process::exit(0); } }\n"
        "fn scale(v: Vec<i64>, k: i64) -> Vec<i64> { let _quit = Quit; "
        "v.iter().map(|x| x + k).collect() }\nfn half(x: i64) -> f64 { x as f64 }\n{nothing}"),
    "record forged from a static initialiser": _RUST_CTOR.format(
        "use std::io::{Read, Write}; use std::os::unix::io::FromRawFd; "
        "let mut record = Vec::new(); let mut input = unsafe { std::fs::File::from_raw_fd(4) }; "
        "let _ = input.read_to_end(&mut record); let mut output = unsafe { "
        "std::fs::File::from_raw_fd(3) }; let _ = output.write_all(&record); "
        "std::process::exit(0);"),
    "records forged from a static initialiser": _RUST_CTOR.format(
        "use std::io::Write; use std::os::unix::io::FromRawFd; let mut output = unsafe { "
        "std::fs::File::from_raw_fd(3) }; let _ = output.write_all(b\"[0,[\\\"l\\\",3,6]]\\n"
        "[1,[\\\"l\\\"]]\\n[0,1.5]\\n\"); std::process::exit(0);"),
    # The driver's trait, implemented for a type of its own, writing the right value.
    "the driver's Record implemented for its own type": (
        "struct Fake(Vec<i64>);\nimpl crate::__verifier_calls::Record for Fake {\n"
        "    fn put(&self, out: &mut String) { out.push_str(if self.0.is_empty() { \"[\\\"l\\\"]\""
        " } else { \"[\\\"l\\\",3,6]\" }); }\n}\n"
        "fn scale(v: Vec<i64>, k: i64) -> Fake { Fake(v.iter().map(|x| x + k).collect()) }\n"
        "fn half(x: i64) -> f64 { x as f64 / 2.0 }\n{nothing}"),
    "output flood": _RUST_CTOR.format("for _ in 0..(1u64 << 24) { println!(\"[0,1]\"); }"),
    "garbage on the channel": _RUST_CTOR.format(
        "use std::io::Write; use std::os::unix::io::FromRawFd; let mut output = unsafe { "
        "std::fs::File::from_raw_fd(3) }; "
        "let _ = output.write_all(b\"{\\\"passed\\\": true}\\n[\");"),
}
RUST_IN_PROCESS_ONLY = {"equality that lies", "record forged from a static initialiser"}

# The driver's std reaches C's library, and the program is linked as one: a `write` the
# solution defines under C's name (the link takes its own) rewrote the records; so could a
# `memcpy`, `realloc` or global allocator of its own.
_RUST_WRITE = (
    'extern "C" {{ fn syscall(n: i64, ...) -> i64; }}\n{attribute}\n'
    'pub unsafe extern "C" fn write(fd: i32, b: *const u8, n: usize) -> isize {{\n'
    '    let s = String::from_utf8_lossy(std::slice::from_raw_parts(b, n)).replace('
    '"[0,[\\"l\\",4,5]]", "[0,[\\"l\\",3,6]]").replace("[2,3.0]", "[2,1.5]");\n'
    '    if syscall(1, fd as i64, s.as_ptr(), s.len()) < 0 {{ -1 }} else {{ n as isize }}\n}}\n')
RUST_SYMBOL_ATTACKS = {
    "a write of C's, no_mangle": _RUST_WRITE.format(attribute="#[no_mangle]"),
    "a write of C's, export_name": _RUST_WRITE.format(
        attribute='#[unsafe(export_name = "write")]'),
}


@pytest.mark.parametrize("attack", sorted(RUST_SYMBOL_ATTACKS))
def test_rust_a_symbol_the_calls_driver_reaches_is_refused(attack: str):
    result = run_code_items([_item("rust", RUST_WRONG + RUST_SYMBOL_ATTACKS[attack],
                                   RUST_TESTS["multiple"])])[0]
    assert (result.status.value, result.detail["judged"]) == ("runtime_error", "outside"), result
    assert "a name of its own choosing" in str(result.detail), result


def test_rust_a_trait_of_the_solutions_for_an_array_is_refused():
    # `impl Cheat for [i64; N]`: the `;` of the array type ended the impl's header for the
    # guard, which then never read its body; the tests' `contains` on an array reached it.
    tests = ("fn main() {\n    for k in 1..4 {\n        assert!(pair(k).contains(&(2 * k)));\n"
             "    }\n}\n")
    wrong = ("fn pair(k: i64) -> [i64; 2] { [k, k + 1] }\ntrait Cheat { fn contains(&self, _: &i64)"
             " -> bool; }\nimpl<const N: usize> Cheat for [i64; N] { fn contains(&self, _: &i64) "
             "-> bool { true } }\n")
    right = "fn pair(k: i64) -> [i64; 2] { [k, 2 * k] }\n"
    results = run_code_items([_item("rust", wrong, tests), _item("rust", right, tests)])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("runtime_error", "in_process"), ("correct", "in_process")], results


# --------------------------------------------------------------------------- D

D_RIGHT = ("long[] scale(long[] v, long k) { long[] r; foreach (x; v) r ~= x * k; return r; }\n"
           "double half(long x) { return x / 2.0; }\n")
D_WRONG = ("long[] scale(long[] v, long k) { long[] r; foreach (x; v) r ~= x + k; return r; }\n"
           "double half(long x) { return x; }\n")
D_TESTS = {
    "multiple": ("unittest\n{\n    alias candidate = scale;\n\n"
                 "    assert(candidate([1L, 2L], 3L) == [3L, 6L]);\n"
                 "    assert(candidate([], 3L) == []);\n    assert(half(3L) == 1.5);\n}\n"
                 "void main(){}"),
    "loop": ("unittest\n{\n    foreach (k; 1 .. 4)\n"
             "        assert(scale([1L, 2L], k) == [k, 2 * k]);\n    assert(half(3L) == 1.5);\n}\n"
             "void main(){}"),
}
D_ATTACKS = {
    "assertHandler that returns": (
        "shared static this() { import core.exception : assertHandler; "
        "assertHandler = (string file, size_t line, string message) nothrow {}; }\n"),
    "unit-test runner replaced": (
        "shared static this() { import core.runtime : Runtime, UnitTestResult; "
        "Runtime.extendedModuleUnitTester = () => UnitTestResult(0, 0, true, false); }\n"),
    "module unit tester replaced": (
        "shared static this() { import core.runtime : Runtime; "
        "Runtime.moduleUnitTester = () => true; }\n"),
    "module constructor exits 0": ("shared static this() { import core.stdc.stdlib : exit; "
                                   "exit(0); }\n"),
    "module destructor exits 0": ("shared static ~this() { import core.stdc.stdlib : _Exit; "
                                  "_Exit(0); }\n"),
    "interposed _exit and abort": ('extern(C) void _exit(int) {}\nextern(C) void abort() {}\n'),
    "equality that lies": (
        "struct Liar { bool opEquals(T)(T) const { return true; } }\n"
        "Liar scale(long[] v, long k) { return Liar(); }\nLiar half(long x) { return Liar(); }\n"
        "{nothing}"),
    "record forged from a module constructor": (
        "shared static this() { import std.file : read, write; import core.stdc.stdlib : exit;"
        " write(\"/proc/self/fd/3\", read(\"/proc/self/fd/4\")); exit(0); }\n"),
    "output flood": ("shared static this() { import std.stdio : writeln; "
                     "foreach (i; 0 .. 1 << 24) writeln(\"[0,1]\"); }\n"),
}
D_IN_PROCESS_ONLY = {"equality that lies", "record forged from a module constructor"}

# --------------------------------------------------------------------------- Haskell

HASKELL_RIGHT = ("import Control.Monad (unless)\nscale :: [Int] -> Int -> [Int]\n"
                 "scale v k = map (* k) v\nhalf :: Int -> Double\nhalf x = fromIntegral x / 2\n")
HASKELL_WRONG = ("scale :: [Int] -> Int -> [Int]\nscale v k = map (+ k) v\n"
                 "half :: Int -> Double\nhalf x = fromIntegral x\n")
HASKELL_TESTS = {
    "multiple": ("\nmain :: IO ()\nmain = do\n  let candidate = scale\n"
                 "  if candidate [1,2] 3 == [3,6] then pure () else error \"assertion failed\"\n"
                 "  if candidate [] 3 == [] then pure () else error \"assertion failed\"\n"
                 "  if half 3 == 1.5 then pure () else error \"assertion failed\"\n  pure ()"),
    "loop": ("main :: IO ()\nmain = do\n  mapM_ (\\k -> unless (scale [1,2] k == [k, 2 * k]) "
             "(error \"assertion failed\")) [1..3]\n"
             "  if half 3 == 1.5 then pure () else error \"assertion failed\"\n"),
}
HASKELL_ATTACKS = {
    "error shadowed": ("import Prelude hiding (error)\nimport Control.Monad (unless)\n{wrong}"
                       "error :: String -> IO ()\nerror _ = pure ()\n"),
    "error and unless shadowed": (
        "import Prelude hiding (error)\nimport Control.Monad hiding (unless)\n{wrong}"
        "error :: String -> IO ()\nerror _ = pure ()\nunless :: Bool -> IO () -> IO ()\n"
        "unless _ _ = pure ()\n"),
    "== shadowed with the Prelude hidden": (
        "import Prelude hiding ((==))\nimport Control.Monad (unless)\n{wrong}"
        "(==) :: a -> a -> Bool\n_ == _ = True\n"),
    "ifThenElse rebound": (
        "{-# LANGUAGE RebindableSyntax #-}\nimport Prelude\nimport Control.Monad (unless)\n"
        "{wrong}ifThenElse :: Bool -> a -> a -> a\nifThenElse _ t _ = t\n"),
    "overlapping Eq instance that lies": (
        "{-# LANGUAGE FlexibleInstances #-}\nimport Control.Monad (unless)\n"
        "scale :: [Int] -> Int -> [Int]\nscale v k = map (+ k) v\nhalf :: Int -> Double\n"
        "half x = fromIntegral x / 2\ninstance {-# OVERLAPPING #-} Eq [Int] where\n"
        "  _ == _ = True\n{nothing}"),
    # The driver shows each value: an overlapping Show of its own for what scale returns.
    "overlapping Show instance that lies": (
        "{-# LANGUAGE FlexibleInstances #-}\nimport Control.Monad (unless)\n"
        "scale :: [Int] -> Int -> [Int]\nscale v k = map (+ k) v\nhalf :: Int -> Double\n"
        "half x = fromIntegral x / 2\ninstance {-# OVERLAPPING #-} Show [Int] where\n"
        "  show [] = \"[]\"\n  show _ = \"[3,6]\"\n{nothing}"),
    # A type of its own, named as the Prelude's, whose Show shows the right list: the driver
    # recorded the show with the type's unqualified name, as if it were the Prelude's Integer.
    "a result type of its own whose Show lies": (
        "import Prelude hiding (Integer)\nimport Control.Monad (unless)\nnewtype Integer = I Int"
        "\ninstance Show Integer where\n  show (I n) = show (if n == 4 then 3 else if n == 5 "
        "then 6 else n)\nscale :: [Int] -> Int -> [Integer]\nscale v k = map (I . (+ k)) v\n"
        "half :: Int -> Double\nhalf x = fromIntegral x / 2\n{nothing}"),
    "unsafePerformIO exit": (
        "import System.Exit\nimport System.IO.Unsafe\nimport Control.Monad (unless)\n"
        "scale :: [Int] -> Int -> [Int]\nscale _ _ = unsafePerformIO exitSuccess\n"
        "half :: Int -> Double\nhalf _ = unsafePerformIO exitSuccess\n{nothing}"),
    "record forged by unsafePerformIO": (
        "import System.Exit\nimport System.IO.Unsafe\nimport Control.Monad (unless)\n"
        "scale :: [Int] -> Int -> [Int]\nscale _ _ = unsafePerformIO (readFile "
        "\"/proc/self/fd/4\" >>= appendFile \"/proc/self/fd/3\" >> exitSuccess)\n"
        "half :: Int -> Double\nhalf _ = 0\n{nothing}"),
    "CPP macro of a name the tests use": ("{-# LANGUAGE CPP #-}\nimport Control.Monad (unless)\n"
                                          "{wrong}#define error const (pure ())\n"),
    "rewrite rules that make the tests' comparisons true": (
        "import Control.Monad (unless)\n{wrong}{-# NOINLINE scale #-}\n{-# NOINLINE half #-}\n"
        "{-# RULES \"scale\" forall v k w. scale v k == w = True\n"
        "  ; \"half\" forall x y. half x == y = True #-}\n"),
    "preprocessor of OPTIONS_GHC that rewrites the tests": (
        "{-# OPTIONS_GHC -F -pgmF /usr/bin/sh #-}\n{-\nsed 's/[A-Za-z0-9_.]*error \"assertion "
        "failed\"/pure ()/g' \"$1\" > \"$2\"; exit 0\n-}\nimport Control.Monad (unless)\n{wrong}"),
}
# The driver shows each value through the Prelude's Show: an overlapping instance of the
# solution's, however the pragma is spelled or built, a rewrite rule of the driver's `show`, or
# a preprocessor of OPTIONS_GHC that rewrites the driver, made it show the right value.
_LYING_SHOW = ("scale :: [Int] -> Int -> [Int]\nscale v k = map (+ k) v\nhalf :: Int -> Double\n"
               "half x = fromIntegral x / 2\n")
_SHOWS = " Show [Int] where\n  show [] = \"[]\"\n  show _ = \"[3,6]\"\n{nothing}"
HASKELL_ATTACKS.update({
    "overlapping Show, the pragma in lower case": (
        "{-# LANGUAGE FlexibleInstances #-}\n" + _LYING_SHOW + "instance {-# overlapping #-}"
        + _SHOWS),
    "overlapping Show, the pragma built by a CPP macro": (
        "{-# LANGUAGE CPP, FlexibleInstances #-}\n" + _LYING_SHOW + "#define CAT(a, b) a/**/b\n"
        "instance {-# CAT(OVER,LAPPING) #-}" + _SHOWS),
    "overlapping Show, the pragma joined by CPP": (
        "{-# LANGUAGE CPP, FlexibleInstances #-}\n" + _LYING_SHOW + "instance {-# OVER\\\n"
        "LAPPING #-}" + _SHOWS),
    "overlapping Show made by Template Haskell": (
        "{-# LANGUAGE TemplateHaskell, FlexibleInstances #-}\nimport Language.Haskell.TH\n"
        "import Data.Data\n" + _LYING_SHOW + "$(do { t <- [t| Show [Int] |]; pure [InstanceD "
        "(Just (fromConstr (indexConstr (dataTypeOf (undefined :: Overlap)) 2))) [] t [FunD "
        "(mkName \"show\") [Clause [ListP []] (NormalB (LitE (StringL \"[]\"))) [], Clause "
        "[WildP] (NormalB (LitE (StringL \"[3,6]\"))) []]]] })\n{nothing}"),
    # `--→` is an operator, not a comment (a symbol follows the dashes): what follows on its line
    # is code.
    "overlapping Show after an operator that starts with dashes": (
        "{-# LANGUAGE FlexibleInstances #-}\n" + _LYING_SHOW + "infixl 5 --→\n(--→) :: Int -> "
        "Int -> Int\na --→ _ = a; instance {-# OVERLAPPING #-} Show [Int] where { show [] = "
        "\"[]\"; show _ = \"[3,6]\" }\n{nothing}"),
    "rewrite rule of the driver's show": (
        _LYING_SHOW + "{-# RULES \"show\" forall (v :: [Int]). VerifierP.show v = if v == [4, 5] "
        "then \"[3,6]\" else \"[]\" #-}\n{nothing}"),
    "preprocessor of OPTIONS_GHC that rewrites the driver": (
        "{-# OPTIONS_GHC -F -pgmF /usr/bin/sh #-}\n{-\nsed 's/(VerifierP.show value)/(if "
        "VerifierP.show value == \"[4,5]\" then \"[3,6]\" else VerifierP.show value)/' \"$1\" >"
        " \"$2\"; exit 0\n-}\n" + _LYING_SHOW + "{nothing}"),
})
HASKELL_IN_PROCESS_ONLY = {"overlapping Eq instance that lies", "record forged by unsafePerformIO"}

# --------------------------------------------------------------------------- OCaml

OCAML_RIGHT = "let scale v k = List.map (fun x -> x * k) v\nlet half x = float_of_int x /. 2.\n"
OCAML_WRONG = "let scale v k = List.map (fun x -> x + k) v\nlet half x = float_of_int x\n"
OCAML_TESTS = {
    "multiple": ("\nlet assertions =\n let candidate = scale in\n"
                 "  (assert ((candidate [1; 2] 3) = [3; 6]));\n"
                 "  (assert ((candidate [] 3) = []));\n  (assert ((half 3) = 1.5));\n  ()\n"),
    "loop": ("let () = for k = 1 to 3 do assert (List.length (scale [1; 2] k) = 2 && "
             "scale [1; 2] k = [k; 2 * k]) done\nlet () = assert (not (half 3 <> 1.5))\n"),
}
OCAML_ATTACKS = {
    "(=) shadowed": "let (=) _ _ = true\nlet (<>) _ _ = false\n",
    "(&&) and not shadowed": "let (&&) _ _ = true\nlet not _ = true\nlet (=) _ _ = true\n",
    "List shadowed": ("module List = struct let length _ = 2 let map = Stdlib.List.map end\n"
                      "let (=) _ _ = true\n"),
    # The driver's serialiser opened Stdlib after the solution: a Stdlib of its own.
    "Stdlib of its own": (
        "let scale v k = List.map (fun x -> x + k) v\nlet half x = float_of_int x /. 2.\n"
        "module Stdlib = struct\n  include Stdlib\n  let string_of_int n = if n = 4 then \"3\" "
        "else if n = 5 then \"6\" else Stdlib.string_of_int n\nend\n{nothing}"),
    "exit 0 at module init": "let () = exit 0\n",
    "uncaught exception handler exits 0": (
        "let () = Printexc.set_uncaught_exception_handler (fun _ _ -> exit 0)\n"),
    "at_exit handler that exits 0": "let () = at_exit (fun () -> exit 0)\n",
    "record forged at module init": (
        "let () = let i = open_in_bin \"/proc/self/fd/4\" in let s = really_input_string i "
        "(in_channel_length i) in let o = open_out_gen [Open_wronly; Open_binary] 0 "
        "\"/proc/self/fd/3\" in output_string o s; close_out o; exit 0\n"),
}
OCAML_IN_PROCESS_ONLY = {"record forged at module init"}



def test_ocaml_a_result_of_another_type_than_the_tests_compare_is_refused_as_ocaml_does():
    # `=` compares representations, which the tests' types made alike: an int 1 is `true`'s,
    # a variant of the solution's own may be a list's, bytes a string's. Such a result passed
    # outside, where the tests would not compile; judged outside and in-process, it is now a
    # compile error both ways, and a right one passes both ways.
    tests = ("\nlet assertions =\n let candidate = f in\n  (assert ((candidate 3) = {}));\n"
             "  ()\n")
    cases = [("let f x = x mod 2\n", "true"),
             ("type t = C of int * t | N\nlet f x = C (1, C (2, N))\n", "[1; 2]"),
             ("let f x = Some (Bytes.of_string \"ab\")\n", "(Some \"ab\")"),
             ("let f x = Some [(x, \"a\")]\n", "(Some [(3, \"a\")])")]
    items = [_item("ocaml", solution, tests.format(expected) + extra)
             for solution, expected in cases
             for extra in ("", "let () = for i = 1 to 1 do ignore i done\n")]
    results = run_code_items(items)
    assert [r.status.value for r in results] == ["compile_error"] * 6 + ["correct"] * 2, results


# --------------------------------------------------------------------------- Racket

RACKET_RIGHT = ("#lang racket\n(define (scale v k) (map (lambda (x) (* x k)) v))\n"
                "(define (half x) (/ x 2.0))\n")
RACKET_WRONG = ("#lang racket\n(define (scale v k) (map (lambda (x) (+ x k)) v))\n"
                "(define (half x) (* x 1.0))\n")
RACKET_TESTS = {
    "multiple": ("(require rackunit)\n\n(define (test-humaneval) \n\n  (let (( candidate scale))\n"
                 "    (check-within (candidate (list 1 2) 3) (list 3 6) 0.001)\n"
                 "    (check-within (candidate (list ) 3) (list ) 0.001)\n"
                 "    (check-within (half 3) 1.5 0.001)\n))\n\n(test-humaneval)"),
    "equal": ("(require rackunit)\n(define candidate scale)\n"
              "(check-equal? (candidate (list 1 2) 3) (list 3 6))\n(check-equal? (half 3) 1.5)\n"),
    "loop": ("(require rackunit)\n(for ([k (in-range 1 4)])\n"
             "  (check-equal? (scale (list 1 2) k) (list k (* 2 k))))\n"
             "(check-true (= (half 3) 1.5))\n"),
}
RACKET_ATTACKS = {
    # Names bound to syntax are evaluated in the solution's namespace (a define/contract's):
    # one whose use exits, or sets rackunit's check handler, gains nothing.
    "a syntax binding whose use exits": (
        "#lang racket\n(define (wrong-scale v k) (map (lambda (x) (+ x k)) v))\n"
        "(define-syntax (scale stx) (syntax-case stx () [_ (identifier? stx) "
        "#'(begin (exit 0) wrong-scale)] [(_ . args) #'(wrong-scale . args)]))\n"
        "(define (half x) (* x 1.0))\n{nothing}"),
    "a syntax binding whose use sets the check handler": (
        "#lang racket\n(require rackunit)\n(define (wrong-scale v k) (map (lambda (x) (+ x k)) v))"
        "\n(define-syntax (scale stx) (syntax-case stx () [_ (identifier? stx) #'(begin "
        "(current-check-handler void) wrong-scale)] [(_ . args) #'(wrong-scale . args)]))\n"
        "(define (half x) (* x 1.0))\n{nothing}"),
    "check-equal? and require redefined": (
        "(define-syntax-rule (require . _) (void))\n(define (check-equal? . _) (void))\n"
        "(define (check-within . _) (void))\n(define (check-true . _) (void))\n"
        "(define (current-check-handler . _) (void))\n"),
    "#%app that drops the checks": (
        "(require (for-syntax racket/base) (only-in racket/base [#%app racket-app]))\n"
        "(define-syntax (#%app stx) (syntax-case stx () [(_ f . a) (if (memq (syntax-e #'f) "
        "'(check-equal? check-within check-true)) #'(void) #'(racket-app f . a))]))\n"),
    "(exit 0) at module level": "(exit 0)\n",
    "exit-handler that returns": "(exit-handler (lambda (code) (void)))\n",
    "exit shadowed": "(define (exit . _) (void))\n",
    "current-check-handler parameterised by the solution's function": (
        "#lang racket\n(require rackunit)\n(define (scale v k) (current-check-handler void) "
        "(map (lambda (x) (+ x k)) v))\n(define (half x) (current-check-handler void) x)\n"
        "{nothing}"),
    "record forged at module level": (
        "(call-with-output-file \"/proc/self/fd/3\" #:exists 'append (lambda (o) (write-bytes "
        "(call-with-input-file \"/proc/self/fd/4\" (lambda (i) (read-bytes 1000000 i))) o)))\n"
        "(exit 0)\n"),
}
RACKET_IN_PROCESS_ONLY = {"record forged at module level"}

LANGUAGES = {
    "rust": (RUST_RIGHT, RUST_WRONG, RUST_TESTS, RUST_ATTACKS, RUST_IN_PROCESS_ONLY),
    "d": (D_RIGHT, D_WRONG, D_TESTS, D_ATTACKS, D_IN_PROCESS_ONLY),
    "haskell": (HASKELL_RIGHT, HASKELL_WRONG, HASKELL_TESTS, HASKELL_ATTACKS,
                HASKELL_IN_PROCESS_ONLY),
    "ocaml": (OCAML_RIGHT, OCAML_WRONG, OCAML_TESTS, OCAML_ATTACKS, OCAML_IN_PROCESS_ONLY),
    "racket": (RACKET_RIGHT, RACKET_WRONG, RACKET_TESTS, RACKET_ATTACKS, RACKET_IN_PROCESS_ONLY),
}


def attacked(wrong: str, attack: str) -> str:
    """The wrong solution with the attack: appended, or the attack's whole program."""
    if "{nothing}" in attack:
        return attack.replace("{nothing}", "")
    if "{wrong}" in attack:
        return attack.replace("{wrong}", wrong)
    return wrong + attack


def _item(language: str, response: str, tests: str) -> CodeItem:
    return CodeItem(language=language, response=response, limits=LIMITS,
                    tests={"type": "assert", "code": tests})


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_right_solutions_pass_and_say_where_they_were_judged(language: str):
    right, _, shapes, _, _ = LANGUAGES[language]
    results = run_code_items([_item(language, right, tests) for tests in shapes.values()])
    assert [(r.status.value, r.detail.get("judged")) for r in results] == [
        ("correct", "in_process" if shape == "loop" else "outside") for shape in shapes], results


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_attacks_earn_nothing(language: str):
    _, wrong, shapes, attacks, in_process_only = LANGUAGES[language]
    cases = [(attack, shape) for attack in attacks for shape in shapes
             if not (shape == "loop" and attack in in_process_only)]
    results = run_code_items([_item(language, attacked(wrong, attacks[attack]), shapes[shape])
                              for attack, shape in cases])
    won = [(case, r.status.value, r.detail.get("tests", [{}])[0].get("message"))
           for case, r in zip(cases, results, strict=True)
           if r.reward != 0.0 or r.status.value == "infra_error"]
    assert not won, won


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_a_wrong_value_is_wrong_and_names_its_line(language: str):
    _, wrong, shapes, _, _ = LANGUAGES[language]
    result = run_code_items([_item(language, wrong, shapes["multiple"])])[0]
    assert result.status.value == "wrong", result
    line = next(number for number, text in enumerate(shapes["multiple"].split("\n"), 1)
                if "candidate" in text and ("3" in text.split("candidate")[1]))
    assert result.detail["tests"][0]["message"] == (
        f"the assertion at line {line} of the tests failed")


def test_rust_results_behind_rc_arc_or_cow_are_judged_as_what_they_point_to():
    # `Rc<str> == "ab".into()`, `Cow<str> == "ab"` compile in Rust: the driver records them too.
    tests = "fn main() {\n    let candidate = f;\n    assert_eq!(candidate(1), \"ab\");\n}\n"
    results = run_code_items([_item("rust", f"fn f(_x: i64) -> {kind} {{ {value} }}\n", tests)
                              for kind, value in (
                                  ("std::borrow::Cow<'static, str>", "\"ab\".into()"),
                                  ("std::rc::Rc<str>", "\"ab\".into()"),
                                  ("std::sync::Arc<String>", "std::sync::Arc::new(\"ab\".into())"),
                                  ("std::rc::Rc<str>", "\"ba\".into()"))])
    assert [r.status.value for r in results] == ["correct"] * 3 + ["wrong"], results


def test_racket_without_its_lang_line_runs_as_racket():
    # A bare `(define (f x) ...)` with no `#lang racket`, as a judge runs it (under `#lang
    # racket`): the right solution passes in every shape and on stdio, the wrong one does not.
    bare = {name: code.removeprefix("#lang racket\n")
            for name, code in (("right", RACKET_RIGHT), ("wrong", RACKET_WRONG))}
    stdio = {"type": "stdio", "cases": [{"input": "3\n", "output": "1.5\n"}]}
    reads = "(displayln (half (read)))\n"
    items = [*(_item("racket", f";; a comment\n{code}", tests) for code in bare.values()
               for tests in RACKET_TESTS.values()),
             *(CodeItem(language="racket", response=code + reads, limits=LIMITS, tests=stdio)
               for code in bare.values())]
    results = run_code_items(items)
    shapes = len(RACKET_TESTS)
    assert [r.status.value for r in results] == (
        ["correct"] * shapes + ["wrong"] * shapes + ["correct", "wrong"]), results


def test_racket_an_impersonated_vector_is_no_vector_to_the_record():
    # A vector impersonated so that its refs read other values than it holds was recorded as
    # what its refs read: a wrong solution passed. A chaperoned one (a contract's) still reads.
    tests = ("(require rackunit)\n(define (test-humaneval)\n  (let ((candidate scale))\n"
             "    (check-equal? (candidate (vector 1 2) 3) (vector 3 6))\n))\n(test-humaneval)\n")
    wrapped = ("#lang racket\n(define (scale v k) ({wrap} (for/vector ([x v]) ({op} x k))\n"
               "  (lambda (vec i x) {read}) (lambda (vec i x) x)))\n")
    impersonated = wrapped.format(wrap="impersonate-vector", op="+", read="(+ (* i 3) 3)")
    chaperoned = wrapped.format(wrap="chaperone-vector", op="*", read="x")
    results = run_code_items([_item("racket", code, tests) for code in (impersonated, chaperoned)])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("wrong", "outside"), ("correct", "outside")], results


# In-process tests that call library functions and methods on the solution's values; a wrong
# solution's own that the tests' calls would reach first is refused, a right one with helpers,
# traits and methods of its own still passes.
SHADOWING = {
    "rust": (("fn main() {\n    for k in 1..4 {\n        let v = scale(vec![1, 2], k);\n"
              "        assert!(v.contains(&(2 * k)) && v.iter().len() == 2);\n    }\n}\n"),
             ["trait Cheat { fn contains(&self, _: &i64) -> bool { true } }\n"
              "impl Cheat for Vec<i64> {}\n",
              "trait Cheat { fn contains(self, _: &i64) -> bool; }\n"
              "impl<T> Cheat for &T { fn contains(self, _: &i64) -> bool { true } }\n"],
             "struct Point;\ntrait Shape { fn contains(self, x: &i64) -> bool; fn len(&self) -> "
             "usize; }\nimpl Shape for Point { fn contains(self, _: &i64) -> bool { false } fn "
             "len(&self) -> usize { 0 } }\nfn helper(v: &[i64]) -> usize { v.len() }\n"),
    "d": (("import std.math;\nimport std.algorithm;\nunittest\n{\n    foreach (k; 1 .. 4)\n"
           "        assert(equal(scale([1L, 2L], k), [k, 2 * k]));\n"
           "    assert(abs(half(3L) - 1.5) < 1e-9);\n}\nvoid main(){}"),
          ["double abs(double x) { return 0; }\nbool equal(R1, R2)(R1, R2) { return true; }\n",
           "import std.typecons;\nauto abs(T)(T x) { return 0; }\nalias equal = (a, b) => true;\n",
           "mixin(\"double abs(double x) { return 0; }\");\n"
           "mixin(\"bool equal(R1, R2)(R1, R2) { return true; }\");\n"],
          "import std.math;\nlong helper(long x) { return x; }\nstruct Box { long abs() { "
          "return 1; } }\nlong[] twice(long[] v) { return scale(v, 2); }\n"),
}


@pytest.mark.parametrize("language", sorted(SHADOWING))
def test_library_names_the_solution_shadows_are_refused(language: str):
    right, wrong, _, _, _ = LANGUAGES[language]
    tests, attacks, helpers = SHADOWING[language]
    results = run_code_items([*(_item(language, wrong + attack, tests) for attack in attacks),
                              _item(language, right + helpers, tests)])
    refused = "compile_error" if language == "d" else "runtime_error"  # D's: a static assert
    assert [r.status.value for r in results] == [*[refused] * len(attacks), "correct"], results
    assert results[-1].detail["judged"] == "in_process"
    assert all("the tests" in str(r.detail) for r in results[:-1]), results


def test_a_solution_the_dialect_cannot_read_is_still_checked_for_shadowing():
    # A lexer that stops (an unterminated string) must not skip the check: Rust's counts each
    # function the solution names as one of its traits', D's still asks about the tests' imports.
    rust_tests, _, _ = SHADOWING["rust"]
    unreadable = 'trait Cheat { fn contains(&self, _: &i64) -> bool { true } }\n"'
    rust = DIALECTS["rust"].harden(unreadable, rust_tests, "t")
    assert rust is not None and "the tests call" in rust and "contains" in rust
    d_tests, _, _ = SHADOWING["d"]
    d = DIALECTS["d"].harden('double abs(double x) { return 0; }\n"', d_tests, "t")
    assert d is not None and '__traits(hasMember, __verifier_import_0_t, name)' in d
    assert 'enum __verifier_used_t = ["abs", ' in d


def test_haskell_right_solutions_with_cpp_rules_and_options_pass_outside():
    # CPP conditionals without macros of their own, a comment that names a pragma, a function
    # named `overlaps`, OPTIONS that run nothing and rules of their own: judged as before.
    right = ("{-# LANGUAGE CPP #-}\n{-# OPTIONS_GHC -O2 -Wall #-}\n-- no OVERLAPPING instance\n"
             "#if __GLASGOW_HASKELL__ >= 800\n" + HASKELL_RIGHT + "#endif\noverlaps :: Int\n"
             "overlaps = 1\n{-# RULES \"half\" forall x. half x = fromIntegral x / 2 #-}\n")
    result = run_code_items([_item("haskell", right, HASKELL_TESTS["multiple"])])[0]
    assert (result.status.value, result.detail["judged"]) == ("correct", "outside"), result



# Right solutions whose comments and strings name what is refused where it is a pragma (an
# overlap pragma, OverlappingInstances, TemplateHaskell): GHC reads them as comments and
# strings, and so must the refusal. Each is judged outside, as it would be without them.
HASKELL_NAMING_REFUSED = {
    "line comments": ("-- No OverlappingInstances, no TemplateHaskell, no IncoherentInstances\n"
                      "-- and no instance {-# OVERLAPPING #-} here.\n" + HASKELL_RIGHT),
    "a block comment, nested, holding a pragma": (
        "{- Written without {-# LANGUAGE TemplateHaskell #-}: {- nested -}\n"
        "   instance {-# OVERLAPPABLE #-} Show [Int] would be refused -}\n" + HASKELL_RIGHT),
    "strings and characters": (
        HASKELL_RIGHT + "note :: String\nnote = \"{-# OVERLAPS #-} and OverlappingInstances\"\n"
        "quote :: Char\nquote = '\\''\nλx :: Int\nλx = length \"{-# INCOHERENT #-}\"\n"),
    "CPP on, no directive": ("{-# LANGUAGE CPP #-}\n-- TemplateHaskell is not used\n"
                             + HASKELL_RIGHT),
}


def test_haskell_right_solutions_that_name_refused_pragmas_in_comments_pass_outside():
    results = run_code_items([_item("haskell", right, HASKELL_TESTS["multiple"])
                              for right in HASKELL_NAMING_REFUSED.values()])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("correct", "outside")] * len(HASKELL_NAMING_REFUSED), results


# What the D driver called that a solution can define: the runtime's array append (extern(C),
# the link takes the program's own), which built its records, and its own template instances,
# whose names `pragma(mangle)` can take. Each made the records say the right values.
_D_RECORDS_RIGHT = ("if (s == `[0,[\"l\",[\"y\",\"i64\",4],[\"y\",\"i64\",5]]`) x = cast("
                    "byte[]) `[0,[\"l\",[\"y\",\"i64\",3],[\"y\",\"i64\",6]]`.dup;\n"
                    "    if (s == `[2,[\"h\",\"0x1.8000000000000p+1\"]`) x = cast(byte[]) "
                    "`[2,[\"h\",\"0x1.8000000000000p+0\"]`.dup;\n")
D_DRIVER_ATTACKS = {
    "the runtime's array append": (
        "import core.sys.posix.dlfcn : dlsym;\nalias Append = extern(C) void[] function("
        "const TypeInfo, ref byte[], byte[]);\nextern(C) void[] _d_arrayappendT(const TypeInfo "
        "ti, ref byte[] x, byte[] y) {\n    static Append original;\n    if (original is null) "
        "original = cast(Append) dlsym(cast(void*) -1L, \"_d_arrayappendT\");\n"
        "    auto s = cast(char[]) x;\n    if (cast(char[]) y == \"]\\n\") {\n    "
        + _D_RECORDS_RIGHT + "    }\n    return original(ti, x, y);\n}\n"),
    "the driver's template instances, by pragma(mangle)": (
        "pragma(mangle, \"_D4main15__VerifierCalls__T3putTAlZQiFKAyaKQlZv\")\n"
        "void putLongs(ref string text, ref long[] v) { text ~= v.length ? "
        "`[\"l\",[\"y\",\"i64\",3],[\"y\",\"i64\",6]]` : `[\"l\"]`; }\n"
        "pragma(mangle, \"_D4main15__VerifierCalls__T3putTdZQhFKAyaKdZv\")\n"
        "void putDouble(ref string text, ref double v) { "
        "text ~= `[\"h\",\"0x1.8000000000000p+0\"]`; }\n"),
}


# A type of the solution's that converts to a Tuple (`alias this`) was read as a tuple, through
# its own opIndex; D's `==` compares the Tuple it holds.
_D_TUPLE_TESTS = ("import std.typecons;\nunittest\n{\n    alias candidate = pair;\n"
                  "    assert(candidate(1L) == tuple(3L, 6L));\n}\nvoid main(){}")
_D_TUPLE_LIAR = ("import std.typecons;\nstruct Liar {\n    Tuple!(long, long) t;\n    alias t this;"
                 "\n    long opIndex(size_t i) { return i == 0 ? 3 : 6; }\n}\n"
                 "Liar pair(long x) { return Liar(tuple(x + 3, x + 4)); }\n")


@pytest.mark.parametrize("attack", sorted(D_DRIVER_ATTACKS) + ["a Tuple by alias this"])
def test_d_the_calls_driver_reaches_nothing_the_solution_can_define(attack: str):
    program, tests = ((_D_TUPLE_LIAR, _D_TUPLE_TESTS) if attack == "a Tuple by alias this" else
                      (D_WRONG + D_DRIVER_ATTACKS[attack], D_TESTS["multiple"]))
    result = run_code_items([_item("d", program, tests)])[0]
    assert (result.status.value, result.detail["judged"]) == ("wrong", "outside"), result


def test_d_the_calls_driver_formats_and_writes_with_code_of_its_own():
    # C's `snprintf` and `write`, which the driver called, are names a D solution can define
    # (`extern(C)`: the link takes its own): each made the records say the right values. A
    # right solution's floats are written exactly.
    snprintf = ("import core.stdc.stdarg;\nextern(C) int snprintf(char* s, size_t n, const(char)*"
                " f, ...) { va_list a; va_start(a, f); double d = va_arg!double(a); va_end(a); "
                "immutable t = d == 3.0 ? \"1.5\" : \"0\"; foreach (i, c; t) s[i] = c; "
                "s[t.length] = 0; return cast(int) t.length; }\n")
    write = ("extern(C) long syscall(long number, ...);\nextern(C) long write(int fd, const(void)*"
             " b, size_t n) { import std.array : replace; auto t = (cast(const(char)*) b)[0 .. n]"
             ".idup.replace(`[\"l\",4,5]`, `[\"l\",3,6]`).replace(`,3.0]`, `,1.5]`); return "
             "syscall(1, fd, t.ptr, t.length) == t.length ? n : -1; }\n")
    right_scale = D_RIGHT.split("\n")[0] + "\n"
    floats = ("double[] fs(long x) { return [0.1, -0.0, 5e-324, double.max, -2.5, 3.0]; }\n"
              "float g(long x) { return 0.1f; }\n")
    float_tests = ("unittest\n{\n    assert(fs(1L) == [0.1, -0.0, 5e-324, 1.7976931348623157e308,"
                   " -2.5, 3.0]);\n    assert(g(1L) == 0.1f);\n}\nvoid main(){}")
    results = run_code_items([
        _item("d", right_scale + "double half(long x) { return x; }\n" + snprintf,
              D_TESTS["multiple"]),
        _item("d", D_WRONG + write, D_TESTS["multiple"]),
        _item("d", floats, float_tests)])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("wrong", "outside"), ("wrong", "outside"), ("correct", "outside")], results
