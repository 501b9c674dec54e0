"""Take the code out of a completion: the last fenced block, else the whole response.

One pass over the lines (and a lookup per opening fence), so a response of any shape costs
time linear in its length: a regex that searches for each opening's closing fence, or strips
trailing tokens by trying every position, takes minutes on 200 kB of backticks or spaces, in
the worker, before any deadline applies.
"""

from __future__ import annotations

import bisect
import re

# A fence at the start of a line (after indentation): three or more backticks or tildes.
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.M)
_TAG = re.compile(r"[ \t]*([^\s`]*)")
# What may follow a closing fence on its line: spaces, special tokens (<|im_end|>, </s>), the
# carriage return of a CRLF line end.
_CLOSING_REST = re.compile(r"[ \t]*(?:<[^<>\n]*>[ \t]*)*\r?")
_BOM = "\ufeff"  # a UTF-8 byte order mark: the mark of an encoding, no character of the code
# An end-of-text token a completion decoded with its special tokens may end with.
_SPECIAL = re.compile(r"<\|[^<>|\n]*\|>|</?s>|<eos>|<pad>")


def extract_code(response: str, tags: tuple[str, ...] = ()) -> str:
    """The code to run.

    The last closed fenced block wins; when blocks carry language tags, the last one tagged
    with this language (one of `tags`) is preferred, so a trailing ```text example-output block
    is not mistaken for the program. A truncated completion whose last fence never closes
    yields the text after that fence. Without any fence, the whole response is the code.
    Special end-of-text tokens after the code (`<|im_end|>`, `</s>`) are not part of it, nor
    is a byte order mark the response or the code starts with; line ends may be CRLF.
    """
    response = response.removeprefix(_BOM)
    blocks, _ = _fenced_blocks(response)
    if blocks:
        tagged = [body for tag, body in blocks if tag in tags]
        return (tagged[-1] if tagged else blocks[-1][1]).removeprefix(_BOM)
    response = _without_trailing_specials(response)
    _, last_opening = _fenced_blocks(response)
    return (response if last_opening is None else response[last_opening:]).removeprefix(_BOM)


def _fenced_blocks(text: str) -> tuple[list[tuple[str, str]], int | None]:
    """Every closed fenced block, in order, as (tag in lower case, body); and where the text
    after the last line that opens a fence starts (None: no line does), closed or not.

    A block opens on a line that starts with a fence (its tag follows) and closes at the first
    later line that is the same fence alone (special tokens may follow it); a fence that never
    closes is tried shorter (```` as ```), as a regex would backtrack, then the search goes on
    at the next line; after a block it goes on after its closing line.
    """
    openings: list[tuple[int, str, int, int, int]] = []  # line start, char, length, run end,
    closings: dict[tuple[str, int], list[int]] = {}  # and body start; (char, length) -> lines
    for fence in _FENCE.finditer(text):
        line_end = text.find("\n", fence.end())
        key = (fence.group(1)[0], fence.end(1) - fence.start(1))
        if _CLOSING_REST.fullmatch(text, fence.end(1), len(text) if line_end < 0 else line_end):
            closings.setdefault(key, []).append(fence.start())
        if line_end >= 0:  # an opening line ends with a newline
            openings.append((fence.start(), *key, fence.end(1), line_end + 1))
    blocks = []
    resume = 0  # where a block may open next
    for line, char, length, run_end, body in openings:
        if line < resume:
            continue
        for fence in range(length, 2, -1):  # the longest fence that closes
            lines = closings.get((char, fence), [])
            found = bisect.bisect_right(lines, line)
            if found < len(lines):
                tag = _TAG.match(text, run_end - length + fence).group(1)
                blocks.append((tag.lower(), text[body:lines[found]]))
                resume = lines[found] + 1
                break
    return blocks, openings[-1][4] if openings else None


def _without_trailing_specials(text: str) -> str:
    """The text without the special tokens it ends with (and the whitespace around them);
    whitespace alone stays. Walks back from the end: each character is looked at once."""
    end = len(text)
    cut = None
    while True:
        while end and text[end - 1].isspace():
            end -= 1
        opening = text.rfind("<", 0, end)
        if opening < 0 or _SPECIAL.fullmatch(text, opening, end) is None:
            break
        cut = end = opening
    return text if cut is None else text[:end]
