"""Grading in the calling thread's killable helper process (`verifier/service/deadline.py`).

Why a process: math-verify's own timeout is `signal.alarm`, which only works on a main thread;
converting some parsed answers to strings never ends; a huge integer power runs in C where no
signal can interrupt it. The only limit that always holds is killing the process doing the work.

Math's own part: a reference the helper has not parsed before is parsed in a phase with its
own deadline, so a reference that hangs or kills the helper is the verifier's problem
(`infra_error`, remembered so that it does not cost a kill each time), never the answer's.
"""

from __future__ import annotations

import threading

from rlvr_contract.schemas import MathOptions, Status
from verifier.service.deadline import DEFAULT_MEMORY_MB, DeadlineHelper, enter_phase
from verifier.service.lru import LRU

# References that could not be parsed in time, remembered so they do not cost a kill each time.
SLOW_GOLD_MEMORY = 256
_PARSING_REFERENCE = "reference"

Verdict = tuple[Status, str | None]


class GradingProcess:
    """One helper process for grading. Not thread-safe: one per calling thread."""

    def __init__(self, memory_mb: int = DEFAULT_MEMORY_MB) -> None:
        self._helper = DeadlineHelper(memory_mb)
        self._slow_golds: LRU[str, str] = LRU(SLOW_GOLD_MEMORY)

    @property
    def pid(self) -> int | None:
        """The helper's process id, None until it is started (for tests and diagnostics)."""
        return self._helper.pid

    def grade(self, prediction: str, gold: str, timeout_s: float,
              options: MathOptions | None = None) -> Verdict:
        """Grade in the helper; at most `timeout_s` once the helper runs (twice that if the
        helper dies mid-item, which is retried once on a fresh helper: an idle helper killed
        from outside, e.g. by the OOM killer, is only noticed when the next item is sent).

        A reference the helper has not parsed before gets a deadline of its own first (it is
        parsed once per helper and kept), so a slow reference does not eat the answer's time.
        """
        known_failure = self._slow_golds.get(gold)
        if known_failure is not None:
            return Status.infra_error, known_failure
        outcome = self._helper.call(_grade_in_helper, (prediction, gold, options), timeout_s,
                                    warm_up=_warm_up)
        on_reference = outcome.phase == _PARSING_REFERENCE
        if outcome.how == "ok":
            return outcome.value
        if outcome.how == "timeout" and on_reference:
            return self._remember_slow_gold(
                gold, f"the reference answer took longer than {timeout_s:g} s to parse")
        if outcome.how == "timeout":
            return Status.timeout, f"checking took longer than {timeout_s:g} s"
        if outcome.how == "died" and on_reference:
            return self._remember_slow_gold(
                gold, f"parsing the reference answer: {outcome.message}")
        if outcome.how == "died":
            return Status.wrong, f"checking this answer, twice: {outcome.message}"
        if outcome.how in ("memory", "recursion"):
            return Status.wrong, f"checking this answer {outcome.message}"
        return Status.infra_error, f"grader error: {outcome.message}"

    def ensure_started(self) -> None:
        """Fork the (warm) helper now if there is none (first use, or after a kill)."""
        self._helper.ensure_started(_warm_up)

    def stop(self) -> None:
        """Kill the helper (if any, and ours) and reap it."""
        self._helper.stop()

    def _remember_slow_gold(self, gold: str, reason: str) -> Verdict:
        self._slow_golds[gold] = reason
        return Status.infra_error, reason


def _grade_in_helper(prediction: str, gold: str, options: MathOptions | None) -> Verdict:
    from verifier.kinds.math.grade import grade

    def report_reference_parse(started: bool) -> None:
        enter_phase(_PARSING_REFERENCE if started else None)

    status, reason = grade(prediction, gold, options, report_reference_parse)
    return status, reason


def _warm_up() -> None:
    from verifier.kinds.math import grade  # heavy (sympy): only in processes that grade

    grade.warm_up()


_local = threading.local()


def grading_process() -> GradingProcess:
    """The calling thread's helper handle (created on first use)."""
    process = getattr(_local, "process", None)
    if process is None:
        process = _local.process = GradingProcess()
    return process
