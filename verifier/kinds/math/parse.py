"""LaTeX to sympy through latex2sympy's ANTLR grammar, without evaluating any text.

Only the LaTeX route of math-verify's stack is used. Its plain-expression route calls sympy's
`parse_expr`, which runs `eval`, so it is never called on text from a request; and latex2sympy's
own numerals go through `sympy.Number(text)`, which sympifies, so numerals are built here from
their digits instead. ANTLR parses in SLL mode first (the same trees, about five times faster).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from antlr4.atn.PredictionMode import PredictionMode
from latex2sympy2_extended.latex2sympy2 import (
    NormalizationConfig,
    _Latex2Sympy,
    comma_number_regex,
    normalize_latex,
)
from math_verify.grader import should_treat_as_complex
from sympy import And, Basic, Float, Integer
from sympy.core.relational import Relational

from verifier.kinds.math import setbuilder

PARSE_CACHE_SIZE = 8_192
# Significant digits a decimal always keeps (more when it is written with more).
MIN_DECIMAL_DIGITS = 15

# latex2sympy's clean-up (`\left`, `\dfrac`, `\frac12`, `\sqrt3`, "and" as a comma), minus its
# unit stripping (it eats `\mathrm{e}}` at the end of `\frac{1}{\mathrm{e}}`): `normalize.py`
# drops units.
_NORMALIZATION = NormalizationConfig(basic_latex=True, units=False, malformed_operators=True,
                                     nits=False, boxed="none", equations=False)
# Conditions that all hold, as `normalize` joins them (`x \\ge 2 \\land x < 5`).
_LAND = "\\land"
_EQUALS = re.compile(r"(?<!\\|<|!|>)=")
# A letter with a subscript (`x_1`, `a_{37}`, `F_{n-k-1}`): one name. Written as latex2sympy's
# `\variable{…}` it is one token; as `x_{1}` the grammar needs ANTLR's full-context prediction,
# which costs 50 ms to half a second per subscript.
_SUBSCRIPTED = re.compile(r"(?<![\\A-Za-z])([A-Za-z])_(?:\{([A-Za-z0-9+\-]+)\}|([A-Za-z0-9]))")
_INTEGER = re.compile(r"-?\d+")
_DIGIT = re.compile(r"\d")


@lru_cache(maxsize=PARSE_CACHE_SIZE)
def parse_latex(text: str) -> Any:
    """A normalised answer as a sympy object (or matrix); None when it is not parseable math.

    `a = b = 5` that the grammar rejects as a whole is read as its last part, as math-verify does;
    set-builder notation is read as the set it describes (`setbuilder.py`).
    """
    latex = setbuilder.expand(text, _condition)
    if _LAND in latex:
        return _conjunction(latex)
    latex = _prepared(latex)
    for candidate in dict.fromkeys((latex, _last_equation(latex))):
        try:
            return latex_to_sympy(candidate)
        except Exception:  # latex2sympy raises bare Exceptions: not parseable math
            continue
    return None


def _conjunction(latex: str) -> Any:
    """`x \\ge 2 \\land x < 5`: the relations that all hold, as one (None unless each part is
    a relation)."""
    parts = [_condition(part) for part in latex.split(_LAND)]
    if not all(isinstance(part, Relational) for part in parts):
        return None
    return And(*parts)


def _prepared(text: str) -> str:
    return _SUBSCRIPTED.sub(_variable, normalize_latex(text, config=_NORMALIZATION))


def _condition(text: str) -> Any:
    """One condition of a set-builder group, or None."""
    try:
        return latex_to_sympy(_prepared(text))
    except Exception:
        return None


def latex_to_sympy(latex: str) -> Any:
    if comma_number_regex.match(latex):  # "1,000": latex2sympy would sympify it
        return numeral(latex.strip().replace(",", ""))
    is_real = not should_treat_as_complex(latex)
    try:
        return SllConverter(is_real=is_real, convert_degrees=False).parse(latex)
    except Exception:
        return NoSympifyConverter(is_real=is_real, convert_degrees=False).parse(latex)


def numeral(text: str) -> Basic:
    """A number from its digits: Integer for whole numbers, else a decimal with every digit."""
    if _INTEGER.fullmatch(text):
        return Integer(int(text))
    digits = len(_DIGIT.findall(text.split("e")[0].split("E")[0]))
    return Float(text, max(MIN_DECIMAL_DIGITS, digits))


def _variable(match: re.Match[str]) -> str:
    """`F_{n-k-1}` -> `\\variable{F_{nmkm1}}`: the same name however the subscript is braced
    (`\\variable` takes letters and digits only)."""
    subscript = (match[2] or match[3]).replace("+", "p").replace("-", "m")
    return f"\\variable{{{match[1]}_{{{subscript}}}}}"


def _last_equation(latex: str) -> str:
    """`a = b = 5` -> `5`; unchanged when it is a list (`a = 1, b = 2`) or one equation."""
    if "," in latex or ";" in latex:
        return latex
    parts = _EQUALS.split(latex)
    return parts[-1] if len(parts) > 2 else latex


class NoSympifyConverter(_Latex2Sympy):
    """latex2sympy, except that numerals are built without `sympify`.

    latex2sympy turns every number token into `sympy.Number(text)`, which sends the text through
    `sympify` and so `parse_expr` and `eval`. The lexer only lets digits through, but untrusted
    text is never evaluated here at all: a numeral needs `int` or mpmath's decimal reader.
    """

    def parse_number(self, text: str) -> Basic:
        return numeral(text.replace(",", ""))


class SllConverter(NoSympifyConverter):
    """ANTLR's SLL prediction: about five times faster than latex2sympy's default LL.

    ANTLR guarantees that an SLL parse either fails with a syntax error or yields the very tree
    LL would; on failure the input is parsed again with LL (`latex_to_sympy`).
    """

    def create_parser(self, latex_str: str) -> Any:
        parser = super().create_parser(latex_str)
        parser._interp.predictionMode = PredictionMode.SLL
        return parser
