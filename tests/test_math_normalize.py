"""One spelling for an answer: labelled tables of references and boxed answers, per way of
writing the same value, scored by the real checker (helper process included).

Every row of the `*_FIXED` tables was scored wrongly before; the `*_GUARDS` rows are the
strict side of the same rule, which must hold on both sides of it. Answers are sent boxed, or,
where a box hid the problem before (math-verify read it right), as the last math of a
completion.
"""

from __future__ import annotations

import pytest

from tests.math_completions import boxed, labelled, unboxed, verdict
from verifier.kinds.math.normalize import normalize

C, W = "correct", "wrong"


SEPARATORS_FIXED = [
    ("11111111100", boxed("11,\\! 111,\\! 111,\\! 100"), C),  # MATH writes thousands with ,\!
    ("32349", boxed("32,\\!349"), C),
    ("16386.20", boxed("\\$16,\\!386.20"), C),
    ("2.74", boxed("2,74"), C),  # a decimal comma
    ("0.111", boxed("0,111"), C),
    ("1,22", boxed("1.22"), C),
    ("1000.99", boxed("1000,99"), C),
    ("1234567", boxed("1\\text{,}234\\text{,}567"), C),
]
SEPARATORS_GUARDS = [
    ("32349", boxed("32, 349"), W),  # a comma and a space: the list 32, 349
    ("1000", boxed("1,001"), W),
    ("2.74", boxed("2,75"), W),
]

WRAPPERS_FIXED = [
    ("1 - \\frac{1}{\\mathrm{e}}", unboxed("1 - \\frac{1}{e}"), C),  # was an infra_error
    ("1 - \\frac{1}{\\mathrm{e}}", unboxed("1 - e^{-1}"), C),
    ("\\frac{1}{\\mathrm{e}}", unboxed("\\frac{1}{\\text{e}}"), C),
    ("3 + 4\\mathrm{i}", unboxed("4i + 3"), C),
    ("\\text{odd}", unboxed("odd"), C),
    ("\\text{Even}", unboxed("Even"), C),
    ("\\text{E}", unboxed("E"), C),
    ("\\text{e}", unboxed("e"), C),
    ("\\textbf{Monday}", unboxed("\\mathrm{Monday}"), C),
    ("5", boxed("\\text{5 apples}"), C),
    ("5", boxed("\\underline{5}"), C),
    ("\\frac{1}{2}", boxed("\\textcolor{red}{\\frac{1}{2}}"), C),
    ("-3", boxed("{\\color{blue} -3}"), C),
]
WRAPPERS_GUARDS = [
    ("\\operatorname{lcm}(4, 6)", unboxed("12"), C),
    ("1 - \\frac{1}{\\mathrm{e}}", unboxed("1 + \\frac{1}{\\mathrm{e}}"), W),
    ("\\text{odd}", unboxed("\\text{even}"), W),
    ("3 + 4\\mathrm{i}", unboxed("3 - 4i"), W),
]

UNITS_FIXED = [
    ("45", boxed("45\u00b0"), C),
    ("18.90", boxed("\u00a318.90"), C),
    ("\\frac{1}{3}", unboxed("0.\\overline{3}"), C),  # a repeating decimal is a fraction
    ("\\frac{1}{6}", unboxed("0.1\\overline{6}"), C),
    ("3000000", boxed("3 \\text{ million}"), C),  # a multiplier, not a unit
    ("3", boxed("3 \\text{ million}"), W),
    ("2\\frac{1}{2}", "The answer is 2 1/2.", C),  # a mixed number, as text writes it
    ("\\frac{11}{4}", "The answer is 2 3/4 cups.", C),
    ("\\frac{5}{2}", "The answer is 2 1/3.", W),
]
ANGLES_FIXED = [  # degrees, minutes and seconds; every way of writing the degree sign
    ("60^\\circ 42'", boxed("60.7^\\circ"), C),
    ("60^\\circ 42'", boxed("60^{\\circ}42^{\\prime}"), C),
    ("60^\\circ 42'", boxed("60.7"), C),
    ("12^\\circ 30' 15''", boxed("\\frac{3001}{240}"), C),
    ("60.7", "The angle is 60\u00b042\u2032.", C),
    ("30^\\textcirc", boxed("30"), C),
    ("30^{\\textcirc}", boxed("30^\\circ"), C),
    ("30\\textdegree", boxed("30"), C),
]
ANGLES_GUARDS = [
    ("60^\\circ 42'", boxed("60.42"), W),
    ("60^\\circ 42'", boxed("60"), W),
    ("60^\\circ 42'", boxed("60^\\circ 24'"), W),
    ("30^\\textcirc", boxed("31"), W),
]

