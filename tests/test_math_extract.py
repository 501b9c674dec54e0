"""Final-answer extraction from whole completions (pure string work, no helper process)."""

from __future__ import annotations

import pytest

from rlvr_contract.schemas import MathItem
from tests.math_completions import verdict
from verifier.kinds.answer_region import MAX_BOX_CHARS, last_box
from verifier.kinds.math import check_math
from verifier.kinds.math.extract import Extraction, extract_answer

EXTRACTIONS = [
    # (completion, expected answer, expected source)
    ("Adding up, we get $\\boxed{\\frac{3}{4}}$.", "\\frac{3}{4}", "boxed"),
    ("First \\boxed{3} was a guess. Redoing it: \\boxed{4}.", "4", "boxed"),
    ("thus \\boxed 5 is it", "5", "boxed"),
    ("\\fbox{12}", "12", "boxed"),
    ("\\boxed{\\left\\{1, 2\\right\\}}", "\\left\\{1, 2\\right\\}", "boxed"),
    ("\\boxed{\\frac{\\sqrt{3}}{2}}", "\\frac{\\sqrt{3}}{2}", "boxed"),
    ("so $x = \\boxed{2}$ and $y = \\boxed{3}$", "2, 3", "boxed"),
    ("$x = \\boxed{2}$ or $x = \\boxed{3}$", "2 \\text{ or } 3", "boxed"),
    ("\\boxed{1}\\boxed{1}\\boxed{1}", "1", "boxed"),
    ("The final answer is $\\frac{3}{4}$. I hope it is correct.", "\\frac{3}{4}", "final_answer"),
    ("Final Answer: The final answer is 42. I hope it is correct.", "42", "final_answer"),
    ("**Answer:** $x = 3$", "x = 3", "final_answer"),
    ("Answer: 12 apples", "12", "final_answer"),
    ("The answer is \\(\\frac{1}{2}\\).", "\\frac{1}{2}", "final_answer"),
    ("so the answer is 3.5.", "3.5", "final_answer"),
    ("Hence the answer is -7", "-7", "final_answer"),
    ("We get 5 and then 7.", "7", "last_number"),
    ("The area is 1,234 square units.", "1,234", "last_number"),
    ("so it is \\frac{5}{8} of the total", "\\frac{5}{8}", "last_number"),
    ("\\boxedx{3} is not a box, 9 is the number", "9", "last_number"),
]

