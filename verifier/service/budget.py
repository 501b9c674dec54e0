"""Admission's budget: an item's limits lowered to the server's maxima, and its cost (each kind
says its own: `verifier.kinds.kind.Cost`) held to `max_item_time_s`, so no request can book a
worker for a day. A chunk's deadline is its items' `wall_s` plus `chunk_timeout_s`; past that
the jail has failed to stop a run, which is the verifier's fault (`infra_error`), never a
submission's.
"""

from __future__ import annotations

from rlvr_contract.schemas import AnyItem, CodeItem, Limits, StdioTests
from verifier.config import Settings
from verifier.kinds.kind import Cost


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


def budget_problem(cost: Cost, settings: Settings) -> str | None:
    """Why an item of this cost asks more than one item may ("field: why"), or None."""
    if cost.time_s <= settings.max_item_time_s:
        return None
    return (f"limits.time_s: the item's cases and time limits add up to {cost.time_s:g} s of "
            f"CPU time, over the server's budget of {settings.max_item_time_s:g} s per item "
            "(VERIFIER_MAX_ITEM_TIME_S)")
