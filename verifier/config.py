"""The service's settings: every `VERIFIER_*` variable the service reads, in one model.

Read and validated once, when a process starts (`verifier serve`, `verifier worker`, `verifier
check`; CLI flags override the variables), then handed to whatever needs them: the API, the
executors and, explicitly, every worker process (a pool process gets the server's, a Celery
worker its own command's). A bad value stops the start with an error naming the variable;
nothing falls back silently. The jail's programs never read these: they get what they need as
arguments (the launch spec, each request). The client's variables (`VERIFIER_URL`,
`VERIFIER_API_KEY`, ...) belong to `rlvr_contract.client_settings`, not here. Any other `VERIFIER_*`
variable is most likely a typo, which would otherwise change nothing and say nothing: the
commands name each one in a warning, or refuse to start (VERIFIER_UNKNOWN_VARIABLES=refuse).
"""

from __future__ import annotations

import difflib
import functools
import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from rlvr_contract.client_settings import ClientSettings

ENV_PREFIX = "VERIFIER_"
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
# VERIFIER_* variables of the repository's own tooling, never read by the service: the test
# virtualenv (scripts/test, .ci/run), the tests' demand for the tool venvs, the images' tag
# (compose.yaml). tests/test_settings.py checks that every VERIFIER_* name in the repository is
# a setting of the service or the client, or one of these.
TOOLING_VARIABLES = frozenset({"VERIFIER_VENV", "VERIFIER_REQUIRE_VLLM", "VERIFIER_REQUIRE_VERL",
                               "VERIFIER_IMAGE_TAG"})


class SettingsError(ValueError):
    """A setting has a bad value; the message names each variable and what is wrong."""


