"""Sessions through a real embedded server: state kept between runs as a notebook keeps it,
limits that restart a session empty, ownership by key, the cap, the idle timeout, teardown,
bad input, and the red team: a hostile session gets the rewards' jail and reaches nothing of
the worker's or another session's."""

from __future__ import annotations

import base64
import contextlib
import glob
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.procs import start_server, wait_until
from verifier.config import Settings
from verifier.local import LocalServer
from verifier.sandbox.session_jail import CGROUP_PREFIX, PID_SPAN

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

KEY_A, KEY_B = "session-key-a", "session-key-b"
SECRET = "session-secret-7d3f19"
MAX_SESSIONS = 4


@dataclass
class Server:
    url: str
    process: LocalServer

    def call(self, method: str, path: str, key: str | None = KEY_A, **kwargs: Any
             ) -> httpx.Response:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.request(method, f"{self.url}{path}", headers=headers, timeout=120, **kwargs)

    def create(self, key: str = KEY_A, **body: Any) -> str:
        reply = self.call("POST", "/v1/sessions", key, json=body)
        assert reply.status_code == 201, reply.text
        return reply.json()["session_id"]

    def run(self, session_id: str, code: str, key: str = KEY_A, **body: Any) -> dict[str, Any]:
        reply = self.call("POST", f"/v1/sessions/{session_id}/run", key,
                          json={"code": code, **body})
        assert reply.status_code == 200, reply.text
        return reply.json()

    @contextlib.contextmanager
    def session(self, key: str = KEY_A, **body: Any) -> Iterator[str]:
        session_id = self.create(key, **body)
        try:
            yield session_id
        finally:
            self.call("DELETE", f"/v1/sessions/{session_id}", key)


def start(workdir: Path, **env: str) -> Server:
    process, url = start_server(workdir, "--workers", "1", env={
        "VERIFIER_API_KEYS": f"{KEY_A},{KEY_B}", "VERIFIER_MAX_SESSIONS": str(MAX_SESSIONS),
        "VERIFIER_TEST_SECRET": SECRET, **env})
    return Server(url, process)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start(tmp_path_factory.mktemp("sessions"))
    yield running
    running.process.stop()


def session_processes(server_pid: int) -> list[int]:
    """Host pids of every process of the server's session jails (each runs as a uid of its
    own: the worker's jail uid plus a multiple of PID_SPAN, see session_jail.session_uid)."""
    base = Settings().sandbox_uid_base + server_pid
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/status") as status:
                uid = int(next(line for line in status if line.startswith("Uid:")).split()[1])
        except (OSError, StopIteration, ValueError):
            continue
        if uid > base and (uid - base) % PID_SPAN == 0:
            found.append(int(pid))
    return found


def session_cgroups(server_pid: int) -> list[str]:
    return glob.glob(f"/sys/fs/cgroup/memory/{CGROUP_PREFIX}{server_pid}-*")


# --------------------------------------------------------------------------- state kept


def test_state_persists_as_in_a_notebook(server: Server) -> None:
    with server.session() as sid:
        assert server.run(sid, "import math\nx = 41\ndef inc(v):\n    return v + 1")[
            "result"] is None
        shown = server.run(sid, "inc(x)")
        assert shown == {**shown, "status": "ok", "result": "42", "stdout": "", "stderr": "",
                         "restarted": False}
        assert server.run(sid, "_ * 2")["result"] == "84"  # the last value, as `_`
        assert server.run(sid, "math.floor(math.pi)")["result"] == "3"
        assert server.run(sid, "x;")["result"] is None  # a trailing semicolon hides it
        assert server.run(sid, "None")["result"] is None
        printed = server.run(sid, "print('a'); import sys; print('b', file=sys.stderr); 'c'")
        assert (printed["stdout"], printed["stderr"], printed["result"]) == ("a\n", "b\n", "'c'")
        assert server.run(sid, "class P:\n    def __repr__(self): return 'P!'\nP()")[
            "result"] == "P!"
        assert server.run(sid, "input() * 2", stdin="ab\n")["result"] == "'abab'"
        info = server.call("GET", f"/v1/sessions/{sid}").json()
        assert info["session_id"] == sid and info["language"] == "python" and info["runs"] == 9
        assert info["expires_at"] > time.time()


