"""IFEval's 25 verifiable instructions (Zhou et al., 2023), with IFEval's kwargs names.

Written from the published definitions. Where IFEval lets a response pass without evidence,
it fails here: an undetectable language (empty text) is not the requested language.
Keywords are matched literally (IFEval passes them to `re` unescaped).
"""

from __future__ import annotations

import json
import re
from typing import Annotated

from pydantic import Field

from verifier.instructions.registry import (
    Constraint,
    Count,
    Phrase,
    Relation,
    Word,
    compare,
    register,
)
from verifier.instructions.text import STARS, detect_language, sentences, split_paragraphs, words

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
        return compare(len(sentences(text)), self.relation, self.num_sentences)


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
    """Paragraphs separated by blank lines; the nth starts with `first_word`."""

    num_paragraphs: Annotated[int, Field(ge=1, le=10_000)]
    nth_paragraph: Annotated[int, Field(ge=1, le=10_000)]
    first_word: Word

    def check(self, text: str) -> bool:
        paragraphs = split_paragraphs(text, r"\n\n")
        if paragraphs is None or len(paragraphs) != self.num_paragraphs:
            return False
        if self.nth_paragraph > len(paragraphs):
            return False
        found = words(paragraphs[self.nth_paragraph - 1])
        return bool(found) and found[0].lower() == self.first_word.strip().lower()


@register("detectable_content:number_placeholders")
class Placeholders(Constraint):
    """At least `num_placeholders` placeholders in square brackets, like [address]."""

    num_placeholders: Count

    def check(self, text: str) -> bool:
        return len(re.findall(r"\[[^\[\]\n]*?\S[^\[\]\n]*?\]", text)) >= self.num_placeholders


@register("detectable_content:postscript")
class Postscript(Constraint):
    """A line starting with the marker (P.S., P.P.S, ...), followed by some text."""

    postscript_marker: Word

    def check(self, text: str) -> bool:
        marker = self.postscript_marker.strip()
        if marker.upper().replace(" ", "") in ("P.S.", "P.S"):
            pattern = r"^\s*p\.\s?s\.?(?!\s?s)"
        elif marker.upper().replace(" ", "") in ("P.P.S", "P.P.S."):
            pattern = r"^\s*p\.\s?p\.\s?s\.?"
        else:
            pattern = r"^\s*" + re.escape(marker.lower())
        return re.search(pattern + r".*\S", text.lower(), flags=re.MULTILINE) is not None


@register("detectable_format:number_bullet_lists")
class BulletPoints(Constraint):
    """Exactly `num_bullets` markdown bullet points (`* ` or `- ` lines)."""

    num_bullets: Count

    def check(self, text: str) -> bool:
        bullets = re.findall(r"^\s*(?:\*[^*\n]|-[^-\n]|[*-]$)", text, flags=re.MULTILINE)
        return len(bullets) == self.num_bullets


@register("detectable_format:constrained_response")
class ConstrainedResponse(Constraint):
    def check(self, text: str) -> bool:
        return any(option in text.strip() for option in CONSTRAINED_ANSWERS)


@register("detectable_format:number_highlighted_sections")
class HighlightedSections(Constraint):
    """At least `num_highlights` non-empty *highlighted* or **highlighted** sections."""

    num_highlights: Count

    def check(self, text: str) -> bool:
        spans = re.findall(r"\*\*([^\n*]+)\*\*|\*([^\n*]+)\*", text)
        return sum(1 for bold, plain in spans if (bold or plain).strip()) >= self.num_highlights


@register("detectable_format:multiple_sections")
class Sections(Constraint):
    """At least `num_sections` sections, each starting with the splitter and its number."""

    section_spliter: Word
    num_sections: Count

    def check(self, text: str) -> bool:
        splitter = re.escape(self.section_spliter.strip())
        return len(re.findall(rf"(?:^|\s){splitter}\s?\d+", text)) >= self.num_sections


@register("detectable_format:json_format")
class JsonFormat(Constraint):
    """The whole answer is JSON (a ```json fence around it is allowed)."""

    def check(self, text: str) -> bool:
        body = text.strip()
        fenced = re.fullmatch(r"```(?:json|JSON|Json)?\s*\n?(.*?)\n?```", body, flags=re.DOTALL)
        if fenced:
            body = fenced.group(1).strip()
        try:
            json.loads(body)
        except (ValueError, RecursionError):  # nested past what Python's parser reads
            return False
        return True


@register("detectable_format:title")
class Title(Constraint):
    """A title in double angular brackets, like <<poem of joy>>."""

    def check(self, text: str) -> bool:
        return any(title.strip() for title in re.findall(r"<<([^\n]+?)>>", text))


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
    """Words written in all capital letters, counted against a threshold."""

    capital_frequency: Count
    capital_relation: Relation

    def check(self, text: str) -> bool:
        capitals = [w for w in re.findall(r"[^\W\d_]+(?:['.-][^\W\d_]+)*", text) if w.isupper()]
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
