"""The client's settings: the `VERIFIER_*` variables a client process reads, in one model.

The service's own variables are `verifier/config.py`'s; the client cannot import it (it installs
without the server). This model is in the contract so that the service knows every name of the
`VERIFIER_*` namespace (verifier.config.known_variables). Read when a client (or an adapter's
reward function) is made, since a trainer may set them between calls; a bad value is an error
naming the variable, never a silent default. Arguments passed to the client win over these. The
README's client table mirrors this class (tests/test_settings.py holds them together).
"""

from __future__ import annotations

import math
import os

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

ENV_PREFIX = "VERIFIER_"
DEFAULT_URL = "http://127.0.0.1:8000"


class ClientSettings(BaseModel):
    """What a client reads from its environment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = Field(DEFAULT_URL, min_length=1)
    api_key: str | None = None
    # verl and OpenRLHF cannot mask a sample: what an infra_error scores in OpenRLHF's file mode.
    infra_error_score: float = 0.0
    # A call's budget, retries and waits included; how often a refused or lost request is
    # retried; items per request; requests in flight at once (the client's arguments of the
    # same names win over these).
    timeout_s: float = Field(300.0, gt=0)
    max_retries: int = Field(5, ge=0)
    chunk_size: int = Field(512, ge=1)
    max_concurrency: int = Field(8, ge=1)

    @field_validator("url")
    @classmethod
    def _http(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value

    @field_validator("infra_error_score", "timeout_s")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value


def env_name(field: str) -> str:
    return ENV_PREFIX + field.upper()


def client_settings() -> ClientSettings:
    """The client's settings from the environment now (unset or empty: the default). Raises
    ValueError naming each variable with a bad value."""
    given = {name: os.environ[env_name(name)] for name in ClientSettings.model_fields
             if os.environ.get(env_name(name))}
    try:
        return ClientSettings(**given)
    except ValidationError as exc:
        problems = [f"{env_name(str(error['loc'][0]))}={error['input']!r}: {error['msg']}"
                    for error in exc.errors()]
        raise ValueError("invalid client settings: " + "; ".join(problems)) from None
