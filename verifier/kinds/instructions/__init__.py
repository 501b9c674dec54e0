"""Instruction-following constraints: IFEval's and the IF-RLVR training set's.

`check_instructions` strips the reasoning block, then checks every constraint in the calling
thread's deadline helper (`verifier/service/deadline.py`): a 200 kB response and language detection
stay under the same hard limit as a math item. `loose` mode is IFEval's: a constraint holds if
it holds for the answer, or for it without its first line, its last line, both, or its `*`s.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from rlvr_contract.item_kinds import InstructionsItem
from rlvr_contract.schemas import Result, Status
from verifier.config import setting_default
from verifier.kinds.answer_region import strip_thinking
from verifier.kinds.instructions import ifeval, ifrlvr  # noqa: F401  (they fill the registry)
from verifier.kinds.instructions.registry import REGISTRY, Constraint, build
from verifier.kinds.instructions.text import load_checkers
from verifier.kinds.kind import Kind, one_at_a_time, settings_free
from verifier.service.deadline import deadline_helper, early_result

INSTRUCTION_IDS = sorted(REGISTRY)


def admission_problem(item: InstructionsItem) -> str | None:
    """Why an item's constraints cannot be checked ("field.path: why"), or None."""
    for i, instruction_id in enumerate(item.instruction_id_list):
        if instruction_id not in REGISTRY:
            return (f"instruction_id_list.{i}: unknown instruction id {instruction_id!r} "
                    f"(GET /v1/info lists the {len(REGISTRY)} known ids)")
        try:
            build(instruction_id, item.kwargs[i] if item.kwargs else None)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            return f"kwargs.{i}{'.' + where if where else ''}: {error['msg']} ({instruction_id})"
    return None


def check_instructions(item: InstructionsItem,
                       timeout_s: float = setting_default("math_timeout_s")) -> Result:
    """Score one item. Never raises; returns within about `timeout_s`."""
    try:
        constraints = [build(instruction_id, item.kwargs[i] if item.kwargs else None)
                       for i, instruction_id in enumerate(item.instruction_id_list)]
    except (KeyError, ValidationError) as exc:  # admission refuses these; other senders
        return Result.infra_error(item.id, f"invalid constraints: {exc}")
    answer = strip_thinking(item.response)
    if answer is None or not answer.strip():
        why = "the reasoning block is never closed" if answer is None else "empty answer"
        return Result(id=item.id, reward=0.0, status=Status.no_answer, detail={"reason": why})
    outcome = deadline_helper().call(follows, (answer, constraints, item.mode), timeout_s,
                                     warm_up=load_checkers)
    if outcome.how != "ok":
        return early_result(item.id, outcome, "checking the constraints", {})
    verdicts: list[bool] = outcome.value
    satisfied = sum(verdicts)
    total = len(verdicts)
    detail: dict[str, Any] = {
        "satisfied": satisfied, "total": total,
        "constraints": [{"id": c.instruction_id, "ok": ok}
                        for c, ok in zip(constraints, verdicts, strict=True)]}
    reward = float(satisfied == total) if item.scoring == "all" else satisfied / total
    status = Status.correct if satisfied == total else Status.wrong
    return Result(id=item.id, reward=reward, status=status, detail=detail)


def follows(answer: str, constraints: list[Constraint], mode: str) -> list[bool]:
    """Runs in the deadline helper: one verdict per constraint."""
    variants = [answer] if mode == "strict" else loose_variants(answer)
    return [any(constraint.check(text) for text in variants) for constraint in constraints]


def loose_variants(answer: str) -> list[str]:
    lines = answer.split("\n")
    trimmed = [answer, "\n".join(lines[1:]).strip(), "\n".join(lines[:-1]).strip(),
               "\n".join(lines[1:-1]).strip()]
    return [t for text in trimmed for t in (text, text.replace("*", "")) if t.strip()]


__all__ = ["INSTRUCTION_IDS", "admission_problem", "check_instructions"]


KIND = Kind("instructions", InstructionsItem, check=one_at_a_time(check_instructions),
            admission=settings_free(admission_problem))
