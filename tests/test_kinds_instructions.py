"""Every instruction constraint holds for a response that follows it and fails for one that
does not (a constraint that always passes is the defect other verifiers shipped)."""

from __future__ import annotations

import pytest

from rlvr_contract.item_kinds import InstructionsItem
from rlvr_contract.schemas import Status
from verifier.kinds.instructions import (
    INSTRUCTION_IDS,
    admission_problem,
    check_instructions,
    follows,
)
from verifier.kinds.instructions import text as segmentation
from verifier.kinds.instructions.registry import build

FR = "Bonjour à tous, je suis très heureux de vous présenter notre nouveau projet aujourd'hui."
EN = "the quick brown fox jumps over the lazy dog and runs far away into the forest"
PROMPT = "Write a poem about the sea"

# id: (kwargs, a response that follows it, one that does not)
CASES: dict[str, tuple[dict, str, str]] = {
    "keywords:existence": ({"keywords": ["ocean", "salt"]}, "The ocean tastes of salt.",
                           "The ocean is blue."),
    "keywords:frequency": ({"keyword": "wave", "frequency": 2, "relation": "at least"},
                           "A wave, then another wave.", "Only one wave."),
    "keywords:forbidden_words": ({"forbidden_words": ["storm"]}, "Calm seas today.",
                                 "A Storm is coming."),
    "keywords:letter_frequency": ({"letter": "z", "let_frequency": 2, "let_relation": "at least"},
                                  "Zebras zigzag.", "Horses gallop."),
    "language:response_language": ({"language": "fr"}, FR, EN),
    "length_constraints:number_sentences": ({"num_sentences": 2, "relation": "less than"},
                                            "Dr. Smith went home.", "One. Two. Three."),
    "length_constraints:number_paragraphs": ({"num_paragraphs": 2}, "First part.\n***\nSecond.",
                                             "First part.\n\nSecond."),
    "length_constraints:number_words": ({"num_words": 5, "relation": "at least"},
                                        "one two three four five", "one two three"),
    "length_constraints:nth_paragraph_first_word": (
        {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "then"},
        "Start here.\n\nThen we end.", "Start here.\n\nAnd we end."),
    "detectable_content:number_placeholders": ({"num_placeholders": 2},
                                               "Dear [name], at [address].", "Dear [name]."),
    "detectable_content:postscript": ({"postscript_marker": "P.S."},
                                      "Hello.\n\nP.S. see you soon", "Hello, see you soon."),
    "detectable_format:number_bullet_lists": ({"num_bullets": 2}, "* one\n* two",
                                              "* one\n* two\n* three"),
    "detectable_format:constrained_response": ({}, "My answer is yes.", "Yes, sure."),
    "detectable_format:number_highlighted_sections": ({"num_highlights": 2},
                                                      "*first* and **second**", "*first* only"),
    "detectable_format:multiple_sections": ({"section_spliter": "SECTION", "num_sections": 2},
                                            "SECTION 1\nintro\nSECTION 2\nbody",
                                            "SECTION 1\nall of it"),
    "detectable_format:json_format": ({}, '```json\n{"a": 1}\n```', "a: 1"),
    "detectable_format:title": ({}, "<<Sea Song>>\nThe sea sings.", "Sea Song\nThe sea sings."),
    "combination:two_responses": ({}, "Answer one.\n******\nAnswer two.",
                                  "Answer one.\n******\nAnswer one."),
    "combination:repeat_prompt": ({"prompt_to_repeat": PROMPT},
                                  f"{PROMPT}\nThe sea is wide.", "The sea is wide."),
    "startend:end_checker": ({"end_phrase": "Any other questions?"},
                             "Done. Any other questions?", "Any other questions? Done."),
    "change_case:capital_word_frequency": ({"capital_frequency": 2,
                                            "capital_relation": "at least"},
                                           "This is VERY IMPORTANT.", "This is Very important."),
    "change_case:english_capital": ({}, EN.upper(), EN),
    "change_case:english_lowercase": ({}, EN, EN.upper()),
    "punctuation:no_comma": ({}, "No commas here.", "Yes, a comma."),
    "startend:quotation": ({}, '"Quoted answer."', 'Quoted "answer".'),
    "copy:repeat_phrase": ({"phrase": "the cat sat down", "small_n": 2},
                           "the dog sat down and then the cat ran down",
                           "the cat sat down and the cat sat down"),
    "copy:copy": ({"prompt_to_repeat": PROMPT}, PROMPT.upper(), f"{PROMPT}: waves"),
    "new:copy_span_idx": ({"prompt_to_repeat": PROMPT, "n_start": 8, "n_end": 12}, "poem",
                          "a poem"),
    "detectable_format:sentence_hyphens": ({}, "I sail.-You swim.-We rest.",
                                           "I sail. - You swim."),
    "keywords:no_adjacent_consecutive": ({}, "apple cherry apple", "apple banana"),
    "detectable_format:square_brackets": ({}, "[every] [word] [here]", "[every] word"),
    "keywords:word_once": ({"keyword": "tide"}, "The tide turns.", "Tide after tide."),
    "keywords:word_count_different_numbers": ({"keyword": "sun", "frequency": 2,
                                               "relation": "less than"},
                                              "The sun sets.", "Sun, sun, sun."),
    "keywords:exclude_word_harder": ({"keyword": "rain"}, "Dry and sunny.",
                                     "We saw rain today."),
    "paragraphs:paragraphs": ({}, "One.\n***\nTwo.", "One.\n***\nTwo.\n***\nThree."),
    "paragraphs:paragraphs2": ({}, "One.\n\nTwo.", "One.\nTwo."),
    "first_word:first_word_sent": ({"first_word": "we"}, "We go. We stay.", "We go. They stay."),
    "first_word:first_word_answer": ({"first_word": "Sure"}, "Sure, here it is.",
                                     "Here it is, sure."),
    "last_word:last_word_sent": ({"last_word": "now"}, "Go now. Stop now!", "Go now. Stop."),
    "last_word:last_word_answer": ({"last_word": "end"}, "This is the end.",
                                   "The end is near."),
    "detectable_format:bigram_wrapping": ({}, "<<I am>> <<at home>>", "<<I am>> at home"),
    "copy:copying_simple": ({"prompt_to_repeat": PROMPT}, f"  {PROMPT}  ",
                            f"{PROMPT}. The sea."),
    "copy:copying_multiple": ({"prompt_to_repeat": PROMPT, "N": 2},
                              f"{PROMPT}\n******\n{PROMPT}", PROMPT),
    "punctuation:punctuation_dot": ({}, "No dots here", "A dot."),
    "punctuation:punctuation_exclamation": ({}, "Calm words.", "Wow!"),
    "count:lowercase_counting": ({"N": 2}, "ALL CAPS but two", "three lowercase words"),
    "letters:letter_counting": ({"N": 5, "relation": "less than"}, "Hi!", "Hello there"),
    "letters:letter_counting2": ({"letter": "a", "let_frequency": 3, "let_relation": "at least"},
                                 "A banana.", "No."),
    "count:counting_composition": ({"n_sent": 2, "n_words": 2},
                                   "I go. You stay.\n***\nWe run. They walk.\n***\n"
                                   "Birds sing. Dogs bark.",
                                   "I go. You stay.\n***\nWe run.\n***\nBirds sing. Dogs bark."),
    "count:count_unique": ({}, "every word differs here", "the word the word"),
    "count:count_increment_word": ({"keyword1": "red", "keyword2": "blue"},
                                   "red blue and blue", "red blue"),
    "keywords:palindrome": ({}, "We saw a racecar.", "A sea of words, I, a."),
    "keywords:keyword_specific_position": ({"keyword": "blue", "n": 2, "m": 3},
                                           "Hello there. The sky blue is.",
                                           "Hello there. The blue sky."),
    "keywords:start_end": ({}, "Yes, I said yes", "Yes, I said no"),
}


