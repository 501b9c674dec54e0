"""What a code item may cost a worker, worked out from its own limits before anything runs.

`time_s` is every case's time limit (its language's multiplier applied), a checker's and an
interactor's too. `wall_s` is each compilation and each run at its wall limit, plus
`RUN_SLACK_S` per run for the jail's own work; a checker or interactor counts twice per case,
since one that fails is run again on the reference answer.
"""

from __future__ import annotations

from rlvr_contract.schemas import AssertTests, CodeItem, CompressedTests, StdioTests
from verifier.config import Settings
from verifier.kinds.code import testset
from verifier.kinds.code.languages import MIB, find_language
from verifier.kinds.code.limits import compile_limits, run_limits, time_scaled
from verifier.kinds.kind import Cost, Kinds

RUN_SLACK_S = 1.0  # per run, beyond its wall limit: starting it, writing its input, judging it


def code_cost(item: CodeItem, settings: Settings, kinds: Kinds) -> Cost:
    """The item's budget; call it on an admitted item (known language, decodable tests)."""
    cases = _cases_run(item, settings)
    programs = [(item.language, item.limits, 1)]
    if isinstance(item.tests, StdioTests):
        programs += [(p.language, p.limits, 2) for p in (item.tests.checker,
                                                         item.tests.interactor) if p is not None]
    time_s = wall_s = 0.0
    compiled = 0
    multipliers = settings.time_multiplier
    for name, limits, runs in programs:
        language = find_language(name)
        if language is None:
            continue
        scaled = time_scaled(limits, language, multipliers)
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
