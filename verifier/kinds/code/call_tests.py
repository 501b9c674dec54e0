"""Call tests (Python): one call of the solution's function per case, its value judged here.

The harness makes the call in the solution's process and records the value it returned; the
expected value never enters the jail. The value must be recorded exactly once, and the run
must end with the harness's end record.
"""

from __future__ import annotations

from typing import Any

from rlvr_contract.schemas import CallTests, Status
from verifier.kinds.code import harness
from verifier.kinds.code.asserts import Call, one_value_each
from verifier.kinds.code.compare import NotJSONLike, json_like, values_equal
from verifier.kinds.code.submission import Jail, Submission
from verifier.kinds.code.verdicts import TestVerdict, unfinished
from verifier.sandbox import RunOutcome, RunRequest
from verifier.sandbox.harness import values


class CallTestRuns:
    """Runs and judges call cases for the runner `jail`."""

    def __init__(self, jail: Jail) -> None:
        self.jail = jail

    def request(self, sub: Submission, index: int, nonce: str) -> RunRequest:
        tests: CallTests = sub.item.tests
        case = tests.cases[index]
        call = Call(tests.fn_name, tuple(case.args), case.kwargs)
        return self.jail.program_request(sub, b"", harness.payload(
            "calls", {"code": sub.code, "nonce": nonce, "methods": True,
                      "calls": [call.wire()], "bytecode": sub.bytecode}))

    def judge(self, sub: Submission, index: int, outcome: RunOutcome,
              report: harness.Report) -> TestVerdict:
        ended = unfinished(outcome, report.end, sub.language, sub.item.limits)
        if ended is not None:
            return ended
        return _call_verdict(sub.item.tests.cases[index].expected, report, outcome)


def _call_verdict(expected: Any, report: harness.Report, outcome: RunOutcome) -> TestVerdict:
    """A `call` case that ran to its end: its one recorded value against the expected one."""
    sites = report.sites
    if not one_value_each(sites, 1) or report.end.get("passed") is not True:
        return TestVerdict(Status.wrong, outcome, "a call's value was not recorded exactly once")
    try:
        value = json_like(values.decode(sites[0].get("value")))
    except (values.BadWire, RecursionError):
        return TestVerdict(Status.wrong, outcome, "a malformed value")
    except NotJSONLike as exc:
        return TestVerdict(Status.wrong, outcome, str(exc))
    matched = values_equal(expected, value)
    return TestVerdict(Status.correct if matched else Status.wrong, outcome)
