"""The same answer of every kind: labelled tables of references and boxed answers per kind
(equations, inequalities, relations against intervals, sets and tuples, matrices, text, times
and ratios, numbers), scored by the real checker (helper process included).

Every row of the `*_FIXED` tables was scored wrongly before; the `*_GUARDS` rows are the
strict side of the same rule, which must hold on both sides of it. A boxed answer of most kinds
was compared right before (by math-verify's `verify`); written as the last math of a completion
it was read as its last number, and that is how the rows send it.
"""

from __future__ import annotations

import pytest

from tests.math_completions import labelled, unboxed, verdict

C, W = "correct", "wrong"


EQUATIONS_FIXED = [  # the same line, plane or curve: one equation a non-zero multiple of the other
    ("34x+45y-20z+100=0", unboxed("-34x-45y+20z-100=0"), C),
    ("2x+4y-3=0", unboxed("y=-\\frac{1}{2}x+\\frac{3}{4}"), C),
    ("x^2/4 + y^2/3 = 1", unboxed("x^2/16 + y^2/12 = 1/4"), C),
    ("y = x + 1", unboxed("x - y + 1 = 0"), C),
    ("x^2 + y^2 = 1", unboxed("2y^2 + 2x^2 = 2"), C),
]
EQUATIONS_GUARDS = [
    # a sum to n is compared as written, never evaluated at a sample n
    ("F_n = \\sum_{k=0}^{n-1} F_k F_{n-k-1}", unboxed("F_n = \\sum_{k=0}^{n-1} F_{n-k-1} F_k"), C),
    ("\\sin(x)=\\frac{42}{59}", unboxed("\\cos(x)=\\frac{42}{59}"), W),
    ("x^2 + y^2 = 1", unboxed("x^2 + y^2 = 2"), W),
    ("y = x + 1", unboxed("y = x - 1"), W),
    ("a + 3z = 0", unboxed("0"), W),  # an equation is not its right-hand side
    ("2", unboxed("x^2 = 4"), W),
]

INEQUALITIES_FIXED = [  # a positive multiple, flipped or not
    ("x < 1", unboxed("-x > -1"), C),
    ("x \\le 1", unboxed("-x \\ge -1"), C),
    ("x \\ge 5", unboxed("5 \\le x"), C),
    ("x > 3", unboxed("2x > 6"), C),
    ("x > 3", unboxed("-2x < -6"), C),
    ("x < 3", unboxed("x \\lt 3"), C),
    ("x \\ne 3", unboxed("x != 3"), C),
    ("x^2 < 4", unboxed("-2 < x < 2"), C),  # the same solution set
]
INEQUALITIES_GUARDS = [
    ("x > 3", unboxed("-2x > -6"), W),
    ("x > 3", unboxed("x \\ge 3"), W),
    ("x < 1", unboxed("x > -1"), W),
]

