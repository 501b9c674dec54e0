"""The one answer region every kind reads (`verifier.kinds.answer_region`): boxes, answer tags and
the reasoning block read alike by math, format, text and composites of them, in time linear in the
response, and each kind's work on a hostile response ending by its deadline."""

from __future__ import annotations

import random
import re

import pytest

from rlvr_contract.schemas import parse_item
from verifier.kinds.answer_region import (
    MAX_BOX_CHARS,
    Box,
    boxes,
    is_blank,
    strip_thinking,
    tag_contents,
)
from verifier.kinds.registry import check_item

TIMEOUT_S = 5.0


def score(item: dict, timeout_s: float = TIMEOUT_S) -> dict:
    return check_item(parse_item(item), timeout_s).model_dump()


def composite(response: str) -> dict:
    """Math, a boxed format and a boxed text match of one response."""
    return score({"kind": "composite", "response": response, "graders": [
        {"name": "math", "grader": {"kind": "math", "answer": "5"}},
        {"name": "format", "grader": {"kind": "format", "template": "boxed"}},
        {"name": "text", "grader": {"kind": "text", "answer": "5", "extract": "boxed"}}]})


def part_statuses(result: dict) -> dict[str, str]:
    return {name: part["status"] for name, part in result["detail"]["parts"].items()}


# --------------------------------------------------------------------------- one reading


@pytest.mark.parametrize("response", ["so \\boxed 5", "so $\\boxed 5$.", "\\fbox{5}",
                                      "\\boxed{5}", "<think>\\boxed{4}</think>\\boxed 5"])
def test_every_kind_reads_a_box_alike(response: str) -> None:
    """`\\boxed 5` was 5 for math and no box at all for format and text: a composite of them
    contradicted itself."""
    result = composite(response)
    assert part_statuses(result) == {"math": "correct", "format": "correct", "text": "correct"}


@pytest.mark.parametrize("response", [
    "<think>\nThe answer is $\\boxed{5}$",
    "  <THINK>so 5, \\boxed{5}",
])
def test_an_unclosed_reasoning_block_has_no_answer_for_any_kind(response: str) -> None:
    """Math read inside a reasoning block that never closes (a completion cut off while
    thinking); the other kinds found no answer in it."""
    result = composite(response)
    assert part_statuses(result) == {"math": "no_answer", "format": "wrong", "text": "no_answer"}
    assert result["reward"] == 0.0


def test_characters_that_lowercase_longer_hide_nothing_of_the_answer() -> None:
    """Nine `İ` in the reasoning hid `\\boxed` of the first of two boxes: math, format and
    text each saw one box and rewarded a response that gives two answers."""
    result = composite("<think>" + "\u0130" * 9 + "</think>\\boxed{4} \\boxed{5}")
    statuses = part_statuses(result)
    assert (statuses["math"], statuses["format"]) == ("wrong", "wrong"), result


def test_a_closed_reasoning_block_is_skipped_by_every_kind() -> None:
    result = composite("<think>maybe \\boxed{4}</think>\n\nSo \\boxed{5}.")
    assert part_statuses(result) == {"math": "correct", "format": "correct", "text": "correct"}


# --------------------------------------------------------------------------- boxes and tags


def test_boxes_in_order_of_their_start() -> None:
    text = ("a \\boxed{1} b \\boxed 5$ c \\boxed{\\boxed{2}} \\boxed{\\{1\\}} \\\\boxed{7} "
            "\\boxedx{3} \\fbox{9} \\boxed{")
    assert [box.content for box in boxes(text)] == [
        "1", "5", "\\boxed{2}", "2", "\\{1\\}", "7", "9", None]
    assert boxes("x \\boxed{a{b}c} y") == [Box(2, 15, "a{b}c")]


def test_a_box_without_braces_ends_at_the_next_box() -> None:
    """Each box of `\\boxed\\boxed…` held the rest of the text as its argument: 3 GB and
    9 s for a 200 kB response, read by math outside any deadline or memory limit."""
    text = "\\boxed" * 5_000
    found = boxes(text)
    assert len(found) == 5_000 and all(box.content is None for box in found)
    assert [box.content for box in boxes("so \\boxed 5\\boxed 6 or \\boxed 7$")] == ["5", "6", "7"]


def test_a_box_closing_past_the_limit_is_unclosed() -> None:
    assert boxes("\\boxed{" + "1" * MAX_BOX_CHARS + "}")[0].content is None
    assert boxes("\\boxed{" + "1" * (MAX_BOX_CHARS - 2) + "}")[0].content is not None


