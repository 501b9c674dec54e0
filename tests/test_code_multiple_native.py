"""MultiPL-E's test shapes for C++, Rust, D, Haskell, OCaml and Racket through the real toolchains
and jail: right programs (written as completions of MultiPL-E's prompts) pass, judged outside
the solution's process, with each language's value semantics; their broken variants fail.
Our own problems, in the layout each translator writes."""

from __future__ import annotations

import shutil

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.kinds.code import run_code_items

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

LIMITS = {"time_s": 10, "memory_mb": 512}

# (language, right, wrong, tests): MultiPL-E's C++ and Rust tests open with the `}` that
# closes the prompt's function, so its completions end without one.
CPP_PROMPT = ("#include<assert.h>\n#include<bits/stdc++.h>\n"
              "std::vector<long> evens(std::vector<long> xs) {\n")
PROBLEMS = [
    ("cpp",
     CPP_PROMPT + "    std::vector<long> r;\n"
     "    for (long x : xs) if (x % 2 == 0) r.push_back(x);\n    return r;\n",
     CPP_PROMPT + "    return xs;\n",
     "}\nint main() {\n    auto candidate = evens;\n"
     "    assert(candidate((std::vector<long>({(long)1, (long)2, (long)4}))) == "
     "(std::vector<long>({(long)2, (long)4})));\n"
     "    assert(candidate((std::vector<long>())) == (std::vector<long>()));\n}\n"),
    ("rust",
     "use std::collections::HashMap;\n\nfn histogram(test: String) -> HashMap<String, isize> {\n"
     "    let mut counts = HashMap::new();\n"
     "    for word in test.split_whitespace() { *counts.entry(word.to_string()).or_insert(0) "
     "+= 1; }\n    counts\n",
     "use std::collections::HashMap;\n\nfn histogram(test: String) -> HashMap<String, isize> {\n"
     "    let mut counts = HashMap::new();\n"
     "    for word in test.split(' ') { *counts.entry(word.to_string()).or_insert(0) += 1; }\n"
     "    counts\n",
     "}\n\nfn main() {\n    let candidate = histogram;\n"
     "    assert_eq!(candidate(String::from(\"a b b\")), HashMap::from([(String::from(\"a\"), 1),"
     " (String::from(\"b\"), 2)]));\n"
     "    assert_eq!(candidate(String::from(\"\")), HashMap::from([]));\n}\n"),
    ("rust",
     "fn stats(v: Vec<f32>) -> (Option<f32>, f64) {\n"
     "    (v.iter().cloned().reduce(f32::max), v.iter().map(|x| *x as f64).sum::<f64>() / 3.0)\n",
     "fn stats(v: Vec<f32>) -> (Option<f32>, f64) {\n"
     "    (v.iter().cloned().reduce(f32::min), v.iter().map(|x| *x as f64).sum::<f64>() / 3.0)\n",
     "}\n\nfn main() {\n    let candidate = stats;\n"
     "    assert_eq!(candidate(vec![0.1, 0.0, -1.0]), (Some(0.1), -0.29999999950329465));\n"
     "    assert_eq!(candidate(Vec::<f32>::new()), (None, 0.0));\n}\n"),
    ("d",
     "import std.typecons;\nNullable!(string[long]) invert(Nullable!(long[string]) d) {\n"
     "    if (d.isNull) return Nullable!(string[long]).init;\n    string[long] r;\n"
     "    foreach (k, v; d.get) r[v] = k;\n    return Nullable!(string[long])(r);\n}\n"
     "Tuple!(Nullable!(long), Nullable!(long)) extremes(long[] a) {\n"
     "    Nullable!long low, high;\n    foreach (x; a) { if (x < 0 && (low.isNull || x > low.get))"
     " low = x; if (x > 0 && (high.isNull || x < high.get)) high = x; }\n"
     "    return tuple(low, high);\n}\nfloat mean(float[] a) { float s = 0; foreach (x; a) s += x;"
     " return s / a.length; }\n",
     "import std.typecons;\nNullable!(string[long]) invert(Nullable!(long[string]) d) {\n"
     "    string[long] r;\n    return Nullable!(string[long])(r);\n}\n"
     "Tuple!(Nullable!(long), Nullable!(long)) extremes(long[] a) {\n"
     "    return tuple(Nullable!long(-1), Nullable!long.init);\n}\n"
     "float mean(float[] a) { return 0.1; }\n",
     "unittest\n{\n    alias candidate = invert;\n\n{\n        auto result = candidate([\"a\": 1L, "
     "\"b\": 2L].nullable);\n        assert(!result.isNull && result.get == [1L: \"a\", 2L: "
     "\"b\"]);\n}\n\n{\n        auto result = candidate(Nullable!(long[string]).init);\n"
     "        assert(result.isNull);\n}\n\n}\nunittest\n{\n    alias candidate = extremes;\n\n{\n"
     "        auto result = candidate([2L, 4L, 1L]);\n        assert(result[0].isNull);\n"
     "        assert(!result[1].isNull && result[1].get == 1L);\n}\n"
     "    assert(mean([0.5, 1.0, 1.5]) == 1.0);\n}\nvoid main(){}"),
    ("haskell",
     "-- | the pairs of each word with its length, longest first\n"
     "lengths :: String -> Maybe [(String, Int)]\nlengths \"\" = Nothing\n"
     "lengths s = Just (reverse [(w, length w) | w <- words s])\n\nhalves xs = map (/ 2) xs\n",
     "lengths :: String -> Maybe [(String, Int)]\nlengths \"\" = Nothing\n"
     "lengths s = Just [(w, length w) | w <- words s]\n\nhalves xs = map (/ 3) xs\n",
     "\nmain :: IO ()\nmain = do\n  let candidate = lengths\n"
     "  if candidate \"ab c\" == Just [(\"c\", 1), (\"ab\", 2)] then pure () else error "
     "\"assertion failed\"\n  if candidate \"\" == Nothing then pure () else error "
     "\"assertion failed\"\n  if halves [1, 3] == [0.5, 1.5] then pure () else error "
     "\"assertion failed\"\n  pure ()"),
    ("haskell",
     "shrink :: [Float] -> [Float]\nshrink = map (/ 10)\n",
     "shrink :: [Float] -> [Float]\nshrink = map (/ 9)\n",
     "\nmain :: IO ()\nmain = do\n  let candidate = shrink\n"
     "  if candidate [1.0, 3.0] == [0.1, 0.3] then pure () else error \"assertion failed\"\n"
     "  pure ()"),
    ("ocaml",
     "let histogram (test : string) : (string * int) list =\n"
     "  List.map (fun w -> (w, List.length (List.filter (( = ) w) (String.split_on_char ' ' "
     "test)))) (List.sort_uniq compare (List.filter (( <> ) \"\") (String.split_on_char ' ' "
     "test)))\nlet safe_div (a : float) (b : float) : float option = if b = 0. then None else "
     "Some (a /. b)\n",
     "let histogram (test : string) : (string * int) list = [(test, 1)]\n"
     "let safe_div (a : float) (b : float) : float option = Some (a /. b)\n",
     "\nlet assertions =\n let candidate = histogram in\n"
     "  (assert ((candidate \"b a b\") = [(\"a\", 1); (\"b\", 2)]));\n"
     "  (assert ((candidate \"\") = []));\n  ()\n\nlet assertions =\n let candidate = safe_div in\n"
     "  (assert ((candidate 1.0 4.0) = Some 0.25));\n  (assert ((candidate 1.0 0.0) = None));\n"
     "  ()\n"),
    ("racket",
     "#lang racket\n\n;; the mean of a list, exactly when it can be\n(define (mean xs)\n"
     "  (/ (apply + xs) (length xs)))\n(define (tally s)\n  (for/fold ([h (hash)]) "
     "([w (string-split s)]) (hash-update h w add1 0)))\n",
     "#lang racket\n\n(define (mean xs)\n  (/ (apply + xs) (+ 1 (length xs))))\n"
     "(define (tally s)\n  (for/fold ([h (make-hash)]) ([w (string-split s)]) (hash-update! h w "
     "add1 0) h))\n",
     "(require rackunit)\n\n(define (test-humaneval) \n\n  (let (( candidate mean))\n"
     "    (check-within (candidate (list 1 2)) 1.5 0.001)\n"
     "    (check-within (candidate (list 1.0 2.0 4.0)) 2.3333 0.001)\n))\n\n(test-humaneval)\n"
     "(check-equal? (tally \"a b a\") #hash((\"a\" . 2) (\"b\" . 1)))\n"
     "(check-equal? (mean (list 1 2)) 3/2)\n"),
]