RELATIONS_AND_SETS_FIXED = [  # a relation reference, an interval or set answer
    ("-793 < a < 10", unboxed("(-793, 10)"), C),
    ("1\\leq|z|\\leq \\frac{3}{2}",
     unboxed("z \\in \\left[-\\frac{3}{2}, -1\\right] \\cup \\left[1, \\frac{3}{2}\\right]"), C),
    ("-2 \\le x \\le 7", unboxed("x \\in [-2,7]"), C),
    ("0<f(x)<1", unboxed("(0,1)"), C),
    ("x \\ge 5", unboxed("[5, \\infty)"), C),
    ("x^2 = 4", unboxed("\\{-2, 2\\}"), C),
    ("x < 2 \\text{ or } x > 3", unboxed("(-\\infty, 2) \\cup (3, \\infty)"), C),
    # and a set reference, a relation in solved form that describes it
    ("x \\in [-2,7]", unboxed("-2 \\le x \\le 7"), C),
    # conditions joined by "and" all hold; a list of them where their union is every number
    # does too; a list of alternatives and a relation holding on the same set
    ("[2, 5)", unboxed("x \\geq 2 \\text{ and } x < 5"), C),
    ("[2, 5)", unboxed("x \\geq 2, x < 5"), C),
    ("1 < x < 2", unboxed("x > 1 \\text{ and } x < 2"), C),
    ("(-\\infty, 2) \\cup (3, \\infty)", unboxed("x < 2 \\text{ and } x > 3"), W),
    ("a<-1 \\text{ or } a>1", unboxed("|a|>1"), C),
    ("x \\in \\mathbb{R}, x \\neq 3", unboxed("(-\\infty,3)\\cup(3,\\infty)"), C),
    ("(-\\infty,-5)", unboxed("k<-5"), C),
    ("(-\\infty,-5)", unboxed("-5 > k"), C),
    ("[3, \\infty)", unboxed("x \\ge 3"), C),
    ("[-2,7]", unboxed("-2\\le x\\le 7"), C),
    ("(-\\infty,2)\\cup(3,\\infty)", unboxed("x<2 \\text{ or } x>3"), C),
    ("(-\\infty, 2) \\cup (2, \\infty)", unboxed("x \\ne 2"), C),
    ("x \\in (-\\infty, 1) \\cup (2, \\infty)", unboxed("x < 1 \\text{ or } x > 2"), C),
    ("\\{2, 3\\}", unboxed("x = 2 \\text{ or } x = 3"), C),  # "or" lists a set's elements
]
RELATIONS_AND_SETS_GUARDS = [
    ("-793 < a < 10", unboxed("[-793, 10]"), W),
    ("x \\ge 5", unboxed("(5, \\infty)"), W),
    ("(-\\infty,-5]", unboxed("k<-5"), W),
    ("(-5, \\infty)", unboxed("k<-5"), W),
    ("(-\\infty,2)\\cup(3,\\infty)", unboxed("x<2 \\text{ or } x>4"), W),
    # a relation that is not solved restates the question: never the set
    ("(-2,2)", unboxed("x^2<4"), W),
    ("\\{1,2\\}", unboxed("x^2-3x+2=0"), W),
    ("(-\\infty,-5)", unboxed("2k<-10"), W),
    ("\\{2, 3\\}", unboxed("x = 2 \\text{ or } x = 4"), W),
    ("(2, 3)", unboxed("x = 2 \\text{ or } x = 3"), W),  # a pair is no alternative
]

