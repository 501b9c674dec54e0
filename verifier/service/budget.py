"""What one item may cost a worker, worked out from its own limits before anything runs.

Two figures per item:

- `time_s`, the CPU time its limits grant: every case's time limit (its language's multiplier
  applied), a checker's and an interactor's too; a non-code item's deadline. Admission refuses
  an item over `max_item_time_s` and a request over `max_request_time_s` (a 422), so no request
  can book a worker for a day.
- `wall_s`, the longest its limits let it hold a worker: each compilation and each run at its
  wall limit, plus a second per run for the jail's own work (a checker or interactor twice
  per case: one that fails is run again on the reference answer). A chunk gets the sum over its
  items plus `chunk_timeout_s`; past that the jail has failed to stop a run, which is the
  verifier's fault (`infra_error`), never a submission's.

Admission also lowers each case limit above the server's maxima (`clamp`), as the schema says.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlvr_contract.schemas import (
    AnyItem,
    AssertTests,
    CodeItem,
    CompositeItem,
    CompressedTests,
    Limits,
    ReasoningGymItem,
    StdioTests,
)
from verifier.config import Settings
from verifier.kinds.code import testset
from verifier.kinds.code.languages import MIB, find_language
from verifier.kinds.code.limits import compile_limits, run_limits

RUN_SLACK_S = 1.0  # per run, beyond its wall limit: starting it, writing its input, judging it


@dataclass(frozen=True)
class Cost:
    time_s: float
    wall_s: float


def clamp(item: AnyItem, settings: Settings) -> None:
    """Lower the item's case limits (and its judge programs') to the server's maxima, in place,
    before the item is cached or scored: the verdict is the one under the limits applied."""
    if not isinstance(item, CodeItem):
        return
    item.limits = _clamped(item.limits, settings)
    tests = item.tests
    if isinstance(tests, StdioTests):
        for program in (tests.checker, tests.interactor):
            if program is not None:
                program.limits = _clamped(program.limits, settings)


def _clamped(limits: Limits, settings: Settings) -> Limits:
    if limits.time_s <= settings.max_case_time_s and \
            limits.memory_mb <= settings.max_case_memory_mb:
        return limits
    return limits.model_copy(update={"time_s": min(limits.time_s, settings.max_case_time_s),
                                     "memory_mb": min(limits.memory_mb,
                                                      settings.max_case_memory_mb)})


def item_cost(item: AnyItem, settings: Settings) -> Cost:
    """The item's budget; call it on an admitted item (known language, decodable tests)."""
    if isinstance(item, CodeItem):
        return _code_cost(item, settings)
    deadline = settings.math_timeout_s * (len(item.graders) if isinstance(item, CompositeItem)
                                          else 1)
    if isinstance(item, ReasoningGymItem):
        deadline += settings.gym_generate_timeout_s
    return Cost(deadline, deadline)


def _code_cost(item: CodeItem, settings: Settings) -> Cost:
    cases = _cases_run(item, settings)
    programs = [(item.language, item.limits, 1)]
    if isinstance(item.tests, StdioTests):  # a judge program that fails runs once more per case
        programs += [(p.language, p.limits, 2) for p in (item.tests.checker,
                                                         item.tests.interactor) if p is not None]
    time_s = wall_s = 0.0
    compiled = 0
    for name, limits, runs in programs:
        language = find_language(name)
        if language is None:
            continue
        scaled = limits.model_copy(update={
            "time_s": limits.time_s * settings.time_multiplier.get(language.name, 1.0)})
        time_s += cases * scaled.time_s
        wall_s += cases * runs * (run_limits(language, scaled, MIB).wall_s + RUN_SLACK_S)
        compiled += language.compile is not None
    wall_s += compiled * (compile_limits(settings.compile_time_s).wall_s + RUN_SLACK_S)
    return Cost(time_s, wall_s)


def _cases_run(item: CodeItem, settings: Settings) -> int:
    tests = item.tests
    if isinstance(tests, CompressedTests):
        return testset.checked_case_count(tests, settings.max_tests_bytes)
    if isinstance(tests, AssertTests):
        return 1
    return len(testset.sampled_indices(tests))


def budget_problem(cost: Cost, settings: Settings) -> str | None:
    """Why an item of this cost asks more than one item may ("field: why"), or None."""
    if cost.time_s <= settings.max_item_time_s:
        return None
    return (f"limits.time_s: the item's cases and time limits add up to {cost.time_s:g} s of "
            f"CPU time, over the server's budget of {settings.max_item_time_s:g} s per item "
            "(VERIFIER_MAX_ITEM_TIME_S)")