def _boxes_one_by_one(text: str) -> list[tuple[int, str | None]]:
    """The reading the service had, box by box: each command scanned on from its brace (the
    quadratic way; fine on short texts)."""
    found = []
    for command in re.finditer(r"\\(?:boxed|fbox)(?![A-Za-z])", text):
        at = command.end()
        while at < len(text) and text[at] in " \t":
            at += 1
        if at < len(text) and text[at] != "{":
            end = at
            while end < len(text) and not text[end].isspace() and text[end] != "$" \
                    and not re.match(r"\\(?:boxed|fbox)(?![A-Za-z])", text[end:]):
                end += 1
            found.append((command.start(), text[at:end] or None))
            continue
        depth, index, content = 0, at, None
        while index < min(len(text), at + MAX_BOX_CHARS):
            if text[index] == "\\":
                index += 2
                continue
            depth += (text[index] == "{") - (text[index] == "}")
            if depth == 0:
                content = text[at + 1:index]
                break
            index += 1
        found.append((command.start(), content))
    return found


def test_boxes_agree_with_a_box_by_box_scan() -> None:
    """The one pass finds what scanning on from each box command finds, on random texts made
    of the pieces that matter (commands, braces, escapes, spaces, dollars)."""
    pieces = ["\\boxed", "\\fbox", "\\boxedx", "{", "}", "\\{", "\\}", "\\\\", " ", "$", "1", "x"]
    rng = random.Random(23)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        assert [(box.start, box.content) for box in boxes(text)] == _boxes_one_by_one(text), text


def test_answer_tags_agree_with_the_lazy_regex() -> None:
    pieces = ["<answer>", "</answer>", "<ANSWER>", "</Answer>", "<answer", "a", "\n", "<"]
    rng = random.Random(24)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 20)))
        expected = re.findall(r"<answer>(.*?)</answer>", text, flags=re.DOTALL | re.IGNORECASE)
        assert tag_contents(text, "answer") == expected, text


@pytest.mark.parametrize(("text", "answer_part"), [
    ("<think>a</think>b", "b"), ("<think>a</THINK> b", " b"), ("no block", "no block"),
    ("<think>never closed", None), ("\n <think>x", None), ("a</think>b</think>c", "c"),
    ("text <think> later", "text <think> later"),
    # `İ` lowercases to two characters: the answer part lost a character per `İ` before it
    ("<think>\u0130\u0130\u0130</think>a, b", "a, b"),
    ("<think>\u0130\u0130</THINK>\u0130x", "\u0130x"),
])
def test_the_reasoning_block(text: str, answer_part: str | None) -> None:
    assert strip_thinking(text) == answer_part


# --------------------------------------------------------------------------- hostile shapes

# Responses of 140 kB and more whose shape cost a box or tag reader quadratic time (minutes).
HOSTILE = {
    "unclosed_boxes": "\\boxed{" * 20_000,
    "boxes_without_braces": "\\boxed x" * 20_000,
    "boxes_back_to_back": "\\boxed" * 30_000,
    "box_over_open_braces": "\\boxed{" + "{" * 150_000,
    "unclosed_tags": "<answer>" * 25_000,
    "empty_boxes": "\\boxed{}" * 20_000,
}
KINDS = {
    "format_boxed": ({"kind": "format", "template": "boxed"}, "wrong"),
    "format_answer_tag": ({"kind": "format", "template": "answer_tag"}, "wrong"),
    "text_boxed": ({"kind": "text", "answer": "y", "extract": "boxed"}, None),
    "text_answer_tag": ({"kind": "text", "answer": "y", "extract": "answer_tag"}, None),
    "math": ({"kind": "math", "answer": "y"}, None),
}


@pytest.mark.timeout(240)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", HOSTILE)
def test_hostile_responses_end_by_their_verdict(shape: str, kind: str) -> None:
    """Each ends with the verdict its layout deserves, or as `timeout` at the deadline; never
    held a worker for minutes (the box reader of format and text was quadratic and ran outside
    any deadline)."""
    item, expected = KINDS[kind]
    result = score({**item, "response": HOSTILE[shape]}, timeout_s=2.0)
    assert result["status"] in ({expected} if expected else {"wrong", "no_answer"}) | {"timeout"}
    assert result["reward"] == 0.0


@pytest.mark.parametrize(("text", "blank"), [
    ("", True), (" \n\t", True), ("\u200b\ufeff\u2060\u00ad", True), ("\u3164\u2800", True),
    ("\\, \\; \\quad ~ \\!", True), ("\\phantom{42}", True), ("{}", True), ("$$", True),
    ("\\text{ }", True), ("<answer></answer>", True), ("\\boxed{}", True),
    (".", False), ("4", False), ("\\pi", False), ("\\{\\}", False), ("\\mathbb{R}", False),
    ("\\(x\\)", False), ("<b>no</b>", False), ("\u4e00", False), ("\\textdegree", False),
])
def test_what_shows_nothing_is_blank(text: str, blank: bool) -> None:
    assert is_blank(text) is blank
