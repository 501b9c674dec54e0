"""Answer statements ("final answer", "the answer is", "Answer:", "the correct option is", a
correction such as "Actually, no: it is …") and the value they state: "The largest $n$ is
34." states 34, "the answer is not 5" and "the answer is correct" state nothing. Pure string
work in linear time."""

from __future__ import annotations

import re
from typing import NamedTuple

from verifier.kinds.math.spans import NUMBER, env_run, last_match, math_environments

# How much of the line after "final answer is" is read, and the longest stated text answer.
ANSWER_LINE_CHARS = 500
MAX_TEXT_ANSWER_CHARS = 60

# The mandatory "is"/":"/"=" after a bare "answer" sits in a lookahead over one character class,
# so a failing candidate costs linear time, never backtracking between adjacent `\s*`.
_ANSWER_PHRASE = re.compile(
    r"\bfinal\s+answer\b|"
    r"(?m:^)[ \t]*(?:#{1,6}[ \t]*|\*\*[ \t]*)?answers?[ \t]*(?:\*\*)?[ \t]*(?=\n)|"
    r"\banswers?\b(?=[\s*]*(?:is\b|are\b|:|=|(?:would|should|will|must)\s+be\b))|"
    r"\b(?:correct|right|best)\s+(?:option|choice)\b(?=[\s*]*(?:is\b|:))|"
    r"\bi\s+(?:choose|pick|select)\b|"
    r"\b(?:option|choice)\s*\(?(?P<option>[A-J])\)?(?=\s+is\s+(?:the\s+)?(?:correct|right|true)\b)|"
    r"\b(?:actually|wait|oops|sorry|correction|on\s+second\s+thought|scratch\s+that|"
    r"i\s+made\s+an?\s+(?:mistake|error))\b[^.\n]{0,40}?"
    r"\b(?:it\s+is|it's|it\s+should\s+be|should\s+be|is\s+actually)\b",
    re.IGNORECASE)
_ANSWER_LEAD = re.compile(
    r"[\s*]*(?:is\b|are\b|:|=|[-\u2013\u2014](?=\s)|(?:would|should|will|must)\s+be\b)?[\s*:]*",
    re.IGNORECASE)
_QUOTES = re.compile(r'^(?:\s*\\?["`])+|(?:\\?["`]\s*)+$')
# "the answer is not 5", "the answer is correct": statements that state no value.
_NO_VALUE = re.compile(
    r"(?:not|never|no\s+longer|unlikely)\b|(?:(?:in)?correct|wrong|right|above|below|as follows|"
    r"(?:shown|given)\s+(?:above|below)|clear|obvious|the same|unique)\W*$", re.IGNORECASE)
# How far before an answer phrase its sentence is read for doubt, and where a sentence ends.
OPENING_CHARS = 200
_OPENING_END = re.compile(r"[.!?](?=\s)|\n")
# A value with this in it is math (a digit, a `$`, a LaTeX command), else it is words.
MATH_OR_NUMBER = re.compile(r"[\d$\\]")
_FINAL = re.compile(r"final\b", re.IGNORECASE)
_HOPE_SUFFIX = re.compile(r"(?<!\s)\s*I hope it is correct\.?\s*$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_CLAUSE_END = re.compile(
    r"(?<![\s,]),?\s+(?:which|where|so|since|because|as|but|that|when|for|meaning|i\.e\.|hence|thus|"
    r"not)\b",
    re.IGNORECASE)
_COMMA_CLAUSE = re.compile(
    r",\s+(?:which|where|since|because|as|but|so|hence|thus|i\.e\.)\b", re.IGNORECASE)
_COPULA = re.compile(r"\b(?:is|are|was|were|equals?|be)\b|(?<![<>!=\\])=(?!=)", re.IGNORECASE)
_NUMBER_THEN_WORDS = re.compile(
    r"(-?[\d.,/]*\d(?:\s*(?:\\?%|percent\b|pct\b))?)\s+\(?(?!percent\b|pct\b|or\b|and\b|mod\b)"
    r"[A-Za-z]{2}")
# Doubt in the sentence that states the answer ("the answer is probably 3", "3?"): a hedge.
_DOUBT = re.compile(r"\b(?:maybe|perhaps|possibly|probably|not\s+sure|unsure)\b|\?",
                    re.IGNORECASE)
# Closers of the math environment a statement sits in ("\\[Answer: 009\\]"), with their openers.
_ENVIRONMENT_CLOSERS = (("\\]", "\\["), ("\\)", "\\("), ("$$", "$$"))
# A remark in words in parentheses after a stated value (not a modulus: `4 (mod 7)`).
_PROSE_REMARK = re.compile(r"\s*\((?![^()]*\bmod\b)(?=[^()]*[A-Za-z]{3})[^()$\\]*\)$")
_CHOICE_PAREN = re.compile(r"^([A-J])[):](?=\s|$)")
_VALUE_START = re.compile(r"[-+(\[{\\|.\d]")
# A formula outside math delimiters: single letters, LaTeX commands, digits and operators only.
_FORMULA = re.compile(
    r"(?:(?<![A-Za-z])[A-Za-z](?![A-Za-z])|\\[A-Za-z]+|[\d\s^{}()+\-*/=<>.,|!_])+")
