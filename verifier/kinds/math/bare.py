"""Answers written without any delimiter: a completion that is nothing but its answer
(`x/(x+1)`, `\\frac{x}{7}+\\frac{2}{7}`, `(1, 2)`, `odd`, `C. x = 42`, as graders' tests and
terse policies write them), and the plain formula a sentence ends with (`So f(x) = x/(x+1).`,
`The sum equals pi^2/6.`), of which the last number alone would be a fragment.

Pure string work in linear time: one scan of the text's whitespace-separated pieces.
"""

from __future__ import annotations

import re

# A whole completion longer than this is not a bare answer (the grader refuses longer answers).
MAX_BARE_CHARS = 1_000
# A completion of at most this many words, none a number, is a short text answer (`no solution`).
MAX_TEXT_WORDS = 3

# Words that are math, not prose, when they stand alone in a formula.
_MATH_WORDS = frozenset((
    "sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh", "cosh",
    "tanh", "log", "ln", "exp", "sqrt", "cbrt", "pi", "inf", "infty", "lim", "max", "min", "gcd",
    "lcm", "mod", "det",
))
# Environment names, and text groups of one or two words (a unit, `\\text{odd}`): not prose.
_TEXT_GROUP = re.compile(r"\\(?:begin|end)\s*\{[^{}]*\}|"
                         r"\\(?:text|mathrm|textbf|mbox|operatorname)\s*\{\s*[^{}\s]*(?:\s+[^{}\s]+)?\s*\}")
# Math delimiters (the math environment step reads those), tags, Markdown bold, and symbols
# outside ASCII (math symbols were rewritten as LaTeX already: what is left is prose, `∴`).
_NOT_BARE = re.compile(r"\$|\\\(|\\\[|<\s*/?\s*[A-Za-z|]|\*\*|[^\x00-\x7f]")
_PIECE = re.compile(r"\S+")
# A run of two or more letters not part of a LaTeX command: a word, unless a math word.
_LETTER_RUN = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
_OPERATOR_PIECE = re.compile(
    r"(?:[-+*/^=<>]|\\(?:times|cdot|div|pm|mp|le|ge|leq|geq|ne|neq|lt|gt|approx|equiv))+")
# A piece that continues the formula before it: an operator, or the modulus of a congruence.
_OPENS_WITH_OPERATOR = re.compile(
    r"[-+*/^=<>]|\\(?:times|cdot|div|pm|mp|pmod|bmod|mod)(?![A-Za-z])|\(mod\b")
_ENDS_WITH_OPERATOR = re.compile(r"(?:[-+*/^=<>]|\\(?:times|cdot|div|pm|mp|pmod|bmod|mod)|\(mod)$")
_SENTENCE_PUNCTUATION = ".,;:!?"
_LEAD_IN = re.compile(r"^(?:(?:so|thus|hence|therefore)\b[,:]?|[=:>\-]*[=>:](?=\s))\s*",
                      re.IGNORECASE)
_WORD = re.compile(r"[(\"']*([A-Za-z]{2,}(?:['\-][A-Za-z]+)*)[)\"'.,;:!?]*")
# What a plain formula is written with (a piece with `$`, `%` or `:` is something else).
_FORMULA_CHARACTERS = re.compile(r"[A-Za-z0-9\\{}()\[\]|+\-*/^=<>!_'.,;?]+")
# A formula that is only a (labelled) number adds nothing to the number itself.
_LABELLED_NUMBER = re.compile(r"(?:[A-Za-z](?:_\{?\w+\}?)?\s*=\s*)?-?[\d.,]+")


