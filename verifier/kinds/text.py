"""Text matching: exact, normalised (SQuAD), regex, token F1 and multiple-choice letters.

The whole check (reading the answer region, then matching) runs in the calling thread's
deadline helper (`verifier/service/deadline.py`), as every kind's work on a response does: a
regex comes from the dataset and the text from the policy, and Python's `re` can backtrack for
ever on such a pair; the rest is linear, but a deadline holds whatever the response's shape.
The references are prepared first, in a phase with a deadline of its own: up to 100 references
of 100,000 characters are the dataset's cost, and references that cannot be prepared in time
are its fault (`infra_error`), not the response's.
"""

from __future__ import annotations

import re
import string
from collections import Counter, deque
from re import _constants as re_constants  # the parse tree's opcodes (3.11+)
from re import _parser as re_parser  # the parser alone: compiling is the costly half
from typing import Any

from rlvr_contract.item_kinds import TextItem
from rlvr_contract.schemas import Result, Status
from verifier.config import setting_default
from verifier.kinds.answer_region import extract
from verifier.kinds.kind import Kind, one_at_a_time, settings_free
from verifier.service.deadline import deadline_helper, early_result, enter_phase

# Code points a regex's character classes may span: compiling one walks its ranges one code
# point at a time (a BMP-wide range, case-insensitive, about 40 ms), and a 2,000-character
# pattern of them took seconds to compile, at admission, for each of an item's 100 references.
MAX_CLASS_SPAN = 1 << 18
_PREPARING_REFERENCES = "references"
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)
# Possessive: the runs of spacing between the word and the letter were three quantifiers that
# split a run of n spaces every way, n**3 steps ("answer" then 2,000 spaces: minutes).
_CHOICE_STATED = re.compile(
    r"(?:answer|option|choice)\s*+(?:is|:)?\s*+(?:option\s*+)?[:\s]*+[(\[]?([A-Za-z])[)\].]?"
    r"(?![\w'])",
    re.IGNORECASE)
_CHOICE_ALONE = re.compile(r"^[\s(\[*]*([A-Za-z])[\s)\].:*]*$")
_CHOICE_MARKED = re.compile(r"[(\[]([A-Z])[)\]]")
# Another letter offered beside the chosen one: "(B) or (D)", "B, D", "B/D", "(B) and (D)".
_JOINED = r"\s*(?:,|/|&|\bor\b|\band\b|\band/or\b)\s*(?:option\s*)?"
_ALTERNATIVE_AFTER = re.compile(r"[)\].]?" + _JOINED + r"[(\[]?([A-HJ])[)\]]?(?![\w'])")
_ALTERNATIVE_BEFORE = re.compile(r"(?<![\w'])[(\[]?([A-HJ])[)\]]?" + _JOINED + r"[(\[]?$")


def admission_problem(item: TextItem) -> str | None:
    """A regex that does not parse, or whose compiling would walk more code points than
    MAX_CLASS_SPAN, is refused ("answer.N: why"), or None. Parsed only, never compiled here:
    admission runs in the API's event loop; the deadline helper compiles it."""
    if item.match != "regex":
        return None
    flags = re.DOTALL | (re.IGNORECASE if item.ignore_case else 0)
    for i, pattern in enumerate(item.references):
        try:
            problem = regex_problem(re_parser.parse(pattern, flags))
        except (re.error, RecursionError, OverflowError) as exc:
            problem = f"not a valid regular expression: {exc}"
        if problem:
            return f"answer.{i}: {problem}" if isinstance(item.answer, list) else \
                f"answer: {problem}"
    return None


def regex_problem(parsed: re_parser.SubPattern) -> str | None:
    """What compiling a parsed pattern would refuse (a look-behind of varying width), or a
    cost past MAX_CLASS_SPAN: the code points its character classes' ranges span, each up to
    the end of the BMP (how far compiling walks it, one code point at a time). None if neither."""
    span, stack = 0, [parsed]
    while stack:
        node = stack.pop()
        if isinstance(node, re_parser.SubPattern):
            stack.extend(node.data)
            continue
        if not isinstance(node, tuple | list):
            continue
        if len(node) == 2 and node[0] is re_constants.RANGE:
            low, high = node[1]
            span += max(0, min(high, 0xFFFF) - low + 1)
            continue
        if len(node) == 2 and node[0] in (re_constants.ASSERT, re_constants.ASSERT_NOT) \
                and node[1][0] < 0:
            low, high = node[1][1].getwidth()
            if low != high:
                return "not a valid regular expression: look-behind requires fixed-width pattern"
        stack.extend(node)
    if span > MAX_CLASS_SPAN:
        return (f"its character classes span {span} code points, over the {MAX_CLASS_SPAN} a "
                f"pattern may (compiling walks each of them)")
    return None


