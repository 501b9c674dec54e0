"""The 29 IF-RLVR training constraints (Pyatkin et al., 2025; open-instruct's IFEvalG ids).

Written from the published definitions, with open-instruct's ids and kwargs names. Where the
published check accepts a response that plainly ignores the instruction, this one does not:
a palindrome has at least three letters, every word pair is wrapped for `bigram_wrapping`, an
empty answer follows no "every sentence" rule, and keywords are matched literally.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field

from verifier.instructions.ifeval import (
    KeywordFrequency,
    LetterFrequency,
    count_phrase,
    has_word,
)
from verifier.instructions.registry import (
    Constraint,
    Count,
    Phrase,
    Relation,
    Word,
    compare,
    register,
)
from verifier.instructions.text import STARS, sentences, split_paragraphs, words

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
        if len(reference) < 3:
            return False
        first, last, n = re.escape(reference[0]), re.escape(reference[-1]), len(reference)
        middle = r"\s+\S+" * (n - 2)
        copies = re.findall(rf"(?<!\S){first}{middle}\s+{last}(?!\S)", text)
        if len(copies) != self.small_n:
            return False
        for copy in copies:
            changed = [i for i, (a, b) in enumerate(zip(copy.split(), reference, strict=True))
                       if a != b]
            if len(changed) != 1 or changed[0] in (0, n - 1):
                return False
        return True


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
    """All sentences joined by hyphens, with no spaces around them."""

    def check(self, text: str) -> bool:
        body = text.strip()
        pieces = body.split("-")
        if len(pieces) < 2:
            return len(sentences(body)) == 1
        return all(piece and piece == piece.strip() for piece in pieces)


@register("keywords:no_adjacent_consecutive")
class NoAdjacentConsecutive(Constraint):
    """No two adjacent words start with consecutive letters of the alphabet."""

    def check(self, text: str) -> bool:
        initials = [w[0].lower() for w in words(text)]
        return bool(initials) and not any(
            a.isalpha() and b.isalpha() and ord(b) - ord(a) == 1
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
        paragraphs = split_paragraphs(text.strip(), r"\n\n")
        return paragraphs is not None and len(paragraphs) == 2


def first_word(text: str) -> str:
    found = words(text)
    return found[0].lower() if found else ""


def last_word(text: str) -> str:
    found = words(text)
    return found[-1].lower() if found else ""


@register("first_word:first_word_sent")
class FirstWordEachSentence(Constraint):
    first_word: Word

    def check(self, text: str) -> bool:
        found = sentences(text)
        expected = self.first_word.strip().lower()
        return bool(found) and all(first_word(s) == expected for s in found)


@register("first_word:first_word_answer")
class FirstWordAnswer(Constraint):
    first_word: Word

    def check(self, text: str) -> bool:
        return first_word(text) == self.first_word.strip().lower()


@register("last_word:last_word_sent")
class LastWordEachSentence(Constraint):
    """The last word of each sentence, before its punctuation."""

    last_word: Word

    def check(self, text: str) -> bool:
        found = sentences(text)
        expected = self.last_word.strip().lower()
        return bool(found) and all(last_word(s) == expected for s in found)


@register("last_word:last_word_answer")
class LastWordAnswer(Constraint):
    last_word: Word

    def check(self, text: str) -> bool:
        return last_word(text) == self.last_word.strip().lower()


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
            if len(found) != self.n_sent or any(len(words(s)) != self.n_words for s in found):
                return False
        return True


@register("count:count_unique")
class UniqueWords(Constraint):
    """No word used twice (case ignored)."""

    def check(self, text: str) -> bool:
        found = [w.lower() for w in words(text)]
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
    """The keyword as the `m`-th word of the `n`-th sentence."""

    keyword: Word
    n: Position
    m: Position

    def check(self, text: str) -> bool:
        found = sentences(text)
        if len(found) < self.n:
            return False
        sentence_words = words(found[self.n - 1])
        return (len(sentence_words) >= self.m
                and sentence_words[self.m - 1].lower() == self.keyword.strip().lower())


@register("keywords:start_end")
class StartEndSameWord(Constraint):
    """The first and last word are the same, and nothing follows the last word."""

    def check(self, text: str) -> bool:
        found = words(text)
        return (len(found) >= 2 and found[0].lower() == found[-1].lower()
                and text.rstrip().endswith(found[-1]))
