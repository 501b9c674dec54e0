"""IFEval's 25 verifiable instructions (Zhou et al., 2023), with IFEval's kwargs names.

Each check is written from IFEval's published definition and agrees with Google's reference
implementation on its own tests, its published responses and generated near misses, except
for the rules in `verifier/peer_agreement.py` (where the reference passes a response
that ignores the instruction, or reads a keyword as a regular expression).
"""

from __future__ import annotations

import json
import re
from typing import Annotated

from pydantic import Field

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
    detect_language,
    punkt_sentences,
    split_paragraphs,
    treebank_tokens,
    words,
)

CONSTRAINED_ANSWERS = ("My answer is yes.", "My answer is no.", "My answer is maybe.")


def count_phrase(text: str, phrase: str) -> int:
    return len(re.findall(re.escape(phrase), text, flags=re.IGNORECASE))


def has_word(text: str, word: str) -> bool:
    return re.search(rf"\b{re.escape(word)}\b", text, flags=re.IGNORECASE) is not None


@register("keywords:existence")
class KeywordsExist(Constraint):
    keywords: Annotated[list[Word], Field(min_length=1, max_length=100)]

    def check(self, text: str) -> bool:
        return all(count_phrase(text, keyword) for keyword in self.keywords)


@register("keywords:frequency")
class KeywordFrequency(Constraint):
    keyword: Word
    frequency: Count
    relation: Relation

    def check(self, text: str) -> bool:
        return compare(count_phrase(text, self.keyword.strip()), self.relation, self.frequency)


@register("keywords:forbidden_words")
class ForbiddenWords(Constraint):
    forbidden_words: Annotated[list[Word], Field(min_length=1, max_length=100)]

    def check(self, text: str) -> bool:
        return not any(has_word(text, word) for word in self.forbidden_words)


@register("keywords:letter_frequency")
class LetterFrequency(Constraint):
    letter: Annotated[str, Field(min_length=1, max_length=1)]
    let_frequency: Count
    let_relation: Relation

    def check(self, text: str) -> bool:
        count = text.lower().count(self.letter.lower())
        return compare(count, self.let_relation, self.let_frequency)


@register("language:response_language")
class ResponseLanguage(Constraint):
    language: Annotated[str, Field(pattern=r"^[a-z]{2,3}(-[a-z]{2,4})?$")]

    def check(self, text: str) -> bool:
        return detect_language(text) == self.language


@register("length_constraints:number_sentences")
class NumberOfSentences(Constraint):
    num_sentences: Count
    relation: Relation

    def check(self, text: str) -> bool:
        return compare(len(punkt_sentences(text)), self.relation, self.num_sentences)


@register("length_constraints:number_paragraphs")
class NumberOfParagraphs(Constraint):
    """Paragraphs separated by the markdown divider `***`."""

    num_paragraphs: Count

    def check(self, text: str) -> bool:
        paragraphs = split_paragraphs(text, STARS)
        return paragraphs is not None and len(paragraphs) == self.num_paragraphs


@register("length_constraints:number_words")
class NumberOfWords(Constraint):
    num_words: Count
    relation: Relation

    def check(self, text: str) -> bool:
        return compare(len(words(text)), self.relation, self.num_words)


@register("length_constraints:nth_paragraph_first_word")
class NthParagraphFirstWord(Constraint):
    """`num_paragraphs` non-blank paragraphs between blank lines (`\\n\\n`); the nth (counted
    among all pieces, blank ones too, as IFEval does) starts with `first_word`: its first
    whitespace-separated token, opening quotes dropped, up to its first punctuation mark."""

    num_paragraphs: Annotated[int, Field(ge=1, le=10_000)]
    nth_paragraph: Annotated[int, Field(ge=1, le=10_000)]
    first_word: Word

    def check(self, text: str) -> bool:
        pieces = text.split("\n\n")
        paragraphs = sum(1 for piece in pieces if piece.strip())
        if self.nth_paragraph > paragraphs or paragraphs != self.num_paragraphs:
            return False
        nth = pieces[self.nth_paragraph - 1].strip()
        if not nth:
            return False
        token = nth.split()[0].lstrip("'").lstrip('"')
        return re.split(r"[.,?!'\":;]", token)[0].lower() == self.first_word.lower()


@register("detectable_content:number_placeholders")
class Placeholders(Constraint):
    """At least `num_placeholders` placeholders in square brackets, like [address]; an empty
    pair of brackets is not one."""

    num_placeholders: Count

    def check(self, text: str) -> bool:
        found = re.findall(r"\[(.*?)\]", text)
        return sum(1 for inside in found if inside.strip()) >= self.num_placeholders


@register("detectable_content:postscript")
class Postscript(Constraint):
    """The marker (P.S., P.P.S, ...) somewhere in the answer, case ignored, as IFEval reads it:
    "P.S." and "P.P.S" also match with a space after a period."""

    postscript_marker: Word

    def check(self, text: str) -> bool:
        marker = self.postscript_marker.strip()
        if marker == "P.P.S":
            pattern = r"p\.\s?p\.\s?s"
        elif marker == "P.S.":
            pattern = r"p\.\s?s\."
        else:
            pattern = re.escape(marker.lower())
        return re.search(pattern, text.lower()) is not None


