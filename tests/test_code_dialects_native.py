"""The Rust, D, Haskell, OCaml and Racket calls dialects without the jail: which tests are plain
calls, what the worker expects (typed as each language types its literals), how it compares,
what the hardened in-process programs hold, and that nothing the tests hold breaks a parser."""

from __future__ import annotations

import contextlib
import math
import random
from fractions import Fraction

import pytest

from verifier.kinds.code.dialects import DIALECTS, calls_plan, in_process_program
from verifier.kinds.code.dialects.core import Check, NotPlainCalls
from verifier.kinds.code.dialects.haskell import split_header
from verifier.kinds.code.dialects.values import Map, Opaque, SetOf, Single, Some, read_records

# Our own problems, written the way MultiPL-E's translators write each language's tests.
MULTIPLE = {
    "rust": """}

fn main() {
    let candidate = f;
    assert_eq!(candidate(vec![1, -2], String::from("a\\tb")), vec![String::from("x"), \
String::from("")]);
    assert_eq!(candidate(Vec::<isize>::new(), String::from("")), Vec::<String>::new());
    assert_eq!(candidate(vec![1.0, 2.5], 0.3), true);
    assert_eq!(candidate(3), Some(HashMap::from([(String::from("a"), 1), (String::from("b"), 2)])));
    assert_eq!(candidate(4), None);
    assert_eq!(candidate(5), (8, -13));
    assert_eq!(candidate(6), 0.1);
}
""",
    "d": """unittest
{
    alias candidate = f;

    assert(candidate([1L, -2L], "a\\tb") == ["x", ""]);
    assert(candidate([], "") == []);
    assert(candidate([1.0, 2.5], 0.3) == true);
    assert(candidate(3L) == tuple(8L, -13L));
    assert(candidate(4L) == 0.1);
{
        auto result = candidate(["a": 1L, "b": 2L].nullable);
        assert(!result.isNull && result.get == [1L: "a", 2L: "b"]);
}
{
        auto result = candidate(Nullable!(long[string]).init);
        assert(result.isNull);
}
{
        auto result = candidate(5L);
        assert(result[0].isNull);
        assert(!result[1].isNull && result[1].get == 1L);
}
}
void main(){}""",
    "haskell": """
main :: IO ()
main = do
  let candidate = f
  if candidate [1,(-2)] "a\\tb" == ["x",""] then pure () else error "assertion failed"
  if candidate [] "" == [] then pure () else error "assertion failed"
  if candidate [1.0,2.5] 0.3 == True then pure () else error "assertion failed"
  if candidate 3 == Just [("a", 1), ("b", 2)] then pure () else error "assertion failed"
  if candidate 4 == Nothing then pure () else error "assertion failed"
  if candidate 5 == (8, (-13)) then pure () else error "assertion failed"
  if candidate 6 == 0.1 then pure () else error "assertion failed"
  pure ()""",
    "ocaml": """
let assertions =
 let candidate = f in
  (assert ((candidate [1; -2] "a\\tb") = ["x"; ""]));
  (assert ((candidate [] "") = []));
  (assert ((candidate [1.0; 2.5] 0.3) = true));
  (assert ((candidate 3) = Some [("a", 1); ("b", 2)]));
  (assert ((candidate 4) = None));
  (assert ((candidate 5) = (8, -13)));
  (assert ((candidate 6) = 0.1));
  ()
""",
    "racket": """(require rackunit)

(define (test-humaneval)\x20

  (let (( candidate f))
    (check-within (candidate (list 1 -2) "a\\tb") (list "x" "") 0.001)
    (check-within (candidate (list ) "") (list ) 0.001)
    (check-within (candidate (list 1.0 2.5) 0.3) #t 0.001)
    (check-within (candidate 3) #hash(("a" .  1) ("b" .  2)) 0.001)
    (check-within (candidate 4) #f 0.001)
    (check-within (candidate 5) (list 8 -13) 0.001)
    (check-within (candidate 6) 0.1 0.001)
))

(test-humaneval)""",
}
EXPECTED = {
    "rust": [["x", ""], [], True, Some(Map((("a", 1), ("b", 2)))), None, (8, -13), 0.1],
    "d": [[b"x", b""], [], True, (8, -13), 0.1, Some(Map(((1, b"a"), (2, b"b")))), None,
          ((0, None), (1, Some(1)))],
    "haskell": [["x", ""], [], True, Some([("a", 1), ("b", 2)]), None, (8, -13), 0.1],
    # OCaml: the runtime representation (true is 1, a cons cell a list, a block its tag first)
    "ocaml": [[b"x", b""], 0, 1, (0, [(0, b"a", 1), (0, b"b", 2)]), 0, (0, 8, -13), 0.1],
    "racket": [["x", ""], [], True, Map((("a", 1), ("b", 2))), False, [8, -13], 0.1],
}


