"""Boxes in a text: the last `\\boxed{}` / `\\fbox{}`, and the boxes chained before it into one
list of answers. Pure string work in linear time."""

from __future__ import annotations

import re

BOX_COMMANDS = ("\\boxed", "\\fbox")
# A box whose closing brace is not within this many characters is treated as unclosed.
MAX_BOX_CHARS = 10_000
# Boxes chained at the end of a completion ("\boxed{2} and \boxed{3}") that are looked at.
MAX_BOX_RUN = 16
# Boxes further apart than this are separate statements, not one answer list; when the
# reference is a list, boxes up to LIST_BOX_GAP_CHARS apart with a separator between are.
MAX_BOX_GAP_CHARS = 64
LIST_BOX_GAP_CHARS = 70

# Between boxes of one list: punctuation, spacing, math delimiters, "and"/"or", a label
# ("x = \boxed{2} or x = \boxed{3}"). Atomic groups keep a failing gap linear.
_BOX_GAP = re.compile(
    r"(?:(?>[\s$.,;:])|(?>\\q?quad\b)|(?>\\[,;! ])|(?>\\[()\[\]])|(?>\b(?:and|or)\b)|"
    r"(?>\\text\{\s*(?:and|or)?\s*\})|(?>\\?[A-Za-z]+(?:_\{?\w+\}?)?\s*=))*",
    re.IGNORECASE)
_LIST_SEPARATOR = re.compile(r"[,;]|\\q?quad|\b(?:and|or)\b", re.IGNORECASE)
_OR = re.compile(r"\bor\b", re.IGNORECASE)


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
