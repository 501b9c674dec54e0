"""How the API reaches the host that keeps a session.

Embedded, the host is in the server's own process (`LocalSessions`). Distributed, every
`verifier worker` starts a session host process (`serve_sessions`) and a session lives on the
one that created it; calls are routed to it over Redis:

- each host beats `verifier:session-host:<id>` (its free slots, expiring after
  VERIFIER_WORKER_LOST_AFTER_S) and is listed in `verifier:session-hosts`;
- `verifier:session:<session id>` records the session's owner and host, written by the host
  when it creates the session and deleted when the session ends (at shutdown the host says so
  there instead: its sessions then answer 410 naming the cause);
- a call is pushed on the host's own list, `verifier:session-calls:<host id>`, and answered on
  the calling API process's list, `verifier:session-replies:<api id>`.

A session whose host stopped beating answers 410, naming the host and how long it has been
silent; so does a call waiting on a host that goes silent meanwhile. A new session goes to the
live host with the most free slots; when all are full, 429 with the soonest expiry.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import logging
import math
import os
import signal
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.synchronize import Event
from typing import Any, Protocol

import redis
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from verifier.config import Settings
from verifier.executors import ServiceUnavailable, liveness
from verifier.service import logs
from verifier.service.deadline import die_with_parent
from verifier.tools.sessions import SessionHost, SessionProblem

log = logging.getLogger(__name__)

HOSTS_KEY = "verifier:session-hosts"
HOST_KEY = "verifier:session-host:{}"
CALLS_KEY = "verifier:session-calls:{}"
REPLIES_KEY = "verifier:session-replies:{}"
RECORD_KEY = "verifier:session:{}"
RECORD_SLACK_S = 300  # a record outlives its session's longest idle time by this much
REPLY_TTL_S = 60
LIVENESS_EVERY_S = 1.0
SESSION_HOST_NAME = "session-host"  # the worker's session host process, as ps shows it
PR_SET_NAME = 15


class SessionRouter(Protocol):
    async def call(self, op: str, owner: str, session_id: str | None,
                   body: dict[str, Any] | None, wait_s: float) -> dict[str, Any] | None:
        """`SessionHost.handle` on the session's host; raises SessionProblem, or
        ServiceUnavailable when Redis cannot be reached."""
        ...

    async def close(self) -> None: ...


class LocalSessions:
    """Embedded: the host is this process's; calls run in threads of their own (a run holds
    one for as long as it lasts)."""

    def __init__(self, settings: Settings) -> None:
        self.host = SessionHost(settings)
        self._threads = ThreadPoolExecutor(settings.max_sessions + 8,
                                           thread_name_prefix="session-call")

    async def call(self, op: str, owner: str, session_id: str | None,
                   body: dict[str, Any] | None, wait_s: float) -> dict[str, Any] | None:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._threads, self.host.handle, op, owner,
                                          session_id, body)

    async def close(self) -> None:
        await asyncio.to_thread(self.host.close)
        self._threads.shutdown(wait=False, cancel_futures=True)


def _record_ttl(settings: Settings) -> int:
    return math.ceil(settings.max_session_ttl_s) + RECORD_SLACK_S


class RedisSessions:
    """Distributed, the API's side: records, host choice, calls and their replies."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._redis = aioredis.Redis.from_url(settings.broker_url or "",
                                              socket_connect_timeout=2, socket_timeout=5)
        self._replies = REPLIES_KEY.format(liveness.new_worker_id())
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._reader: asyncio.Task[None] | None = None

    async def call(self, op: str, owner: str, session_id: str | None,
                   body: dict[str, Any] | None, wait_s: float) -> dict[str, Any] | None:
        try:
            if op == "create":
                return await self._create(owner, body, wait_s)
            raw = await self._redis.get(RECORD_KEY.format(session_id))
            record = json.loads(raw) if raw else None
            if not isinstance(record, dict) or record.get("owner") != owner:
                raise SessionProblem("not_found", f"unknown session {session_id!r}")
            if record.get("lost"):
                raise SessionProblem("lost", f"session {session_id!r} is gone: {record['lost']}")
            return await self._send(record["host"], op, owner, session_id, body, wait_s)
        except RedisError as exc:
            raise ServiceUnavailable(f"cannot reach Redis: {exc}") from exc

    async def _create(self, owner: str, body: dict[str, Any] | None,
                      wait_s: float) -> dict[str, Any] | None:
        hosts = sorted(await self._redis.smembers(HOSTS_KEY))
        beats = await self._redis.mget([HOST_KEY.format(h.decode()) for h in hosts]) \
            if hosts else []
        alive = sorted(((json.loads(beat).get("free", 0), host.decode())
                        for host, beat in zip(hosts, beats, strict=True) if beat), reverse=True)
        dead = [host for host, beat in zip(hosts, beats, strict=True) if not beat]
        if dead:  # their sessions' records still say where they were (410)
            await self._redis.srem(HOSTS_KEY, *dead)
        if not alive:
            raise SessionProblem("unavailable", "no worker serves sessions: start "
                                                "`verifier worker` (it starts their host)")
        retry_after: list[int] = []
        for _, host in alive:
            try:
                return await self._send(host, "create", owner, None, body, wait_s)
            except SessionProblem as problem:
                if problem.kind != "full":
                    raise
                retry_after.append(problem.retry_after_s or 1)
        raise SessionProblem("full", f"every worker keeps its most sessions "
                                     f"(VERIFIER_MAX_SESSIONS={self._settings.max_sessions})",
                             min(retry_after))

    async def _send(self, host: str, op: str, owner: str, session_id: str | None,
                    body: dict[str, Any] | None, wait_s: float) -> dict[str, Any] | None:
        """Push the call on the host's list and wait for its answer, `wait_s` at most,
        checking every second that the host still beats."""
        if not await self._redis.exists(HOST_KEY.format(host)):
            raise self._lost(host, session_id)
        call_id = uuid.uuid4().hex
        future = asyncio.get_running_loop().create_future()
        self._waiting[call_id] = future
        self._ensure_reader()
        calls = CALLS_KEY.format(host)
        try:
            await self._redis.rpush(calls, json.dumps({
                "call": call_id, "reply": self._replies, "op": op, "owner": owner,
                "session_id": session_id, "body": body, "until": time.time() + wait_s,
                "request_id": logs.request_id.get()}))
            await self._redis.expire(calls, REPLY_TTL_S + math.ceil(wait_s))
            end = time.monotonic() + wait_s
            while True:
                try:
                    answer = await asyncio.wait_for(asyncio.shield(future), LIVENESS_EVERY_S)
                    break
                except TimeoutError:
                    if not await self._redis.exists(HOST_KEY.format(host)):
                        raise self._lost(host, session_id) from None
                    if time.monotonic() > end:
                        raise SessionProblem("unavailable", f"the worker {host} did not answer "
                                             f"within {wait_s:g} s") from None
        finally:
            self._waiting.pop(call_id, None)
        if "problem" in answer:
            raise SessionProblem.from_wire(answer["problem"])
        return answer.get("ok")

    def _lost(self, host: str, session_id: str | None) -> SessionProblem:
        return SessionProblem(
            "lost", f"session {session_id!r} is gone: the worker {host} that held it was lost "
                    f"(no heartbeat for {self._settings.worker_lost_after_s:g} s), and its "
                    "state with it")

    def _ensure_reader(self) -> None:
        if self._reader is None or self._reader.done():
            self._reader = asyncio.create_task(self._read_replies())

    async def _read_replies(self) -> None:
        """Resolve waiting calls from this process's reply list, while any wait."""
        while self._waiting:
            try:
                popped = await self._redis.blpop([self._replies], timeout=1)
            except (RedisError, OSError):
                await asyncio.sleep(0.2)
                continue
            if popped:
                answer = json.loads(popped[1])
                future = self._waiting.get(answer.get("call"))
                if future is not None and not future.done():
                    future.set_result(answer)

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        await self._redis.aclose()


