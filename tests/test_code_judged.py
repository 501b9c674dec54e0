"""`detail.judged` says where an item's tests were judged, in every language, and
VERIFIER_IN_PROCESS_TESTS=refuse refuses the items whose tests would run in the solution's
process (docs/code.md: which tests are judged outside the solution's process)."""

from __future__ import annotations

import shutil

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.config import Settings, SettingsError, load_settings
from verifier.kinds.code import run_code_items

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

PYTHON = "def add(a, b):\n    return a + b\n"
ITEMS = {
    "python calls": (CodeItem(language="python", response=PYTHON, tests={
        "type": "assert", "code": "assert add(1, 2) == 3\n"}), "outside"),
    "python judge": (CodeItem(language="python", response=PYTHON, tests={
        "type": "assert", "code": "for i in range(3):\n    assert add(i, i) == 2 * i\n"}),
        "judge"),
    "python call tests": (CodeItem(language="python", response=PYTHON, tests={
        "type": "call", "fn_name": "add", "cases": [{"args": [1, 2], "expected": 3}]}),
        "outside"),
    "c calls": (CodeItem(language="c", response="int add(int a, int b) { return a + b; }\n",
                         tests={"type": "assert", "code": "#include <assert.h>\nint main() {\n"
                                "    assert(add(1, 2) == 3);\n}\n"}), "outside"),
    "ruby, not plain calls": (CodeItem(language="ruby", response="def add(a, b)\n  a + b\nend\n",
                                       tests={"type": "assert", "code": "(0..2).each { |i| raise "
                                              "'no' unless add(i, i) == 2 * i }\n"}),
                              "in_process"),
}


def test_every_assert_and_call_item_says_where_it_was_judged():
    results = run_code_items([item for item, _ in ITEMS.values()])
    assert [(r.status.value, r.detail.get("judged")) for r in results] == [
        ("correct", judged) for _, judged in ITEMS.values()], results


def test_refuse_refuses_only_what_would_run_in_process():
    results = run_code_items([item for item, _ in ITEMS.values()],
                             Settings(in_process_tests="refuse"))
    assert [(r.status.value, r.detail.get("judged")) for r in results] == [
        ("infra_error", judged) if judged == "in_process" else ("correct", judged)
        for _, judged in ITEMS.values()], results
    refused = results[-1]
    assert refused.reward is None and "VERIFIER_IN_PROCESS_TESTS=refuse" in refused.detail[
        "error"]


def test_the_setting_takes_only_its_two_values(monkeypatch):
    monkeypatch.setenv("VERIFIER_IN_PROCESS_TESTS", "Refuse")
    assert load_settings().in_process_tests == "refuse"
    monkeypatch.setenv("VERIFIER_IN_PROCESS_TESTS", "sometimes")
    with pytest.raises(SettingsError, match="VERIFIER_IN_PROCESS_TESTS"):
        load_settings()
