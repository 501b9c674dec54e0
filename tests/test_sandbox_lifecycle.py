"""The jail's life: framing, lazy start, restart after death, per-process jails in worker pools,
teardown without orphans, and infra errors (reward None) when no jail can run."""

from __future__ import annotations

import marshal
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import pytest

from rlvr_contract.schemas import CodeItem, Limits
from verifier.config import Settings
from verifier.kinds.code import process_settings, run_code_items
from verifier.kinds.code.languages import find_language
from verifier.kinds.code.limits import run_limits
from verifier.sandbox import RunRequest, worker_jail
from verifier.sandbox.factory import get_backend

needs_jail = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
ITEM = CodeItem(language="python", response="print(int(input()) + 1)",
                tests={"type": "stdio", "cases": [{"input": "41\n", "output": "42\n"}]})


def test_framing_round_trip_and_errors():
    read_fd, write_fd = os.pipe()
    worker_jail.write_message(write_fd, {"op": "run", "n": 1}, {"a": b"\x00\x01", "b": b""})
    header, blobs = worker_jail.read_message(read_fd, timeout_s=5)
    assert header == {"op": "run", "n": 1} and blobs == {"a": b"\x00\x01", "b": b""}
    with pytest.raises(worker_jail.ProtocolError, match="timed out"):
        worker_jail.read_message(read_fd, timeout_s=0.05)
    for header in (b"{bad}", marshal.dumps(["not", "a", "dict"]), marshal.dumps({"op": "run"})):
        os.write(write_fd, len(header).to_bytes(4, "big") + header)
        with pytest.raises(worker_jail.ProtocolError, match="malformed"):
            worker_jail.read_message(read_fd, timeout_s=5)
    os.close(write_fd)
    with pytest.raises(worker_jail.ProtocolError, match="closed"):
        worker_jail.read_message(read_fd, timeout_s=5)
    os.close(read_fd)


@needs_jail
def test_a_dead_jail_is_replaced():
    assert run_code_items([ITEM])[0].status.value == "correct"
    client = get_backend(process_settings())._client
    os.killpg(client.process.pid, signal.SIGKILL)
    client.process.wait()
    assert run_code_items([ITEM])[0].status.value == "correct"
    assert get_backend(process_settings())._client is not client


@needs_jail
def test_a_file_name_no_file_can_have_fails_that_run_alone():
    """A run whose file or fetched file names a lone surrogate (no file name can hold one) is
    answered, the first with the error saying so, the second without the file; the runner
    neither dies on it nor leaves the channel out of step, so the same jail serves on."""
    backend = get_backend(process_settings())
    assert run_code_items([ITEM])[0].status.value == "correct"
    client = backend._client
    python = backend.tools()["python"]
    limits = run_limits(find_language("python"), Limits(), 1 << 20)
    placed = backend.run(RunRequest(argv=[python, "-c", "pass"], limits=limits,
                                    files={"ok.txt": b"x", "bad\ud800.txt": b"y"}))
    assert placed.error and "could not place" in placed.error, placed
    fetched = backend.run(RunRequest(argv=[python, "-c", "open('ok.txt', 'w').write('z')"],
                                     limits=limits, collect=("\udfff", "ok.txt")))
    assert fetched.error is None and fetched.files == {"ok.txt": b"z"}, fetched
    assert run_code_items([ITEM])[0].status.value == "correct"
    assert backend._client is client


def _pid_items(expected: list[str]) -> list[CodeItem]:
    """Single-test items printing their PID in the runner's namespace (the runner is 1)."""
    return [CodeItem(language="python", response=f"import os\nprint(os.getpid())  # {n}",
                     tests={"type": "stdio", "cases": [{"output": pid}]})
            for n, pid in enumerate(expected)]


