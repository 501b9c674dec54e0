"""Completions around an answer, the real checker's verdict on them, and table rows as
parameters: shared by the math tables."""

from __future__ import annotations

from typing import Any

import pytest

from rlvr_contract.schemas import MathItem
from verifier.kinds.math import check_math


def boxed(answer: str) -> str:
    return f"So the answer is $\\boxed{{{answer}}}$."


def unboxed(answer: str) -> str:
    """The answer as the last math of a completion, as a policy not trained on boxes writes it
    (and as the issue saw these fail before: read as their last number)."""
    return f"Hence ${answer}$."


# The tables are about verdicts, on a machine that may be shared and loaded: a generous
# deadline (hostile inputs and the 1 s default are tested in test_math_hostile.py).
TABLE_TIMEOUT_S = 30.0


def verdict(reference: str, completion: str) -> str:
    return check_math(MathItem(response=completion, answer=reference),
                      timeout_s=TABLE_TIMEOUT_S).status


def labelled(tables: dict[str, list[tuple[str, str, str]]]) -> list[Any]:
    """Table rows as pytest parameters, each named by its kind and its two sides."""
    return [pytest.param(*row, id=f"{kind}: {row[0]} | {row[1]}")
            for kind, rows in tables.items() for row in rows]
