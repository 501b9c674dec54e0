"""HTTP contract v1 as pydantic models: the single source of truth.

It lives in the contract package, which the client's wheel ships without the server
(client/pyproject.toml), and is pydantic only. The API, the workers, the CLI and the client all
speak these types; reading a dataset's labels into them is `labels.py`'s.
"""

from __future__ import annotations

import operator
from enum import StrEnum
from functools import reduce
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    TypeAdapter,
    field_serializer,
    field_validator,
    model_validator,
)

from rlvr_contract import strict_json
from rlvr_contract.dataset_shapes import tests_to_v1
from rlvr_contract.item_kinds import (
    MAX_RESPONSE_CHARS,
    FormatItem,
    InstructionsItem,
    LengthItem,
    ReasoningGymItem,
    TextItem,
)

# Size limits on single fields. The request-level limits (body bytes, items per request) are
# service settings; these protect the workers from one absurd item (MAX_RESPONSE_CHARS, for
# every kind's response, is item_kinds').
MAX_ANSWER_CHARS = 10_000
MAX_TEST_CODE_CHARS = 1_000_000
MAX_CASES = 1_000
MAX_CASE_CHARS = 64 * 1024 * 1024  # one case: bounded in practice by the body or decompression
MAX_SUPPORT_FILES = 16
FILE_NAME = r"^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,63}$"  # a file in a run's work directory


class Status(StrEnum):
    """Verdict of one item; the wire values are fixed by contract v1."""

    correct = "correct"
    wrong = "wrong"
    no_answer = "no_answer"
    compile_error = "compile_error"
    runtime_error = "runtime_error"
    timeout = "timeout"
    memory_limit = "memory_limit"
    output_limit = "output_limit"
    infra_error = "infra_error"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


# --------------------------------------------------------------------------- tests of code


class StdioCase(_Model):
    input: str = Field("", max_length=MAX_CASE_CHARS)
    # The expected output; with a checker or an interactor, the reference answer they are
    # given (optional there: empty when left out).
    output: str = Field(max_length=MAX_CASE_CHARS)


class _Sampled(_Model):
    """Run a subsample of the cases, as training recipes do (see verifier/kinds/code/testset.py)."""

    max_tests: int | None = Field(None, ge=1)
    sample: Literal["first", "longest", "random"] = "first"
    seed: int = 0


class Limits(_Model):
    """Per test case limits; the service clamps them to its own maxima
    (VERIFIER_MAX_CASE_TIME_S, VERIFIER_MAX_CASE_MEMORY_MB)."""

    time_s: float = Field(2.0, gt=0, le=60)
    memory_mb: int = Field(512, ge=16, le=8192)


class SupportFile(_Model):
    name: str = Field(pattern=FILE_NAME)
    content: str = Field(max_length=MAX_TEST_CODE_CHARS)


class JudgeProgram(_Model):
    """A dataset's checker or interactor, run in jail runs of its own
    (verifier/kinds/code/judges.py).

    `testlib` (the default): argv `input output answer result -appes`, verdict by testlib's exit
    codes and result file; `cms`: argv `input answer output`, a score in [0, 1] as the first
    token of stdout (CMS checkers, open-r1's `generated_checker`).
    """

    language: str = Field("cpp", min_length=1, max_length=32)
    code: str = Field(min_length=1, max_length=MAX_TEST_CODE_CHARS)
    support_files: list[SupportFile] = Field(default_factory=list, max_length=MAX_SUPPORT_FILES)
    protocol: Literal["testlib", "cms"] = "testlib"
    max_points: float = Field(1.0, gt=0)  # testlib `quitp(p)` scores p / max_points
    limits: Limits = Field(default_factory=lambda: Limits(time_s=5.0, memory_mb=1024))


class Subtask(_Model):
    """A group of cases worth `points`: it earns points × the lowest score among its cases."""

    name: str | None = Field(None, max_length=200)
    points: float = Field(ge=0)
    cases: list[int] = Field(min_length=1, max_length=MAX_CASES)


