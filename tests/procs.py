"""Real processes for tests: free ports, a private redis-server, `verifier` servers/workers."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from verifier.local import LocalServer, free_port, spawn_logged, stop_group

REPO = Path(__file__).resolve().parents[1]


def wait_until(predicate, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise TimeoutError(f"timed out after {timeout_s} s waiting for {what}")


def http_ok(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@dataclass
class Proc:
    """A child process in its own session, so stopping it also ends everything it started."""

    argv: list[str]
    log: Path
    env: dict[str, str] = field(default_factory=dict)
    popen: subprocess.Popen | None = None

    def start(self) -> Proc:
        self.popen = spawn_logged(self.argv, self.log, self.env)
        return self

    def stop(self, timeout_s: float = 15) -> None:
        if self.popen is not None:
            stop_group(self.popen, timeout_s)

    def output(self) -> str:
        return self.log.read_text(errors="replace")


class RedisServer:
    """A private redis-server on a free port: tests may stop and restart it at will."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._proc = Proc(["redis-server", "--port", str(self.port), "--save", "",
                           "--appendonly", "no", "--dir", str(workdir)],
                          workdir / f"redis-{self.port}.log")

    def start(self) -> RedisServer:
        self._proc.start()
        wait_until(self.answers, 10, f"redis on port {self.port}")
        return self

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        self._proc.stop()


def verifier_cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "verifier", *args]


def start_server(workdir: Path, *args: str,
                 env: dict[str, str] | None = None) -> tuple[LocalServer, str]:
    """`verifier serve` on a free loopback port; returns the server and its base URL."""
    server = LocalServer(*args, env=env, log_path=workdir / f"serve-{free_port()}.log").start()
    return server, server.url


def start_worker(workdir: Path, broker_url: str, concurrency: int = 2,
                 name: str = "worker", env: dict[str, str] | None = None) -> Proc:
    """`verifier worker` processes; ready once the log says so."""
    log = workdir / f"{name}-{free_port()}.log"
    proc = Proc(verifier_cli("worker", "--broker", broker_url, "--concurrency",
                             str(concurrency)), log, env=env or {}).start()
    wait_until(lambda: "ready." in proc.output() or proc.popen.poll() is not None, 60,
               "celery worker ready")
    if proc.popen.poll() is not None:
        raise RuntimeError(f"verifier worker exited early:\n{proc.output()}")
    return proc


def python_with(check: str, env_var: str, default: str, required_var: str, how: str) -> str:
    """A Python where `check` (code) runs: $env_var, the `default` venv, or this interpreter.

    Tools that pin their own dependencies (vLLM's CPU build, verl) live in venvs of their own.
    Without one the test is skipped, saying `how` to get it, or fails when $required_var is set
    (as in CI, where skipping would hide a broken install).
    """
    for python in filter(None, [os.environ.get(env_var), default, sys.executable]):
        if Path(python).exists() and subprocess.run(
                [python, "-c", check], capture_output=True, timeout=120).returncode == 0:
            return python
    if os.environ.get(required_var):
        pytest.fail(f"{required_var} is set but no Python passed: {check}")
    pytest.skip(f"no Python passed `{check}`: {how}")


def run_with_verl(script: str, check: str, url: str, needs: str) -> dict:
    """Run `python SCRIPT CHECK URL` with verl's Python (VERL_PYTHON, see python_with; `needs`
    is the import that proves it has what the check uses); the JSON line it prints last.
    verl pins its own dependencies, so its checks run in its tool venv, not here."""
    python = python_with(needs, "VERL_PYTHON", "/opt/verl-venv/bin/python",
                         "VERIFIER_REQUIRE_VERL", "run `bash scripts/verl-venv`")
    done = subprocess.run([python, script, check, url], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
