"""Admission's budget: an item's cost (each kind says its own, from its limits once lowered to
the server's maxima: `verifier.kinds.kind.Kind`) held to `max_item_time_s`, so no request can
book a worker for a day. A chunk's deadline is its items' `wall_s` plus `chunk_timeout_s`; past
that the jail has failed to stop a run, which is the verifier's fault (`infra_error`), never a
submission's.
"""

from __future__ import annotations

from verifier.config import Settings
from verifier.kinds.kind import Cost


def budget_problem(cost: Cost, settings: Settings) -> str | None:
    """Why an item of this cost asks more than one item may ("field: why"), or None."""
    if cost.time_s <= settings.max_item_time_s:
        return None
    return (f"limits.time_s: the item's cases and time limits add up to {cost.time_s:g} s of "
            f"CPU time, over the server's budget of {settings.max_item_time_s:g} s per item "
            "(VERIFIER_MAX_ITEM_TIME_S)")
