"""Math checker: final-answer extraction and symbolic comparison on math-verify's parser.

`check_math` finds the reference's answer and the completion's final answer in the calling
process (plain string work: `reference.py`, and `extract.py` over `verifier.kinds.answer_region`,
`statements.py`, `spans.py`, `bare.py` and `plaintext.py`), then has the calling thread's
helper process compare them under a hard deadline (`isolation.py` runs `grade.py`:
`normalize.py`, `setbuilder.py`, `shape.py`, `literal.py`, `parse.py`, `compare.py`,
`numbers.py`). Nothing from the request is ever evaluated as code.
"""

from __future__ import annotations

from rlvr_contract.schemas import MathItem, Result, Status
from verifier.config import setting_default
from verifier.kinds.kind import Kind, one_at_a_time
from verifier.kinds.math.extract import extract_answer
from verifier.kinds.math.isolation import grading_process
from verifier.kinds.math.reference import answer_is_list, reference_answer

# How much of the extracted answer a result's detail shows.
DETAIL_ANSWER_CHARS = 200

_REWARDS = {Status.correct: 1.0, Status.infra_error: None}


def check_math(item: MathItem, timeout_s: float = setting_default("math_timeout_s")) -> Result:
    """Score one math item. Never raises; returns within about `timeout_s` once warm (twice
    that when the helper has not parsed this reference before).

    The first call in a process also imports and warms up the parser (about a second).
    """
    try:
        reference = reference_answer(item.answer)
        extraction = extract_answer(item.response, list_expected=answer_is_list(reference))
        detail: dict[str, str] = {"source": extraction.source}
        if extraction.answer is not None:
            detail["extracted"] = extraction.answer[:DETAIL_ANSWER_CHARS]
        if extraction.answer is None:
            status, reason = Status.no_answer, extraction.problem
        elif extraction.problem is not None:
            status, reason = Status.wrong, extraction.problem
        else:
            status, reason = grading_process().grade(extraction.answer, reference, timeout_s,
                                                     item.options)
    except Exception as exc:  # never let one item take down a chunk
        return Result.infra_error(item.id, f"math checker failed: {type(exc).__name__}: {exc}")
    if reason:
        detail["reason"] = reason
    return Result(id=item.id, reward=_REWARDS.get(status, 0.0), status=status, detail=detail)


def warm_up() -> None:
    """Start the calling thread's helper now (e.g. in a pool initializer), not on first item."""
    grading_process().ensure_started()


KIND = Kind("math", MathItem, check=one_at_a_time(check_math))

__all__ = ["KIND", "check_math", "warm_up"]
