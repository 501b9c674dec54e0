"""The 29 IF-RLVR training constraints (Pyatkin et al., 2025; open-instruct's IFEvalG ids).

Written from the published definitions, with open-instruct's ids and kwargs names, and
agreeing with open-instruct's IFEvalG except for the rules in
`verifier/peer_agreement.py`: where IFEvalG passes a response that ignores the
instruction, counts punctuation as words, or reads a keyword as a regular expression.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field

from verifier.kinds.instructions.ifeval import (
    KeywordFrequency,
    LetterFrequency,
    count_phrase,
    has_word,
)
from verifier.kinds.instructions.registry import (
    Constraint,
    Count,
    Phrase,
    Relation,
    Word,
    compare,
    register,
)
from verifier.kinds.instructions.text import (
    STARS,
    rule_sentences,
    split_paragraphs,
    treebank_tokens,
    words,
)

Position = Annotated[int, Field(ge=1, le=100_000)]


def same_text(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()


@register("copy:repeat_phrase")
class RepeatPhrase(Constraint):
    """The phrase `small_n` times, each copy with exactly one of its middle words changed."""

    phrase: Phrase
    small_n: Annotated[int, Field(ge=1, le=1_000)]

    def check(self, text: str) -> bool:
        reference = self.phrase.split()
        first, last = re.escape(reference[0]), re.escape(reference[-1])
        copies = [copy.split() for copy in re.findall(rf"{first} .*? {last}", text)]
        return len(copies) == self.small_n and all(
            len(copy) == len(reference)
            and sum(a != b for a, b in zip(copy, reference, strict=True)) == 1
            for copy in copies)


@register("copy:copy")
class Copy(Constraint):
    """Only the instruction, copied verbatim."""

    prompt_to_repeat: Phrase

    def check(self, text: str) -> bool:
        return same_text(text, self.prompt_to_repeat)


@register("new:copy_span_idx")
class CopySpan(Constraint):
    """Only the span of the prompt between two character indices."""

    prompt_to_repeat: Phrase
    n_start: Annotated[int, Field(ge=0, le=100_000)]
    n_end: Annotated[int, Field(ge=0, le=100_000)]

    def check(self, text: str) -> bool:
        span = self.prompt_to_repeat[self.n_start:self.n_end]
        return bool(span.strip()) and same_text(text, span)


@register("detectable_format:sentence_hyphens")
class SentenceHyphens(Constraint):
    """All sentences joined by hyphens, with no spaces around them: the pieces between
    hyphens are, one by one, the sentences of the text read with spaces for hyphens."""

    def check(self, text: str) -> bool:
        expected = rule_sentences(text.replace("-", " "))
        return all(piece == piece.strip() and piece == sentence
                   for piece, sentence in zip(text.split("-"), expected, strict=False))


@register("keywords:no_adjacent_consecutive")
class NoAdjacentConsecutive(Constraint):
    """No two adjacent words (whitespace-separated) start with consecutive characters."""

    def check(self, text: str) -> bool:
        initials = [token[0].lower() for token in text.split()]
        return not any(len(a) != 1 or len(b) != 1 or ord(b) - ord(a) == 1
                       for a, b in zip(initials, initials[1:], strict=False))


@register("detectable_format:square_brackets")
class SquareBrackets(Constraint):
    """Every word enclosed in square brackets."""

    def check(self, text: str) -> bool:
        tokens = text.split()
        return bool(tokens) and all(t.startswith("[") and t.endswith("]") for t in tokens)


@register("keywords:word_once")
class WordOnce(Constraint):
    keyword: Word

    def check(self, text: str) -> bool:
        return count_phrase(text, self.keyword.strip()) == 1


@register("keywords:word_count_different_numbers")
class WordCount(KeywordFrequency):
    """keywords:frequency under its IF-RLVR id."""


@register("keywords:exclude_word_harder")
class ExcludeWord(Constraint):
    """The keyword never appears as a word."""

    keyword: Word

    def check(self, text: str) -> bool:
        return not has_word(text, self.keyword.strip())


@register("paragraphs:paragraphs")
class TwoParagraphsStars(Constraint):
    """Two paragraphs, separated by the markdown divider `***`."""

    def check(self, text: str) -> bool:
        paragraphs = split_paragraphs(text, STARS)
        return paragraphs is not None and len(paragraphs) == 2


@register("paragraphs:paragraphs2")
class TwoParagraphsBlankLine(Constraint):
    """Two paragraphs, separated by two line breaks (and only paragraphs are)."""

    def check(self, text: str) -> bool:
        paragraphs = split_paragraphs(text, r"\n\n")
        return paragraphs is not None and len(paragraphs) == 2


_PUNCTUATION = re.compile(r"[^\w\s]")


def spoken_words(text: str) -> list[str]:
    """Whitespace-separated words, each without the punctuation around it; punctuation
    standing alone is no word."""
    return [word for token in text.split() if (word := _PUNCTUATION.sub("", token))]


def first_word(text: str) -> str:
    """The first whitespace-separated word, lowercased, without punctuation around it."""
    for token in text.split():
        word = token.strip("".join(set(_PUNCTUATION.findall(token))))
        if word:
            return word.lower()
    return ""


def last_word(text: str) -> str:
    """The last word, lowercased, its punctuation removed (IFEvalG's reading of it)."""
    found = spoken_words(text)
    return found[-1].lower() if found else ""


def sentences(text: str) -> tuple[str, ...]:
    """IFEvalG's sentences, less what is left after the last one when that is neither a
    sentence nor a word (a stray `,`); a lone `!` still counts as a sentence of no word."""
    found = rule_sentences(text)
    if found and not words(found[-1]) and found[-1][-1] not in ".!?":
        return found[:-1]
    return found


@register("first_word:first_word_sent")
class FirstWordEachSentence(Constraint):
    """Every sentence starts with the word, and there is one: an answer of punctuation alone
    (`,`, `***`) has no sentence to start (IFEvalG refuses it)."""

    first_word: Word

    def check(self, text: str) -> bool:
        expected = first_word(self.first_word)
        found = sentences(text)
        return bool(found) and all(first_word(s) == expected for s in found)


@register("first_word:first_word_answer")
class FirstWordAnswer(Constraint):
    first_word: Word

    def check(self, text: str) -> bool:
        return first_word(text) == first_word(self.first_word)


@register("last_word:last_word_sent")
class LastWordEachSentence(Constraint):
    """The last word of each sentence, before its punctuation, and there is a sentence (as
    first_word_sent)."""

    last_word: Word

    def check(self, text: str) -> bool:
        expected = last_word(self.last_word)
        found = sentences(text)
        return bool(found) and all(last_word(s) == expected for s in found)


@register("last_word:last_word_answer")
class LastWordAnswer(Constraint):
    last_word: Word

    def check(self, text: str) -> bool:
        return last_word(text) == last_word(self.last_word)


@register("detectable_format:bigram_wrapping")
class BigramWrapping(Constraint):
    """Every pair of consecutive words wrapped in double angular brackets: <<I am>> <<at home>>."""

    def check(self, text: str) -> bool:
        tokens = text.split()
        if len(tokens) < 2 or len(tokens) % 2:
            return False
        return all(tokens[i].startswith("<<") and tokens[i + 1].endswith(">>")
                   and ">>" not in tokens[i] and "<<" not in tokens[i + 1]
                   for i in range(0, len(tokens), 2))


@register("copy:copying_simple")
class CopyRequest(Constraint):
    """The request repeated without change, and nothing else."""

    prompt_to_repeat: Phrase

    def check(self, text: str) -> bool:
        return same_text(text, self.prompt_to_repeat)


@register("copy:copying_multiple")
class CopyRequestTimes(Constraint):
    """The request repeated `N` times, separated by six asterisks, and nothing else."""

    prompt_to_repeat: Phrase
    N: Annotated[int, Field(ge=1, le=1_000)]

    def check(self, text: str) -> bool:
        copies = text.split("******")
        return (len(copies) == self.N
                and all(same_text(copy, self.prompt_to_repeat) for copy in copies))


@register("punctuation:punctuation_dot")
class NoDot(Constraint):
    def check(self, text: str) -> bool:
        return "." not in text


@register("punctuation:punctuation_exclamation")
class NoExclamation(Constraint):
    def check(self, text: str) -> bool:
        return "!" not in text and "\uff01" not in text


@register("count:lowercase_counting")
class LowercaseWords(Constraint):
    """At most `N` words written in lowercase."""

    N: Count

    def check(self, text: str) -> bool:
        return len(re.findall(r"\b[a-z]+\b", text)) <= self.N


@register("letters:letter_counting")
class LetterCount(Constraint):
    """The number of letters in the answer, against a threshold."""

    N: Count
    relation: Relation

    def check(self, text: str) -> bool:
        return compare(len(re.findall(r"[A-Za-z]", text)), self.relation, self.N)


@register("letters:letter_counting2")
class LetterFrequency2(LetterFrequency):
    """keywords:letter_frequency under its IF-RLVR id."""


@register("count:counting_composition")
class CountingComposition(Constraint):
    """Three `***`-separated paragraphs of `n_sent` sentences of `n_words` words each."""

    n_sent: Annotated[int, Field(ge=1, le=1_000)]
    n_words: Annotated[int, Field(ge=1, le=1_000)]

    def check(self, text: str) -> bool:
        paragraphs = split_paragraphs(text, STARS)
        if paragraphs is None or len(paragraphs) != 3:
            return False
        for paragraph in paragraphs:
            found = sentences(paragraph)
            if (len(found) != self.n_sent
                    or any(len(spoken_words(s)) != self.n_words for s in found)):
                return False
        return True


@register("count:count_unique")
class UniqueWords(Constraint):
    """No word used twice (case ignored; punctuation is no word), in an answer of words: one
    of punctuation alone (`***`, `!!!`) uses no word at all (IFEvalG refuses it)."""

    def check(self, text: str) -> bool:
        found = [word.lower() for word in spoken_words(text)]
        return bool(found) and len(found) == len(set(found))


@register("count:count_increment_word")
class KeywordOnceAndTwice(Constraint):
    """`keyword1` exactly once and `keyword2` exactly twice."""

    keyword1: Word
    keyword2: Word

    def check(self, text: str) -> bool:
        return (count_phrase(text, self.keyword1.strip()) == 1
                and count_phrase(text, self.keyword2.strip()) == 2)


@register("keywords:palindrome")
class Palindrome(Constraint):
    """A palindrome of three letters or more (a word, or a phrase read without spaces)."""

    def check(self, text: str) -> bool:
        for token in text.split():
            letters = re.sub(r"[\W_]", "", token).lower()
            if len(letters) >= 3 and letters == letters[::-1]:
                return True
        return False


@register("keywords:keyword_specific_position")
class KeywordAtPosition(Constraint):
    """The keyword, as written, as the `m`-th word of the `n`-th sentence (nltk's word tokens,
    as IFEvalG counts them)."""

    keyword: Word
    n: Position
    m: Position

    def check(self, text: str) -> bool:
        found = rule_sentences(text)
        if len(found) < self.n:
            return False
        tokens = treebank_tokens(found[self.n - 1])
        return len(tokens) >= self.m and tokens[self.m - 1] == self.keyword.strip()


@register("keywords:start_end")
class StartEndSameWord(Constraint):
    """The first and last word are the same, and nothing follows the last word (nltk's word
    tokens: a final punctuation mark is the last token)."""

    def check(self, text: str) -> bool:
        found = treebank_tokens(text)
        return len(found) >= 2 and found[0].lower() == found[-1].lower()