SETS_AND_TUPLES_FIXED = [
    ("\\pm 2021", unboxed("\\{-2021, 2021\\}"), C),
    ("(1,3)", unboxed("{1,3}"), C),  # a pair, written without its parentheses
    ("(1,\\frac{9}{2})", unboxed("(1,4.5)"), C),
    ("1 \\pm \\sqrt{19}", unboxed("1-\\sqrt{19}, 1+\\sqrt{19}"), C),
    ("x = \\frac{1}{2}, x = \\frac{-1 \\pm \\sqrt{13}}{4}",
     unboxed("\\frac{-1-\\sqrt{13}}{4}, \\frac{1}{2}, \\frac{-1+\\sqrt{13}}{4}"), C),
    ("\\begin{pmatrix} 2 \\\\ -1 \\end{pmatrix}", unboxed("(2, -1)"), C),  # a vector, a tuple
    ("[0,1] \\cup [1,2]", unboxed("[0,2]"), C),
    # a pair that is also an open interval, beside a vector, is the pair
    ("\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", unboxed("(1, 2)"), C),
    ("(1, 2)", unboxed("\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}"), C),
    ("\\begin{pmatrix} 1 & 5 \\end{pmatrix}", unboxed("(1, 5)"), C),
    # \\pm wherever a value stands: inside a set or a list too
    ("\\{1\\pm\\sqrt5,-2\\}", unboxed("1+\\sqrt5, 1-\\sqrt5, -2"), C),
    ("\\{1\\pm\\sqrt5,-2\\}", unboxed("\\{-2, 1-\\sqrt{5}, 1+\\sqrt{5}\\}"), C),
    ("\\{-2, 1+\\sqrt5, 1-\\sqrt5\\}", unboxed("\\{1\\pm\\sqrt5,-2\\}"), C),
    ("\\{\\pm 1, \\pm 2\\}", unboxed("\\{-2, -1, 1, 2\\}"), C),
    ("x = 2, \\frac{-1 \\pm \\sqrt{5}}{2}",
     unboxed("\\{2, \\frac{-1+\\sqrt5}{2}, \\frac{-1-\\sqrt5}{2}\\}"), C),
    # a sequence with an ellipsis: the ellipsis is an item of its own
    ("1, 2, \\ldots, n", unboxed("1, 2, \\dots, n"), C),
    ("1, 3, 5, \\ldots", "So the answer is $\\boxed{1, 3, 5, ...}$.", C),
    ("\\pm\\sqrt{2 \\pm \\sqrt{2}}", unboxed("\\sqrt{2+\\sqrt2}, -\\sqrt{2+\\sqrt2}, "
                                        "\\sqrt{2-\\sqrt2}, -\\sqrt{2-\\sqrt2}"), C),
]
SETS_AND_TUPLES_GUARDS = [
    ("\\{1\\}", unboxed("1"), C),
    ("(3,1)", unboxed("{1,3}"), W),  # a pair is ordered
    ("(1,2)", unboxed("(2,1)"), W),
    ("\\pm 2021", unboxed("2021"), W),
    ("\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", unboxed("(2, 1)"), W),
    ("\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", unboxed("[1, 2]"), W),
    ("\\{1, 2, 3\\}", unboxed("\\{1, 2\\}"), W),
    ("\\{1\\pm\\sqrt5,-2\\}", unboxed("1+\\sqrt5, -2"), W),
    ("\\{1\\pm\\sqrt5,-2\\}", unboxed("\\{1+\\sqrt5, 1-\\sqrt5, 2\\}"), W),
    ("\\{\\pm 1, \\pm 2\\}", unboxed("\\{1, 2\\}"), W),
    ("1, 2, \\ldots, n", unboxed("1, 3, 5, \\ldots, 2n-1"), W),
    ("1, 3, 5, \\ldots", "So the answer is $\\boxed{1, 3, 7, ...}$.", W),
]

MATRICES_FIXED = [
    ("\\begin{bmatrix}0 & 0 \\\\0 & 0\\end{bmatrix}",
     unboxed("\\begin{pmatrix}0 & 0 \\\\0 & 0\\end{pmatrix}"), C),
    ("\\begin{pmatrix}1 & 2 \\\\3 & 4\\end{pmatrix}",
     unboxed("\\left[\\begin{array}{cc}1 & 2 \\\\3 & 4\\end{array}\\right]"), C),
    ("\\begin{pmatrix}6 & 8 \\\\ 10 & 12\\end{pmatrix}",
     unboxed("\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix} + "
             "\\begin{pmatrix}5 & 6 \\\\ 7 & 8\\end{pmatrix}"),
     C),
    ("\\begin{pmatrix}1 & 0 \\\\ 0 & 1\\end{pmatrix}",
     unboxed("\\begin{pmatrix}1 & 0 \\\\ 0 & 1\\end{pmatrix} "
             "\\begin{pmatrix}1 & 0 \\\\ 0 & 1\\end{pmatrix}"),
     C),
]
MATRICES_FIXED += [  # environments the parser lacks: the same entries
    ("\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}",
     unboxed("\\begin{Bmatrix}1 & 2 \\\\ 3 & 4\\end{Bmatrix}"), C),
    ("\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}",
     unboxed("\\left(\\begin{smallmatrix}1 & 2 \\\\ 3 & 4\\end{smallmatrix}\\right)"), C),
]
MATRICES_GUARDS = [
    ("\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}",
     unboxed("\\begin{pmatrix}1 & 2 \\\\ 3 & 5\\end{pmatrix}"), W),
    ("\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}",
     unboxed("\\begin{pmatrix}1 & 3 \\\\ 2 & 4\\end{pmatrix}"),
     W),
]

