"""References as datasets store them: raw answers with or without `$`, lists of boxes or math,
whole solution texts. A labelled table through the real checker, and what `reference_answer`
reads out of each form.

Every row of `REFERENCES_FIXED` was scored wrongly (often as an `infra_error`) before.
"""

from __future__ import annotations

import pytest

from rlvr_contract.schemas import MathItem
from verifier.kinds.math import check_math
from verifier.kinds.math.reference import answer_is_list, reference_answer

C, W = "correct", "wrong"

SYSTEM = "\\left\\{ \\begin{array}{l} x=1 \\\\ y=2 \\end{array} \\right."
PERIODIC = "x = \\frac{\\pi}{4} + 2k\\pi, k \\in \\mathbb{Z}"
SOLUTION = ("Let the percentage of people who are children be $x$. Half the adults are female, "
            "so $x=\\frac{1}{4}(1-x)$. Solving for $x$ yields $x=1/5$, or $\\boxed{20}$ percent.")
UNBOXED_SOLUTION = ("It retains $90 \\% \\cdot 80 \\%=72 \\%$ of its value. The overall loss is "
                    "$100 \\% - 72 \\%=28 \\%$. Final Answer: The final answer is $28 \\%$. I hope "
                    "it is correct. Note: the solution above has been checked twice.")

# (reference, completion, verdict)
REFERENCES_FIXED = [
    (UNBOXED_SOLUTION, "a loss of $\\boxed{28\\%}$", C),
    ("$1$ and $2$ and $3$", "$\\boxed{1,2,3}$", C),
    ("$21,16$ or $11$", "$21,16,11$", C),
    ("\\(\\boxed{1}\\) and \\(\\boxed{-2}\\).", "$\\boxed{-2,1}$.", C),
    ("$\\boxed{1}\\boxed{2}$", "$\\boxed{1,2}$", C),
    ("\\boxed{1} papers and \\boxed{2} bins", "$\\boxed{1,2}$", C),
    ("\\(\\boxed{6 \\text{ and } 8}\\)", "$\\boxed{6,8}$", C),
    ("$-2 \\\\le x \\\\le 7$", "$x \\in [-2,7]$", C),  # escapes doubled by a JSON dump
    ("$$x = \\frac{1}{2}, x = \\frac{-1 \\pm \\sqrt{13}}{4}$$",
     "$$\\boxed{x = \\frac{1}{2}, x = \\frac{-1 \\pm \\sqrt{13}}{4}}$$", C),
    ("$1 - \\frac{1}{\\mathrm{e}}$", "$\\boxed{1 - \\frac{1}{\\mathrm{e}}}$", C),
    # set-builder notation: the set it describes (these were infra_error: masked)
    ("\\{x \\mid -1<x<1\\}", "$\\boxed{(-1,1)}$", C),
    ("\\{x \\mid -1<x<1\\}", "$\\boxed{-1 < x < 1}$", C),
    ("\\{x | x < \\frac32\\} - \\{-6\\}", "$\\boxed{(-\\infty,-6)\\cup(-6,\\frac32)}$", C),
    ("$\\{x \\in \\mathbb{R} : x \\neq 2\\}$", "$\\boxed{(-\\infty,2)\\cup(2,\\infty)}$", C),
    ("\\{x \\mid x < -1 \\text{ or } x > 1\\}", "$\\boxed{(-\\infty,-1)\\cup(1,\\infty)}$", C),
    ("\\{x \\mid x > 0 \\text{ and } x \\le 3\\}", "$\\boxed{(0, 3]}$", C),
    ("\\{x \\mid x \\ge 2, x < 5\\}", "$\\boxed{[2, 5)}$", C),
    ("\\{x \\in \\mathbb{Z} \\mid |x| < 2\\}", "$\\boxed{\\{-1, 0, 1\\}}$", C),
    ("(-1, 1)", "$\\boxed{\\{x \\mid -1<x<1\\}}$", C),
    ("\\{x\\,|\\,x>5\\}", "$\\boxed{x>5}$", C),  # spacing in the head
    ("\\left\\{x \\middle| x > 5\\right\\}", "$\\boxed{(5,\\infty)}$", C),
    ("\\{x \\mid x > 5, x \\in \\mathbb{R}\\}", "$\\boxed{(5,\\infty)}$", C),  # a domain condition
    ("\\{x \\mid x \\in \\mathbb{Z}, 0 < x < 3\\}", "$\\boxed{\\{1, 2\\}}$", C),
    ("\\{x|x<-2\\text{ \u6216 }x>3\\}", "$\\boxed{(-\\infty,-2)\\cup(3,+\\infty)}$", C),  # "or"
    # a set labelled by the sets it is made of
    ("A \\cap B = \\{x \\mid 1 < x < 2\\}", "$\\boxed{(1,2)}$", C),
    ("\\complement_{\\mathbb{R}} A = \\{x \\mid x < 1\\}", "$\\boxed{(-\\infty,1)}$", C),
    ("A\\cap B=(1,2)", "$\\boxed{\\{x|1<x<2\\}}$", C),
    # labelled references, angles in degrees and minutes, \\textcirc
    ("$m_{\\max}=n^2-n-1$", "$\\boxed{n^2-n-1}$", C),
    ("$60^\\circ 42'$", "$\\boxed{60.7^\\circ}$", C),
    ("$30^\\textcirc$", "$\\boxed{30}$", C),
    # escapes a dataset's Python source ate: `"\\frac"` is a form feed and `rac`, and so on
    ("\x0crac{\\sqrt{17}}{17}", "$\\boxed{\\frac{\\sqrt{17}}{17}}$", C),
    ("3\times 10^{8}", "$\\boxed{3 \\times 10^8}$", C),
    ("\x08oxed{12}", "$\\boxed{12}$", C),
    ("\\left(1, 2\right)", "$\\boxed{(1, 2)}$", C),
    ("x \neq 2", "$\\boxed{x \\ne 2}$", C),
    ("\x07lpha + 1", "$\\boxed{1 + \\alpha}$", C),
    ("\text{13}", "$\\boxed{13}$", C),
    # a condition stated with the answer is not part of it
    ("f(x) = 0", "$\\boxed{\\forall x > 0,\\ f(x) = 0}$", C),
    ("f(x) = x", "$\\boxed{f(x) = x \\text{ for all } x \\in \\mathbb{R}}$", C),
    # a system under a brace is its equations; angle brackets a vector; a parameter's domain
    (SYSTEM, "$\\boxed{x = 1, y = 2}$", C),
    ("\\begin{cases} x &= 1 \\\\ y &= 2 \\end{cases}", "$\\boxed{(x, y) = (1, 2)}$", C),
    ("\\langle 1, 2, 3 \\rangle", "$\\boxed{(1, 2, 3)}$", C),
    ("\\vec{v} = \\langle 1, 2 \\rangle", "$\\boxed{\\langle 1, 2 \\rangle}$", C),
    (PERIODIC, "$\\boxed{x = 2k\\pi + \\frac{\\pi}{4}}$", C),
]
REFERENCES_GUARDS = [
    ("A \\cap B = \\{x \\mid 1 < x < 2\\}", "$\\boxed{(1,2]}$", W),
    ("A = 5", "$\\boxed{B = 5}$", W),  # a plain name still labels
    ("\\{x \\mid x \\in \\mathbb{Z}, 0 < x < 3\\}", "$\\boxed{(0, 3)}$", W),
    ("$${1,2,3}$$", "\\boxed{1},\\boxed{2},\\boxed{3}", C),
    ("$125$ miles", "The distance is $\\boxed{125}$.", C),
    (SOLUTION, "so $\\boxed{20\\%}$", C),
    (SOLUTION, "so $\\boxed{25\\%}$", W),
    ("\\boxed{1} no no no no no \\boxed{2}", "$\\boxed{1,2}$", W),  # the last box only
    ("$1$ and $2$ and $3$", "$\\boxed{1,2}$", W),
    ("\\{x \\mid -1<x<1\\}", "$\\boxed{[-1,1]}$", W),
    ("\\{x | x < \\frac32\\} - \\{-6\\}", "$\\boxed{(-\\infty,\\frac32)}$", W),
    ("\\{x \\mid x < -1 \\text{ or } x > 1\\}", "$\\boxed{(-1,1)}$", W),
    ("\\{x \\mid x > 0 \\text{ and } x \\le 3\\}", "$\\boxed{(0, \\infty)}$", W),
    ("\\{x \\in \\mathbb{Z} \\mid |x| < 2\\}", "$\\boxed{(-2, 2)}$", W),
    ("$m_{\\max}=n^2-n-1$", "$\\boxed{n^2-n+1}$", W),
    ("\x0crac{1}{2}", "$\\boxed{\\frac{1}{3}}$", W),
    ("f(x) = 0", "$\\boxed{\\forall x > 0,\\ f(x) = 1}$", W),
    (SYSTEM, "$\\boxed{x = 2, y = 1}$", W),
    ("\\langle 1, 2, 3 \\rangle", "$\\boxed{(3, 2, 1)}$", W),
    (PERIODIC, "$\\boxed{x = k\\pi + \\frac{\\pi}{4}}$", W),
    ("\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}", "$\\boxed{1, 2, 3, 4}$", W),  # no system
]


