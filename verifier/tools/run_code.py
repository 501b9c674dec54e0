"""One `/run_code` program on a worker: compile it (cached in the jail, as code items are), run
it once with its stdin and files, and say what happened in SandboxFusion's words.

The API hands over a job whose every field it has checked and clamped (`tool_job`); this side
only runs it, in the worker's own jail, the one the rewards use. SandboxFusion's rules: a
command that ran to its end is `Finished` with its exit status (a signal's death is minus the
signal, as Python's subprocess says it), a time limit is `TimeLimitExceeded`, and `Error` (the
answer's status `SandboxError`) means the jail itself failed, never the program.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import signal
from dataclasses import replace
from typing import Any

from rlvr_contract.schemas import Limits
from rlvr_contract.tool_schemas import (
    CommandRunResult,
    CommandRunStatus,
    RunCodeResponse,
    RunStatus,
)
from verifier.config import Settings
from verifier.kinds.code import harness, process_settings, sandbox
from verifier.kinds.code.bytecode import jail_bytecode
from verifier.kinds.code.languages import MIB, Language, find_language, language_env
from verifier.kinds.code.limits import COMPILE_MEMORY_MB, compile_limits, run_limits
from verifier.sandbox import ArtefactStore, RunOutcome, RunRequest, SandboxBackend, SandboxLimits
from verifier.sandbox.backend import JAIL_ENV
from verifier.service.lru import LRU

COMPILE_FAILURES_KEPT = 256  # compile errors remembered by source: verl sends a program per case
_compile_failures: LRU[str, dict[str, Any]] = LRU(COMPILE_FAILURES_KEPT)


def tool_limits(base: SandboxLimits, timeout_s: float, output_bytes: int) -> SandboxLimits:
    """A tool run's limits: its timeout is wall time, as SandboxFusion's (CPU time is only a
    backstop, at twice that), and its whole stderr comes back, up to the output cap."""
    return replace(base, wall_s=timeout_s, cpu_s=2 * timeout_s + 1, stderr_bytes=output_bytes)


def command_result(outcome: RunOutcome) -> CommandRunResult:
    """How one command ended, in SandboxFusion's terms."""
    timed_out = outcome.wall_timeout or outcome.signal == signal.SIGXCPU
    code = outcome.exit_code if outcome.exit_code is not None else (
        -outcome.signal if outcome.signal is not None else None)
    return CommandRunResult(
        status=CommandRunStatus.TimeLimitExceeded if timed_out else CommandRunStatus.Finished,
        execution_time=round(outcome.wall_s, 6), return_code=None if timed_out else code,
        stdout=outcome.stdout.decode("utf-8", errors="replace"),
        stderr=outcome.stderr.decode("utf-8", errors="replace"),
        cpu_time=None if outcome.cpu_s is None else round(outcome.cpu_s, 6))


def sandbox_error(message: str, **results: CommandRunResult) -> dict[str, Any]:
    """The answer for the service's own failure: SandboxError, which clients retry."""
    failed = CommandRunResult(status=CommandRunStatus.Error, stderr=message)
    return RunCodeResponse(status=RunStatus.SandboxError, message=message,
                           **{"run_result": failed, **results}).model_dump(mode="json")


def fetched_files(files: dict[str, bytes], sizes: Any, limit: int) -> tuple[dict[str, str], str]:
    """The files a run fetched (`files`, cut where the jail's `limit` for all of them together
    ran out) that came back whole, as base64, and what says which did not ("" when all did):
    `sizes` are their full sizes, as the jail reported them."""
    sizes = sizes if isinstance(sizes, dict) else {}
    whole = {path: base64.b64encode(data).decode() for path, data in files.items()
             if len(data) == sizes.get(path)}
    cut = [f"{path} ({size} bytes)" for path, size in sizes.items() if path not in whole]
    if not cut:
        return whole, ""
    return whole, (f"fetch_files: not returned, over the limit of {limit} bytes for the files "
                   f"of one run together (VERIFIER_OUTPUT_LIMIT_MB): {', '.join(cut)}")


def _program(job: dict[str, Any], language: Language) -> str:
    """The code as SandboxFusion would run it: PHP gets its opening tag if it lacks one."""
    code = job["code"]
    if language.name == "php" and not code.lstrip().startswith("<?php"):
        return "<?php\n" + code
    return code


def run_tool_code(job: dict[str, Any], settings: Settings | None = None) -> dict[str, Any]:
    """Run one job (see the module doc) in this process's jail; a RunCodeResponse as JSON
    data. Never raises."""
    settings = settings or process_settings()
    try:
        with sandbox(settings) as backend:
            return _run(job, backend, settings)
    except Exception as exc:  # a bug here is the service's failure, said as SandboxFusion does
        return sandbox_error(f"the tool runner failed: {exc!r}")


