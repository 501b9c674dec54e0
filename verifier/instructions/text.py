"""Words, sentences, paragraphs and language of a response, as the constraints count them.

Words are runs of word characters (IFEval counts them so). Sentences end at `.`, `!` or `?`
followed by a space or the end, or at a blank line; a period after a common abbreviation, an
initial, an acronym (U.S.) or a list number does not end one. Language detection is
langdetect (IFEval's choice), seeded so that a text always gets the same verdict.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+")
_BLANK_LINE = re.compile(r"\n\s*\n")
_BOUNDARY = re.compile(r"([.!?]+)([\"'\u201d\u2019)\]]*)(?=\s|$)")
_ACRONYM = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
_ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "st", "jr", "sr", "prof", "vs", "etc", "inc",
                            "ltd", "co", "no", "fig", "eg", "ie", "al", "approx", "dept", "est"})
# langdetect reads at most this much of a text; longer texts are cut here before it copies them.
LANGUAGE_SAMPLE_CHARS = 10_000


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def sentences(text: str) -> list[str]:
    """The sentences of a text, in order, stripped, none empty."""
    found: list[str] = []
    for block in _BLANK_LINE.split(text):
        start = 0
        for match in _BOUNDARY.finditer(block):
            before = block[start:match.start()].split()
            if match.group(1) == "." and before and match.end() < len(block.rstrip()):
                last = before[-1]
                if (last.lower().rstrip(".") in _ABBREVIATIONS or _ACRONYM.fullmatch(last)
                        or (len(last) == 1 and last.isalpha())
                        or (len(before) == 1 and last.isdigit())):
                    continue
            piece = block[start:match.end()].strip()
            if piece:
                found.append(piece)
            start = match.end()
        rest = block[start:].strip()
        if rest:
            found.append(rest)
    return found


def split_paragraphs(text: str, separator: str) -> list[str] | None:
    """Paragraphs between separators (a regex); None when one in the middle is empty.

    An empty piece before the first or after the last separator is not a paragraph.
    """
    pieces = re.split(separator, text)
    paragraphs = []
    for index, piece in enumerate(pieces):
        if piece.strip():
            paragraphs.append(piece)
        elif 0 < index < len(pieces) - 1:
            return None
    return paragraphs


STARS = r"\s?\*\*\*\s?"  # IFEval's markdown divider between paragraphs


def detect_language(text: str) -> str | None:
    """ISO 639-1 code of the text's language, or None when there is nothing to detect."""
    from langdetect import DetectorFactory, detect
    from langdetect.lang_detect_exception import LangDetectException

    DetectorFactory.seed = 0
    try:
        return detect(text[:LANGUAGE_SAMPLE_CHARS])
    except LangDetectException:
        return None


def load_language_profiles() -> None:
    """Load langdetect's profiles (about a second) before any deadline starts counting."""
    from langdetect import detector_factory

    detector_factory.init_factory()