def test_an_exception_is_an_error_that_keeps_the_state(server: Server) -> None:
    with server.session() as sid:
        server.run(sid, "kept = [1, 2]")
        failed = server.run(sid, "kept.append(3)\n{}['missing']")
        assert failed["status"] == "error" and not failed["restarted"]
        assert failed["error"]["ename"] == "KeyError" and failed["error"]["evalue"] == "'missing'"
        assert "Traceback" in failed["stderr"] and "KeyError: 'missing'" in failed["stderr"]
        assert "<cell-" in failed["stderr"] and "notebook" not in failed["stderr"]
        syntax = server.run(sid, "def broken(:")
        assert syntax["status"] == "error" and syntax["error"]["ename"] == "SyntaxError"
        exited = server.run(sid, "import sys; sys.exit(3)")
        assert exited["status"] == "error" and exited["error"]["ename"] == "SystemExit"
        huge = server.run(sid, "big = bytearray(64 * 1024 ** 3)")
        assert huge["status"] == "error" and huge["error"]["ename"] == "MemoryError"
        assert not huge["restarted"]
        assert server.run(sid, "kept")["result"] == "[1, 2, 3]"


def test_files_persist_and_come_back(server: Server) -> None:
    with server.session() as sid:
        sent = server.run(sid, "open('data/a.txt').read()", files={
            "data/a.txt": base64.b64encode(b"hello").decode(),
            "mod.py": base64.b64encode(b"VALUE = 7\n").decode()})
        assert sent["result"] == "'hello'"
        server.run(sid, "open('made.txt', 'w').write('made here')")
        later = server.run(sid, "import mod; mod.VALUE, sorted(__import__('os').listdir('.'))",
                           fetch_files=["made.txt", "data/a.txt", "absent"])
        assert later["result"] == "(7, ['data', 'made.txt', 'mod.py'])"
        assert {name: base64.b64decode(data) for name, data in later["files"].items()} == {
            "made.txt": b"made here", "data/a.txt": b"hello"}
        replaced = server.run(sid, "open('data/a.txt').read()",
                              files={"data/a.txt": base64.b64encode(b"new").decode()})
        assert replaced["result"] == "'new'"
        server.run(sid, "import os; os.symlink('/etc', 'link')")
        through_link = server.run(sid, "1", files={"link/x": "eA=="}, fetch_files=["link/hostname"])
        assert through_link["status"] == "error" and through_link["files"] == {}


def test_fetched_files_are_bounded_together(server: Server) -> None:
    """As /run_code's: a path asked twice comes back once, links to one big file are not each a
    copy; what does not fit in the output limit (8 MiB) together is left out, never cut, and
    stderr says so; the state is kept."""
    with server.session() as sid:
        made = server.run(sid, "import os\nopen('big', 'wb').write(b'x' * (5 << 20))\n"
                               "for i in range(8): os.link('big', f'link{i}')",
                          fetch_files=["big", "big", *(f"link{i}" for i in range(8))])
        assert made["status"] == "ok" and not made["restarted"], made["stderr"]
        assert set(made["files"]) == {"big"} and "link7" in made["stderr"], made["stderr"]
        assert base64.b64decode(made["files"]["big"]) == b"x" * (5 << 20)
        assert server.run(sid, "len(open('link3', 'rb').read())")["result"] == str(5 << 20)


def test_what_a_cell_shows_is_bounded_in_bytes_never_a_restart(server: Server) -> None:
    """A final expression's repr is cut at the output limit in UTF-8 bytes however much its
    JSON escapes grow it (6 MiB of non-ASCII text is shown, the session kept), a `__repr__`'s
    lone surrogate is replaced, and an exception's huge message is cut in its description."""
    with server.session() as sid:
        server.run(sid, "kept = 1")
        shown = server.run(sid, "'\u00e9' * (3 << 20)")
        assert shown["status"] == "ok" and not shown["restarted"], shown["stderr"][-300:]
        assert shown["result"] == repr("\u00e9" * (3 << 20))
        cut = server.run(sid, "'\u00e9' * (5 << 20)")
        assert cut["status"] == "ok" and not cut["restarted"]
        assert len(cut["result"].encode()) <= 8 << 20 and cut["result"].startswith("'\u00e9\u00e9")
        odd = server.run(sid, "class Odd:\n    def __repr__(self): return '\\ud800!'\nOdd()")
        assert odd["status"] == "ok" and odd["result"] == "?!", odd
        raised = server.run(sid, "raise ValueError('\u00e9' * (2 << 20))")
        assert raised["status"] == "error" and not raised["restarted"], raised["status"]
        assert raised["error"]["ename"] == "ValueError" and len(raised["error"]["evalue"]) <= 4096
        assert server.run(sid, "kept")["result"] == "1"


