"""Answers compared as written, before any parsing.

Some answers are settled by their writing alone: the same text (`12:00` and `12:00`, an
unparseable reference reproduced exactly), text answers (`\\text{odd}` and `odd`, which as math
would be the product o·d·d), choice letters (`\\text{(B)}` and `B`), times of day (`3:00 PM`
and `15:00`) and numerals in another base (`1011_2` is not `1011_3`).
"""

from __future__ import annotations

import re
from fractions import Fraction

_TEXT_WRAPPER = re.compile(r"\\(?:text|mathrm|textbf|mbox|operatorname)\s*\{([^{}]*)\}")
_SPACE = re.compile(r"\s+|\\ |~|\$")
_CHOICE = re.compile(r"\(?\s*([A-J])\s*\)?")
_CHOSEN = re.compile(r"(?:(?i:option|choice)\s*)?[(\[]?\s*([A-Ja-j])\s*[)\]]?(?=[\s:.]|$)")
# Another option named after the chosen one: `(D)`, `D)`, or a lone letter (`B, D`, `B \\lor D`);
# not an article starting the option's text (`E: A polygenic score`).
_OTHER_CHOICE = re.compile(
    r"(?<![A-Za-z\\])(?:[(\[]\s*[A-J]\s*[)\]]|[A-J]\)|[A-J](?![A-Za-z])(?!\s+[a-z]))")
_CONCATENATED_CHOICES = re.compile(r"[A-H]{2,8}")
_LISTED_CHOICES = re.compile(
    r"\(?[A-H]\)?(?:(?:\s*(?:,|;|&|\\&|\band\b)\s*|\s*)\(?[A-H]\)?){1,7}")
_CHOICE_IN_LIST = re.compile(r"[A-H]")
_CHOICE_WITH_VALUE = re.compile(r"\(\s*([A-J])\s*\)\s*[:.]?\s*(\S.*)|([A-J])\s*[:.)]\s*(\S.*)")
_TIME = re.compile(r"(\d{1,2}):([0-5]\d)(?::([0-5]\d))?\s*(?:(a|p)\.?\s*m\.?)?", re.IGNORECASE)
_WORDS = re.compile(r"[A-Za-z][A-Za-z'\-]*(?:[\s,]+[A-Za-z][A-Za-z'\-]*)*")
_MATH_WORDS = frozenset((
    "pi", "e", "i", "inf", "infty", "sin", "cos", "tan", "log", "ln", "exp", "sqrt",
))
_CONGRUENCE = re.compile(
    r"(?:[A-Za-z](?:_\{?\w+\}?)?\s*\\equiv\s*)?(?P<residue>-?\d{1,30})\s*(?:"
    r"\\pmod\s*\{?\s*(?P<modulus>\d{1,30})\s*\}?|"
    r"\(\s*(?:\\(?:text|mathrm|operatorname)\s*\{\s*mod\s*\}|\\bmod|\\mod|mod)\s*(?P<in_parens>\d{1,30})\s*\)|"
    r"\\(?:bmod|mod)\s*\{?\s*(?P<operator>\d{1,30})\s*\}?)")
# A residue written with its modulus and no name: `4 \\pmod 7`, `4 (mod 7)`.
_LEAST_RESIDUE = re.compile(r"(\d{1,30})\s*(?:\\pmod|\\bmod|\\mod|\(\s*(?:\\[a-z]+\s*\{\s*)?mod).*")
_RATIO = re.compile(r"\s*\d+(?:\.\d+)?(?:\s*:\s*\d+(?:\.\d+)?){2,}\s*")
_BASE_NUMERAL = re.compile(
    r"\(?([0-9A-Za-z]+)\)?\s*_\s*(?:\{\s*(?:\\text\{\s*)?(\d{1,2})\s*\}?\s*\}?|(\d))")
_PLAIN_NUMERAL = re.compile(r"[0-9A-Za-z]+")


def compare_literally(gold: str, pred: str) -> bool | None:
    """True or False when the writing settles it; None when the values must be compared."""
    if canonical(gold) == canonical(pred):
        return True
    choices = choice_letters(gold)
    if choices is not None:  # several options, all to be chosen: `AC`, `A, C`, `(A)(C)`
        return choice_letters(pred) == choices
    choice = choice_letter(gold)
    if choice is not None:
        written = _unwrap(pred).strip()
        chosen = _CHOSEN.match(written)
        if chosen is None or _OTHER_CHOICE.search(written, chosen.end()):
            return False  # no letter, or another one after it: "(B) (D)", "B \lor D"
        return chosen[1].upper() == choice
    gold_time, pred_time = time_of_day(gold), time_of_day(pred)
    if gold_time is not None and pred_time is not None and _same_time(gold_time, pred_time):
        return True
    gold_class, pred_class = congruence(gold), congruence(pred)
    if gold_class is not None:  # `x \\equiv 3 \\pmod{5}` is `x \\equiv 8 \\pmod 5`, no number
        return pred_class is not None and pred_class == gold_class
    residue = _LEAST_RESIDUE.fullmatch(pred.strip()) if pred_class is not None else None
    if residue is not None:  # "the remainder is 4 (mod 7)" states 4
        return gold.strip() == residue[1] and int(residue[1]) == pred_class[0]
    gold_ratio = ratio_parts(gold)
    if gold_ratio is not None:  # `1:2:3` is `2:4:6`, and no single number
        pred_ratio = ratio_parts(pred)
        return pred_ratio is not None and _proportional(gold_ratio, pred_ratio)
    gold_numeral, pred_numeral = base_numeral(gold), base_numeral(pred)
    if gold_numeral or pred_numeral:
        return _same_numeral(gold_numeral or plain_numeral(gold),
                             pred_numeral or plain_numeral(pred))
    if is_text_answer(gold):
        return False
    return None


