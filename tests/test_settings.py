"""One settings model: docs/operations.md documents exactly it, a bad value stops `verifier serve`,
`verifier worker` and `verifier check` with an error naming the variable, and worker processes
run with the settings they are handed, not with whatever their environment says."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from rl_client import VerifierClient
from rl_client._core import ClientCore
from rlvr_contract.client_settings import ClientSettings, client_settings
from rlvr_contract.schemas import CodeItem
from verifier.config import Settings, SettingsError, env_name, load_settings, unknown_variables
from verifier.executors.celery_app import make_celery
from verifier.executors.embedded import EmbeddedExecutor
from verifier.local import free_port

ROOT = Path(__file__).resolve().parents[1]


def documented_settings(table: int = 0) -> dict[str, tuple[str, str]]:
    """A table of the configuration section of docs/operations.md (0: the service's, 1: the
    client's): variable -> (default cell, meaning)."""
    text = (ROOT / "docs/operations.md").read_text()
    section = text[text.index("\n## Configuration"):]
    section = section[:section.index("\n## ", 1)]
    tables = re.split(r"\n(?!\|)[^\n]*\n(?=\| variable \|)", section)
    assert len(tables) == 3, "expected the section's prose, the service's table, the client's"
    rows = {}
    for line in tables[1 + table].splitlines():
        if line.startswith("| `VERIFIER_"):
            variable, default, meaning = (cell.strip() for cell in line.strip("|").split(" | "))
            name = variable.strip("`")
            assert name not in rows, f"{name} has two rows"
            rows[name] = (default, meaning)
    return rows


def documents(cell: str, default: object) -> bool:
    """Whether a default cell states `default`: a literal in backticks, or words for a default
    that has no literal (unset, empty, computed at start)."""
    literal = re.fullmatch(r"`([^`]*)`", cell)
    if default is None or default == "":
        return literal is None and bool(cell)
    if literal is None:
        return False
    value = literal.group(1)
    if isinstance(default, bool):
        return value in (("1", "true") if default else ("0", "false"))
    if isinstance(default, int | float):
        return float(value) == default
    return value == default


@pytest.mark.parametrize(("table", "model"), [(0, Settings), (1, ClientSettings)],
                         ids=["service", "client"])
def test_the_docs_table_is_the_settings_model(table: int, model: type) -> None:
    """The service's table is verifier.config.Settings, the client's
    rlvr_contract.client_settings'."""
    rows = documented_settings(table)
    fields = model.model_fields
    assert set(rows) == {env_name(name) for name in fields}, (
        f"undocumented: {sorted({env_name(n) for n in fields} - set(rows))}; "
        f"stale rows: {sorted(set(rows) - {env_name(n) for n in fields})}")
    for name, field in fields.items():
        cell, meaning = rows[env_name(name)]
        default = None if field.default_factory is not None else field.default
        assert documents(cell, default), f"{env_name(name)}: the docs say {cell}, " \
                                         f"the model {default!r}"
        assert meaning, env_name(name)


def test_the_table_check_notices_a_wrong_default() -> None:
    assert documents("`256`", 256) and documents("`8`", 8.0) and documents("`1`", True)
    assert not documents("`255`", 256) and not documents("`0`", True)
    assert documents("unset", None) and not documents("`None`", None)
    assert not documents("see docker_backend.py", 2048)


@pytest.mark.parametrize(("load", "bad"), [
    (load_settings, {"VERIFIER_SANDBOX_RUNNER_RUNS": "abc", "VERIFIER_PYTHON_WARM": "maybe"}),
    (client_settings, {"VERIFIER_INFRA_ERROR_SCORE": "nan", "VERIFIER_URL": "verifier:8000"}),
], ids=["service", "client"])
def test_bad_values_are_errors_naming_each_variable(
        load: Callable[[], object], bad: dict[str, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    for variable, value in bad.items():
        monkeypatch.setenv(variable, value)
    with pytest.raises(ValueError) as caught:  # SettingsError is one
        load()
    for variable, value in bad.items():
        assert f"{variable}={value!r}" in str(caught.value)


def test_values_are_read_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERIFIER_SANDBOX_RUNNER_RUNS", "0")
    with pytest.raises(SettingsError, match="VERIFIER_SANDBOX_RUNNER_RUNS='0'"):
        load_settings()
    monkeypatch.setenv("VERIFIER_SANDBOX_RUNNER_RUNS", "3")
    monkeypatch.setenv("VERIFIER_SANDBOX", " Docker")
    assert (load_settings().sandbox_runner_runs, load_settings().sandbox) == (3, "docker")
    monkeypatch.setenv("VERIFIER_INFRA_ERROR_SCORE", "-1")
    monkeypatch.setenv("VERIFIER_URL", "http://verifier:8000/")
    assert client_settings().infra_error_score == -1.0
    assert client_settings().url == "http://verifier:8000"


def test_parsed_language_settings_are_each_callers_own() -> None:
    """Admission reads them for every item, so they are parsed once per text: what a caller
    gets is still a fresh list and dict, which it may change without changing the next one."""
    settings = load_settings(languages="c++, py", time_multipliers="py=2")
    settings.language_list.append("go")
    settings.time_multiplier["python"] = 9.0
    assert settings.language_list == ["python", "cpp"]
    assert settings.time_multiplier == {"python": 2.0}
    assert load_settings(languages="py").language_list == ["python"]


def test_a_worker_is_not_lost_for_one_late_beat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERIFIER_WORKER_HEARTBEAT_S", "3")
    monkeypatch.setenv("VERIFIER_WORKER_LOST_AFTER_S", "5")
    with pytest.raises(SettingsError, match="VERIFIER_WORKER_LOST_AFTER_S=5 must be at least "
                                            "twice VERIFIER_WORKER_HEARTBEAT_S=3"):
        load_settings()
    monkeypatch.setenv("VERIFIER_WORKER_LOST_AFTER_S", "6")
    assert load_settings().worker_lost_after_s == 6


def start_and_wait(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run a `verifier` command that should refuse to start; if it starts, stop it (and its
    worker processes) after a while: the test then fails on its exit status."""
    process = subprocess.Popen([sys.executable, "-m", "verifier", *args], cwd=ROOT,
                               env={**os.environ, **env}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        err += "\n(it started anyway; stopped)"
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


@pytest.mark.parametrize(("command", "variable", "value"), [
    (["serve"], "VERIFIER_SANDBOX_RUNNER_RUNS", "abc"),
    (["serve"], "VERIFIER_OUTPUT_LIMIT_MB", "lots"),
    (["serve"], "VERIFIER_SANDBOX", "no-such-backend"),
    (["serve"], "VERIFIER_MAX_ITEMS", "-1"),
    (["worker", "--broker", "redis://127.0.0.1:1/0"], "VERIFIER_SANDBOX_CGROUP", "perhaps"),
    (["worker", "--broker", "redis://127.0.0.1:1/0"], "VERIFIER_COMPILE_TIME_S", "soon"),
    (["check", "README.md"], "VERIFIER_PYTHON_WARM", "maybe"),
])
def test_a_bad_value_stops_the_command(command: list[str], variable: str, value: str) -> None:
    if command == ["serve"]:
        command = ["serve", "--port", str(free_port())]
    done = start_and_wait(command, {variable: value})
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"{variable}={value!r}" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr


def test_pool_workers_run_with_the_settings_they_are_handed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VERIFIER_OUTPUT_LIMIT_MB", raising=False)  # the workers' default: 8 MiB
    chatty = CodeItem(language="python", response="print('x' * 20_000)",
                      tests={"type": "stdio", "cases": [{"output": "x" * 20_000 + "\n"}]})

    async def score() -> list[dict]:
        executor = EmbeddedExecutor(Settings(workers=1, output_limit_mb=0.01))
        try:
            return await executor.run_chunk([chatty.model_dump(mode="json")], deadline_s=600)
        finally:
            await executor.close()

    [result] = asyncio.run(score())
    assert result["status"] == "output_limit", result


def test_unknown_variables_are_named_with_the_setting_meant() -> None:
    environ = {"VERIFIER_SANDBOX_RUNER_RUNS": "3", "VERIFIER_PORT": "1", "VERIFIER_URL": "x",
               "VERIFIER_VENV": "/opt/venv", "VERIFIER_TIMEOUT": "9", "OTHER": "1"}
    assert unknown_variables(environ) == [
        "VERIFIER_SANDBOX_RUNER_RUNS (did you mean VERIFIER_SANDBOX_RUNNER_RUNS?)",
        "VERIFIER_TIMEOUT (did you mean VERIFIER_TIMEOUT_S?)"]


def test_every_verifier_variable_of_the_repository_is_known() -> None:
    """What the code, scripts, images and configs read or set is a setting (the service's or
    the client's) or one of the tooling's own, so nothing the repository sets draws the
    unknown-variable warning. (Tests and docs also spell typos on purpose: not scanned.)"""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    named = set()
    for name in listed:
        path = ROOT / name
        if name.startswith(("tests/", "docs/")) or path.suffix == ".md" or not path.is_file():
            continue
        text = path.read_text(errors="replace")
        # whole names only, not a prefix code completes (f"VERIFIER_{...}", "VERIFIER_DOCKER_")
        named |= set(re.findall(r"\bVERIFIER_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_{])", text))
    assert {"VERIFIER_VENV", "VERIFIER_PORT", "VERIFIER_URL"} <= named
    assert not unknown_variables({name: "" for name in named})


def test_refused_unknown_variables_stop_serve() -> None:
    done = start_and_wait(["serve", "--port", str(free_port())],
                          {"VERIFIER_UNKNOWN_VARIABLES": "refuse",
                           "VERIFIER_MATH_TIMEOUT": "5"})
    assert done.returncode == 2, done.stderr[-2000:]
    assert ("VERIFIER_MATH_TIMEOUT (did you mean VERIFIER_MATH_TIMEOUT_S?)"
            in done.stderr), done.stderr[-2000:]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [["serve"], ["worker", "--broker", "redis://127.0.0.1:1/0"]],
                         ids=["serve", "worker"])
def test_unknown_variables_are_named_in_a_warning_at_start(command: list[str]) -> None:
    if command == ["serve"]:
        command = ["serve", "--port", str(free_port())]
    process = subprocess.Popen([sys.executable, "-m", "verifier", *command], cwd=ROOT,
                               env={**os.environ, "VERIFIER_CODE_CHUNKSIZE": "2"},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        first = process.stderr.readline()  # the warning comes before anything starts
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
    assert first.startswith("warning: unknown variable VERIFIER_CODE_CHUNKSIZE (did you mean "
                            "VERIFIER_CODE_CHUNK_SIZE?): ignored"), first


def test_client_options_come_from_its_settings_and_arguments_win(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERIFIER_TIMEOUT_S", "42.5")
    monkeypatch.setenv("VERIFIER_MAX_RETRIES", "0")
    monkeypatch.setenv("VERIFIER_CHUNK_SIZE", "3")
    monkeypatch.setenv("VERIFIER_MAX_CONCURRENCY", "2")
    core = ClientCore(None, None, timeout=None, max_retries=None, chunk_size=None,
                      max_concurrency=None, backoff_s=0.5, backoff_max_s=1.0)
    assert (core.timeout, core.max_retries, core.chunk_size, core.max_concurrency) == \
        (42.5, 0, 3, 2)
    assert [chunk.size for chunk in core.chunks([{"kind": "math", "response": "1",
                                                  "answer": "1"}] * 7)] == [3, 3, 1]
    with VerifierClient(timeout=7, chunk_size=100) as client:
        assert (client._core.timeout, client._core.chunk_size) == (7, 100)
        assert client._core.max_retries == 0
    monkeypatch.setenv("VERIFIER_CHUNK_SIZE", "0")
    with pytest.raises(ValueError, match="VERIFIER_CHUNK_SIZE='0'"):
        VerifierClient()


def test_the_queue_takes_its_timeouts_from_the_settings() -> None:
    app = make_celery(Settings(broker_url="redis://127.0.0.1:1/0", visibility_timeout_s=120,
                               job_ttl_s=77))
    assert app.conf.broker_transport_options["visibility_timeout"] == 120
    assert app.conf.result_expires == 77
