"""Length targets: reward by the distance between the response's length and a target."""

from __future__ import annotations

from rlvr_contract.item_kinds import LengthItem
from rlvr_contract.schemas import Result, Status
from verifier.kinds.answer_region import is_blank, strip_thinking
from verifier.kinds.instructions.text import words
from verifier.kinds.kind import Kind, one_at_a_time


def measure(item: LengthItem) -> int:
    if item.unit == "tokens":
        return item.tokens or 0
    text = item.response if item.count_thinking else (strip_thinking(item.response) or "")
    return len(words(text)) if item.unit == "words" else len(text)


def length_reward(length: int, item: LengthItem) -> float:
    """1.0 on target (or within the limit), falling linearly to 0.0 at `scale` away."""
    distance = length - item.target
    if item.direction == "at_most":
        distance = max(0, distance)
    elif item.direction == "at_least":
        distance = max(0, -distance)
    scale = item.scale or float(item.target or 1)
    return max(0.0, 1.0 - abs(distance) / scale)


def check_length(item: LengthItem, timeout_s: float = 0.0) -> Result:
    """Score one item (counting is linear: no deadline needed). A `<think>` never closed, or an
    answer that shows nothing (`answer_region.is_blank`), is `no_answer`, as for every kind:
    counted as an empty answer, a rollout cut off mid-thought or an empty reply met every
    `at_most` target."""
    if item.unit != "tokens":
        text = item.response if item.count_thinking else strip_thinking(item.response)
        if text is None or is_blank(text):
            why = "the reasoning block is never closed" if text is None else "empty answer"
            return Result(id=item.id, reward=0.0, status=Status.no_answer,
                          detail={"reason": why})
    length = measure(item)
    reward = length_reward(length, item)
    return Result(id=item.id, reward=reward,
                  status=Status.correct if reward >= 1.0 else Status.wrong,
                  detail={"length": length, "unit": item.unit, "target": item.target})


KIND = Kind("length", LengthItem, check=one_at_a_time(check_length))