class StdioTests(_Sampled):
    """Feed `input` on stdin (or in `input_file`), judge stdout (or `output_file`): compare it
    with `output`, or let `checker` judge it; or let `interactor` talk to the program."""

    type: Literal["stdio"] = "stdio"
    cases: list[StdioCase] = Field(min_length=1, max_length=MAX_CASES)
    compare: Literal["lines", "exact", "tokens", "float", "lines_ci"] = "lines"
    abs_tol: float = Field(1e-6, ge=0)
    rel_tol: float = Field(1e-6, ge=0)
    checker: JudgeProgram | None = None
    interactor: JudgeProgram | None = None
    input_file: str | None = Field(None, pattern=FILE_NAME)
    output_file: str | None = Field(None, pattern=FILE_NAME)
    subtasks: list[Subtask] | None = Field(None, min_length=1, max_length=MAX_CASES)

    @model_validator(mode="before")
    @classmethod
    def _answers_optional_when_judged(cls, data: Any) -> Any:
        """A checker or an interactor may do without reference answers: missing ones are
        empty (plain comparison still requires every `output`)."""
        if isinstance(data, dict) and (data.get("checker") or data.get("interactor")) and \
                isinstance(data.get("cases"), list):
            data = {**data, "cases": [{"output": "", **case} if isinstance(case, dict) else case
                                      for case in data["cases"]]}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> StdioTests:
        if self.interactor is not None:
            if self.input_file or self.output_file:
                raise ValueError("input_file/output_file: not with an interactor (it talks to "
                                 "the program on stdin and stdout)")
            if self.interactor.protocol != "testlib":
                raise ValueError("interactor.protocol: interactors speak testlib's protocol")
        if self.subtasks is not None:
            if self.max_tests is not None:
                raise ValueError("max_tests: subsampling would break the subtasks")
            for number, subtask in enumerate(self.subtasks):
                bad = [i for i in subtask.cases if not 0 <= i < len(self.cases)]
                if bad:
                    raise ValueError(f"subtasks.{number}.cases: no case {bad[0]} "
                                     f"(there are {len(self.cases)})")
        return self


class AssertTests(_Model):
    """Python test code run after the solution (HumanEval / MBPP style)."""

    type: Literal["assert"] = "assert"
    code: str = Field(min_length=1, max_length=MAX_TEST_CODE_CHARS)


class CallCase(_Model):
    args: list[Any] = Field(default_factory=list)
    kwargs: dict[str, Any] = Field(default_factory=dict)
    expected: Any = None

    @field_validator("args", "kwargs", "expected")
    @classmethod
    def _strict_json(cls, value: Any) -> Any:
        """Finite numbers, nesting within strict_json.MAX_DEPTH (NaN would match nothing and
        be written as null; deep values break everything downstream)."""
        problem = strict_json.problem(value)
        if problem:
            raise ValueError(problem)
        return value


class CallTests(_Sampled):
    """Call `fn_name(*args, **kwargs)` and compare its JSON-serialised return value."""

    type: Literal["call"] = "call"
    fn_name: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$")
    cases: list[CallCase] = Field(min_length=1, max_length=MAX_CASES)


class CompressedTests(_Sampled):
    """A test set shipped as `data`: base64 of gzip (or zlib) of its JSON (any TESTS shape, or
    a list of {input, output}), decoded in bounded memory and never unpickled (a pickled JSON
    string, as LiveCodeBench stores its tests, is read without running the pickle). Its own
    `max_tests`/`sample`/`seed` apply on top of the decoded set's."""

    type: Literal["compressed"] = "compressed"
    data: str = Field(min_length=1)


Tests = Annotated[StdioTests | AssertTests | CallTests | CompressedTests,
                  Field(discriminator="type")]
PlainTests = Annotated[StdioTests | AssertTests | CallTests, Field(discriminator="type")]


# --------------------------------------------------------------------------- items


