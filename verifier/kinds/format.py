"""Format rewards: is the completion laid out as asked (reasoning block, answer tag, box).

Each block is opened and closed once, and holds something that shows: a block of invisible
characters, LaTeX spacing or empty markup (`answer_region.is_blank`) is empty.

The answer region is read as every other kind reads it (`verifier.kinds.answer_region`), and the
check runs in the calling thread's deadline helper (`verifier/service/deadline.py`) like the other
kinds' work on a response: whatever the response's shape, an item ends by its deadline.
"""

from __future__ import annotations

import re

from rlvr_contract.item_kinds import FormatItem
from rlvr_contract.schemas import Result, Status
from verifier.config import setting_default
from verifier.kinds.answer_region import boxes, is_blank, strip_thinking, tag_contents
from verifier.kinds.kind import Kind, one_at_a_time
from verifier.service.deadline import deadline_helper, early_result


def follows_template(item: FormatItem) -> tuple[bool, str]:
    """Whether the response follows the template, and if not, why."""
    text, think, answer = item.response, re.escape(item.think_tag), re.escape(item.answer_tag)
    if item.template in ("think_answer", "think_answer_tags"):
        tags = [item.think_tag] + ([item.answer_tag] if item.template == "think_answer_tags"
                                   else [])
        problem = next(filter(None, (_not_one_pair(text, tag) for tag in tags)), None)
        if problem:
            return False, problem
        layout = (rf"\s*<{think}>(.*?)</{think}>\s*(\S.*)" if item.template == "think_answer"
                  else rf"\s*<{think}>(.*?)</{think}>\s*<{answer}>(.*?)</{answer}>\s*")
        match = re.fullmatch(layout, text, re.DOTALL | re.IGNORECASE)
        if match is None:
            return False, "the reasoning block must come first, then the answer, nothing else"
        if is_blank(match.group(1)):
            return False, "empty reasoning block"
        if is_blank(match.group(2)):
            return False, "empty answer"
        return True, ""
    body = strip_thinking(text)
    if body is None:
        return False, "the reasoning block is never closed"
    if item.template == "answer_tag":
        problem = _not_one_pair(body, item.answer_tag)
        if problem:
            return False, problem
    found = (tag_contents(body, item.answer_tag) if item.template == "answer_tag"
             else [box.content for box in boxes(body)])
    if len(found) != 1:
        return False, f"expected exactly one answer, found {len(found)}"
    if found[0] is None:
        return False, "the box is never closed"
    if is_blank(found[0]):
        return False, "empty answer"
    return True, ""


def _not_one_pair(text: str, tag: str) -> str | None:
    """Why the text does not hold the tag exactly once opened and once closed, or None: a
    stray second tag (`<answer><answer>4</answer>`) is no part of one block."""
    name = re.escape(tag)
    opened = len(re.findall(rf"<{name}>", text, re.IGNORECASE))
    closed = len(re.findall(rf"</{name}>", text, re.IGNORECASE))
    if opened == closed == 1:
        return None
    return f"expected one <{tag}> block, found {opened} opening and {closed} closing tags"


def check_format(item: FormatItem, timeout_s: float = setting_default("math_timeout_s")) -> Result:
    """Score one item. Never raises; returns within about `timeout_s`."""
    outcome = deadline_helper().call(follows_template, (item,), timeout_s)
    if outcome.how != "ok":
        return early_result(item.id, outcome, "checking the layout", {"template": item.template})
    ok, why = outcome.value
    detail = {"template": item.template, **({"reason": why} if why else {})}
    return Result(id=item.id, reward=float(ok), status=Status.correct if ok else Status.wrong,
                  detail=detail)


KIND = Kind("format", FormatItem, check=one_at_a_time(check_format))
