"""HTTP contract v1 as pydantic models: the single source of truth.

This module is deliberately light (pydantic only) so that `rl_client` can import it without
FastAPI or Celery. The API, the workers, the CLI and the client all speak these types.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

# Size limits on single fields. The request-level limits (body bytes, items per request) are
# service settings; these protect the workers from one absurd item.
MAX_RESPONSE_CHARS = 200_000
MAX_ANSWER_CHARS = 10_000
MAX_TEST_CODE_CHARS = 1_000_000
MAX_CASES = 1_000
MAX_CASE_CHARS = 1_000_000


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
    model_config = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------- tests of code


class StdioCase(_Model):
    input: str = Field("", max_length=MAX_CASE_CHARS)
    output: str = Field(max_length=MAX_CASE_CHARS)


class StdioTests(_Model):
    """Feed `input` on stdin, compare stdout with `output`."""

    type: Literal["stdio"] = "stdio"
    cases: list[StdioCase] = Field(min_length=1, max_length=MAX_CASES)
    compare: Literal["lines", "exact", "tokens", "float", "lines_ci"] = "lines"
    abs_tol: float = Field(1e-6, ge=0)
    rel_tol: float = Field(1e-6, ge=0)


class AssertTests(_Model):
    """Python test code run after the solution (HumanEval / MBPP style)."""

    type: Literal["assert"] = "assert"
    code: str = Field(min_length=1, max_length=MAX_TEST_CODE_CHARS)


class CallCase(_Model):
    args: list[Any] = Field(default_factory=list)
    kwargs: dict[str, Any] = Field(default_factory=dict)
    expected: Any = None


class CallTests(_Model):
    """Call `fn_name(*args, **kwargs)` and compare its JSON-serialised return value."""

    type: Literal["call"] = "call"
    fn_name: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$")
    cases: list[CallCase] = Field(min_length=1, max_length=MAX_CASES)


Tests = Annotated[StdioTests | AssertTests | CallTests, Field(discriminator="type")]


def _dataset_tests_to_v1(raw: Any) -> Any:
    """Map the public dataset shapes onto the three v1 formats.

    APPS/TACO/CodeContests: {"inputs": [...], "outputs": [...], "fn_name"?}
    HumanEval: {"test": "...", "entry_point": "..."}; MBPP: {"test_list": [...]}.
    Anything with a `type` is already v1 and passes through untouched.
    """
    if not isinstance(raw, dict) or "type" in raw:
        return raw
    if "inputs" in raw and "outputs" in raw:
        inputs, outputs = raw["inputs"], raw["outputs"]
        if not isinstance(inputs, list) or not isinstance(outputs, list):
            return raw
        if len(inputs) != len(outputs):
            raise ValueError(
                f"tests.inputs has {len(inputs)} entries but tests.outputs has {len(outputs)}"
            )
        if raw.get("fn_name"):
            cases = []
            for args, expected in zip(inputs, outputs, strict=True):
                # APPS stores call outputs wrapped in a one-element list.
                if isinstance(expected, list) and len(expected) == 1:
                    expected = expected[0]
                cases.append({"args": args if isinstance(args, list) else [args],
                              "expected": expected})
            return {"type": "call", "fn_name": raw["fn_name"], "cases": cases}
        return {
            "type": "stdio",
            "cases": [{"input": _text(i), "output": _text(o)} for i, o in zip(inputs, outputs,
                                                                               strict=True)],
        }
    if "test" in raw and "entry_point" in raw:
        return {"type": "assert", "code": f"{raw['test']}\n\ncheck({raw['entry_point']})\n"}
    if "test_list" in raw:
        setup = raw.get("test_setup_code") or ""
        return {"type": "assert", "code": "\n".join([setup, *raw["test_list"]]) + "\n"}
    return raw


def _looks_like_tests(data: dict[str, Any]) -> bool:
    """Bare tests as datasets store them (v1, APPS/TACO, HumanEval, MBPP), without an item."""
    return (data.get("type") in ("stdio", "assert", "call")
            or {"inputs", "outputs"} <= data.keys() or "test_list" in data
            or {"test", "entry_point"} <= data.keys())


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(str(v) for v in value) + "\n"
    return str(value)


# --------------------------------------------------------------------------- items


class Limits(_Model):
    """Per test case limits; the service clamps them to its own maxima."""

    time_s: float = Field(2.0, gt=0, le=60)
    memory_mb: int = Field(512, ge=16, le=8192)


class MathOptions(_Model):
    """How a math answer is compared; every field is optional (the defaults suit answers
    written in \\boxed{}). An unknown option name is a 422 naming it."""

    rel_tol: float | None = Field(
        None, gt=0, lt=1, description="numbers within rel_tol * |reference| of the reference "
        "count as equal (default: the digits an answer shows must be right)")
    digits: int | None = Field(
        None, ge=1, le=30, description="numbers equal to the reference to this many "
        "significant digits count as equal")
    set_for_relation: bool = Field(
        True, description="an interval or set answer may match a relation reference "
        "([-2, 7] for -2 <= x <= 7)")
    relation_for_set: bool = Field(
        False, description="a relation answer may match an interval or set reference "
        "(-2 <= x <= 7 for [-2, 7])")

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
    scoring: Literal["all", "fraction"] = "all"

    @model_validator(mode="before")
    @classmethod
    def _accept_dataset_shapes(cls, data: Any) -> Any:
        if isinstance(data, dict) and "tests" in data:
            data = {**data, "tests": _dataset_tests_to_v1(data["tests"])}
        return data


Item = Annotated[MathItem | CodeItem, Field(discriminator="kind")]


class VerifyRequest(_Model):
    items: list[Item]


_item_adapter: TypeAdapter[MathItem | CodeItem] = TypeAdapter(Item)


def parse_item(data: Any) -> MathItem | CodeItem:
    """Validate one item from plain JSON data (raises pydantic.ValidationError)."""
    return _item_adapter.validate_python(data)


def item_from_label(response: str, label: str | dict[str, Any],
                    default_kind: Literal["math", "code"] = "math") -> MathItem | CodeItem:
    """Build an item from a completion and a dataset label.

    RL frameworks often carry one string label per sample: a math reference answer, or a JSON
    string holding a whole item (`{"kind": "code", "tests": ...}`) so code tasks fit too.
    """
    decoded: Any = label
    if isinstance(label, str) and label.lstrip().startswith("{"):
        try:
            decoded = json.loads(label)
        except json.JSONDecodeError:
            decoded = None
    data: dict[str, Any] | None = None
    if isinstance(decoded, dict):
        if {"kind", "tests", "answer"} & decoded.keys():
            data = decoded
        elif _looks_like_tests(decoded):
            data = {"kind": "code", "tests": decoded}
    if data is None:
        data = {"kind": "math", "answer": str(label)}
    data = {**data, "response": response}
    data.setdefault("kind", "code" if "tests" in data else default_kind)
    return parse_item(data)


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
    kinds: list[str] = ["math", "code"]
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