def normalize(text: str) -> str:
    """SQuAD's normalisation: lowercase, no punctuation, no articles, single spaces."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def token_f1(predicted: Counter[str], expected: Counter[str]) -> float:
    """SQuAD's token F1 of two bags of normalized tokens."""
    if not predicted or not expected:
        return float(predicted == expected)
    common = (predicted & expected).total()
    if common == 0:
        return 0.0
    precision, recall = common / predicted.total(), common / expected.total()
    return 2 * precision * recall / (precision + recall)


def chosen_letter(answer: str) -> str | None:
    """The option letter an answer picks: "The answer is (B)", "B", "**C.**", "... (D)"; ""
    when it offers several ("(B) or (D)", "B, D"): a hedge picks none."""
    alone = _CHOICE_ALONE.match(answer)
    if alone:
        return alone.group(1).upper()
    stated = deque(_CHOICE_STATED.finditer(answer), maxlen=1)
    if stated:
        return _unless_offered_with_another(answer, stated[0])
    marked = deque(_CHOICE_MARKED.finditer(answer), maxlen=1)
    return _unless_offered_with_another(answer, marked[0]) if marked else None


def _unless_offered_with_another(answer: str, chosen: re.Match[str]) -> str:
    letter = chosen.group(1).upper()
    after = _ALTERNATIVE_AFTER.match(answer, chosen.end())
    before = _ALTERNATIVE_BEFORE.search(answer, 0, chosen.start(1))
    others = {m.group(1) for m in (after, before) if m is not None} - {letter}
    return "" if others else letter


def regex_matches(patterns: list[str], answer: str, ignore_case: bool) -> bool:
    """Does any pattern match the whole answer."""
    flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
    return any(re.fullmatch(pattern, answer, flags) for pattern in patterns)


def check_text(item: TextItem, timeout_s: float = setting_default("math_timeout_s")) -> Result:
    """Score one item. Never raises; returns within about `timeout_s` (twice that with the
    references' own phase). References that cannot be prepared in time are the dataset's
    (`infra_error`), never the response's."""
    outcome = deadline_helper().call(judge, (item,), timeout_s)
    if outcome.how == "timeout" and outcome.phase == _PREPARING_REFERENCES:
        return Result.infra_error(item.id, f"preparing the references took longer than "
                                           f"{timeout_s:g} s")
    if outcome.how != "ok":
        return early_result(item.id, outcome, "matching the answer", {"match": item.match})
    return outcome.value


def judge(item: TextItem) -> Result:
    """Runs in the deadline helper: the references prepared once (a phase of their own), the
    answer region, then the match. The answer is normalized once, not once per reference (100
    references and a 200 kB answer normalized it 100 times)."""
    enter_phase(_PREPARING_REFERENCES)
    references = _prepared(item)
    enter_phase(None)
    answer = extract(item.response, item.extract)
    if answer is None:
        return Result(id=item.id, reward=0.0, status=Status.no_answer,
                      detail={"reason": f"no answer found ({item.extract})"})
    detail: dict[str, object] = {"match": item.match, "extracted": answer[:200]}
    if item.match == "regex":
        score = float(regex_matches(item.references, answer, item.ignore_case))
    elif item.match == "f1":
        predicted = Counter(normalize(answer).split())
        score = max(token_f1(predicted, expected) for expected in references)
        detail["f1"] = round(score, 6)
    elif item.match == "choice":
        letter = chosen_letter(answer)
        if letter is None:
            return Result(id=item.id, reward=0.0, status=Status.no_answer,
                          detail={**detail, "reason": "no option letter found"})
        if not letter:
            return Result(id=item.id, reward=0.0, status=Status.wrong,
                          detail={**detail, "reason": "hedged: several option letters"})
        detail["chosen"] = letter
        score = float(letter in references)
    else:
        score = float(_folded(item, answer) in references)
    status = Status.correct if score >= 1.0 else Status.wrong
    return Result(id=item.id, reward=score, status=status, detail=detail)


def _prepared(item: TextItem) -> Any:
    """The references in the form the answer is compared with: bags of tokens (f1), option
    letters (choice), folded texts (exact, normalized), the patterns (regex)."""
    if item.match == "f1":
        return [Counter(normalize(reference).split()) for reference in item.references]
    if item.match == "choice":
        return {reference.strip().strip("()").upper() for reference in item.references}
    if item.match == "regex":
        return item.references
    return {_folded(item, reference) for reference in item.references}


def _folded(item: TextItem, text: str) -> str:
    """A text as `exact` or `normalized` compares it (case folded first with ignore_case)."""
    text = text.lower() if item.ignore_case else text
    return normalize(text) if item.match == "normalized" else text.strip()


KIND = Kind("text", TextItem, check=one_at_a_time(check_text),
            admission=settings_free(admission_problem))
