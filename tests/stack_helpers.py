"""Shared by the stack tests (tests/test_stack_*.py): the Docker engine, images and Compose."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
IMAGES = REPO / "sandbox" / "images"
COMPOSE_FILE = REPO / "compose.yaml"
# What building images may take on a cold machine: the local base, then one image set (the
# runner images, or the stack's). pytest's own limit (600 s, pyproject.toml) counts a test's
# fixtures too, so a test whose fixtures may build gets these budgets on top of it.
BASE_BUILD_S = 900
IMAGES_BUILD_S = 1800
builds_images = pytest.mark.timeout(600 + BASE_BUILD_S + IMAGES_BUILD_S)


def _script(name: str, timeout_s: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(IMAGES / name)], capture_output=True, text=True,
                          timeout=timeout_s, check=False)


@functools.cache
def _engine_problem() -> str | None:
    started = _script("ensure-dockerd.sh", 120)
    if started.returncode != 0:
        return f"no Docker engine can run here: {started.stderr.strip()}"
    return None


def require_docker() -> None:
    """A running engine with the local `debian:bookworm-slim` base; skip only if no engine can
    run here (Docker missing, or dockerd unable to start), fail if the base cannot be built."""
    problem = _engine_problem()
    if problem:
        pytest.skip(problem)
    base = _script("build-base.sh", BASE_BUILD_S)
    assert base.returncode == 0, f"building the local base image failed:\n{base.stderr}"


def require_runner_images() -> None:
    """The Docker jail backend's runner images (built once; later builds hit the cache)."""
    require_docker()
    built = _script("build-runners.sh", IMAGES_BUILD_S)
    assert built.returncode == 0, f"building the runner images failed:\n{built.stderr}"


def compose_command() -> list[str] | None:
    """`docker compose` (v2) where installed, else `docker-compose` (1.29), else None."""
    if shutil.which("docker") and subprocess.run(
            ["docker", "compose", "version"], capture_output=True, check=False).returncode == 0:
        return ["docker", "compose"]
    found = shutil.which("docker-compose")
    return [found] if found else None


def compose(project: str, *args: str, files: tuple[Path, ...] = (COMPOSE_FILE,),
            env: dict[str, str] | None = None, timeout_s: float = 600,
            check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run a Compose command for `project` from the repository root."""
    command = compose_command()
    assert command, "no Compose installed"
    argv = [*command, "-p", project]
    for file in files:
        argv += ["-f", str(file)]
    result = subprocess.run([*argv, *args], cwd=REPO, capture_output=True, text=True,
                            timeout=timeout_s, env={**os.environ, **(env or {})}, check=False)
    if check:
        assert result.returncode == 0, (
            f"{' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result
