"""The contract's "code execution as a tool" as pydantic models: SandboxFusion's `/run_code`
and `/run_jupyter`, and sessions (state kept between runs, as a notebook kernel keeps it).

Like schemas.py, shipped with the client and imported by the server. `/run_code`'s models follow
SandboxFusion's own field by field, so its clients (verl's `sandbox_fusion`, the
`sandbox-fusion` package) work unchanged; like SandboxFusion, they ignore fields they do not
know. The session models are this service's own and, like the rest of v1, refuse unknown fields.

Sizes: a value over its limit is refused with the error type `too_large`, which the API answers
with 413 (every other refusal is a 422 naming the field).
"""

from __future__ import annotations

import base64
import binascii
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

MAX_CODE_CHARS = 4_000_000
MAX_STDIN_CHARS = 32 * 1024 * 1024
MAX_FILES = 256  # files a request brings, and files it asks back
MAX_FILES_BYTES = 32 * 1024 * 1024  # all the files a request brings, decoded
MAX_PATH_CHARS = 1024
MAX_CELLS = 256
TOO_LARGE = "too_large"

# --------------------------------------------------------------------------- validation


def too_large(what: str, size: int, limit: int, unit: str) -> PydanticCustomError:
    """The error the API turns into a 413."""
    return PydanticCustomError(TOO_LARGE, "{size} {unit} is over the limit of {limit}",
                               {"what": what, "size": size, "limit": limit, "unit": unit})


def unicode_text(value: str, what: str) -> str:
    """`value`, if it is text a program can be given (UTF-8): JSON's `\\ud800` escapes decode
    to lone surrogates, which no encoding carries. ValueError says where one is."""
    if not value.isascii():
        try:
            value.encode()
        except UnicodeEncodeError as exc:
            raise ValueError(f"{what}: a lone surrogate ({value[exc.start]!r}) at character "
                             f"{exc.start} is not text") from None
    return value


def work_path(path: str) -> str:
    """A path below the run's work directory, as requests name files: relative, each
    component a plain name (no `..`, `.` or empty one), no NUL. ValueError says why not."""
    if not path or len(path) > MAX_PATH_CHARS:
        raise ValueError(f"{path[:40]!r}: a path of 1 to {MAX_PATH_CHARS} characters")
    if "\0" in path or path.startswith("/"):
        raise ValueError(f"{path!r}: a relative path without NUL")
    unicode_text(path, "path")
    parts = path.split("/")
    if any(part in ("", ".", "..") or len(part) > 255 for part in parts):
        raise ValueError(f"{path!r}: each component a plain name of up to 255 characters "
                         "(no '..', '.' or empty one)")
    return path


def decoded_size(content: str, path: str) -> int:
    """The size of a file's base64 content once decoded; ValueError if it is not base64
    (whitespace between the characters is allowed, as `base64` writes lines)."""
    try:
        return len(base64.b64decode("".join(content.split()), validate=True))
    except (binascii.Error, ValueError):
        raise ValueError(f"{path!r}: the content is not base64") from None


def directory_clash(paths: list[str], taken: str | None = None) -> str | None:
    """Why these files cannot all be written (one of them, or `taken`, would have to be the
    directory of another: `a` and `a/b`), or None."""
    files = set(paths) | ({taken} if taken else set())
    for path in paths:
        parts = path.split("/")
        for end in range(1, len(parts)):
            directory = "/".join(parts[:end])
            if directory in files:
                return f"{path!r} needs {directory!r} to be a directory, and it is a file"
    return None


def checked_files(files: dict[str, str | None]) -> dict[str, str]:
    """The files a request brings (path -> base64), paths and contents checked, their total
    size bounded; a null content is left out (SandboxFusion skips it too)."""
    if len(files) > MAX_FILES:
        raise too_large("files", len(files), MAX_FILES, "files")
    kept = {work_path(path): content for path, content in files.items() if content is not None}
    clash = directory_clash(list(kept))
    if clash:
        raise ValueError(clash)
    total = sum(decoded_size(content, path) for path, content in kept.items())
    if total > MAX_FILES_BYTES:
        raise too_large("files", total, MAX_FILES_BYTES, "bytes")
    return kept


def checked_fetch(paths: list[str]) -> list[str]:
    if len(paths) > MAX_FILES:
        raise too_large("fetch_files", len(paths), MAX_FILES, "paths")
    return [work_path(path) for path in paths]


def bounded_text(value: str, what: str, limit: int) -> str:
    if len(value) > limit:
        raise too_large(what, len(value), limit, "characters")
    return unicode_text(value, what)


def _memory_limit(value: int) -> int:
    if value != -1 and value < 16:
        raise ValueError("-1 (the service's default) or at least 16 MB")
    return value


def _cells(value: list[str]) -> list[str]:
    total = sum(map(len, value))
    if total > MAX_CODE_CHARS:
        raise too_large("cells", total, MAX_CODE_CHARS, "characters")
    for index, cell in enumerate(value):
        unicode_text(cell, f"cell {index}")
    return value


Code = Annotated[str, AfterValidator(lambda value: bounded_text(value, "code", MAX_CODE_CHARS))]
Stdin = Annotated[str | None, AfterValidator(
    lambda value: None if value is None else bounded_text(value, "stdin", MAX_STDIN_CHARS))]
MemoryLimit = Annotated[int, AfterValidator(_memory_limit),
                        Field(description="-1: the service's default")]
WorkFiles = Annotated[dict[str, str | None], AfterValidator(checked_files),
                      Field(description="path below the work directory -> base64 content")]