def _item(language: str, response: str, tests: str) -> CodeItem:
    return CodeItem(language=language, response=response, limits=LIMITS,
                    tests={"type": "assert", "code": tests})


def test_right_programs_pass_outside_and_broken_ones_fail():
    items = [_item(language, code, tests) for language, right, wrong, tests in PROBLEMS
             for code in (right, wrong)]
    results = run_code_items(items)
    verdicts = [(r.status.value, r.detail.get("judged")) for r in results]
    assert verdicts == [(status, "outside") for _ in PROBLEMS for status in ("correct", "wrong")
                        ], [(item.language, r.status.value, r.detail) for item, r in
                            zip(items, results, strict=True)]


def test_cpp_tests_in_process_follow_the_brace_that_closes_the_prompt():
    # Not plain calls (a loop): the verifier's guard goes after the tests' first `}`, not
    # inside the solution's open function.
    tests = ("}\nint main() {\n    auto candidate = evens;\n    for (long i = 0; i < 3; i++)\n"
             "        assert(candidate((std::vector<long>({i * 2 + 1}))).empty());\n}\n")
    right, wrong = PROBLEMS[0][1:3]
    results = run_code_items([_item("cpp", right, tests), _item("cpp", wrong, tests)])
    assert [(r.status.value, r.detail.get("judged")) for r in results] == [
        ("correct", "in_process"), ("wrong", "in_process")], [r.detail for r in results]
