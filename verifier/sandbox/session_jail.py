"""One session's jail, from the worker's side: a bubblewrap jail of its own whose first process
is the session's keeper (jail/session.py) instead of the supervisor.

The same jail as the rewards' (`bubblewrap.build_launch`: the namespaces, the read-only view of
the toolchains, the cleared environment, rlimits, an unprivileged uid), with, per session:

- a uid of its own (as root), so that RLIMIT_NPROC counts this session's processes only: a
  fork bomb in one session never stops another's forks;
- a memory cgroup of its own (where the host allows), its limit the session's memory above
  what the jail holds at its start, for its whole life: the interpreter's state is what runs
  keep, so the limit is on the session, and an OOM kill in it is a `memory_limit`;
- its own lifetime: closing it ends every process of the session and frees its memory.
"""

from __future__ import annotations

import contextlib
import os
import signal
from typing import Any

from verifier.sandbox.backend import SandboxUnavailable
from verifier.sandbox.bubblewrap import (
    JailSettings,
    SupervisorClient,
    build_launch,
    discover_tools,
    outer_uid,
)
from verifier.sandbox.cgroup import JailCgroup

CGROUP_PREFIX = "verifier-session-"
PID_SPAN = 1 << 22  # above Linux's largest pid: each slot's uids are apart from every pid's
MAX_UID = (1 << 32) - 2


def session_uid(uid_base: int, slot: int) -> int | None:
    """As root, the uid of this process's session in `slot`: apart from every worker's jail
    uid (uid_base + pid) and every other process's and slot's. None when not root."""
    base = outer_uid(uid_base)
    if base is None:
        return None
    uid = base + PID_SPAN * (1 + slot)
    if uid > MAX_UID:
        raise SandboxUnavailable(f"no uid for session slot {slot} below 2^32 (lower "
                                 "VERIFIER_SANDBOX_UID_BASE or VERIFIER_MAX_SESSIONS)")
    return uid


class SessionJail:
    """A session's running jail: the bwrap process, the channel to its host, its cgroup."""

    def __init__(self, settings: JailSettings, slot: int, memory_bytes: int) -> None:
        tools = discover_tools(settings.python)
        if "python" not in tools:
            raise SandboxUnavailable(f"no Python for the jail: VERIFIER_JAIL_PYTHON="
                                     f"{settings.python!r} is not an executable")
        self.cgroup = JailCgroup.create(CGROUP_PREFIX, str(slot)) if settings.cgroup else None
        launcher, _ = build_launch(tools, self.cgroup, session_uid(settings.uid_base, slot),
                                   program="session.py")
        try:
            self.client = SupervisorClient(launcher)
        except BaseException:
            self._remove_cgroup()
            raise
        if self.cgroup is not None:  # the session's budget above what the jail holds now
            self.cgroup.begin_run(memory_bytes)

    def run(self, header: dict[str, Any], blobs: dict[str, bytes], timeout_s: float
            ) -> tuple[dict[str, Any], dict[str, bytes], bool]:
        """One run: the host's reply, its blobs, and whether the OOM killer fired meanwhile.
        ProtocolError or OSError if the jail is gone or silent past `timeout_s`."""
        before = self.cgroup.oom_kill_count() if self.cgroup else 0
        reply, parts = self.client.request(header, blobs, timeout_s)
        return reply, parts, bool(self.cgroup) and self.cgroup.oom_kill_count() > before

    def kill(self) -> None:
        """End every process of the session now (a run in flight then reads EOF)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.client.process.pid, signal.SIGKILL)

    def close(self) -> None:
        """End the session: EOF ends its host, whose namespace dies with it; then the jail's
        process group is killed if it lingers, and the cgroup goes."""
        self.client.close()
        self._remove_cgroup()

    def _remove_cgroup(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None

