"""Completions around an answer, and the real checker's verdict on them, for the math tables."""

from __future__ import annotations

from verifier.math import check_math
from verifier.schemas import MathItem


def boxed(answer: str) -> str:
    return f"So the answer is $\\boxed{{{answer}}}$."


def unboxed(answer: str) -> str:
    """The answer as the last math of a completion, as a policy not trained on boxes writes it
    (and as the issue saw these fail before: read as their last number)."""
    return f"Hence ${answer}$."


def verdict(reference: str, completion: str) -> str:
    return check_math(MathItem(response=completion, answer=reference)).status