@register("detectable_format:number_bullet_lists")
class BulletPoints(Constraint):
    """Exactly `num_bullets` markdown bullet points: lines starting with `*` (not `**`) or
    `-`, as IFEval counts them."""

    num_bullets: Count

    def check(self, text: str) -> bool:
        stars = re.findall(r"^\s*\*[^*].*$", text, flags=re.MULTILINE)
        dashes = re.findall(r"^\s*-.*$", text, flags=re.MULTILINE)
        return len(stars) + len(dashes) == self.num_bullets


@register("detectable_format:constrained_response")
class ConstrainedResponse(Constraint):
    """One of the options, and only one: a response that gives them all is no choice (IFEval
    passes any response holding one of them, `My answer is yes. My answer is no.` included)."""

    def check(self, text: str) -> bool:
        return sum(option in text.strip() for option in CONSTRAINED_ANSWERS) == 1


@register("detectable_format:number_highlighted_sections")
class HighlightedSections(Constraint):
    """At least `num_highlights` non-empty *highlighted* or **highlighted** sections."""

    num_highlights: Count

    def check(self, text: str) -> bool:
        plain = [span[1:-1] for span in re.findall(r"\*[^\n*]*\*", text)]
        bold = [span[2:-2] for span in re.findall(r"\*\*[^\n*]*\*\*", text)]
        return sum(1 for inside in plain + bold if inside.strip()) >= self.num_highlights


@register("detectable_format:multiple_sections")
class Sections(Constraint):
    """At least `num_sections` sections, each starting with the splitter and its number
    (`SECTION 1`), wherever they stand."""

    section_spliter: Word
    num_sections: Count

    def check(self, text: str) -> bool:
        splitter = re.escape(self.section_spliter.strip())
        return len(re.findall(rf"{splitter}\s?\d+", text)) >= self.num_sections


@register("detectable_format:json_format")
class JsonFormat(Constraint):
    """The whole answer is JSON; a markdown fence (```json) around it is allowed."""

    def check(self, text: str) -> bool:
        body = text.strip()
        for fence in ("```json", "```Json", "```JSON", "```"):
            body = body.removeprefix(fence)
        body = body.removesuffix("```").strip()
        try:
            json.loads(body)
        except (ValueError, RecursionError):  # nested past what Python's parser reads
            return False
        return True


@register("detectable_format:title")
class Title(Constraint):
    """A title in double angular brackets, like <<poem of joy>>."""

    def check(self, text: str) -> bool:
        return any(title.lstrip("<").rstrip(">").strip()
                   for title in re.findall(r"<<[^\n]+>>", text))


@register("combination:two_responses")
class TwoResponses(Constraint):
    """Two different responses separated by six asterisks (******)."""

    def check(self, text: str) -> bool:
        parts = split_paragraphs(text, r"\*{6}")
        return (parts is not None and len(parts) == 2
                and parts[0].strip() != parts[1].strip())


@register("combination:repeat_prompt")
class RepeatPrompt(Constraint):
    """Repeat the request word for word first, then answer it."""

    prompt_to_repeat: Phrase

    def check(self, text: str) -> bool:
        prompt = self.prompt_to_repeat.strip().lower()
        answer = text.strip().lower()
        return answer.startswith(prompt) and bool(answer[len(prompt):].strip())


@register("startend:end_checker")
class EndPhrase(Constraint):
    """End with exactly this phrase; nothing may follow it."""

    end_phrase: Phrase

    def check(self, text: str) -> bool:
        return text.strip().strip('"').lower().endswith(self.end_phrase.strip().lower())


@register("change_case:capital_word_frequency")
class CapitalWordFrequency(Constraint):
    """Words written in all capital letters (nltk's word tokens, as IFEval counts them: a
    hyphenated word is one), counted against a threshold."""

    capital_frequency: Count
    capital_relation: Relation

    def check(self, text: str) -> bool:
        capitals = [token for token in treebank_tokens(text) if token.isupper()]
        return compare(len(capitals), self.capital_relation, self.capital_frequency)


@register("change_case:english_capital")
class EnglishCapital(Constraint):
    """English, in capital letters only."""

    def check(self, text: str) -> bool:
        return text.isupper() and detect_language(text) == "en"


@register("change_case:english_lowercase")
class EnglishLowercase(Constraint):
    """English, in lowercase letters only."""

    def check(self, text: str) -> bool:
        return text.islower() and detect_language(text) == "en"


@register("punctuation:no_comma")
class NoComma(Constraint):
    def check(self, text: str) -> bool:
        return "," not in text and "\uff0c" not in text


@register("startend:quotation")
class Quotation(Constraint):
    """The whole answer wrapped in double quotation marks."""

    def check(self, text: str) -> bool:
        body = text.strip()
        return len(body) > 1 and body[0] == '"' and body[-1] == '"'