# Answers outside \boxed{} that the cascade must read as the value stated: (completion,
# extracted answer, source).
CASCADE = [
    # an answer statement takes the value it states, not the first math in it
    ("Final Answer: The largest $n$ is 34.", "34", "final_answer"),
    ("Final Answer: The volume of $ABCDEFGH$ is 120. I hope it is correct.", "120",
     "final_answer"),
    ("Final Answer: Jane started growing Sphere 3 hours ago.", "3", "final_answer"),
    ("The final answer is that $x = 2$ or $x = 3$.", "x = 2 \\text{ or } x = 3", "final_answer"),
    ("The final answer is \\\"$12 $ and $13 $\\\". I hope it is correct.", "12, 13",
     "final_answer"),
    ("The correct option is (B).", "(B)", "final_answer"),
    ("The answer is 3 (three).", "3", "final_answer"),
    ("Final answer: Evelyn, since she is the fastest at 5 m/s.", "Evelyn", "final_answer"),
    ("The answer is \u22127.", "-7", "final_answer"),
    # the last stated answer wins: a correction, or a statement after the last box
    ("The answer is $\\frac12$. Actually, no: it is $\\frac13$.", "\\frac13", "final_answer"),
    ("So $x = \\boxed{200}$ after six months.\nFinal Answer: The final answer is $10,455$. "
     "I hope it is correct.", "10,455", "final_answer"),
    # else the last math environment, whichever delimiters it has
    ("Therefore $x \\geq 5$ is the solution.", "x \\geq 5", "math"),
    ("Answer \\( (9+1) \\)", "(9+1)", "math"),
    ("The identity matrix is $ \\begin{pmatrix}1 & 0 \\\\ 0 & 1\\end{pmatrix} $.",
     "\\begin{pmatrix}1 & 0 \\\\ 0 & 1\\end{pmatrix}", "math"),
    ("$\\frac13 $", "\\frac13", "math"),
    ("We obtain\n$$\n(1, +\\infty)\n$$", "(1, +\\infty)", "math"),
    ("The valid values are $1$, $2$ and $3$.", "1, 2, 3", "math"),
    # else the last number, in any of the ways numbers are written
    ("Soucis : 2,74 $ a..", "2,74", "last_number"),
    ("The total is 1 000 000.", "1 000 000", "last_number"),
    ("There are 6.02 \u00d7 10^23 molecules.", "6.02 \\times  10^23", "last_number"),
    # a completion that is nothing but its answer
    (".4", ".4", "whole"),
    ("-\\frac{10}{9}", "-\\frac{10}{9}", "whole"),
    ("x/(x+1)", "x/(x+1)", "whole"),
    ("\\frac{x}{7}+\\frac{2}{7}", "\\frac{x}{7}+\\frac{2}{7}", "whole"),
    ("\\begin{pmatrix}1\\\\2\\end{pmatrix}", "\\begin{pmatrix}1\\\\2\\end{pmatrix}", "whole"),
    ("odd", "odd", "whole"),
    ("C. x = 42", "C. x = 42", "whole"),
    ("17\\text{ cm}", "17\\text{ cm}", "whole"),
    # a plain formula at the end of a sentence, not its last number alone
    ("Simplifying, we get f(x) = x/(x+1).", "f(x) = x/(x+1)", "last_number"),
    ("So f(x) = x/(x+1).", "f(x) = x/(x+1)", "whole"),
    ("The sum equals pi^2/6.", "\\pi ^2/6", "last_number"),
    ("The ratio is (1+sqrt(5))/2.", "(1+\\sqrt{5})/2", "last_number"),
    ("Thus x = 5 and y = 6.", "x = 5, y = 6", "last_number"),
    ("It costs 1,000.99$", "1,000.99", "last_number"),
    ("\\text{The answer is } 5", "5", "final_answer"),
    # an answer tag (R1-Zero's template) holds the answer; special tokens end a turn
    ("<think>40 + 2</think><answer>x^2+1</answer>", "x^2+1", "whole"),
    ("<answer>The answer is \\boxed{42}</answer> done", "42", "boxed"),
    ("The answer is 42<|im_end|>", "42", "final_answer"),
    ("Answer: \\boxed{42}<\uff5cend\u2581of\u2581sentence\uff5c>", "42", "boxed"),
    ("**42**", "42", "last_number"),
    ("\u2234 42", "42", "last_number"),
    # separators and remarks around a stated value; fractions written \frac34 in prose
    ("Final answer - 12", "12", "final_answer"),
    ("So the answer is 12, not 7.", "12", "final_answer"),
    ("The answer is \\frac34 (as computed above).", "\\frac34", "final_answer"),
    ("The remainder is the answer: 4 (mod 7)", "4 (mod 7)", "final_answer"),
    ("Therefore, \\frac34 is the result.", "\\frac34", "last_number"),
    ("=> 12", "12", "whole"),
    ("so it's 12 - done", "12", "last_number"),
    # a choice stated as the correct one; a connective before a bare answer
    ("Option C is correct.", "(C)", "final_answer"),
    ("A fails. Therefore, option (C) is correct.", "(C)", "final_answer"),
    ("Hence C.", "C", "whole"),
    ("The answer is \\boxed{A}. Option C is correct too.", "A", "boxed"),
    # an answer heading with the answer on the lines below (PRM800K's "# Answer")
    ("So we simplify.\n\n# Answer\n\nx^2+1", "x^2+1", "final_answer"),
    ("**Answer**\n\nx^2+1", "x^2+1", "final_answer"),
    ("**Final Answer**\n\n5", "5", "final_answer"),
    # a statement inside display math
    ("Final Answer:\n  The last three digits are:\n  \\[Answer: 009\\]", "009", "final_answer"),
    # an answer phrase whose display math starts on the next line
    ("Final answer:\n\\[\n34\n\\]", "34", "final_answer"),
    ("**Final Answer**\n$$\n\\frac{3}{4}\n$$\nas required.", "\\frac{3}{4}", "final_answer"),
    # a number written with a unicode constant or root
    ("The angle is \u03c0/2.", "\\pi /2", "last_number"),
    ("So the length is 2\u221a3 units.", "2\\sqrt3", "last_number"),
    # after a closed <think> block when an answer follows it
    ("<think>\nIt might be \\boxed{3}.\n</think>\nThe answer is $4$.", "4", "final_answer"),
]



