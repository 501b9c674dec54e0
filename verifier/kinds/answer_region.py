"""Where the answer sits in a completion: after the reasoning block, in a box, in an answer tag,
on the last line. Every kind that reads an answer (math, format, text, reasoning_gym,
instructions, length) reads it here, so a composite of several kinds never reads one response
two ways.

- The reasoning block: what follows the last `</think>` (any case) is the answer part; a
  completion that opens `<think>` and never closes it was cut off in its reasoning and has no
  answer part at all.
- Boxes (`\\boxed{…}`, `\\fbox{…}`, and `\\boxed 5`, whose argument runs to the next space,
  `$` or box command): every box in order of its start, nested ones too; escaped braces (`\\{`,
  `\\}`) do not count; a box whose braces never close, or close more than MAX_BOX_CHARS later,
  is unclosed.
  `box_run` reads the last box with the boxes chained before it as one list of answers.
- Answer tags (`<answer>…</answer>`, any tag name, any case): each opening tag with the first
  closing tag after it.
- Blank text (`is_blank`): what shows nothing when rendered (whitespace, invisible characters,
  LaTeX spacing, empty groups, wrappers and tags around nothing) is no content.

Everything here is one pass over the text (or a bounded walk over what that pass found), so a
response of hostile shape costs time linear in its length.
"""

from __future__ import annotations

import bisect
import re
import string
import unicodedata
from typing import NamedTuple

BOX_COMMANDS = ("\\boxed", "\\fbox")
# A box whose closing brace is not within this many characters is treated as unclosed.
MAX_BOX_CHARS = 10_000
# Boxes chained at the end of a completion ("\boxed{2} and \boxed{3}") that are looked at.
MAX_BOX_RUN = 16
# Boxes further apart than this are separate statements, not one answer list; when the
# reference is a list, boxes up to LIST_BOX_GAP_CHARS apart with a separator between are.
MAX_BOX_GAP_CHARS = 64
LIST_BOX_GAP_CHARS = 70
THINK_CLOSE = "</think>"

_THINK_OPEN = re.compile(r"^\s*<think>", re.IGNORECASE)
# Lowercasing that keeps every character's index: `str.lower()` lengthens some (U+0130 `İ` is
# two characters lowercased), so an index found in it cut the answer part further on, and the
# policy hid the start of its answer (a second box, a forbidden word) from every check.
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_BOX_COMMAND = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])")
# One token inside a box: a box command, an escaped character (a backslash that does not start
# a box command, with the character after it), or a brace.
_BOX_TOKEN = re.compile(
    r"(?P<box>\\(?:boxed|fbox))(?![A-Za-z])|\\(?!\\(?:boxed|fbox)(?![A-Za-z]))[\s\S]|[{}]")
_TOKEN_ARGUMENT_END = re.compile(r"[\s$]")
# Between boxes of one list: punctuation, spacing, math delimiters, "and"/"or", a label
# ("x = \boxed{2} or x = \boxed{3}"). Atomic groups keep a failing gap linear.
_BOX_GAP = re.compile(
    r"(?:(?>[\s$.,;:])|(?>\\q?quad\b)|(?>\\[,;! ])|(?>\\[()\[\]])|(?>\b(?:and|or)\b)|"
    r"(?>\\text\{\s*(?:and|or)?\s*\})|(?>\\?[A-Za-z]+(?:_\{?\w+\}?)?\s*=))*",
    re.IGNORECASE)
# What renders as nothing: LaTeX spacing and phantoms, math delimiters, braces, commands that
# only wrap or style what they hold, and markup tags.
_SHOWS_NOTHING = re.compile(
    r"\\(?:[hv]?phantom|hspace\*?|vspace\*?)\s*\{[^{}]*\}|"
    r"\\(?:q?quad|thinspace|enspace|negthinspace|[,;:! ])|[~${}]|"
    r"\\(?:boxed|fbox|text(?:bf|it|rm|sf|tt|up|md|sc|normal)?|"
    r"math(?:rm|it|bf|sf|tt|normal|bb|cal|frak|scr)?|mbox|hbox|operatorname|displaystyle|"
    r"textstyle|scriptstyle|left|right)(?![A-Za-z])|\\[()\[\]]|</?[A-Za-z_][\w-]*\s*/?>")