class MathOptions(_Model):
    """How a math answer is compared; every field is optional (the defaults suit answers
    written in \\boxed{}). An unknown option name is a 422 naming it."""

    rel_tol: float | None = Field(
        None, gt=0, lt=1, description="numbers within rel_tol * |reference| of the reference "
        "count as equal (default: the digits an answer shows must be right)")
    digits: int | None = Field(
        None, ge=1, le=30, description="numbers equal to the reference to this many "
        "significant digits count as equal")
    set_for_relation: StrictBool = Field(
        True, description="an interval or set answer may match a relation reference "
        "([-2, 7] for -2 <= x <= 7)")
    relation_for_set: StrictBool = Field(
        True, description="a relation answer in solved form may match the interval or set "
        "reference it describes (k < -5 for (-oo, -5), -2 <= x <= 7 for [-2, 7]); an unsolved "
        "one (x^2 < 4) never does")
    rounded_reference: StrictBool = Field(
        False, description="a decimal reference is a rounded value: an exact irrational answer "
        "that rounds to it counts (pi for 3.14); by default, as in math-verify, it does not")

    @model_validator(mode="after")
    def _one_tolerance(self) -> MathOptions:
        if self.rel_tol is not None and self.digits is not None:
            raise ValueError("give rel_tol or digits, not both")
        return self


class MathItem(_Model):
    kind: Literal["math"] = "math"
    id: str | None = Field(None, max_length=512)
    response: str = Field(max_length=MAX_RESPONSE_CHARS)
    answer: str = Field(min_length=1, max_length=MAX_ANSWER_CHARS)
    options: MathOptions | None = None


class CodeItem(_Model):
    kind: Literal["code"] = "code"
    id: str | None = Field(None, max_length=512)
    response: str = Field(max_length=MAX_RESPONSE_CHARS)
    language: str = Field("python", min_length=1, max_length=32)
    tests: Tests
    limits: Limits = Field(default_factory=Limits)
    scoring: Literal["all", "fraction", "subtasks"] = "all"

    @model_validator(mode="before")
    @classmethod
    def _accept_dataset_shapes(cls, data: Any) -> Any:
        if isinstance(data, dict) and "tests" in data:
            data = {**data, "tests": tests_to_v1(data["tests"])}
        return data


# The item kinds, listed once, in the order /v1/info lists them (the server's side of each is
# in verifier/kinds/registry.py, held equal by a test); every union and list of kinds below is
# derived from this one. A composite's parts may be of any kind but code (no sandbox runs).
SINGLE_ITEM_MODELS: tuple[type[BaseModel], ...] = (
    MathItem, CodeItem, InstructionsItem, TextItem, ReasoningGymItem, FormatItem, LengthItem)
PART_ITEM_MODELS = tuple(model for model in SINGLE_ITEM_MODELS if model is not CodeItem)
Grader = Annotated[reduce(operator.or_, PART_ITEM_MODELS), Field(discriminator="kind")]


class GraderPart(_Model):
    """One grader of a composite item: an item of another kind, minus `response` and `id`."""

    name: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
    weight: float = Field(1.0, ge=-1e6, le=1e6)
    grader: Grader

    @field_serializer("grader")
    def _without_response(self, grader: BaseModel) -> dict[str, Any]:
        return grader.model_dump(mode="json", exclude={"response", "id"})


