"""Math verdicts through the real checker (helper process included): a labelled table of
equivalent and non-equivalent answers, hedges, reference handling and result details."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import pytest

from rlvr_contract.schemas import MathItem
from verifier.kinds.math import check_math
from verifier.kinds.math.normalize import normalize
from verifier.kinds.math.parse import SllConverter, latex_to_sympy, parse_latex
from verifier.service.lru import LRU

C, W = "correct", "wrong"

# (reference as datasets store it, boxed prediction, verdict)
TABLE = [
    # fractions, \dfrac, \tfrac
    (r"\frac{1}{2}", r"\frac12", C), (r"\frac{1}{2}", "0.5", C), (r"\frac{1}{2}", "1/2", C),
    (r"\frac{1}{2}", r"\dfrac{1}{2}", C), (r"\frac{1}{2}", r"\tfrac{1}{2}", C),
    (r"\dfrac{9}{7}", r"\frac{18}{14}", C), (r"\frac{2}{3}", r"\frac{3}{2}", W),
    # tiny differences math-verify 0.9 calls equal
    (r"\frac{1}{2}", "0.5000001", W), (r"\frac{1}{2^{98}}", r"\frac{1}{2^{99}}", W),
    (r"\frac{1}{2^{98}}", r"2^{-98}", C), ("10^{100}", "10^{100}+1", W), ("2", "2.0000001", W),
    # decimals: a decimal must be the value rounded to the digits it shows
    (r"\frac{1}{3}", "0.333333", C), (r"\frac{1}{3}", "0.33", W), ("0.75", r"\frac{3}{4}", C),
    ("0.75", "0.7500", C), ("0.75", "0.7501", W), ("2", "2.0", C), ("3.14", "3.14", C),
    ("3.14", "3.15", W),
    # roots and pi
    (r"2\sqrt{2}", r"\sqrt{8}", C), (r"\frac{\sqrt{2}}{2}", r"\frac{1}{\sqrt{2}}", C),
    (r"\sqrt{3}", r"\sqrt{2}", W), (r"3\sqrt{5}", r"\sqrt{45}", C), (r"\pi", r"\pi", C),
    (r"\frac{\pi}{2}", r"\frac{1}{2}\pi", C), (r"2\pi", "6.28", W),
    (r"\frac{\pi}{3}", r"\frac{\pi}{4}", W),
    # intervals
    ("[1, 2)", "[1,2)", C), ("[1, 2)", "(1, 2)", W), (r"(-\infty, 3]", r"(-\infty,3]", C),
    (r"(-\infty, 3]", r"(-\infty,3)", W), (r"[1,2] \cup [3,4]", r"[1,2]\cup[3,4]", C),
    # sets and tuples
    (r"\{1, 2, 3\}", r"\{3, 2, 1\}", C), (r"\{1, 2, 3\}", r"\{1, 2\}", W), ("(1, 2)", "(1,2)", C),
    ("(1, 2)", "(2, 1)", W), ("(1, -2)", r"\left(1, -2\right)", C), ("2, 3", "3, 2", C),
    # matrices
    (r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", C),
    (r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"\begin{pmatrix}1&2\\4&3\end{pmatrix}", W),
    # units, percent, degrees, money
    (r"50\%", r"50\%", C), (r"50\%", "50", C), (r"50\%", r"60\%", W), (r"5\text{ cm}", "5", C),
    ("5", r"5\text{ cm}", C), ("90", r"90^\circ", C), ("90", r"90^{\circ}", C),
    (r"\$18", "18", C), ("18", r"\$18.00", C),
    # scientific notation
    (r"6.02\times 10^{23}", "6.02e23", C), (r"6.02\times 10^{23}", r"6.02 \times 10^{23}", C),
    (r"6.02\times 10^{23}", "6.03e23", W), ("1.5e-3", "0.0015", C),
    # text answers and choices
    (r"\text{Monday}", r"\text{Monday}", C), (r"\text{Monday}", "Monday", C),
    (r"\text{Monday}", r"\text{Tuesday}", W), ("B", r"\text{(B)}", C), ("B", "C", W),
    (r"\text{yes}", r"\text{Yes}", C), (r"\text{yes}", r"\text{no}", W),
    ("Yes", r"\text{Yes}\text{No}", W), ("Yes", r"\textbf{Yes} \textbf{No}", W),  # no unit
    (r"\frac{3}{2}", r"\frac{3}{2}\text{ m}\text{ per second}", C),
    # negative numbers
    ("-3", "-3", C), ("-3", "3", W), ("-3", r"-\frac{6}{2}", C), ("-0.5", r"-\frac{1}{2}", C),
    # thousands separators
    ("1000", "1,000", C), ("1000000", "1,000,000", C), ("1000", r"1\,000", C),
    ("1000", "1{,}000", C), ("1000", "1,001", W),
    # expressions and equations
    ("x^2+2x+1", "(x+1)^2", C), ("x^2+2x+1", "(x-1)^2", W), ("y = 2x + 3", "2x+3", C),
    ("2x+3", "y=2x+3", C), ("x = 5", "5", C), ("5", "x=5", C),
    (r"\frac{x+1}{x^2-1}", r"\frac{1}{x-1}", C), (r"\sin^2 x + \cos^2 x", "1", C),
    ("2", r"\log_2 4", C), ("0", r"\sin(\pi)", C), ("10^{10}", "10000000000", C),
    (r"3 + 2i", r"2i + 3", C), (r"\infty", r"\infty", C), (r"\infty", r"-\infty", W),
    (r"\emptyset", r"\varnothing", C),
    # numbers in other bases
    ("1011_2", "1011_2", C), ("1011_2", "1011_3", W), ("1011_2", "1011", C), ("1011_2", "11", W),
    ("1011_{2}", "1011_2", C), ("A3_{16}", "a3_{16}", C), ("11", "11_{10}", C),
    # hedges
    ("7", r"7 \text{ or } 8", W), ("4", r"4 \text{ (maybe 5 or 6)}", W), ("7", "7, 8, 9, 10", W),
    ("7", "7?", W), ("7", r"\text{probably } 7", W), ("2, 3", r"2 \text{ or } 3", C),
    # values that are not answers
    ("3", r"\frac{1}{0}", W), ("3", r"\frac{0}{0}", W), ("3", r"\infty", W), ("3", "x", W),
    ("3", r"\mathbb{R}", W), ("3", r"(-\infty, \infty)", W), ("3", r"\{3, 4\}", W),
]


@pytest.mark.parametrize(("gold", "prediction", "verdict"), TABLE)
def test_labelled_pairs(gold: str, prediction: str, verdict: str) -> None:
    result = check_math(MathItem(response=f"So the answer is $\\boxed{{{prediction}}}$.",
                                 answer=gold))
    assert result.status == verdict, result.detail
    assert result.reward == (1.0 if verdict == C else 0.0)


@pytest.mark.parametrize(("response", "gold"), [
    ("\\boxed{2} or \\boxed{3}", "2"),
    ("$x = \\boxed{2}$ or $x = \\boxed{3}$", "3"),
    ("\\boxed{4} (or maybe 5)", "4"),
    ("\\boxed{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}", "7"),
    # doubt in an answer statement, or right after the box
    ("The answer is probably 3.", "3"),
    ("So the answer is perhaps $3$.", "3"),
    ("The answer is 3 or 4.", "3"),
    ("Final answer: 3?", "3"),
    ("The answer is $\\boxed{3}$?", "3"),
    ("The answer is $\\boxed{3}$, but it could also be 4.", "3"),
    # two values in one box: an equation between different numbers is no computation
    ("\\boxed{3 = 4}", "4"),
    ("\\boxed{3 = 4}", "3"),
    ("\\boxed{4 = 3}", "4"),
    ("$x = \\boxed{3 = 4}$", "4"),
    ("\\boxed{x = 3 = 4}", "4"),
    ("\\boxed{x = 5+5+1 = 7 = 11}", "x = 11"),
    # two choices for one: after the box, in the box, in one statement
    ("\\boxed{(B)} or (D)", "B"),
    ("\\boxed{B} or D", "B"),
    ("\\boxed{B} (or D)", "B"),
    ("\\boxed{B}\n\nor D", "B"),
    ("\\boxed{B} or \\text{(D)}", "(B)"),
    ("\\boxed{B \\text{ or } D}", "B"),
    ("The answer is (B) or (D).", "B"),
    ("\\boxed{\\frac{1}{2} \\text{ or } \\frac{1}{3}}", "\\frac{1}{2}"),
])
def test_hedged_completions_are_wrong(response: str, gold: str) -> None:
    result = check_math(MathItem(response=response, answer=gold))
    assert result.status == "wrong"
    assert "hedged" in result.detail["reason"]


@pytest.mark.parametrize(("response", "gold"), [
    ("\\boxed{B\\ D}", "B"), ("\\boxed{B \\& D}", "B"), ("\\boxed{B \\lor D}", "B"),
    ("\\boxed{B \\vee D}", "(B)"), ("Answer: (B) (D)", "B"), ("\\boxed{(B), (D)}", "B"),
])
def test_several_choices_in_one_answer_are_wrong(response: str, gold: str) -> None:
    assert check_math(MathItem(response=response, answer=gold)).status == "wrong"


@pytest.mark.parametrize(("response", "gold"), [
    ("\\boxed{2+2 = 4}", "4"), ("\\boxed{5 - 1 = 4}", "4"), ("\\boxed{x = 4}", "4"),
    ("\\boxed{x = 2 + 2 = 4}", "4"), ("\\boxed{\\frac{22}{7} = 3.14}", "3.14"),
    ("\\boxed{\\textbf{(B)}\\ 12}", "B"), ("\\boxed{B: 12}", "B"),
    ("\\boxed{B}\n\nOr, equivalently, twelve.", "B"),
    ("\\boxed{B}. Option (D) fails the second condition.", "B"),
    # one answer written several ways is no alternative
    ("The probability is $\\frac{1}{4}$ or $25\\%$.", "\\frac{1}{4}"),
    ("\\boxed{4 \\text{ and } 4}", "4"),
    ("\\boxed{\\frac{1}{2} \\text{ or } 0.5}", "\\frac{1}{2}"),
])
def test_one_answer_stated_with_its_working_is_no_hedge(response: str, gold: str) -> None:
    result = check_math(MathItem(response=response, answer=gold))
    assert result.status == "correct", result.detail


def test_two_boxed_solutions_match_a_list_reference() -> None:
    result = check_math(MathItem(response="$x = \\boxed{2}$ or $x = \\boxed{-3}$",
                                 answer="-3, 2"))
    assert result.status == "correct", result.detail


def test_boxed_percentage_parses_with_the_pinned_antlr_runtime() -> None:
    assert version("antlr4-python3-runtime").startswith("4.13")
    assert parse_latex(normalize("50\\%")) is not None, "antlr 4.11 fails exactly here"
    result = check_math(MathItem(response="Half of them: $\\boxed{50\\%}$", answer="50\\%"))
    assert result.status == "correct"


@pytest.mark.parametrize("gold", ["\\frac{1}{2}", "$\\frac{1}{2}$", "\\boxed{\\frac{1}{2}}",
                                  "\\(\\frac{1}{2}\\)", "0.5"])
def test_reference_forms(gold: str) -> None:
    assert check_math(MathItem(response="\\boxed{\\dfrac{2}{4}}", answer=gold)).status == C


def test_answer_without_box() -> None:
    result = check_math(MathItem(response="Summing, 3 + 4 = 7.\nThe final answer is $7$.",
                                 answer="7"))
    assert (result.status, result.detail["source"], result.detail["extracted"]) == (
        "correct", "final_answer", "7")


def test_last_number_fallback() -> None:
    result = check_math(MathItem(response="We add 10 and 11 to get 21", answer="21"))
    assert (result.status, result.detail["source"]) == ("correct", "last_number")


def test_no_answer() -> None:
    result = check_math(MathItem(response="I do not know how to solve this.", answer="3"))
    assert (result.status, result.reward) == ("no_answer", 0.0)


def test_unparseable_reference_is_the_verifiers_fault() -> None:
    result = check_math(MathItem(response="\\boxed{2}", answer="\\frac{"))
    assert (result.status, result.reward) == ("infra_error", None)
    assert "reference" in result.detail["reason"]


@pytest.mark.parametrize(("gold", "prediction"), [
    ("\\frac{7}{13}", "\\frac{7}{12}"), ("1011_2", "1011_3"), ("42", "41"),
    ("\\text{Wednesday}", "\\text{Tuesday}"), ("8", "7 \\text{ or } 9"),
])
def test_detail_never_shows_the_reference(gold: str, prediction: str) -> None:
    result = check_math(MathItem(response=f"\\boxed{{{prediction}}}", answer=gold))
    assert result.status == "wrong"
    assert gold not in json.dumps(result.detail)
    assert result.detail["extracted"] == prediction


def test_detail_caps_the_extracted_answer() -> None:
    long_answer = "+".join(["1"] * 400)
    result = check_math(MathItem(response=f"\\boxed{{{long_answer}}}", answer="400"))
    assert len(result.detail["extracted"]) == 200


def test_sll_parse_agrees_with_ll_on_the_table() -> None:
    """ANTLR's SLL mode (our fast path) must give latex2sympy's LL trees or fail, never differ."""
    from latex2sympy2_extended.latex2sympy2 import _Latex2Sympy, normalize_latex
    from sympy import srepr

    from verifier.kinds.math.parse import _NORMALIZATION

    texts = {normalize_latex(normalize(t), config=_NORMALIZATION) for g, p, _ in TABLE
             for t in (g, p)}
    agreed = 0
    for text in texts:
        try:
            ll_tree = srepr(_Latex2Sympy(is_real=True).parse(text))
        except Exception:
            continue
        try:
            sll_tree = srepr(SllConverter(is_real=True).parse(text))
        except Exception:
            continue  # `_latex_to_sympy` retries these with LL
        assert sll_tree == ll_tree, text
        agreed += 1
    assert agreed > len(texts) / 2


def test_sll_failure_falls_back_to_ll() -> None:
    text = "x^2+48x+380"  # needs LL's full-context prediction
    with pytest.raises(Exception):  # noqa: B017 - latex2sympy raises bare Exceptions
        SllConverter(is_real=True).parse(text)
    assert latex_to_sympy(text) is not None


def test_no_text_is_evaluated_while_grading(monkeypatch: pytest.MonkeyPatch) -> None:
    """Grade every table (this file's, the comparison and normalisation tables) and code-like
    answers in this process with `eval` and sympy's `parse_expr` (what `sympify` of a string
    runs) spied on: neither may be called."""
    import builtins

    import sympy.parsing.sympy_parser as sympy_parser

    from tests import test_math_compare, test_math_normalize
    from verifier.kinds.math import grade as grading
    from verifier.kinds.math.extract import extract_answer
    from verifier.kinds.math.reference import reference_answer

    pairs = [(p, g) for g, p, _ in TABLE] + [
        ("__import__('os').system('true')", "0"), ("0", "__import__('os').system('true')"),
        ("eval('1')", "1"), ("5 \\text{ cm}", "5"), ("1,000", "1000")]
    pairs += [(extract_answer(completion).answer or "", reference_answer(reference))
              for tables in (test_math_compare.TABLES, test_math_normalize.TABLES)
              for rows in tables.values() for reference, completion, _ in rows]
    grading.warm_up()
    for prediction, gold in pairs:  # lazy imports inside sympy run their own constant strings
        grading.grade(prediction, gold)
    parse_latex.cache_clear()
    normalize.cache_clear()
    monkeypatch.setattr(grading, "_GOLDS", LRU(grading.GOLD_CACHE_SIZE))
    evaluated: list[object] = []

    def spy(original: Callable[..., Any]) -> Callable[..., Any]:
        def recorder(*args: Any, **kwargs: Any) -> Any:
            evaluated.append(args[0] if args else kwargs)
            return original(*args, **kwargs)
        return recorder

    monkeypatch.setattr(sympy_parser, "parse_expr", spy(sympy_parser.parse_expr))
    monkeypatch.setattr(builtins, "eval", spy(builtins.eval))
    for prediction, gold in pairs:
        grading.grade(prediction, gold)
    assert evaluated == []


def test_checker_source_has_no_evaluating_calls() -> None:
    import ast
    from pathlib import Path

    import verifier.kinds.math

    forbidden = {"eval", "exec", "sympify", "parse_expr", "S", "ExprExtractionConfig",
                 "parse_latex_cached"}
    for path in Path(verifier.kinds.math.__file__).parent.glob("*.py"):
        names = {node.id for node in ast.walk(ast.parse(path.read_text()))
                 if isinstance(node, ast.Name)}
        names |= {node.attr for node in ast.walk(ast.parse(path.read_text()))
                  if isinstance(node, ast.Attribute)}
        assert not names & forbidden, (path.name, names & forbidden)
