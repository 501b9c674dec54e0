"""The one list of reward kinds: the server's registry and the contract's item models name the
same kinds in the same order, every kind module is listed, and a composite scores its parts as
one batch per kind (as each kind scores its own items)."""

from __future__ import annotations

import pkgutil
from collections.abc import Sequence
from importlib import import_module
from typing import Any

from rlvr_contract.schemas import ITEM_MODELS, KINDS, Result, parse_item
from verifier import kinds as kinds_package
from verifier.config import Settings
from verifier.kinds import composite
from verifier.kinds.kind import Cost
from verifier.kinds.registry import BY_NAME, REGISTRY, check_item, clamp_item, item_cost
from verifier.kinds.registry import KINDS as REGISTERED

NOT_KINDS = {"kind", "registry", "answer_region"}  # the kinds' shared parts


def test_the_registry_lists_the_contracts_kinds() -> None:
    assert [kind.name for kind in REGISTERED] == KINDS
    assert [kind.item_model for kind in REGISTERED] == list(ITEM_MODELS)
    assert len(BY_NAME) == len(REGISTERED)


def test_every_kind_module_is_registered_once() -> None:
    modules = [info.name for info in pkgutil.iter_modules(kinds_package.__path__)
               if info.name not in NOT_KINDS]
    exposed = [import_module(f"verifier.kinds.{name}").KIND for name in modules]
    assert sorted(kind.name for kind in exposed) == sorted(KINDS)
    assert all(kind in REGISTERED for kind in exposed)


class Recording:
    """The registry, recording the kinds of each batch it is asked to score."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.clamped: list[str] = []

    def admission_problem(self, item: Any, settings: Settings | None = None) -> str | None:
        return REGISTRY.admission_problem(item, settings)

    def check_items(self, items: Sequence[Any], timeout_s: float) -> list[Result]:
        self.batches.append([item.kind for item in items])
        return REGISTRY.check_items(items, timeout_s)

    def item_cost(self, item: Any, settings: Settings) -> Cost:
        return REGISTRY.item_cost(item, settings)

    def clamp_item(self, item: Any, settings: Settings) -> None:
        self.clamped.append(item.kind)
        REGISTRY.clamp_item(item, settings)


def test_composites_score_their_parts_in_one_batch() -> None:
    items = [parse_item({
        "kind": "composite", "response": f"<think>x</think><answer>\\boxed{{{n}}}</answer>",
        "graders": [{"weight": 0.8, "grader": {"kind": "math", "answer": "2"}},
                    {"weight": 0.1, "grader": {"kind": "format"}},
                    {"weight": 0.1, "grader": {"kind": "length", "target": 4}}]})
        for n in range(3)]
    recording = Recording()
    batched = composite.KIND.check(items, 10.0, recording)
    assert recording.batches == [["math", "format", "length"] * 3]
    one_by_one = [check_item(item, 10.0) for item in items]
    assert [r.model_dump(exclude={"elapsed_ms"}) for r in batched] == \
        [r.model_dump(exclude={"elapsed_ms"}) for r in one_by_one]
    assert [r.status.value for r in batched] == ["wrong", "wrong", "correct"]


def test_each_kind_says_its_own_cost() -> None:
    """The budget is the kind's to say: a deadline, a gym entry's build on top, a code item's
    limits per case, a composite's parts added up (a gym part included)."""
    settings = Settings(math_timeout_s=2.0, gym_generate_timeout_s=5.0)
    math = {"kind": "math", "answer": "2"}
    gym = {"kind": "reasoning_gym", "task": "basic_arithmetic", "entry": {"answer": "2"}}
    assert item_cost(parse_item({**math, "response": "2"}), settings) == Cost(2.0, 2.0)
    assert item_cost(parse_item({**gym, "response": "2"}), settings) == Cost(7.0, 7.0)
    composite_item = parse_item({"kind": "composite", "response": "2", "graders": [
        {"grader": math}, {"grader": gym}, {"grader": {"kind": "format"}}]})
    assert item_cost(composite_item, settings) == Cost(11.0, 11.0)
    code = {"kind": "code", "language": "python", "response": "print(1)",
            "limits": {"time_s": 1.5}}
    one_case = item_cost(parse_item({**code, "tests": {"type": "stdio", "cases": [
        {"input": "", "output": "1"}]}}), settings)
    three_cases = item_cost(parse_item({**code, "tests": {"type": "stdio", "cases": [
        {"input": "", "output": "1"}] * 3}}), settings)
    assert one_case.time_s == 1.5 and three_cases.time_s == 4.5
    assert three_cases.wall_s > one_case.wall_s > one_case.time_s


def test_each_kind_lowers_its_own_limits() -> None:
    """Clamping to the server's maxima is the kind's to do: a code item's case limits and its
    judges' come down, a composite has each part clamped, and the other kinds have none."""
    settings = Settings(max_case_time_s=2.0, max_case_memory_mb=256)
    high = {"time_s": 30.0, "memory_mb": 4096}
    checker = {"language": "python", "code": "print(1)", "limits": high}
    code = parse_item({"kind": "code", "language": "python", "response": "print(1)",
                       "limits": high, "tests": {"type": "stdio", "checker": checker,
                                                 "cases": [{"input": "", "output": "1"}]}})
    clamp_item(code, settings)
    for limits in (code.limits, code.tests.checker.limits):
        assert (limits.time_s, limits.memory_mb) == (2.0, 256)
    math = parse_item({"kind": "math", "response": "2", "answer": "2"})
    before = math.model_dump()
    clamp_item(math, settings)
    assert math.model_dump() == before
    recording = Recording()
    composite_item = parse_item({"kind": "composite", "response": "2", "graders": [
        {"grader": {"kind": "math", "answer": "2"}}, {"grader": {"kind": "format"}}]})
    composite.KIND.clamp(composite_item, settings, recording)
    assert recording.clamped == ["math", "format"]