# Statements that state no value, or only words before more math, do not count.
STATEMENT_GUARDS = [
    ("The answer is $\\boxed{5}$. The answer is correct.", "5", "boxed"),
    ("Answer: Let us think step by step. We get $x = 5$.", "x = 5", "math"),
    ("The answer is not 5. Checking again, $x = 7$.", "x = 7", "math"),
    ("\\boxed{5}\n\nSo the answer is Evelyn.", "5", "boxed"),
    ("\\boxed{5}\n\nSo the final answer is Evelyn.", "Evelyn", "final_answer"),
    # a question before the statement is no doubt about it; "and" lists, "or" offers
    ("Is it 5 or 7? The answer is 7.", "7", "final_answer"),
    ("The answers are 3 and 4.", "3 and 4", "final_answer"),
    # a decimal written without its leading zero keeps its point (".7" was read as 7)
    ("The answer is .7", ".7", "final_answer"),
    ("Final answer: .75.", ".75", "final_answer"),
]


@pytest.mark.parametrize(("completion", "answer", "source"),
                         EXTRACTIONS + CASCADE + STATEMENT_GUARDS)
def test_extracts_the_final_answer(completion: str, answer: str, source: str) -> None:
    extraction = extract_answer(completion)
    assert (extraction.answer, extraction.source, extraction.problem) == (answer, source, None)


@pytest.mark.parametrize("completion", [
    "I am not sure how to approach this.",
    "",
    "Let's see: \\boxed{",
    "\\boxed{\\frac{1}{2}",
    "Unclosed at the very end \\boxed{" + "{" * 50,
])
def test_nothing_extractable(completion: str) -> None:
    extraction = extract_answer(completion)
    assert extraction.answer is None
    assert extraction.problem


@pytest.mark.parametrize("completion", [
    "\\boxed{4} (or maybe 5)",
    "\\boxed{4}, probably.",
    "\\boxed{4} or 5, not sure",
    "\\boxed{4}\n\nor maybe 5",
    "The answer is $\\boxed{4}$.\nPerhaps it is 5.",
    "\\[\\boxed{4}\\]\nOr $5$.",
])
def test_hedge_after_the_box(completion: str) -> None:
    extraction = extract_answer(completion)
    assert extraction.answer == "4"
    assert extraction.problem and "hedged" in extraction.problem


@pytest.mark.parametrize("completion", [
    "The answer is 7.\n\nHmm, but it could also be 8.",
    "I'm not sure, but I think the answer is 7.",
    "Maybe the answer is 7.",
    "\\boxed{7}\n\nThough it might also be $8$.",
])
def test_doubt_around_a_statement_or_box(completion: str) -> None:
    extraction = extract_answer(completion)
    assert extraction.answer == "7"
    assert extraction.problem and "hedged" in extraction.problem


@pytest.mark.parametrize("completion", [
    "Is it 5 or 7? The answer is 7.",
    "I was not sure at first. The answer is 7.",
    "The answer is 7.\n\nThis could also be checked by counting.",
])
def test_no_doubt_around_a_statement(completion: str) -> None:
    assert extract_answer(completion) == Extraction("7", "final_answer")


@pytest.mark.parametrize("completion", [
    "\\boxed{4}, in either case.",
    "\\boxed{4}\n\nPerhaps surprisingly, this is also the number of sides of a square.",
    "\\boxed{4}\n\nOr, equivalently, four.",
])
def test_no_hedge_after_the_box(completion: str) -> None:
    assert extract_answer(completion).problem is None


def test_escaped_braces_do_not_count() -> None:
    assert last_box("\\boxed{\\{1\\}} end") == (0, 13, "\\{1\\}")


def test_box_longer_than_the_limit_is_unclosed() -> None:
    start, _, content = last_box("\\boxed{" + "1" * (MAX_BOX_CHARS + 10) + "}")
    assert (start, content) == (0, None)


MEGABYTE_COMPLETIONS = {
    "boxes": "\\boxed{1}" * 120_000,
    "digits": "1" * 1_000_000,
    "answer_phrases": "answer is " * 100_000,
    "spaces_then_box": " " * 1_000_000 + "\\boxed{2}",
    "box_then_text": "\\boxed{2}" + " " * 60 + "x" * 1_000_000,
    "open_braces": "{" * 1_000_000,
    "unclosed_boxes": "\\boxed{" * 150_000,
}


@pytest.mark.parametrize("completion", MEGABYTE_COMPLETIONS.values(), ids=MEGABYTE_COMPLETIONS)
def test_megabyte_completions_are_handled(completion: str) -> None:
    extraction = extract_answer(completion)
    assert extraction.answer is None or len(extraction.answer) <= MAX_BOX_CHARS