@pytest.mark.parametrize("language", sorted(MULTIPLE))
def test_multiple_shapes_are_plain_calls_with_typed_expected_values(language: str):
    found = DIALECTS[language].plan(MULTIPLE[language])
    assert [site.check.expected for site in found.sites] == EXPECTED[language]
    assert all(site.check.kind == "equal" for site in found.sites)
    assert [site.line for site in found.sites][:2] == {
        "rust": [5, 6], "d": [5, 6], "haskell": [5, 6], "ocaml": [4, 5], "racket": [6, 7]}[
        language]


@pytest.mark.parametrize(("language", "tests", "checks"), [
    ("rust", "fn main() {\n assert!(f(1));\n assert!(!f(2), \"no {}\", 2);\n"
             " assert!(f(3) == \"a\");\n assert_ne!(f(4), 1);\n"
             " assert!((f(5) - 2.5).abs() < 1e-6);\n"
             " assert_eq![f(6), 1i64,];\n assert!{f(7) != vec![1]}\n}\n",
     [("truth", None, False), ("truth", None, True), ("equal", "a", False),
      ("equal", 1, True), ("close", 2.5, False), ("equal", 1, False), ("equal", [1], True)]),
    # MultiPL-E's turbofish empty vectors, of tuples too
    ("rust", "}\n\nfn main() {\n    let candidate = f;\n    assert_eq!(candidate(Vec::<Vec<isize>>"
             "::new(), 1), Vec::<(isize, isize)>::new());\n}\n",
     [("equal", [], False)]),
    ("d", "unittest {\n assert(f(1));\n assert(!f(2), \"no\");\n assert(f(3) != 1.5f);\n"
          " assert(abs(f(4) - 2.5) < 1e-6);\n assert(\"a\" == f('c'));\n}\nvoid main(){}\n",
     [("truth", None, False), ("truth", None, True), ("equal", 1.5, True),
      ("close", 2.5, False), ("equal", b"a", False)]),
    ("haskell", "main :: IO ()\nmain = do\n  if f 1 then pure () else error \"x\"\n"
                "  if not (f 2) then return () else error \"x\"\n"
                "  if f 3 /= \"a\\&b\" then pure () else error \"x\"\n"
                "  if abs (f 4 - 2.5) < 1e-6 then pure () else error \"x\"\n"
                "  if 7 == f 'c' [(-1)] then pure () else error \"x\"\n",
     [("truth", None, False), ("truth", None, True), ("equal", "ab", True),
      ("close", 2.5, False), ("equal", 7, False)]),
    ("ocaml", "let () = assert (f 1)\nlet _ = assert (not (f 2))\n;;\nassert (f 3 <> \"a\");;\n"
              "let () =\n  assert (7 = f 'c' [|1.5; 2.|]);\n  assert (f [||] = [|1; 2|])\n",
     [("truth", None, False), ("truth", None, True), ("equal", b"a", True),
      ("equal", 7, False), ("equal", (0, 1, 2), False)]),
    ("racket", "(require rackunit)\n(define candidate f)\n(check-true (candidate 1))\n"
               "(check-false (f 2) \"msg\")\n(check-not-false (f 3))\n"
               "(check-equal? 1/2 (f 4))\n(check-not-equal? (f #\\a 'sym '(a b)) '(1 \"x\"))\n"
               "(check-eqv? (f 6) 2.5)\n",
     [("truth", True, False), ("truth", False, False), ("truth", None, True),
      ("equal", Fraction(1, 2), False), ("equal", [1, "x"], True), ("equal", 2.5, False)]),
])
def test_other_check_shapes(language: str, tests: str, checks: list[tuple]):
    found = DIALECTS[language].plan(tests)
    assert [(s.check.kind, s.check.expected, s.check.negated) for s in found.sites] == checks