class Settings(BaseSettings):
    """Every knob of the service. The README's configuration table mirrors this class (a test
    holds them together)."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    # The API
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65_535)
    workers: int = Field(default_factory=lambda: os.cpu_count() or 1, ge=1)
    broker_url: str | None = None
    api_keys: str = ""
    max_body_bytes: int = Field(64 * 1024 * 1024, ge=1024)
    max_items: int = Field(16_384, ge=1)
    max_backlog: int = Field(65_536, ge=1)
    # Budgets: what one request may ask of the workers (see verifier/service/budget.py). A case's
    # own limits above the first two are lowered to them; an item or a request over the other two
    # is a 422.
    max_case_time_s: float = Field(60.0, gt=0, le=60)
    max_case_memory_mb: int = Field(8192, ge=16, le=8192)
    max_item_time_s: float = Field(600.0, gt=0)
    max_request_time_s: float = Field(86_400.0, gt=0)
    # After SIGTERM, requests in flight (and a worker's chunks) get this long to finish; then
    # what is left is stopped and the process exits.
    shutdown_timeout_s: float = Field(10.0, ge=0)
    # Chunks and their delivery
    math_chunk_size: int = Field(64, ge=1)
    # Code items per chunk (unset: see code_items_per_chunk)
    code_chunk_size: int | None = Field(None, ge=1)
    math_timeout_s: float = Field(1.0, gt=0)
    # Regenerating a reasoning-gym entry (seed + index) runs the task's generator, which may
    # solve the puzzle it makes: slower than scoring, and the dataset's cost, not the policy's.
    gym_generate_timeout_s: float = Field(10.0, gt=0)
    # A chunk gets what its items' own limits allow plus this; past it, its worker is stopped.
    chunk_timeout_s: float = Field(600.0, gt=0)
    chunk_max_tries: int = Field(3, ge=1)
    # A worker beats every worker_heartbeat_s; one silent for worker_lost_after_s is gone (its
    # container or machine) and the API hands the chunks it held to the others.
    worker_heartbeat_s: float = Field(2.0, gt=0)
    worker_lost_after_s: float = Field(10.0, gt=0)
    # The broker's own fallback for a delivery nobody holds (a worker killed between taking a
    # chunk and starting it): redelivered after this long. It must stay above the longest
    # chunk, or a slow chunk would run twice.
    visibility_timeout_s: int = Field(900, ge=5)
    cache_size: int = Field(100_000, ge=0)
    cache_max_bytes: int = Field(256 * 1024 * 1024, ge=0)
    cache_ttl_s: int = Field(86_400, ge=1)
    job_ttl_s: int = Field(3_600, ge=1)
    # Code runs (each worker process's own)
    python_warm: bool = True
    # Assert tests that are not plain calls run in the solution's own process (no language
    # but Python can keep them out of its reach): `refuse` answers such items infra_error.
    in_process_tests: Literal["allow", "refuse"] = "allow"
    output_limit_mb: float = Field(8.0, gt=0)
    compile_time_s: float = Field(30.0, gt=0)
    # A problem's time limit, as a dataset states it, is for fast runtimes: each language's CPU
    # limit is the item's times its multiplier ("name=factor,..."; unnamed languages: 1).
    time_multipliers: str = ""
    # A compressed test set may decompress to this much at most (a zip bomb is a 422).
    max_tests_bytes: int = Field(256 * 1024 * 1024, ge=1024)
    # Files a checker or interactor may include without the request shipping them (testlib.h).
    support_files_dir: str = ""
    # The languages whose toolchains the workers have ("name,..."; empty: those this process
    # finds, see verifier.kinds.code.admitted_languages): /v1/info lists them, admission refuses
    # others.
    languages: str = ""
    # Code execution as a tool (/run_code, sessions): a program's memory when it asks for
    # none (memory_limit_MB -1), and how long it may wait for a worker before a 504; its
    # timeouts are clamped as a case's (max_case_time_s; compiling: compile_time_s). A host
    # (the embedded server, each worker) keeps at most max_sessions sessions, each idle for
    # max_session_ttl_s at most.
    run_code_memory_mb: int = Field(1024, ge=16, le=8192)
    run_code_admission_s: float = Field(60.0, gt=0)
    max_sessions: int = Field(32, ge=1, le=1000)
    max_session_ttl_s: float = Field(3600.0, gt=0)
    # The jail
    sandbox: Literal["bubblewrap", "docker"] = "bubblewrap"
    sandbox_cgroup: bool = True
    sandbox_uid_base: int = Field(200_000, ge=1)
    sandbox_runner_runs: int = Field(256, ge=1)
    jail_python: str = "/usr/bin/python3"
    docker_image: str = "rlvr-verifier-runner-{group}:latest"
    docker_runtime: str = ""
    docker_memory_mb: int = Field(2048, ge=6)  # Docker refuses less than 6 MiB
    docker_cpus: float = Field(1.0, gt=0)
    docker_pids: int = Field(1024, ge=1)
    # Logs
    log_level: str = "info"
    log_format: Literal["text", "json"] = "text"
    # A VERIFIER_* variable that is no setting (a typo): named in a warning, or a refused start.
    unknown_variables: Literal["warn", "refuse"] = "warn"

    @field_validator("sandbox", "log_level", "log_format", "in_process_tests",
                     "unknown_variables", mode="before")
    @classmethod
    def _lower_case(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("docker_runtime", "jail_python", "support_files_dir", mode="before")
    @classmethod
    def _stripped(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        if value not in LOG_LEVELS:
            raise ValueError(f"expected one of {', '.join(LOG_LEVELS)}")
        return value

    @field_validator("support_files_dir")
    @classmethod
    def _a_directory(cls, value: str) -> str:
        if value and not os.path.isdir(value):
            raise ValueError("not a directory")
        return value

    @field_validator("time_multipliers")
    @classmethod
    def _known_multipliers(cls, value: str) -> str:
        parse_multipliers(value)
        return value

    @field_validator("languages")
    @classmethod
    def _known_languages(cls, value: str) -> str:
        parse_languages(value)
        return value

    @property
    def language_list(self) -> list[str]:
        """VERIFIER_LANGUAGES as canonical names, in the registry's order (empty: not set)."""
        return parse_languages(self.languages)

    @model_validator(mode="after")
    def _beats_before_lost(self) -> Settings:
        if self.worker_lost_after_s < 2 * self.worker_heartbeat_s:
            raise ValueError(f"{env_name('worker_lost_after_s')}={self.worker_lost_after_s:g} "
                             f"must be at least twice {env_name('worker_heartbeat_s')}="
                             f"{self.worker_heartbeat_s:g}: one late beat must not declare a "
                             "worker lost")
        return self

    @property
    def time_multiplier(self) -> dict[str, float]:
        """Language (its canonical name) -> factor on its CPU limit."""
        return parse_multipliers(self.time_multipliers)

    @property
    def mode(self) -> str:
        return "distributed" if self.broker_url else "embedded"

    @property
    def code_items_per_chunk(self) -> int:
        """VERIFIER_CODE_CHUNK_SIZE, or the mode's default: 16 embedded, where a batch's chunks
        shrink toward its end (service/verification.py), so a larger size costs no idle worker
        at the end and saves a round trip per chunk in the middle; 4 distributed, where they are
        all that size (the API does not know how many workers there are) and a small batch
        should still reach several of them."""
        if self.code_chunk_size is not None:
            return self.code_chunk_size
        return 16 if self.mode == "embedded" else 4

    @property
    def api_key_set(self) -> frozenset[str]:
        return frozenset(k.strip() for k in self.api_keys.split(",") if k.strip())


