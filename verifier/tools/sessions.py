"""The sessions of one host (the embedded server, or one `verifier worker`): each a Python
interpreter in a jail of its own (verifier/sandbox/session_jail.py), kept between runs.

A session belongs to the API key that made it: to any other it does not exist. It ends when it
has been idle for its `ttl_s`, when it is deleted, or when its host shuts down; its jail, every
process in it and its memory go then. A host keeps at most `VERIFIER_MAX_SESSIONS`; one more is
refused (`full`, with how long until one expires). Runs of one session take turns.

Everything goes through `SessionHost.handle(op, owner, session_id, body)`, JSON data in and out,
so the API reaches a host the same way in-process (embedded) and over Redis (distributed, see
session_routing.py).
"""

from __future__ import annotations

import base64
import logging
import math
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from rlvr_contract.schemas import Limits
from rlvr_contract.tool_schemas import (
    SessionCreate,
    SessionCreated,
    SessionError,
    SessionInfo,
    SessionRun,
    SessionRunRequest,
    SessionStatus,
)
from verifier.config import Settings
from verifier.kinds.code.languages import MIB, find_language
from verifier.kinds.code.limits import run_limits
from verifier.sandbox.bubblewrap import REPLY_GRACE_S
from verifier.sandbox.factory import backend_configuration
from verifier.sandbox.session_jail import SessionJail
from verifier.sandbox.worker_jail import ProtocolError
from verifier.tools.run_code import fetched_files

log = logging.getLogger(__name__)

REAP_EVERY_S = 1.0
BUSY_WAIT_S = 5.0  # beyond the running run's limit, for a run waiting for its turn
PROBLEM_STATUS = {"not_found": 404, "full": 429, "busy": 429, "lost": 410, "invalid": 422,
                  "unavailable": 503}


