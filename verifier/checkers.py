"""Which checker scores an item of each kind that is not code, and what admission asks of it.

Code items go to the sandbox in batches (`verifier.code`); every other kind is scored here, one
item at a time, in the worker that holds the chunk. Checkers that run untrusted work do it in
the calling thread's deadline helper, so `timeout_s` bounds every item.
"""

from __future__ import annotations

import time
from typing import Any

from rlvr_contract.schemas import (
    CodeItem,
    CompositeItem,
    FormatItem,
    InstructionsItem,
    LengthItem,
    MathItem,
    ReasoningGymItem,
    Result,
    TextItem,
)
from verifier import composite, gym, instructions, text_match
from verifier.code import check_code_item
from verifier.config import Settings
from verifier.format_reward import check_format
from verifier.length_reward import check_length
from verifier.math import check_math


def admission_problem(item: Any, settings: Settings | None = None) -> str | None:
    """Why the service cannot score this item ("field.path: why"), or None. Cheap."""
    if isinstance(item, CodeItem):
        return check_code_item(item, settings)
    if isinstance(item, InstructionsItem):
        return instructions.admission_problem(item)
    if isinstance(item, TextItem):
        return text_match.admission_problem(item)
    if isinstance(item, ReasoningGymItem):
        return gym.admission_problem(item)
    if isinstance(item, CompositeItem):
        return composite.admission_problem(item, admission_problem)
    return None


def check_item(item: Any, timeout_s: float) -> Result:
    """Score one item of any kind but code. Never raises: a checker bug is `infra_error`."""
    started = time.perf_counter()
    try:
        result = _check(item, timeout_s)
    except Exception as exc:
        result = Result.infra_error(item.id, f"{item.kind} checker failed: "
                                             f"{type(exc).__name__}: {exc}")
    result.elapsed_ms = round((time.perf_counter() - started) * 1000, 3)
    return result


def _check(item: Any, timeout_s: float) -> Result:
    if isinstance(item, MathItem):
        return check_math(item, timeout_s=timeout_s)
    if isinstance(item, InstructionsItem):
        return instructions.check_instructions(item, timeout_s)
    if isinstance(item, TextItem):
        return text_match.check_text(item, timeout_s)
    if isinstance(item, ReasoningGymItem):
        return gym.check_reasoning_gym(item, timeout_s)
    if isinstance(item, FormatItem):
        return check_format(item, timeout_s)
    if isinstance(item, LengthItem):
        return check_length(item)
    if isinstance(item, CompositeItem):
        return composite.check_composite(item, lambda part: _check(part, timeout_s))
    raise TypeError(f"no checker for kind {item.kind!r}")
