"""Assert tests: the dataset's asserts, judged where the solution cannot reach the verdict.

Three ways, decided once per item (`how_run`):
- Python: the harness runs the tests in the jail and records each call's value or each checked
  assert; the judge compares them here, so no expected value enters the jail (asserts.py).
  Tests that are only calls are judged here outright (`outside`), the rest by the judge.
- Another language whose dialect reads the tests as plain calls: a driver of the dialect
  makes the calls and records their values; each is checked here (`outside`, dialects/).
- Otherwise the tests are appended to the solution and run in its process (`in_process`,
  appended.py); the epilogue's end record, with the run's nonce, is the evidence.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from rlvr_contract.schemas import AssertTests, Status
from verifier.kinds.code import dialects, harness, own_entry, prompt_scope
from verifier.kinds.code.asserts import plan
from verifier.kinds.code.dialects.core import CallsPlan
from verifier.kinds.code.dialects.values import read_records
from verifier.kinds.code.limits import limit_status
from verifier.kinds.code.submission import Jail, Submission
from verifier.kinds.code.verdicts import TestVerdict, exit_message, unfinished
from verifier.sandbox import RunOutcome, RunRequest

IN_PROCESS_REFUSED = ("these assert tests are not plain calls, so they would run in the solution's "
                      "process, and this service refuses that (VERIFIER_IN_PROCESS_TESTS=refuse)")


class HowRun(NamedTuple):
    """Where an item's assert tests are judged (detail.judged), and their calls if a dialect
    reads them as calls."""

    judged: str  # "judge", "outside" or "in_process"
    calls: CallsPlan | None = None


def how_run(tests: AssertTests, language: str) -> HowRun:
    """How these tests run in `language`; raises asserts.BrokenTests for Python tests that
    cannot be planned."""
    if language == "python":
        return HowRun("outside" if plan(tests.code).mode == "calls" else "judge")
    calls = dialects.calls_plan(language, tests.code)
    return HowRun("outside" if calls is not None else "in_process", calls)


def program(language: str, solution: str, tests: AssertTests, calls: CallsPlan | None) -> str:
    """What the jail compiles and runs: the solution with the dialect's driver, or with the
    tests appended, its own entry point renamed (own_entry) and, whole, fitted to tests that
    close a prompt's scopes first (prompt_scope); Python's solution alone (the harness brings
    the tests)."""
    solution = prompt_scope.fitted(language, own_entry.renamed(language, solution), tests.code)
    if calls is not None:
        return dialects.calls_program(language, solution, calls)
    if language != "python":
        return dialects.in_process_program(language, solution, tests.code)
    return solution


class AssertTestRuns:
    """Runs and judges an item's assert tests (one case) for the runner `jail`."""

    def __init__(self, jail: Jail) -> None:
        self.jail = jail

    def request(self, sub: Submission, index: int, nonce: str) -> RunRequest:
        """The run, with what it reads on fd 4: the harness's payload (Python), the end
        record the epilogue copies to the channel (appended), nothing (a dialect's driver
        records on fd 3 itself)."""
        if sub.calls is not None:
            payload = b""
        elif sub.language.name != "python":
            payload = json.dumps({"nonce": nonce, "passed": True}).encode() + b"\n"
        else:
            assert_plan = plan(sub.item.tests.code)
            payload = harness.payload(assert_plan.mode, {"code": sub.code, "nonce": nonce,
                                                         "bytecode": sub.bytecode,
                                                         **assert_plan.payload()})
        return self.jail.program_request(sub, b"", payload)

    def judge(self, sub: Submission, index: int, outcome: RunOutcome,
              report: harness.Report) -> TestVerdict:
        """Python's failed assert first (whatever came after it), then how the run ended;
        every recorded call must have its one value. Elsewhere the end record decides."""
        if sub.calls is not None:
            return _dialect_verdict(sub, outcome)
        complete = True
        if sub.language.name == "python":
            assert_plan = plan(sub.item.tests.code)
            failed = assert_plan.failed_site(report.sites)
            if failed is not None:  # judged here, so its expected value never entered the jail
                return TestVerdict(Status.wrong, outcome,
                                   f"AssertionError at line {failed.line} of the tests")
            complete = assert_plan.complete(report.sites)
        ended = unfinished(outcome, report.end, sub.language, sub.item.limits)
        if ended is not None:
            return ended
        if not complete:
            return TestVerdict(Status.wrong, outcome,
                               "a call's value was not recorded exactly once")
        passed = report.end.get("passed") is True
        return TestVerdict(Status.correct if passed else Status.wrong, outcome)


def _dialect_verdict(sub: Submission, outcome: RunOutcome) -> TestVerdict:
    """Assert tests run as calls (dialects): each value the driver recorded, in order, against
    its check; a failed check is `wrong`, as the failed assert would have been, whatever came
    after it. Then the run must have ended well with one value for every call."""
    sites = sub.calls.sites
    recorded, fault = read_records(outcome.channel, len(sites))
    dialect = dialects.DIALECTS[sub.language.name]
    for site, value in zip(sites, recorded, strict=False):
        if not dialect.holds(site.check, value):
            return TestVerdict(Status.wrong, outcome,
                               f"the assertion at line {site.line} of the tests failed")
    limited = limit_status(outcome, sub.language, sub.item.limits)
    if limited is not None:
        return TestVerdict(limited, outcome)
    if fault is not None:
        return TestVerdict(Status.wrong, outcome, fault)
    if outcome.exit_code != 0:
        return TestVerdict(Status.runtime_error, outcome, exit_message(outcome))
    if len(recorded) < len(sites):
        return TestVerdict(Status.runtime_error, outcome, "exited before the tests finished")
    return TestVerdict(Status.correct, outcome)