class SessionProblem(Exception):
    """Why a session call cannot be answered: `kind` is a key of PROBLEM_STATUS."""

    def __init__(self, kind: str, message: str, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.kind, self.retry_after_s = kind, retry_after_s

    def wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": str(self), "retry_after_s": self.retry_after_s}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> SessionProblem:
        return cls(str(data.get("kind")), str(data.get("message")), data.get("retry_after_s"))


def session_language(name: str) -> str:
    """The language a session runs (Python only, by any of its names); SessionProblem else."""
    language = find_language(name)
    if language is None or language.name != "python":
        raise SessionProblem("invalid", f"language: sessions run python; {name!r} is not it")
    return language.name


@dataclass(eq=False)
class _Session:
    session_id: str
    owner: str
    ttl_s: float
    limits: Limits
    slot: int
    jail: SessionJail
    expires_at: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    runs: int = 0
    closed: bool = False

    def info(self) -> SessionInfo:
        return SessionInfo(session_id=self.session_id, language="python",
                           expires_at=self.expires_at, runs=self.runs)


class SessionHost:
    """`ended(session_id, why)` is told of every session that ends: "deleted", "expired" or
    "shutdown" (the distributed mode keeps its routing records with it)."""

    def __init__(self, settings: Settings,
                 ended: Callable[[str, str], None] | None = None) -> None:
        self._settings = settings
        self._ended = ended
        self._sessions: dict[str, _Session] = {}
        self._free_slots = list(range(settings.max_sessions))
        self._lock = threading.Lock()
        self._closed = threading.Event()
        # Every jail is started from this one long-lived thread: bubblewrap's --die-with-parent
        # ends a jail when the thread that started it ends.
        self._spawner = ThreadPoolExecutor(1, thread_name_prefix="session-jails")
        self._output_bytes = int(settings.output_limit_mb * MIB)
        self._reaper = threading.Thread(target=self._reap_forever, name="session-reaper",
                                        daemon=True)
        self._reaper.start()

    # ----------------------------------------------------------------------- the one entry

    def handle(self, op: str, owner: str, session_id: str | None,
               body: dict[str, Any] | None) -> dict[str, Any] | None:
        """Answer one call: `create` (body: SessionCreate), `run` (SessionRunRequest), `info`,
        `delete`; JSON data. Raises SessionProblem."""
        if op == "create":
            return self.create(owner, SessionCreate.model_validate(body)).model_dump(mode="json")
        if op == "run":
            return self.run(owner, session_id or "",
                            SessionRunRequest.model_validate(body)).model_dump(mode="json")
        if op == "info":
            return self._owned(owner, session_id or "").info().model_dump(mode="json")
        if op == "delete":
            self.delete(owner, session_id or "")
            return None
        raise SessionProblem("invalid", f"unknown session operation {op!r}")

    # ----------------------------------------------------------------------- operations

    def count(self) -> int:
        return len(self._sessions)

    def free(self) -> int:
        return len(self._free_slots)

    def create(self, owner: str, request: SessionCreate) -> SessionCreated:
        session_language(request.language)
        settings = self._settings
        if settings.sandbox != "bubblewrap":
            raise SessionProblem("unavailable", "sessions need the bubblewrap jail "
                                                f"(VERIFIER_SANDBOX={settings.sandbox})")
        limits = Limits(time_s=min(request.limits.time_s, settings.max_case_time_s),
                        memory_mb=min(request.limits.memory_mb, settings.max_case_memory_mb))
        with self._lock:
            if self._closed.is_set():
                raise SessionProblem("unavailable", "this host is shutting down")
            if not self._free_slots:
                raise SessionProblem("full", f"{settings.max_sessions} sessions are open here, "
                                     "the most it keeps (VERIFIER_MAX_SESSIONS)",
                                     self._retry_after_s())
            slot = self._free_slots.pop()
        memory = run_limits(find_language("python"), limits, self._output_bytes).memory_bytes
        try:
            jail = self._spawner.submit(SessionJail, backend_configuration(settings), slot,
                                        memory).result()
        except Exception as exc:
            with self._lock:
                self._free_slots.append(slot)
            raise SessionProblem("unavailable", f"the session's jail did not start: {exc}") \
                from exc
        ttl = min(request.ttl_s, settings.max_session_ttl_s)
        session = _Session(secrets.token_hex(16), owner, ttl, limits, slot, jail,
                           time.time() + ttl)
        self._execute(session, SessionRunRequest(code=""))  # the interpreter starts now
        with self._lock:
            closing = self._closed.is_set()
            if not closing:
                self._sessions[session.session_id] = session
        if closing:  # close() began meanwhile: it does not know this one
            self._end(session, "shutdown")
            raise SessionProblem("unavailable", "this host is shutting down")
        log.info("session %s opened (%d open)", session.session_id[:8], len(self._sessions))
        return SessionCreated(session_id=session.session_id, language="python",
                              expires_at=session.expires_at)

    def run(self, owner: str, session_id: str, request: SessionRunRequest) -> SessionRun:
        session = self._owned(owner, session_id)
        timeout = min(request.timeout_s or session.limits.time_s,
                      self._settings.max_case_time_s)
        if not session.lock.acquire(timeout=self._settings.max_case_time_s + BUSY_WAIT_S):
            raise SessionProblem("busy", "another run of this session is still going",
                                 math.ceil(timeout))
        try:
            if session.closed:
                raise SessionProblem("not_found", f"session {session_id!r} ended during the "
                                                  "wait for its turn")
            started = time.perf_counter()
            answer = self._execute(session, request, timeout)
            answer.elapsed_ms = round((time.perf_counter() - started) * 1e3, 3)
            session.runs += 1
            session.expires_at = time.time() + session.ttl_s
            return answer
        finally:
            session.lock.release()

    def delete(self, owner: str, session_id: str) -> None:
        session = self._owned(owner, session_id)
        with self._lock:
            if self._sessions.pop(session_id, None) is None:
                raise SessionProblem("not_found", f"unknown session {session_id!r}")
        self._end(session, "deleted")

    def close(self) -> None:
        """At shutdown: end every session (their jails and processes), start no other."""
        self._closed.set()
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            self._end(session, "shutdown")
        self._spawner.shutdown(wait=True)

    # ----------------------------------------------------------------------- internals

    def _owned(self, owner: str, session_id: str) -> _Session:
        """The session, if it exists, has not expired and is the caller's; else not_found,
        the same answer whichever it is (another key's session is not there for the caller)."""
        session = self._sessions.get(session_id)
        if session is None or session.owner != owner or session.expires_at < time.time():
            raise SessionProblem("not_found", f"unknown session {session_id!r}")
        return session

    def _execute(self, session: _Session, request: SessionRunRequest,
                 timeout_s: float | None = None) -> SessionRun:
        """One run in the session's jail; a jail that failed is replaced (the state is lost)."""
        timeout_s = timeout_s or session.limits.time_s
        limits = run_limits(find_language("python"), session.limits, self._output_bytes)
        header = {"op": "run", "tmpfs_bytes": limits.tmpfs_bytes,
                  "output_bytes": self._output_bytes, "wall_s": timeout_s,
                  "collect": request.fetch_files,
                  "limits": {"cpu_s": None, "stack_bytes": limits.stack_bytes,
                             "nproc": limits.nproc, "fsize_bytes": limits.fsize_bytes,
                             "nofile": limits.nofile, "as_bytes": limits.as_bytes,
                             "data_bytes": limits.data_bytes}}
        blobs = {"code": request.code.encode(errors="surrogatepass"),
                 "stdin": (request.stdin or "").encode(errors="surrogatepass"),
                 **{f"file:{path}": base64.b64decode("".join(content.split()))
                    for path, content in request.files.items()}}
        try:
            reply, parts, oom = session.jail.run(header, blobs, timeout_s + REPLY_GRACE_S)
        except (ProtocolError, OSError) as exc:
            if session.closed:
                raise SessionProblem("not_found", "the session was deleted during this run") \
                    from None
            return self._replace_jail(session, f"the session's jail failed: {exc}")
        if reply.get("error"):
            return SessionRun(status=SessionStatus.infra_error, stdout="", restarted=True,
                              stderr=f"the session's host failed: {reply['error']}\n")
        status = SessionStatus(reply["status"])
        if oom and reply.get("restarted"):
            status = SessionStatus.memory_limit
        error = reply.get("exception")
        files, left_out = fetched_files({name[len("file:"):]: data for name, data in parts.items()
                                         if name.startswith("file:")}, reply.get("files"),
                                        self._output_bytes)
        return SessionRun(
            status=status, restarted=bool(reply.get("restarted")),
            stdout=parts.get("stdout", b"").decode(errors="replace"),
            stderr=parts.get("stderr", b"").decode(errors="replace") + reply.get("note", "")
            + (f"{left_out}\n" if left_out else ""),
            result=parts["result"].decode(errors="replace") if "result" in parts else None,
            error=SessionError.model_validate(error) if isinstance(error, dict) else None,
            files=files)

    def _replace_jail(self, session: _Session, why: str) -> SessionRun:
        """After the jail itself failed: a new one for the session (it goes on empty)."""
        log.error("session %s: %s", session.session_id[:8], why)
        session.jail.close()
        memory = run_limits(find_language("python"), session.limits,
                            self._output_bytes).memory_bytes
        try:
            session.jail = self._spawner.submit(SessionJail,
                                                backend_configuration(self._settings),
                                                session.slot, memory).result()
        except Exception as exc:
            why = f"{why}; no new jail could be started: {exc}"
        return SessionRun(status=SessionStatus.infra_error, stdout="", stderr=why + "\n",
                          restarted=True)

    def _end(self, session: _Session, why: str) -> None:
        """Close the session's jail (a run going on in it is killed first: it answers that
        the session is gone) and free its slot."""
        session.closed = True
        if not session.lock.acquire(blocking=False):
            session.jail.kill()
            session.lock.acquire()
        try:
            session.jail.close()
        finally:
            session.lock.release()
        with self._lock:
            self._free_slots.append(session.slot)
        log.info("session %s %s after %d runs", session.session_id[:8], why, session.runs)
        if self._ended is not None:
            self._ended(session.session_id, why)

    def _retry_after_s(self) -> int:
        """Seconds until the first session expires, if none is deleted before."""
        soonest = min((s.expires_at for s in self._sessions.values()), default=time.time())
        return max(1, math.ceil(soonest - time.time()))

    def _reap_forever(self) -> None:
        while not self._closed.wait(REAP_EVERY_S):
            now = time.time()
            expired = []
            with self._lock:
                for session in list(self._sessions.values()):
                    if session.expires_at < now and session.lock.acquire(blocking=False):
                        del self._sessions[session.session_id]
                        session.closed = True  # a run that waited for it finds it gone
                        session.lock.release()
                        expired.append(session)
            for session in expired:
                self._end(session, "expired")
