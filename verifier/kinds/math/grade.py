"""Judge an extracted answer against a reference: what the helper process runs per item.

This runs inside the killable helper process (`isolation.py`): parsing and comparing can hang
or eat memory on hostile input, so nothing here carries its own time limit.

In order: refuse what is not an answer (empty, too long, nested too deep, hedged: "7 or 8",
"probably 7", several candidates where one answer is expected); then, for each reading of both
sides (`2,74` is 2.74 or the list 2, 74), compare as written (`literal.py`), else parse both
(`parse.py`) and compare the values (`compare.py`). A reference that cannot be parsed is the
dataset's fault: `infra_error`, unless the answer reproduces it exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from sympy import Eq, FiniteSet, Tuple, Union
from sympy.sets.sets import Set

from rlvr_contract.schemas import MathOptions, Status
from verifier.kinds.math import setbuilder
from verifier.kinds.math.compare import equates_different_values, equivalent
from verifier.kinds.math.literal import (
    base_numeral,
    canonical,
    choice_letter,
    choice_letters,
    choice_with_value,
    compare_literally,
    congruence,
    is_text_answer,
    time_of_day,
)
from verifier.kinds.math.normalize import approximation, normalize, readings
from verifier.kinds.math.numbers import is_number, rounds_to
from verifier.kinds.math.parse import parse_latex
from verifier.kinds.math.shape import hedge_words, is_list, nesting_depth, split_top_level
from verifier.service.lru import LRU

# Predictions longer than this are not parsed: a final answer is a short expression.
MAX_PREDICTION_CHARS = 1_000
# Bracket nesting deeper than this is refused before the parser recurses into it.
MAX_NESTING = 40
GOLD_CACHE_SIZE = 4_096
_SEVERAL_CANDIDATES = "lists several candidates where one is expected"
_OR_HEDGE = "hedged answer (or)"
# Items of one answer written several ways (`\\frac{1}{4}` or `25\\%`) that are looked at.
MAX_RESTATEMENTS = 8


class Verdict(NamedTuple):
    """What the helper process answers for one item."""

    status: Status
    reason: str | None = None


class GoldReading(NamedTuple):
    text: str
    expr: Any  # None when only the literal comparison applies
    several: bool  # a list, tuple, interval or set: an answer of several items is no hedge


class Gold(NamedTuple):
    """A reference answer, prepared once per helper process."""

    text: str
    readings: tuple[GoldReading, ...]
    hedge_words: frozenset[str]
    is_list: bool  # several answers, or a union: "x = 2 or x = 3", "x < 2 or x > 3" are no hedge
    error: str | None


def grade(prediction: str, gold_text: str, options: MathOptions | None = None,
          on_gold_parse: Callable[[bool], None] | None = None) -> Verdict:
    """Judge an extracted final answer against the reference's answer text.

    `on_gold_parse(started)` is called around parsing a reference not seen before, so that the
    caller can tell a reference that hangs (the verifier's problem) from a prediction that does.
    """
    gold = _GOLDS.get(gold_text)
    if gold is None:
        if on_gold_parse:
            on_gold_parse(True)
        gold = _prepare_gold(gold_text)
        _GOLDS[gold_text] = gold
        if on_gold_parse:
            on_gold_parse(False)

    refusal = _screen(prediction, gold)  # before any rewrite: what is refused is not read
    if refusal and refusal != _OR_HEDGE:
        return Verdict(Status.infra_error, gold.error) if gold.error else Verdict(
            Status.wrong, refusal)
    text = normalize(prediction)
    if gold.error:
        if not refusal and canonical(text) == canonical(gold.text):
            return Verdict(Status.correct, "the answer reproduces the reference exactly")
        return Verdict(Status.infra_error, gold.error)
    if refusal:
        if _restates_one_answer(text, gold, options):
            return Verdict(Status.correct)
        return Verdict(Status.wrong, refusal)

    hedged = parsed = two_values = False
    for reading in readings(text):
        several = len(split_top_level(reading)) > 1
        for gold_reading in gold.readings:
            if several and not gold_reading.several:
                hedged = True
                continue
            decided = compare_literally(gold_reading.text, reading)
            if decided is not None:
                if decided:
                    return Verdict(Status.correct)
                parsed = True
                continue
            expr = parse_latex(reading) if gold_reading.expr is not None else None
            if expr is None:
                continue
            parsed = True
            if equates_different_values(expr):
                two_values = True
                continue
            if equivalent(gold_reading.expr, expr, options):
                return Verdict(Status.correct)
    if two_values:
        return Verdict(Status.wrong, "hedged answer: it equates different values")
    if _states_the_rounded_reference(prediction, gold, options):
        return Verdict(Status.correct)
    if hedged and _restates_one_answer(text, gold, options):
        return Verdict(Status.correct)
    if parsed:
        return Verdict(Status.wrong, "not equivalent to the reference")
    if hedged:
        return Verdict(Status.wrong, f"hedged answer: {_SEVERAL_CANDIDATES}")
    return Verdict(Status.wrong, "the answer could not be parsed as math")


def warm_up() -> None:
    """Parse and compare typical answers once, before helpers are forked from this process.

    The ANTLR parser builds its DFA caches lazily and sympy imports solvers on first use; doing
    it here means every forked helper, including one replacing a killed helper, starts warm.
    """
    samples = ["\\frac{3}{4}", "-2\\sqrt{3}", "\\pi/2", "[1, 2)", "\\{1, 2\\}", "(3, -1)",
               "x^2 + 2x + 1", "50\\%", "\\text{Monday}", "0.25", "y = 2x + 1",
               "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}", "2 \\le x < 5",
               "\\infty", "10^{5}", "6.02\\times 10^{23}", "3 + 2i", "\\dfrac{9}{7}"]
    for sample in samples:
        grade(sample, sample)
    grade("1/3", "0.333333")
    grade("2x + 1 = 5", "x = 2")
    grade("x > 1", "-x < -1")
    grade("[-2, 7]", "-2 \\le x \\le 7")
    # trigonometry, logarithms and functions: their grammar paths and sympy's lazy imports
    grade("\\cos(x) = \\frac{1}{2}", "\\sin(x) = \\frac{1}{2}")
    grade("\\sec^2 x", "\\tan^2 x + 1")
    grade("\\log_2 8 + \\ln e^{2}", "5")
    grade("f(t) = t^2", "f(x) = x^2")
    grade("(1, \\infty)", "\\{x \\mid x > 1\\}")


def _restates_one_answer(text: str, gold: Gold, options: MathOptions | None) -> bool:
    """`\\frac{1}{4}` or `25\\%`, `4 \\text{ and } 4`: several items that are each the one
    reference are the one answer written several ways, not alternatives."""
    items = split_top_level(text)
    if not 1 < len(items) <= MAX_RESTATEMENTS:
        return False
    singles = [reading for reading in gold.readings if not reading.several]
    return bool(singles) and all(any(_same(reading, item, options) for reading in singles)
                                 for item in items)


def _same(gold_reading: GoldReading, item: str, options: MathOptions | None) -> bool:
    decided = compare_literally(gold_reading.text, item)
    if decided is not None:
        return decided
    expr = parse_latex(item) if gold_reading.expr is not None else None
    return expr is not None and not equates_different_values(expr) and equivalent(
        gold_reading.expr, expr, options)


def _states_the_rounded_reference(prediction: str, gold: Gold,
                                  options: MathOptions | None) -> bool:
    """`\\frac{1}{3} \\approx 0.333` against the decimal reference 0.333: the rounded value it
    states is the reference, and its exact value rounds to that."""
    stated = _stated_values(prediction)
    if stated is None or not rounds_to(*stated):
        return False
    return any(reading.expr is not None and is_number(reading.expr)
               and equivalent(reading.expr, stated[1], options) for reading in gold.readings)


def _stated_values(prediction: str) -> tuple[Any, Any] | None:
    """The exact value and the rounded one an answer states with `\\approx`, both numbers."""
    stated = approximation(prediction)
    if stated is None:
        return None
    exact, rounded = (parse_latex(part) for part in stated)
    return (exact, rounded) if is_number(exact) and is_number(rounded) else None


def _offers_alternatives(expr: Any) -> bool:
    """A union, a set of several elements, or membership in one: "or" between its parts in an
    answer lists them, it does not hedge."""
    if isinstance(expr, Eq) and isinstance(expr.rhs, Set):
        expr = expr.rhs
    return isinstance(expr, Union) or isinstance(expr, FiniteSet) and len(expr) > 1


def gold_readings(text: str) -> list[str]:
    """A reference's readings; an option with its value (`(C) 15`, `\\textbf{(C) }15`) is
    answered by its letter or by its value."""
    found = readings(text)
    option = choice_with_value(text)
    return [*found, *option] if option is not None else found


def _prepare_gold(gold_text: str) -> Gold:
    text = normalize(gold_text)
    prepared = []
    for reading in gold_readings(text):
        literal_only = (is_text_answer(reading) or choice_letter(reading) is not None
                        or choice_letters(reading) is not None or congruence(reading) is not None
                        or base_numeral(reading) is not None or time_of_day(reading) is not None)
        expr = None if literal_only else parse_latex(reading)
        if expr is not None or literal_only:
            several = (is_list(reading) or isinstance(expr, Tuple | Set)
                       or _offers_alternatives(expr) or choice_letters(reading) is not None)
            prepared.append(GoldReading(reading, expr, several))
    error = None if prepared else "the reference answer could not be parsed"
    return Gold(text=text, readings=tuple(prepared), hedge_words=frozenset(hedge_words(gold_text)),
                is_list=any(is_list(r.text) or _offers_alternatives(r.expr) for r in prepared),
                error=error)


def _screen(prediction: str, gold: Gold) -> str | None:
    """Why a prediction is refused before parsing, or None."""
    if not prediction.strip():
        return "the final answer is empty"
    if len(prediction) > MAX_PREDICTION_CHARS:
        return f"the final answer is longer than {MAX_PREDICTION_CHARS} characters"
    if nesting_depth(prediction) > MAX_NESTING:
        return f"the final answer nests brackets deeper than {MAX_NESTING}"
    hedges = hedge_words(setbuilder.canonical(prediction)) - gold.hedge_words
    if gold.is_list:
        hedges.discard("or")  # "x = 2 or x = 3" lists the solutions the reference lists
    if hedges == {"or"}:
        return _OR_HEDGE
    if hedges:
        return f"hedged answer ({', '.join(sorted(hedges))})"
    return None


_GOLDS: LRU[str, Gold] = LRU(GOLD_CACHE_SIZE)  # its hits can be told from misses
