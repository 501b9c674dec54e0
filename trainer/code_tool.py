"""The code tool of tool-integrated rollouts: the verifier service's sandbox, through the client.

Each trajectory gets a session (`/v1/sessions`: a Python interpreter in its own jail, state kept
between its blocks), or with `stateful: false` runs each block alone through `/run_code`. Every
way a call can end becomes text the policy reads, never an exception or a silent gap:

    ok                      its standard output, then a final expression's value
    error                   the output and the traceback (the state is kept)
    timeout, memory_limit,  the output so far and a note that the code was killed and the
    output_limit            session restarted empty (its variables are gone)
    error (not run)         the code refused as a request (too large, not text: 413, 422, or
                            the client's own check), with the reason
    infra_error             the service failed to run it
    service_error           no answer: the service down, or busy (429/504) through every retry
    session_lost            the session is gone with its worker (410): the next block opens a
                            new one, and the note says the state is lost

This file is the trainer's only tool-side use of rl_client (as trainer/rewards.py is for
rewards); trainer/tool_rollout.py sees the `CodeTool` protocol alone.
"""

from __future__ import annotations

import asyncio
import logging
import time

from pydantic import ValidationError

from rl_client import (
    AsyncSession,
    AsyncVerifierClient,
    RunCodeResponse,
    SessionLost,
    SessionRun,
    SessionStatus,
    VerifierError,
)
from trainer.config import ToolsConfig
from trainer.types import ToolOutcome

log = logging.getLogger("trainer")

RESTARTED = "the session restarted: its variables, imports and files are gone"
# Answers that refuse the code itself (too large, not text): the code's fault, not the tool's
REFUSED = frozenset({413, 422})


def _refused(reason: Exception) -> str:
    """The reason in a line: a validation error's first message, else the error's first line."""
    errors = reason.errors() if isinstance(reason, ValidationError) else None
    why = errors[0]["msg"] if errors else str(reason).splitlines()[0]
    return f"[the code was not run: {why[:200]}]"


def _joined(*parts: str | None) -> str:
    """Output pieces one after the other, each on lines of its own."""
    text = ""
    for part in filter(None, parts):
        text += part if not text or text.endswith("\n") else "\n" + part
    return text


def describe_session_run(run: SessionRun, timeout_s: float) -> tuple[str, str]:
    """(status, what the policy reads) of one session run."""
    status = run.status
    if status is SessionStatus.ok:
        return status.value, _joined(run.stdout, run.stderr, run.result)
    notes = {
        SessionStatus.timeout: f"[timeout: the code was killed after {timeout_s:g} s; "
                               f"{RESTARTED}]",
        SessionStatus.memory_limit: f"[memory limit: the code was killed; {RESTARTED}]",
        SessionStatus.output_limit: f"[output limit: the code printed too much and was killed; "
                                    f"{RESTARTED}]",
        SessionStatus.infra_error: "[tool error: the service failed to run the code]",
    }
    note = notes.get(status, f"[{RESTARTED}]" if run.restarted else None)
    return status.value, _joined(run.stdout, run.stderr, note)


def describe_run_code(answer: RunCodeResponse, timeout_s: float) -> tuple[str, str]:
    """(status, what the policy reads) of one /run_code program (no session: no state)."""
    result = answer.run_result or answer.compile_result
    if answer.status.value == "SandboxError" or result is None:
        return "infra_error", f"[tool error: the service failed to run the code: {answer.message}]"
    output = _joined(result.stdout, result.stderr)
    if result.status.value == "TimeLimitExceeded":
        return "timeout", _joined(output, f"[timeout: the code was killed after {timeout_s:g} s]")
    if answer.message:
        return "output_limit", _joined(output, f"[{answer.message}]")
    if answer.status.value == "Success":
        return "ok", output
    if result.return_code is not None and result.return_code < 0:
        return "memory_limit", _joined(output, f"[killed by signal {-result.return_code}]")
    return "error", output


class VerifierCodeSession:
    """One trajectory's code: its session is created at the first block and deleted by
    `close`; a lost session is replaced at the next block.

    The create runs as a task of its own, shielded from the rollout's cancellation: a rollout
    cancelled while the service was creating the session still learns its id, and `close`
    (which waits for a create under way) deletes it instead of leaving it to its ttl."""

    def __init__(self, client: AsyncVerifierClient, config: ToolsConfig) -> None:
        self.client = client
        self.config = config
        self.session: AsyncSession | None = None
        self._opening: asyncio.Future[AsyncSession] | None = None

    async def run(self, code: str) -> ToolOutcome:
        started = time.perf_counter()
        try:
            status, output = await self._run(code)
        except SessionLost as lost:
            log.warning("tool call: %s", lost)
            await self.close()  # gone with its worker: a delete is answered 410, or ends it
            status, output = "session_lost", ("[tool error: the session was lost with the "
                                               "service's worker; the code may not have run; "
                                               "its variables, imports and files are gone]")
        except VerifierError as failure:
            if failure.status_code in REFUSED:
                status, output = "error", _refused(failure)
            else:
                log.warning("tool call: %s", failure)
                status, output = "service_error", (f"[tool error: no answer from the code "
                                                   f"service ({type(failure).__name__}); the "
                                                   f"code may not have run]")
        except ValueError as refused:  # the client's own check of the request
            status, output = "error", _refused(refused)
        return ToolOutcome(status, output, time.perf_counter() - started)

    async def _run(self, code: str) -> tuple[str, str]:
        config = self.config
        if not config.stateful:
            answer = await self.client.run_code(code, run_timeout=config.timeout_s,
                                                memory_limit_mb=config.memory_mb)
            return describe_run_code(answer, config.timeout_s)
        session = await self._open()
        return describe_session_run(await session.run(code), config.timeout_s)

    async def _open(self) -> AsyncSession:
        if self._opening is None:
            config = self.config
            self.session = self.client.session("python", ttl_s=config.session_ttl_s,
                                               time_s=config.timeout_s,
                                               memory_mb=config.memory_mb)
            self._opening = asyncio.ensure_future(self.session.open())
        try:
            return await asyncio.shield(self._opening)
        except VerifierError:
            self.session = self._opening = None  # never created: the next block tries again
            raise

    async def close(self) -> None:
        session, opening = self.session, self._opening
        self.session = self._opening = None
        if opening is not None:
            await asyncio.wait([opening])  # a create under way may yet make a session
            if not opening.cancelled() and opening.exception() is not None:
                return  # it failed: no session was made
        if session is None:
            return
        try:
            await session.close()
        except VerifierError as failure:  # the service's ttl ends it: never fail a rollout
            log.warning("could not delete tool session %s: %s", session.session_id, failure)


class VerifierCodeTool:
    """Sessions of the verifier service at the client's URL, one per trajectory."""

    def __init__(self, client: AsyncVerifierClient, config: ToolsConfig) -> None:
        self.client = client
        self.config = config

    def session(self) -> VerifierCodeSession:
        return VerifierCodeSession(self.client, self.config)
