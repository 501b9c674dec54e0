"""A test case's verdict, and how a run that did not finish its tests earns one.

Every test shape ends in a `TestVerdict`; the harnessed shapes (assert and call tests) share
the order in which an unfinished run is judged: a limit first, then a missing end record, a
failed test, a bad exit, so the same run gets the same verdict whatever its tests' shape.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import Any

from rlvr_contract.schemas import Limits, Status
from verifier.kinds.code import appended
from verifier.kinds.code.languages import Language
from verifier.kinds.code.limits import limit_status
from verifier.sandbox import RunOutcome

STDERR_DETAIL_CHARS = 1000


@dataclass
class TestVerdict:
    status: Status
    outcome: RunOutcome
    message: str = ""
    score: float | None = None  # a judge program's partial score; else 1 correct, 0 not

    @property
    def points(self) -> float:
        if self.score is not None:
            return self.score
        return 1.0 if self.status is Status.correct else 0.0

    def detail(self) -> dict[str, Any]:
        detail: dict[str, Any] = {
            "status": self.status.value,
            "time_ms": None if self.outcome.cpu_s is None else round(self.outcome.cpu_s * 1e3, 3),
            "wall_ms": round(self.outcome.wall_s * 1e3, 3),
            "memory_kb": (self.outcome.memory_peak_kb if self.outcome.memory_peak_kb is not None
                          else self.outcome.maxrss_kb),
        }
        stderr = self.outcome.stderr.decode("utf-8", errors="replace")[-STDERR_DETAIL_CHARS:]
        if stderr:
            detail["stderr"] = stderr
        if self.message:
            detail["message"] = self.message
        if self.score is not None:
            detail["score"] = round(self.score, 9)
        return detail


def unfinished(outcome: RunOutcome, end: dict | None, language: Language,
               limits: Limits) -> TestVerdict | None:
    """The verdict of a harnessed run that did not finish its tests cleanly (a limit, no end
    record, a test the record says failed, a bad exit), or None if it did. Without an end
    record, a non-Python program's failed assertion (appended.py) is `wrong`."""
    limited = limit_status(outcome, language, limits)
    if limited is not None:
        return TestVerdict(limited, outcome)
    if end is None:
        if outcome.exit_code == 0:
            return TestVerdict(Status.runtime_error, outcome, "exited before the tests finished")
        if language.name != "python" and appended.failed_assertion(
                language.name, outcome.stderr.decode("utf-8", errors="replace")):
            return TestVerdict(Status.wrong, outcome, "a test's assertion failed")
        return TestVerdict(Status.runtime_error, outcome, exit_message(outcome))
    if "failed" in end:
        return TestVerdict(Status.wrong, outcome, str(end.get("failed") or "")[:200])
    if outcome.exit_code != 0:
        return TestVerdict(Status.runtime_error, outcome, exit_message(outcome))
    return None


def exit_message(outcome: RunOutcome) -> str:
    if outcome.signal is not None:
        try:
            return f"killed by {signal.Signals(outcome.signal).name}"
        except ValueError:
            return f"killed by signal {outcome.signal}"
    return f"exit status {outcome.exit_code}"
