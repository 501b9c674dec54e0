"""Contract v1 schemas: parsing, dataset shapes, labels, and errors that name the field."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from rlvr_contract.labels import item_from_label
from rlvr_contract.schemas import (
    AssertTests,
    CallTests,
    CodeItem,
    MathItem,
    Result,
    Status,
    StdioTests,
    VerifyRequest,
    parse_item,
)


def test_items_are_discriminated_on_kind_and_tests_on_type() -> None:
    request = VerifyRequest.model_validate({"items": [
        {"kind": "math", "response": "so \\boxed{2}", "answer": "2"},
        {"kind": "code", "response": "print(3)", "language": "python",
         "tests": {"type": "stdio", "cases": [{"input": "1 2\n", "output": "3\n"}]}},
        {"kind": "code", "response": "def add(a, b): return a + b",
         "tests": {"type": "call", "fn_name": "add", "cases": [{"args": [1, 2], "expected": 3}]},
         "limits": {"time_s": 1.5, "memory_mb": 256}, "scoring": "fraction"},
    ]})
    math_item, stdio_item, call_item = request.items
    assert isinstance(math_item, MathItem)
    assert isinstance(stdio_item, CodeItem) and isinstance(stdio_item.tests, StdioTests)
    assert stdio_item.tests.compare == "lines" and stdio_item.scoring == "all"
    assert isinstance(call_item.tests, CallTests) and call_item.limits.time_s == 1.5


@pytest.mark.parametrize(("raw", "field"), [
    ({"kind": "math", "response": "x"}, "answer"),
    ({"kind": "poetry", "response": "x"}, "kind"),
    ({"kind": "code", "response": "x", "tests": {"type": "fuzz"}}, "tests"),
    ({"kind": "code", "response": "x", "tests": {"type": "stdio", "cases": []}}, "cases"),
    ({"kind": "code", "response": "x", "tests": {"type": "assert", "code": "assert 1"},
      "limits": {"time_s": -1}}, "time_s"),
    ({"kind": "code", "response": "x", "tests": {"type": "assert", "code": "assert 1"},
      "scoring": "most"}, "scoring"),
    ({"kind": "math", "response": "x", "answer": "1", "bogus": 1}, "bogus"),
])
def test_invalid_items_name_the_offending_field(raw: dict, field: str) -> None:
    with pytest.raises(ValidationError) as error:
        parse_item(raw)
    named = [".".join(map(str, e["loc"])) + " " + e["msg"] for e in error.value.errors()]
    assert any(field in text for text in named), named


def test_apps_stdio_shape_maps_to_stdio_cases() -> None:
    item = parse_item({"kind": "code", "response": "x",
                       "tests": {"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]}})
    assert isinstance(item.tests, StdioTests)
    assert [(c.input, c.output) for c in item.tests.cases] == [("1 2\n", "3\n"), ("3 4\n", "7\n")]


def test_apps_call_shape_unwraps_single_outputs() -> None:
    item = parse_item({"kind": "code", "response": "x", "tests": {
        "fn_name": "add", "inputs": [[1, 2], [5, 5]], "outputs": [[3], [10]]}})
    assert isinstance(item.tests, CallTests)
    assert [(c.args, c.expected) for c in item.tests.cases] == [([1, 2], 3), ([5, 5], 10)]


def test_apps_shape_with_mismatched_lengths_is_rejected() -> None:
    with pytest.raises(ValidationError, match="inputs has 2 entries but tests.outputs has 1"):
        parse_item({"kind": "code", "response": "x",
                    "tests": {"inputs": ["1", "2"], "outputs": ["1"]}})


def test_humaneval_and_mbpp_shapes_map_to_assert() -> None:
    humaneval = parse_item({"kind": "code", "response": "x", "tests": {
        "test": "def check(candidate):\n    assert candidate(1) == 2\n", "entry_point": "inc"}})
    assert isinstance(humaneval.tests, AssertTests)
    assert humaneval.tests.code.rstrip().endswith("check(inc)")
    mbpp = parse_item({"kind": "code", "response": "x",
                       "tests": {"test_list": ["assert f(1) == 1", "assert f(2) == 4"]}})
    assert "assert f(2) == 4" in mbpp.tests.code


def test_item_from_label_plain_answer_and_json_item() -> None:
    math_item = item_from_label("the answer is \\boxed{7}", "7")
    assert isinstance(math_item, MathItem) and math_item.answer == "7"
    label = json.dumps({"kind": "code", "language": "python",
                        "tests": {"type": "assert", "code": "assert f() == 1"}})
    code_item = item_from_label("```python\ndef f(): return 1\n```", label)
    assert isinstance(code_item, CodeItem) and code_item.response.startswith("```python")
    # A label that merely looks like JSON but is not an item is a math answer.
    assert item_from_label("x", "{1, 2}").answer == "{1, 2}"
    assert item_from_label("x", {"tests": {"test_list": ["assert 1"]}}).kind == "code"
    # Bare tests in a dataset's own shape are a code item too.
    bare = item_from_label("print(2)", json.dumps({"inputs": ["1\n"], "outputs": ["2\n"]}))
    assert isinstance(bare, CodeItem) and isinstance(bare.tests, StdioTests)


def test_infra_error_result_has_null_reward() -> None:
    result = Result.infra_error("a", "broker down")
    assert result.reward is None and result.status is Status.infra_error
    assert json.loads(result.model_dump_json())["reward"] is None