def canonical(text: str, lower: bool = True) -> str:
    """The text without text wrappers, spacing and case: `\\text{ Odd }.` -> `odd`."""
    text = _SPACE.sub("", _unwrap(text)).rstrip(".")
    return text.lower() if lower else text


def _unwrap(text: str) -> str:
    for _ in range(3):
        text = _TEXT_WRAPPER.sub(r"\1", text)
    return text


def is_text_answer(text: str) -> bool:
    """A reference that is words, not math: `\\text{odd}`, `Monday`, `\\text{The midpoints form
    a regular hexagon}` (as math, `odd` would be the product o·d·d, equal to `dod`)."""
    stripped = text.strip()
    if _TEXT_WRAPPER.fullmatch(stripped):
        words = _TEXT_WRAPPER.fullmatch(stripped)[1].strip()
        return bool(_WORDS.fullmatch(words)) and words.lower() not in _MATH_WORDS
    if not _WORDS.fullmatch(stripped) or stripped.lower() in _MATH_WORDS:
        return False
    words = stripped.replace(",", " ").split()
    return len(words) > 1 or len(words[0]) >= 3


def choice_letter(text: str) -> str | None:
    """`(B)`, `\\text{(B)}`, `B` as a reference: the letter of a multiple-choice answer."""
    match = _CHOICE.fullmatch(canonical(text, lower=False))
    return match[1] if match is not None else None


def choice_letters(text: str) -> frozenset[str] | None:
    """`AC`, `A, C`, `A and C`, `(A)(C)`, `\\text{(A), (C)}`: the two or more options of a
    multiple-answer choice; None for anything else (one letter is `choice_letter`'s)."""
    written = _unwrap(text).strip()
    if _CONCATENATED_CHOICES.fullmatch(written):
        letters = list(written)
    elif _LISTED_CHOICES.fullmatch(written):
        letters = _CHOICE_IN_LIST.findall(written)
    else:
        return None
    chosen = frozenset(letters)
    return chosen if len(chosen) == len(letters) > 1 else None


def choice_with_value(text: str) -> tuple[str, str] | None:
    """`(C) 15`, `\\textbf{(C) }15`, `C: 15` as a reference: ("(C)", "15"), the option and its
    value; None for anything else."""
    match = _CHOICE_WITH_VALUE.fullmatch(_unwrap(text).strip())
    if match is None:
        return None
    return f"({match[1] or match[3]})", (match[2] or match[4]).strip()


def time_of_day(text: str) -> tuple[int, int, int, str | None] | None:
    match = _TIME.fullmatch(canonical(text, lower=False))
    if match is None or int(match[1]) > 24:
        return None
    half = match[4].lower() if match[4] else None
    return int(match[1]), int(match[2]), int(match[3] or 0), half


def _same_time(gold: tuple[int, int, int, str | None],
               pred: tuple[int, int, int, str | None]) -> bool:
    """`3:00 PM` is `15:00`; a time without AM/PM matches either half of the day."""
    if gold[1:3] != pred[1:3]:
        return False
    if (gold[3] is None and not _on_a_24_hour_clock(gold)) or (
            pred[3] is None and not _on_a_24_hour_clock(pred)):
        return gold[0] % 12 == pred[0] % 12
    return _hour_of_day(gold) == _hour_of_day(pred)


def _on_a_24_hour_clock(time: tuple[int, int, int, str | None]) -> bool:
    """`20:34`, `00:15`: an hour that only a 24-hour clock shows names its half of the day."""
    return time[3] is None and (time[0] > 12 or time[0] == 0)


def _hour_of_day(time: tuple[int, int, int, str | None]) -> int:
    if _on_a_24_hour_clock(time):
        return time[0]
    return time[0] % 12 + (12 if time[3] == "p" else 0)


def congruence(text: str) -> tuple[int, int] | None:
    """`x \\equiv 3 \\pmod{5}`, `3 \\pmod 5`, `n \\equiv 8 \\ (\\mathrm{mod}\\ 5)` -> (3, 5): the
    residue class, its least residue and its modulus; None for anything else."""
    match = _CONGRUENCE.fullmatch(text.strip())
    if match is None:
        return None
    modulus = int(match["modulus"] or match["in_parens"] or match["operator"])
    return (int(match["residue"]) % modulus, modulus) if modulus > 0 else None


def ratio_parts(text: str) -> tuple[Fraction, ...] | None:
    """`1:2:3` -> (1, 2, 3): a ratio of three or more numbers (two are a quotient, which the
    parser reads: `2:5` is `4:10` and `0.4`)."""
    if _RATIO.fullmatch(text) is None:
        return None
    return tuple(Fraction(part.strip()) for part in text.split(":"))


def _proportional(gold: tuple[Fraction, ...], pred: tuple[Fraction, ...]) -> bool:
    if len(gold) != len(pred) or not any(gold) or not any(pred):
        return False
    scale = next(p / g for g, p in zip(gold, pred, strict=True) if g)
    return scale > 0 and all(g * scale == p for g, p in zip(gold, pred, strict=True))


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


def _same_numeral(gold: tuple[str, int | None] | None,
                  pred: tuple[str, int | None] | None) -> bool:
    if gold is None or pred is None:
        return False
    if gold[1] is not None and pred[1] is not None and gold[1] != pred[1]:
        return False
    return gold[0] == pred[0]