TEXT_FIXED = [
    ("\\text{odd}", unboxed("odd"), C),
    ("\\text{Even}", unboxed("Even"), C),
    ("\\text{E}", unboxed("E"), C),
    ("$$\\text{The midpoints form a regular hexagon}$$",
     unboxed("\\text{The midpoints form a regular hexagon}"), C),
]
TEXT_GUARDS = [
    ("\\text{odd}", unboxed("dod"), W),  # as math, o·d·d would equal d·o·d
    ("\\text{Monday}", unboxed("\\text{Dynamo}"), W),
    ("d", unboxed("\\text{E}"), W),
]

CHOICES_FIXED = [  # several options to choose, in any spelling and order
    ("AC", unboxed("A, C"), C),
    ("BD", unboxed("D, B"), C),
    ("\\text{A, C}", unboxed("AC"), C),
    ("\\text{(A), (C)}", unboxed("(A)(C)"), C),
    ("ABD", unboxed("A, B \\text{ and } D"), C),
    ("BCD", unboxed("\\text{(B)(C)(D)}"), C),
    ("E", unboxed("E: A polygenic risk score is used"), C),  # an option and its text
    ("E", unboxed("(E) A polygenic risk score is used"), C),
]
CHOICES_GUARDS = [
    ("AC", unboxed("A"), W),
    ("AC", unboxed("A, B, C"), W),
    ("ABD", unboxed("AB"), W),
    ("B", unboxed("B, D"), W),  # one option asked for: several are a hedge
    ("B", unboxed("BD"), W),
    ("D", unboxed("E: A polygenic risk score is used"), W),
    ("E", unboxed("E: A or (B)"), W),
]

CONGRUENCES_FIXED = [  # a residue class, however its modulus is written
    ("x \\equiv 3 \\pmod{5}", unboxed("x \\equiv 8 \\pmod{5}"), C),
    ("x \\equiv 3 \\pmod{5}", unboxed("3 \\pmod 5"), C),
    ("x \\equiv 3 \\pmod{5}", unboxed("x \\equiv 3 \\ (\\mathrm{mod}\\ 5)"), C),
    ("n \\equiv 2 \\pmod{7}", "So n \u2261 2 (mod 7).", C),
]
CONGRUENCES_GUARDS = [
    ("x \\equiv 3 \\pmod{5}", unboxed("x = 3"), W),  # a number is not its class
    ("x \\equiv 3 \\pmod{5}", unboxed("x \\equiv 3 \\pmod{10}"), W),
    ("x \\equiv 3 \\pmod{5}", unboxed("x \\equiv 2 \\pmod{5}"), W),
    ("4", unboxed("4 \\pmod 7"), C),  # the least residue with its modulus states the residue
    ("4", unboxed("11 \\pmod 7"), W),
]

LABELS_FIXED = [  # a name for the quantity, as datasets write it, labels the value
    ("\\max f(x) = 3", unboxed("3"), C),
    ("\\max_{x \\in [0, 1]} f(x) = 3", unboxed("3"), C),
    ("f(x)_{\\max} = 3", unboxed("3"), C),
    ("m_{\\max}=n^2-n-1", unboxed("m = n^2-n-1"), C),
    ("f(x)_{\\min} = -2", unboxed("f_{\\min} = -2"), C),
]
LABELS_GUARDS = [
    ("\\max f(x) = 3", unboxed("4"), W),
    ("m_{\\max}=n^2-n-1", unboxed("m_{\\min} = n^2-n-1"), W),
    ("m_{\\max}=n^2-n-1", unboxed("k = n^2-n-1"), W),
    ("x = \\max(a, b)", unboxed("\\max(a, b)"), C),
]

