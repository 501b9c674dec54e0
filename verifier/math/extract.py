"""Final-answer extraction from a whole completion.

Pure string work in linear time with no sympy, so it runs in the calling process without a
time limit: only the symbolic comparison needs the killable helper (see `isolation.py`).

The cascade; the first step that finds something wins:

1. the last `\\boxed{}` / `\\fbox{}`: a run of boxes joined by commas, "and" or "or" is one list;
   when the reference is a list, boxes further apart ("\\boxed{1} papers and \\boxed{2} bins")
   are too;
2. the last answer statement ("final answer", "the answer is", "Answer:", or a correction such
   as "Actually, no: it is ..."), taking the value it states ("The largest $n$ is 34" -> 34);
   a statement after the last box wins over it: the last stated answer counts;
3. the last math environment (`$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]`), a run of them joined by
   commas, "and" or "or" being one list; or the last number, when one follows it ("so
   $d = \\frac{90}{n}$ … there are 12 such sequences" -> 12).

A completion that closes a `<think>` block is read after it when an answer is found there.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import NamedTuple

from verifier.math.normalize import latex_symbols

BOX_COMMANDS = ("\\boxed", "\\fbox")
# A box whose closing brace is not within this many characters is treated as unclosed.
MAX_BOX_CHARS = 10_000
# Boxes chained at the end of a completion ("\boxed{2} and \boxed{3}") that are looked at.
MAX_BOX_RUN = 16
# Answer statements, math environments and the last number are looked for near the end only.
ANSWER_PHRASE_TAIL_CHARS = 4_000
MATH_TAIL_CHARS = 4_000
LAST_NUMBER_TAIL_CHARS = 1_000
# Boxes further apart than this are separate statements, not one answer list; when the
# reference is a list, boxes up to LIST_BOX_GAP_CHARS apart with a separator between are.
MAX_BOX_GAP_CHARS = 64
LIST_BOX_GAP_CHARS = 70
# How far after the final box a hedge ("\boxed{4} (or maybe 5)") is looked for.
TRAILING_HEDGE_CHARS = 200
# How much of the line after "final answer is" is read, and the longest stated text answer.
ANSWER_LINE_CHARS = 500
MAX_TEXT_ANSWER_CHARS = 60
THINK_END = "</think>"

# Between boxes of one list: punctuation, spacing, math delimiters, "and"/"or", a label
# ("x = \boxed{2} or x = \boxed{3}"). Atomic groups keep a failing gap linear.
_BOX_GAP = re.compile(
    r"(?:(?>[\s$.,;:])|(?>\\q?quad\b)|(?>\\[,;! ])|(?>\\[()\[\]])|(?>\b(?:and|or)\b)|"
    r"(?>\\text\{\s*(?:and|or)?\s*\})|(?>\\?[A-Za-z]+(?:_\{?\w+\}?)?\s*=))*",
    re.IGNORECASE)
_LIST_SEPARATOR = re.compile(r"[,;]|\\q?quad|\b(?:and|or)\b", re.IGNORECASE)
_OR = re.compile(r"\bor\b", re.IGNORECASE)
_TRAILING_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|not\s+sure|unsure|"
    r"or\s+(?:maybe\s+|perhaps\s+)?(?:[-\d$]|\\boxed))",
    re.IGNORECASE)
# The mandatory "is"/":"/"=" after a bare "answer" sits in a lookahead over one character class,
# so a failing candidate costs linear time, never backtracking between adjacent `\s*`.
_ANSWER_PHRASE = re.compile(
    r"\bfinal\s+answer\b|"
    r"\banswers?\b(?=[\s*]*(?:is\b|are\b|:|=|(?:would|should|will|must)\s+be\b))|"
    r"\b(?:correct|right|best)\s+(?:option|choice)\b(?=[\s*]*(?:is\b|:))|"
    r"\b(?:actually|wait|oops|sorry|correction|on\s+second\s+thought|scratch\s+that|"
    r"i\s+made\s+an?\s+(?:mistake|error))\b[^.\n]{0,40}?"
    r"\b(?:it\s+is|it's|it\s+should\s+be|should\s+be|is\s+actually)\b",
    re.IGNORECASE)
_ANSWER_LEAD = re.compile(
    r"[\s*]*(?:is\b|are\b|:|=|(?:would|should|will|must)\s+be\b)?[\s*:]*", re.IGNORECASE)
_QUOTES = re.compile(r'^(?:\s*\\?["`])+|(?:\\?["`]\s*)+$')
# "the answer is not 5", "the answer is correct": statements that state no value.
_NO_VALUE = re.compile(
    r"(?:not|never|no\s+longer|unlikely)\b|(?:(?:in)?correct|wrong|right|above|below|as follows|"
    r"(?:shown|given)\s+(?:above|below)|clear|obvious|the same|unique)\W*$", re.IGNORECASE)
_MATH_OR_NUMBER = re.compile(r"[\d$\\]")
_HOPE_SUFFIX = re.compile(r"\s*I hope it is correct\.?\s*$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_CLAUSE_END = re.compile(
    r",?\s+(?:which|where|so|since|because|as|but|that|when|for|meaning|i\.e\.|hence|thus)\b",
    re.IGNORECASE)
_COMMA_CLAUSE = re.compile(
    r",\s+(?:which|where|since|because|as|but|so|hence|thus|i\.e\.)\b", re.IGNORECASE)
_COPULA = re.compile(r"\b(?:is|are|was|were|equals?|be)\b|(?<![<>!=\\])=(?!=)", re.IGNORECASE)
_NUMBER_THEN_WORDS = re.compile(
    r"(-?[\d.,/]*\d(?:\s*(?:\\?%|percent\b|pct\b))?)\s+\(?(?!percent\b|pct\b)[A-Za-z]{2}")
_VALUE_START = re.compile(r"[-+(\[{\\|.\d]")
_MATH_DELIMITER = re.compile(r"\\\\|\\\$|\$\$|\$|\\\(|\\\)|\\\[|\\\]")
_CLOSER = {"$$": "$$", "$": "$", "\\(": "\\)", "\\[": "\\]"}
_ENV_GAP = re.compile(r"[\s,;.]*(?:(?P<word>and|or)\b)?[\s,;]*", re.IGNORECASE)
_LAST_NUMBER = re.compile(
    r"-?\\[dtc]?frac\{-?\d+\}\{-?\d+\}|"
    r"(?<![\w.,])-?\d+(?:\.\d+)?\s*(?:\\times|\\cdot|\*)\s*10\^\{?[-+]?\d+\}?|"
    r"(?<![\w.,^_])-?(?:[1-9]\d{0,2}(?: \d{3})+(?![\d,])|\d+(?:[.,]\d+)*(?:\s*/\s*\d+)?|\.\d+)"
    r"(?:\s*(?:\\?%|percent\b|pct\b))?")


@dataclass(frozen=True)
class Extraction:
    """What was taken from a completion.

    `answer` is None when nothing was extractable; `problem` then says why. When `answer` is set,
    `problem` (if any) says why the answer does not count, e.g. a hedge between two boxes.
    """

    answer: str | None
    source: str
    problem: str | None = None


def extract_answer(response: str, list_expected: bool = False) -> Extraction:
    """Take the final answer out of a whole completion.

    `list_expected`: the reference lists several answers, so boxes spread over a sentence
    ("\\boxed{(2, 2)} for part (a) and \\boxed{(1, 1)}") are read as one list.
    """
    response = latex_symbols(response)
    think_end = response.rfind(THINK_END)
    if think_end >= 0:
        after_thinking = _cascade(response[think_end + len(THINK_END):], list_expected)
        if after_thinking.source != "none":
            return after_thinking
    return _cascade(response, list_expected)


def _cascade(text: str, list_expected: bool) -> Extraction:
    boxed = _extract_boxed(text, list_expected)
    tail_start = max(0, len(text) - ANSWER_PHRASE_TAIL_CHARS)
    statement = _last_statement(text[tail_start:])
    if statement is not None and statement.is_text and (
            boxed is not None or _MATH_OR_NUMBER.search(text, tail_start + statement.end)):
        statement = None  # "Answer: Let's think step by step." says nothing over later math
    if boxed is not None:
        extraction, box_end = boxed
        if statement is not None and tail_start + statement.start >= box_end:
            return Extraction(statement.value, "final_answer")
        return extraction
    if statement is not None:
        return Extraction(statement.value, "final_answer")
    tail = text[-MATH_TAIL_CHARS:]
    envs = math_environments(tail)
    after_math = envs[-1][1] if envs else 0
    number = _last_match(_LAST_NUMBER, tail[max(after_math, len(tail) - LAST_NUMBER_TAIL_CHARS):])
    if number is not None:
        return Extraction(number.group(0), "last_number")
    if envs:
        math = _env_run(tail, envs, len(envs) - 1, backwards=True)
        if math:
            return Extraction(math, "math")
    return Extraction(None, "none", "no \\boxed{}, answer statement, math or number found")


# --------------------------------------------------------------------------- boxes


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


def box_run(text: str, list_expected: bool) -> tuple[list[str], bool, int, int] | None:
    """The last box and the boxes chained before it: (contents, joined by "or", start, end).

    Contents are None-free; an unclosed last box gives None. Boxes are chained when only
    punctuation, spacing, "and"/"or" or a label lies between them, or (`list_expected`) a short
    phrase with a separator ("\\boxed{1} papers and \\boxed{2} bins").
    """
    last = find_box(text)
    if last is None:
        return None
    start, end, content = last
    if content is None:
        return [], False, start, end
    contents = [content]
    joined_by_or = False
    for _ in range(MAX_BOX_RUN - 1):
        previous = find_box(text, start)
        if previous is None or previous[2] is None or previous[1] > start:
            break
        gap_text = text[previous[1]:start]
        gap = _BOX_GAP.fullmatch(gap_text) if len(gap_text) <= MAX_BOX_GAP_CHARS else None
        if gap is not None:
            joined_by_or = joined_by_or or _OR.search(gap_text) is not None
        elif not (list_expected and _loosely_listed(gap_text, previous[2], contents[0])):
            break
        contents.insert(0, previous[2])
        start = previous[0]
    return list(dict.fromkeys(c.strip() for c in contents)), joined_by_or, start, end


def _loosely_listed(gap: str, before: str, after: str) -> bool:
    """Boxes a short phrase apart: one list when a separator is in it (as math-verify reads)."""
    if len(gap) < 10:
        return True
    return (len(gap) < LIST_BOX_GAP_CHARS and before.strip() != after.strip()
            and _LIST_SEPARATOR.search(gap) is not None)


def _extract_boxed(response: str, list_expected: bool) -> tuple[Extraction, int] | None:
    run = box_run(response, list_expected)
    if run is None:
        return None
    contents, joined_by_or, _, end = run
    if not contents:
        return Extraction(None, "boxed", "the last \\boxed{} is never closed"), end
    # Whether "or" is a hedge depends on the reference (one answer, or several solutions):
    # the grader decides, as for an "or" inside a single box.
    answer = (" \\text{ or } " if joined_by_or else ", ").join(contents)
    trailing = response[end:end + TRAILING_HEDGE_CHARS].split("\n", 1)[0]
    problem = ("hedged: the text after the box offers alternatives"
               if _TRAILING_HEDGE.search(trailing) else None)
    return Extraction(answer, "boxed", problem), end


# --------------------------------------------------------------------------- statements


class _Statement(NamedTuple):
    start: int
    end: int  # the end of the sentence stating a text value, else of its line
    value: str
    is_text: bool  # words only ("Evelyn"): no digit, no LaTeX


def _last_statement(tail: str) -> _Statement | None:
    """The last answer statement that states a value, positions in `tail`."""
    phrase = _last_match(_ANSWER_PHRASE, tail)
    if phrase is None:
        return None
    after = tail[phrase.end():phrase.end() + ANSWER_LINE_CHARS]
    lead = _ANSWER_LEAD.match(after).end()
    line = after[lead:].split("\n", 1)[0]
    value = stated_value(_HOPE_SUFFIX.sub("", line))
    if not value:
        return None
    is_text = _MATH_OR_NUMBER.search(value) is None
    said = len(line)
    if is_text and value in line:  # to the end of the sentence that says it
        sentence_end = _SENTENCE_END.search(line, line.find(value) + len(value))
        said = sentence_end.start() if sentence_end else len(line)
    return _Statement(phrase.start(), phrase.end() + lead + said, value, is_text)


def stated_value(text: str) -> str | None:
    """The value a sentence states: "The largest $n$ is 34." -> 34, "$x = 3$" -> x = 3."""
    text = _QUOTES.sub("", text).strip(" *:")
    if _NO_VALUE.match(text):  # "the answer is not 5", "the answer is correct"
        return None
    envs = math_environments(text)
    if envs and envs[0][0] == 0:  # the statement opens with math: that is the value
        return _env_run(text, envs, 0) or None
    sentence = text[:_sentence_end(text, envs)]
    if _VALUE_START.match(sentence):
        number = _NUMBER_THEN_WORDS.match(sentence)  # "12 apples" -> 12
        if number is not None:
            return number[1]
        clause = _CLAUSE_END.search(sentence)
        value = sentence[:clause.start()] if clause else sentence
        return value.strip(" *.,") or None
    clause = _last_outside(_COMMA_CLAUSE, sentence, envs, first=True)
    sentence = sentence[:clause.start()] if clause else sentence  # "Evelyn, since she …"
    copula = _last_outside(_COPULA, sentence, envs)
    if copula is not None:
        return stated_value(sentence[copula.end():])
    inner = [env for env in envs if env[1] <= len(sentence)]
    if inner:  # "that $x = 2$ or $x = 3$"
        return _env_run(sentence, inner, len(inner) - 1, backwards=True) or None
    number = _last_match(_LAST_NUMBER, sentence)
    if number is not None:
        return number.group(0)
    sentence = sentence.strip(" *.,")
    return sentence if 0 < len(sentence) <= MAX_TEXT_ANSWER_CHARS else None


def _sentence_end(text: str, envs: list[tuple[int, int, str]]) -> int:
    for match in _SENTENCE_END.finditer(text):
        if not any(start <= match.start() < end for start, end, _ in envs):
            return match.start()
    return len(text)


def _last_outside(pattern: re.Pattern[str], text: str, envs: list[tuple[int, int, str]],
                  first: bool = False) -> re.Match[str] | None:
    """The last (or first) match of `pattern` that is not inside a math environment."""
    last = None
    for match in pattern.finditer(text):
        if not any(start <= match.start() < end for start, end, _ in envs):
            if first:
                return match
            last = match
    return last


# --------------------------------------------------------------------------- math environments


def math_environments(text: str) -> list[tuple[int, int, str]]:
    """Every `$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]` in order: (start, end, content). Linear time.

    An inline `$` whose partner is on a later line was a stray dollar (a price): the scan
    restarts at the second one.
    """
    envs: list[tuple[int, int, str]] = []
    opener: tuple[str, int, int] | None = None
    for match in _MATH_DELIMITER.finditer(text):
        token = match.group()
        if token in ("\\\\", "\\$"):
            continue
        if opener is None:
            if token in _CLOSER:
                opener = (token, match.start(), match.end())
            continue
        kind, start, content_start = opener
        if token != _CLOSER[kind]:
            continue
        content = text[content_start:match.start()]
        if kind == "$" and "\n" in content:
            opener = (token, match.start(), match.end())
            continue
        envs.append((start, match.end(), content))
        opener = None
    return envs


def _env_run(text: str, envs: list[tuple[int, int, str]], index: int,
             backwards: bool = False) -> str:
    """Environment `index` and its neighbours joined by commas, "and" or "or", as one list."""
    first = last = index
    step = -1 if backwards else 1
    joined_by_or = False
    while 0 <= (neighbour := (first if backwards else last) + step) < len(envs):
        left, right = (neighbour, first) if backwards else (last, neighbour)
        gap = _ENV_GAP.fullmatch(text, envs[left][1], envs[right][0])
        if gap is None or not envs[neighbour][2].strip():
            break
        joined_by_or = joined_by_or or (gap["word"] or "").lower() == "or"
        if backwards:
            first = neighbour
        else:
            last = neighbour
    contents = [content.strip() for _, _, content in envs[first:last + 1] if content.strip()]
    return (" \\text{ or } " if joined_by_or else ", ").join(contents)


def _last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    last = deque(pattern.finditer(text), maxlen=1)
    return last[0] if last else None