def test_a_lone_surrogate_in_a_run_is_a_422(server: Server) -> None:
    with server.session() as sid:
        for body, field in (('{"code": "\\ud800"}', "code"), ('{"code": "1", "stdin": "\\ud800"}',
                                                            "stdin"),
                            ('{"code": "1", "files": {"\\ud800": "eA=="}}', "files")):
            reply = httpx.post(f"{server.url}/v1/sessions/{sid}/run", content=body.encode(),
                               headers={"Authorization": f"Bearer {KEY_A}",
                                        "content-type": "application/json"}, timeout=60)
            assert reply.status_code == 422, reply.text
            assert reply.json()["detail"][0]["loc"][:2] == ["body", field]
        assert server.run(sid, "'unharmed'")["result"] == "'unharmed'"


# --------------------------------------------------------------------------- limits restart


def test_a_run_past_its_time_restarts_the_session_empty(server: Server) -> None:
    with server.session(limits={"time_s": 1}) as sid:
        server.run(sid, "state = 'set'; open('f.txt', 'w').write('x')")
        timed = server.run(sid, "print('before'); import sys; sys.stdout.flush()\nwhile True: pass")
        assert timed["status"] == "timeout" and timed["restarted"] is True
        assert timed["stdout"] == "before\n"
        after = server.run(sid, "import os; os.listdir('.'), 'state' in globals()")
        assert after["result"] == "([], False)" and after["restarted"] is False
        short = server.run(sid, "import time; time.sleep(3)", timeout_s=0.5)  # a run's own limit
        assert short["status"] == "timeout" and short["restarted"]
        assert server.run(sid, "1 + 1")["result"] == "2"


def test_a_run_past_its_memory_restarts_the_session(server: Server) -> None:
    with server.session(limits={"memory_mb": 64}) as sid:
        server.run(sid, "state = 1")
        filled = server.run(sid, "chunks = []\nwhile True: chunks.append(bytearray(1 << 20))")
        assert filled["status"] in ("memory_limit", "error"), filled
        assert filled["restarted"] is True
        if Path("/sys/fs/cgroup/memory").is_dir() and os.geteuid() == 0:
            assert filled["status"] == "memory_limit"  # the session's cgroup said why
        assert server.run(sid, "'state' in globals()")["result"] == "False"


def test_an_output_flood_restarts_the_session(server: Server) -> None:
    with server.session() as sid:
        flooded = server.run(sid, "while True: print('x' * 10000)")
        assert flooded["status"] == "output_limit" and flooded["restarted"]
        assert 0 < len(flooded["stdout"]) <= 8 * 1024 * 1024
        assert server.run(sid, "print('calm')")["stdout"] == "calm\n"


@pytest.mark.parametrize("code", [
    "import os; os._exit(3)",
    "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
    "import os; os.close(1); os.close(2)",
    "import os; os.closerange(0, 1024)",
    "import threading, os, time\nthreading.Thread(target=lambda: (time.sleep(0.2), "
    "os._exit(0))).start()",
], ids=["exit", "kill-self", "close-stdio", "close-all", "exit-later"])
def test_an_interpreter_that_ends_or_breaks_itself_is_replaced(server: Server,
                                                               code: str) -> None:
    with server.session() as sid:
        server.run(sid, "state = 1")
        broke = server.run(sid, code)
        assert broke["status"] != "infra_error", broke
        if not broke["restarted"]:  # it ended after answering: the next run says so
            time.sleep(0.5)
            broke = server.run(sid, "1")
        assert broke["restarted"] is True, broke
        after = server.run(sid, "print('ok'); 'state' in globals()")
        assert after["stdout"] == "ok\n" and after["result"] == "False", after