# ------------------------------------------------------------------------------ the host side


class RedisSessionServer:
    """A worker's session host, serving the calls pushed on its list (one thread each)."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self.host_id = liveness.new_worker_id()
        self._redis = redis.Redis.from_url(settings.broker_url or "", socket_connect_timeout=2,
                                           socket_timeout=5)
        self._stopping = threading.Event()
        self.host = SessionHost(settings, ended=self._ended)
        self._threads = ThreadPoolExecutor(settings.max_sessions + 8,
                                           thread_name_prefix="session-call")

    def serve(self, ready: Event | None = None) -> None:
        """Until `stop`: beat, take calls, answer them; then end every session."""
        beat = threading.Thread(target=self._beat_forever, name="session-beat", daemon=True)
        self._beat()
        beat.start()
        if ready is not None:
            ready.set()
        log.info("session host %s ready (%d sessions at most)", self.host_id,
                 self._settings.max_sessions)
        calls = CALLS_KEY.format(self.host_id)
        try:
            while not self._stopping.is_set():
                try:
                    popped = self._redis.blpop([calls], timeout=1)
                except (redis.RedisError, OSError) as exc:
                    log.warning("session calls not read: %s", exc)
                    self._stopping.wait(0.5)
                    continue
                if popped:
                    self._threads.submit(self._answer, json.loads(popped[1]))
        finally:
            self.host.close()
            self._threads.shutdown(wait=False, cancel_futures=True)
            with contextlib.suppress(redis.RedisError, OSError):
                self._redis.srem(HOSTS_KEY, self.host_id)
                self._redis.delete(HOST_KEY.format(self.host_id), calls)

    def stop(self) -> None:
        self._stopping.set()

    def _answer(self, call: dict[str, Any]) -> None:
        logs.request_id.set(str(call.get("request_id", "-")))
        if call.get("until", 0) < time.time():
            return  # its caller gave up waiting
        try:
            answer = {"ok": self.host.handle(call["op"], call["owner"], call.get("session_id"),
                                             call.get("body"))}
            if call["op"] == "create":
                self._redis.set(RECORD_KEY.format(answer["ok"]["session_id"]), json.dumps(
                    {"owner": call["owner"], "host": self.host_id}),
                    ex=_record_ttl(self._settings))
            elif call["op"] == "run":  # the record lives as long as the session may
                self._redis.expire(RECORD_KEY.format(call["session_id"]),
                                   _record_ttl(self._settings))
        except SessionProblem as problem:
            answer = {"problem": problem.wire()}
        except Exception as exc:  # a bug here must answer, never leave the caller waiting
            log.exception("session call failed")
            answer = {"problem": SessionProblem("unavailable", f"the session host failed: "
                                                               f"{exc!r}").wire()}
        with contextlib.suppress(redis.RedisError, OSError):
            self._redis.rpush(call["reply"], json.dumps({"call": call["call"], **answer}))
            self._redis.expire(call["reply"], REPLY_TTL_S)

    def _ended(self, session_id: str, why: str) -> None:
        key = RECORD_KEY.format(session_id)
        with contextlib.suppress(redis.RedisError, OSError):
            if why == "shutdown":
                self._redis.set(key, json.dumps({"owner": self._owner_of(key), "host":
                                                 self.host_id, "lost": f"the worker "
                                                 f"{self.host_id} that held it shut down"}),
                                ex=_record_ttl(self._settings), xx=True)
            else:
                self._redis.delete(key)

    def _owner_of(self, key: str) -> str | None:
        raw = self._redis.get(key)
        return json.loads(raw).get("owner") if raw else None

    def _beat(self) -> None:
        with contextlib.suppress(redis.RedisError, OSError):
            self._redis.set(HOST_KEY.format(self.host_id),
                            json.dumps({"free": self.host.free(), "open": self.host.count()}),
                            px=int(self._settings.worker_lost_after_s * 1000))
            self._redis.sadd(HOSTS_KEY, self.host_id)

    def _beat_forever(self) -> None:
        while not self._stopping.wait(self._settings.worker_heartbeat_s):
            self._beat()


def serve_sessions(settings: Settings, parent_pid: int, ready: Event) -> None:
    """The session host process `verifier worker` starts: dies with it, sets `ready` once it
    serves; SIGTERM (the worker's shutdown) ends its sessions before it exits."""
    die_with_parent(parent_pid)
    ctypes.CDLL(None).prctl(PR_SET_NAME, SESSION_HOST_NAME.encode(), 0, 0, 0)  # for ps and top
    logs.setup_logging(settings.log_level, settings.log_format)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the worker's Ctrl-C: its own shutdown
    server = RedisSessionServer(settings)
    signal.signal(signal.SIGTERM, lambda *_: server.stop())
    server.serve(ready)
    os._exit(0)