# Boxes spread over a phrase are one list when the reference is a list: (reference, completion).
LISTED_BOXES = [
    ("(2, 2), (6, 2)", "$$\\boxed{(2, 2)} \\quad \\text{and} \\quad \\boxed{(6, 2)}$$"),
    ("(3, 3), (1, 1)", "$$\\boxed{(3, 3)} \\text{ for part (a) and } \\boxed{(1, 1)}$$"),
    ("-2, 1", "the roots are: \\[ \\boxed{-2} \\quad \\text{and} \\quad \\boxed{1}. \\]"),
    ("1, 2", "\\boxed{1} papers and \\boxed{2} bins"),
    ("k = 45, n = 2", "$$\\boxed{k = 45} \\quad \\text{and} \\quad \\boxed{n = 2}$$"),
    ("y_{1}=-2 x^{2}+4 x+3, y_{2}=3 x^{2}+12 x+10",
     "\\($y_1 = \\boxed{-2(x - 1)^2 + 5} \\) and \\( y_2 = \\boxed{3(x + 2)^2 - 2} \\) "),
    ("1 \\pm \\sqrt{19}", "The roots are $\\boxed{1 + \\sqrt{19}}$ and $\\boxed{1 - \\sqrt{19}}$."),
]


@pytest.mark.parametrize(("reference", "completion"), LISTED_BOXES)
def test_boxes_spread_over_a_phrase_list_the_reference(reference: str, completion: str) -> None:
    result = check_math(MathItem(response=completion, answer=reference))
    assert result.status == "correct", result.detail


# Answers listed in prose at the end of a completion: (reference, completion, verdict).
PROSE_LISTS = [
    ("2, 3", "The roots are 2 and 3.", "correct"),
    ("2, 3, 5", "The primes are 2, 3, and 5.", "correct"),
    ("1, 2", "So the values of $k$ are 1 and 2.", "correct"),
    ("1, 2", "Therefore k = 1 or k = 2.", "correct"),
    ("x=1,y=2", "So x = 1 and y = 2.", "correct"),
    ("3, 4", "The sides are 3 cm and 4 cm.", "correct"),
    ("-1, 2", "Thus the roots are -1 and 2.", "correct"),
    ("\\frac{1}{2}, 3", "The solutions are 1/2 and 3.", "correct"),
    # the strict side: a list is several answers, for one reference a hedge
    ("3", "The roots are 2 and 3.", "wrong"),
    ("2, 3", "The roots are 2 and 4.", "wrong"),
    ("2, 3, 5", "The primes are 2, 3, and 7.", "wrong"),
    ("7", "We get 5 and then 7.", "correct"),
    ("12", "Of the 30 students, 18 walk, so 12 ride the bus.", "correct"),
]


