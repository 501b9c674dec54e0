"""Final-answer extraction from a whole completion.

Pure string work in linear time with no sympy, so it runs in the calling process without a
time limit: only the symbolic comparison needs the killable helper (see `isolation.py`).

Order of preference, as in the design: the last `\\boxed{}` (a run of boxes at the very end,
joined by commas, "and" or "or", is read as one list), then "final answer is …" / "answer: …",
then the last number of the completion.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

BOX_COMMANDS = ("\\boxed", "\\fbox")
# A box whose closing brace is not within this many characters is treated as unclosed.
MAX_BOX_CHARS = 10_000
# Boxes chained at the end of a completion ("\boxed{2} and \boxed{3}") that are looked at.
MAX_BOX_RUN = 16
# "final answer is" and the last number are only looked for near the end of a completion.
ANSWER_PHRASE_TAIL_CHARS = 4_000
LAST_NUMBER_TAIL_CHARS = 1_000
# Boxes further apart than this are separate statements, not one answer list.
MAX_BOX_GAP_CHARS = 64
# How far after the final box a hedge ("\boxed{4} (or maybe 5)") is looked for.
TRAILING_HEDGE_CHARS = 200
# How much of the line after "final answer is" is read.
ANSWER_LINE_CHARS = 500

_BOX_GAP = re.compile(
    r"[\s$.,;:]*(?:(?P<word>and|or)|\\text\{\s*(?P<text_word>and|or)\s*\}|\\q?quad|\\[,;])?"
    r"[\s$.,;:]*(?:\\?[A-Za-z]+(?:_\{?\w+\}?)?\s*=)?\s*",  # "x = \boxed{2} or x = \boxed{3}"
    re.IGNORECASE,
)
_TRAILING_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|not\s+sure|unsure|"
    r"or\s+(?:maybe\s+|perhaps\s+)?(?:[-\d$]|\\boxed))",
    re.IGNORECASE,
)
# The mandatory "is"/":"/"=" after a bare "answer" sits in a lookahead over one character class,
# so a failing candidate costs linear time, never backtracking between adjacent `\s*`.
_ANSWER_PHRASE = re.compile(r"\bfinal\s+answer\b|\banswer\b(?=[\s*]*(?:is\b|:|=))", re.IGNORECASE)
_ANSWER_LEAD = re.compile(r"[\s*]*(?:is\b|:|=)?[\s*:]*", re.IGNORECASE)
_LEADING_NUMBER_THEN_WORDS = re.compile(r"(-?[\d.,/]*\d)\s+[A-Za-z]")
_MATH_SEGMENT = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
_HOPE_SUFFIX = re.compile(r"\s*I hope it is correct\.?\s*$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"\.(?:\s|$)")
_LAST_NUMBER = re.compile(
    r"\\[dt]?frac\{-?\d+\}\{-?\d+\}|(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?(?:\s*/\s*\d+)?"
)


@dataclass(frozen=True)
class Extraction:
    """What was taken from a completion.

    `answer` is None when nothing was extractable; `problem` then says why. When `answer` is set,
    `problem` (if any) says why the answer does not count, e.g. a hedge between two boxes.
    """

    answer: str | None
    source: str
    problem: str | None = None


def extract_answer(response: str) -> Extraction:
    """Take the final answer out of a whole completion."""
    boxed = _extract_boxed(response)
    if boxed is not None:
        return boxed
    phrase = _extract_after_answer_phrase(response[-ANSWER_PHRASE_TAIL_CHARS:])
    if phrase:
        return Extraction(phrase, "final_answer")
    number = _extract_last_number(response[-LAST_NUMBER_TAIL_CHARS:])
    if number:
        return Extraction(number, "last_number")
    return Extraction(None, "none", "no \\boxed{}, answer phrase or number found")


def find_box(text: str, end: int | None = None) -> tuple[int, int, str | None] | None:
    """The last box command starting before `end`: (start, end, content).

    `content` is None for a box whose braces never close. Escaped braces (`\\{`, `\\}`) do not
    count towards nesting.
    """
    search_end = len(text) if end is None else end
    while True:
        start = max(text.rfind(command, 0, search_end) for command in BOX_COMMANDS)
        if start < 0:
            return None
        command = next(c for c in BOX_COMMANDS if text.startswith(c, start))
        after = start + len(command)
        if after < len(text) and text[after].isalpha():  # e.g. `\boxedsomething`: not a box
            search_end = start
            continue
        return (start, *_box_argument(text, after))


def _box_argument(text: str, position: int) -> tuple[int, str | None]:
    """Parse the argument of a box command at `position`: (end, content or None if unclosed)."""
    while position < len(text) and text[position] in " \t":
        position += 1
    if position >= len(text):
        return position, None
    if text[position] != "{":  # `\boxed 5`: the argument is the next token
        token_end = position
        while token_end < len(text) and not text[token_end].isspace() and text[token_end] != "$":
            token_end += 1
        return token_end, text[position:token_end] or None
    depth = 0
    index = position
    limit = min(len(text), position + MAX_BOX_CHARS)
    while index < limit:
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1, text[position + 1:index]
        index += 1
    return limit, None


def _extract_boxed(response: str) -> Extraction | None:
    last = find_box(response)
    if last is None:
        return None
    start, end, content = last
    if content is None:
        return Extraction(None, "boxed", "the last \\boxed{} is never closed")
    contents = [content]
    joined_by_or = False
    for _ in range(MAX_BOX_RUN - 1):
        previous = find_box(response, start)
        if (previous is None or previous[2] is None or previous[1] > start
                or start - previous[1] > MAX_BOX_GAP_CHARS):
            break
        gap = _BOX_GAP.fullmatch(response, previous[1], start)
        if gap is None:
            break
        joined_by_or = joined_by_or or (gap["word"] or gap["text_word"] or "").lower() == "or"
        contents.insert(0, previous[2])
        start = previous[0]
    distinct = list(dict.fromkeys(c.strip() for c in contents))
    # Whether "or" is a hedge depends on the reference (one answer, or several solutions):
    # the grader decides, as for an "or" inside a single box.
    answer = (" \\text{ or } " if joined_by_or else ", ").join(distinct)
    trailing = response[end:end + TRAILING_HEDGE_CHARS].split("\n", 1)[0]
    if _TRAILING_HEDGE.search(trailing):
        return Extraction(answer, "boxed", "hedged: the text after the box offers alternatives")
    return Extraction(answer, "boxed")


def _extract_after_answer_phrase(tail: str) -> str | None:
    last_match = _last_match(_ANSWER_PHRASE, tail)
    if last_match is None:
        return None
    after = tail[last_match.end():last_match.end() + ANSWER_LINE_CHARS]
    line = after[_ANSWER_LEAD.match(after).end():].split("\n", 1)[0].strip()
    line = _HOPE_SUFFIX.sub("", line)
    math = _MATH_SEGMENT.search(line)
    if math is not None:
        return next(group for group in math.groups() if group is not None).strip() or None
    sentence_end = _SENTENCE_END.search(line)
    if sentence_end is not None:
        line = line[:sentence_end.start()]
    number = _LEADING_NUMBER_THEN_WORDS.match(line)  # "18 dollars" -> "18"
    if number is not None:
        line = number.group(1)
    return line.strip(" *.") or None


def _extract_last_number(tail: str) -> str | None:
    last_match = _last_match(_LAST_NUMBER, tail)
    return last_match.group(0) if last_match is not None else None


def _last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    last = deque(pattern.finditer(text), maxlen=1)
    return last[0] if last else None
