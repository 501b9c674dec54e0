"""Text matching, format and length rewards and composites, through the real service
(`verifier_url`: uvicorn + the embedded worker pool), plus their hostile inputs."""

from __future__ import annotations

import httpx
import pytest

from rlvr_contract.item_kinds import TextItem
from rlvr_contract.schemas import Status
from verifier.kinds import text

ReDoS = {"kind": "text", "match": "regex", "answer": "(a+)+$", "response": "a" * 40 + "!"}


def verify(url: str, *items: dict) -> list[dict]:
    response = httpx.post(f"{url}/v1/verify", json={"items": list(items)}, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()["results"]


@pytest.mark.parametrize(("item", "reward", "status"), [
    ({"answer": "Paris", "match": "exact", "response": "Paris"}, 1.0, "correct"),
    ({"answer": "Paris", "match": "exact", "response": "paris"}, 0.0, "wrong"),
    ({"answer": "The Eiffel Tower", "response": "eiffel tower!"}, 1.0, "correct"),
    ({"answer": ["NYC", "New York"], "response": "<think>hmm</think> new york."}, 1.0, "correct"),
    ({"answer": "Lyon", "response": "Paris"}, 0.0, "wrong"),
    ({"answer": r"\d{4}-\d{2}", "match": "regex", "response": "2024-05"}, 1.0, "correct"),
    ({"answer": r"\d{4}-\d{2}", "match": "regex", "response": "in 2024-05"}, 0.0, "wrong"),
    ({"answer": "the cat sat", "match": "f1", "response": "a cat sat down"}, 0.8, "wrong"),
    ({"answer": "B", "match": "choice", "response": "Let me see... The answer is (B)."},
     1.0, "correct"),
    ({"answer": "B", "match": "choice", "response": "**C**"}, 0.0, "wrong"),
    # several letters offered for one are a hedge, not the first (or the last) of them
    ({"answer": "B", "match": "choice", "response": "The answer is (B) or (D)."}, 0.0, "wrong"),
    ({"answer": "D", "match": "choice", "response": "The answer is (B) or (D)."}, 0.0, "wrong"),
    ({"answer": "B", "match": "choice", "response": "Answer: B, D"}, 0.0, "wrong"),
    ({"answer": "B", "match": "choice", "response": "The answer is B/D."}, 0.0, "wrong"),
    ({"answer": "B", "match": "choice",
      "response": "Options (A) and (C) fail; the answer is (B)."}, 1.0, "correct"),
    ({"answer": "B", "match": "choice", "response": "The answer is B, and I am sure."},
     1.0, "correct"),
    ({"answer": "42", "extract": "answer_tag", "response": "so <answer> 42 </answer>"},
     1.0, "correct"),
    ({"answer": "42", "extract": "boxed", "response": "no box: 42"}, 0.0, "no_answer"),
])
def test_text_matches(verifier_url: str, item: dict, reward: float, status: str) -> None:
    [result] = verify(verifier_url, {"kind": "text", **item})
    assert result["reward"] == pytest.approx(reward) and result["status"] == status, result


@pytest.mark.parametrize(("item", "ok"), [
    ({"response": "<think>plan</think>The answer is 4."}, True),
    ({"response": "The answer is 4."}, False),
    ({"response": "<think>a</think><think>b</think>4"}, False),
    ({"response": "<think>plan</think>   "}, False),
    ({"template": "think_answer_tags", "response": "<think>x</think>\n<answer>4</answer>"}, True),
    ({"template": "think_answer_tags", "response": "<think>x</think><answer>4</answer> ps"},
     False),
    ({"template": "boxed", "response": "so \\boxed{4}"}, True),
    ({"template": "boxed", "response": "\\boxed{4} or \\boxed{5}"}, False),
    ({"template": "answer_tag", "answer_tag": "final", "response": "<final>4</final>"}, True),
    ({"template": "boxed", "response": "\\boxed{\\{\\}} is the empty set"}, True),
    # blocks that show nothing met the format: invisible characters, LaTeX spacing or phantoms,
    # empty markup; and a second answer tag beside the one block
    ({"response": "<think>\u200b</think>\u200b"}, False),
    ({"response": "<think>\u3164</think>4"}, False),
    ({"response": "<think>plan</think><answer></answer>"}, False),
    ({"template": "boxed", "response": "so \\boxed{\\,}"}, False),
    ({"template": "boxed", "response": "so \\boxed{\\phantom{4}}"}, False),
    ({"template": "answer_tag", "response": "<answer>\u2060</answer>"}, False),
    ({"template": "answer_tag", "response": "<answer><answer>4</answer>"}, False),
    ({"template": "think_answer_tags",
      "response": "<think>x</think><answer>4</answer><answer>5</answer>"}, False),
])
def test_format_rewards(verifier_url: str, item: dict, ok: bool) -> None:
    [result] = verify(verifier_url, {"kind": "format", **item})
    assert result["reward"] == float(ok), result


@pytest.mark.parametrize(("item", "reward"), [
    ({"target": 4, "response": "one two three four"}, 1.0),
    ({"target": 4, "response": "one two"}, 0.5),
    ({"target": 4, "direction": "at_most", "response": "one two"}, 1.0),
    ({"target": 4, "direction": "at_least", "response": "a b c d e f g h i j"}, 1.0),
    ({"target": 10, "unit": "chars", "scale": 5, "response": "x" * 13}, 0.4),
    ({"target": 100, "unit": "tokens", "tokens": 150, "response": "..."}, 0.5),
    ({"target": 2, "response": "<think>many many words here</think>two words"}, 1.0),
    # a reasoning block never closed has no answer: not an empty one within every limit
    ({"target": 50, "direction": "at_most", "response": "<think>" + "word " * 500}, 0.0),
    ({"target": 0, "unit": "chars", "response": "<think>cut off"}, 0.0),
    ({"target": 4, "count_thinking": True, "response": "<think>cut off here"}, 1.0),
    # nothing after the reasoning, or nothing at all, is no answer: it met every at_most target
    ({"target": 50, "direction": "at_most", "response": "<think>" + "word " * 30 + "</think>"},
     0.0),
    ({"target": 50, "direction": "at_most", "unit": "chars", "response": " \u200b "}, 0.0),
])
def test_length_targets(verifier_url: str, item: dict, reward: float) -> None:
    [result] = verify(verifier_url, {"kind": "length", **item})
    assert result["reward"] == pytest.approx(reward), result


def test_composite_weighted_sum_and_formula(verifier_url: str) -> None:
    response = "<think>2+2</think>The answer is \\boxed{4}."
    graders = [{"name": "acc", "weight": 0.8, "grader": {"kind": "math", "answer": "4"}},
               {"name": "fmt", "weight": 0.2, "grader": {"kind": "format"}},
               {"name": "short", "weight": 0.5,
                "grader": {"kind": "length", "target": 2, "direction": "at_most"}}]
    summed, gated, wrong = verify(
        verifier_url,
        {"kind": "composite", "response": response, "graders": graders},
        {"kind": "composite", "response": response, "graders": graders,
         "formula": "acc * (0.5 + 0.5 * fmt) - max(0, 1 - short)"},
        {"kind": "composite", "response": response.replace("{4}", "{5}"), "graders": graders})
    assert summed["detail"]["parts"]["short"]["reward"] == pytest.approx(0.0)
    assert summed["reward"] == pytest.approx(0.8 + 0.2) and summed["status"] == "wrong"
    assert gated["reward"] == pytest.approx(1.0 - 1.0)
    assert wrong["reward"] == pytest.approx(0.2)
    assert wrong["detail"]["parts"]["acc"]["status"] == "wrong"


def test_instructions_end_to_end_and_cached(verifier_url: str) -> None:
    answer = "the quick brown fox jumps over the lazy dog and runs far away into the forest"
    item = {"kind": "instructions", "response": f"<think>x</think>{answer}",
            "instruction_id": ["punctuation:no_comma", "change_case:english_lowercase"],
            "kwargs": [{}, {}]}
    first = verify(verifier_url, item, {**item, "id": "again"})
    assert [r["status"] for r in first] == ["correct", "correct"]
    metrics_before = httpx.get(f"{verifier_url}/metrics").text
    verify(verifier_url, {**item, "id": "third"})
    assert _hits(httpx.get(f"{verifier_url}/metrics").text) > _hits(metrics_before)


def _hits(metrics: str) -> float:
    return sum(float(line.split()[-1]) for line in metrics.splitlines()
               if line.startswith("verifier_cache_hits_total"))


def test_catastrophic_regex_times_out_and_holds_no_worker(verifier_url: str) -> None:
    hostile, fine = verify(verifier_url, ReDoS, {"kind": "text", "match": "regex",
                                                 "answer": "a+!", "response": "aaa!"})
    assert hostile["status"] == "timeout" and hostile["reward"] == 0.0
    assert fine["status"] == "correct"


@pytest.mark.parametrize(("item", "field"), [
    ({"kind": "instructions", "response": "x", "instruction_id_list": ["nope:nope"]},
     "items.0.instruction_id_list.0"),
    ({"kind": "instructions", "response": "x", "instruction_id_list": ["keywords:frequency"],
      "kwargs": [{"keyword": "a", "relation": "at least"}]}, "items.0.kwargs.0.frequency"),
    ({"kind": "text", "match": "regex", "answer": "(unclosed", "response": "x"}, "items.0.answer"),
    ({"kind": "text", "match": "regex", "answer": "(?<=a+)b", "response": "x"}, "items.0.answer"),
    # compiling walks every code point of a class's ranges: 150 BMP-wide classes took seconds,
    # at admission in the API's event loop, for each of an item's 100 references
    ({"kind": "text", "match": "regex", "response": "x",
      "answer": ["x", "(?i)" + "".join(f"[\\x{k:02x}-\\uffff]" for k in range(150))]},
     "items.0.answer.1"),
    ({"kind": "composite", "response": "x", "graders": [{"grader": {"kind": "format"}}],
      "formula": "__import__('os').system('true')"}, "items.0.formula"),
    # a bare `max` (no part of that name) and a number past a float's range were accepted, then
    # failed every time they were scored: infra_error instead of a 422
    ({"kind": "composite", "response": "x", "graders": [{"grader": {"kind": "format"}}],
      "formula": "format + max"}, "items.0.formula"),
    ({"kind": "composite", "response": "x", "graders": [{"grader": {"kind": "format"}}],
      "formula": "format * 1" + "0" * 400}, "items.0.formula"),
    # 990 unary minuses fit in a formula's 1,000 characters; evaluating them recursed past
    # Python's limit every time the item was scored (infra_error)
    ({"kind": "composite", "response": "x", "graders": [{"grader": {"kind": "format"}}],
      "formula": "-" * 990 + "format"}, "items.0.formula"),
    ({"kind": "composite", "response": "x", "graders": [
        {"grader": {"kind": "text", "match": "regex", "answer": "("}}]},
     "items.0.graders.0.grader.answer"),
    ({"kind": "reasoning_gym", "response": "x", "task": "nope", "seed": 1, "index": 0},
     "items.0.task"),
])
def test_bad_items_are_422_naming_the_field(verifier_url: str, item: dict, field: str) -> None:
    response = httpx.post(f"{verifier_url}/v1/verify", json={"items": [item]}, timeout=60)
    assert response.status_code == 422, response.text
    [error] = response.json()["detail"]
    assert ".".join(map(str, error["loc"][1:])).startswith(field), error


def test_info_lists_kinds_constraints_and_tasks(verifier_url: str) -> None:
    info = httpx.get(f"{verifier_url}/v1/info", timeout=60).json()
    assert {"instructions", "text", "reasoning_gym", "format", "length", "composite"} <= set(
        info["kinds"])
    assert "punctuation:no_comma" in info["instruction_ids"] and len(info["instruction_ids"]) == 54
    assert "basic_arithmetic" in info["reasoning_gym_tasks"]


@pytest.mark.parametrize("match", ["normalized", "f1"])
def test_the_answer_is_normalized_once_whatever_the_references(match: str,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """Each reference normalized the answer again: 100 references and a 200 kB answer cost
    100 normalizations of it, past the deadline (`timeout` for a right answer)."""
    calls: list[int] = []
    normalize = text.normalize
    monkeypatch.setattr(text, "normalize", lambda t: calls.append(len(t)) or normalize(t))
    item = TextItem(response="the " * 49_000 + "Paris", answer=["Lyon"] * 99 + ["Paris"],
                    match=match)
    result = text.judge(item)
    assert sum(1 for size in calls if size > 100_000) == 1, len(calls)
    assert result.reward == (1.0 if match == "normalized" else pytest.approx(1.0)), result


def test_references_that_cannot_be_prepared_in_time_are_the_datasets_fault() -> None:
    """100 references of 100,000 characters are normalized before any answer is read, in a
    phase of their own: past its deadline it is `infra_error` (the dataset's), not the
    response's `timeout`."""
    words = " ".join(f"w{i % 997}" for i in range(14_000))[:100_000]
    item = TextItem(response="Paris", answer=[words] * 100, match="f1")
    warm = text.check_text(TextItem(response="Paris", answer="Paris"))  # the helper is up
    assert warm.status == Status.correct, warm
    result = text.check_text(item, timeout_s=0.1)
    assert result.status == Status.infra_error and "references" in result.detail["error"], \
        result


@pytest.mark.timeout(120)
@pytest.mark.parametrize("response", ["answer" + " " * 100_000 + "!",
                                      "option" + " :" * 50_000 + "?"])
def test_a_run_of_spacing_after_answer_is_read_once(response: str) -> None:
    """Three quantifiers over the spacing between "answer" and a letter split a run of n
    spaces every way: 2,000 spaces took minutes (in the helper: a `timeout` where there is no
    letter to find). No letter follows here, so there is no answer."""
    assert text.chosen_letter(response) is None
