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
    r"(?<![\w.])\d+(?:\.\d+)?\s*\^\\circ\s*\d+(?:\.\d+)?\s*'(?:\s*\d+(?:\.\d+)?\s*'')?|"
    r"(?<![\w.,\\])-?(?:\d+(?:\.\d+)?\s*(?:\*|\\cdot)?\s*)?\\(?:pi(?![A-Za-z])|sqrt\s*\{?\d+\}?)"
    r"(?:\s*/\s*\d+)?|"
    r"-?\\[dtc]?frac(?:\{-?\d+\}\{-?\d+\}|\d\d)|"
    r"(?<![\w.,])-?\d+(?:\.\d+)?\s*(?:\\times|\\cdot|\*)\s*10\^\{?[-+]?\d+\}?|"
    r"(?<![\w.,^_])-?\d+(?:\.\d+)?\^(?:\{-?\d+(?:\.\d+)?\}|\d)|"
    r"(?<![\w.,^_])(?<!\^\{)"
    r"-?(?:[1-9]\d{0,2}(?: \d{3})+(?![\d,])|\d+(?:[.,]\d+)*(?:\s*/\s*\d+)?|\.\d+)"
    r"(?:\s*(?:\\?%|percent\b|pct\b))?")


# A list in prose before the last number: "2, 3, and", "x = 1 and", "3 cm and".
MAX_RUN_CHARS = 200
_RUN_NUMBER = r"-?(?:\d+(?:\.\d+)?(?:\s*/\s*\d+)?|\\[dt]?frac(?:\{-?\d+\}\{\d+\}|\d\d))"
_RUN_LABEL = r"(?:[A-Za-z](?:_\{?\w+\}?)?\s*=\s*)"
_RUN_SEPARATOR = r"(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+)"
_RUN_ITEM = re.compile(
    r"(?P<label>" + _RUN_LABEL + r")?(?P<number>" + _RUN_NUMBER + r")"
    r"(?:\s+(?!and\b|or\b)[A-Za-z]{1,12}\b)?" + _RUN_SEPARATOR)
_RUN = re.compile(r"(?<![\w.,\\])(?:" + _RUN_ITEM.pattern + r")+(?P<last_label>" + _RUN_LABEL
                  + r")?$")
_RUN_OR = re.compile(r"\bor\b")


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


def number_run(text: str, last: re.Match[str]) -> str:
    """The last number with the numbers listed before it in prose ("The roots are 2 and 3",
    "2, 3, and 5", "k = 1 or k = 2", "3 cm and 4 cm") as one list: "2, 3"; "k = 1 or k = 2"
    keeps its "or" for the grader to weigh. Just the number when nothing is listed before it."""
    before = text[max(0, last.start() - MAX_RUN_CHARS):last.start()]
    run = _RUN.search(before)
    if run is None:
        return last.group(0)
    items = [f"{item['label'] or ''}{item['number']}" for item in _RUN_ITEM.finditer(run[0])]
    label = run["last_label"] or ""
    joiner = " \\text{ or } " if _RUN_OR.search(run[0]) else ", "
    return joiner.join([*items, label + last.group(0)])