def test_an_unparseable_reference_is_masked_and_says_so() -> None:
    """The dataset's fault, not the policy's: `infra_error` (reward null, masked by a trainer),
    and `detail.reason` names the reference as the cause."""
    reference = "\\{(x, y) \\mid x^2 + y^2 < 1\\}"
    result = check_math(MathItem(response="$\\boxed{2}$", answer=reference))
    assert (result.status, result.reward) == ("infra_error", None)
    assert "reference" in result.detail["reason"] and "parsed" in result.detail["reason"]


@pytest.mark.parametrize(("reference", "completion", "expected"),
                         REFERENCES_FIXED + REFERENCES_GUARDS)
def test_reference_forms(reference: str, completion: str, expected: str) -> None:
    result = check_math(MathItem(response=completion, answer=reference))
    assert result.status == expected, result.detail


@pytest.mark.parametrize(("reference", "answer"), [
    ("\\dfrac{9}{7}", "\\dfrac{9}{7}"),
    ("$28\\%$", "28\\%"),
    (SOLUTION, "20"),
    (UNBOXED_SOLUTION, "28 \\%"),
    ("$1$ and $2$ and $3$", "1, 2, 3"),
    ("$125$ miles", "125 miles"),
    ("\\\\boxed{W(n) = 1 \\\\text{ and } W(n) = -1", "W(n) = 1 \\text{ and } W(n) = -1"),
    ("\\text{The midpoints form a regular hexagon}",
     "\\text{The midpoints form a regular hexagon}"),
])
def test_reference_answer(reference: str, answer: str) -> None:
    assert reference_answer(reference) == answer


@pytest.mark.parametrize(("reference", "listed"), [
    ("-2, 1", True), ("1 \\pm \\sqrt{19}", True), ("6 \\text{ and } 8", True),
    ("(1, 2)", False), ("1,000", False), ("\\frac{1}{2}", False), ("[0, 1)", False),
])
def test_answer_is_list(reference: str, listed: bool) -> None:
    assert answer_is_list(reference) == listed