@needs_jail
def test_a_runner_serves_the_configured_number_of_runs():
    # Runs of one runner get the next PIDs of its namespace; a fresh runner starts again at 2.
    # The first item only brings whichever runner is current to the end of its allowance.
    results = run_code_items(_pid_items(["?", "2", "3", "2", "3", "2"]),
                             Settings(sandbox_runner_runs=2))
    assert [r.status.value for r in results[1:]] == ["correct"] * 5, results
    results = run_code_items(_pid_items(["?", "2", "2", "2"]),  # namespaces of its own, each run
                             Settings(sandbox_runner_runs=1))
    assert [r.status.value for r in results[1:]] == ["correct"] * 3, results
    assert Settings().sandbox_runner_runs > 4  # the default: one runner, many runs
    results = run_code_items(_pid_items(["2", "3", "4", "5"]))  # the last runner served one
    assert [r.status.value for r in results] == ["correct"] * 4, results


def _score_in_worker(_: int) -> tuple[str, int]:
    return run_code_items([ITEM])[0].status.value, os.getpid()


@needs_jail
def test_spawned_pool_workers_each_run_their_own_jail():
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        outcomes = list(pool.map(_score_in_worker, range(6)))
    assert {status for status, _ in outcomes} == {"correct"}


@needs_jail
def test_forked_child_does_not_reuse_the_parents_jail():
    assert run_code_items([ITEM])[0].status.value == "correct"
    parent_backend = get_backend(process_settings())
    with ProcessPoolExecutor(1, mp_context=get_context("fork")) as pool:
        assert pool.submit(_score_in_worker, 0).result()[0] == "correct"
    assert get_backend(process_settings()) is parent_backend
    assert run_code_items([ITEM])[0].status.value == "correct"


@needs_jail
def test_exit_leaves_no_processes_behind():
    script = textwrap.dedent("""
        import os
        from verifier.kinds.code import run_code_items
        from rlvr_contract.schemas import CodeItem
        item = CodeItem(language="python", response="import time\\ntime.sleep(30)",
                        limits={"time_s": 5}, tests={"type": "stdio", "cases": [{"output": ""}]})
        print(os.getpid(), flush=True)
        run_code_items([item])
    """)
    worker = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                              cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    pid = int(worker.stdout.readline())
    jail_uid = process_settings().sandbox_uid_base + pid
    time.sleep(1.5)  # the hostile program is running in the jail now
    assert _processes_of(jail_uid), "the jail should be running"
    worker.kill()  # the worker dies abruptly: no atexit, no cleanup code
    worker.wait()
    deadline = time.monotonic() + 10
    while _processes_of(jail_uid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_of(jail_uid) == []
    # The killed worker could not remove its memory cgroup; the next jail made here does.
    backend = get_backend(process_settings())
    backend.close()
    assert run_code_items([ITEM])[0].status.value == "correct"
    if backend._cgroup is not None:
        abandoned = os.path.join(os.path.dirname(backend._cgroup.path), f"verifier-jail-{pid}")
        assert not os.path.exists(abandoned)


def _processes_of(uid: int) -> list[int]:
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/status") as status:
                text = status.read()
        except OSError:
            continue
        if f"\nUid:\t{uid}\t" in text and "\nState:\tZ" not in text:
            pids.append(int(pid))
    return pids


def test_no_jail_means_infra_error_with_no_reward():
    # The jail's supervisor needs the jail's Python, whatever the language.
    bash = CodeItem(language="bash", response="echo 1",
                    tests={"type": "stdio", "cases": [{"output": "1\n"}]})
    result = run_code_items([bash], Settings(jail_python="/nonexistent/python3"))[0]
    assert result.status.value == "infra_error" and result.reward is None
    assert "VERIFIER_JAIL_PYTHON='/nonexistent/python3'" in result.detail["error"]


@needs_jail
def test_docker_backend_is_selected_by_configuration():
    # Without a Docker engine (or its runner images) this is a clean infra error, never a crash;
    # with them, the item is scored like on the default backend.
    result = run_code_items([ITEM], Settings(sandbox="docker"))[0]
    assert (result.status.value, result.reward) in (("correct", 1.0), ("infra_error", None))
    if result.status.value == "infra_error":
        assert result.detail["error"]
    assert run_code_items([ITEM], Settings(sandbox="bubblewrap"))[0].status.value == "correct"
