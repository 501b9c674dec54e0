"""Take the code out of a completion: the last fenced block, else the whole response."""

from __future__ import annotations

import re

_FENCE = re.compile(
    r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<tag>[^\s`]*)[^\n]*\n"  # opening fence + tag
    r"(?P<body>.*?)^[ \t]*(?P=fence)"  # body up to the same fence on its own line,
    r"[ \t]*(?:<[^<>\n]*>[ \t]*)*$",  # which special tokens may follow (<|im_end|>, </s>)
    re.M | re.S)
_OPENING = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[ \t]*(?P<tag>[^\s`]*)[^\n]*\n", re.M)
# End-of-text tokens a completion decoded with its special tokens may end with.
_TRAILING_SPECIAL = re.compile(r"(?:\s*(?:<\|[^<>|\n]*\|>|</?s>|<eos>|<pad>))+\s*\Z")


def extract_code(response: str, tags: tuple[str, ...] = ()) -> str:
    """The code to run.

    The last closed fenced block wins; when blocks carry language tags, the last one tagged
    with this language (one of `tags`) is preferred, so a trailing ```text example-output block
    is not mistaken for the program. A truncated completion whose last fence never closes
    yields the text after that fence. Without any fence, the whole response is the code.
    Special end-of-text tokens after the code (`<|im_end|>`, `</s>`) are not part of it.
    """
    blocks = [(m.group("tag").lower(), m.group("body")) for m in _FENCE.finditer(response)]
    if blocks:
        tagged = [body for tag, body in blocks if tag in tags]
        return tagged[-1] if tagged else blocks[-1][1]
    response = _TRAILING_SPECIAL.sub("", response)
    openings = list(_OPENING.finditer(response))
    if openings:
        return response[openings[-1].end():]
    return response
