"""Service settings, read from `VERIFIER_*` environment variables (CLI flags override them)."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Every knob of the service. The README's configuration table mirrors this class."""

    model_config = SettingsConfigDict(env_prefix="VERIFIER_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = Field(default_factory=lambda: os.cpu_count() or 1, ge=1)
    broker_url: str | None = None
    api_keys: str = ""
    max_body_bytes: int = Field(64 * 1024 * 1024, ge=1024)
    max_items: int = Field(16_384, ge=1)
    max_backlog: int = Field(65_536, ge=1)
    math_chunk_size: int = Field(64, ge=1)
    code_chunk_size: int = Field(4, ge=1)
    math_timeout_s: float = Field(1.0, gt=0)
    # Regenerating a reasoning-gym entry (seed + index) runs the task's generator, which may
    # solve the puzzle it makes: slower than scoring, and the dataset's cost, not the policy's.
    gym_generate_timeout_s: float = Field(10.0, gt=0)
    chunk_timeout_s: float = Field(600.0, gt=0)
    chunk_max_tries: int = Field(3, ge=1)
    # A chunk whose worker vanished (host or container gone) is redelivered after this long;
    # it must stay above the longest chunk, or a slow chunk would run twice.
    visibility_timeout_s: int = Field(900, ge=5)
    cache_size: int = Field(100_000, ge=0)
    cache_ttl_s: int = Field(86_400, ge=1)
    job_ttl_s: int = Field(3_600, ge=1)
    log_level: str = "info"
    log_format: Literal["text", "json"] = "text"

    @property
    def mode(self) -> str:
        return "distributed" if self.broker_url else "embedded"

    @property
    def api_key_set(self) -> frozenset[str]:
        return frozenset(k.strip() for k in self.api_keys.split(",") if k.strip())