def parse_languages(text: str) -> list[str]:
    """`py,c++,go` -> ["python", "cpp", "go"] (the registry's order); names or aliases."""
    return list(_parsed_languages(text))


@functools.lru_cache(maxsize=16)
def _parsed_languages(text: str) -> tuple[str, ...]:
    """`parse_languages`, once per text: admission asks for every item."""
    from verifier.kinds.code.languages import LANGUAGES, find_language

    named = set()
    for name in filter(None, (part.strip() for part in text.split(","))):
        language = find_language(name)
        if language is None:
            raise ValueError(f"unknown language {name!r}")
        named.add(language.name)
    return tuple(name for name in LANGUAGES if name in named)


def parse_multipliers(text: str) -> dict[str, float]:
    """`python=2,java=1.5` -> {"python": 2.0, "java": 1.5}; languages by name or alias."""
    return dict(_parsed_multipliers(text))


@functools.lru_cache(maxsize=16)
def _parsed_multipliers(text: str) -> tuple[tuple[str, float], ...]:
    """`parse_multipliers`, once per text: admission asks for every item."""
    from verifier.kinds.code.languages import find_language

    factors: dict[str, float] = {}
    for pair in filter(None, (part.strip() for part in text.split(","))):
        name, _, factor = pair.partition("=")
        language = find_language(name)
        if language is None:
            raise ValueError(f"unknown language {name.strip()!r}")
        try:
            factors[language.name] = float(factor)
        except ValueError:
            raise ValueError(f"{pair!r} is not name=factor") from None
        if not 0 < factors[language.name] <= 100:
            raise ValueError(f"{pair!r}: the factor must be in (0, 100]")
    return tuple(factors.items())


def env_name(field: str) -> str:
    return ENV_PREFIX + field.upper()


def setting_default(field: str) -> Any:
    """A setting's default, for code called without settings (a checker in a test or a
    bench): the model stays the one place where each default is written."""
    return Settings.model_fields[field].get_default(call_default_factory=True)


def known_variables() -> frozenset[str]:
    """Every VERIFIER_* name something reads: the service's settings, the client's, tooling."""
    return frozenset({env_name(name) for name in Settings.model_fields}
                     | {env_name(name) for name in ClientSettings.model_fields}
                     | TOOLING_VARIABLES)


def unknown_variables(environ: Mapping[str, str] | None = None) -> list[str]:
    """The VERIFIER_* variables set in `environ` (default: this process's) that nothing reads,
    each with the setting it was probably meant to be, as `NAME (did you mean SETTING?)`."""
    known = known_variables()
    found = []
    for name in sorted(os.environ if environ is None else environ):
        if name.startswith(ENV_PREFIX) and name not in known:
            suffixes = sorted(k.removeprefix(ENV_PREFIX) for k in known)
            close = difflib.get_close_matches(name.removeprefix(ENV_PREFIX), suffixes, n=1,
                                              cutoff=0.75)
            found.append(name + (f" (did you mean {ENV_PREFIX}{close[0]}?)" if close else ""))
    return found


def load_settings(**overrides: object) -> Settings:
    """The settings from the environment, `overrides` (CLI flags) on top. Raises SettingsError,
    naming every variable with a bad value, instead of starting with a value nobody meant, and
    every unknown VERIFIER_* variable when VERIFIER_UNKNOWN_VARIABLES is `refuse`."""
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        problems = [f"{env_name(str(error['loc'][0]))}={error['input']!r}: {error['msg']}"
                    if error["loc"] else error["msg"] for error in exc.errors()]
        raise SettingsError("invalid settings: " + "; ".join(problems)) from None
    if settings.unknown_variables == "refuse" and (unknown := unknown_variables()):
        raise SettingsError(f"unknown variables ({env_name('unknown_variables')}=refuse): "
                            + "; ".join(unknown))
    return settings
