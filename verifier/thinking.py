"""The answer part of a completion: what follows the reasoning block.

Reasoning models write `<think>…</think>` before answering; constraints, matches and scorers
judge the answer only. A completion cut off inside its reasoning block has no answer at all.
"""

from __future__ import annotations

import re

_OPEN = re.compile(r"^\s*<think>", re.IGNORECASE)
_CLOSE = "</think>"


def strip_thinking(text: str) -> str | None:
    """The text after the last `</think>`; None when a `<think>` block is never closed."""
    at = text.lower().rfind(_CLOSE)
    if at >= 0:
        return text[at + len(_CLOSE):]
    if _OPEN.match(text):
        return None
    return text
