"""When a parsed answer is the same as the parsed reference, for every kind of answer.

- Labels: a left-hand side made only of symbols names the answer (`x = 5`, `(p, q) = (3, 2)`,
  `\\frac{NO}{BO} = …`, `x \\in [0, 1)`, a chain `z = 1 + 1 = 2`). Against an unlabelled answer only
  the value counts; against a labelled one the labels must match too (`x = 1` is not `y = 1`).
- Equations: the same when one is a non-zero multiple of the other (`34x + 45y - 20z + 100 = 0`
  and its negative, `2x + 4y - 3 = 0` and `y = -\\frac{1}{2}x + \\frac{3}{4}`). An unlabelled
  equation stated as an answer (`2 + 3 = 5`) states its right-hand side.
- Inequalities: the same when one is a positive multiple of the other (`x < 1`, `-x > -1`,
  `5 \\ge x`), or, in one variable, when they hold on the same set; chains likewise.
- A relation reference and an interval, union or set answer (`-2 \\le x \\le 7` and `[-2, 7]`),
  both ways: the set answer matches by default (option `set_for_relation`), and a relation
  answer in solved form matches the set reference it describes (`k < -5` for `(-\\infty, -5)`,
  option `relation_for_set`); an unsolved relation (`x^2 < 4`) restates the question.
- Sets and lists are unordered, tuples ordered, intervals equal by endpoints and openness;
  `(1, 3)` is an open interval or a pair, whichever the other side is.
- Matrices element by element, after evaluating sums and products of matrices.
- Numbers as `numbers.py` says; other expressions when their difference cancels or simplifies
  to zero.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from latex2sympy2_extended.latex2sympy2 import is_expr_of_only_symbols
from math_verify.grader import unwrap_fcs
from sympy import (
    Abs,
    And,
    Basic,
    Complement,
    Derivative,
    Eq,
    Expr,
    FiniteSet,
    Float,
    Function,
    GreaterThan,
    I,
    Integral,
    Intersection,
    Interval,
    LessThan,
    Limit,
    MatrixBase,
    MatrixExpr,
    Ne,
    Number,
    Product,
    Rational,
    Reals,
    StrictGreaterThan,
    StrictLessThan,
    Sum,
    Symbol,
    Tuple,
    Union,
    cancel,
    exp,
    log,
    simplify,
)
from sympy.core.function import AppliedUndef
from sympy.core.relational import Relational
from sympy.functions.elementary.hyperbolic import HyperbolicFunction
from sympy.functions.elementary.trigonometric import (
    InverseTrigonometricFunction,
    TrigonometricFunction,
)
from sympy.sets.sets import Set

from rlvr_contract.schemas import MathOptions
from verifier.kinds.math.numbers import consistent, exact_decimal, is_number, numbers_equal

# Lists longer than this are compared only element for element as written (each pairing of
# elements may cost a symbolic comparison).
MAX_ELEMENTS = 64

_DEFAULT = MathOptions()
# Sample points where a difference is evaluated before any simplification (arbitrary values,
# none a root of anything an answer is likely to write), at SAMPLE_DIGITS digits.
SAMPLE_DIGITS = 30
_SAMPLE_POINTS = (Rational(4142, 10007), Rational(7321, 9973), Rational(-5377, 8191),
                  Rational(12713, 8009))
_SAMPLE_ZERO = Rational(1, 10**15)
_ELEMENTARY = (TrigonometricFunction, InverseTrigonometricFunction, HyperbolicFunction, exp, log,
               Abs)
# A subscript that is a word describing the quantity (`max`, `total`), not an index.
_DESCRIBED = re.compile(r"(?<=[A-Za-z])_[A-Za-z]{2,}$")


def equivalent(gold: Any, pred: Any, options: MathOptions | None = None) -> bool:
    """Whether the parsed prediction is the same answer as the parsed reference."""
    pred = _renamed_arguments(gold, _align_symbols(gold, pred))
    return _guarded(_equivalent, gold, pred, options or _DEFAULT)


def _guarded(check: Callable[..., bool], *args: Any) -> bool:
    """A check that sympy cannot complete (NotImplementedError, TypeError, …) says no."""
    try:
        return bool(check(*args))
    except MemoryError:
        raise
    except Exception:
        return False


def _align_symbols(gold: Any, pred: Any) -> Any:
    """The prediction's symbols as the reference's: `x` read as real on one side (no `i` in
    it) and as complex on the other is still the same x."""
    try:
        by_name = {s.name: s for s in gold.free_symbols if isinstance(s, Symbol)}
        mapping = {s: by_name[s.name] for s in pred.free_symbols
                   if isinstance(s, Symbol) and s.name in by_name and by_name[s.name] != s}
        return pred.xreplace(mapping) if mapping else pred
    except (AttributeError, TypeError):
        return pred


def equates_different_values(expr: Any) -> bool:
    """An equation between two different numbers as written (`3 = 4`, `x = 3 = 4`,
    `x = 5 + 5 + 1 = 7 = 11`): a completion offering two answers in one box. A computation
    (`2 + 2 = 4`, even a wrong one: `z = 3 + 3 = 2`) states its last side, as math-verify reads."""
    equations = _args(expr) if isinstance(expr, And) else (expr,)
    return any(isinstance(eq, Eq) and isinstance(eq.lhs, Number) and isinstance(eq.rhs, Number)
               and not _guarded(consistent, eq.lhs, eq.rhs) for eq in equations)


def _renamed_arguments(gold: Any, pred: Any) -> Any:
    """A function is the same whatever its variable is called: `f(z) = z` is `f(x) = x`, and
    `f(t) = t^2` or `t^2` answers `f(x) = x^2` (and `x^2`, when it is the only variable); a list
    of definitions sharing their variables likewise (`f(z) = z, f(z) = -z`); `f = 0` (from
    `f \\equiv 0`) is the definition `f(x) = 0`."""
    gold_definition, pred_definition = _definition(gold), _definition(pred)
    if gold_definition is None and pred_definition is None:
        return pred
    if gold_definition is not None and pred_definition is not None:
        if gold_definition.names != pred_definition.names:
            return pred
    elif gold_definition is not None and _names_the_function(pred, gold_definition):
        return Eq(gold_definition.call, pred.rhs)
    elif gold_definition is not None and _dependent_variable(pred, gold_definition):
        # `y = 2t + 3` for `f(x) = 2x + 3`: y names the function's value
        pred = Eq(gold_definition.call.func(*_lone_variable(pred.rhs)), pred.rhs)
        pred_definition = _definition(pred)
    elif pred_definition is not None and _dependent_variable(gold, pred_definition):
        # `f(t) = 2t + 3` for `y = 2x + 3`
        renamed = pred.rhs.xreplace(dict(zip(pred_definition.variables,
                                             _lone_variable(gold.rhs), strict=True)))
        return Eq(gold.lhs, renamed)
    gold_arguments = gold_definition.variables if gold_definition else _lone_variable(gold)
    pred_arguments = pred_definition.variables if pred_definition else _lone_variable(pred)
    if not gold_arguments or not pred_arguments or len(gold_arguments) != len(pred_arguments):
        return pred
    try:
        return pred.xreplace(dict(zip(pred_arguments, gold_arguments, strict=True)))
    except (AttributeError, TypeError):
        return pred


class _Definition(NamedTuple):
    names: frozenset[str]
    variables: tuple[Symbol, ...]
    call: Basic  # `f(x)`, as written on the left


def _definition(expr: Any) -> _Definition | None:
    """The function(s) a definition `f(x, y) = …` (`f^{-1}(y) = …` too) or a list of definitions
    with the same variables defines; None for anything else (`f(y)` alone is f's value at y, not
    a definition: it is not `f(x)`)."""
    if isinstance(expr, FiniteSet | Tuple) and expr.args:
        found = [_definition(arg) for arg in _args(expr)]
        if any(one is None for one in found) or len({one.variables for one in found}) != 1:
            return None
        return _Definition(frozenset().union(*(one.names for one in found)), found[0].variables,
                           found[0].call)
    if not isinstance(expr, Eq) or not isinstance(expr.lhs, Basic):
        return None
    calls = expr.lhs.atoms(AppliedUndef)
    if len(calls) != 1:
        return None
    (call,) = calls
    if not call.args or not all(isinstance(arg, Symbol) for arg in call.args) or (
            expr.lhs.free_symbols - set(call.args)):
        return None
    return _Definition(frozenset((call.func.__name__,)), tuple(call.args), call)


def _dependent_variable(equation: Any, definition: _Definition) -> bool:
    """`y = 2x + 3` beside a definition of one function of one variable: y names its value."""
    return (isinstance(equation, Eq) and isinstance(equation.lhs, Symbol)
            and equation.lhs.name == "y" and len(definition.names) == 1
            and len(definition.variables) == 1
            and equation.lhs not in equation.rhs.free_symbols
            and _lone_variable(equation.rhs) is not None)


def _names_the_function(pred: Any, definition: _Definition) -> bool:
    """`f = 0` against a definition of the one function f: f is the function, not a number."""
    return (isinstance(pred, Eq) and isinstance(pred.lhs, Symbol) and len(definition.names) == 1
            and pred.lhs.name in definition.names and not pred.rhs.free_symbols)


def _lone_variable(expr: Any) -> tuple[Symbol, ...] | None:
    """The one variable of an expression (not a relation or a set), or None."""
    if not isinstance(expr, Expr):
        return None
    symbols = [s for s in expr.free_symbols if isinstance(s, Symbol)]
    return (symbols[0],) if len(symbols) == 1 else None


def _equivalent(gold: Any, pred: Any, options: MathOptions) -> bool:
    if _guarded(lambda: gold == pred):
        return True
    gold_label, pred_label = _label(gold), _label(pred)
    if gold_label and pred_label:
        if (_same_label(gold_label[0], pred_label[0])
                and _equivalent(gold_label[1], pred_label[1], options)):
            return True
        return _is_equation(gold) and _is_equation(pred) and _relations_equal(gold, pred, options)
    if pred_label and not _is_equation(gold):
        return _equivalent(gold, pred_label[1], options)
    if gold_label and not _is_equation(pred):
        return _equivalent(gold_label[1], pred, options)
    if _is_relation(gold) and _is_relation(pred):
        return _relations_equal(gold, pred, options)
    if (_are_alternatives(gold) or _is_relation(gold)) and (
            _are_alternatives(pred) or _is_relation(pred)):  # `a < -1, a > 1` and `|a| > 1`
        return _guarded(_solution_sets_equal, gold, pred, options)
    if _is_relation(gold) or _are_alternatives(gold) and isinstance(pred, Interval | Union):
        return (options.set_for_relation and isinstance(pred, Set)
                and _guarded(_collections_equal, _as_set(gold), pred, options))
    if _is_relation(pred) or _are_alternatives(pred) and isinstance(gold, Interval | Union):
        if _is_equation(pred):  # `2 + 3 = 5` states 5
            return _equivalent(gold, _last_relation(pred).rhs, options)
        return (options.relation_for_set and isinstance(gold, Set) and _solved(pred)
                and _guarded(_collections_equal, gold, _as_set(pred), options))
    gold_vector, pred_vector = _as_vector(gold, pred), _as_vector(pred, gold)
    if gold_vector is not None or pred_vector is not None:  # a column vector and a tuple
        return _guarded(_in_order, gold_vector or _entries(gold), pred_vector or _entries(pred),
                        options)
    if isinstance(gold, Set | Tuple) or isinstance(pred, Set | Tuple):
        return _guarded(_collections_equal, gold, pred, options)
    if _is_matrix(gold) or _is_matrix(pred):
        return _guarded(_matrices_equal, gold, pred, options)
    if is_number(gold) and is_number(pred):
        return _guarded(numbers_equal, gold, pred, options)
    return _guarded(_expressions_equal, gold, pred)


# --------------------------------------------------------------------------- labels


def _args(expr: Basic) -> tuple:
    """An `And`'s or a list's elements in written order (latex2sympy keeps it)."""
    return tuple(getattr(expr, "_unsorted_args", expr.args))


def _entries(expr: Basic) -> tuple:
    """A tuple's elements, or an open interval's ends: `(1, 2)` beside a vector is a pair."""
    if isinstance(expr, Interval):
        return expr.start, expr.end
    return _args(expr)


def _is_membership(expr: Any) -> bool:
    return isinstance(expr, Eq) and isinstance(expr.rhs, Set)


def _is_equation(expr: Any) -> bool:
    if isinstance(expr, And):
        return all(_is_equation(arg) for arg in _args(expr))
    return isinstance(expr, Eq) and not _is_membership(expr)


def _is_relation(expr: Any) -> bool:
    if isinstance(expr, And):
        return all(_is_relation(arg) for arg in _args(expr))
    return isinstance(expr, Relational) and not _is_membership(expr)


def _last_relation(expr: Basic) -> Relational:
    return _args(expr)[-1] if isinstance(expr, And) else expr


def _label(expr: Any) -> tuple[Basic, Basic] | None:
    """(label, value) of `x = 5`, `x \\in [0, 1)`, `z = 1 + 1 = 2`; None for anything else."""
    if isinstance(expr, And) and expr.args and all(isinstance(a, Eq) for a in _args(expr)):
        first, last = _args(expr)[0], _args(expr)[-1]
        if is_expr_of_only_symbols(first.lhs):
            return first.lhs, last.rhs
    if isinstance(expr, Eq) and is_expr_of_only_symbols(expr.lhs):
        return expr.lhs, expr.rhs
    return None


def _same_label(gold: Basic, pred: Basic) -> bool:
    """The same name however its subscript is braced; and a name with a word for subscript
    (`m_{max}`, `V_{total}`) is the bare name too (`m`), not another name with one (`m_{min}`)."""
    def spelled(label: Basic) -> str:
        return str(label).replace("{", "").replace("}", "").replace(" ", "")
    gold_name, pred_name = spelled(gold), spelled(pred)
    return (gold == pred or gold_name == pred_name
            or _DESCRIBED.sub("", gold_name) == pred_name
            or _DESCRIBED.sub("", pred_name) == gold_name)


# --------------------------------------------------------------------------- relations


def _relations_equal(gold: Basic, pred: Basic, options: MathOptions) -> bool:
    gold_parts = _args(gold) if isinstance(gold, And) else (gold,)
    pred_parts = _args(pred) if isinstance(pred, And) else (pred,)
    if len(gold_parts) == len(pred_parts) and all(
            _guarded(_relation_equal, g, p) for g, p in zip(gold_parts, pred_parts, strict=True)):
        return True
    return _guarded(_solution_sets_equal, gold, pred, options)


def _relation_equal(gold: Relational, pred: Relational) -> bool:
    """One relation against another: a multiple of it (positive for an inequality)."""
    if isinstance(gold, Eq | Ne) and type(gold) is type(pred):
        return _proportional(gold.lhs - gold.rhs, pred.lhs - pred.rhs, positive=False)
    gold_side, pred_side = _below_zero(gold), _below_zero(pred)
    if gold_side is None or pred_side is None or gold_side[1] != pred_side[1]:
        return False
    return _proportional(gold_side[0], pred_side[0], positive=True)


def _below_zero(relation: Relational) -> tuple[Basic, bool] | None:
    """An inequality as (expression, strict) meaning expression < 0 (or <= 0)."""
    if isinstance(relation, StrictLessThan | LessThan):
        return relation.lhs - relation.rhs, isinstance(relation, StrictLessThan)
    if isinstance(relation, StrictGreaterThan | GreaterThan):
        return relation.rhs - relation.lhs, isinstance(relation, StrictGreaterThan)
    return None


def _proportional(gold: Basic, pred: Basic, positive: bool) -> bool:
    """Whether `gold` is a constant non-zero (positive) multiple of `pred`."""
    if gold == pred:
        return True
    if gold == 0 or pred == 0:
        return False
    ratio = cancel(gold / pred)
    if ratio.free_symbols:
        if _varies(ratio):
            return False  # not a constant: simplify would only take long to say so
        ratio = simplify(ratio)
    if ratio.free_symbols or not ratio.is_number:
        return False
    value = ratio.evalf()
    if not value.is_finite or value == 0:
        return False
    return bool(value > 0) if positive else True


def _solution_sets_equal(gold: Basic, pred: Basic, options: MathOptions) -> bool:
    """Relations in one and the same variable that hold on the same set (`x^2 < 4` and
    `-2 < x < 2`)."""
    symbols = gold.free_symbols
    if len(symbols) != 1 or pred.free_symbols != symbols or _periodic(gold) or _periodic(pred):
        return False
    return _collections_equal(_as_set(gold), _as_set(pred), options)


def _periodic(relation: Basic) -> bool:
    """A relation with a trigonometric function in it: its solutions repeat without end, and
    solving for them takes sympy long (they are compared as relations only)."""
    return relation.has(TrigonometricFunction, InverseTrigonometricFunction)


def _are_alternatives(expr: Any) -> bool:
    """A list of inequalities: `x < 2 \\text{ or } x > 3` (read as a list) holds where any does."""
    return isinstance(expr, FiniteSet) and all(
        _is_relation(arg) and not _is_equation(arg) for arg in expr.args)


def _solved(relation: Basic) -> bool:
    """A relation in solved form: every part compares one variable with a constant (`k < -5`,
    `-2 \\le x \\le 7`, `x < 2 \\text{ or } x > 3`). `x^2 - 3x + 2 = 0` or `x^2 < 4` restate the
    question, and do not stand for the set that solves it."""
    if isinstance(relation, And | FiniteSet):
        return all(_solved(arg) for arg in _args(relation))
    if not isinstance(relation, Relational):
        return False
    sides = (relation.lhs, relation.rhs)
    return (sum(isinstance(side, Symbol) for side in sides) == 1
            and sum(bool(side.free_symbols) for side in sides) == 1)


def _as_set(relation: Basic) -> Set:
    """Where a relation in one variable holds (`1 \\le |z| \\le 3/2` -> two intervals), or any
    of a list of inequalities does (`x < 2, x > 3`); where that is every real number, the list
    states conditions that all hold (`x \\ge 2, x < 5` is `[2, 5)`)."""
    if isinstance(relation, FiniteSet):
        parts = [_as_set(arg) for arg in relation.args]
        union = Union(*parts)
        return Intersection(*parts) if len(parts) > 1 and union == Reals else union
    return unwrap_fcs(relation).as_set()


# --------------------------------------------------------------------------- collections


def _collections_equal(gold: Any, pred: Any, options: MathOptions) -> bool:
    if isinstance(gold, Interval) and isinstance(pred, Interval):
        return (gold.left_open == pred.left_open and gold.right_open == pred.right_open
                and _equivalent(gold.start, pred.start, options)
                and _equivalent(gold.end, pred.end, options))
    gold_pair, pred_pair = _open_interval_as_pair(gold, pred), _open_interval_as_pair(pred, gold)
    if gold_pair is not None or pred_pair is not None:
        return _in_order(gold_pair or _args(gold), pred_pair or _args(pred), options)
    if isinstance(gold, Tuple) and isinstance(pred, Tuple | FiniteSet):
        return _in_order(_args(gold), _args(pred), options)
    if (isinstance(gold, FiniteSet) and isinstance(pred, FiniteSet | Tuple)
            or isinstance(gold, Union) and isinstance(pred, Union)):
        return _in_any_order(_args(gold), _args(pred), options)
    if isinstance(gold, FiniteSet) and len(gold) == 1 and not isinstance(pred, Set | Tuple):
        return _equivalent(gold.args[0], pred, options)  # {5} and 5
    if isinstance(pred, FiniteSet) and len(pred) == 1 and not isinstance(gold, Set | Tuple):
        return _equivalent(gold, pred.args[0], options)
    if isinstance(gold, Set) and isinstance(pred, Set):
        evaluated_gold, evaluated_pred = _evaluated(gold), _evaluated(pred)
        if (evaluated_gold, evaluated_pred) != (gold, pred):
            return _collections_equal(evaluated_gold, evaluated_pred, options)
        return gold.symmetric_difference(pred).is_empty is True
    return False


def _open_interval_as_pair(interval: Any, other: Any) -> tuple | None:
    """`(1, 3)` read as the pair (1, 3) when the other side is a pair or a list of two."""
    if (isinstance(interval, Interval) and interval.left_open and interval.right_open
            and isinstance(other, Tuple | FiniteSet) and len(_args(other)) == 2):
        return interval.start, interval.end
    return None


def _in_order(gold: tuple, pred: tuple, options: MathOptions) -> bool:
    return len(gold) == len(pred) and all(
        _equivalent(g, p, options) for g, p in zip(gold, pred, strict=True))


def _in_any_order(gold: tuple, pred: tuple, options: MathOptions) -> bool:
    if len(gold) != len(pred):
        return False
    if len(gold) > MAX_ELEMENTS:
        return set(gold) == set(pred)
    remaining = list(pred)
    for element in gold:
        match = next((i for i, candidate in enumerate(remaining)
                      if _equivalent(element, candidate, options)), None)
        if match is None:
            return False
        del remaining[match]
    return True


def _evaluated(collection: Set) -> Set:
    """A set with its unions, intersections and complements worked out: `[0,1] \\cup [1,2]`
    is `[0, 2]`."""
    if isinstance(collection, Union | Intersection | Complement):
        return type(collection)(*(_evaluated(arg) for arg in collection.args))
    return collection


# --------------------------------------------------------------------------- matrices, expressions


def _as_vector(matrix: Any, other: Any) -> tuple | None:
    """A one-row or one-column matrix as the tuple of its entries, when the other side is a
    tuple (`\\begin{pmatrix} 2 \\\\ -1 \\end{pmatrix}` and `(2, -1)`)."""
    matrix = _evaluated_matrix(matrix) if _is_matrix(matrix) else None
    if not isinstance(matrix, MatrixBase) or 1 not in matrix.shape:
        return None
    if isinstance(other, Tuple) or _open_interval_as_pair(other, Tuple(*matrix)) is not None:
        return tuple(matrix)
    return None


def _is_matrix(expr: Any) -> bool:
    return isinstance(expr, MatrixBase | MatrixExpr)


def _matrices_equal(gold: Any, pred: Any, options: MathOptions) -> bool:
    gold, pred = _evaluated_matrix(gold), _evaluated_matrix(pred)
    if not (isinstance(gold, MatrixBase) and isinstance(pred, MatrixBase)):
        return False
    return gold.shape == pred.shape and all(
        _equivalent(g, p, options) for g, p in zip(gold, pred, strict=True))


def _evaluated_matrix(expr: Any) -> Any:
    """Sums and products of matrices worked out (`A + B` -> one matrix)."""
    return expr.doit() if isinstance(expr, MatrixExpr) else expr


def _expressions_equal(gold: Any, pred: Any) -> bool:
    """Expressions whose difference is zero: `cancel` for rational functions, else `simplify`.
    Decimals count as the exact values they write (`0.5x` is `x/2`)."""
    if not (isinstance(gold, Expr) and isinstance(pred, Expr)):
        return False
    difference = _exact(gold) - _exact(pred)
    if difference == 0:
        return True
    unit = _imaginary_unit(difference)
    if unit is not None:  # `1 + 2i` and `i(2 - i)`: i is the imaginary unit, not a variable
        difference = difference.xreplace({unit: I})
    if difference.is_rational_function():
        return cancel(difference) == 0
    if _nonzero_somewhere(difference):
        return False  # not zero at a sample point: no simplification can make it zero
    return simplify(difference).is_zero is True


def _sample_values(expr: Basic, shift: int) -> Basic | None:
    """The expression's value with each variable at an arbitrary point (two sets of points),
    or None when that is not a finite number or the expression is more than elementary
    functions (a sum to `n` evaluated at a fractional n takes sympy minutes)."""
    if any(not isinstance(function, _ELEMENTARY) for function in expr.atoms(Function)) or (
            expr.has(Sum, Product, Integral, Limit, Derivative)):
        return None
    symbols = sorted(expr.free_symbols, key=str)
    point = {symbol: _SAMPLE_POINTS[(i + shift) % len(_SAMPLE_POINTS)]
             for i, symbol in enumerate(symbols)}
    value = expr.evalf(SAMPLE_DIGITS, subs=point)
    return value if value.is_number and value.is_finite else None


def _nonzero_somewhere(expr: Basic) -> bool:
    """Whether the expression is clearly not zero at one of the sample points."""
    for shift in (0, 1):
        value = _sample_values(expr, shift)
        if value is not None and abs(value) > _SAMPLE_ZERO:
            return True
    return False


def _varies(expr: Basic) -> bool:
    """Whether the expression clearly takes two different values at the sample points."""
    first, second = _sample_values(expr, 0), _sample_values(expr, 1)
    if first is None or second is None:
        return False
    return abs(first - second) > _SAMPLE_ZERO * (1 + abs(first) + abs(second))


def _imaginary_unit(expr: Expr) -> Symbol | None:
    """The symbol `i` when it is the only variable (the parser reads `1 + 2i` as real unless it
    sees a complex form)."""
    symbols = expr.free_symbols
    if len(symbols) == 1:
        (symbol,) = symbols
        if isinstance(symbol, Symbol) and symbol.name == "i":
            return symbol
    return None


def _exact(expr: Expr) -> Expr:
    floats = expr.atoms(Float)
    return expr.xreplace({f: exact_decimal(f) for f in floats}) if floats else expr