TIMES_AND_RATIOS_FIXED = [
    ("20:34", unboxed("08:34 \\text{ P.M.}"), C),  # a 24-hour time names its half of the day
    ("20:34", unboxed("08:34 \\text{ A.M.}"), W),
    ("00:30", unboxed("12:30 \\text{ PM}"), W),
    ("1:2:3", unboxed("2:4:6"), C),  # a ratio of three numbers, in proportion
    ("1:2:3", unboxed("1:4:9"), W),
    ("12:00", unboxed("12:00"), C),
    ("3:00 \\text{ PM}", unboxed("15:00"), C),
    ("V_{1}:V_{2}=11:21", unboxed("11:21"), C),
    ("2:5", unboxed("4:10"), C),
    ("3:00", unboxed("3{:}00"), C),
]
TIMES_AND_RATIOS_GUARDS = [
    ("1:2:3", unboxed("3:2:1"), W),
    ("1:2:3", unboxed("\\frac{1}{6}"), W),
    ("12:00", unboxed("1:00"), W),
    ("12:00", unboxed("12"), W),
    ("2:5", unboxed("5:2"), W),
]

NUMBERS_FIXED = [
    ("1+2i", unboxed("i(2-i)"), C),  # i alone is the imaginary unit
    # a degree inside trigonometry is pi/180
    ("\\frac{\\sqrt{6}-\\sqrt{2}}{4}", unboxed("\\sin 15^\\circ"), C),
    ("\\cos x", unboxed("\\sin(90^{\\circ}-x)"), C),
    ("\\frac{\\sqrt{2}}{2}", unboxed("\\cos 45\u00b0"), C),
    ("20", unboxed("10 - 10i^2"), C),
    ("12", unboxed("(3)(4)"), C),  # numbers in juxtaposed brackets multiply
    # scientific notation shows its digits too
    ("\\frac{1}{432}", unboxed("2.314814814815 \\times 10^{-3}"), C),
    ("299792458", unboxed("2.99792458 \\times 10^{8}"), C),
    ("1 - \\frac{1}{\\mathrm{e}}", unboxed("0.632121"), C),
    # a decimal reference is the rounded value the task asked for: an exact irrational answer
    # that rounds to it is not it (math-verify's default; option `rounded_reference` allows it)
    ("3.14", unboxed("\\pi"), W),
    ("1.41", unboxed("\\sqrt{2}"), W),
    ("0.7071", unboxed("\\frac{\\sqrt{2}}{2}"), W),
    ("3.1", unboxed("\\sqrt{9.5}"), W),
    ("2.718", unboxed("e"), W),
    ("0.632", unboxed("1 - e^{-1}"), W),
    ("(3.14, 1.41)", unboxed("(\\pi, \\sqrt{2})"), W),
]
NUMBERS_GUARDS = [  # the digits an answer shows still count
    ("\\frac{1}{432}", unboxed("2.3149 \\times 10^{-3}"), W),
    ("299792458", unboxed("3.00 \\times 10^{8}"), W),
    ("2i+1", unboxed("2i+2"), W),
    ("7", unboxed("(3)(4)"), W),
    ("\\frac{1}{2}", unboxed("\\sin 45^\\circ"), W),
    ("30", unboxed("30^\\circ"), C),
    # an exact value stated with the rounded one the reference asks for: the rounded value, when
    # the exact value rounds to it
    ("0.333", unboxed("\\frac{1}{3} \\approx 0.333"), C),
    ("3.14", unboxed("\\pi \\approx 3.14"), C),
    ("0.333", unboxed("\\frac{1}{4} \\approx 0.333"), W),
    ("0.4", unboxed("\\frac{1}{2} \\approx 0.4"), W),  # one unit off: 0.5 and 0.4 at once
    ("0.4", unboxed("\\frac{1}{3} \\approx 0.4"), W),
    ("7.3", unboxed("\\frac{37}{5} \\approx 7.3"), W),
    ("0.67", unboxed("\\frac{2}{3} \\approx 0.67"), C),
    ("3.14", unboxed("\\pi \\approx 3.15"), W),
    ("\\pi", unboxed("\\pi \\approx 3.14"), C),
    ("3", unboxed("3 \\approx 4"), C),  # the exact value counts (math-verify's own cases)
    ("\\frac{2}{3}", unboxed("\\frac{2}{3} \\approx 0.67"), C),
    ("2^{100}", unboxed("2^{100} \\approx 1.27 \\times 10^{30}"), C),
    ("\\frac{1}{12}", unboxed("0.0833333333333333"), C),
    ("3.14", unboxed("\\frac{22}{7}"), W),  # a fraction must be the decimal itself
    ("0.3", unboxed("\\frac{1}{3}"), W),
    ("\\pi", unboxed("3.14"), W),
    ("\\frac{1}{2}", unboxed("0.5000001"), W),
    ("\\frac{1}{3}", unboxed("0.33"), W),
    ("1.414214", unboxed("\\sqrt{2}"), C),  # six decimal places: math-verify's rounding
    ("3.141593", unboxed("\\pi"), C),
    ("0.75", unboxed("\\frac{3}{4}"), C),  # an exact rational equal to the decimal
    ("3.14", unboxed("3.1416"), W),
]