# Tests that are not plain calls: a loop, a helper, a computed value, a call in an argument,
# a char expected, a check whose failure does not fail, a test function never run...
NOT_PLAIN = {
    "rust": ["fn main() {\n    for k in 1..3 { assert_eq!(f(k), k); }\n}\n",
             "fn main() {\n    let x = f(1);\n    assert_eq!(x, 2);\n}\n",
             "fn main() {\n    assert_eq!(f(1), 1 + 1);\n}\n",
             "fn main() {\n    assert_eq!(f(g(1)), 2);\n}\n",
             "fn main() {\n    assert_eq!(f(1), 'c');\n}\n",
             "fn main() {\n    debug_assert_eq!(f(1), 2);\n}\n",
             "fn helper() {}\nfn main() {\n    assert_eq!(f(1), 2);\n}\n",
             "fn main() {\n    assert_eq!(f(1).len(), 2);\n}\n"],
    "d": ["unittest {\n foreach (k; 1 .. 3) assert(f(k) == k);\n}\nvoid main(){}\n",
          "unittest {\n auto x = f(1);\n assert(x == 2);\n}\nvoid main(){}\n",
          "unittest {\n assert(f(1) == 1 + 1);\n}\nvoid main(){}\n",
          "unittest {\n assert(f(g(1)) == 2);\n}\nvoid main(){}\n",
          "unittest {\n assert(f(1) == 2.5L);\n}\nvoid main(){}\n",
          "unittest {\n assert(f(1) == 2);\n}\nvoid main(){ writeln(1); }\n",
          "unittest {\n{\n auto result = f(1);\n assert(result[0].isNull);\n"
          " assert(result[0].isNull);\n}\n}\n"],
    "haskell": ["main :: IO ()\nmain = mapM_ (\\k -> if f k == k then pure () else error \"x\")"
                " [1]\n",
                "main = do\n  if f 1 == 1 then pure () else pure ()\n",
                "main = do\n  if f 1 == 1 + 1 then pure () else error \"x\"\n",
                "main = do\n  if f (g 1) == 2 then pure () else error \"x\"\n",
                "main = do\n  if f 1 == 'c' then pure () else error \"x\"\n",
                "main = do\n  if f 1 == [1..3] then pure () else error \"x\"\n",
                "main = do\n  if f -1 == 2 then pure () else error \"x\"\n",
                "helper = 1\nmain = do\n  if f 1 == 2 then pure () else error \"x\"\n"],
    "ocaml": ["let () = for k = 1 to 3 do assert (f k = k) done\n",
              "let () = assert (f 1 = 1 + 1)\n",
              "let () = assert (f (g 1) = 2)\n",
              "let assertions =\n let candidate = f in\n"
              "  (assert ((candidate 13 12) = (~1)));\n  ()\n",
              "let () = assert (f 1 == 2)\n",
              "let () = assert (f 1 = 2L)\n",
              "let helper x = x\nlet () = assert (f 1 = 2)\n"],
    "racket": ["(require rackunit)\n(for ([k (in-range 3)]) (check-equal? (f k) k))\n",
               "(require rackunit)\n(check-equal? (f 1) (+ 1 1))\n",
               "(require rackunit)\n(check-equal? (f (g 1)) 2)\n",
               "(require rackunit)\n(check-equal? (f 1) #\\c)\n",
               "(require rackunit)\n(check-equal? (f 1) '(a b))\n",
               "(require rackunit)\n(define (test-humaneval) (check-equal? (f 1) 2))\n",
               "(require rackunit)\n(define (test-humaneval) (check-equal? (f 1) 2))\n"
               "(test-humaneval)\n(test-humaneval)\n",
               "(require rackunit)\n(check-eq? (f 1) \"a\")\n",
               "(require racket/list)\n(check-equal? (f 1) 2)\n"],
}


