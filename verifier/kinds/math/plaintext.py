"""Math written as plain text, where no LaTeX is present: `pi/2`, `-2*pi`, `sqrt(2)`, `2^10`,
`x**2`, `(1+sqrt(5))/2`, `log(3)`, `inf`, read as the LaTeX they stand for (`\\frac{\\pi}{2}`…).

Policies not trained on LaTeX, calculators and code write answers this way; math-verify's
plain-expression route reads them with sympy's `parse_expr`, which runs `eval`. Here the text is
only rewritten into LaTeX for the one parser: pure string work in linear time, applied to a
text with no backslash at all (one with LaTeX means what LaTeX says: `2^10` in LaTeX is 2¹·0).
"""

from __future__ import annotations

import re

# Bracket groups deeper than this are left as written (no rewrite of what is inside).
MAX_DEPTH = 64

_FUNCTIONS = ("sqrt", "cbrt", "exp", "abs", "log", "ln", "sin", "cos", "tan", "cot", "sec",
              "csc", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh")
_WORD = re.compile(
    r"(?<![A-Za-z\\])(?:(?P<function>" + "|".join(sorted(_FUNCTIONS, key=len, reverse=True))
    + r")\s*(?=\()|(?P<constant>pi|infinity|inf|oo)(?![A-Za-z]))")
_ROOT_OF_NUMBER = re.compile(r"(?<![A-Za-z\\])sqrt\s*(\d+(?:\.\d+)?)")
# An exponent of more than one character (`2^10`, `x^-1`); `x^2` means the same in LaTeX.
_POWER_OF_NUMBER = re.compile(r"\^\s*(-\d+(?:\.\d+)?|\d{2,}(?:\.\d+)?|\d\.\d+)")
_GROUP_TOKEN = re.compile(
    r"\\(?P<function>sqrt|cbrt|exp|abs)\s*\(|(?P<power>\^\s*\()|\(|(?P<close>\))")
_GROUPS = {"sqrt": ("\\sqrt{", "}"), "cbrt": ("\\sqrt[3]{", "}"), "exp": ("e^{", "}"),
           "abs": ("|", "|"), "^": ("^{", "}"), "(": ("(", ")")}
# `x**2`, `(1+x)**-1`: a power between operands (a bold `**73**` in Markdown is none).
_PYTHON_POWER = re.compile(r"(?<=[\w)\]}])\*\*[ \t]*(?=[\w(\-])")
_CONSTANTS = {"pi": "\\pi ", "infinity": "\\infty ", "inf": "\\infty ", "oo": "\\infty "}


def has_latex(text: str) -> bool:
    return "\\" in text


def as_latex(text: str) -> str:
    """The LaTeX a plain-text answer stands for; a text with a backslash is returned as it is."""
    if has_latex(text):
        return text
    text = _PYTHON_POWER.sub("^", text)
    text = _ROOT_OF_NUMBER.sub(r"\\sqrt{\1}", text)
    text = _WORD.sub(_word, text)
    text = _rewrite_groups(text)
    return _POWER_OF_NUMBER.sub(r"^{\1}", text)


def _word(match: re.Match[str]) -> str:
    if match["constant"]:
        return _CONSTANTS[match["constant"]]
    return f"\\{match['function']}"


def _rewrite_groups(text: str) -> str:
    """`\\sqrt(…)` -> `\\sqrt{…}`, `\\cbrt(…)` -> `\\sqrt[3]{…}`, `\\exp(…)` -> `e^{…}`,
    `\\abs(…)` -> `|…|`, `^(…)` -> `^{…}`: each opening parenthesis matched to its closing one
    in one pass (a stack of what each open group closes with)."""
    out: list[str] = []
    closers: list[str] = []
    position = 0
    for token in _GROUP_TOKEN.finditer(text):
        out.append(text[position:token.start()])
        position = token.end()
        if token["close"]:
            out.append(closers.pop() if closers else ")")
            continue
        opener, closer = _GROUPS[token["function"] or ("^" if token["power"] else "(")]
        if len(closers) >= MAX_DEPTH:
            opener, closer = token.group(), ")"
        out.append(opener)
        closers.append(closer)
    out.append(text[position:])
    return "".join(out)