_OPERATOR = re.compile(r"[\^+\-*/=<>]")


class Statement(NamedTuple):
    """An answer statement found in a text, with the value it states."""

    start: int
    end: int  # the end of the sentence stating a text value, else of its line
    value: str
    is_text: bool  # words outside math after a plain "answer" ("Answer: Let's think"): weak
    hedged: bool = False  # the sentence stating it doubts it


def last_statement(tail: str) -> Statement | None:
    """The last answer statement that states a value, positions in `tail`."""
    phrase = last_match(_ANSWER_PHRASE, tail)
    if phrase is None:
        return None
    if phrase["option"]:  # "Option C is correct.": weak, as words are, beside a box or later math
        return Statement(phrase.start(), phrase.end(), f"({phrase['option'].upper()})", True)
    after = tail[phrase.end():phrase.end() + ANSWER_LINE_CHARS]
    lead = _ANSWER_LEAD.match(after).end()
    line = _first_line(after[lead:])
    value = stated_value(_HOPE_SUFFIX.sub("", line))
    if value:
        value = _PROSE_REMARK.sub("", value)  # "12 (as computed above)"
    if not value:
        return None
    is_text = (MATH_OR_NUMBER.search(value) is None and not _FINAL.match(phrase.group())
               and all(content.strip() != value for _, _, content in math_environments(line)))
    said = len(line)
    if is_text and value in line:  # to the end of the sentence that says it
        sentence_end = _SENTENCE_END.search(line, line.find(value) + len(value))
        said = sentence_end.start() if sentence_end else len(line)
    sentence = line[:_sentence_end(line, math_environments(line)) + 1]
    opening = _sentence_opening(tail, phrase.start())  # "I'm not sure, but the answer is 7."
    hedged = (_DOUBT.search(sentence) is not None or _DOUBT.search(opening) is not None) and (
        _DOUBT.search(value) is None)
    return Statement(phrase.start(), phrase.end() + lead + said, value, is_text, hedged)


def _sentence_opening(text: str, phrase_start: int) -> str:
    """The words of the sentence before its answer phrase, back to the last sentence end."""
    before = text[max(0, phrase_start - OPENING_CHARS):phrase_start]
    ends = [match.end() for match in _OPENING_END.finditer(before)]
    return before[ends[-1]:] if ends else before


def _first_line(text: str) -> str:
    """The line after an answer phrase, or all of the display math it opens ("Final answer:
    \\[ 34 \\]" over three lines)."""
    line = text.split("\n", 1)[0]
    if line.strip() in ("$$", "\\["):
        envs = math_environments(text)
        if envs and envs[0][0] == text.find(line.strip()):
            return text[:envs[0][1]]
    return line


def stated_value(text: str) -> str | None:
    """The value a sentence states: "The largest $n$ is 34." -> 34, "$x = 3$" -> x = 3."""
    text = _CHOICE_PAREN.sub(r"(\1)", _QUOTES.sub("", text).strip(" *:"))  # "B) 12", "C: 15"
    text = _without_unopened_closer(text)
    if _NO_VALUE.match(text):  # "the answer is not 5", "the answer is correct"
        return None
    envs = math_environments(text)
    if envs and envs[0][0] == 0:  # the statement opens with math: that is the value
        return env_run(text, envs, 0) or None
    sentence = text[:_sentence_end(text, envs)]
    if _VALUE_START.match(sentence):
        number = _NUMBER_THEN_WORDS.match(sentence)  # "12 apples" -> 12
        if number is not None:
            return number[1]
        clause = _CLAUSE_END.search(sentence)
        value = sentence[:clause.start()] if clause else sentence
        # a leading point is a decimal's ("the answer is .7" stated 7, not 0.7)
        return value.lstrip(" *,").rstrip(" *.,") or None
    if _FORMULA.fullmatch(sentence.strip(" *.")) and _OPERATOR.search(sentence):
        return sentence.strip(" *.")  # math written without `$`: "x^{2} + 1", "y = 2x + 1"
    clause = _last_outside(_COMMA_CLAUSE, sentence, envs, first=True)
    sentence = sentence[:clause.start()] if clause else sentence  # "Evelyn, since she …"
    copula = _last_outside(_COPULA, sentence, envs)
    if copula is not None:
        return stated_value(sentence[copula.end():])
    inner = [env for env in envs if env[1] <= len(sentence)]
    if inner:  # "that $x = 2$ or $x = 3$"
        return env_run(sentence, inner, len(inner) - 1, backwards=True) or None
    number = last_match(NUMBER, sentence)
    if number is not None:
        return number.group(0)
    sentence = sentence.strip(" *.,")
    return sentence if 0 < len(sentence) <= MAX_TEXT_ANSWER_CHARS else None


def _without_unopened_closer(text: str) -> str:
    """`009\\]` -> `009`: the statement sat inside display math, whose end is not the value's."""
    text = text.rstrip()
    for closer, opener in _ENVIRONMENT_CLOSERS:
        if text.endswith(closer) and opener not in text[:-len(closer)]:
            return text[:-len(closer)].rstrip()
    return text


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
