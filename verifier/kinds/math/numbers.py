"""When two numbers are the same answer.

By default an answer's digits count:
- exact values must be equal: rationals exactly (`10^{100}+1` is not `10^{100}`), other exact
  values (roots, pi) to 40 significant digits;
- a decimal must be the other value to every digit it shows and, as math-verify rounds, to six
  decimal places: `\\frac{1}{2}` vs `0.5000001`, `\\frac{1}{3}` vs `0.33` and `\\pi` vs `3.14`
  are wrong, `\\frac{1}{3}` vs `0.333333` is right, whichever side is the reference (a rounded
  reference asks for the rounded value: `\\pi` is not `3.14`, as in math-verify);
- a percentage reads as itself and as a fraction of 100 (`50\\%` is `50` and `0.5`);
- `1/0` and `0/0` equal nothing.

Per item, `rel_tol` (|answer - reference| <= rel_tol * |reference|) or `digits` (the answer is
the reference to that many significant digits) replace the default for every pair of numbers;
`rounded_reference` lets an exact irrational answer match a decimal reference it rounds to.
"""

from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

from sympy import Basic, Float, Integer, Mul, Pow, Rational, UnevaluatedExpr, floor, log, oo
from sympy.core.relational import Relational
from sympy.sets.sets import Set

from rlvr_contract.schemas import MathOptions

# Exact irrational values must agree to this many significant digits (compared at 60).
EXACT_DIGITS = 40
EVAL_DIGITS = 60
# A decimal against an exact value: math-verify's rounding to six decimal places.
DECIMAL_PLACES = 6

_RELATIVE_SLACK = Rational(1, 10**EXACT_DIGITS)
# What evaluating a zero written in disguise (`\log 1 - 0`) at 60 digits may leave behind.
_ABSOLUTE_ZERO = Rational(1, 10**50)
_PERCENT = UnevaluatedExpr(Rational(1, 100))
_DEFAULT = MathOptions()


class Reading(NamedTuple):
    """A value a number may stand for, with one unit of its last written digit (None: exact)."""

    value: Basic
    ulp: Rational | None
    scale: Rational = Rational(1)  # the power of ten scientific notation writes it at


def is_number(expr: object) -> bool:
    return (isinstance(expr, Basic) and not isinstance(expr, Relational | Set)
            and bool(expr.is_number))


def numbers_equal(gold: Basic, pred: Basic, options: MathOptions | None = None) -> bool:
    """Whether two numbers are the same answer (see the module docstring)."""
    options = options or _DEFAULT
    return any(_agree(g, p, options) for g in readings(gold) for p in readings(pred))


def readings(expr: Basic) -> list[Reading]:
    """The values a number may stand for: a percentage is itself and itself over 100."""
    if isinstance(expr, Mul) and len(expr.args) == 2 and expr.args[1] == _PERCENT:
        return [reading for inner in readings(expr.args[0])
                for reading in (inner, Reading(inner.value / 100,
                                               inner.ulp / 100 if inner.ulp else None))]
    if isinstance(expr, Float):
        return [Reading(exact_decimal(expr), _ulp(expr))]
    scientific = _scientific(expr)
    if scientific is not None:  # `2.3148 \\times 10^{-3}`: the digits it shows, scaled
        mantissa, scale = scientific
        return [Reading(exact_decimal(mantissa) * scale, _ulp(mantissa) * scale, scale)]
    if expr.has(Float):  # decimals inside an expression: exact, no single stated precision
        return [Reading(expr.xreplace({f: exact_decimal(f) for f in expr.atoms(Float)}), None)]
    return [Reading(expr, None)]


def _scientific(expr: Basic) -> tuple[Float, Rational] | None:
    """A decimal times a power of ten, as (decimal, power); None for anything else."""
    if not isinstance(expr, Mul) or len(expr.args) != 2:
        return None
    mantissa, scale = expr.args
    if not isinstance(mantissa, Float):
        return None
    if isinstance(scale, Pow) and scale.base == 10 and isinstance(scale.exp, Integer):
        return mantissa, Rational(10) ** int(scale.exp)
    if isinstance(scale, Rational) and scale > 0 and _is_power_of_ten(scale):
        return mantissa, scale
    return None


def _is_power_of_ten(value: Rational) -> bool:
    number = value.p if value.q == 1 else value.q
    if value.p != 1 and value.q != 1:
        return False
    return str(number).rstrip("0") == "1"