def test_the_table_covers_every_registered_id() -> None:
    assert sorted(CASES) == INSTRUCTION_IDS
    assert len(INSTRUCTION_IDS) == 54


def check(instruction_id: str, kwargs: dict, response: str, mode: str = "strict"):
    item = InstructionsItem(response=response, instruction_id_list=[instruction_id],
                            kwargs=[kwargs], mode=mode)
    assert admission_problem(item) is None
    return check_instructions(item, timeout_s=10)


@pytest.mark.parametrize("instruction_id", sorted(CASES))
def test_satisfied_and_violated(instruction_id: str) -> None:
    kwargs, follows, violates = CASES[instruction_id]
    good = check(instruction_id, kwargs, follows)
    bad = check(instruction_id, kwargs, violates)
    assert (good.status, good.reward) == (Status.correct, 1.0), good.detail
    assert (bad.status, bad.reward) == (Status.wrong, 0.0), bad.detail
    assert bad.detail["constraints"] == [{"id": instruction_id, "ok": False}]


def test_fraction_scoring_and_detail_per_constraint() -> None:
    item = InstructionsItem(response="<think>hmm, no commas?</think>Short answer here.",
                            instruction_id=["punctuation:no_comma", "keywords:existence",
                                            "length_constraints:number_words"],
                            kwargs=[{}, {"keywords": ["missing"]},
                                    {"num_words": 3, "relation": "at least", "letter": None}],
                            scoring="fraction")
    result = check_instructions(item)
    assert result.reward == pytest.approx(2 / 3)
    assert [c["ok"] for c in result.detail["constraints"]] == [True, False, True]


