"""Math written in running text: math environments (`$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]`),
runs of them listing several answers, and bare numbers. Pure string work in linear time."""

from __future__ import annotations

import re
from collections import deque

_MATH_DELIMITER = re.compile(r"\\\\|\\\$|\$\$|\$|\\\(|\\\)|\\\[|\\\]")
_CLOSER = {"$$": "$$", "$": "$", "\\(": "\\)", "\\[": "\\]"}
_ENV_GAP = re.compile(r"[\s,;.]*(?:(?P<word>and|or)\b)?[\s,;]*", re.IGNORECASE)
# A number as running text writes it: `-\frac{10}{9}`, `6.02 \times 10^23`, `1 000 000`,
# `2,74`, `.4`, `28 percent`, `π/2` and `2√3` (as `\pi /2`, `2\sqrt3`).
NUMBER = re.compile(
    r"(?<![\w.,\\])-?(?:\d+(?:\.\d+)?\s*)?\\(?:pi(?![A-Za-z])|sqrt\s*\{?\d+\}?)(?:\s*/\s*\d+)?|"
    r"-?\\[dtc]?frac\{-?\d+\}\{-?\d+\}|"
    r"(?<![\w.,])-?\d+(?:\.\d+)?\s*(?:\\times|\\cdot|\*)\s*10\^\{?[-+]?\d+\}?|"
    r"(?<![\w.,^_])-?(?:[1-9]\d{0,2}(?: \d{3})+(?![\d,])|\d+(?:[.,]\d+)*(?:\s*/\s*\d+)?|\.\d+)"
    r"(?:\s*(?:\\?%|percent\b|pct\b))?")


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


def env_run(text: str, envs: list[tuple[int, int, str]], index: int,
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


def last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    last = deque(pattern.finditer(text), maxlen=1)
    return last[0] if last else None
