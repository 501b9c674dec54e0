"""Compare a final answer with the reference: math-verify, plus the checks it lacks.

This runs inside the killable helper process (`isolation.py`): parsing and comparing can hang
or eat memory on hostile input, so nothing here carries its own time limit.

Only the LaTeX route of math-verify is used (an ANTLR grammar). Its plain-expression route
(`ExprExtractionConfig`) calls sympy's `parse_expr`, which runs `eval`, so it is never called on
text from a request.

What is added on top of math-verify 0.9:
- numbers must really be equal: rationals exactly, other exact values to 40 significant digits,
  decimals to the precision they are written with (math-verify compares at 6 places or chops
  at 15: `1/2^99 == 1/2^98`, `1/2 == 0.5000001`, `10^{100} == 10^{100} + 1`); `1/0` is not 3;
- numbers are built without `sympify` (latex2sympy's `sympy.Number(text)` runs `eval`), and
  ANTLR parses in SLL mode first (same trees, about five times faster);
- numerals with a base subscript compare digits and base (`1011_2 != 1011_3`);
- hedges ("7 or 8", "maybe", a list of candidates for a single answer) are wrong;
- `6.02e23` is read as `6.02 \\times 10^{23}`; `1\\,000` as 1000; unicode operators as LaTeX;
- a reference answer arrives raw (no `$`), as datasets store it.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Callable
from decimal import Decimal
from functools import lru_cache
from typing import Any, NamedTuple

from antlr4.atn.PredictionMode import PredictionMode
from latex2sympy2_extended.latex2sympy2 import (
    NormalizationConfig,
    _Latex2Sympy,
    comma_number_regex,
    normalize_latex,
)
from math_verify import grader, verify
from math_verify.parser import get_last_eq
from sympy import Basic, Expr, Float, Integer, Rational, cancel
from sympy.core.relational import Relational
from sympy.sets.sets import Set

from verifier.math.extract import find_box
from verifier.schemas import Status

# Predictions longer than this are not parsed: a final answer is a short expression.
MAX_PREDICTION_CHARS = 1_000
# Bracket nesting deeper than this is refused before the parser recurses into it.
MAX_NESTING = 40
# Exact irrational values must agree to this many significant digits (compared at 60).
EXACT_DIGITS = 40
GOLD_CACHE_SIZE = 4_096
PREDICTION_CACHE_SIZE = 8_192

# What math-verify does with a boxed answer, minus the box hunt (the text is already the answer).
_NORMALIZATION = NormalizationConfig(basic_latex=True, units=True, malformed_operators=True,
                                     nits=True, boxed="all", equations=False)
_UNICODE_TO_LATEX = str.maketrans({"\u2212": "-", "\u00d7": "\\times ", "\u03c0": "\\pi ",
                                   "\u221a": "\\sqrt", "\u221e": "\\infty ", "\u2264": "\\le ",
                                   "\u2265": "\\ge ", "\u00b7": "\\cdot "})
_SCIENTIFIC = re.compile(r"(?<![\w.\\])(\d+(?:\.\d+)?)\s*[eE]\s*([+-]?\d+)(?![\w.])")
_GROUP_SEPARATOR = r"(?:\\,|\\;|\\ |\{,\}|~| |,)"
_GROUPED_NUMBER = re.compile(rf"-?\d{{1,3}}(?:{_GROUP_SEPARATOR}\d{{3}})+(?:\.\d+)?")
_WRAPPERS = (("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_HEDGE_WORD = re.compile(r"\b(?:or|maybe|perhaps|possibly|probably|either|unsure|not sure)\b|\?",
                         re.IGNORECASE)
_BASE_NUMERAL = re.compile(
    r"\(?([0-9A-Za-z]+)\)?\s*_\s*(?:\{\s*(?:\\text\{\s*)?(\d{1,2})\s*\}?\s*\}?|(\d))")
_PLAIN_NUMERAL = re.compile(r"[0-9A-Za-z]+")
_INTEGER = re.compile(r"-?\d+")
_OPENING, _CLOSING = "{([", "})]"


class Verdict(NamedTuple):
    """What the helper process answers for one item."""

    status: Status
    reason: str | None = None


class Gold(NamedTuple):
    """A reference answer, prepared once per helper process."""

    text: str
    exprs: tuple
    hedge_words: frozenset[str]
    base_numeral: tuple[str, int | None] | None
    is_single: bool
    error: str | None


def grade(prediction: str, gold_text: str,
          on_gold_parse: Callable[[bool], None] | None = None) -> Verdict:
    """Judge an extracted final answer against the raw reference answer.

    `on_gold_parse(started)` is called around parsing a reference not seen before, so that the
    caller can tell a reference that hangs (the verifier's problem) from a prediction that does.
    """
    gold = _GOLDS.get(gold_text)
    if gold is None:
        if on_gold_parse:
            on_gold_parse(True)
        gold = _prepare_gold(gold_text)
        _GOLDS.put(gold_text, gold)
        if on_gold_parse:
            on_gold_parse(False)
    if gold.error:
        return Verdict(Status.infra_error, gold.error)

    text = prepare(prediction)
    refusal = _screen(text, gold)
    if refusal:
        return Verdict(Status.wrong, refusal)

    pred_numeral = base_numeral(text)
    if gold.base_numeral or pred_numeral:
        return _compare_numerals(gold.base_numeral or plain_numeral(gold.text),
                                 pred_numeral or plain_numeral(text))

    exprs = parse_answer(text)
    if not exprs:
        if _canonical_text(text) == _canonical_text(gold.text):
            return Verdict(Status.correct, "unparsed text equals the reference")
        return Verdict(Status.wrong, "the answer could not be parsed as math")
    if verify(list(gold.exprs), list(exprs), timeout_seconds=None):
        return Verdict(Status.correct)
    return Verdict(Status.wrong, "not equivalent to the reference")


def prepare(text: str) -> str:
    """Rewrite what the LaTeX parser misreads, identically for predictions and references."""
    text = text.translate(_UNICODE_TO_LATEX).strip()
    for opening, closing in _WRAPPERS:
        if text.startswith(opening) and text.endswith(closing) and len(text) > 1:
            text = text[len(opening):len(text) - len(closing)].strip()
    text = text.rstrip(". ").replace("\\varnothing", "\\emptyset")
    if len(text) <= MAX_PREDICTION_CHARS:
        text = _SCIENTIFIC.sub(r"\1\\times 10^{\2}", text)
    if _GROUPED_NUMBER.fullmatch(text):
        text = re.sub(_GROUP_SEPARATOR, "", text)
    return text


@lru_cache(maxsize=PREDICTION_CACHE_SIZE)
def parse_answer(text: str) -> tuple:
    """Parse answer text as math-verify parses a boxed answer; () when it is not math."""
    latex = normalize_latex(text, config=_NORMALIZATION)
    try:
        return (_latex_to_sympy(latex),)
    except Exception:  # the grammar rejects it: not parseable math
        pass
    last_equation = get_last_eq(latex)  # math-verify's fallback: `a = b = 5` -> `5`
    if last_equation != latex:
        try:
            return (_latex_to_sympy(last_equation),)
        except Exception:
            pass
    return ()


class _NoSympifyConverter(_Latex2Sympy):
    """latex2sympy, except that numerals are built without `sympify`.

    latex2sympy turns every number token into `sympy.Number(text)`, which sends the text through
    `sympify` and so `parse_expr` and `eval`. The lexer only lets digits through, but untrusted
    text is never evaluated here at all: a numeral needs `int` or mpmath's decimal reader.
    """

    def parse_number(self, text: str) -> Basic:
        return _numeral(text.replace(",", ""))


class _SllConverter(_NoSympifyConverter):
    """ANTLR's SLL prediction: about five times faster than latex2sympy's default LL.

    ANTLR guarantees that an SLL parse either fails with a syntax error or yields the very tree
    LL would; on failure the input is parsed again with LL (`_latex_to_sympy`).
    """

    def create_parser(self, latex_str: str) -> Any:
        parser = super().create_parser(latex_str)
        parser._interp.predictionMode = PredictionMode.SLL
        return parser


def _latex_to_sympy(latex: str) -> Basic:
    if comma_number_regex.match(latex):  # "1,000": latex2sympy would sympify it
        return _numeral(latex.strip().replace(",", ""))
    is_real = not grader.should_treat_as_complex(latex)
    try:
        return _SllConverter(is_real=is_real, convert_degrees=False).parse(latex)
    except Exception:
        return _NoSympifyConverter(is_real=is_real, convert_degrees=False).parse(latex)


def _numeral(text: str) -> Basic:
    """A number from its digits: Integer for whole numbers, else a decimal (e.g. `2.5`, `1E-5`)."""
    if _INTEGER.fullmatch(text):
        return Integer(int(text))
    return Float(text)


def base_numeral(text: str) -> tuple[str, int] | None:
    """`1011_2` -> ("1011", 2); None unless the digits are valid in that base."""
    match = _BASE_NUMERAL.fullmatch(text)
    if match is None:
        return None
    base = int(match[2] or match[3])
    digits = match[1]
    if not 2 <= base <= 36:
        return None
    try:
        int(digits, base)
    except ValueError:
        return None
    return digits.upper().lstrip("0") or "0", base


def plain_numeral(text: str) -> tuple[str, None] | None:
    """A bare digit string, whose base is whatever the other side says."""
    if _PLAIN_NUMERAL.fullmatch(text) is None:
        return None
    return text.upper().lstrip("0") or "0", None


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


def _prepare_gold(gold_text: str) -> Gold:
    box = find_box(gold_text)
    if box is not None and box[2] is not None:
        gold_text = box[2]
    text = prepare(gold_text)
    numeral = base_numeral(text)
    exprs = () if numeral else parse_answer(text)
    error = None if numeral or exprs else "the reference answer could not be parsed"
    return Gold(text=text, exprs=exprs,
                hedge_words=frozenset(w.lower() for w in _HEDGE_WORD.findall(text)),
                base_numeral=numeral, is_single=not re.search(r"[,;]", text), error=error)


def _screen(text: str, gold: Gold) -> str | None:
    """Why a prediction is refused before parsing, or None."""
    if not text:
        return "the final answer is empty"
    if len(text) > MAX_PREDICTION_CHARS:
        return f"the final answer is longer than {MAX_PREDICTION_CHARS} characters"
    if _nesting_depth(text) > MAX_NESTING:
        return f"the final answer nests brackets deeper than {MAX_NESTING}"
    hedges = {w.lower() for w in _HEDGE_WORD.findall(text)} - gold.hedge_words
    if not gold.is_single:
        hedges.discard("or")  # "x = 2 or x = 3" lists the solutions the reference lists
    if hedges:
        return f"hedged answer ({', '.join(sorted(hedges))})"
    if gold.is_single and _top_level_items(text) > 1:
        return "hedged answer: lists several candidates where one is expected"
    return None


def _nesting_depth(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char in _OPENING:
            depth += 1
            deepest = max(deepest, depth)
        elif char in _CLOSING:
            depth -= 1
    return deepest


def _top_level_items(text: str) -> int:
    depth, items = 0, 1
    for char in text:
        if char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth -= 1
        elif char in ",;" and depth == 0:
            items += 1
    return items


def _compare_numerals(gold: tuple[str, int | None] | None,
                      pred: tuple[str, int | None] | None) -> Verdict:
    if gold is None or pred is None:
        return Verdict(Status.wrong, "not a numeral comparable with the reference's base")
    if gold[1] is not None and pred[1] is not None and gold[1] != pred[1]:
        return Verdict(Status.wrong, "numeral written in a different base than the reference")
    if gold[0] != pred[0]:
        return Verdict(Status.wrong, "numeral digits differ")
    return Verdict(Status.correct)


def _canonical_text(text: str) -> str:
    text = re.sub(r"\\(?:text|textbf|mathrm|mbox)\{([^{}]*)\}", r"\1", text)
    return re.sub(r"\s+", "", text).lower()


class _Lru:
    """A small LRU map whose hits can be told apart from misses (functools' cannot)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._data: OrderedDict[str, Gold] = OrderedDict()

    def get(self, key: str) -> Gold | None:
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key: str, value: Gold) -> None:
        self._data[key] = value
        if len(self._data) > self._size:
            self._data.popitem(last=False)


_GOLDS = _Lru(GOLD_CACHE_SIZE)


# --------------------------------------------------------------------------- strict numbers


def _numbers_agree(gold: Basic, pred: Basic) -> bool:
    """False when two numbers math-verify found equal differ beyond their stated precision."""
    gold_readings, pred_readings = _readings(gold), _readings(pred)
    if not gold_readings or not pred_readings:
        return True  # not plain numbers: math-verify's verdict stands
    return any(_close(g, p) for g in gold_readings for p in pred_readings)


def _readings(expr: Basic) -> list[tuple[Basic, Rational | None]]:
    """The values a number may stand for, each with the unit of its last written digit.

    A percentage reads both as itself and divided by 100, as math-verify accepts `50%` for
    both `50` and `0.5`.
    """
    if not _is_number(expr):
        return []
    inner = grader.get_pct_val(expr)
    if inner is not None:
        ulp = _ulp(inner)
        return [(inner, ulp), (inner / 100, ulp / 100 if ulp is not None else None)]
    if not isinstance(expr, Float) and expr.has(Float):
        return []  # decimals inside an expression: no single stated precision
    return [(expr, _ulp(expr))]


def _is_number(expr: object) -> bool:
    return (isinstance(expr, Basic) and not isinstance(expr, Relational | Set)
            and bool(expr.is_number))


def _ulp(value: Basic) -> Rational | None:
    """For a decimal, one unit of its last written digit (0.25 -> 1/100); None for exact values."""
    if not isinstance(value, Float):
        return None
    exponent = Decimal(str(value)).normalize().as_tuple().exponent
    return Rational(10) ** int(exponent)


def _close(gold: tuple[Basic, Rational | None], pred: tuple[Basic, Rational | None]) -> bool:
    (gold_value, gold_ulp), (pred_value, pred_ulp) = gold, pred
    if gold_ulp is None and pred_ulp is None:
        gold_rational, pred_rational = _as_rational(gold_value), _as_rational(pred_value)
        if gold_rational is not None and pred_rational is not None:
            return gold_rational == pred_rational  # 10^{100} + 1 is not 10^{100}
    exact_gold, exact_pred = gold_value.evalf(60), pred_value.evalf(60)
    if not (exact_gold.is_finite and exact_pred.is_finite):  # oo, zoo (`1/0`), nan
        return exact_gold == exact_pred
    difference = abs(exact_gold - exact_pred)
    # A decimal prediction must be the reference rounded to the digits it shows; if only the
    # reference is a decimal, the same holds the other way round.
    ulp = pred_ulp if pred_ulp is not None else gold_ulp
    if ulp is not None:
        return bool(difference <= ulp / 2 * (1 + _RELATIVE_SLACK))
    scale = max(abs(exact_gold), abs(exact_pred))
    return bool(difference <= max(scale * _RELATIVE_SLACK, _ABSOLUTE_ZERO))


def _as_rational(value: Basic) -> Rational | None:
    evaluated = value if isinstance(value, Rational) else value.doit()
    return evaluated if isinstance(evaluated, Rational) else None


_RELATIVE_SLACK = Rational(1, 10**EXACT_DIGITS)
# What evaluating a zero written in disguise (`\\log 1 - 0`) at 60 digits may leave behind.
_ABSOLUTE_ZERO = Rational(1, 10**50)


_math_verify_numeric_eq = grader.sympy_numeric_eq


def _numeric_eq_to_stated_precision(a: Basic, b: Basic, float_rounding: int,
                                    numeric_precision: int) -> bool:
    """math-verify's numeric equality, then the stricter agreement check above."""
    if not _math_verify_numeric_eq(a, b, float_rounding, numeric_precision):
        return False
    try:
        return _numbers_agree(a, b)
    except Exception:  # an exotic value the check cannot evaluate: keep math-verify's verdict
        return True


_math_verify_symbolic_eq = grader.sympy_symbolic_eq


def _symbolic_eq_decided_fast(a: Basic, b: Basic) -> bool:
    """math-verify's symbolic equality (`simplify(a - b) == 0`), without `simplify` when a
    complete cheaper test exists: numbers compare by value at 60 digits, rational functions
    by `cancel`. `simplify` is most of the cost of a wrong answer."""
    try:
        if _is_number(a) and _is_number(b):
            return _close((a, None), (b, None))
        difference = a - b
        if isinstance(difference, Expr) and difference.is_rational_function():
            return cancel(difference) == 0
    except Exception:  # whatever the shortcuts cannot handle goes the slow way
        pass
    return _math_verify_symbolic_eq(a, b)


# math-verify's comparisons (sets, intervals, matrices, relations) all reach number equality
# through these module-level functions, so replacing them applies the checks everywhere.
# The helper processes that import this module exist only to run `grade`.
grader.sympy_numeric_eq = _numeric_eq_to_stated_precision
grader.sympy_symbolic_eq = _symbolic_eq_decided_fast
# verify(timeout_seconds=None) warns once per process that its own timeout is off: the helper
# process is killed at the deadline instead.
logging.getLogger("math_verify").setLevel(logging.ERROR)
