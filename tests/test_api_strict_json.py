"""Strict JSON at the door: NaN, Infinity and deep nesting are 422s naming the field, on every
route that takes a body, and no body at all gets a 500."""

from __future__ import annotations

import base64
import gzip
import json
import pickle
import zlib

import httpx
import pytest

from rlvr_contract.strict_json import MAX_DEPTH

ROUTES = ["/v1/verify", "/v1/jobs"]
RETURNS_NONE = "def f(*a, **k):\n    return None\n"


def call_item(case: str) -> str:
    """A raw body (JSON text, so it can hold what json.dumps would not write) with one call case."""
    return ('{"items": [{"kind": "code", "language": "python", "response": '
            + json.dumps(RETURNS_NONE) + ', "tests": {"type": "call", "fn_name": "f", '
            '"cases": [' + case + ']}}]}')


def post(url: str, route: str, body: str) -> httpx.Response:
    return httpx.post(f"{url}{route}", content=body.encode(),
                      headers={"content-type": "application/json"}, timeout=60)


def deep(levels: int, leaf: str = "1") -> str:
    return "[" * levels + leaf + "]" * levels


REFUSED_VALUES = {
    "expected Infinity": ('{"args": [], "expected": Infinity}', "expected", "Infinity"),
    "expected -Infinity": ('{"args": [], "expected": -Infinity}', "expected", "Infinity"),
    "expected NaN": ('{"args": [], "expected": NaN}', "expected", "NaN"),
    "NaN inside args": ('{"args": [1, [2, NaN]], "expected": 1}', "args", "NaN"),
    "Infinity in kwargs": ('{"kwargs": {"x": Infinity}, "expected": 1}', "kwargs", "Infinity"),
    "args nested past the limit": (
        '{"args": [' + deep(MAX_DEPTH + 50) + '], "expected": 1}', "args", "deeper"),
    "expected nested far past the limit": (
        '{"args": [], "expected": ' + deep(100_000) + '}', "expected", "deeper"),
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("case", sorted(REFUSED_VALUES))
def test_non_finite_and_deep_values_are_422s_naming_the_field(verifier_url: str, route: str,
                                                              case: str):
    body, field, word = REFUSED_VALUES[case]
    response = post(verifier_url, route, call_item(body))
    assert response.status_code == 422, (response.status_code, response.text[:500])
    error = response.json()["error"]
    assert "items.0" in error and field in error and word in error, error


@pytest.mark.parametrize("route", ROUTES)
def test_the_limit_itself_is_accepted(verifier_url: str, route: str):
    body = call_item('{"args": [' + deep(MAX_DEPTH - 1) + '], "expected": null}')
    response = post(verifier_url, route, body)
    assert response.status_code in (200, 202), response.text[:500]


@pytest.mark.parametrize("field", ["abs_tol", "rel_tol"])
def test_non_finite_tolerances_and_limits_are_refused(verifier_url: str, field: str):
    stdio = ('{"items": [{"kind": "code", "response": "print(1)", "tests": {"type": "stdio", '
             '"compare": "float", "cases": [{"output": "1"}], "' + field + '": Infinity}}]}')
    response = post(verifier_url, "/v1/verify", stdio)
    assert response.status_code == 422 and field in response.json()["error"], response.text
    limits = ('{"items": [{"kind": "code", "response": "print(1)", "limits": {"time_s": NaN}, '
              '"tests": {"type": "stdio", "cases": [{"output": "1"}]}}]}')
    response = post(verifier_url, "/v1/verify", limits)
    assert response.status_code == 422 and "time_s" in response.json()["error"], response.text


def test_openrlhf_labels_and_bodies_are_strict(verifier_url: str):
    def reward(body: str) -> httpx.Response:
        return post(verifier_url, "/openrlhf/get_reward", body)

    deep_label = json.dumps({"kind": "code", "tests": {"type": "call", "fn_name": "f", "cases": [
        {"args": [], "expected": 1}]}}).replace('"expected": 1', '"expected": ' + deep(5000))
    nan_label = '{"kind": "code", "tests": {"type": "call", "fn_name": "f", "cases": ' \
                '[{"args": [], "expected": NaN}]}}'
    for label, word in ((deep_label, "deeper"), (nan_label, "NaN")):
        body = json.dumps({"query": [RETURNS_NONE], "labels": [label]})
        response = reward(body)
        assert response.status_code == 422, (response.status_code, response.text[:300])
        assert "labels.0" in response.text and word in response.text, response.text[:300]
    response = reward('{"query": [NaN], "labels": ["1"]}')
    assert response.status_code == 422 and "query.0" in response.json()["error"]
    response = reward('{"query": ["x"], "labels": [' + deep(10_000, '"1"') + ']}')
    assert response.status_code == 422 and "labels.0" in response.json()["error"]


# Bodies of every odd shape: none may get a 500 (nor a hang).
ODD_BODIES = [
    '{"items": [{"kind": "code", "response": "x", "tests": {"test_list": [1, 2]}}]}',
    '{"items": [{"kind": "code", "response": "x", "tests": {"test": 5, "entry_point": []}}]}',
    '{"items": [{"kind": "code", "response": "x", "tests": {"inputs": 1, "outputs": 2}}]}',
    '{"items": [{"kind": "code", "response": "x", "tests": {"inputs": [1], "outputs": [2, 3]}}]}',
    '{"items": [{"kind": "code", "response": "x", "tests": {"inputs": [[1]], "outputs": [[2]],'
    ' "fn_name": ["f"]}}]}',
    '{"items": [{"kind": "math", "response": ' + deep(600, '"x"') + ', "answer": "1"}]}',
    '{"items": [{"kind": "math", "response": "1", "answer": ' + deep(200_000) + '}]}',
    '{"items": [{"kind": "code", "response": "x", "limits": {"memory_mb": 1' + "0" * 5000 + '},'
    ' "tests": {"type": "stdio", "cases": [{"output": "1"}]}}]}',
    '{"items": ' + deep(50_000, "{}") + '}',
    '{"items": [' + ",".join(['{"kind": "math", "response": "1", "answer": "1"}'] * 3) + '], '
    '"extra": NaN}',
    deep(300_000),
    '{"items": [{"kind": "code", "response": "x", "tests": {"type": "call", "fn_name": "f", '
    '"cases": [{"args": ' + deep(90) + ', "kwargs": {"a": ' + deep(90) + '}}]}}]}',
    "[1, 2",
    '"just a string"',
    "",
]


@pytest.mark.parametrize("route", [*ROUTES, "/openrlhf/get_reward"])
def test_no_body_gets_a_500(verifier_url: str, route: str):
    for body in ODD_BODIES:
        response = post(verifier_url, route, body)
        assert response.status_code < 500, (body[:120], response.status_code, response.text[:300])
        assert response.status_code in (200, 202, 413, 422), (body[:120], response.text[:300])


# --------------------------------------------------------------------------- inside test sets

DEEP = deep(100_000)


def packed(text: str | bytes, *, gzipped: bool = False, pickled: bool = False) -> str:
    """A compressed test set's data: base64 of zlib (or gzip) of the text, LiveCodeBench's
    pickled string inside when `pickled`."""
    raw = text.encode() if isinstance(text, str) else text
    if pickled:
        raw = pickle.dumps(text)
    return base64.b64encode(gzip.compress(raw) if gzipped else zlib.compress(raw)).decode()


COMPRESSED_REFUSED = {
    "deep, zlib": packed(DEEP),
    "deep, gzip": packed(DEEP, gzipped=True),
    "deep in a pickled string": packed(DEEP, pickled=True),
    "deep in a case": packed('[{"input": "", "output": "1", "x": ' + DEEP + "}]"),
    "deep in a LiveCodeBench string": packed(
        '[{"input": "", "output": "1", "testtype": "stdin", "x": ' + DEEP + "}]", pickled=True),
    "deep beside the cases": packed('{"type": "stdio", "cases": [{"input": "", "output": "1"}],'
                                    ' "x": ' + DEEP + "}"),
    "NaN in an expected value": packed('{"type": "call", "fn_name": "f", "cases": '
                                       '[{"args": [], "expected": NaN}]}'),
    "a lone surrogate in an argument": packed('{"type": "call", "fn_name": "f", "cases": '
                                              '[{"args": ["\\ud800"], "expected": 1}]}'),
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("case", sorted(COMPRESSED_REFUSED))
def test_a_compressed_test_set_no_parser_may_take_is_a_422(verifier_url: str, route: str,
                                                           case: str):
    """Decoded at the door as strictly as the body: a 422 naming `tests.data`, never a 500."""
    item = {"kind": "code", "response": RETURNS_NONE,
            "tests": {"type": "compressed", "data": COMPRESSED_REFUSED[case]}}
    response = post(verifier_url, route, json.dumps({"items": [item]}))
    assert response.status_code == 422, (response.status_code, response.text[:500])
    assert "tests.data" in response.json()["error"], response.text[:500]


def test_a_compressed_test_set_in_an_openrlhf_label_is_strict(verifier_url: str):
    label = json.dumps({"kind": "code", "tests": {"type": "compressed",
                                                  "data": COMPRESSED_REFUSED["deep, zlib"]}})
    response = post(verifier_url, "/openrlhf/get_reward",
                    json.dumps({"query": [RETURNS_NONE], "labels": [label]}))
    assert response.status_code == 422 and "tests.data" in response.text, response.text[:500]


# Values of no declared type, and numbers no check can use: 422s naming the field (a lone
# surrogate in a call's argument was an infra_error; a token count past a float, too).
UNTYPED_REFUSED = {
    "a surrogate in args": (call_item('{"args": ["\\ud800"], "expected": null}'), "args"),
    "a surrogate in kwargs' keys": (call_item('{"kwargs": {"\\udc00": 1}, "expected": null}'),
                                    "kwargs"),
    "a surrogate in expected": (call_item('{"args": [], "expected": ["\\ud83d"]}'), "expected"),
    "a surrogate in constraint kwargs": (
        '{"items": [{"kind": "instructions", "response": "x", "instruction_id_list": '
        '["punctuation:no_comma"], "kwargs": [{"x": "\\ud800"}]}]}', "kwargs"),
    "a surrogate in a gym config": (
        '{"items": [{"kind": "reasoning_gym", "response": "1", "task": "basic_arithmetic", '
        '"seed": 1, "index": 0, "config": {"\\ud800": 1}}]}', "config"),
    "a surrogate in a gym entry": (
        '{"items": [{"kind": "reasoning_gym", "response": "1", "task": "basic_arithmetic", '
        '"entry": {"question": "q", "answer": "1", "metadata": {"x": "\\ud800"}}}]}',
        "metadata"),
    "a token count past a float": (
        '{"items": [{"kind": "length", "response": "x", "target": 1, "unit": "tokens", '
        '"tokens": 1' + "0" * 400 + '}]}', "tokens"),
    "an infinite scale": ('{"items": [{"kind": "length", "response": "x", "target": 1, '
                          '"scale": 1e999}]}', "scale"),
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("case", sorted(UNTYPED_REFUSED))
def test_untyped_values_and_unusable_numbers_are_422s(verifier_url: str, route: str, case: str):
    body, field = UNTYPED_REFUSED[case]
    response = post(verifier_url, route, body)
    assert response.status_code == 422, (response.status_code, response.text[:500])
    assert field in response.json()["error"], response.text[:500]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("tests_code", ["assert f(" + "(" * 1000 + ")" * 1000 + ") == 1",
                                        "assert f(1) == " + " + ".join(["1"] * 100_000)])
def test_assert_tests_no_parser_may_take_are_a_422(verifier_url: str, route: str,
                                                   tests_code: str):
    """Nested past Python's parser: the request's fault, named at the door (the worker found
    it and called it an infra_error)."""
    item = {"kind": "code", "response": "def f(x):\n    return 1",
            "tests": {"type": "assert", "code": tests_code}}
    response = post(verifier_url, route, json.dumps({"items": [item]}))
    assert response.status_code == 422 and "tests.code" in response.json()["error"], \
        response.text[:500]
