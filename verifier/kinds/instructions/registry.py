"""Constraints by instruction id: each one a kwargs model with the check it stands for.

A constraint class's fields are the kwargs its instruction id takes (validated by pydantic, so
a bad or missing kwarg is refused with its name), and `check(text)` says whether the answer
follows it. Ids are IFEval's and open-instruct's (IFEvalG, the IF-RLVR training constraints).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

Relation = Literal["less than", "at least", "at most", "more than", "exactly"]
Count = Annotated[int, Field(ge=0, le=1_000_000)]
Word = Annotated[str, Field(min_length=1, max_length=1_000)]
Phrase = Annotated[str, Field(min_length=1, max_length=100_000)]


class Constraint(BaseModel):
    """Base of every constraint: its fields are the instruction's kwargs."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    instruction_id: ClassVar[str]

    def check(self, text: str) -> bool:
        raise NotImplementedError


REGISTRY: dict[str, type[Constraint]] = {}
C = TypeVar("C", bound=type[Constraint])


def register(instruction_id: str) -> Callable[[C], C]:
    def add(cls: C) -> C:
        if instruction_id in REGISTRY:
            raise ValueError(f"instruction id {instruction_id} registered twice")
        cls.instruction_id = instruction_id
        REGISTRY[instruction_id] = cls
        return cls
    return add


def compare(count: int, relation: Relation, threshold: int) -> bool:
    """IFEval's relations ("less than", "at least") and the three others datasets use."""
    if relation == "less than":
        return count < threshold
    if relation == "at least":
        return count >= threshold
    if relation == "at most":
        return count <= threshold
    if relation == "more than":
        return count > threshold
    return count == threshold


def build(instruction_id: str, kwargs: dict[str, Any] | None) -> Constraint:
    """The constraint for an id and its kwargs (null values dropped, as datasets pad them).

    Raises KeyError for an unknown id and pydantic.ValidationError for bad kwargs.
    """
    cls = REGISTRY[instruction_id]
    return cls.model_validate({k: v for k, v in (kwargs or {}).items() if v is not None})
