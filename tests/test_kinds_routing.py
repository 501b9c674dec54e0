"""Rows labelled as verl and open-instruct label them reach the right item kind, through the
adapters and the real service."""

from __future__ import annotations

import json

import pytest

from rl_client.integrations import verl
from rl_client.integrations.trl import verifier_reward_sync
from rlvr_contract.labels import build_item
from rlvr_contract.routing import route, route_label

IFEVAL_TRUTH = str([{"instruction_id": ["punctuation:no_comma", "keywords:existence"],
                     "kwargs": [None, {"keywords": ["sea"]}]}])  # open-instruct's storage


@pytest.mark.parametrize(("source", "truth", "kind"), [
    ("openai/gsm8k", "72", "math"),
    ("lighteval/MATH", "\\frac12", "math"),
    ("math", "3", "math"),
    ("ifeval", IFEVAL_TRUTH, "instructions"),
    ("google/IFEval", {"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]},
     "instructions"),
    ("string_f1", "Paris", "text"),
    ("reasoning_gym/basic_arithmetic", json.dumps({"seed": 1, "index": 0}), "reasoning_gym"),
])
def test_sources_route_to_kinds(source: str, truth: object, kind: str) -> None:
    assert route(source, truth)["kind"] == kind


def test_unknown_source_and_plain_labels_are_left_alone() -> None:
    assert route("my_dataset", "42") is None
    assert route_label("42") == "42"
    assert route_label({"dataset": "string_f1", "ground_truth": "x"})["kind"] == "text"


@pytest.mark.parametrize("label", [
    '{"kind": "math", "answer": NaN}',
    '{"dataset": "string_f1", "ground_truth": ' + "[" * 5000 + "]" * 5000 + "}",
    '{"kind": "code", "tests": {"type": "call", "fn_name": "f", "cases": [{"args": '
    + "[" * 5000 + "]" * 5000 + "}]}}",
])
def test_labels_are_strict_json_in_the_adapters_too(label: str) -> None:
    """The adapters decode a label's JSON as the service does (rlvr_contract.labels.label_object):
    NaN or nesting too deep is an error naming the sample, not a RecursionError or a value the
    service would refuse."""
    with pytest.raises(ValueError, match="sample 3: .*(NaN|deeper)"):
        build_item("x", route_label(label), where="sample 3: ")


def test_old_func_name_constraints_are_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="func_name"):
        route("ifeval_old", json.dumps({"func_name": "validate_lowercase"}))


def test_verl_and_trl_score_a_tulu_style_mix(verifier_url: str) -> None:
    follows = "<think>hm</think>The sea is calm tonight"
    scores = verl.compute_score_batch(
        ["openai/gsm8k", "ifeval", "ifeval", "string_f1"],
        ["so \\boxed{72}", follows, "The lake, calm", "Paris France"],
        ["72", IFEVAL_TRUTH, IFEVAL_TRUTH, "Paris"], url=verifier_url)
    assert [s["score"] for s in scores] == pytest.approx([1.0, 1.0, 0.0, 2 / 3])
    rewards = verifier_reward_sync(
        ["p", "p"], [follows, [{"role": "assistant", "content": "no sea, here"}]],
        answer_column="answer", default_kind="math",
        client_options={"base_url": verifier_url},
        dataset=["ifeval", "ifeval"], ground_truth=[IFEVAL_TRUTH, IFEVAL_TRUTH])
    assert rewards == [1.0, 0.0]
