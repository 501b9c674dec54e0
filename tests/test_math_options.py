"""Per-item math options: numeric tolerance (`rel_tol` or `digits`) and whether sets and
relations may stand for each other; unknown option names are a 422 naming the field."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from rlvr_contract.schemas import MathItem, MathOptions, parse_item
from verifier.kinds.math import check_math

C, W = "correct", "wrong"

# (reference, boxed answer, options, verdict with the options, verdict by default)
OPTIONS = [
    ("\\pi", "3.14", {"rel_tol": 1e-3}, C, W),
    ("\\pi", "3.14", {"rel_tol": 1e-4}, W, W),
    ("100", "101", {"rel_tol": 0.02}, C, W),
    ("6.674\\times 10^{-11}", "6.67\\times 10^{-11}", {"rel_tol": 1e-3}, C, W),
    ("\\frac{1}{3}", "0.333", {"digits": 3}, C, W),
    ("\\frac{1}{3}", "0.333", {"digits": 4}, W, W),
    ("\\frac{2}{3}", "0.67", {"digits": 2}, C, W),
    ("(\\pi, 2)", "(3.1416, 2)", {"digits": 5}, C, W),  # inside tuples too
    ("-2 \\le x \\le 7", "[-2, 7]", {"set_for_relation": False}, W, C),
    ("[-2, 7]", "-2 \\le x \\le 7", {"relation_for_set": False}, W, C),
    ("(-\\infty, 3]", "x \\le 3", {"relation_for_set": False}, W, C),
    ("(-\\infty, -5)", "k < -5", {"relation_for_set": False}, W, C),
    ("(-2, 2)", "x^2 < 4", {"relation_for_set": True}, W, W),  # unsolved: never the set
    # a decimal reference that is an irrational value rounded, when the item says so
    ("3.14", "\\pi", {"rounded_reference": True}, C, W),
    ("1.41", "\\sqrt{2}", {"rounded_reference": True}, C, W),
    ("0.7071", "\\frac{\\sqrt{2}}{2}", {"rounded_reference": True}, C, W),
    ("3.1", "\\sqrt{10}", {"rounded_reference": True}, W, W),  # 3.162: not 3.1 rounded
    ("3.14", "\\frac{22}{7}", {"rounded_reference": True}, W, W),  # a fraction: the decimal
    ("(3.14, 2)", "(\\pi, 2)", {"rounded_reference": True}, C, W),  # inside tuples too
]


@pytest.mark.parametrize(("reference", "answer", "options", "with_options", "by_default"),
                         OPTIONS)
def test_options_change_the_verdict(reference: str, answer: str, options: dict[str, Any],
                                    with_options: str, by_default: str) -> None:
    response = f"The answer is $\\boxed{{{answer}}}$."
    item = MathItem(response=response, answer=reference, options=MathOptions(**options))
    assert check_math(item).status == with_options
    assert check_math(MathItem(response=response, answer=reference)).status == by_default


def test_options_travel_in_the_item_as_json() -> None:
    item = parse_item({"kind": "math", "response": "\\boxed{0.333}", "answer": "\\frac{1}{3}",
                       "options": {"digits": 3}})
    assert isinstance(item, MathItem) and item.options == MathOptions(digits=3)
    assert check_math(item).status == C


@pytest.mark.parametrize(("options", "field"), [
    ({"tolerance": 0.01}, "options.tolerance"),
    ({"rel_tol": 0.01, "digits": 3}, "options"),
    ({"rel_tol": -1}, "options.rel_tol"),
    ({"digits": 0}, "options.digits"),
    ({"rounded_reference": "yes"}, "options.rounded_reference"),
    ({"relation_for_set": 1}, "options.relation_for_set"),
    ({"set_for_relation": None}, "options.set_for_relation"),
])
def test_bad_options_name_the_field(options: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as raised:
        parse_item({"kind": "math", "response": "x", "answer": "1", "options": options})
    named = [".".join(str(part) for part in error["loc"]) for error in raised.value.errors()]
    assert any(name.endswith(field) for name in named), named


def test_unknown_option_is_a_422_from_the_service(verifier_url: str) -> None:
    body = {"items": [{"kind": "math", "response": "\\boxed{1}", "answer": "1",
                       "options": {"rel_tol": 0.01, "tolerance": 0.01}}]}
    reply = httpx.post(f"{verifier_url}/v1/verify", json=body, timeout=60)
    assert reply.status_code == 422, reply.text
    named = [".".join(str(p) for p in e["loc"] if p != "body") for e in reply.json()["detail"]]
    assert "items.0.math.options.tolerance" in named, named
    good = dict(body["items"][0], options={"rel_tol": 0.01})
    reply = httpx.post(f"{verifier_url}/v1/verify", json={"items": [good]}, timeout=60)
    assert reply.status_code == 200 and reply.json()["results"][0]["status"] == C


def test_a_bad_option_value_is_a_422_naming_it(verifier_url: str) -> None:
    body = {"items": [{"kind": "math", "response": "\\boxed{\\pi}", "answer": "3.14",
                       "options": {"rounded_reference": "yes"}}]}
    reply = httpx.post(f"{verifier_url}/v1/verify", json=body, timeout=60)
    assert reply.status_code == 422, reply.text
    named = [".".join(str(p) for p in e["loc"] if p != "body") for e in reply.json()["detail"]]
    assert "items.0.math.options.rounded_reference" in named, named
    good = dict(body["items"][0], options={"rounded_reference": True})
    reply = httpx.post(f"{verifier_url}/v1/verify", json={"items": [good]}, timeout=60)
    assert reply.status_code == 200 and reply.json()["results"][0]["status"] == C
