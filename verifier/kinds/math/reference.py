"""The answer in a reference as datasets store it.

A reference is raw LaTeX with or without `$` (`\\dfrac{9}{7}`, `$28\\%$`, `$125$ miles`), math
environments or boxes listing several answers (`$1$ and $2$ and $3$`, `\\boxed{1} and
\\boxed{-2}`), or a whole solution text: then its last box is the answer (several boxes close
together are a list, an unclosed last box runs to the end), or else the value of its last answer
statement, math environment or number. Pure string work, done in the calling process: whether
the reference is a list decides how boxes in the completion are read.
"""

from __future__ import annotations

import re
from functools import lru_cache

from verifier.kinds.answer_region import box_run
from verifier.kinds.math.extract import extract_answer
from verifier.kinds.math.normalize import normalize, readings, repair_escapes
from verifier.kinds.math.shape import is_list
from verifier.kinds.math.spans import math_environments

REFERENCE_CACHE_SIZE = 4_096
# A reference with this many words outside math is a solution text, not an answer.
PROSE_WORDS = 5
# Words after the last math environment that are its unit (`$125$ miles`), not prose.
MAX_UNIT_WORDS = 3

_TEXT_GROUP = re.compile(r"\\[A-Za-z]+\s*\{[^{}]*\}")
_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
_CONNECTORS = re.compile(r"[\s,;.]*(?:(?:and|or)\b[\s,;.]*)*", re.IGNORECASE)


@lru_cache(maxsize=REFERENCE_CACHE_SIZE)
def reference_answer(raw: str) -> str:
    """The answer text a raw reference holds (see the module docstring)."""
    text = repair_escapes(raw).strip()
    run = box_run(text, list_expected=True)
    if run is not None:
        contents, _, start, _ = run
        if contents:
            return ", ".join(contents)
        return text[text.index("{", start) + 1:] if "{" in text[start:] else text
    envs = math_environments(text)
    if envs:
        listed = _listed_environments(text, envs)
        if listed is not None:
            return listed
    if len(_WORD.findall(_outside_math(text, envs))) >= PROSE_WORDS:
        found = extract_answer(text)
        if found.answer:
            return found.answer
    return text


def answer_is_list(reference: str) -> bool:
    """Whether the reference lists several answers, in any of its readings."""
    return any(is_list(reading) for reading in readings(normalize(reference)))


def _listed_environments(text: str, envs: list[tuple[int, int, str]]) -> str | None:
    """`$1$ and $2$ and $3$` -> `1, 2, 3`; `$125$ miles` -> `125 miles`; None when prose is
    between or around the environments."""
    gaps = [text[:envs[0][0]]] + [text[left[1]:right[0]]
                                  for left, right in zip(envs, envs[1:], strict=False)]
    if not all(_CONNECTORS.fullmatch(gap) for gap in gaps):
        return None
    contents = ", ".join(content.strip() for _, _, content in envs if content.strip())
    after = text[envs[-1][1]:].strip(" .,;")
    if not after:
        return contents
    if len(envs) == 1 and len(after.split()) <= MAX_UNIT_WORDS and _WORD.fullmatch(
            after.split()[0]):
        return f"{contents} {after}"
    return None


def _outside_math(text: str, envs: list[tuple[int, int, str]]) -> str:
    """The prose of a text: what is outside its math environments and `\\text{}` groups."""
    pieces, position = [], 0
    for start, end, _ in envs:
        pieces.append(text[position:start])
        position = end
    pieces.append(text[position:])
    return _TEXT_GROUP.sub(" ", " ".join(pieces))