def test_unclosed_reasoning_and_empty_answers_are_no_answer() -> None:
    for response in ("<think>still thinking, no commas", "<think>done</think>   "):
        result = check_instructions(InstructionsItem(
            response=response, instruction_id_list=["punctuation:no_comma"]))
        assert result.status == Status.no_answer and result.reward == 0.0


def test_loose_mode_forgives_a_first_line_and_asterisks() -> None:
    response = "Sure, here you go:\n*Quoted answer.*"
    kwargs: dict = {}
    assert check("punctuation:no_comma", kwargs, response).status == Status.wrong
    assert check("punctuation:no_comma", kwargs, response, mode="loose").status == Status.correct


@pytest.mark.parametrize(("ids", "kwargs", "problem"), [
    (["keywords:nope"], [{}], "instruction_id_list.0: unknown instruction id 'keywords:nope'"),
    (["punctuation:no_comma", "keywords:frequency"], [{}, {"keyword": "a", "relation": "at least"}],
     "kwargs.1.frequency: Field required"),
    (["keywords:frequency"], [{"keyword": "a", "frequency": 1, "relation": "about"}],
     "kwargs.0.relation: Input should be"),
    (["punctuation:no_comma"], [{"surprise": 1}], "kwargs.0.surprise: Extra inputs"),
])
def test_unknown_ids_and_bad_kwargs_are_refused(ids, kwargs, problem) -> None:
    item = InstructionsItem(response="x", instruction_id_list=ids, kwargs=kwargs)
    assert admission_problem(item).startswith(problem)


def test_null_kwargs_from_arrow_datasets_are_ignored() -> None:
    built = build("keywords:existence", {"keywords": ["a"], "num_words": None, "letter": None})
    assert built.check("a b")