# Letters that are drawn blank (Hangul fillers, the blank Braille pattern).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_LIST_SEPARATOR = re.compile(r"[,;]|\\q?quad|\b(?:and|or)\b", re.IGNORECASE)
_OR = re.compile(r"\bor\b", re.IGNORECASE)


# --------------------------------------------------------------------------- reasoning block


def strip_thinking(text: str) -> str | None:
    """The text after the last `</think>`; None when a `<think>` block is never closed."""
    at = text.translate(_ASCII_LOWER).rfind(THINK_CLOSE)
    if at >= 0:
        return text[at + len(THINK_CLOSE):]
    if _THINK_OPEN.match(text):
        return None
    return text


# --------------------------------------------------------------------------- boxes


class Box(NamedTuple):
    """One box command: where it starts and ends, and what it holds (None: unclosed)."""

    start: int
    end: int
    content: str | None


def boxes(text: str) -> list[Box]:
    """Every box in the text, in order of its start (see the module docstring).

    One pass: box commands are searched for; from a box's opening brace its tokens (braces,
    escapes, boxes nested in it) are followed until it closes, and the search resumes there.
    """
    return _BoxScan(text).run()


class _BoxScan:
    """The state of one `boxes` pass over a text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: list[Box] = []
        self._token_ends: list[int] | None = None  # where `\boxed 5` arguments end

    def run(self) -> list[Box]:
        position = 0
        while (command := _BOX_COMMAND.search(self.text, position)) is not None:
            brace = self._command(command)
            position = self._follow(brace) if brace is not None else command.end()
        return self.found

    def _command(self, command: re.Match[str]) -> int | None:
        """Record the box a command starts; the position of its opening brace, if it has one."""
        text, argument = self.text, command.end()
        while argument < len(text) and text[argument] in " \t":
            argument += 1
        self.found.append(Box(command.start(), argument, None))
        if argument < len(text) and text[argument] == "{":
            return argument
        if argument < len(text):  # `\boxed 5`: the argument runs to a space, `$` or a box
            if self._token_ends is None:  # (to the end of the text, each box of `\boxed\boxed…`
                self._token_ends = sorted(  # held all the rest: quadratic, 3 GB for 200 kB)
                    [m.start() for m in _TOKEN_ARGUMENT_END.finditer(text)]
                    + [m.start() for m in _BOX_COMMAND.finditer(text)])
            at = bisect.bisect_left(self._token_ends, argument)
            end = self._token_ends[at] if at < len(self._token_ends) else len(text)
            self.found[-1] = Box(command.start(), end, text[argument:end] or None)
        return None

    def _follow(self, brace: int) -> int:
        """From the opening brace of the last box found to where it closes (or the end of the
        text), recording the boxes nested in it; where the scan stopped."""
        text, found = self.text, self.found
        opened: list[tuple[int, int | None]] = []  # (brace position, the box it opens or None)
        awaited: tuple[int, int] | None = (brace, len(found) - 1)  # a box waiting for a brace
        for token in _BOX_TOKEN.finditer(text, brace):
            if token["box"] is not None:
                nested = self._command(token)
                if nested is not None:
                    awaited = (nested, len(found) - 1)
                continue
            char = token.group()
            if char == "{":
                box = awaited[1] if awaited is not None and awaited[0] == token.start() else None
                opened.append((token.start(), box))
                awaited = None
            elif char == "}" and opened:
                start, box = opened.pop()
                if box is not None and token.start() - start < MAX_BOX_CHARS:
                    found[box] = Box(found[box].start, token.end(), text[start + 1:token.start()])
                if not opened:
                    return token.end()
        return len(text)


def last_box(text: str) -> Box | None:
    """The box that starts last (its content None when it is unclosed), or None."""
    found = boxes(text)
    return found[-1] if found else None


def box_run(text: str, list_expected: bool) -> tuple[list[str], bool, int, int] | None:
    """The last box and the boxes chained before it: (contents, joined by "or", start, end).

    Contents are None-free; an unclosed last box gives no contents. Boxes are chained when only
    punctuation, spacing, "and"/"or" or a label lies between them, or (`list_expected`) a short
    phrase with a separator ("\\boxed{1} papers and \\boxed{2} bins").
    """
    found = boxes(text)
    if not found:
        return None
    start, end, content = found[-1]
    if content is None:
        return [], False, start, end
    contents = [content]
    joined_by_or = False
    for previous in reversed(found[max(0, len(found) - MAX_BOX_RUN):-1]):
        if previous.content is None or previous.end > start:
            break
        gap_text = text[previous.end:start]
        gap = _BOX_GAP.fullmatch(gap_text) if len(gap_text) <= MAX_BOX_GAP_CHARS else None
        if gap is not None:
            joined_by_or = joined_by_or or _OR.search(gap_text) is not None
        elif not (list_expected and _loosely_listed(gap_text, previous.content, contents[0])):
            break
        contents.insert(0, previous.content)
        start = previous.start
    return list(dict.fromkeys(c.strip() for c in contents)), joined_by_or, start, end


def _loosely_listed(gap: str, before: str, after: str) -> bool:
    """Boxes a short phrase apart: one list when a separator is in it (as math-verify reads)."""
    if len(gap) < 10:
        return True
    return (len(gap) < LIST_BOX_GAP_CHARS and before.strip() != after.strip()
            and _LIST_SEPARATOR.search(gap) is not None)


# --------------------------------------------------------------------------- answer tags


def tag_contents(text: str, tag: str) -> list[str]:
    """The contents of every `<tag>…</tag>` in the text, in order: each opening tag with the
    first closing tag after it (what a lazy regex finds, without its quadratic rescans)."""
    found = []
    inside: int | None = None
    for match in re.finditer(rf"<(/?){re.escape(tag)}>", text, flags=re.IGNORECASE):
        if inside is None and not match[1]:
            inside = match.end()
        elif inside is not None and match[1]:
            found.append(text[inside:match.start()])
            inside = None
    return found


# --------------------------------------------------------------------------- blank text


def is_blank(text: str) -> bool:
    """Whether the text shows nothing: no character of it is drawn once spacing, invisible
    characters (format and control characters, blank letters), LaTeX spacing and phantoms,
    math delimiters, braces, wrapping or styling commands and markup tags are taken away.
    `\\boxed{\\,}`, `<answer></answer>` and a zero-width space are blank; `\\pi` and `.` are not."""
    return all(char.isspace() or char in _BLANK_LETTERS
               or unicodedata.category(char) in ("Cc", "Cf", "Co", "Cn")
               for char in _SHOWS_NOTHING.sub("", text))


# --------------------------------------------------------------------------- the final answer


def extract(response: str, how: str, tag: str = "answer") -> str | None:
    """The final answer, or None when there is none (`how`: full, answer_tag, boxed, last_line)."""
    text = strip_thinking(response)
    if text is None:
        return None
    if how == "answer_tag":
        found = tag_contents(text, tag)
        answer = found[-1] if found else None
    elif how == "boxed":
        box = last_box(text)
        answer = box.content if box is not None else None
    elif how == "last_line":
        lines = [line for line in text.splitlines() if line.strip()]
        answer = lines[-1] if lines else None
    else:
        answer = text
    if answer is None or not answer.strip():
        return None
    return answer.strip()
