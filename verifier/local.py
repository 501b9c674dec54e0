"""A verifier server as a child process on a free loopback port.

For programs that need a verifier without running one themselves: `grpo demo`, benchmarks,
tests. The server runs in its own process group, so stopping it also ends its worker
processes. It holds the read end of a pipe whose write end only its starter holds (its
*lifeline*): when the starter is gone, even by SIGKILL or the OOM killer, the server reads EOF
and shuts down, so none outlives the program that started it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def spawn_logged(argv: list[str], log_path: Path, env: dict[str, str],
                 pass_fds: tuple[int, ...] = ()) -> subprocess.Popen:
    """Start a child in a session of its own (its process group can be stopped whole), its
    output appended to `log_path`, with `env` on top of this process's environment."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                env={**os.environ, **env}, start_new_session=True,
                                pass_fds=pass_fds)


def stop_group(popen: subprocess.Popen, timeout_s: float = 15.0) -> None:
    """SIGTERM a child's process group, wait, then SIGKILL whatever is left of the group."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(popen.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        popen.wait(timeout_s)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(popen.pid, signal.SIGKILL)
    popen.wait()


def watch_lifeline(fd: int, grace_s: float) -> None:
    """In the server: once `fd` reads EOF (its starter is gone), SIGTERM this process, which
    shuts down within its grace; SIGKILL its process group if it is still there `grace_s` on."""

    def watch() -> None:
        while os.read(fd, 4096):
            pass
        logging.getLogger("verifier").warning(
            "the program that started this server is gone: shutting down")
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(grace_s)
        own_group = os.getpgrp() == os.getpid()
        os.kill(-os.getpid() if own_group else os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="lifeline", daemon=True).start()


class LocalServer:
    """`verifier serve SERVE_ARGS...` on 127.0.0.1:<free port>; usable as a context manager."""

    def __init__(self, *serve_args: str, env: dict[str, str] | None = None,
                 log_path: Path | None = None, startup_timeout_s: float = 60.0) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path or Path(tempfile.gettempdir()) / f"verifier-{self.port}.log"
        self._argv = [sys.executable, "-m", "verifier", "serve", "--host", "127.0.0.1",
                      "--port", str(self.port), *serve_args]
        self._env = env or {}
        self._startup_timeout_s = startup_timeout_s
        self.popen: subprocess.Popen | None = None
        self._lifeline: int | None = None  # the write end; the server exits once it is closed

    def start(self) -> LocalServer:
        """Start the server and wait until /healthz answers; raise with its log if it cannot."""
        server_end, self._lifeline = os.pipe()
        try:
            self.popen = spawn_logged([*self._argv, "--lifeline-fd", str(server_end)],
                                      self.log_path, self._env, pass_fds=(server_end,))
        finally:
            os.close(server_end)
        deadline = time.monotonic() + self._startup_timeout_s
        while not self._healthy():
            if self.popen.poll() is not None:
                self.stop()  # what it started, and the lifeline
                raise RuntimeError(f"verifier serve exited with {self.popen.returncode}:\n"
                                   f"{self.output()[-3000:]}")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"verifier serve was not healthy at {self.url} after "
                                   f"{self._startup_timeout_s:g} s:\n{self.output()[-3000:]}")
            time.sleep(0.1)
        return self

    def _healthy(self) -> bool:
        try:
            return httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self, timeout_s: float = 15.0) -> None:
        if self.popen is not None:
            stop_group(self.popen, timeout_s)
        if self._lifeline is not None:
            os.close(self._lifeline)
            self._lifeline = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()