# --------------------------------------------------------------------------- red team


def test_no_network_not_even_the_hosts_unix_sockets(server: Server) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    name = f"\0verifier-session-test-{os.getpid()}"
    listener.bind(name)
    listener.listen()
    try:
        with server.session() as sid:
            port = int(server.url.rsplit(":", 1)[1])
            tried = server.run(sid, (
                "import socket\nout = []\n"
                f"for target in [('127.0.0.1', {port}), ('1.1.1.1', 53)]:\n"
                "    try:\n        socket.create_connection(target, timeout=1)\n"
                "        out.append('open')\n"
                "    except OSError as e: out.append(type(e).__name__)\n"
                "s = socket.socket(socket.AF_UNIX)\n"
                f"try: s.connect({name!r}); out.append('open')\n"
                "except OSError as e: out.append(type(e).__name__)\nout"))
            assert "open" not in tried["result"], tried
    finally:
        listener.close()


def test_no_secret_of_the_worker(server: Server) -> None:
    with server.session() as sid:
        seen = server.run(sid, (
            "import os\nfound = [k for k, v in os.environ.items() if "
            f"{SECRET!r} in v or k.startswith('VERIFIER')]\n"
            "for root in ('/proc', '/tmp', '/dev/shm', '/run', '/root', '/home'):\n"
            "    for d, _, files in os.walk(root):\n"
            "        for f in files:\n"
            "            try: found += [d + '/' + f] if "
            f"{SECRET!r}.encode() in open(d + '/' + f, 'rb').read(1 << 20) else []\n"
            "            except OSError: pass\n"
            "found, sorted(os.environ)"))
        assert seen["status"] == "ok", seen
        assert seen["result"].startswith("([], ") and SECRET not in seen["stdout"], seen
        assert KEY_A not in seen["result"] and KEY_B not in seen["result"]


def test_no_proc_of_the_worker(server: Server) -> None:
    with server.session() as sid:
        proc = server.run(sid, (
            "import os\nout = [os.listdir('/proc')]\n"
            "for path in ('/proc/self/status', '/proc/1/environ', "
            f"'/proc/{server.process.popen.pid}/cmdline'):\n"
            "    try: open(path).read(); out.append('read ' + path)\n"
            "    except OSError as e: out.append(type(e).__name__)\nout"))
        assert proc["result"].startswith("[[], ") and "read " not in proc["result"], proc


def test_no_escape_from_the_jail(server: Server) -> None:
    with server.session() as sid:
        tried = server.run(sid, (
            "import os, ctypes\nout = []\n"
            "for path in ('/usr/escape', '/etc/escape', '/escape', '/opt/verifier/x'):\n"
            "    try: open(path, 'w').write('x'); out.append('wrote ' + path)\n"
            "    except OSError as e: out.append(type(e).__name__)\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "out.append(libc.mount(b'none', b'/mnt', b'tmpfs', 0, None))\n"
            "out.append(libc.unshare(0x10000000))\n"  # CLONE_NEWUSER
            "out.append(os.getuid())\n"
            "try: os.setuid(0); out.append('root')\nexcept OSError as e: out.append('no root')\n"
            "out"))
        assert "wrote" not in tried["result"] and "'root'" not in tried["result"], tried
        assert "-1, -1" in tried["result"], tried  # mount and a user namespace: refused


def test_nothing_of_one_session_reaches_another(server: Server) -> None:
    with server.session() as first, server.session(KEY_B) as second:
        server.run(first, "secret = 'only-in-first'; open('mine.txt', 'w').write('first')\n"
                          "import subprocess; child = subprocess.Popen(['sleep', '60'])")
        looked = server.run(second, (
            "import os, signal\n"
            "out = [os.listdir('.'), 'secret' in globals(), os.listdir('/proc')]\n"
            "try: os.kill(-1, signal.SIGKILL)\nexcept OSError as e: out.append(type(e).__name__)\n"
            "out"), key=KEY_B)
        assert looked["result"] in ("[[], False, []]", "[[], False, [], 'ProcessLookupError']"), \
            looked
        intact = server.run(first, "secret, open('mine.txt').read(), child.poll()")
        assert intact["result"] == "('only-in-first', 'first', None)", intact