# A completion that is only its answer, as graders' own tests pass one and terse policies
# write it, and plain formulas in prose: (reference, completion, verdict).
BARE_ANSWERS = [
    ("\\frac{x+2}{7}", "\\frac{x}{7}+\\frac{2}{7}", "correct"),
    ("x^2+2x+1", "(x+1)^2", "correct"),
    ("(r+5)^2", "(r+5)(r+5)", "correct"),
    ("918.5", "918\\frac{1}{2}", "correct"),
    ("\\sqrt[3]{2}", "2^(1/3)", "correct"),
    ("y=2x+1", "2x-y+1=0", "correct"),
    ("\\begin{pmatrix}1\\\\2\\end{pmatrix}", "(1, 2)", "correct"),
    ("\\text{odd}", "odd", "correct"),
    ("\\mathrm{E}", "E", "correct"),
    ("C", "C. x = 42", "correct"),
    ("\\frac{\\sqrt{3}}{3}", "\\frac{\\sqrt{3}}{3} \\approx 0.577", "correct"),
    ("185\\", "185", "correct"),
    ("\\frac{x}{x+1}", "So f(x) = x/(x+1).", "correct"),
    ("\\frac{\\pi^2}{6}", "The sum equals pi^2/6.", "correct"),
    ("\\frac{1+\\sqrt{5}}{2}", "The ratio is (1+sqrt(5))/2.", "correct"),
    ("x^2+1", "So we simplify.\n\n# Answer\n\nx^2+1", "correct"),
    ("9", "Final Answer:\n  The last three digits of \\(2003^{2002^{2001}}\\) are:\n"
     "  \\[Answer: 009\\]", "correct"),
    ("\\{x, x - 1\\}", "\\{x - 1, x\\}", "correct"),
    ("2.625", "2\\frac58", "correct"),
    ("7, -2, \\text{ and } -5", "-5,-2,7", "correct"),
    ("1+2i", "i(2-i)", "correct"),
    ("20", "10 - 10*i**2", "correct"),
    ("\\tfrac23 +\\frac1{72}", "\\\\dfrac{2}{3} +\\frac{1}{72}", "correct"),
    ("20:34", "08:34 \\text{P.M.}", "correct"),
    ("\\left(x-2\\right)\\left(x+2\\right)", "(x-2)(x+2)", "correct"),
    ("11z^{7}(5+11z^{7})", "11z^7(11z^7+5)", "correct"),
    ("\\frac{8-7x}{6}", "4/3-7x/6", "correct"),
    ("2^6 * 3^5 * 5^4", "2^6 3^5 5^4", "correct"),
    ("\\begin{pmatrix} 1 & 1/2 \\\\ 1/3 & 4 \\end{pmatrix}",
     "\\begin{pmatrix} 1 & 0.5 \\\\ 1/3 & 4 \\end{pmatrix}", "correct"),
    ("-\\frac{2(x^2+6)}{9(x^2-2)\\sqrt[3]{x^2-2}^2}",
     "-\\frac{8x^2}{9(x^2-2)^{5/3}}+\\frac{2}{3(x^2-2)^{2/3}}", "correct"),
    ("\\frac{1}{432}", "2.314814814815 \\times 10^{-3}", "correct"),
    ("x \\in [0.5, \\infty)", "[1/2, \\infty)", "correct"),
    ("f(x) = 2x + 3", "2x + 3", "correct"),
    ("f(x) = 2x + 3", "y = 2x + 3", "correct"),
    ("y = 2x + 3", "f(t) = 2t + 3", "correct"),
    ("x_0\\cos(\\omega t)", "x_{0}\\cos(\\omega t)", "correct"),
    ("I(0)e^{-\\frac{t}{RC}}", "I(t)=I(0)e^{-\\frac{t}{RC}}", "correct"),
    ("A", "(A) 3", "correct"),
    # the strict side
    ("20:34", "08:34 \\text{A.M.}", "wrong"),
    ("\\sin(x)=\\frac{42}{59}", "\\cos(x)=\\frac{42}{59}", "wrong"),
    ("5x - 7y + 11z + 4 = 0", "x + y - z + 2 = 0", "wrong"),
    ("[1, 2, 3]", "(1, 3, 2)", "wrong"),
    ("[1, 2)", "[x, y)", "wrong"),
    ("6+9.2i", "(6.0+9.1i)", "wrong"),
    ("\\frac{11}{2}", "5.51", "wrong"),
    ("f(x) = 2x + 3", "y = 2x + 4", "wrong"),
    ("f(x) = 2x + 3", "x = 2x + 3", "wrong"),
    ("\\frac{1}{432}", "2.3149 \\times 10^{-3}", "wrong"),
    ("x^3+2x+1", "x^2+2x+1", "wrong"),
    ("\\text{oddd}", "odd", "wrong"),
    ("\\sqrt{67}", "\\sqrt{67},-\\sqrt{85}", "wrong"),
    ("\\frac{1}{x+1}", "1/x+1", "wrong"),
    ("5", "5 - 2", "wrong"),
    ("B", "B, D", "wrong"),
    ("\\frac{x}{x+1}", "So f(x) = x/(x+2).", "wrong"),
    ("6", "Thus the 5-digit number has 6 digits.", "correct"),
    # a formula is read whole, or not at all
    ("20", "The area is 4 x 5 = 20.", "correct"),
    ("5", "Result - 5", "correct"),
    ("12", "The total is (3)(4) = 12", "correct"),
    ("5", "we get x = 5 (check: 2 + 3 = 5)", "correct"),
]


@pytest.mark.parametrize(("reference", "completion", "expected"), BARE_ANSWERS)
def test_answers_without_delimiters(reference: str, completion: str, expected: str) -> None:
    assert verdict(reference, completion) == expected


@pytest.mark.parametrize(("reference", "completion", "verdict"), PROSE_LISTS)
def test_answers_listed_in_prose(reference: str, completion: str, verdict: str) -> None:
    result = check_math(MathItem(response=completion, answer=reference))
    assert result.status == verdict, result.detail


def test_a_number_after_the_last_math_is_the_answer() -> None:
    """math-verify reads whichever comes last; the cascade's last step does the same."""
    completion = "so $d = \\frac{90}{n}$. Therefore, there are 12 such sequences."
    assert extract_answer(completion) == Extraction("12", "last_number")


def test_a_single_reference_takes_the_last_of_spread_boxes() -> None:
    """A corrected answer is not a hedge: only a list reference reads spread boxes as a list."""
    completion = "First I thought \\boxed{2}, but then I realized it is \\boxed{3}."
    assert check_math(MathItem(response=completion, answer="3")).status == "correct"
    assert check_math(MathItem(response=completion, answer="2")).status == "wrong"