class CompositeItem(_Model):
    """Several graders of one response: the weighted sum of their rewards, or `formula`.

    `formula` is an arithmetic expression over the parts' names (+ - * /, parentheses,
    numbers, min(), max()); names default to the grader's kind (kind_2, kind_3... on repeats).
    """

    kind: Literal["composite"] = "composite"
    id: str | None = Field(None, max_length=512)
    response: str = Field(max_length=MAX_RESPONSE_CHARS)
    graders: list[GraderPart] = Field(min_length=1, max_length=16)
    formula: str | None = Field(None, min_length=1, max_length=1_000)

    @model_validator(mode="before")
    @classmethod
    def _share_response(cls, data: Any) -> Any:
        """Each part is scored on the composite's response; the parts carry none."""
        if not isinstance(data, dict) or not isinstance(data.get("graders"), list):
            return data
        parts = []
        for i, part in enumerate(data["graders"]):
            grader = part.get("grader") if isinstance(part, dict) else None
            if isinstance(grader, dict):
                for field in ("response", "id"):
                    if field in grader:
                        raise ValueError(f"graders.{i}.grader.{field}: not allowed (the "
                                         "composite's response is what every part scores)")
                part = {**part, "grader": {**grader, "response": data.get("response", "")}}
            parts.append(part)
        return {**data, "graders": parts}

    @model_validator(mode="after")
    def _unique_names(self) -> CompositeItem:
        names = self.part_names()
        if len(set(names)) != len(names):
            raise ValueError(f"graders: part names must be unique, got {names}")
        return self

    def part_names(self) -> list[str]:
        kinds = [part.grader.kind for part in self.graders]
        names = []
        for i, (part, kind) in enumerate(zip(self.graders, kinds, strict=True)):
            repeat = kinds[:i + 1].count(kind)
            names.append(part.name or (kind if kinds.count(kind) == 1 else f"{kind}_{repeat}"))
        return names


ITEM_MODELS: tuple[type[BaseModel], ...] = (*SINGLE_ITEM_MODELS, CompositeItem)
AnyItem = reduce(operator.or_, ITEM_MODELS)
Item = Annotated[AnyItem, Field(discriminator="kind")]
KINDS = [model.model_fields["kind"].default for model in ITEM_MODELS]


class VerifyRequest(_Model):
    items: list[Item]


_item_adapter: TypeAdapter[AnyItem] = TypeAdapter(Item)


def parse_item(data: Any) -> AnyItem:
    """Validate one item from plain JSON data (raises pydantic.ValidationError)."""
    return _item_adapter.validate_python(data)


# --------------------------------------------------------------------------- results


class Result(BaseModel):
    """Verdict of one item. `reward` is None only for `infra_error`: mask, never punish."""

    model_config = ConfigDict(extra="allow")

    id: str | None = None
    reward: float | None
    status: Status
    detail: dict[str, Any] = Field(default_factory=dict)
    elapsed_ms: float = 0.0

    @classmethod
    def infra_error(cls, item_id: str | None, reason: str, **detail: Any) -> Result:
        return cls(id=item_id, reward=None, status=Status.infra_error,
                   detail={"error": reason, **detail})


class IndexedResult(Result):
    """A result on the job stream, with its position in the submitted batch."""

    index: int


class VerifyResponse(BaseModel):
    results: list[Result]


class JobStatus(StrEnum):
    queued = "queued"
    running = "running"
    done = "done"
    failed = "failed"
    cancelled = "cancelled"  # DELETE /v1/jobs/{id}: unfinished items stopped, never scored


class JobCreated(BaseModel):
    job_id: str


class JobState(BaseModel):
    job_id: str
    status: JobStatus
    done: int
    total: int
    results: list[Result | None]
    error: str | None = None


class Info(BaseModel):
    version: str
    mode: Literal["embedded", "distributed"]
    languages: list[str]
    kinds: list[str] = KINDS
    instruction_ids: list[str] = []
    reasoning_gym_tasks: list[str] = []
    max_items: int
    max_body_bytes: int
    workers: int | None = None


class Health(BaseModel):
    status: Literal["ok", "unavailable"]
    detail: str | None = None


# --------------------------------------------------------------------------- OpenRLHF


class OpenRLHFRequest(BaseModel):
    """OpenRLHF's remote reward model request (`--remote_rm_url`)."""

    query: list[str]
    prompts: list[str] | None = None
    labels: list[str] | None = None


class OpenRLHFResponse(BaseModel):
    rewards: list[float]
    scores: list[float]
    extra_logs: dict[str, list[float]] = Field(default_factory=dict)