def test_a_fork_bomb_restarts_its_session_and_nothing_else(server: Server) -> None:
    with server.session() as calm, server.session(limits={"time_s": 3}) as bomb:
        server.run(calm, "kept = 'here'")
        exploded = server.run(bomb, "import os\nwhile True:\n    try: os.fork()\n"
                                    "    except OSError: pass")
        assert exploded["status"] == "timeout" and exploded["restarted"], exploded
        assert server.run(calm, "kept")["result"] == "'here'"
        assert server.run(bomb, "import os; os.fork() > 0")["result"] == "True"
        assert server.call("GET", "/healthz", None).status_code == 200


# --------------------------------------------------------------------------- ownership, cap


def test_a_session_is_its_keys_alone(server: Server) -> None:
    with server.session() as sid:
        for method, path, body in (("GET", f"/v1/sessions/{sid}", None),
                                   ("POST", f"/v1/sessions/{sid}/run", {"code": "1"}),
                                   ("DELETE", f"/v1/sessions/{sid}", None)):
            assert server.call(method, path, KEY_B, json=body).status_code == 404
            assert server.call(method, path, None, json=body).status_code == 401
        assert server.run(sid, "1")["result"] == "1"  # the other key's delete did nothing
    assert server.call("GET", f"/v1/sessions/{sid}").status_code == 404  # deleted on exit
    assert server.call("GET", "/v1/sessions/0123456789abcdef").status_code == 404
    assert server.call("POST", "/v1/sessions/nope/run", json={"code": "1"}).status_code == 404


def test_too_many_sessions_is_a_429_with_retry_after(server: Server) -> None:
    with contextlib.ExitStack() as stack:
        for _ in range(MAX_SESSIONS):
            stack.enter_context(server.session(ttl_s=30))
        refused = server.call("POST", "/v1/sessions", json={})
        assert refused.status_code == 429, refused.text
        assert 1 <= int(refused.headers["Retry-After"]) <= 30
        assert "VERIFIER_MAX_SESSIONS" in refused.json()["detail"]
    with server.session() as sid:  # one freed: room again
        assert server.run(sid, "2")["result"] == "2"


def test_delete_and_the_idle_timeout_end_the_session_and_free_it(server: Server) -> None:
    pid = server.process.popen.pid
    before = set(session_processes(pid))
    sid = server.create(ttl_s=1)
    mine = set(session_processes(pid)) - before
    assert mine, "the session's jail runs as a uid of its own"
    assert server.run(sid, "import subprocess; p = subprocess.Popen(['sleep', '600'])")[
        "status"] == "ok"
    time.sleep(1.5)  # idle past its ttl_s
    assert server.call("GET", f"/v1/sessions/{sid}").status_code == 404
    wait_until(lambda: not set(session_processes(pid)) & mine, 10, "the expired session's end")

    sid = server.create()
    mine = set(session_processes(pid)) - before
    cgroups = set(session_cgroups(pid))
    assert server.call("DELETE", f"/v1/sessions/{sid}").status_code == 204
    wait_until(lambda: not set(session_processes(pid)) & mine, 10, "the deleted session's end")
    assert len(set(session_cgroups(pid))) < len(cgroups) or not cgroups
    assert server.call("DELETE", f"/v1/sessions/{sid}").status_code == 404


def test_deleting_a_session_ends_the_run_it_is_doing(server: Server) -> None:
    sid = server.create(limits={"time_s": 60})
    answer: list[httpx.Response] = []
    running = threading.Thread(target=lambda: answer.append(server.call(
        "POST", f"/v1/sessions/{sid}/run", json={"code": "import time; time.sleep(50)"})))
    running.start()
    time.sleep(1)
    assert server.call("DELETE", f"/v1/sessions/{sid}").status_code == 204
    running.join(30)
    assert not running.is_alive() and answer[0].status_code == 404, answer


