"""How an answer text is laid out: its top-level items, its nesting, its hedging words.

Pure string work, before any parsing: it refuses hedges and answers too deep to parse, and tells
the calling process whether a reference lists several answers (then several boxes in a
completion are read as one list).
"""

from __future__ import annotations

import re

_OPENING, _CLOSING = "{([", "})]"
_SEPARATORS = ",;"
_HEDGE_WORD = re.compile(
    r"\b(?:or|maybe|perhaps|possibly|probably|either|unsure|not sure)\b|\?",
    re.IGNORECASE)


def split_top_level(text: str) -> list[str]:
    """The items of a list written at the top level (`1, (2, 3); 4` -> 3 items)."""
    items, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth -= 1
        elif char in _SEPARATORS and depth == 0:
            items.append(text[start:index].strip())
            start = index + 1
    items.append(text[start:].strip())
    return [item for item in items if item]


def is_list(text: str) -> bool:
    """Whether a normalised answer holds several answers (`2, 3`, `x = 1 \\pm \\sqrt{2}`)."""
    return len(split_top_level(text)) > 1 or "\\pm" in text or "\\mp" in text


def nesting_depth(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char in _OPENING:
            depth += 1
            deepest = max(deepest, depth)
        elif char in _CLOSING:
            depth -= 1
    return deepest


def hedge_words(text: str) -> set[str]:
    """Words that offer alternatives or doubt (`7 or 8`, `probably 7`, `7?`), lower-cased."""
    return {word.lower() for word in _HEDGE_WORD.findall(text)}
