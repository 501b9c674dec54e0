"""Agreement of the service's math verdicts with labelled material, next to math-verify's.

Every source is a list of labelled rows (reference, completion, whether it deserves the
reward), scored by a real `verifier serve` on loopback and by math-verify's defaults (`parse` of
the boxed reference, `parse` of the completion, `verify`, as verl's math_verify reward does).
Per source and per category: right, false positives, false negatives, and the references the
service could not parse (`infra_error`, masked: counted with their reasons). The goal on every
source: more right than math-verify and no more false positives.

1. `peer_suite`: math-verify's own test cases (`peer/math_verify_suite.json` of the shared
   folder, 262 triples kept where its defaults reproduce the expectation, Apache-2.0); each
   disagreement is listed with the documented rule behind it (docs/math.md).
2. `freeform`: completions written here as policies write them (answers outside `\\boxed{}`,
   separators, self-corrections, `<think>` blocks, units, lists, relations, hedges, the
   references datasets store, plain-text math, other graders' and users' reported cases).
3. `graders`: the kinds of rows other graders' own tests, verifier benchmarks and users' bug
   reports hold, written and labelled here (`bench/math_graders_cases.py`): answers passed bare
   as graders' unit tests pass them, model-output formats (headings, tags, chat templates),
   several-option choices, hedges, relations against sets, references as datasets write them.
4. `math_verify_tests` (only where `/work/data/math_verify_tests.json` exists, rows `gold`,
   `pred`, `expected`): every case of math-verify's test files, including those its defaults
   fail.

    python bench/math_agreement.py [--peer PATH] [--workers 2] [--show 40]

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
from collections import Counter, defaultdict
from pathlib import Path

import httpx
from math_graders_cases import ROWS as GRADERS_ROWS  # a sibling module: bench/ is on the path

from verifier.local import LocalServer

# The shared folder sits next to the checkout (or next to the folder of worktrees).
PEER_SUITE_CANDIDATES = [folder / "shared" / "peer" / "math_verify_suite.json"
                         for folder in Path(__file__).resolve().parents[1:4]]
GOAL = 0.95
EXTRA_SOURCES = {"math_verify_tests": Path("/work/data/math_verify_tests.json")}
BATCH = 64

# Peer cases where the service deliberately differs from the expectation; docs/math.md lists
# the same rules.
DELIBERATE = {
    ("$1 - \\frac{1}{\\mathrm{e}}$", "$1 + \\frac{1}{\\mathrm{e}}$"):
        "different values are wrong: math-verify's unit stripping eats \\mathrm{e}} and it "
        "compares what is left of both sides, 1 and 1",
    ("\\\\boxed{W(n) = 1 \\\\text{ and } W(n) = -1", "W(x)=1orW(x)=-1"):
        "a reference listing two solutions needs both: the completion has no box, statement or "
        "math, and its last number, -1, is one of them",
    ("$x = 11$", "$x = 5+5+1 = 7 =11$"):
        "an equation between two different numbers (7 = 11) states two answers: math-verify "
        "reads its last side only",
    ("$10/9$", "Answer $ \\frac{1}{2} \\$ = \\frac{10}{9} $"):
        "an equation between two different numbers (1/2 = 10/9) states two answers",
    ("$\text{13}$", "$13$"):
        "a tab before `ext{` in a reference is a `\\\\t` a dataset's Python source ate: the "
        "reference is \\\\text{13}, which 13 answers",
    ("$x \\in [-2,7]$", "$-2 \\\\le x \\\\le 7$"):
        "a relation in solved form answers the set it describes (relations and intervals "
        "match both ways; option relation_for_set: false restores math-verify's asymmetry)",
}


# --------------------------------------------------------------------------- free-form corpus

# (category of the answer, reference as datasets store it, forms a right answer takes, wrong
# answers a policy gives)
ANSWERS = [
    ("integer", "34", ["34", "34.0"], ["35", "43"]),
    ("integer", "-7", ["-7"], ["7"]),
    ("thousands", "11111111100",
     ["11,\\!111,\\!111,\\!100", "11,111,111,100", "11{,}111{,}111{,}100"], ["11,111,111,000"]),
    ("thousands", "7425000", ["7,425,000", "7\\,425\\,000", "7425000"], ["7,425,001"]),
    ("thousands", "10455", ["10,455", "\\$10,455"], ["10,200"]),
    ("fraction", "\\frac{3}{4}", ["\\frac34", "\\dfrac{3}{4}", "0.75", "\\tfrac{3}{4}"],
     ["\\frac{4}{3}", "0.7"]),
    ("fraction", "-\\frac{10}{9}", ["-\\frac{10}{9}", "\\frac{-10}{9}", "-\\dfrac{10}{9}"],
     ["\\frac{10}{9}"]),
    ("fraction", "\\dfrac{1}{12}", ["\\frac{1}{12}", "0.0833333333333333"],
     ["0.08", "\\frac{1}{11}"]),
    ("root", "2\\sqrt{3}", ["\\sqrt{12}", "2\\sqrt3"], ["3\\sqrt{2}", "3.46"]),
    ("pi", "\\frac{9\\pi}{4}", ["\\frac94\\pi", "\\frac{9}{4}\\pi", "2.25\\pi"],
     ["\\frac{9}{4}", "7.07"]),
    ("decimal", "16386.20", ["16,386.20", "\\$16,386.20", "16386.2", "\\$16,\\!386.20"],
     ["16386.17", "16386"]),
    ("percent", "28\\%", ["28\\%", "28", "28 \\%"], ["72\\%", "2.8\\%"]),
    ("degrees", "90^\\circ", ["90", "90^\\circ", "90^{\\circ}"], ["45^\\circ", "180"]),
    ("units", "15\\mbox{ cm}^2", ["15", "15 \\text{ cm}^2", "15\\text{ cm}^2"],
     ["30 \\text{ cm}^2"]),
    ("currency", "\\$18.90", ["18.90", "\\$18.90", "18.9"], ["18.09", "19"]),
    ("tuple", "(1, \\frac{9}{2})", ["(1, 4.5)", "\\left(1, \\frac{9}{2}\\right)", "(1,\\tfrac92)"],
     ["(\\frac{9}{2}, 1)", "(1, 4)"]),
    ("interval", "(-\\infty, 3]",
     ["(-\\infty,3]", "\\left(-\\infty, 3\\right]", "x \\in (-\\infty, 3]"],
     ["(-\\infty, 3)", "[3, \\infty)"]),
    ("expression", "x^2+2x+1", ["(x+1)^2", "x^2 + 2x + 1", "1 + 2x + x^2"],
     ["(x-1)^2", "x^2+1"]),
    ("equation", "y = 2x + 3", ["y=2x+3", "2x + 3", "2x - y + 3 = 0"], ["y = 3x + 2"]),
    ("text", "\\text{Evelyn}", ["\\text{Evelyn}", "Evelyn", "\\textbf{Evelyn}"],
     ["\\text{Carla}"]),
    ("choice", "\\text{(C)}", ["C", "(C)", "\\text{(C)}", "\\textbf{(C)}"], ["(D)", "B"]),
    ("base", "204_5", ["204_5", "204_{5}", "204"], ["204_6", "54"]),
    ("matrix", "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
     ["\\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}",
      "\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}"],
     ["\\begin{pmatrix} 1 & 3 \\\\ 2 & 4 \\end{pmatrix}"]),
]


def _plain(form: str) -> bool:
    """A form a model would write outside math mode too (digits, signs, a point)."""
    return all(char in "0123456789-.,/ " for char in form)


def _reasoning(rng: random.Random) -> str:
    x, y = rng.randint(2, 40), rng.randint(2, 40)
    return rng.choice([
        f"We start by adding: ${x} + {y} = {x + y}$. Then we check the constraint again.\n\n",
        f"Let $a = {x}$ and $b = {y}$. Substituting, $a + b = {x + y}$ and $ab = {x * y}$.\n\n",
        f"First, note that {x} and {y} are both positive, so the product {x * y} is too.\n\n",
    ])


# Completion styles: (name, applies to plain forms only, template with {r} reasoning, {a}
# the answer form and {w} a wrong form).
STYLES = [
    ("boxed", False, "{r}Therefore, the answer is $\\boxed{{{a}}}$."),
    ("final_answer_minerva", False,
     "{r}Final Answer: The final answer is ${a}$. I hope it is correct."),
    ("answer_bold", False, "{r}**Answer:** ${a}$"),
    ("answer_is_plain", True, "{r}So the answer is {a}."),
    ("final_answer_sentence", True, "{r}Final Answer: The largest possible value of $n$ is {a}."),
    ("last_display_math", False, "{r}Putting everything together, we obtain\n\\[\n{a}\n\\]"),
    ("last_inline_math", False, "{r}Collecting the terms, the result is ${a}$."),
    ("trailing_number", True,
     "{r}Therefore, there are {a} distinct sequences that meet the conditions."),
    ("think_then_box", False,
     "<think>\n{r}Hmm, maybe it is ${w}$? No, let me recompute.\n</think>\n\n"
     "The answer is $\\boxed{{{a}}}$."),
    ("think_then_statement", False,
     "<think>\nI first got ${w}$, but the second case was missing.\n</think>\n\n"
     "Final answer: ${a}$"),
    ("self_correction_box", False,
     "{r}So the answer is $\\boxed{{{w}}}$.\n\nWait, I made an arithmetic error in the second "
     "step. Redoing it carefully gives $\\boxed{{{a}}}$."),
    ("self_correction_statement", False,
     "{r}The answer is ${w}$. Actually, no: it is ${a}$."),
    ("box_then_final_statement", False,
     "{r}The intermediate value is $\\boxed{{{w}}}$. Continuing to the end,\n"
     "Final Answer: The final answer is ${a}$. I hope it is correct."),
]

# Hand-written completions for what the templates do not reach: (category, reference,
# completion, right).
SPECIAL = [
    ("list", "-2, 1", "By the rational root theorem we test the divisors. The roots are "
     "\\[ \\boxed{-2} \\quad \\text{and} \\quad \\boxed{1}. \\]", True),
    ("list", "-2, 1", "So $x = \\boxed{1}$ or $x = \\boxed{-2}$.", True),
    ("list", "1, 2, 3", "The valid values are $1$, $2$ and $3$.", True),
    ("list", "(2, 2), (6, 2)", "$$\\boxed{(2, 2)} \\quad \\text{and} \\quad \\boxed{(6, 2)}$$",
     True),
    ("list", "k = 45, n = 2", "$$\\boxed{k = 45} \\quad \\text{and} \\quad \\boxed{n = 2}$$", True),
    ("list", "1 \\pm \\sqrt{19}", "By the quadratic formula, $x = \\boxed{1 \\pm \\sqrt{19}}$.",
     True),
    ("list", "1 \\pm \\sqrt{19}", "The roots are $\\boxed{1 + \\sqrt{19}}$ and "
     "$\\boxed{1 - \\sqrt{19}}$.", True),
    ("list", "-2, 1", "The roots are $\\boxed{-2}$ and $\\boxed{2}$.", False),
    ("list", "2, 3", "The solutions are $x = 2$ and $x = 3$.", True),
    ("list", "2, 3", "The final answer is that $x = 2$ or $x = 3$.", True),
    ("list", "2, 3", "\\boxed{x=2, x=3}", True),
    ("list", "2, 3", "\\boxed{x \\in \\{2, 3\\}}", True),
    ("list", "2, 3", "\\boxed{2}", False),
    ("list", "2, 3", "\\boxed{2, 3, 4}", False),
    ("list", "(1, 2), (3, 4)", "\\boxed{(3, 4), (1, 2)}", True),
    ("list", "(1, 2), (3, 4)", "\\boxed{(1,2)} and \\boxed{(3,4)}", True),
    ("list", "\\pm 7", "so $n = 7$ or $n = -7$.", True),
    ("list", "\\pm 7", "so $\\boxed{7}$", False),
    ("relation", "x < 1", "Dividing by $-1$ flips the sign: $\\boxed{-x > -1}$.", True),
    ("relation", "2x+4y-3=0", "The line is $\\boxed{y=-\\frac{1}{2}x+\\frac{3}{4}}$.", True),
    ("relation", "-2 \\le x \\le 7", "So $x \\in \\boxed{[-2, 7]}$.", True),
    ("relation", "-793 < a < 10", "The answer is $$(-793, 10)$$", True),
    ("relation", "x \\ge 5", "Therefore $x \\geq 5$ is the solution.", True),
    ("relation", "x \\ge 5", "Therefore $x \\leq 5$ is the solution.", False),
    ("relation", "x > 3", "\\boxed{(3, \\infty)}", True),
    ("relation", "x > 3", "\\boxed{3 < x}", True),
    ("relation", "x > 3", "\\boxed{-2x < -6}", True),
    ("relation", "x > 3", "\\boxed{-2x > -6}", False),
    ("relation", "x > 3", "\\boxed{x \\ge 3}", False),
    ("equation", "x^2 + y^2 = 1", "\\boxed{2x^2 + 2y^2 = 2}", True),
    ("equation", "x^2 + y^2 = 1", "\\boxed{x^2 + y^2 = 2}", False),
    ("equation", "y = x + 1", "\\boxed{x - y + 1 = 0}", True),
    ("equation", "f(x) = 2x + 1", "\\boxed{f(x) = 1 + 2x}", True),
    ("equation", "2", "\\boxed{x^2 = 4}", False),
    ("equation", "x = 1", "\\boxed{y = 1}", False),
    ("ratio", "11:21", "Hence $V_1 : V_2 = \\boxed{11:21}$.", True),
    ("ratio", "V_1:V_2=11:21", "The ratio is $\\boxed{11:21}$.", True),
    ("ratio", "2:5", "\\boxed{4:10}", True),
    ("time", "12:00", "They meet at $\\boxed{12:00}$.", True),
    ("time", "12:00", "They meet at $\\boxed{1:00}$.", False),
    ("time", "3:00 PM", "\\boxed{15:00}", True),
    ("label", "(p,q)=(3,2)", "The only pair is $(p, q) = \\boxed{(3, 2)}$.", True),
    ("label", "\\frac{NO}{BO}=\\frac{1}{\\sqrt{6}}",
     "Thus the ratio is $\\boxed{\\frac{1}{\\sqrt{6}}}$.", True),
    ("vector", "\\begin{pmatrix} 2 \\\\ -1 \\end{pmatrix}", "\\boxed{(2, -1)}", True),
    ("text", "\\text{odd}", "The function is $\\boxed{\\text{odd}}$.", True),
    ("text", "\\text{odd}", "The function is $odd$.", True),
    ("text", "\\text{odd}", "The function is $\\boxed{\\text{even}}$.", False),
    ("text", "\\text{Monday}", "The answer is Monday.", True),
    ("text", "\\text{no}", "\\boxed{\\text{Yes}}", False),
    ("choice", "B", "The correct option is (B).", True),
    ("choice", "B", "Answer: B", True),
    ("choice", "B", "\\boxed{\\text{(B) } 12}", True),
    ("choice", "B", "\\boxed{C}", False),
    ("mathrm", "1 - \\frac{1}{\\mathrm{e}}", "The probability is $\\boxed{1 - e^{-1}}$.", True),
    ("mathrm", "1 - \\frac{1}{\\mathrm{e}}", "The probability is $\\boxed{1 + \\frac{1}{e}}$.",
     False),
    ("solution_reference", "Solving, $x = 4$, so the area is $5 \\cdot 4 = \\boxed{20}$.",
     "The area is therefore $\\boxed{20}$ square units.", True),
    ("solution_reference", "Solving, $x = 4$, so the area is $5 \\cdot 4 = \\boxed{20}$.",
     "The area is therefore $\\boxed{24}$ square units.", False),
    ("statement", "5", "**Final Answer**\n\n$\\boxed{5}$", True),
    ("statement", "5", "### Final Answer\nThe answer is 5.", True),
    ("statement", "5", "Thus, the answer is **5**.", True),
    ("statement", "5", "So, the final answer is 5 apples.", True),
    ("statement", "5", "The answer is 5, since the other two cases give 3 and 4.", True),
    ("statement", "12", "The answer to part (a) is 5 and the answer to part (b) is 12.", True),
    ("statement", "14", "The answer is 14. Let me verify with another method: 2 * 7 = 14.", True),
    ("unicode", "-7", "The answer is \u22127.", True),
    ("unicode", "\\sqrt{2}", "The answer is \u221a2.", True),
    ("unicode", "6.02\\times 10^{23}", "There are 6.02 \u00d7 10^23 molecules.", True),
    ("unicode", "\\frac{\\pi}{2}", "The angle is \u03c0/2.", True),
    ("unicode", "45", "The angle is 45\u00b0.", True),
    ("thousands", "1000000", "The total is 1 000 000.", True),
    ("thousands", "12,345", "\\boxed{12345}", True),
    ("thousands", "12, 345", "\\boxed{12345}", False),
    ("decimal_comma", "2.5", "The answer is 2,5.", True),
    ("currency", "18.90", "The total cost is $18.90.", True),
    ("currency", "2", "It costs $5 and the tax is $2.", True),
    ("units", "5\\text{ m/s}", "\\boxed{5 \\mathrm{~m} / \\mathrm{s}}", True),
    ("units", "\\frac{7}{2}", "\\boxed{3.5 \\text{ hours}}", True),
    ("units", "30", "\\boxed{30^\\circ \\text{C}}", True),
    ("units", "5", "\\boxed{\\text{5 apples}}", True),
    ("think", "8", "<think>\nLet me think. The answer is 8.\n</think>", True),
    ("think", "\\frac{1}{2}", "<think>\nOK so the probability is 1/2.\n</think>\n\n"
     "The probability is $\\frac{1}{3}$.", False),
    ("self_correction", "3", "First I thought \\boxed{2}, but then I realized it is \\boxed{3}.",
     True),
    ("precision", "\\frac{1}{2}", "The probability is $\\boxed{0.5000001}$.", False),
    ("precision", "\\frac{1}{3}", "The probability is about $\\boxed{0.33}$.", False),
    ("precision", "\\pi", "The ratio is $\\boxed{3.14}$.", False),
    ("precision", "3.14", "\\boxed{\\frac{22}{7}}", False),
    ("precision", "0.7071", "\\boxed{\\frac{\\sqrt{2}}{2}}", False),
    ("precision", "\\frac{1}{3}", "\\boxed{0.\\overline{3}}", True),
    ("hedge", "7", "It is either $\\boxed{7}$ or $\\boxed{8}$.", False),
    ("hedge", "7", "The answer is $\\boxed{7 \\text{ or } 8}$.", False),
    ("hedge", "4", "$\\boxed{4}$ (or maybe 5)", False),
    ("hedge", "4", "The answer is \\boxed{4}\n\nor maybe 5", False),
    ("hedge", "7", "The candidates are $\\boxed{5, 6, 7, 8}$.", False),
    ("hedge", "3", "$x = \\boxed{2}$ or $x = \\boxed{3}$", False),
    ("hedge", "3", "The answer is probably 3.", False),
    ("hedge", "3", "The answer is 3 or 4.", False),
    ("hedge", "3", "The answer is $\\boxed{3}$?", False),
    ("hedge", "3", "The answer is $\\boxed{3}$, but it could also be 4.", False),
    ("hedge", "4", "The answer is $\\boxed{4}$.\n\nPerhaps surprisingly, a square has 4 sides.",
     True),
    ("vector", "(1, 2)", "\\boxed{\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}}", True),
    ("vector", "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "\\boxed{(1, 2)}", True),
    ("vector", "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "\\boxed{(2, 1)}", False),
    ("matrix", "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
     "\\boxed{\\begin{Bmatrix} 1 & 2 \\\\ 3 & 4 \\end{Bmatrix}}", True),
    ("thousands", "1234567", "\\boxed{1\\text{,}234\\text{,}567}", True),
    ("time", "3:00", "\\boxed{3{:}00}", True),
    ("wrapper", "5", "\\boxed{\\underline{5}}", True),
    ("wrapper", "-3", "\\boxed{\\textcolor{blue}{-3}}", True),
    ("statement", "34", "Final answer:\n\\[\n34\n\\]", True),
    ("statement", "34", "Final answer:\n\\[\n35\n\\]", False),
    ("unicode", "2\\sqrt{3}", "So the length is 2\u221a3 units.", True),
    ("choice", "B", "The answer is [B].", True),
    ("choice", "B", "The correct answer is option B.", True),
    ("choice", "B", "The correct answer is option C.", False),
    ("choice", "B", "Answer: B) 12", True),
    ("choice", "B", "After checking each option, I choose B.", True),
    ("mixed_number", "2\\frac{1}{2}", "The answer is 2 1/2.", True),
    ("mixed_number", "\\frac{11}{4}", "We need 2 3/4 cups.\n\nThe answer is 2 3/4 cups.", True),
    ("mixed_number", "\\frac{5}{2}", "The answer is 2 1/3.", False),
    ("no_answer", "12", "Let me set up the equations. Suppose the width is $w$; then the length",
     False),
    ("no_answer", "12", "<think>\nThe area of a rectangle is length times width, so", False),
    ("no_answer", "12", "<think>\nThe width is 3, so the area is $\\boxed{12}$", False),
    # references as datasets write them, and answers as policies write them (issue #23)
    ("decimal_reference", "3.14", "Using $\\pi$, the ratio is $\\boxed{\\pi}$.", False),
    ("decimal_reference", "1.41", "The diagonal is $\\boxed{\\sqrt{2}}$.", False),
    ("decimal_reference", "0.71", "So $\\sin 45^\\circ = \\boxed{\\frac{\\sqrt{2}}{2}}$.", False),
    ("decimal_reference", "3.14", "To the nearest hundredth, $\\boxed{3.14}$.", True),
    ("decimal_reference", "1.414214", "The length is $\\boxed{\\sqrt{2}}$.", True),
    ("decimal_reference", "0.75", "The probability is $\\boxed{\\frac{3}{4}}$.", True),
    ("set_builder", "\\{x \\mid -1<x<1\\}", "The solution set is $\\boxed{(-1, 1)}$.", True),
    ("set_builder", "\\{x \\mid -1<x<1\\}", "The solution set is $\\boxed{[-1, 1]}$.", False),
    ("set_builder", "\\{x | x < \\frac32\\} - \\{-6\\}",
     "The domain is $\\boxed{(-\\infty, -6) \\cup (-6, \\tfrac{3}{2})}$.", True),
    ("set_builder", "\\{x | x < \\frac32\\} - \\{-6\\}",
     "The domain is $\\boxed{(-\\infty, \\tfrac{3}{2})}$.", False),
    ("set_builder", "\\{x \\in \\mathbb{R} : x \\neq 3\\}", "$\\boxed{x \\neq 3}$", True),
    ("labelled_reference", "m_{\\max}=n^2-n-1", "The maximum is $\\boxed{n^2 - n - 1}$.", True),
    ("labelled_reference", "m_{\\max}=n^2-n-1", "The maximum is $\\boxed{n^2 - 1}$.", False),
    ("labelled_reference", "V_{\\text{cone}} = 12\\pi", "The volume is $\\boxed{12\\pi}$.", True),
    ("angle", "60^\\circ 42'", "So $\\angle A = \\boxed{60.7^\\circ}$.", True),
    ("angle", "60^\\circ 42'", "So $\\angle A = \\boxed{60.42^\\circ}$.", False),
    ("angle", "45^\\textcirc", "The angle is $\\boxed{45^\\circ}$.", True),
    ("plus_minus_set", "\\{1\\pm\\sqrt5,-2\\}",
     "The roots are $\\boxed{-2, 1 + \\sqrt{5}, 1 - \\sqrt{5}}$.", True),
    ("plus_minus_set", "\\{1\\pm\\sqrt5,-2\\}", "The roots are $\\boxed{-2, 1 + \\sqrt{5}}$.",
     False),
    ("function", "f(x)=x", "Hence the only solution is $\\boxed{f(z) = z}$.", True),
    ("function", "f(x)=x^2", "Hence $\\boxed{f(t) = t^2}$ for all real $t$.", True),
    ("function", "f(x)=x^2", "Hence $\\boxed{f(t) = 2t}$.", False),
    ("relation_and_ray", "(-\\infty,-5)", "We need $\\boxed{k < -5}$.", True),
    ("relation_and_ray", "k<-5", "We need $k \\in \\boxed{(-\\infty, -5)}$.", True),
    ("relation_and_ray", "(-\\infty,-5)", "We need $\\boxed{k \\le -5}$.", False),
    ("relation_and_ray", "(-2, 2)", "We need $\\boxed{x^2 < 4}$.", False),
    ("prose_list", "2, 3", "Checking both, the roots are 2 and 3.", True),
    ("prose_list", "3", "Checking both, the roots are 2 and 3.", False),
    ("prose_list", "1, 5, 7", "So the possible values are 1, 5, and 7.", True),
    ("plain_text", "\\frac{\\pi}{2}", "The angle is pi/2", True),
    ("plain_text", "-2\\pi", "The phase is -2*pi", True),
    ("plain_text", "3\\sqrt{2}", "The distance is 3*sqrt(2).", True),
    ("plain_text", "1024", "There are 2^10 subsets.", True),
    ("plain_text", "\\frac{\\pi}{2}", "The angle is pi/4", False),
    ("plain_text", "73", "Thus the count is **73**.\n\nFinal Answer: **73**", True),
    ("hedge_in_box", "4", "Counting again, $\\boxed{3 = 4}$.", False),
    ("hedge_in_box", "4", "Counting again, $\\boxed{x = 3 = 4}$.", False),
    ("hedge_in_box", "4", "Counting again, $\\boxed{2 + 2 = 4}$.", True),
    ("hedge_in_choice", "B", "The answer is $\\boxed{B}$ or (D).", False),
    ("hedge_in_choice", "B", "The answer is $\\boxed{B \\text{ or } D}$.", False),
    ("hedge_in_choice", "B", "Both fit: $\\boxed{(B)\\ (D)}$", False),
    ("hedge_in_choice", "B", "The answer is $\\boxed{\\textbf{(B)}\\ 12}$.", True),
    # other graders' and users' cases, in our words (math-verify's and Qwen's trackers)
    ("escapes", "\x0crac{\\sqrt{17}}{17}", "$\\boxed{\\frac{\\sqrt{17}}{17}}$", True),
    ("escapes", "3\times 10^{8}", "$\\boxed{3 \\times 10^8}$", True),
    ("escapes", "\x08oxed{12}", "$\\boxed{12}$", True),
    ("escapes", "\x0crac{1}{2}", "$\\boxed{\\frac{1}{3}}$", False),
    ("quantifier", "f(x) = 0", "So $\\boxed{\\forall x > 0,\\ f(x) = 0}$.", True),
    ("quantifier", "f(x) = x", "So $\\boxed{f(x) = x \\text{ for all } x}$.", True),
    ("complex", "14 - i", "$\\boxed{14.0 + -1.0i}$", True),
    ("equation_plain", "2x+4y-3=0", "So $y = -1/2*x + 3/4$.", True),
    ("equation_plain", "3x + 4y + 14=0", "Final answer: 3*x-1*y+13=0", False),
    ("tiny_differences", "\\frac{1}{2004!}", "$\\boxed{\\frac{1}{2006!}}$", False),
    ("labelled_list", "n=2, 3, 4", "$\\boxed{n=1, 2, 3}$", False),
    ("labelled_list", "D = (0, 1)", "$\\boxed{D = (0, 1.5)}$", False),
    ("sequence", "1, 2, \\ldots, n", "$\\boxed{1, 3, 5, \\ldots, 2n-1}$", False),
    ("units", "58", "The area is 58 square units.", True),
    ("units", "10", "$\\boxed{10\\text{ units}}$", True),
    ("sqrt_paren", "4", "$4\\sqrt(2)$", False),
    ("choice_with_value", "\\textbf{(C) }15", "Checking each option, $\\boxed{C}$.", True),
    ("choice_with_value", "\\textbf{(C) }15", "Checking each option, $\\boxed{(B)}$.", False),
    ("choice_with_value", "(C) 15", "The answer is C: 15.", True),
    ("words", "6", "The answer is six.", True),
    ("words", "\\text{no solution}", "$\\boxed{\\emptyset}$", True),
    ("words", "(-\\infty,\\infty)", "$\\boxed{\\text{all real numbers}}$", True),
    ("restated", "\\frac{1}{4}", "The probability is $\\frac{1}{4}$ or $25\\%$.", True),
    ("restated", "\\frac{1}{4}", "The probability is $\\frac{1}{4}$ or $\\frac{1}{3}$.", False),
    ("or_in_a_set", "\\{2, 3\\}", "So $x = 2$ or $x = 3$.", True),
    ("system", "\\left\\{ \\begin{array}{l} x=1 \\\\ y=2 \\end{array} \\right.",
     "Solving, $\\boxed{x = 1,\\ y = 2}$.", True),
    ("system", "\\left\\{ \\begin{array}{l} x=1 \\\\ y=2 \\end{array} \\right.",
     "Solving, $\\boxed{x = 2,\\ y = 1}$.", False),
    ("vector", "\\langle 1, 2, 3 \\rangle", "The direction is $\\boxed{(1, 2, 3)}$.", True),
    ("periodic", "x = \\frac{\\pi}{4} + k\\pi, k \\in \\mathbb{Z}",
     "So $\\boxed{x = \\frac{\\pi}{4} + k\\pi}$ for integers $k$.", True),
]


def freeform_corpus(seed: int = 7) -> list[dict]:
    """Every template over every answer form (right and wrong), then the hand-written items."""
    rng = random.Random(seed)
    items = []
    for category, reference, right, wrong in ANSWERS:
        for style, plain_only, template in STYLES:
            for form, is_right in [*((f, True) for f in right), *((f, False) for f in wrong)]:
                other = rng.choice(wrong if is_right else right)
                if plain_only and not (_plain(form) and _plain(reference)):
                    continue
                completion = template.format(r=_reasoning(rng), a=form, w=other)
                items.append({"category": f"{category}/{style}", "answer": reference,
                              "response": completion, "right": is_right})
    for category, reference, completion, is_right in SPECIAL:
        items.append({"category": category, "answer": reference, "response": completion,
                      "right": is_right})
    return items


# --------------------------------------------------------------------------- scoring


def service_verdicts(url: str, pairs: list[tuple[str, str]]) -> list[dict]:
    results = []
    with httpx.Client(timeout=600) as client:
        for start in range(0, len(pairs), BATCH):
            items = [{"kind": "math", "answer": answer, "response": response}
                     for answer, response in pairs[start:start + BATCH]]
            reply = client.post(f"{url}/v1/verify", json={"items": items})
            reply.raise_for_status()
            results.extend(reply.json()["results"])
    return results


def math_verify_verdicts(rows: list[dict]) -> list[bool]:
    """math-verify's defaults, as verl's math_verify reward calls them."""
    from math_verify import parse, verify

    logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    verdicts = []
    for row in rows:
        try:
            verdicts.append(bool(verify(parse("\\boxed{" + row["answer"] + "}"),
                                        parse(row["response"]))))
        except Exception:  # math-verify's own failure: no reward
            verdicts.append(False)
    return verdicts


def _side(counts: Counter, prefix: str) -> dict:
    side = {"right": counts[f"{prefix}_right"], "false_positives": counts[f"{prefix}_fp"],
            "false_negatives": counts[f"{prefix}_fn"]}
    if prefix == "service":
        side["masked"] = counts["service_masked"]  # infra_error or timeout: not right
    return side


def source_report(rows: list[dict], results: list[dict], baseline: list[bool], show: int,
                  deliberate: dict | None = None) -> dict:
    """One source: both graders' right, false positives and false negatives, in all and by
    category; the references the service masked; every row where the two differ."""
    total: Counter = Counter()
    by_category: dict[str, Counter] = defaultdict(Counter)
    masked: Counter = Counter()
    differences = []
    for row, result, math_verify_right in zip(rows, results, baseline, strict=True):
        service_right = result["status"] == "correct"
        unscored = result["status"] in ("infra_error", "timeout")  # neither right nor wrong
        if unscored:
            masked[f"{result['status']}: {result['detail'].get('reason', '')}"[:120]] += 1
        for counts in (total, by_category[row["category"].split("/")[-1]]):
            counts["items"] += 1
            counts["service_masked"] += unscored
            for prefix, verdict in (("service", service_right), ("math_verify", math_verify_right)):
                if prefix == "service" and unscored:
                    continue
                counts[f"{prefix}_right"] += verdict == row["right"]
                counts[f"{prefix}_fp"] += verdict and not row["right"]
                counts[f"{prefix}_fn"] += row["right"] and not verdict
        if service_right != row["right"] or service_right != math_verify_right:
            differences.append({
                "category": row["category"], "deserved": row["right"],
                "service": result["status"], "math_verify": math_verify_right,
                "deliberate": (deliberate or {}).get((row["answer"], row["response"])),
                "answer": row["answer"][-120:], "response": row["response"][-160:],
                "detail": result["detail"]})
    service, math_verify = _side(total, "service"), _side(total, "math_verify")
    return {
        "items": total["items"],
        "service": service,
        "math_verify": math_verify,
        "goal_met": service["right"] > math_verify["right"]
        and service["false_positives"] <= math_verify["false_positives"],
        "masked": {"rows": sum(masked.values()), "reasons": dict(masked.most_common())},
        "service_wrong_and_undocumented": sum(
            d["deserved"] != (d["service"] == "correct") and d["deliberate"] is None
            for d in differences),
        "by_category": {name: {"items": c["items"], "service": _side(c, "service"),
                               "math_verify": _side(c, "math_verify")}
                        for name, c in sorted(by_category.items())},
        # the service's wrong verdicts first, then those where only math-verify is wrong
        "differences": sorted(differences, key=lambda d: d["deserved"] == (
            d["service"] == "correct"))[:show],
    }


def graders_rows() -> list[dict]:
    return [{"category": category, "answer": reference, "response": completion, "right": right}
            for category, reference, completion, right in GRADERS_ROWS]


def peer_rows(cases: list[dict]) -> list[dict]:
    return [{"category": case["from"].split("::")[-1], "answer": case["answer"],
             "response": case["response"], "right": case["correct"]} for case in cases]


def extra_rows(path: Path) -> list[dict]:
    return [{"category": row.get("from", "").split("::")[-1] or "all", "answer": row["gold"],
             "response": row["pred"], "right": bool(row["expected"])}
            for row in json.loads(path.read_text())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", type=Path, default=next(
        (path for path in PEER_SUITE_CANDIDATES if path.exists()), PEER_SUITE_CANDIDATES[-1]))
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--show", type=int, default=40, help="differences listed per source")
    args = parser.parse_args()

    sources = {"peer_suite": peer_rows(json.loads(args.peer.read_text())["cases"]),
               "freeform": freeform_corpus(),
               "graders": graders_rows()}
    sources.update({name: extra_rows(path) for name, path in EXTRA_SOURCES.items()
                    if path.exists()})
    with LocalServer("--workers", str(args.workers)) as service:
        results = {name: service_verdicts(service.url, [(r["answer"], r["response"])
                                                        for r in rows])
                   for name, rows in sources.items()}
    report = {name: source_report(rows, results[name], math_verify_verdicts(rows), args.show,
                                  DELIBERATE if name == "peer_suite" else None)
              for name, rows in sources.items()}
    peer = report["peer_suite"]
    peer["agreement"] = round(peer["service"]["right"] / peer["items"], 4)
    peer["agreement_goal"] = GOAL
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
