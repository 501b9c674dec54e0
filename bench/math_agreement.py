"""Agreement of the service's math verdicts with math-verify, on its published cases and on
realistic free-form completions.

1. math-verify's own test cases (`peer/math_verify_suite.json` of the shared folder, 262
   reference/completion/expected triples, Apache-2.0), sent through a real `verifier serve` on
   loopback: agreement with the expectation, by test group, every disagreement listed with the
   documented rule behind it (README, "Checking math"), if any.
2. A corpus of completions written here as policies write them (answers outside `\\boxed{}`,
   thousands separators, self-corrections, `<think>` blocks, units, lists, relations, hedges),
   each with the verdict it deserves: the service and math-verify's defaults (`parse` of the
   boxed reference, `parse` of the completion, `verify`, as verl's math_verify reward does),
   scored against it, by category, every item where they differ listed.

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

from verifier.local import LocalServer

# The shared folder sits next to the checkout (or next to the folder of worktrees).
PEER_SUITE_CANDIDATES = [folder / "shared" / "peer" / "math_verify_suite.json"
                         for folder in Path(__file__).resolve().parents[1:4]]
GOAL = 0.95
BATCH = 64

# Peer cases where the service deliberately differs from the expectation; README, "Checking
# math", lists the same rules.
DELIBERATE = {
    ("$1 - \\frac{1}{\\mathrm{e}}$", "$1 + \\frac{1}{\\mathrm{e}}$"):
        "different values are wrong: math-verify's unit stripping eats \\mathrm{e}} and it "
        "compares what is left of both sides, 1 and 1",
    ("\\\\boxed{W(n) = 1 \\\\text{ and } W(n) = -1", "W(x)=1orW(x)=-1"):
        "a reference listing two solutions needs both: the completion has no box, statement or "
        "math, and its last number, -1, is one of them",
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
    ("precision", "0.7071", "\\boxed{\\frac{\\sqrt{2}}{2}}", True),
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


def math_verify_verdicts(items: list[dict]) -> list[bool]:
    """math-verify's defaults, as verl's math_verify reward calls them."""
    from math_verify import parse, verify

    logging.getLogger("math_verify").setLevel(logging.ERROR)
    return [bool(verify(parse("\\boxed{" + item["answer"] + "}"), parse(item["response"])))
            for item in items]


def peer_report(cases: list[dict], results: list[dict], show: int) -> dict:
    by_group: dict[str, Counter] = defaultdict(Counter)
    disagreements = []
    for case, result in zip(cases, results, strict=True):
        group = case["from"].split("::")[-1]
        agrees = (result["status"] == "correct") == case["correct"]
        by_group[group]["cases"] += 1
        by_group[group]["agree"] += agrees
        if not agrees:
            disagreements.append({
                "group": group, "expected": case["correct"], "status": result["status"],
                "deliberate": DELIBERATE.get((case["answer"], case["response"])),
                "answer": case["answer"][-120:], "response": case["response"][-160:],
                "detail": result["detail"]})
    agree = sum(counts["agree"] for counts in by_group.values())
    return {
        "cases": len(cases), "agree": agree, "agreement": round(agree / len(cases), 4),
        "goal": GOAL,
        "undocumented_disagreements": sum(d["deliberate"] is None for d in disagreements),
        "by_group": {group: f"{c['agree']}/{c['cases']}" for group, c in sorted(by_group.items())},
        "disagreements": disagreements[:show],
    }


def freeform_report(items: list[dict], results: list[dict], baseline: list[bool],
                    show: int) -> dict:
    by_category: dict[str, Counter] = defaultdict(Counter)
    differences = []
    for item, result, math_verify_right in zip(items, results, baseline, strict=True):
        category = item["category"].split("/")[-1]
        service_right = result["status"] == "correct"
        counts = by_category[category]
        counts["items"] += 1
        counts["service"] += service_right == item["right"]
        counts["math_verify"] += math_verify_right == item["right"]
        if service_right != math_verify_right:
            differences.append({
                "category": item["category"], "deserved": item["right"],
                "service": result["status"], "math_verify": math_verify_right,
                "right_side": "service" if service_right == item["right"] else "math_verify",
                "answer": item["answer"], "response": item["response"][-160:],
                "detail": result["detail"]})
    total = len(items)
    service = sum(c["service"] for c in by_category.values())
    math_verify = sum(c["math_verify"] for c in by_category.values())
    return {
        "items": total,
        "service_accuracy": round(service / total, 4),
        "math_verify_accuracy": round(math_verify / total, 4),
        "service_math_verify_agreement": round(1 - len(differences) / total, 4),
        "differences_by_right_side": dict(Counter(d["right_side"] for d in differences)),
        "by_category": {name: {"items": c["items"], "service": c["service"],
                               "math_verify": c["math_verify"]}
                        for name, c in sorted(by_category.items())},
        "differences": differences[:show],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", type=Path, default=next(
        (path for path in PEER_SUITE_CANDIDATES if path.exists()), PEER_SUITE_CANDIDATES[-1]))
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--show", type=int, default=40, help="disagreements listed per part")
    args = parser.parse_args()

    cases = json.loads(args.peer.read_text())["cases"]
    corpus = freeform_corpus()
    with LocalServer("--workers", str(args.workers)) as service:
        peer_results = service_verdicts(service.url, [(c["answer"], c["response"]) for c in cases])
        corpus_results = service_verdicts(service.url,
                                          [(i["answer"], i["response"]) for i in corpus])
    print(json.dumps({
        "peer_suite": peer_report(cases, peer_results, args.show),
        "freeform": freeform_report(corpus, corpus_results, math_verify_verdicts(corpus),
                                    args.show),
    }, indent=2))


if __name__ == "__main__":
    main()
