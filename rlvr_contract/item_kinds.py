"""Item kinds beyond math and code (contract v1, extended compatibly): instruction-following
constraints, text matching, reasoning-gym tasks, format rewards and length targets.

Pydantic only, like `schemas.py`, so that the client validates items without the service. What
needs the service's registries (constraint ids and their kwargs, reasoning-gym task names,
regex syntax) is checked at admission by the service (`Service.admit`): a 422 naming the field.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

from rlvr_contract import strict_json

MAX_RESPONSE_CHARS = 200_000
MAX_REFERENCE_CHARS = 100_000
MAX_CONSTRAINTS = 64
MAX_REFERENCES = 100
MAX_PATTERN_CHARS = 2_000
TAG_NAME = r"^[A-Za-z_][A-Za-z0-9_-]{0,31}$"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)


def _strict_json(value: Any) -> Any:
    """A value of no declared type (kwargs, a config, metadata) as strict JSON allows it:
    finite numbers, nesting within strict_json.MAX_DEPTH, no lone surrogates."""
    problem = strict_json.problem(value)
    if problem:
        raise ValueError(problem)
    return value


class InstructionsItem(_Model):
    """Verifiable instruction-following constraints, in IFEval's shape.

    `instruction_id_list[i]` (IFEval's name; open-instruct's `instruction_id` is accepted too)
    is checked with `kwargs[i]`; `kwargs` may be left out when no constraint takes any, and keys
    whose value is null are ignored (how Arrow-backed datasets store IFEval's kwargs).
    """

    kind: Literal["instructions"] = "instructions"
    id: str | None = Field(None, max_length=512)
    response: str = Field(max_length=MAX_RESPONSE_CHARS)
    instruction_id_list: list[str] = Field(
        min_length=1, max_length=MAX_CONSTRAINTS,
        validation_alias=AliasChoices("instruction_id_list", "instruction_id"))
    kwargs: list[dict[str, Any] | None] = Field(default_factory=list, max_length=MAX_CONSTRAINTS)
    scoring: Literal["all", "fraction"] = "all"
    mode: Literal["strict", "loose"] = "strict"

    _kwargs_strict = field_validator("kwargs")(_strict_json)

    @model_validator(mode="after")
    def _one_kwargs_per_constraint(self) -> InstructionsItem:
        if self.kwargs and len(self.kwargs) != len(self.instruction_id_list):
            raise ValueError(f"kwargs has {len(self.kwargs)} entries for "
                             f"{len(self.instruction_id_list)} instruction ids")
        return self


class TextItem(_Model):
    """The response's answer against one or several references.

    `match`: `exact`, `normalized` (SQuAD: case, punctuation, articles and spacing ignored),
    `regex` (a reference is a pattern the whole answer must match), `f1` (token F1, the best
    over the references; the reward is the F1), `choice` (multiple-choice letters).
    """

    kind: Literal["text"] = "text"
    id: str | None = Field(None, max_length=512)
    response: str = Field(max_length=MAX_RESPONSE_CHARS)
    answer: str | list[str] = Field(description="one reference, or several (any may match)")
    match: Literal["exact", "normalized", "regex", "f1", "choice"] = "normalized"
    extract: Literal["full", "answer_tag", "boxed", "last_line"] = "full"
    ignore_case: bool = False

    @model_validator(mode="after")
    def _sizes(self) -> TextItem:
        references = self.references
        if not 1 <= len(references) <= MAX_REFERENCES:
            raise ValueError(f"answer: give 1 to {MAX_REFERENCES} references")
        limit = MAX_PATTERN_CHARS if self.match == "regex" else MAX_REFERENCE_CHARS
        if any(len(r) > limit for r in references):
            raise ValueError(f"answer: a reference is longer than {limit} characters")
        return self

    @property
    def references(self) -> list[str]:
        return [self.answer] if isinstance(self.answer, str) else self.answer


class GymEntry(_Model):
    """A reasoning-gym dataset entry as `dataset[i]` returns it, after a JSON round trip."""

    question: str = Field("", max_length=MAX_REFERENCE_CHARS)
    answer: str | None = Field(None, max_length=MAX_REFERENCE_CHARS)
    metadata: dict[str, Any] = Field(default_factory=dict)

    _metadata_strict = field_validator("metadata")(_strict_json)


class ReasoningGymItem(_Model):
    """A reasoning-gym task scored by the task's own scorer.

    Either the `entry` travels with the item, or `seed` and `index` name it and the service
    regenerates it (`create_dataset(task, seed=seed, **config)[index]`).
    """

    kind: Literal["reasoning_gym"] = "reasoning_gym"
    id: str | None = Field(None, max_length=512)
    response: str = Field(max_length=MAX_RESPONSE_CHARS)
    task: str = Field(min_length=1, max_length=100)
    config: dict[str, Any] = Field(default_factory=dict)
    entry: GymEntry | None = None
    seed: int | None = Field(None, ge=0, le=2**63 - 1)
    index: int | None = Field(None, ge=0, le=2**31 - 1)
    extract: Literal["answer_tag", "full", "boxed"] = "answer_tag"

    _config_strict = field_validator("config")(_strict_json)

    @model_validator(mode="after")
    def _entry_or_coordinates(self) -> ReasoningGymItem:
        if self.entry is None and (self.seed is None or self.index is None):
            raise ValueError("give the entry, or the seed and index that regenerate it")
        if self.entry is not None and (self.seed is not None or self.index is not None):
            raise ValueError("give the entry or its seed and index, not both")
        return self


class FormatItem(_Model):
    """A format reward: is the response laid out as the template says.

    `think_answer`: one `<think>…</think>` block first, then a non-empty answer;
    `think_answer_tags`: `<think>…</think>` then `<answer>…</answer>`, nothing else around;
    `answer_tag`: exactly one non-empty `<answer>…</answer>`; `boxed`: one `\\boxed{…}`.
    """

    kind: Literal["format"] = "format"
    id: str | None = Field(None, max_length=512)
    response: str = Field(max_length=MAX_RESPONSE_CHARS)
    template: Literal["think_answer", "think_answer_tags", "answer_tag", "boxed"] = "think_answer"
    think_tag: str = Field("think", pattern=TAG_NAME)
    answer_tag: str = Field("answer", pattern=TAG_NAME)


class LengthItem(_Model):
    """A length target: 1.0 on target, falling linearly with the distance to 0 at `scale`.

    `unit`: `words` or `chars` of the response (thinking left out unless `count_thinking`), or
    `tokens`, whose count the caller measures with its tokenizer and sends as `tokens`.
    `direction`: `exact` (both sides cost), `at_most` or `at_least` (only overshooting the
    limit costs). `scale` defaults to the target (to 1 when the target is 0).
    """

    kind: Literal["length"] = "length"
    id: str | None = Field(None, max_length=512)
    response: str = Field(max_length=MAX_RESPONSE_CHARS)
    target: int = Field(ge=0, le=10_000_000)
    unit: Literal["words", "chars", "tokens"] = "words"
    tokens: int | None = Field(None, ge=0, le=10_000_000,
                               description="the response's token count (unit tokens)")
    direction: Literal["exact", "at_most", "at_least"] = "exact"
    scale: float | None = Field(None, gt=0)
    count_thinking: bool = False

    @model_validator(mode="after")
    def _tokens_when_counting_tokens(self) -> LengthItem:
        if self.unit == "tokens" and self.tokens is None:
            raise ValueError("tokens: required with unit 'tokens' (the service has no tokenizer)")
        return self


CheckerItem = InstructionsItem | TextItem | ReasoningGymItem | FormatItem | LengthItem