@pytest.mark.parametrize(("language", "tests"), [
    (language, tests) for language, shapes in NOT_PLAIN.items() for tests in shapes])
def test_what_is_not_plain_calls_runs_in_process(language: str, tests: str):
    with pytest.raises(NotPlainCalls):
        DIALECTS[language].plan(tests)
    assert calls_plan(language, tests) is None


@pytest.mark.parametrize("language", sorted(MULTIPLE))
def test_expected_values_never_enter_the_driver(language: str):
    marker = "zq-expected-91"
    tests = MULTIPLE[language].replace('"x"', f'"{marker}"')
    found = DIALECTS[language].plan(tests)
    program = DIALECTS[language].program("solution", found)
    assert marker not in found.driver and marker not in program
    assert marker in str([site.check.expected for site in found.sites])


# --------------------------------------------------------------------------- judging

RUST = [
    (Check("equal", 3), 3, True),
    (Check("equal", 3), 3.0, False),  # 3 against an f64 does not compile
    (Check("equal", 3.0), 3, False),
    (Check("equal", 0.1), Single(0.10000000149011612), True),  # 0.1 against an f32 is 0.1f32
    (Check("equal", 0.1), 0.10000000149011612, False),
    (Check("equal", math.nan), math.nan, False),
    (Check("equal", True), 1, False),
    (Check("equal", "a"), "a", True),
    (Check("equal", "a"), b"a", False),
    (Check("equal", [1, 2]), [1, 2], True),
    (Check("equal", [1, 2]), (1, 2), False),
    (Check("equal", Some(1)), Some(1), True),
    (Check("equal", Some(1)), 1, False),
    (Check("equal", None), Some(None), False),
    (Check("equal", Map((("a", 1), ("b", 2)))), Map((("b", 2), ("a", 1))), True),
    (Check("equal", Map((("a", 1),))), Map((("a", 1), ("a", 1))), False),
    (Check("equal", SetOf((1, 2))), SetOf((2, 1)), True),
    (Check("equal", 1), Opaque("char"), False),
    (Check("equal", 1, negated=True), Opaque("char"), True),
    (Check("truth"), True, True),
    (Check("truth"), 1, False),
    (Check("truth", negated=True), False, True),
    (Check("close", 2.5, tolerance=1e-6), 2.5000001, True),
    (Check("close", 2.5, tolerance=1e-6), math.nan, False),
    (Check("close", 2.5, tolerance=1e-6), "2.5", False),
    (Check("equal", 10 ** 30), 10 ** 30 + 1, False),
]
# Haskell records a value as (the show of its type, its show).
HASKELL = [
    (Check("equal", 14), ("Double", "14.0"), True),  # 14 :: Double
    (Check("equal", 14), ("Float", "14.0"), True),
    (Check("equal", 14), ("Integer", "14"), True),
    (Check("equal", 1.5), ("Int", "1"), False),
    (Check("equal", 0.1), ("Float", "0.1"), True),  # 0.1 :: Float, shown as it round-trips
    (Check("equal", 0.1), ("Double", "0.1"), True),
    (Check("equal", 0.3000001), ("Float", "0.3"), False),
    (Check("equal", [("a", 1)]), ("[([Char],Double)]", '[("a",1.0)]'), True),
    (Check("equal", Some([-1, 2])), ("Maybe [Int]", "Just [-1,2]"), True),
    (Check("equal", None), ("Maybe Int", "Nothing"), True),
    (Check("equal", (1, "a\u00e9\x01")), ("(Int,[Char])", '(1,"a\\233\\SOH")'), True),
    (Check("equal", math.inf), ("Double", "Infinity"), True),
    (Check("equal", math.nan), ("Double", "NaN"), False),
    (Check("equal", "a"), ("Char", "'a'"), False),  # a Char is not a String
    (Check("equal", 1), ("Ratio Integer", "1 % 1"), False),
    (Check("equal", 1, negated=True), ("Ratio Integer", "1 % 1"), True),
    (Check("equal", [1]), ("[Color]", "[Red]"), False),
    (Check("equal", 1), 1, False),  # not a record the driver writes
    (Check("truth"), ("Bool", "True"), True),
    (Check("truth", negated=True), ("Bool", "False"), True),
    (Check("close", 2.5, tolerance=1e-6), ("Float", "2.5000002"), True),
    (Check("close", 2.5, tolerance=1e-8), ("Float", "2.5000002"), False),
    (Check("equal", 10 ** 400), ("Double", "1.0e308"), False),  # no OverflowError escapes
    (Check("equal", 1), ("Int", "[" * 5000 + "]" * 5000), False),
]
D = [
    (Check("equal", 3), 3.0, True),  # D compares as C++ does
    (Check("equal", 0.1), 0.10000000149011612, False),  # a float 0.1f is not the double 0.1
    (Check("equal", b"ab"), b"ab", True),
    (Check("equal", None, how="result"), None, True),
    (Check("equal", None, how="result"), Some(0), False),
    (Check("equal", Some(3), how="result"), 3, False),  # a Nullable must hold it
    (Check("equal", Some(3), how="result"), Some(3), True),
    (Check("equal", ((0, None), (1, Some(1))), how="elements"), (None, Some(1)), True),
    (Check("equal", ((0, None), (1, Some(1))), how="elements"), (Some(2), Some(1)), False),
    (Check("equal", ((1, Some(1)),), how="elements"), (Some(2), Some(1)), True),
    (Check("equal", ((1, Some(1)),), how="elements"), (Some(1),), False),
    (Check("equal", ((0, None),), how="elements"), [None], False),
    (Check("truth"), [1], False),
    (Check("close", 2.5, tolerance=1e-6), True, False),
]
OCAML = [
    (Check("equal", [1, 2]), [1, 2], True),
    (Check("equal", (0, 1, 2)), [1, 2], False),  # a tuple is not a list
    (Check("equal", 1), 1.0, False),
    (Check("equal", math.nan), math.nan, False),
    (Check("equal", 0.0), -0.0, True),
    (Check("equal", b"a"), "a", False),
    (Check("equal", 0), Opaque("opaque"), False),
    (Check("truth"), 1, True),
    (Check("truth"), True, False),
    (Check("truth", negated=True), 0, True),
]
RACKET = [
    (Check("equal", 1), 1.0, False),  # equal? keeps exactness
    (Check("equal", 1, tolerance=0.001, how="within"), 1.0005, True),
    (Check("equal", 0.5, tolerance=0.001, how="within"), Fraction(1, 2), True),
    (Check("equal", 0.5), Fraction(1, 2), False),
    (Check("equal", 0.0), -0.0, False),  # eqv? tells them apart
    (Check("equal", math.nan), math.nan, True),
    (Check("equal", math.inf, tolerance=0.001, how="within"), math.inf, False),
    (Check("equal", [1, "a"], tolerance=0.1, how="within"), [1.05, "a"], True),
    (Check("equal", Map(((1, 2.0),)), tolerance=0.1, how="within"), Map(((1.0, 2.0),)), False),
    (Check("equal", Map(((1, 2.0),)), tolerance=0.1, how="within"), Map(((1, 2.05),)), True),
    (Check("equal", True), 1, False),
    (Check("equal", (1, 2)), [1, 2], False),  # a vector is not a list
    (Check("equal", 10 ** 400, tolerance=0.5, how="within"), 1.0, False),
    (Check("truth", True), True, True),
    (Check("truth", True), 1, False),
    (Check("truth", False), False, True),
    (Check("truth", negated=True), [], True),  # check-not-false: anything but #f
    (Check("truth", negated=True), False, False),
]