FetchFiles = Annotated[list[str], AfterValidator(checked_fetch),
                       Field(description="paths below the work directory to return")]

# --------------------------------------------------------------------------- /run_code


class _SandboxFusionModel(BaseModel):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)


class RunCodeRequest(_SandboxFusionModel):
    """SandboxFusion's RunCodeRequest. `language` takes SandboxFusion's names (`nodejs`, `R`,
    `D_ut`...) and this service's own; timeouts are clamped to the service's maxima."""

    code: Code
    language: str = Field("python", min_length=1, max_length=32)
    stdin: Stdin = None
    compile_timeout: float = Field(10.0, gt=0)
    run_timeout: float = Field(10.0, gt=0)
    memory_limit_MB: MemoryLimit = -1  # noqa: N815
    files: WorkFiles = Field(default_factory=dict)
    fetch_files: FetchFiles = Field(default_factory=list)


class CommandRunStatus(StrEnum):
    Finished = "Finished"  # ran to its end (whatever its exit code) or was killed by a signal
    Error = "Error"  # the sandbox itself failed
    TimeLimitExceeded = "TimeLimitExceeded"


class RunStatus(StrEnum):
    Success = "Success"  # compiled, ran, exit 0
    Failed = "Failed"  # the program's own failure
    SandboxError = "SandboxError"  # the service's own failure only: retry it


class CommandRunResult(BaseModel):
    """One command (the compilation, or the run): how it ended, its time and output.
    `return_code` is the exit status, minus the signal number for a program killed by one
    (as Python's subprocess says it), null at a time limit."""

    status: CommandRunStatus
    execution_time: float | None = None
    return_code: int | None = None
    stdout: str | None = None
    stderr: str | None = None
    cpu_time: float | None = None


class RunCodeResponse(BaseModel):
    status: RunStatus
    message: str = ""
    compile_result: CommandRunResult | None = None
    run_result: CommandRunResult | None = None
    executor_pod_name: str | None = None
    files: dict[str, str] = Field(default_factory=dict)


class RunJupyterRequest(_SandboxFusionModel):
    """SandboxFusion's RunJupyterRequest: cells run in order in one fresh Python session."""

    cells: Annotated[list[str], AfterValidator(_cells)] = Field(max_length=MAX_CELLS)
    cell_timeout: float = Field(0.0, ge=0, description="0: only the total timeout applies")
    total_timeout: float = Field(45.0, gt=0)
    memory_limit_MB: MemoryLimit = -1  # noqa: N815
    kernel: Literal["python3"] = "python3"
    files: WorkFiles = Field(default_factory=dict)
    fetch_files: FetchFiles = Field(default_factory=list)


class CellRunResult(BaseModel):
    """One cell as Jupyter reports it: `display` holds the final expression's value as a MIME
    bundle (`{"text/plain": repr}`), `error` the exception (`ename`, `evalue`, `traceback`)."""

    stdout: str
    stderr: str
    display: list[dict[str, Any]] = Field(default_factory=list)
    error: list[dict[str, Any]] = Field(default_factory=list)


class RunJupyterResponse(BaseModel):
    status: RunStatus
    message: str = ""
    driver: CommandRunResult | None = None
    cells: list[CellRunResult] = Field(default_factory=list)
    executor_pod_name: str | None = None
    files: dict[str, str] = Field(default_factory=dict)


# --------------------------------------------------------------------------- sessions


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class SessionLimits(_Model):
    """Limits of each run of a session (the service clamps them to its maxima, as a code
    item's): its wall time, and the memory of its interpreter, which a run's state keeps."""

    time_s: float = Field(10.0, gt=0, le=60)
    memory_mb: int = Field(512, ge=16, le=8192)


class SessionCreate(_Model):
    language: str = Field("python", min_length=1, max_length=32)
    ttl_s: float = Field(600.0, gt=0, description="idle timeout, capped by the service's")
    limits: SessionLimits = Field(default_factory=SessionLimits)


class SessionCreated(BaseModel):
    session_id: str
    language: str
    expires_at: float  # Unix time; each run moves it on by the session's ttl_s


class SessionRunRequest(_Model):
    code: Code
    stdin: Stdin = None
    timeout_s: float | None = Field(None, gt=0, description="this run's wall limit")
    files: WorkFiles = Field(default_factory=dict)
    fetch_files: FetchFiles = Field(default_factory=list)


class SessionStatus(StrEnum):
    ok = "ok"
    error = "error"  # the code raised (MemoryError included): the state is kept
    timeout = "timeout"  # killed at its time limit: the session restarted empty
    memory_limit = "memory_limit"  # killed at its memory limit: restarted empty
    output_limit = "output_limit"  # killed for printing too much: restarted empty
    infra_error = "infra_error"  # the service's own failure


class SessionError(BaseModel):
    """The exception a run raised, as Jupyter reports one."""

    ename: str
    evalue: str
    traceback: list[str] = Field(default_factory=list)


class SessionRun(BaseModel):
    """One run's outcome. `restarted` says the session's state is gone (variables, imports,
    working-directory files): its interpreter was killed, or it ended itself."""

    status: SessionStatus
    stdout: str
    stderr: str
    result: str | None = None  # the repr of a final expression, as a notebook shows it
    restarted: bool = False
    elapsed_ms: float = 0.0
    files: dict[str, str] = Field(default_factory=dict)
    error: SessionError | None = None


class SessionInfo(BaseModel):
    session_id: str
    language: str
    expires_at: float
    runs: int