PLAIN_TEXT_FIXED = [  # no LaTeX at all: plain-text math means what it says
    ("\\frac{\\pi}{2}", "The answer is pi/2", C),
    ("-2\\pi", "The answer is -2*pi", C),
    ("\\sqrt{2}", "The answer is sqrt(2)", C),
    ("1024", "The answer is 2^10.", C),
    ("\\frac{1+\\sqrt{5}}{2}", "Answer: (1+sqrt(5))/2", C),
    ("e^{16} - 1", "The answer is -1 + exp(16)", C),
    ("\\dfrac{\\pi}{2}", "pi/2", C),
    ("x^{2}+1", "Final answer: x**2 + 1", C),
    ("2\\sqrt{3}", "The answer is 2*sqrt(3).", C),
    ("\\frac{\\pi}{2}", boxed("pi/2"), C),
    ("1024", "There are 2^10 subsets.", C),
    ("5", "Thus, the answer is **5**.", C),  # Markdown bold is no power
    ("73", "So the count is **73**.\n\n---\n\nFinal Answer: **73**", C),
]
PLAIN_TEXT_GUARDS = [
    ("\\frac{\\pi}{2}", "The answer is pi/3", W),
    ("\\sqrt{2}", "The answer is sqrt(3)", W),
    ("-2\\pi", "The answer is -2*pi + 1", W),
    ("20", boxed("2^10"), W),  # in LaTeX, 2^10 is 2^1 followed by 0
    ("\\text{spin}", boxed("\\text{spin}"), C),  # a word is no constant
]

UNITS_GUARDS = [
    ("28\\%", unboxed("28 \\text{ percent}"), C),
    ("30", unboxed("30^\\circ \\text{C}"), C),
    ("5\\text{ m/s}", unboxed("5 \\mathrm{~m} / \\mathrm{s}"), C),
    ("30", unboxed("31^\\circ \\text{C}"), W),
    ("\\frac{1}{3}", unboxed("0.\\overline{6}"), W),
    ("3", unboxed("3 \\text{ i}"), W),  # a lone letter is no unit: 3i
    ("25", boxed("5 \\text{ squared}"), W),
]

LABELS_FIXED = [
    ("(p,q)=(3,2)", unboxed("(3,2)"), C),
    ("(p,q,r)=(3,2,7)", unboxed("(3,2,7)"), C),
    ("\\frac{NO}{BO}=\\frac{1}{\\sqrt{6}}", unboxed("\\frac{1}{\\sqrt{6}}"), C),
    ("V_{1}:V_{2}=11:21", unboxed("11:21"), C),
    ("AB=4,CD=5", unboxed("4, 5"), C),
    ("a=4,\\,-8,\\,-10", unboxed("-10,-8,4"), C),
    ("p=5,q=2;p=7,q=2", unboxed("(5,2),(7,2)"), C),
    ("k = 45, n = 2", unboxed("45, 2"), C),
    ("x = \\frac{1}{3}", unboxed("x = 5+5+1 = \\frac{1}{3} \\approx 11"), C),  # a computation
    ("11", unboxed("x\\approx11"), C),
    ("D = (0, 1)", unboxed("D = (0, 1)"), C),
    ("n=1, 2, 3", unboxed("n=1, 2, 3"), C),
    # a label with a command or a text wrapper in its subscript
    ("m_{\\max}=n^2-n-1", unboxed("n^2-n-1"), C),
    ("m_{\\max}=n^2-n-1", unboxed("m_{\\max} = n^2 - n - 1"), C),
    ("V_{\\text{total}} = 12", unboxed("12"), C),
    ("S_{\\min} = \\frac{1}{2}", unboxed("0.5"), C),
]
LABELS_GUARDS = [
    ("x = 1", unboxed("y = 1"), W),  # both labelled: the labels must agree
    ("(p,q)=(3,2)", unboxed("(2,3)"), W),
    ("n=2, 3, 4", unboxed("n=1, 2, 3"), W),
    ("7 = 11a+c", unboxed("11a+c"), W),  # a side that is not a name is no label
    # a chain ending in two different numbers states two answers (math-verify reads the last)
    ("x = 11", unboxed("x = 5+5+1 = 7 = 11"), W),    ("m_{\\max}=n^2-n-1", unboxed("n^2-n"), W),
    ("m_{\\max}=n^2-n-1", unboxed("m_{\\min} = n^2 - n - 1"), W),
]

