"""Agreement with the peer implementations the service follows, and where it deliberately
decides otherwise.

The instructions kind agrees with Google's IFEval code and open-instruct's IFEvalG, and the
reasoning-gym kind with reasoning-gym's own scorers, on every peer case (`shared/peer/`) but
the ones listed here, each under the rule that decides it: where a peer passes a response that
ignores the instruction, counts punctuation as words, reads a keyword as a regular
expression, or rewards an answer that is not there. The README's table of deliberate rules is
checked against this list, and the agreement test and bench (`tests/test_kinds_agreement.py`,
`bench/kinds_agreement.py`) accept a difference from a peer's verdict on exactly the cases
listed under a rule (by `case_fingerprint`), no other.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DeliberateRule:
    name: str
    peer: str
    applies_to: tuple[str, ...]  # instruction ids or reasoning-gym tasks
    service: str  # what the service does, and what the peer does instead
    cases: tuple[str, ...] = ()  # fingerprints of the peer cases this rule decides otherwise


def case_fingerprint(case: dict[str, Any]) -> str:
    """A stable name for one peer case: its id or task, its arguments and its response."""
    if "task" in case:
        key = [case["task"], case["entry"]["question"], case["response"]]
    else:
        key = [case["instruction_id"], case["kwargs"], case["response"]]
    text = json.dumps(key, sort_keys=True, ensure_ascii=False)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


IFEVAL, IFEVALG, GYM = "IFEval", "IFEvalG", "reasoning-gym"

DELIBERATE_RULES: tuple[DeliberateRule, ...] = (
    DeliberateRule(
        "reasoning block", f"{IFEVAL}, {IFEVALG}, {GYM}", ("*",),
        "the response is read after its `</think>` (a block never closed has no answer); the "
        "peers read the whole text, and reasoning-gym takes an `<answer>` tag inside the "
        "reasoning too"),
    DeliberateRule(
        "literal keywords", f"{IFEVAL}, {IFEVALG}",
        ("keywords:existence", "keywords:frequency", "keywords:forbidden_words",
         "detectable_content:postscript", "detectable_format:multiple_sections",
         "keywords:word_once", "keywords:word_count_different_numbers",
         "count:count_increment_word", "copy:repeat_phrase"),
        "keywords, postscript markers and section splitters match as written; the peers "
        "compile them as regular expressions (`.` matches any character, `c++` raises)"),
    DeliberateRule(
        "undetectable language", IFEVAL,
        ("language:response_language", "change_case:english_capital",
         "change_case:english_lowercase"),
        "a text whose language langdetect cannot tell (no letters) is not in the language "
        "asked for; IFEval passes it"),
    DeliberateRule(
        "empty placeholder", IFEVAL, ("detectable_content:number_placeholders",),
        "`[]` or `[ ]` is not a placeholder; IFEval counts it"),
    DeliberateRule(
        "one option", IFEVAL, ("detectable_format:constrained_response",),
        "the response gives exactly one of the options; IFEval passes one that gives them all "
        "(`My answer is yes. My answer is no.`)"),
    DeliberateRule(
        "full-width marks", f"{IFEVAL}, {IFEVALG}",
        ("punctuation:no_comma", "punctuation:punctuation_exclamation"),
        "a full-width comma `，` (exclamation mark `！`) is one; the peers see only the ASCII "
        "mark"),
    DeliberateRule(
        "answer after the repeat", IFEVAL, ("combination:repeat_prompt",),
        "the repeated request must be followed by an answer; IFEval passes a response that only "
        "repeats it", cases=("001acf11ae17",)),
    DeliberateRule(
        "first word before a colon", IFEVAL, ("length_constraints:nth_paragraph_first_word",),
        "a colon or semicolon ends the paragraph's first word (`Summary:` starts with "
        "`summary`); IFEval keeps it in the word", cases=("b3a0cdc29c04",)),
    DeliberateRule(
        "punctuation is no word", IFEVALG,
        ("count:counting_composition", "count:count_unique", "first_word:first_word_sent",
         "first_word:first_word_answer", "last_word:last_word_sent",
         "last_word:last_word_answer"),
        "a punctuation mark is not a word, alone (`now .`) or around one (`Sure,`), and a stray "
        "mark after the last sentence (`now.,`) is no sentence; IFEvalG counts nltk's "
        "punctuation tokens as words and compares words with their punctuation",
        cases=("c120f0e8bcca", "cc6819e821ab", "4932cffee89f", "3abcde8ace75", "7a61a792335c",
               "d781f0513c92", "8c9e3966a163", "bdfad9ba8302", "9f3a94a582cd", "9f67656d7913",
               "91e4e52b88bc", "27d85ade5cb1", "248790f674c1", "58fe8cf7e05c", "d6f36fcf8aaa",
               "7a1920ae779a", "a09859058543", "5f7c1ad39c5f", "413e04dab99f", "a207197bd76a",
               "3cb11cd891fc")),
    DeliberateRule(
        "unique in any case", IFEVALG, ("count:count_unique",),
        "a word repeated in another case (`The … the`) is repeated; IFEvalG compares tokens "
        "case-sensitively"),
    DeliberateRule(
        "excluded word anywhere", IFEVALG, ("keywords:exclude_word_harder",),
        "the keyword is found as a whole word in any case and position (first, last, next to "
        "punctuation); IFEvalG looks only for ` keyword ` between two spaces",
        cases=("17a3c18331e2", "2114d7bd404c", "895b4b2806cb", "aa433f03587e")),
    DeliberateRule(
        "palindrome of three letters", IFEVALG, ("keywords:palindrome",),
        "a palindrome is a word of three letters or more, case and punctuation ignored "
        "(`Racecar,`); IFEvalG passes any response holding `a` or `I`",
        cases=("3ae9e42ded90",)),
    DeliberateRule(
        "every word in a bigram", IFEVALG, ("detectable_format:bigram_wrapping",),
        "every word is in a wrapped pair: an odd token left over (`!`) or words wrapped one by "
        "one (`<<I>> <<am>>`) fail; IFEvalG does not check a last odd token",
        cases=("6e592b65c257",)),
    DeliberateRule(
        "game of life halting", GYM, ("game_of_life_halting",),
        "the answer must be the right True or False; the task's scorer accepts any non-empty "
        "text", cases=("bd24ab6353bb", "42a193b56a1a", "e3c8200a87ef", "2fcf08587523")),
    DeliberateRule(
        "no answer scores nothing", GYM, ("countdown", "fraction_simplification", "puzzle24"),
        "a response with no answer is `no_answer`, 0.0; these tasks' scorers give 0.01 to a "
        "missing answer (an empty `<answer></answer>` is scored by the task, as reasoning-gym "
        "does)"),
)


def case_item(case: dict[str, Any]) -> dict[str, Any]:
    """The service item that scores one peer case (an IFEval or IFEvalG row, or a
    reasoning-gym one)."""
    if "task" in case:
        return {"kind": "reasoning_gym", "response": case["response"], "task": case["task"],
                "config": case["config"], "entry": case["entry"]}
    return {"kind": "instructions", "response": case["response"],
            "instruction_id_list": [case["instruction_id"]], "kwargs": [case["kwargs"]]}


def agrees(case: dict[str, Any], result: dict[str, Any]) -> bool:
    """Whether the service's result is the peer's verdict (IFEval's pass or fail, or
    reasoning-gym's score)."""
    if "task" in case:
        return result["reward"] is not None and abs(result["reward"] - case["expected"]) < 1e-9
    return (result["status"] == "correct") == case["expected"]


def deliberate_cases() -> dict[str, str]:
    """Fingerprint of each peer case decided by a deliberate rule, to the rule's name."""
    return {case: rule.name for rule in DELIBERATE_RULES for case in rule.cases}