@pytest.mark.parametrize(("language", "check", "value", "holds"), [
    *(("rust", *case) for case in RUST), *(("haskell", *case) for case in HASKELL),
    *(("d", *case) for case in D), *(("ocaml", *case) for case in OCAML),
    *(("racket", *case) for case in RACKET)])
def test_values_compare_as_the_language_does(language: str, check: Check, value, holds: bool):
    assert DIALECTS[language].holds(check, value) is holds


def test_single_floats_and_fractions_are_records():
    records = (b'[0,["f32",0.10000000149011612]]\n[1,["f32",["f","nan"]]]\n[2,["q","-1","3"]]\n'
               b'[3,["f32",2]]\n')
    values, fault = read_records(records, 4)
    assert fault is None and values[0] == Single(0.10000000149011612)
    assert math.isnan(values[1].value) and values[2] == Fraction(-1, 3)
    assert values[3] == Single(2.0)
    for bad in (b'[0,["q","1","0"]]\n', b'[0,["q","1","1"]]\n', b'[0,["q","x","2"]]\n',
                b'[0,["f32","1"]]\n', b'[0,["f32"]]\n', b'[0,["q","1"]]\n'):
        assert read_records(bad, 1)[1].startswith("a malformed value"), bad


def test_map_literals_keep_a_repeated_key_last():
    found = DIALECTS["racket"].plan('(require rackunit)\n(check-equal? (f 1) #hash((1 . "a") '
                                    '(1 . "b")))\n')
    assert found.sites[0].check.expected == Map(((1, "b"),))
    found = DIALECTS["rust"].plan("fn main() {\n    assert_eq!(f(1), HashMap::from([(1, 2), "
                                  "(1, 3)]));\n}\n")
    assert found.sites[0].check.expected == Map(((1, 3),))


