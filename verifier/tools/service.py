"""The tool surfaces' service, what the routers call: `/run_code` and `/run_jupyter` admitted,
clamped and sent to the workers, and session calls sent to their host.

A `/run_code` program is one item of work for the budgets and the backlog the rewards share
(VERIFIER_MAX_ITEM_TIME_S, VERIFIER_MAX_BACKLOG); it goes to the same workers, in either
execution mode, and waits for one no longer than VERIFIER_RUN_CODE_ADMISSION_S: past that, or
over the backlog, the answer is 504 with Retry-After (what verl and SandboxFusion's clients
retry). Nothing is cached: a program may read the clock or draw random numbers.
"""

from __future__ import annotations

import contextlib
import math
import time
from typing import Any

from rlvr_contract.tool_schemas import (
    CellRunResult,
    CommandRunResult,
    CommandRunStatus,
    RunCodeRequest,
    RunCodeResponse,
    RunJupyterRequest,
    RunJupyterResponse,
    RunStatus,
    SessionRun,
    SessionStatus,
    directory_clash,
)
from verifier.config import Settings
from verifier.executors import Busy, Executor, ServiceUnavailable
from verifier.kinds.code import admitted_languages
from verifier.kinds.code.cost import RUN_SLACK_S
from verifier.sandbox.bubblewrap import REPLY_GRACE_S, STARTUP_TIMEOUT_S
from verifier.service import metrics
from verifier.service.verification import VerificationService
from verifier.tools.languages import UnknownLanguage, tool_language
from verifier.tools.session_routing import SessionRouter
from verifier.tools.sessions import BUSY_WAIT_S, SessionProblem

JUPYTER_TTL_SLACK_S = 60.0