FUNCTIONS_FIXED = [  # a function is the same whatever its variable is called
    ("f(x) = 2x + 3", unboxed("y = 2t + 3"), C),  # y names the function's value
    ("y = 2x + 3", unboxed("f(t) = 2t + 3"), C),
    ("f(x)=x \\text{ or } f(x)=-x", unboxed("f(z)=z,\\ f(z)=-z"), C),  # a list of them
    ("f^{-1}(x) = 2x", unboxed("f^{-1}(y)=2y"), C),
    ("f(x) = 0", unboxed("f \\equiv 0"), C),
    ("f(x)=x", unboxed("f(z)=z"), C),
    ("f(x)=x^2+1", unboxed("f(t)=t^2+1"), C),
    ("f(x)=x^2+1", unboxed("t^2+1"), C),
    ("x^2+1", unboxed("f(t)=t^2+1"), C),
    ("f(x,y)=x+2y", unboxed("f(a,b)=a+2b"), C),
    ("f(n)=2n+1", unboxed("f(k) = 2k + 1"), C),
    ("f(x) = 2x - 3", unboxed("f(u) = -3 + 2u"), C),
]
FUNCTIONS_GUARDS = [
    ("f(x) = 2x + 3", unboxed("y = 2x + 4"), W),
    ("f(x) = 2x + 3", unboxed("x = 2x + 3"), W),
    ("y = 5", unboxed("f(x) = 5"), W),
    ("f(x)=x \\text{ or } f(x)=-x", unboxed("f(z)=z"), W),
    ("f(x) = 0", unboxed("f \\equiv 1"), W),
    ("f(x) = 0", unboxed("g \\equiv 0"), W),
    ("f(x)=x", unboxed("f(z)=2z"), W),
    ("f(x)=x", unboxed("g(z)=z"), W),  # another function's name
    ("f(x,y)=x+2y", unboxed("f(a,b)=2a+b"), W),  # the variables keep their order
    ("y=2x+1", unboxed("y=2t+1"), W),  # an equation in named variables is no function
    ("2x+1", unboxed("2y+1"), W),
]


TABLES = {
    "equation": EQUATIONS_FIXED + EQUATIONS_GUARDS,
    "inequality": INEQUALITIES_FIXED + INEQUALITIES_GUARDS,
    "relation and set": RELATIONS_AND_SETS_FIXED + RELATIONS_AND_SETS_GUARDS,
    "set and tuple": SETS_AND_TUPLES_FIXED + SETS_AND_TUPLES_GUARDS,
    "matrix": MATRICES_FIXED + MATRICES_GUARDS,
    "text": TEXT_FIXED + TEXT_GUARDS,
    "choices": CHOICES_FIXED + CHOICES_GUARDS,
    "label": LABELS_FIXED + LABELS_GUARDS,
    "congruence": CONGRUENCES_FIXED + CONGRUENCES_GUARDS,
    "time and ratio": TIMES_AND_RATIOS_FIXED + TIMES_AND_RATIOS_GUARDS,
    "number": NUMBERS_FIXED + NUMBERS_GUARDS,
    "function": FUNCTIONS_FIXED + FUNCTIONS_GUARDS,
}


@pytest.mark.parametrize(("reference", "completion", "expected"), labelled(TABLES))
def test_same_answer(reference: str, completion: str, expected: str) -> None:
    assert verdict(reference, completion) == expected