def exact_decimal(value: Float | float) -> Rational:
    """The decimal as written (`0.1` is 1/10, not the nearest binary fraction)."""
    return Rational(*Decimal(str(value)).as_integer_ratio())


def _ulp(value: Float) -> Rational:
    """One unit of the last written digit: 0.25 -> 1/100, 6.02e23 -> 10^21."""
    exponent = Decimal(str(value)).normalize().as_tuple().exponent
    return Rational(10) ** int(exponent)


def _agree(gold: Reading, pred: Reading, options: MathOptions) -> bool:
    exact_gold, exact_pred = _evaluate(gold.value), _evaluate(pred.value)
    if exact_gold is None or exact_pred is None:
        return False
    if not (exact_gold.is_finite and exact_pred.is_finite):
        return exact_gold == exact_pred  # oo, -oo
    difference = abs(exact_gold - exact_pred)
    if options.rel_tol is not None:
        return bool(difference <= exact_decimal(options.rel_tol) * abs(exact_gold))
    if options.digits is not None:
        return bool(difference <= _digits_tolerance(exact_gold, options.digits))
    if gold.ulp is None and pred.ulp is None:
        if isinstance(exact_gold, Rational) and isinstance(exact_pred, Rational):
            return exact_gold == exact_pred  # 10^{100} + 1 is not 10^{100}
        scale = max(abs(exact_gold), abs(exact_pred))
        return bool(difference <= max(scale * _RELATIVE_SLACK, _ABSOLUTE_ZERO))
    if options.rounded_reference and pred.ulp is None and not isinstance(exact_pred, Rational):
        # Asked for: the decimal reference is an irrational value rounded (`0.7071` and
        # `\\frac{\\sqrt{2}}{2}`, `3.14` and `\\pi`). A fraction must still be the decimal itself.
        return bool(difference <= gold.ulp / 2 * (1 + _RELATIVE_SLACK))
    # A decimal answer must be the reference rounded to the digits it shows, and agree with an
    # exact reference to six decimal places as math-verify rounds.
    ulp = pred.ulp if pred.ulp is not None else gold.ulp
    scale = pred.scale if pred.ulp is not None else gold.scale  # six places of its mantissa
    return (bool(difference <= ulp / 2 * (1 + _RELATIVE_SLACK))
            and _rounded(exact_gold / scale) == _rounded(exact_pred / scale))


def _evaluate(value: Basic) -> Basic | None:
    """An exact Rational when the value is rational, else its value at 60 digits; None for
    what is not a number at all (`0/0`, `1/0`)."""
    done = value if isinstance(value, Rational) else value.doit()
    if isinstance(done, Rational) or done in (oo, -oo):
        return done
    evaluated = done.evalf(EVAL_DIGITS)
    return evaluated if evaluated.is_finite else None


def _rounded(value: Basic) -> Integer:
    return floor(value * 10**DECIMAL_PLACES + Rational(1, 2))


def _digits_tolerance(gold: Basic, digits: int) -> Basic:
    """Half a unit of the reference's `digits`-th significant digit."""
    if gold == 0:
        return Rational(1, 2) * Rational(10) ** -digits
    exponent = floor(log(abs(gold), 10).evalf(EVAL_DIGITS))
    return Rational(1, 2) * Rational(10) ** (exponent - digits + 1)


def consistent(left: Basic, right: Basic, ulps: Rational = Rational(1)) -> bool:
    """Whether two sides of an equation a completion states can both hold: the same value, a
    decimal side to within `ulps` units of its last digit (`\\frac{1}{3} = 0.33`). `3 = 4`
    states two answers at once."""
    readings_left, readings_right = readings(left), readings(right)
    for one in readings_left:
        for other in readings_right:
            exact_one, exact_other = _evaluate(one.value), _evaluate(other.value)
            if exact_one is None or exact_other is None:
                continue
            if not (exact_one.is_finite and exact_other.is_finite):
                if exact_one == exact_other:
                    return True
                continue
            slack = max(one.ulp or 0, other.ulp or 0) * ulps
            scale = max(abs(exact_one), abs(exact_other))
            if abs(exact_one - exact_other) <= max(slack, scale * _RELATIVE_SLACK, _ABSOLUTE_ZERO):
                return True
    return False


def rounds_to(exact: Basic, rounded: Basic) -> bool:
    """Whether the decimal `rounded` is `exact` rounded to the digits it shows: within half a
    unit of its last digit. One unit (`consistent`) let `\\frac{1}{2} \\approx 0.4` score as
    both 0.5 and 0.4: two answers at once."""
    return consistent(exact, rounded, Rational(1, 2))