# --------------------------------------------------------------------------- in-process

def test_rust_hardened_tests_reach_std_through_an_alias_of_their_own():
    tests = ("fn main() {\n    let v: Vec<i64> = vec![1];\n    assert_eq!(f(v), Some(String::from"
             "(\"a\")));\n    assert!(f2(), \"{}\", format!(\"x\"));\n}\n")
    program = in_process_program("rust", "fn f() {}", tests)
    alias = program.split("extern crate std as ")[1].split(";")[0]
    for qualified in ("vec::Vec<i64>", "vec![1]", "assert_eq!(", "option::Option::Some(",
                      "string::String::from", "assert!(", "format!("):
        assert f"{alias}::{qualified}" in program, qualified
    assert in_process_program("rust", "fn f() {}", tests) == program  # the same program, cached
    assert alias not in in_process_program("rust", "fn g() {}", tests)  # a name per program


def test_d_hardened_tests_assert_through_our_check_and_run_their_unittests_from_main():
    tests = "unittest\n{\n    assert(f(1) == 2, \"message\");\n}\nvoid main(){}\n"
    program = in_process_program("d", "long f(long x) { return x; }", tests)
    check = program.split("void ")[-1]
    assert "assert(" not in program.split("#line 1")[1].split("void __verifier_check")[0]
    assert "__traits(getUnitTests" in program and "extendedModuleUnitTester" in check + program
    assert "syscall" in program


def test_haskell_hardened_tests_qualify_the_prelude_and_keep_their_own_names():
    solution = "{-# LANGUAGE RebindableSyntax #-}\nmodule Main where\nimport Prelude\nf x = x\n"
    tests = ("main :: IO ()\nmain = do\n  let sum = 3\n  mapM_ (\\k -> if f k == k then pure () "
             "else error \"x\") [1, sum]\n  if f (-1) == -1 then return () else error \"x\"\n")
    program = in_process_program("haskell", solution, tests)
    alias = program.split("import qualified Prelude as ")[1].split("\n")[0]
    for qualified in ("mapM_", "==", "pure", "error", "return"):
        assert f"{alias}.{qualified}" in program, qualified
    assert f"{alias}.sum" not in program and "[1, sum]" in program  # the tests' own sum
    assert "(-1)" in program and f"{alias}.-" not in program  # a negation stays one
    assert program.index("RebindableSyntax") < program.index("NoRebindableSyntax") < \
        program.index("module Main")
    assert f"main = verifierMain {alias}.>>" in program  # a solution's >> cannot skip the tests