def test_shutdown_ends_every_session(tmp_path: Path) -> None:
    running = start(tmp_path)
    pid = running.process.popen.pid
    try:
        for _ in range(2):
            sid = running.create()
            running.run(sid, "import subprocess; subprocess.Popen(['sleep', '600'])")
        assert len(session_processes(pid)) >= 2 * 3  # keeper, host, interpreter, sleep
    finally:
        running.process.stop()
    wait_until(lambda: not session_processes(pid), 10, "every session's end at shutdown")
    assert not session_cgroups(pid)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("body", "field"), [
    ({"language": "ruby"}, "language"),
    ({"language": ""}, "language"),
    ({"ttl_s": 0}, "ttl_s"),
    ({"ttl_s": "long"}, "ttl_s"),
    ({"limits": {"time_s": 0}}, "limits"),
    ({"limits": {"time_s": 61}}, "limits"),
    ({"limits": {"memory_mb": 8}}, "limits"),
    ({"limits": {"cpu": 1}}, "limits"),
    ({"kernel": "python3"}, "kernel"),
])
def test_a_bad_session_field_is_a_422_naming_it(server: Server, body: dict, field: str) -> None:
    reply = server.call("POST", "/v1/sessions", json=body)
    assert reply.status_code == 422, reply.text
    assert reply.json()["detail"][0]["loc"][:2] == ["body", field], reply.json()


@pytest.mark.parametrize(("body", "field", "status"), [
    ({}, "code", 422),
    ({"code": 1}, "code", 422),
    ({"code": "1", "timeout_s": 0}, "timeout_s", 422),
    ({"code": "1", "files": {"../x": "eA=="}}, "files", 422),
    ({"code": "1", "files": {"x": "%%%"}}, "files", 422),
    ({"code": "1", "fetch_files": ["/etc/passwd"]}, "fetch_files", 422),
    ({"code": "1", "stdout": "x"}, "stdout", 422),
    ({"code": "x" * 4_000_001}, "code", 413),
    ({"code": "1", "stdin": "x" * (32 * 1024 * 1024 + 1)}, "stdin", 413),
])
def test_a_bad_run_field_is_refused_naming_it(server: Server, body: dict, field: str,
                                              status: int) -> None:
    with server.session() as sid:
        reply = server.call("POST", f"/v1/sessions/{sid}/run", json=body)
        assert reply.status_code == status, reply.text[:300]
        assert reply.json()["detail"][0]["loc"][:2] == ["body", field], reply.json()
        assert server.run(sid, "'unharmed'")["result"] == "'unharmed'"


# --------------------------------------------------------------------------- /run_jupyter


def test_run_jupyter_runs_cells_in_one_fresh_session(server: Server) -> None:
    reply = server.call("POST", "/run_jupyter", json={
        "cells": ["a = 123", "a", "print(a)", "import sys; sys.stderr.write('stderr message')",
                  "raise RuntimeError('error message')", "a + 1"],
        "files": {"in.txt": base64.b64encode(b"x").decode()}, "fetch_files": ["in.txt"]})
    assert reply.status_code == 200, reply.text
    answer = reply.json()
    assert answer["status"] == "Success" and answer["driver"]["status"] == "Finished"
    cells = answer["cells"]
    assert [c["display"] for c in cells] == [[], [{"text/plain": "123"}], [],
                                             [{"text/plain": "14"}], [],  # write()'s count
                                             [{"text/plain": "124"}]]
    assert cells[2]["stdout"] == "123\n" and cells[3]["stderr"] == "stderr message"
    assert cells[4]["error"][0]["ename"] == "RuntimeError"
    assert cells[4]["error"][0]["evalue"] == "error message"
    assert base64.b64decode(answer["files"]["in.txt"]) == b"x"
    timed = server.call("POST", "/run_jupyter", json={
        "cells": ["import time", "time.sleep(10)", "1"], "total_timeout": 1}).json()
    assert timed["status"] == "Failed" and timed["driver"]["status"] == "TimeLimitExceeded"
    assert len(timed["cells"]) == 2
    assert server.call("POST", "/run_jupyter", json={"cells": ["1"], "kernel": "ruby"}
                       ).status_code == 422
