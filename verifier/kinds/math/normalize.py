"""One spelling for an answer: the LaTeX rewrites applied alike to references and predictions.

Datasets and policies write the same answer many ways (`11,\\! 111`, `\\dfrac`, `\\$18.00`,
`90^\\circ`, `5\\text{ cm}`, `x \\approx 11`, `1 \\pm \\sqrt{2}`); everything here turns those
into the spelling the parser reads. Pure string work in linear time, no sympy, so the calling
process may use it too (to tell whether a reference is a list).

`readings` adds the one ambiguity that cannot be settled from the text alone: `2,74` is a
decimal written with a comma, or the list 2, 74; the comparison tries both.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from verifier.kinds.math import plaintext, setbuilder
from verifier.kinds.math.shape import split_top_level

NORMALIZE_CACHE_SIZE = 8_192
# Whole answers in words: numbers (zero to ninety-nine) and the two sets answers name.
_UNITS_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                "seventeen", "eighteen", "nineteen"]
_TENS = {word: 10 * (i + 2) for i, word in enumerate(
    ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"])}
_NUMBER_WORDS = {**{word: i for i, word in enumerate(_UNITS_WORDS)}, **_TENS}
_SETS_IN_WORDS = {**dict.fromkeys(("all real numbers", "all reals", "all real values",
                                   "all real x", "every real number"), "\\mathbb{R}"),
                  **dict.fromkeys(("no solution", "no solutions", "no real solution",
                                   "no real solutions", "there is no solution",
                                   "there are no solutions", "empty set", "the empty set"),
                                  "\\emptyset")}
_IN_WORDS = re.compile(r"(?:\\text\s*\{\s*)?([A-Za-z][A-Za-z \-]{1,40}?)\s*\}?\.?")
# Independent `\pm` signs in one item that are expanded (each doubles the item).
MAX_PLUS_MINUS = 3
# Wrappers (`$`, `\\boxed{}`, `{}`) stacked around a whole answer that are taken off.
MAX_WRAPPERS = 8
# Units dropped after a number even when short (longer words are dropped anyway, see below).
SHORT_UNITS = frozenset((
    "m", "s", "g", "h", "l", "cm", "mm", "km", "kg", "mg", "ml", "mL", "min", "hr", "hrs",
    "sec", "ft", "in", "yd", "mi", "lb", "lbs", "oz", "kn", "kmh", "mph", "kph", "m2", "cm2",
    "km2", "m3", "cm3", "rs", "usd", "eur", "yr", "yrs", "mo",
))
# Words after a number that are not units: they change the value or the expression.
NOT_UNITS = frozenset((
    "and", "or", "pi", "sin", "cos", "tan", "log", "ln", "exp", "sqrt", "times", "plus",
    "minus", "over", "squared", "cubed", "factorial", "hundred", "dozen", "half", "halves",
    "third", "thirds", "quarter", "quarters", "thousand", "million", "billion", "trillion",
))
_MULTIPLIER = re.compile(r"(?<=\d)\s*(?:\\text\s*\{\s*(?P<text>thousand|million|billion|trillion)"
                         r"\s*\}|(?P<word>thousand|million|billion|trillion)\b)", re.IGNORECASE)
_POWER_OF = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}

_UNICODE_TO_LATEX = str.maketrans({
    "\u2212": "-", "\u2013": "-", "\u00d7": "\\times ", "\u00b7": "\\cdot ", "\u22c5": "\\cdot ",
    "\u03c0": "\\pi ", "\u221a": "\\sqrt", "\u221e": "\\infty ", "\u2264": "\\le ",
    "\u2265": "\\ge ", "\u2260": "\\ne ", "\u2a7d": "\\le ", "\u2a7e": "\\ge ",
    "\u2248": "\\approx ", "\u00b1": "\\pm ", "\u2213": "\\mp ", "\u00b0": "^\\circ",
    "\u00b2": "^2", "\u00b3": "^3", "\u2009": "\\,", "\u202f": "\\,", "\u00a0": " ",
    "\u2208": "\\in ", "\u222a": "\\cup ", "\u2205": "\\emptyset ", "\u2032": "'",
    "\u2033": "''", "\u2261": "\\equiv ",
})
_EMPTY_SET = re.compile(r"\\varnothing(?![A-Za-z])")
_DOUBLED_BACKSLASH = re.compile(r"\\\\(?=[a-zA-Z])")
# Python's and JSON's one-letter escapes, where a LaTeX command lost its backslash to them: any
# letters after a bell, backspace, form feed or vertical tab; after a tab, carriage return or
# newline only the commands that start so (a real line break before a word stays one).
_ESCAPED_LETTER = {"\a": "a", "\b": "b", "\f": "f", "\v": "v", "\t": "t", "\r": "r",
                   "\n": "n"}
_CONTROL_ESCAPE = re.compile(
    r"([\a\b\f\v])(?=[a-zA-Z])|(\t)(?=(?:imes|heta|an|au|ext|frac|riangle|ilde|o)\b|ext|frac)|"
    r"(\r)(?=(?:ight|angle|ho|floor|ceil|m)\b|ight)|"
    r"(\n)(?=(?:eq|e|u|abla|ot|eg|i|mid|otin|geq|leq|exists)\b)")
_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_BOX_WRAPPER = re.compile(r"\\(?:boxed|fbox)\s*\{|\{")
_TRAILING_PUNCTUATION = " \t\n.,;:"

# Spacing, sizing and style commands that change nothing about the value.
_NOISE = re.compile(
    r"\\(?:left|right)\.|\\(?:left|right|middle|bigl|bigr|Bigl|Bigr|big|Big|bigg|Bigg)(?![A-Za-z])|"
    r"\\(?:displaystyle|textstyle|scriptstyle|limits|nolimits|mathstrut|strut|underline)"
    r"(?![A-Za-z])|\\(?:text)?color\s*\{[A-Za-z!\d]*\}|\\!")
# Matrix environments the parser does not know, as one it does (the same entries).
_MATRIX_SPELLING = re.compile(r"\\(begin|end)\s*\{(?:Bmatrix|smallmatrix)\}")
_FRACTION_STYLE = re.compile(r"\\[dtc]frac\b")
# Font and text wrappers: `\mathrm{e}` is Euler's number, `\operatorname{lcm}` a function,
# `\textbf{odd}` the text answer odd.
_FONT = re.compile(
    r"\\(?:mathrm|mathit|mathbf|mathsf|mathtt|mathnormal|textbf|textit|textrm|textnormal|"
    r"textup|textsf|texttt|mbox|hbox)\s*\{")
_LETTER_IN_TEXT = re.compile(r"\\text\s*\{\s*([A-Za-z])\s*\}")
_NUMBER_IN_TEXT = re.compile(r"\\text\s*\{\s*(-?\d[\d.,]*(?:\s+[A-Za-z]+)*)\s*\}")
_OPERATOR_NAME = re.compile(r"\\operatorname\s*\{\s*([A-Za-z]+)\s*\}")
_KNOWN_OPERATORS = frozenset((
    "sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh", "cosh",
    "tanh", "log", "ln", "exp", "lcm", "gcd", "max", "min", "det", "deg",
))

# Thousands: `11,\! 111`, `1{,}000`, `1\,000`, `1~000` (explicit LaTeX separators) anywhere;
# plain `1,000` and `1 000` only when the number is the whole answer.
_COMMA_THEN_NEGATIVE_SPACE = re.compile(r",\s*\\!\s*(?=\d{3}(?!\d))")
_BRACED_SEPARATOR = re.compile(r"(?:\\text\s*)?\{([,:])\}")  # `1{,}000`, `1\text{,}000`, `3{:}00`
_SPACE_SEPARATOR = re.compile(r"(?<=\d)(?:(?<!\\)\\[,;: ]|\\thinspace\s*|~)(?=\d{3}(?!\d))")
_MIXED_NUMBER = re.compile(r"^(-?\d+) (\d+)/(\d+)$")
_WHOLE_GROUPED = re.compile(r"-?[1-9]\d{0,2}(?:(?P<sep>[, ])\d{3})(?:(?P=sep)\d{3})*(?:\.\d+)?")
_SPACING = re.compile(r"(?<!\\)\\(?:q?quad|[,;: ]|thinspace|enspace|hspace\{[^{}]*\})|~")

_CURRENCY = re.compile(r"\\\$|\\(?:euro|pounds|yen)\b|[€£¥₹]|^\$(?=\s*[\d.])|"
                       r"(?<![A-Za-z])(?:USD|EUR|GBP|Rs\.?)(?![A-Za-z])")
_DEGREE_SIGN = (r"(?:\^\s*(?:\{\s*)?\\(?:circ|textcirc|textdegree)\s*\}?|"
                r"\\(?:circ|textcirc|textdegree|degree)\b)")
_DEGREES = re.compile(_DEGREE_SIGN + r"(?:\s*(?:\\text\s*\{\s*)?[CF](?![A-Za-z])\s*\}?)?|"
                      r"\^\s*\{\s*\\text\{\s*o\s*\}\s*\}")
_TRIGONOMETRY = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc)(?![A-Za-z])")
_DEGREE_NUMBER = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*" + _DEGREE_SIGN)
# An angle in degrees, minutes and seconds: `60^\circ 42'`, `12^{\circ} 30' 15''`, `60°42′`.
_MINUTE_SIGN = r"(?:'|\^\s*\{?\s*\\prime\s*\}?|\\prime\b)"
_SECOND_SIGN = r"(?:''|\"|\^\s*\{?\s*\\prime\s*\\prime\s*\}?|\\prime\s*\\prime\b|\\dprime\b)"
_NUMERAL = r"(\d+(?:\.\d+)?)\s*"
_DEGREES_MINUTES = re.compile(
    r"(?<![\d.])" + _NUMERAL + _DEGREE_SIGN
    + r"\s*(?:" + _NUMERAL + r"(?!" + _SECOND_SIGN + r")" + _MINUTE_SIGN + r")?"
    + r"\s*(?:" + _NUMERAL + _SECOND_SIGN + r")?")
# A subscript spelled with a command or a text wrapper: `m_{\max}`, `V_{\text{total}}`.
_SUBSCRIPT_WORD = re.compile(
    r"_\{\s*(?:\\(?:text|textrm|mathrm|operatorname|rm)\s*\{\s*([A-Za-z0-9 ]+?)\s*\}|"
    r"\\([A-Za-z]+))\s*\}")
# A label naming an extremum: `\max f(x) =`, `\max_{x \in [0, 1]} f(x) =`, `f(x)_{max} =` (after
# the subscript rewrite) are `f_{max} =`, the spelling `m_{\max} =` already has.
_EXTREMUM_LABEL = re.compile(
    r"(?:(?<=^)|(?<=,))\s*(?:\\(?P<operator>max|min)(?![A-Za-z])(?:\s*_\s*\{[^{}=]{0,40}\})?\s*"
    r"(?P<function>[A-Za-z])|(?P<name>[A-Za-z])\s*\([^()=]{0,20}\)\s*_\{(?P<subscript>max|min)\})"
    r"(?:\s*\([^()=]{0,20}\))?\s*(?==)")
# A set named by the sets it is made of (`A \cap B =`, `\complement_{\mathbb{R}} A =`): a label.
_COMPLEMENT = r"(?:\\complement\s*(?:_\s*(?:\{(?:[^{}=]|\{[^{}=]{0,10}\}){0,30}\}|\w))?\s*)?"
_SET_LABEL = re.compile(
    r"^\s*" + _COMPLEMENT + r"[A-Z](?:\s*(?:\\cap|\\cup|\\setminus|\\backslash)\s*" + _COMPLEMENT
    + r"[A-Z])*\s*=(?!=)\s*(?=\S)")
_SET_OPERATION = re.compile(r"\\(?:cap|cup|setminus|backslash|complement)(?![A-Za-z])")
# `A - B` and `A \backslash B` between sets: the difference `A \setminus B`.
_SET_DIFFERENCE = re.compile(r"(?<=[)\]}])\s*(?:-|\\backslash\b)\s*(?=\\\{)")
_PERCENT_WORD = re.compile(r"(?<!\s)\s*(?:\\text\{\s*)?(?:percentage|percent|pct)\b(?:\s*\})?")
_RELATION_SPELLING = re.compile(r"\\(?:geqslant|leqslant|gt|lt)(?![A-Za-z])")
_RELATION_SYMBOLS = {"\\geqslant": "\\ge ", "\\leqslant": "\\le ", "\\gt": ">", "\\lt": "<"}
# `f \\equiv 0` is `f = 0` (identically), unless it is a congruence (`x \\equiv 3 \\pmod 5`).
_IDENTICALLY = re.compile(r"\\equiv(?![A-Za-z])")
_MODULO = re.compile(r"\\(?:pmod|bmod|mod)(?![A-Za-z])|\\text\s*\{\s*mod|\(\s*mod\b")
_CONNECTOR = re.compile(
    r"(?<![\s,])\s*(?:,\s*)?(?:\\text\s*\{\s*(?:,\s*)?(?:and|or)\s*,?\s*\}|"
    r"(?<![A-Za-z\\])(?:and|or)(?![A-Za-z]))\s*",
    re.IGNORECASE)
_INEQUALITY = re.compile(r"[<>]|\\(?:le|ge|leq|geq|ne|neq)(?![A-Za-z])")
_PLUS_MINUS = re.compile(r"\\(?:pm|mp)(?![A-Za-z])")
# A condition stated with the answer, not part of it: `\forall x > 0, f(x) = 0`,
# `f(x) = x \text{ for all } x \in \mathbb{R}`.
_QUANTIFIER = re.compile(
    r"^\s*(?:\\forall|\\text\s*\{\s*for\s+(?:all|every|each)\s*\})[^,;=]{0,60}[,;:]\s*|"
    r"(?<![\s,])[\s,]*(?:\\forall|\\text\s*\{\s*(?:,\s*)?for\s+(?:all|every|each)\s*\})[^,;=]{0,60}$")
# `x = \frac{\pi}{4} + 2k\pi, k \in \mathbb{Z}`: the parameter's domain, not an answer.
_PARAMETER_DOMAIN = re.compile(
    r"\s*(?:[,;]|\\text\s*\{\s*,?\s*(?:for|where)\s*\})\s*(?:\\text\s*\{\s*(?:for|where)\s*\}\s*)?"
    r"[A-Za-z]\s*\\in\s*\\mathbb\s*\{?\s*[ZN]\s*\}?\s*$")
# `x \\in \\mathbb{R}, x \\ne 3`: the variable's domain stated before its conditions.
_VARIABLE_DOMAIN = re.compile(r"^[A-Za-z]\s*\\in\s*\\mathbb\s*\{?\s*R\s*\}?\s*[,;:]\s*(?=\S)")
# A remark in parentheses after the value: `7 \\text{ (approximately)}`, `7 (exact)`.
_REMARK = re.compile(
    r"(?<=\S)\s*(?:\\text\s*\{\s*\(\s*[A-Za-z]{2,}[A-Za-z .]{0,30}\)\s*\}|"
    r"\(\s*(?:approx(?:imately|\.)?|exact(?:ly)?|rounded|about|estimated)\s*\))$")
# A system of equations written as cases or an array under a brace: its equations, listed.
_SYSTEM = re.compile(
    r"(?:\\left\s*\\\{\s*)?\\begin\s*\{(cases|aligned|gathered|array)\}(?:\s*\{[^{}]*\})?"
    r"(?P<rows>.*?)\\end\s*\{\1\}(?:\s*\\right\s*\.)?", re.DOTALL)
_ELLIPSIS = re.compile(r"\\(?:ldots|dots|cdots|dotsc)(?![A-Za-z])|(?<![.\d])\.\.\.(?!\.)")
_ANGLE_BRACKET = re.compile(r"\\[lr]angle(?![A-Za-z])")
_APPROX = re.compile(r"\\approx|\\simeq")
_LABEL = re.compile(r"[A-Za-z](?:_\{?[\w]+\}?)?")
_SCIENTIFIC = re.compile(r"(?<![\w.\\])(\d+(?:\.\d+)?)\s*[eE]\s*([+-]?\d+)(?![\w.])")
_REPEATING_DECIMAL = re.compile(r"(?<![\d.])(\d*)\.(\d*)\\(?:overline|bar|dot)\s*\{(\d+)\}")
_JUXTAPOSED_GROUPS = re.compile(r"(?<=\d)\)\s*\((?=-?\d)")  # numbers only: `(A)(C)` are choices
_LEADING_DECIMAL_POINT = re.compile(r"(?<![\w.}])\.(?=\d)")

# Units after a value: `5\text{ cm}^2`, `125 miles`, `12 hours ago`, `100m^2`.
_TEXT_UNIT = re.compile(r"(?<=[\d}).\/])\s*\\text\s*\{\s*(?P<unit>[A-Za-z][A-Za-z ./\-]*"
                        r"(?:\^?\d)?)\}(?:\^\s*\{?\d\}?)?$")
_ENDS_IN_TEXT = re.compile(r"\\text\s*\{[^{}]*\}\s*$|^\s*$")
_HALF_OF_DAY = re.compile(r"[AaPp]\.?\s*[Mm]\.?")  # `\\text{ P.M.}` says which half, no unit
_WORD_UNITS = re.compile(r"(?<=[\d}).])\s+(?P<words>[A-Za-z]+(?:\s+[A-Za-z]+){0,3})"
                         r"\s*(?:\^\s*\{?\d\}?)?\s*$")
_ATTACHED_UNIT = re.compile(r"(?<=\d)(?P<unit>[A-Za-z]{2,3}|m(?=\s*\^))\s*(?:\^\s*\{?\d\}?)?\s*$")


@lru_cache(maxsize=NORMALIZE_CACHE_SIZE)
def normalize(text: str) -> str:
    """The answer in the spelling the literal comparisons and the parser expect."""
    # one space for every run of whitespace, first: no rewrite below then backtracks over a run
    # (a reference is read in the calling process, where no deadline holds)
    text = repair_escapes(latex_symbols(text)).strip()
    text = " ".join(_without_trailing_backslash(text).split())
    text = strip_wrappers(_ELLIPSIS.sub(r"\\variable{dots}", text))  # `1, 2, \ldots, n`
    text = plaintext.as_latex(text)
    text = _COMMA_THEN_NEGATIVE_SPACE.sub(",", text)
    text = _BRACED_SEPARATOR.sub(r"\1", text)
    text = _NOISE.sub("", _SYSTEM.sub(_system_as_list, text))
    text = _MATRIX_SPELLING.sub(r"\\\1{bmatrix}", text)
    text = _ANGLE_BRACKET.sub(lambda m: "(" if m[0].endswith("langle") else ")", text)
    text = _FRACTION_STYLE.sub(r"\\frac", text)
    text = _EMPTY_SET.sub(r"\\emptyset", text)
    text = _unwrap_fonts(text)
    text = _SUBSCRIPT_WORD.sub(lambda m: f"_{{{(m[1] or m[2]).replace(' ', '')}}}", text)
    text = _EXTREMUM_LABEL.sub(_extremum_label, text)
    text = _without_set_label(text)
    text = _SET_DIFFERENCE.sub(r" \\setminus ", setbuilder.canonical(text))
    text = _SPACE_SEPARATOR.sub("", text)
    text = _SPACING.sub(" ", text)
    text = _CURRENCY.sub("", text)
    text = _DEGREES_MINUTES.sub(_angle_in_degrees, text)
    if _TRIGONOMETRY.search(text):  # `\\sin 15^\\circ`: inside trigonometry a degree is pi/180
        text = _DEGREE_NUMBER.sub(r"(\\frac{\1\\pi}{180})", text)
    text = _DEGREES.sub("", text)
    text = _PERCENT_WORD.sub(r"\\%", text)
    text = _RELATION_SPELLING.sub(lambda m: _RELATION_SYMBOLS[m[0]], text)
    if _MODULO.search(text) is None:
        text = _IDENTICALLY.sub("=", text)
    text = _REPEATING_DECIMAL.sub(_repeating_as_fraction, text)
    text = _LEADING_DECIMAL_POINT.sub("0.", text)
    text = _JUXTAPOSED_GROUPS.sub(r")\\cdot(", text)  # `(3)(4)` is 12 (the parser adds them)
    text = _SCIENTIFIC.sub(r"\1\\times 10^{\2}", text)
    text = _MULTIPLIER.sub(  # `3 million` is 3 \times 10^{6}, not 3 of some unit
        lambda m: f" \\times 10^{{{_POWER_OF[(m['text'] or m['word']).lower()]}}}", text)
    text = _drop_units(_REMARK.sub("", text.strip(_TRAILING_PUNCTUATION)))
    text = _LETTER_IN_TEXT.sub(r"\1", text)  # `\mathrm{e}` after units: `5\,\mathrm{m}`
    text = _PARAMETER_DOMAIN.sub("", _QUANTIFIER.sub("", _VARIABLE_DOMAIN.sub("", text)))
    text = _joined_by_connectors(text).strip(" ,")
    text = _resolve_approximation(text)
    text = _expand_plus_minus(text)
    text = " ".join(text.split()).strip(_TRAILING_PUNCTUATION)
    text = _whole_answer_in_words(text)
    grouped = _WHOLE_GROUPED.fullmatch(text)
    if grouped is not None:  # `1,000,000` or `1 000`: the whole answer is one number
        text = text.replace(grouped["sep"], "")
    return _MIXED_NUMBER.sub(r"\1\\frac{\2}{\3}", text)  # `2 1/2` as a whole answer


def _without_trailing_backslash(text: str) -> str:
    """`185\\` -> `185`: a backslash ending the answer escapes nothing (it was cut from a table
    row or a line break)."""
    if text.endswith("\\") and not text.endswith("\\\\"):
        return text[:-1].rstrip()
    return text


def latex_symbols(text: str) -> str:
    """Unicode math symbols as LaTeX: `−7` -> `-7`, `√2` -> `\\sqrt2`, `π` -> `\\pi`."""
    return text.translate(_UNICODE_TO_LATEX)


def readings(text: str) -> list[str]:
    """The ways a normalised answer may be read: a lone `2,74` is 2.74 or the list 2, 74."""
    if re.fullmatch(r"-?\d+,\d+", text):
        return [text.replace(",", "."), text]
    return [text]


def repair_escapes(text: str) -> str:
    """What a dataset's JSON or Python source did to backslashes, undone: lost escapes
    (`restore_lost_escapes`), and doubled ones: `\\\\le` -> `\\le`, kept in matrices where
    `\\\\` breaks a row."""
    text = restore_lost_escapes(text)
    return text if "\\begin" in text else _DOUBLED_BACKSLASH.sub(r"\\", text)


def restore_lost_escapes(text: str) -> str:
    """A command whose backslash and first letter became a control character, restored:
    `"\\frac"` written in Python as `"\frac"` is a form feed and `rac`; `\\times`, `\\boxed`,
    `\\right`, `\\neq`, `\\vec`, `\\alpha` likewise."""
    if _CONTROL_ESCAPE.search(text) is None:
        return text
    return _CONTROL_ESCAPE.sub(lambda m: "\\" + _ESCAPED_LETTER[m[m.lastindex]], text)


def strip_wrappers(text: str) -> str:
    """Drop math delimiters, a box and a brace group (`{1,2,3}`, which LaTeX prints as
    `1,2,3`) around the whole answer, up to MAX_WRAPPERS deep (each layer costs a scan)."""
    for _ in range(MAX_WRAPPERS):
        stripped = text.strip().rstrip(".")
        for opening, closing in _WRAPPERS:
            if (stripped.startswith(opening) and stripped.endswith(closing)
                    and len(stripped) >= len(opening) + len(closing)):
                stripped = stripped[len(opening):len(stripped) - len(closing)]
                break
        box = _BOX_WRAPPER.match(stripped)
        if box is not None and stripped.endswith("}") and _closes_at_end(stripped, box.end()):
            stripped = stripped[box.end():-1]
        if stripped == text:
            return text
        text = stripped
    return text


def _closes_at_end(text: str, opened: int) -> bool:
    """Whether the brace opened just before `opened` closes at the very end of `text`."""
    depth = 1
    index = opened
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        depth += (char == "{") - (char == "}")
        if depth == 0:
            return index == len(text) - 1
        index += 1
    return False


def _system_as_list(match: re.Match[str]) -> str:
    """`\\begin{cases} x = 1 \\\\ y = 2 \\end{cases}` -> `x = 1, y = 2`; a piecewise
    definition (a `&` left once alignment `&=` is dropped) or an array not under a brace (a
    matrix) stays as written."""
    if match[1] == "array" and not match[0].startswith("\\left"):
        return match[0]
    rows = match["rows"].replace("&=", "=").replace("&\\le", "\\le").replace("&\\ge", "\\ge")
    if "&" in rows:
        return match[0]
    return ", ".join(row.strip() for row in rows.split("\\\\") if row.strip())


def _joined_by_connectors(text: str) -> str:
    """"and" and "or" between answers list them (`2 and 3` -> `2, 3`); "and" between two
    inequalities joins conditions that all hold (`x \\ge 2 \\text{ and } x < 5` -> `x \\ge 2
    \\land x < 5`), which the parser reads as one relation."""
    pieces, position, connectors = [], 0, []
    for match in _CONNECTOR.finditer(text):
        pieces.append(text[position:match.start()])
        connectors.append("and" in match.group().lower())
        position = match.end()
    pieces.append(text[position:])
    out = [pieces[0]]
    for is_and, left, right in zip(connectors, pieces[:-1], pieces[1:], strict=True):
        both_inequalities = (_INEQUALITY.search(left.rpartition(",")[2])
                             and _INEQUALITY.search(right.partition(",")[0]))
        out.append(" \\land " if is_and and both_inequalities else ", ")
        out.append(right)
    return "".join(out)


def _whole_answer_in_words(text: str) -> str:
    """An answer that is a number or a set in words, as math: `six` and `\\text{twenty-one}` are
    6 and 21, "all real numbers" is `\\mathbb{R}`, "no solution" the empty set."""
    words = _IN_WORDS.fullmatch(text)
    if words is None:
        return text
    said = " ".join(words[1].lower().replace("-", " ").split())
    if said in _SETS_IN_WORDS:
        return _SETS_IN_WORDS[said]
    parts = said.split()
    if len(parts) == 1 and parts[0] in _NUMBER_WORDS:
        return str(_NUMBER_WORDS[parts[0]])
    if len(parts) == 2 and parts[0] in _TENS and parts[1] in _NUMBER_WORDS \
            and _NUMBER_WORDS[parts[1]] < 10:
        return str(_TENS[parts[0]] + _NUMBER_WORDS[parts[1]])
    return text


def _without_set_label(text: str) -> str:
    """`A \\cap B = \\{x \\mid 1 < x < 2\\}` -> the set: a name built of other sets' names
    (a union, intersection, difference or complement) labels the one set stated."""
    label = _SET_LABEL.match(text)
    if label is None or _SET_OPERATION.search(label[0]) is None:
        return text
    return text[label.end():]


def _extremum_label(match: re.Match[str]) -> str:
    """`\\max f(x) =` -> `f_{max} =`."""
    name = match["function"] or match["name"]
    return f"{name}_{{{match['operator'] or match['subscript']}}} "


def _angle_in_degrees(match: re.Match[str]) -> str:
    """`60^\\circ 42'` -> `\\frac{607}{10}`: minutes and seconds as fractions of a degree (a
    lone `60^\\circ` is left to the degree sign's own rewrite)."""
    if match[2] is None and match[3] is None:
        return match[0]
    value = sum((Fraction(part) / scale for part, scale in zip(match.groups(), (1, 60, 3600),
                                                               strict=True) if part),
                Fraction(0))
    if value.denominator == 1:
        return str(value.numerator)
    return f"\\frac{{{value.numerator}}}{{{value.denominator}}}"


def _repeating_as_fraction(match: re.Match[str]) -> str:
    """`0.1\\overline{6}` -> `\\frac{1}{6}`: a repeating decimal is an exact fraction."""
    whole, fixed, repeating = match[1] or "0", match[2], match[3]
    value = (Fraction(int(whole)) + Fraction(int(fixed or "0"), 10 ** len(fixed))
             + Fraction(int(repeating), (10 ** len(repeating) - 1) * 10 ** len(fixed)))
    return f"\\frac{{{value.numerator}}}{{{value.denominator}}}"


def _unwrap_fonts(text: str) -> str:
    """Font commands become `\\text{…}` (a lone letter in one is unwrapped after units are
    dropped: `\\mathrm{e}` is Euler's number); `\\text{5 apples}` is `5 apples`."""
    text = _FONT.sub(r"\\text{", text)
    text = _NUMBER_IN_TEXT.sub(r"\1", text)  # `\text{5 apples}`
    return _OPERATOR_NAME.sub(
        lambda m: f"\\{m[1]}" if m[1] in _KNOWN_OPERATORS else f"\\text{{{m[1]}}}", text)


def _drop_units(text: str) -> str:
    """Drop a unit written after a value (`5\\text{ cm}^2`, `125 miles`, `100m^2`)."""
    for _ in range(3):  # `3 \text{ m} \text{ per second}`, `5 \text{ m} / \text{s}`
        match = _TEXT_UNIT.search(text)
        if match is None or not _is_text_unit(match["unit"]) or not _after_a_value(
                text[:match.start()]):
            break
        text = _without_trailing_joiners(text[:match.start()])
    match = _WORD_UNITS.search(text)
    if match is not None:
        words = match["words"].split()
        if all(_is_unit_word(word) for word in words):
            text = text[:match.start()].rstrip()
    match = _ATTACHED_UNIT.search(text)
    if match is not None and match["unit"] in SHORT_UNITS:
        text = text[:match.start()].rstrip()
    return text


def _after_a_value(text: str) -> bool:
    """Whether text ending where a unit starts ends in a value, or in units after one: not
    words alone (`\\text{Yes}\\text{No}` is two words, not Yes in units of No)."""
    for _ in range(3):
        match = _TEXT_UNIT.search(text)
        if match is None:
            break
        text = _without_trailing_joiners(text[:match.start()])
    return not _ENDS_IN_TEXT.search(text)


def _is_unit_word(word: str) -> bool:
    lowered = word.lower()
    if lowered in NOT_UNITS:
        return False
    return word in SHORT_UNITS or lowered in SHORT_UNITS or len(word) >= 3


def _without_trailing_joiners(text: str) -> str:
    """`5 \\text{ m} / ` -> `5 \\text{ m}`: what joined the unit just dropped to another."""
    while True:
        stripped = text.rstrip().removesuffix("/").removesuffix("\\cdot")
        if stripped == text:
            return text
        text = stripped
    return text


def _is_text_unit(unit: str) -> bool:
    """`\\text{ cm}`, `\\text{ miles}`; not `\\text{ and }` or a letter like `\\mathrm{i}`."""
    unit = unit.strip()
    if unit.lower() in ("and", "or") or _HALF_OF_DAY.fullmatch(unit):
        return False
    return len(unit) > 1 or unit in SHORT_UNITS


def approximation(text: str) -> tuple[str, str] | None:
    """`x = \\frac{1}{3} \\approx 0.333` -> (`\\frac{1}{3}`, `0.333`): an exact value and the
    rounded one stated with it, each normalised; None unless the answer states both."""
    parts = _APPROX.split(latex_symbols(text))
    if len(parts) != 2:
        return None
    exact = parts[0].rpartition("=")[2].strip()
    if not exact or _LABEL.fullmatch(exact):
        return None
    return normalize(exact), normalize(parts[1])


def _resolve_approximation(text: str) -> str:
    """`x = \\frac{1}{3} \\approx 0.33` is 1/3; `x \\approx 11` is `x = 11`."""
    if _APPROX.search(text) is None:
        return text
    parts = _APPROX.split(text)
    exact = parts[0].strip()
    if "=" in exact:
        return exact
    if _LABEL.fullmatch(exact):
        return f"{exact} = {parts[-1].strip()}"
    return exact


def _expand_plus_minus(text: str) -> str:
    """`x = 1 \\pm \\sqrt{2}` is the two answers `x = 1 + \\sqrt{2}, x = 1 - \\sqrt{2}`, and
    `\\{1 \\pm \\sqrt{5}, -2\\}` the set of three: wherever a list or a set holds a value."""
    if "\\pm" not in text and "\\mp" not in text:
        return text
    pieces, position = [], 0
    for start, end in _set_literals(text):
        pieces.append(text[position:start])
        pieces.append("\\{" + _plus_minus_items(text[start + 2:end - 2]) + "\\}")
        position = end
    pieces.append(text[position:])
    return _plus_minus_items("".join(pieces))


def _set_literals(text: str) -> list[tuple[int, int]]:
    """The outermost `\\{…\\}` groups that list values (not set-builder notation)."""
    found, depth, start = [], 0, 0
    for brace in re.finditer(r"\\[{}]", text):
        if brace.group() == "\\{":
            depth += 1
            start = brace.start() if depth == 1 else start
        elif depth:
            depth -= 1
            if depth == 0 and "\\mid" not in text[start:brace.end()]:
                found.append((start, brace.end()))
    return found


def _plus_minus_items(text: str) -> str:
    """Each item of a list with `\\pm` (or `\\mp`) in it, as the items it stands for: one
    sign for an item whose `\\pm` and `\\mp` go together, every choice (up to
    MAX_PLUS_MINUS signs) for independent `\\pm`s (`\\pm\\sqrt{2 \\pm \\sqrt{2}}`)."""
    items = []
    for item in split_top_level(text):
        signs = _PLUS_MINUS.findall(item)
        if not signs or len(signs) > MAX_PLUS_MINUS:
            items.append(item)
            continue
        if "\\mp" in signs or len(signs) == 1:
            items.extend(_signed(item, [sign == "\\pm" for sign in signs]))
            items.extend(_signed(item, [sign != "\\pm" for sign in signs]))
            continue
        for choice in range(2 ** len(signs)):
            items.extend(_signed(item, [not choice >> bit & 1 for bit in range(len(signs))]))
    return ", ".join(dict.fromkeys(items))


def _signed(item: str, plus: list[bool]) -> list[str]:
    """The item with its signs, in order, replaced by + (True) or - (False)."""
    chosen = iter(plus)
    return [_PLUS_MINUS.sub(lambda _: "+" if next(chosen) else "-", item)]
