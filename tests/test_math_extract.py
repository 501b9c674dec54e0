"""Final-answer extraction from whole completions (pure string work, no helper process)."""

from __future__ import annotations

import pytest

from verifier.math.extract import MAX_BOX_CHARS, extract_answer, find_box

EXTRACTIONS = [
    # (completion, expected answer, expected source)
    ("Adding up, we get $\\boxed{\\frac{3}{4}}$.", "\\frac{3}{4}", "boxed"),
    ("First \\boxed{3} was a guess. Redoing it: \\boxed{4}.", "4", "boxed"),
    ("thus \\boxed 5 is it", "5", "boxed"),
    ("\\fbox{12}", "12", "boxed"),
    ("\\boxed{\\left\\{1, 2\\right\\}}", "\\left\\{1, 2\\right\\}", "boxed"),
    ("\\boxed{\\frac{\\sqrt{3}}{2}}", "\\frac{\\sqrt{3}}{2}", "boxed"),
    ("so $x = \\boxed{2}$ and $y = \\boxed{3}$", "2, 3", "boxed"),
    ("$x = \\boxed{2}$ or $x = \\boxed{3}$", "2 \\text{ or } 3", "boxed"),
    ("\\boxed{1}\\boxed{1}\\boxed{1}", "1", "boxed"),
    ("The final answer is $\\frac{3}{4}$. I hope it is correct.", "\\frac{3}{4}", "final_answer"),
    ("Final Answer: The final answer is 42. I hope it is correct.", "42", "final_answer"),
    ("**Answer:** $x = 3$", "x = 3", "final_answer"),
    ("Answer: 12 apples", "12", "final_answer"),
    ("The answer is \\(\\frac{1}{2}\\).", "\\frac{1}{2}", "final_answer"),
    ("so the answer is 3.5.", "3.5", "final_answer"),
    ("Hence the answer is -7", "-7", "final_answer"),
    ("We get 5 and then 7.", "7", "last_number"),
    ("The area is 1,234 square units.", "1,234", "last_number"),
    ("so it is \\frac{5}{8} of the total", "\\frac{5}{8}", "last_number"),
    ("\\boxedx{3} is not a box, 9 is the number", "9", "last_number"),
]


@pytest.mark.parametrize(("completion", "answer", "source"), EXTRACTIONS)
def test_extracts_the_final_answer(completion: str, answer: str, source: str) -> None:
    extraction = extract_answer(completion)
    assert (extraction.answer, extraction.source, extraction.problem) == (answer, source, None)


@pytest.mark.parametrize("completion", [
    "I am not sure how to approach this.",
    "",
    "Let's see: \\boxed{",
    "\\boxed{\\frac{1}{2}",
    "Unclosed at the very end \\boxed{" + "{" * 50,
])
def test_nothing_extractable(completion: str) -> None:
    extraction = extract_answer(completion)
    assert extraction.answer is None
    assert extraction.problem


@pytest.mark.parametrize("completion", [
    "\\boxed{4} (or maybe 5)",
    "\\boxed{4}, probably.",
    "\\boxed{4} or 5, not sure",
])
def test_hedge_after_the_box(completion: str) -> None:
    extraction = extract_answer(completion)
    assert extraction.answer == "4"
    assert extraction.problem and "hedged" in extraction.problem


def test_either_case_is_not_a_hedge() -> None:
    assert extract_answer("\\boxed{4}, in either case.").problem is None


def test_escaped_braces_do_not_count() -> None:
    assert find_box("\\boxed{\\{1\\}} end") == (0, 13, "\\{1\\}")


def test_box_longer_than_the_limit_is_unclosed() -> None:
    start, _, content = find_box("\\boxed{" + "1" * (MAX_BOX_CHARS + 10) + "}")
    assert (start, content) == (0, None)


MEGABYTE_COMPLETIONS = {
    "boxes": "\\boxed{1}" * 120_000,
    "digits": "1" * 1_000_000,
    "answer_phrases": "answer is " * 100_000,
    "spaces_then_box": " " * 1_000_000 + "\\boxed{2}",
    "box_then_text": "\\boxed{2}" + " " * 60 + "x" * 1_000_000,
    "open_braces": "{" * 1_000_000,
    "unclosed_boxes": "\\boxed{" * 150_000,
}


@pytest.mark.parametrize("completion", MEGABYTE_COMPLETIONS.values(), ids=MEGABYTE_COMPLETIONS)
def test_megabyte_completions_are_handled(completion: str) -> None:
    extraction = extract_answer(completion)
    assert extraction.answer is None or len(extraction.answer) <= MAX_BOX_CHARS