class InvalidRequest(Exception):
    """A field that parses but cannot be served (an uninstalled language): HTTP 422."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.errors = [{"loc": ["body", field], "msg": f"{field}: {message}",
                        "type": "value_error"}]


class ToolService:
    def __init__(self, settings: Settings, executor: Executor,
                 verification: VerificationService, sessions: SessionRouter) -> None:
        self.settings = settings
        self.executor = executor
        self.verification = verification  # whose backlog tool runs count in
        self.sessions = sessions
        self._run_s = 0.05  # a running mean of a program's time, for Retry-After

    # ----------------------------------------------------------------------- /run_code

    def job(self, request: RunCodeRequest) -> tuple[dict[str, Any], float]:
        """The worker's job for a request (language resolved, limits clamped) and its
        deadline: its compilation's and run's wall limits, their slack, and the chunk grace."""
        settings = self.settings
        try:
            language = tool_language(request.language)
        except UnknownLanguage as exc:
            raise InvalidRequest("language", str(exc)) from None
        admitted = admitted_languages(settings)
        if admitted is not None and language.name not in admitted:
            raise InvalidRequest("language", f"{language.name}'s toolchain is not installed "
                                             f"here; installed: {', '.join(admitted) or 'none'}")
        compile_s = min(request.compile_timeout, settings.compile_time_s) \
            if language.compile is not None else 0.0
        run_s = min(request.run_timeout, settings.max_case_time_s)
        if compile_s + run_s > settings.max_item_time_s:
            raise InvalidRequest("run_timeout", f"compiling and running may take {compile_s:g} "
                                 f"+ {run_s:g} s, over the server's budget of "
                                 f"{settings.max_item_time_s:g} s per item "
                                 "(VERIFIER_MAX_ITEM_TIME_S)")
        if language.name != "python":  # its source is a file of the work directory
            clash = directory_clash(list(request.files), language.source_name(request.code))
            if clash:
                raise InvalidRequest("files", f"{clash} (the program's source)")
        memory = settings.run_code_memory_mb if request.memory_limit_MB == -1 \
            else request.memory_limit_MB
        job = {"language": language.name, "code": request.code, "stdin": request.stdin or "",
               "compile_timeout": compile_s, "run_timeout": run_s,
               "memory_mb": min(memory, settings.max_case_memory_mb), "files": request.files,
               "fetch_files": request.fetch_files}
        deadline = settings.chunk_timeout_s + compile_s + run_s + 2 * RUN_SLACK_S
        return job, deadline

    async def run_code(self, request: RunCodeRequest) -> RunCodeResponse:
        job, deadline = self.job(request)
        verification = self.verification
        if verification.backlog + 1 > self.settings.max_backlog:
            metrics.REJECTED.labels("run_code_busy").inc()
            raise Busy(f"the backlog of {verification.backlog} items is at the bound of "
                       f"{self.settings.max_backlog} (VERIFIER_MAX_BACKLOG)")
        verification.backlog += 1
        metrics.BACKLOG.set(verification.backlog)
        started = time.perf_counter()
        try:
            answer = RunCodeResponse.model_validate(await self.executor.run_code(
                job, deadline, self.settings.run_code_admission_s))
        except Busy:
            metrics.REJECTED.labels("run_code_busy").inc()
            raise
        finally:
            verification.backlog -= 1
            metrics.BACKLOG.set(verification.backlog)
        elapsed = time.perf_counter() - started
        self._run_s = 0.9 * self._run_s + 0.1 * elapsed
        metrics.RUN_CODE.labels(job["language"], answer.status.value).inc()
        metrics.RUN_CODE_SECONDS.observe(elapsed)
        return answer

    def retry_after_s(self) -> int:
        """Seconds until the backlog in front of a new program would drain."""
        workers = self.settings.workers if self.settings.mode == "embedded" else 1
        return max(1, min(60, math.ceil(self.verification.backlog * self._run_s / workers)))

    # ----------------------------------------------------------------------- sessions

    async def session(self, op: str, owner: str, session_id: str | None = None,
                      body: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """One session call on the session's host (see verifier.tools.sessions)."""
        settings = self.settings
        if op == "create":
            wait = STARTUP_TIMEOUT_S + settings.max_case_time_s + REPLY_GRACE_S
        else:  # its turn, its run, the jail's own grace
            wait = 2 * settings.max_case_time_s + BUSY_WAIT_S + REPLY_GRACE_S
        try:
            answer = await self.sessions.call(op, owner, session_id, body, wait)
        except SessionProblem as problem:
            metrics.SESSION_CALLS.labels(op, problem.kind).inc()
            raise
        status = answer.get("status", "ok") if op == "run" and answer else "ok"
        metrics.SESSION_CALLS.labels(op, status).inc()
        return answer

    async def run_jupyter(self, owner: str, request: RunJupyterRequest) -> RunJupyterResponse:
        """SandboxFusion's `/run_jupyter`: the cells in order in a fresh session, deleted
        after. A cell's exception is reported in it and the next cell runs; a cell past its
        time (or the total's), its memory or its output ends the notebook: `Failed`."""
        memory = self.settings.run_code_memory_mb if request.memory_limit_MB == -1 \
            else request.memory_limit_MB
        first_cell = min(request.cell_timeout or request.total_timeout,
                         self.settings.max_case_time_s)
        try:
            created = await self.session("create", owner, body={
                "language": "python", "ttl_s": request.total_timeout + JUPYTER_TTL_SLACK_S,
                "limits": {"time_s": first_cell,
                           "memory_mb": min(memory, self.settings.max_case_memory_mb)}})
        except SessionProblem as problem:
            if problem.kind == "full":
                raise Busy(str(problem)) from None
            raise
        session_id = created["session_id"]
        started = time.monotonic()
        cells: list[CellRunResult] = []
        files: dict[str, str] = {}
        driver = CommandRunResult(status=CommandRunStatus.Finished, return_code=0)
        try:
            for index, code in enumerate(request.cells):
                remaining = request.total_timeout - (time.monotonic() - started)
                if remaining <= 0:
                    driver.status, driver.return_code = CommandRunStatus.TimeLimitExceeded, None
                    break
                body = {"code": code, "timeout_s": min(request.cell_timeout or remaining,
                                                       remaining)}
                if index == 0:
                    body["files"] = request.files
                if index == len(request.cells) - 1:
                    body["fetch_files"] = request.fetch_files
                run = SessionRun.model_validate(await self.session("run", owner, session_id,
                                                                   body))
                cells.append(CellRunResult(
                    stdout=run.stdout, stderr=run.stderr,
                    display=[{"text/plain": run.result}] if run.result is not None else [],
                    error=[run.error.model_dump()] if run.error is not None else []))
                files = run.files
                if run.status is SessionStatus.infra_error:
                    driver.status, driver.return_code = CommandRunStatus.Error, None
                    driver.stderr = run.stderr
                    break
                if run.status in (SessionStatus.timeout, SessionStatus.memory_limit,
                                  SessionStatus.output_limit):
                    timed_out = run.status is SessionStatus.timeout
                    driver.status = (CommandRunStatus.TimeLimitExceeded if timed_out
                                     else CommandRunStatus.Finished)
                    driver.return_code = None if timed_out else -9
                    driver.stderr = f"cell {index} ended at its limit: {run.status.value}"
                    break
        finally:
            with contextlib.suppress(SessionProblem, ServiceUnavailable):
                await self.session("delete", owner, session_id)
        driver.execution_time = round(time.monotonic() - started, 6)
        if driver.status is CommandRunStatus.Error:
            status = RunStatus.SandboxError
        elif driver.status is CommandRunStatus.Finished and driver.return_code == 0:
            status = RunStatus.Success
        else:
            status = RunStatus.Failed
        message = (driver.stderr or "") if status is RunStatus.SandboxError else ""
        return RunJupyterResponse(status=status, message=message, driver=driver, cells=cells,
                                  files=files)