def _run(job: dict[str, Any], backend: SandboxBackend, settings: Settings) -> dict[str, Any]:
    language = find_language(job["language"])
    if language is None:
        return sandbox_error(f"this worker does not know the language {job['language']!r}")
    tools = backend.tools()
    missing = [tool for tool in language.tools if tool not in tools]
    if missing:
        return sandbox_error(f"this worker has no {language.name} toolchain "
                              f"({', '.join(missing)})")
    code = _program(job, language)
    files = {path: base64.b64decode("".join(content.split()))
             for path, content in job["files"].items()}
    source = language.source_name(code)
    output_bytes = int(settings.output_limit_mb * MIB)
    compiled: CommandRunResult | None = None
    artefact = None
    if language.compile is not None:
        compiled, artefact = _compile(language, tools, source, code, files, job, backend,
                                      settings)
        if compiled.status is CommandRunStatus.Error:
            return sandbox_error(compiled.stderr or "", compile_result=compiled)
        if artefact is None:  # a compile error, or its time limit
            return RunCodeResponse(status=RunStatus.Failed,
                                   compile_result=compiled).model_dump(mode="json")
    memory_mb = job["memory_mb"]
    python = language.name == "python"
    argv = language.run(tools, source, memory_mb, code)
    if language.name == "java":  # SandboxFusion runs `java -ea`: assert statements count
        argv = [argv[0], "-ea", *argv[1:]]
    limits = tool_limits(run_limits(language, Limits(time_s=job["run_timeout"],
                                                     memory_mb=memory_mb), output_bytes),
                         job["run_timeout"], output_bytes)
    payload = None
    if python:  # the harness runs it as `python solution.py` would (warm: in a fork)
        payload = harness.payload("stdio", {
            "code": code, "nonce": secrets.token_hex(16), "script_path": True,
            "bytecode": jail_bytecode(code, backend.bytecode_magic())})
    if artefact:  # the compiled program replaced what was there (`main`, `classes/`)
        files = {path: data for path, data in files.items()
                 if not any(path == kept or path.startswith(f"{kept}/")
                            for kept in language.artefacts)}
    request = RunRequest(
        argv=argv, limits=limits, stdin=(job["stdin"] or "").encode(),
        files=files if artefact or python else {**files, source: code.encode()},
        artefact=artefact, env={**JAIL_ENV, **language_env(language, memory_mb)},
        proc=not python, python_payload=payload, warm_python=python and settings.python_warm,
        runner_runs=settings.sandbox_runner_runs, collect=tuple(job["fetch_files"]))
    outcome = backend.run(request)
    if outcome.missing_artefact:  # the jail restarted since the compilation: once more
        compiled, artefact = _compile(language, tools, source, code, files, job, backend,
                                      settings)
        outcome = backend.run(request) if artefact else RunOutcome(error="artefact missing")
    if outcome.error or outcome.missing_artefact:
        return sandbox_error(f"the sandbox failed: {outcome.error or 'artefact missing'}",
                              **({"compile_result": compiled} if compiled else {}))
    ran = command_result(outcome)
    fetched, left_out = fetched_files(outcome.files, outcome.file_sizes, output_bytes)
    message = ""
    if outcome.output_exceeded:
        message = (f"the output was over the limit of {output_bytes} bytes "
                   "(VERIFIER_OUTPUT_LIMIT_MB): the program was stopped")
    elif outcome.oom_killed:
        message = f"the program was killed at its memory limit of {memory_mb} MB"
    elif left_out:
        message = left_out
    succeeded = ran.status is CommandRunStatus.Finished and ran.return_code == 0 and not message
    return RunCodeResponse(status=RunStatus.Success if succeeded else RunStatus.Failed,
                           message=message, compile_result=compiled, run_result=ran,
                           files=fetched).model_dump(mode="json")


def _compile(language: Language, tools: dict[str, str], source: str, code: str,
             files: dict[str, bytes], job: dict[str, Any], backend: SandboxBackend,
             settings: Settings) -> tuple[CommandRunResult, str | None]:
    """Compile once per distinct source and files (the artefact is cached in the jail, keyed by
    their hash); (how it ended, the artefact's key or None when there is none to run)."""
    argv = language.compile(tools, source)
    key = hashlib.sha256(json.dumps([argv, source, code, sorted(
        (path, hashlib.sha256(data).hexdigest()) for path, data in files.items())]).encode()
    ).hexdigest()
    known = _compile_failures.get(key)
    if known is not None:
        return CommandRunResult.model_validate(known), None
    timeout = job["compile_timeout"]
    outcome = backend.run(RunRequest(
        argv=argv, limits=tool_limits(compile_limits(timeout), timeout, MIB),
        files={**files, source: code.encode()}, store=ArtefactStore(key, language.artefacts),
        env={**JAIL_ENV, **language_env(language, COMPILE_MEMORY_MB)}, proc=True,
        runner_runs=settings.sandbox_runner_runs))
    if outcome.error and not outcome.unusable_artefacts:
        return CommandRunResult(status=CommandRunStatus.Error,
                                stderr=f"the sandbox failed compiling: {outcome.error}"), None
    if outcome.cached:
        return CommandRunResult(status=CommandRunStatus.Finished, execution_time=0.0,
                                return_code=0, stdout="", stderr=""), key
    result = command_result(outcome)
    if outcome.unusable_artefacts:
        result.return_code = result.return_code or 1
        result.stderr = f"{outcome.unusable_artefacts}\n{result.stderr}"
    if result.status is CommandRunStatus.Finished and result.return_code == 0 and outcome.stored:
        return result, key
    if result.status is CommandRunStatus.Finished:  # its own error: the same every time
        _compile_failures[key] = result.model_dump(mode="json")
    return result, None