@pytest.mark.parametrize(("solution", "parts"), [
    ("f = 1\n", ("", "", "f = 1\n")),
    ("{-# LANGUAGE X #-}\n-- c\nimport A\nimport B\n  (b)\nf = 1\n",
     ("{-# LANGUAGE X #-}\n-- c\n", "import A\nimport B\n  (b)\n", "f = 1\n")),
    ("module Main (main) where\nimport A\n\nf = 1\n",
     ("", "module Main (main) where\nimport A\n\n", "f = 1\n")),
    ("", ("", "", "")),
    ('f = "\n', ("", "", 'f = "\n')),
])
def test_haskell_imports_go_after_the_solutions_own(solution: str, parts: tuple):
    assert split_header(solution) == parts


def test_ocaml_hardened_tests_open_stdlib_again_after_the_solution():
    program = in_process_program("ocaml", "let (=) _ _ = true\n", "let () = assert (1 = 2)\n")
    module = program.split("module ")[1].split(" =")[0]
    assert program.index(f"module {module} = struct") < program.index("let (=) _ _ = true") < \
        program.index(f"open! {module}") < program.index("let () = assert (1 = 2)")
    assert "  let ( = ) = Stdlib.( = )\n" in program and "  module List = Stdlib.List\n" in program


def test_racket_solution_is_data_it_cannot_end():
    solution = '#lang racket\n(define s "\\")")) (exit 0) ;")\n(define (f) 1)\n'
    found = calls_plan("racket", "(require rackunit)\n(check-equal? (f) 1)\n")
    program = DIALECTS["racket"].program(solution, found)
    literal = program.split("(open-input-string ")[1].split("))\n  (port-count-lines!")[0]
    assert literal.startswith('"#lang racket') and literal.endswith('1)\n"')
    assert '\\"\\\\\\")\\")' in literal  # every quote and backslash escaped
    hardened = in_process_program("racket", solution, "(require rackunit)\n(check-true #t)\n")
    assert hardened.startswith("#lang racket\n") and "verifier-own-checks" in hardened


# --------------------------------------------------------------------------- robustness

_PIECES = ["(", ")", "[", "]", "{", "}", '"', "'", ",", ";", ";;", "==", "=", "-", "~", "/*",
           "(*", "{-", "#|", "\\", "\n", "1e", "0x", "#\\", "#hash(", "|", "`", "assert(",
           "assert_eq!(", "check-equal?", "let ", " in ", "Just ", "vec![", "r#\""]


def _mutations(source: str, count: int, seed: int) -> list[str]:
    """Variants of `source`, each a few edits away: a stretch cut out, a stretch of it or a
    piece of some language's syntax put in somewhere."""
    rng = random.Random(seed)
    variants = []
    for _ in range(count):
        text = source
        for _ in range(rng.randint(1, 6)):
            start, end = sorted(rng.randrange(len(text) + 1) for _ in range(2))
            end = min(end, start + 8)
            at = rng.randrange(len(text) + 1)
            text = rng.choice([text[:start] + text[end:],
                               text[:at] + rng.choice(_PIECES) + text[at:],
                               text[:at] + text[start:end] + text[at:]])
        variants.append(text)
    return variants


@pytest.mark.parametrize("language", sorted(MULTIPLE))
def test_broken_tests_never_break_the_parser_or_the_hardening(language: str):
    deep = {"rust": "fn main() {\n assert_eq!(f(1), " + "vec![" * 3000 + "]" * 3000 + ");\n}\n",
            "d": "unittest {\n assert(f(1) == " + "[" * 3000 + "]" * 3000 + ");\n}\n",
            "haskell": "main = do\n  if f 1 == " + "[" * 3000 + "]" * 3000 + " then pure ()"
                       " else error \"x\"\n",
            "ocaml": "let () = assert (f 1 = " + "[" * 3000 + "]" * 3000 + ")\n",
            "racket": "(check-equal? (f 1) " + "(list " * 3000 + ")" * 3000 + ")\n"}[language]
    for source in [*_mutations(MULTIPLE[language], 300, 1), deep, "-" * 5000 + "1", ""]:
        with contextlib.suppress(NotPlainCalls):
            DIALECTS[language].plan(source)
        assert isinstance(in_process_program(language, "x", source), str)