CHOICES_FIXED = [
    ("B", unboxed("\\text{(B) } 12"), C),
    ("\\text{(C)}", unboxed("\\textbf{(C)}\\ 5\\sqrt{2}"), C),
    ("(D)", unboxed("d"), C),
    ("B", "The answer is [B].", C),
    ("B", "The correct answer is option B.", C),
    ("\\text{(B)}", "Answer: B) 12", C),
    ("B", "After checking each option, I choose B.", C),
    # a reference naming the option and its value: either answers it
    ("(C) 15", boxed("C"), C),
    ("\\textbf{(C) }15", "The answer is C: 15.", C),
    ("\\text{(C) }15", boxed("15"), C),
    ("C", "The answer is C: 15.", C),
]
CHOICES_GUARDS = [
    ("B", unboxed("(C)"), W),
    ("\\text{(B)}", unboxed("12"), W),
    ("B", "The correct answer is option C.", W),
    ("B", "Answer: C) 12", W),
    ("(C) 15", boxed("(B) 15"), W),  # the letter given must be the option's
    ("(C) 15", boxed("16"), W),
]

WORDS_FIXED = [  # a whole answer in words: a number, or a set answers name
    ("6", "The answer is six.", C),
    ("\\text{six}", boxed("6"), C),
    ("21", boxed("\\text{twenty-one}"), C),
    ("\\text{all real numbers}", boxed("(-\\infty, \\infty)"), C),
    ("(-\\infty,\\infty)", boxed("\\text{all real numbers}"), C),
    ("\\emptyset", boxed("\\text{no solution}"), C),
    ("\\text{no solution}", boxed("\\varnothing"), C),
]
WORDS_GUARDS = [
    ("7", "The answer is six.", W),
    ("\\emptyset", boxed("\\text{all real numbers}"), W),
    ("\\text{Evelyn}", boxed("\\text{Evelyn}"), C),
    ("\\text{none}", boxed("\\text{one}"), W),
]


TABLES = {
    "separator": SEPARATORS_FIXED + SEPARATORS_GUARDS,
    "wrapper": WRAPPERS_FIXED + WRAPPERS_GUARDS,
    "unit": UNITS_FIXED + UNITS_GUARDS,
    "angle": ANGLES_FIXED + ANGLES_GUARDS,
    "plain text": PLAIN_TEXT_FIXED + PLAIN_TEXT_GUARDS,
    "label": LABELS_FIXED + LABELS_GUARDS,
    "choice": CHOICES_FIXED + CHOICES_GUARDS,
    "words": WORDS_FIXED + WORDS_GUARDS,
}


@pytest.mark.parametrize(("reference", "completion", "expected"), labelled(TABLES))
def test_one_spelling(reference: str, completion: str, expected: str) -> None:
    assert verdict(reference, completion) == expected


@pytest.mark.parametrize(("text", "spelling"), [
    ("11,\\! 111,\\! 100", "11111100"),
    ("\\$1{,}000", "1000"),
    ("5\\text{ cm}^2", "5"),
    ("125 miles", "125"),
    ("x = 1 \\pm \\sqrt{2}", "x = 1 + \\sqrt{2}, x = 1 - \\sqrt{2}"),
    ("6 \\text{ and } 8", "6, 8"),
    ("\\left( \\dfrac{1}{3} \\right)", "( \\frac{1}{3} )"),
    ("{1,2,3}", "1,2,3"),
    ("-2 \\\\le x \\\\le 7", "-2 \\le x \\le 7"),
    ("\\{1\\pm\\sqrt5,-2\\}", "\\{1+\\sqrt5, 1-\\sqrt5, -2\\}"),
    ("a \\pm b \\mp c", "a + b - c, a - b + c"),
    ("60^\\circ 42'", "\\frac{607}{10}"),
    ("m_{\\max}", "m_{max}"),
    ("\\{x | x < \\frac32\\} - \\{-6\\}", "\\{x \\mid x < \\frac32\\} \\setminus \\{-6\\}"),
    ("\\{x \\in \\mathbb{R} : x > 0 \\text{ and } x < 1\\}", "\\{x \\mid x > 0 \\land x < 1\\}"),
    ("pi/2", "\\pi /2"),
    ("(1+sqrt(5))/2", "(1+\\sqrt{5})/2"),
])
def test_normalized_spelling(text: str, spelling: str) -> None:
    assert normalize(text) == spelling