def whole_answer(text: str) -> str | None:
    """The completion itself when it is only an answer: a formula without prose (in LaTeX or
    plain text, one line unless it holds an environment), or a few words without a number."""
    answer = _LEAD_IN.sub("", text.strip())  # "Hence C.", "=> 12"
    if not answer or len(answer) > MAX_BARE_CHARS or _NOT_BARE.search(answer):
        return None
    if "\n" in answer and "\\begin" not in answer:
        return None
    without_text = _TEXT_GROUP.sub(" ", answer)
    if not any(_is_word(piece) for piece in without_text.split()):
        return answer.rstrip(_SENTENCE_PUNCTUATION + " ") or None
    words = without_text.split()
    if len(words) <= MAX_TEXT_WORDS and not any(char.isdigit() for char in answer):
        return answer.rstrip(".!") or None
    return None


def formula_around(text: str, start: int, end: int) -> str | None:
    """The plain formula that the number at `start:end` stands in (`x/(x+1)` around its last
    1, `\\pi ^2/6` around 6): the pieces of the sentence joined to it by operators. None when
    the formula is the number itself, or a label and the number (`x = 5`)."""
    pieces = [(piece.start(), piece.end()) for piece in _PIECE.finditer(text)]
    at = next((i for i, (left, right) in enumerate(pieces) if left <= start < right), None)
    if at is None or not _is_formula(text[pieces[at][0]:pieces[at][1]]):
        return None
    first = last = at
    while first > 0 and _joined(text, pieces[first - 1], pieces[first]):
        first -= 1
    while last + 1 < len(pieces) and _joined(text, pieces[last], pieces[last + 1]):
        last += 1
    if first > 0 and _is_formula(text[pieces[first - 1][0]:pieces[first - 1][1]]):
        return None  # `4 x 5 = 20`: what comes before is math too, read another way
    while first < at and _OPERATOR_PIECE.fullmatch(text[pieces[first][0]:pieces[first][1]]):
        first += 1  # "Result - 5": a dash in prose is no sign
    while last > at and _OPERATOR_PIECE.fullmatch(text[pieces[last][0]:pieces[last][1]]):
        last -= 1  # "so it's 12 - done"
    formula = text[pieces[first][0]:pieces[last][1]].rstrip(_SENTENCE_PUNCTUATION)
    if _LABELLED_NUMBER.fullmatch(formula) or not _balanced(formula):
        return None
    return formula


def _is_prose(piece: str) -> bool:
    """A piece holding a word (`apples`, `5-digit`, `3rd`), not math."""
    return any(run.group().lower() not in _MATH_WORDS for run in _LETTER_RUN.finditer(piece))


def _is_word(piece: str) -> bool:
    """A piece that is a word of prose (`The`, `is`, `apples.`), not a name in a formula (`RC`
    in `e^{-t/RC}` is one piece with the rest)."""
    word = _WORD.fullmatch(piece)
    return word is not None and word[1].lower() not in _MATH_WORDS


def _is_formula(piece: str) -> bool:
    """A piece made of formula characters only, and no word (`**` left in a text is Markdown's
    bold: a power was rewritten as `^`)."""
    return (_FORMULA_CHARACTERS.fullmatch(piece) is not None and "**" not in piece
            and not _is_prose(piece))


def _joined(text: str, left: tuple[int, int], right: tuple[int, int]) -> bool:
    """Whether two neighbouring pieces are one formula: neither is prose, and an operator
    stands between them (`x +`, `= 5`, `\\pi ^2/6`)."""
    left_text, right_text = text[left[0]:left[1]], text[right[0]:right[1]]
    if not (_is_formula(left_text) and _is_formula(right_text)):
        return False
    if left_text[-1] in _SENTENCE_PUNCTUATION:
        return False  # "5, then 7": the sentence or clause ended
    return bool(_OPERATOR_PIECE.fullmatch(left_text) or _OPERATOR_PIECE.fullmatch(right_text)
                or _ENDS_WITH_OPERATOR.search(left_text)
                or _OPENS_WITH_OPERATOR.match(right_text))


def _balanced(formula: str) -> bool:
    depth = 0
    for char in formula:
        depth += (char in "([{") - (char in ")]}")
        if depth < 0:
            return False
    return depth == 0
