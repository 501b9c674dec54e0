"""Where an answer sits in a completion: the whole text, an `<answer>` tag, a box, a last line.

Every kind that reads a final answer (text, reasoning_gym, format) takes it from here, after
the reasoning block is stripped (`verifier.thinking`).
"""

from __future__ import annotations

import re

from verifier.thinking import strip_thinking


def tag_contents(text: str, tag: str) -> list[str]:
    """The contents of every `<tag>…</tag>` in the text, in order."""
    name = re.escape(tag)
    return re.findall(rf"<{name}>(.*?)</{name}>", text, flags=re.DOTALL | re.IGNORECASE)


def boxed_contents(text: str) -> list[str]:
    """The contents of every `\\boxed{…}` (or `\\fbox{…}`), braces balanced, in order."""
    found = []
    for match in re.finditer(r"\\(?:boxed|fbox)\s*\{", text):
        depth, start = 1, match.end()
        for at in range(start, len(text)):
            if text[at] == "{":
                depth += 1
            elif text[at] == "}":
                depth -= 1
                if depth == 0:
                    found.append(text[start:at])
                    break
    return found


def extract(response: str, how: str, tag: str = "answer") -> str | None:
    """The final answer, or None when there is none (`how`: full, answer_tag, boxed, last_line)."""
    text = strip_thinking(response)
    if text is None:
        return None
    if how == "answer_tag":
        found = tag_contents(text, tag)
        answer = found[-1] if found else None
    elif how == "boxed":
        found = boxed_contents(text)
        answer = found[-1] if found else None
    elif how == "last_line":
        lines = [line for line in text.splitlines() if line.strip()]
        answer = lines[-1] if lines else None
    else:
        answer = text
    if answer is None or not answer.strip():
        return None
    return answer.strip()