@pytest.mark.parametrize(("instruction_id", "kwargs", "response", "follows"), [
    # Punkt's trained English model knows "Gen." and "Sen.": two sentences, as IFEval counts
    ("length_constraints:number_sentences", {"num_sentences": 3, "relation": "less than"},
     "Gen. Patton won. Sen. Smith lost.", True),
    # nltk's word tokens, as IFEval counts capitals: "DON'T" is "DO" and "N'T"
    ("change_case:capital_word_frequency", {"capital_frequency": 3,
                                            "capital_relation": "at least"},
     "DON'T STOP now", True),
    # IFEval's rule-based sentences for the IF-RLVR ids: "Mr." ends none; a keyword's case counts
    ("keywords:keyword_specific_position", {"keyword": "blue", "n": 2, "m": 3},
     "Mr. Smith came. The sky blue is.", True),
    ("keywords:keyword_specific_position", {"keyword": "blue", "n": 2, "m": 3},
     "Mr. Smith came. The sky Blue is.", False),
    # a postscript or a section wherever it stands, as IFEval finds them
    ("detectable_content:postscript", {"postscript_marker": "P.S."},
     "That is all (no new line) P.S. see you", True),
    ("detectable_format:multiple_sections", {"section_spliter": "SECTION", "num_sections": 2},
     '"SECTION 1: one.\n\nSECTION 2: two."', True),
    # a copy ends at its last word, whatever punctuation follows
    ("copy:repeat_phrase", {"phrase": "the cat sat down", "small_n": 2},
     "the dog sat down, then the cat ran down,", True),
    # each piece between hyphens must be one whole sentence
    ("detectable_format:sentence_hyphens", {}, "I sail.-You swim.-We rest. The end.", False),
    # one of the options, not all of them at once (IFEval passed any response holding one)
    ("detectable_format:constrained_response", {},
     "My answer is yes. My answer is no. My answer is maybe.", False),
    ("detectable_format:constrained_response", {}, "My answer is no. My answer is no.", True),
])
def test_text_is_split_as_the_reference_splits_it(instruction_id: str, kwargs: dict,
                                                   response: str, follows: bool) -> None:
    result = check(instruction_id, kwargs, response)
    assert (result.status == Status.correct) is follows, result.detail


@pytest.mark.parametrize("response", [",", "***", "!!!", "( )", "- -", '""', "\u2014"])
@pytest.mark.parametrize(("instruction_id", "kwargs"), [
    ("count:count_unique", {}),
    ("first_word:first_word_sent", {"first_word": "the"}),
    ("last_word:last_word_sent", {"last_word": "end"}),
])
def test_punctuation_alone_follows_no_constraint_on_its_words(instruction_id: str, kwargs: dict,
                                                              response: str) -> None:
    """An answer with no word and no sentence met "every sentence starts with the" and "no
    word twice" vacuously (all() of nothing); IFEvalG refuses each of these."""
    assert check(instruction_id, kwargs, response).status == Status.wrong


def test_json_nested_past_the_parser_is_not_json_the_constraint_accepts() -> None:
    """A response nested deeper than Python's JSON parser follows (RecursionError) fails the
    constraint, a verdict: it was the response's doing, never a masked infra_error."""
    deep = "[" * 100_000 + "]" * 100_000
    item = InstructionsItem(response=deep, scoring="fraction",
                            instruction_id_list=["detectable_format:json_format",
                                                 "punctuation:no_comma"])
    result = check_instructions(item, timeout_s=5.0)
    assert (result.status, result.reward) == (Status.wrong, 0.5), result
    assert [c["ok"] for c in result.detail["constraints"]] == [False, True]


def test_an_answer_is_split_into_sentences_once_for_all_its_constraints(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each constraint split the answer again (Punkt, then the Treebank rules): ten sentence
    and token constraints over a 10 kB answer and its loose variants ran past the deadline, a
    right answer scored `timeout`."""
    splits: list[str] = []
    punkt = segmentation._punkt()

    class Counting:
        def tokenize(self, text: str) -> list[str]:
            splits.append(text)
            return punkt.tokenize(text)

    monkeypatch.setattr(segmentation, "_punkt", Counting)
    answer = "THE sea is CALM today. It shines. " + "Waves come and go. " * 40 + "So ends THE"
    constraints = [build("change_case:capital_word_frequency",
                         {"capital_frequency": 2, "capital_relation": "at least"}),
                   build("keywords:start_end", {}),
                   build("length_constraints:number_sentences",
                         {"num_sentences": 3, "relation": "at least"})]
    assert follows(answer, constraints, "strict") == [True, True, True]
    assert splits.count(answer) == 1, len(splits)
