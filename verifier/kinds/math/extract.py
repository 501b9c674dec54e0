"""Final-answer extraction from a whole completion.

Pure string work in linear time with no sympy, so it runs in the calling process without a
time limit: only the symbolic comparison needs the killable helper (see `isolation.py`).

The cascade; the first step that finds something wins:

1. the last `\\boxed{}` / `\\fbox{}`: a run of boxes joined by commas, "and" or "or" is one list;
   when the reference is a list, boxes further apart ("\\boxed{1} papers and \\boxed{2} bins")
   are too;
2. the last answer statement ("final answer", "the answer is", "Answer:", or a correction such
   as "Actually, no: it is ..."), taking the value it states ("The largest $n$ is 34" -> 34);
   a statement after the last box wins over it: the last stated answer counts;
3. the last math environment (`$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]`), a run of them joined by
   commas, "and" or "or" being one list; or the last number, when one follows it ("so
   $d = \\frac{90}{n}$ … there are 12 such sequences" -> 12).

A completion without any LaTeX is read as the plain-text math it may hold (`pi/2`, `sqrt(2)`:
`plaintext.py`). The answer region is `verifier.kinds.answer_region`'s, as for every kind: a
completion that closes a `<think>` block is read after it when an answer is found there (else,
as math-verify reads, in the whole completion); one that opens `<think>` and never closes it
has no answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.kinds.answer_region import box_run, strip_thinking, tag_contents
from verifier.kinds.math import plaintext
from verifier.kinds.math.bare import formula_around, whole_answer
from verifier.kinds.math.normalize import latex_symbols, restore_lost_escapes
from verifier.kinds.math.spans import NUMBER, env_run, last_match, math_environments, number_run
from verifier.kinds.math.statements import MATH_OR_NUMBER, Statement, last_statement

# Answer statements, math environments and the last number are looked for near the end only.
ANSWER_PHRASE_TAIL_CHARS = 4_000
MATH_TAIL_CHARS = 4_000
LAST_NUMBER_TAIL_CHARS = 1_000
# How far after the final box a hedge ("\boxed{4} (or maybe 5)") is looked for.
TRAILING_HEDGE_CHARS = 200

ANSWER_TAG = "answer"
# A chat template's special tokens (`<|im_end|>`, `<|eot_id|>`, `<｜end▁of▁sentence｜>`, `</s>`)
# end a turn; they are no part of an answer.
_SPECIAL_TOKEN = re.compile(r"<[|\uff5c][^<>\n]{1,40}?[|\uff5c]>|</s>")
# An alternative a hedge offers: a number, math, a box, or a choice letter ("or (D)", "or D").
_ALTERNATIVE = r"(?:[-\d$(]|\\boxed|\\text\s*\{\s*\(?[A-HJ]\b|(?-i:[A-HJ])(?![\w']))"
_TRAILING_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|not\s+sure|unsure|"
    r"or\s+(?:maybe\s+|perhaps\s+)?" + _ALTERNATIVE + r"|(?:could|might)\s+also\s+be)|"
    r"^[\s$]*\?",
    re.IGNORECASE)
# On the line after the box's, only an alternative value is a hedge ("or maybe 5", "Perhaps 5"):
# a new sentence that starts with "Perhaps" may say anything.
_NEXT_LINE_HEDGE = re.compile(
    r"[\s*]*(?:or\b[\s,]*(?:maybe|perhaps|possibly|probably)?|maybe|perhaps|possibly|probably)"
    r"[\s,]*(?:it(?:'s|\s+is|\s+could\s+be)\s+)?" + _ALTERNATIVE,
    re.IGNORECASE)

# Anywhere on the line after the answer, or on the next: another value offered in its place
# ("Hmm, but it could also be 8.").
_ALTERNATIVE_OFFER = re.compile(
    r"\b(?:could|might|may)\s+(?:also|instead|just\s+as\s+well)\s+be\s+"
    r"(?:it(?:'s|\s+is)\s+)?" + _ALTERNATIVE,
    re.IGNORECASE)


@dataclass(frozen=True)
class Extraction:
    """What was taken from a completion.

    `answer` is None when nothing was extractable; `problem` then says why. When `answer` is set,
    `problem` (if any) says why the answer does not count, e.g. a hedge between two boxes.
    """

    answer: str | None
    source: str
    problem: str | None = None


def extract_answer(response: str, list_expected: bool = False) -> Extraction:
    """Take the final answer out of a whole completion.

    `list_expected`: the reference lists several answers, so boxes spread over a sentence
    ("\\boxed{(2, 2)} for part (a) and \\boxed{(1, 1)}") are read as one list.
    """
    response = _SPECIAL_TOKEN.sub("", response)
    response = plaintext.as_latex(latex_symbols(restore_lost_escapes(response)))
    answer_part = strip_thinking(response)
    if answer_part is None:
        return Extraction(None, "none", "the reasoning block is never closed")
    tagged = tag_contents(answer_part, ANSWER_TAG)
    if tagged and tagged[-1].strip():  # `<answer>x^2+1</answer>`: the answer is in the tag
        in_tag = _cascade(tagged[-1], list_expected)
        if in_tag.source != "none":
            return in_tag
    if answer_part is not response:
        after_thinking = _cascade(answer_part, list_expected)
        if after_thinking.source != "none":
            return after_thinking
    return _cascade(response, list_expected)


def _cascade(text: str, list_expected: bool) -> Extraction:
    boxed = _extract_boxed(text, list_expected)
    tail_start = max(0, len(text) - ANSWER_PHRASE_TAIL_CHARS)
    statement = last_statement(text[tail_start:])
    if statement is not None and statement.is_text and (
            boxed is not None or MATH_OR_NUMBER.search(text, tail_start + statement.end)):
        statement = None  # "Answer: Let's think step by step." says nothing over later math
    if boxed is not None:
        extraction, box_end = boxed
        if statement is not None and tail_start + statement.start >= box_end:
            return _stated(statement, text, tail_start)
        return extraction
    if statement is not None:
        return _stated(statement, text, tail_start)
    whole = whole_answer(text)
    if whole is not None:
        return Extraction(whole, "whole")
    tail = text[-MATH_TAIL_CHARS:]
    envs = math_environments(tail)
    after_math = envs[-1][1] if envs else 0
    after = tail[max(after_math, len(tail) - LAST_NUMBER_TAIL_CHARS):]
    number = last_match(NUMBER, after)
    if number is not None:
        formula = formula_around(after, number.start(), number.end())
        return Extraction(formula or number_run(after, number), "last_number")
    if envs:
        math = env_run(tail, envs, len(envs) - 1, backwards=True)
        if math:
            return Extraction(math, "math")
    return Extraction(None, "none", "no \\boxed{}, answer statement, math or number found")


def _stated(statement: Statement, text: str, tail_start: int) -> Extraction:
    end = tail_start + statement.end
    line, _, next_lines = text[end:end + TRAILING_HEDGE_CHARS].partition("\n")
    offered = _ALTERNATIVE_OFFER.search(line) or _ALTERNATIVE_OFFER.search(
        next_lines.lstrip().partition("\n")[0])
    problem = None
    if statement.hedged:
        problem = "hedged: the statement doubts its answer"
    elif offered:
        problem = "hedged: the text after the answer offers an alternative"
    return Extraction(statement.value, "final_answer", problem)


def _extract_boxed(response: str, list_expected: bool) -> tuple[Extraction, int] | None:
    run = box_run(response, list_expected)
    if run is None:
        return None
    contents, joined_by_or, _, end = run
    if not contents:
        return Extraction(None, "boxed", "the last \\boxed{} is never closed"), end
    # Whether "or" is a hedge depends on the reference (one answer, or several solutions):
    # the grader decides, as for an "or" inside a single box.
    answer = (" \\text{ or } " if joined_by_or else ", ").join(contents)
    line, _, next_lines = response[end:end + TRAILING_HEDGE_CHARS].partition("\n")
    next_line = next_lines.lstrip()
    hedged = _TRAILING_HEDGE.search(line) or (
        not line.strip(" \t$.,;:\\])") and _NEXT_LINE_HEDGE.match(next_line)) or (
        _ALTERNATIVE_OFFER.search(next_line.partition("\n")[0]))
    problem = "hedged: the text after the box offers alternatives" if hedged else None
    return Extraction(answer, "boxed", problem), end
