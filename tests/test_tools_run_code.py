"""POST /run_code, SandboxFusion's contract, through a real server and the real jail: its status
rules, every SandboxFusion language name served here, files, limits, admission (504), and bad
input (422 naming the field, 413 for size)."""

from __future__ import annotations

import base64
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from rlvr_contract.tool_schemas import MAX_CODE_CHARS, MAX_FILES, MAX_FILES_BYTES
from tests.procs import start_server
from tests.test_code_languages import PROGRAMS
from verifier.tools.languages import NOT_SERVED, SANDBOX_FUSION

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

KEY = "tool-key-1"


def run_code(url: str, key: str | None = None, **body: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.post(f"{url}/run_code", json=body, headers=headers, timeout=180)


def ran(url: str, **body: Any) -> dict[str, Any]:
    reply = run_code(url, **body)
    assert reply.status_code == 200, reply.text
    return reply.json()


@pytest.fixture(scope="module")
def tight_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One worker, a 1 s admission budget, case time clamped at 3 s, API keys."""
    server, url = start_server(tmp_path_factory.mktemp("tight"), "--workers", "1", env={
        "VERIFIER_RUN_CODE_ADMISSION_S": "1", "VERIFIER_MAX_CASE_TIME_S": "3",
        "VERIFIER_API_KEYS": KEY})
    yield url
    server.stop()


# --------------------------------------------------------------------------- status rules


def test_exit_status_signal_and_success(verifier_url: str) -> None:
    ok = ran(verifier_url, code="print(1 + 2)", language="python")
    assert ok["status"] == "Success" and ok["message"] == "" and ok["compile_result"] is None
    assert ok["run_result"]["status"] == "Finished" and ok["run_result"]["return_code"] == 0
    assert ok["run_result"]["stdout"] == "3\n" and ok["run_result"]["stderr"] == ""
    assert ok["run_result"]["execution_time"] > 0 and ok["files"] == {}
    assert set(ok) >= {"status", "message", "compile_result", "run_result",
                       "executor_pod_name", "files"}

    exited = ran(verifier_url, code="import sys; print('x'); sys.exit(3)")
    assert exited["status"] == "Failed"
    assert exited["run_result"]["status"] == "Finished" and exited["run_result"]["return_code"] == 3
    raised = ran(verifier_url, code="raise ValueError('boom')")
    assert raised["status"] == "Failed" and raised["run_result"]["return_code"] == 1
    assert "ValueError: boom" in raised["run_result"]["stderr"]
    killed = ran(verifier_url, code="import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    assert killed["status"] == "Failed" and killed["run_result"]["status"] == "Finished"
    assert killed["run_result"]["return_code"] == -9
    bash = ran(verifier_url, code="echo out; echo err >&2; exit 4", language="bash")
    assert bash["run_result"]["stdout"] == "out\n" and bash["run_result"]["stderr"] == "err\n"
    assert bash["run_result"]["return_code"] == 4 and bash["status"] == "Failed"


def test_a_time_limit_is_time_limit_exceeded(verifier_url: str) -> None:
    for code in ("import time; time.sleep(30)", "while True: pass"):
        timed = ran(verifier_url, code=code, run_timeout=1)
        assert timed["status"] == "Failed", timed
        assert timed["run_result"]["status"] == "TimeLimitExceeded"
        assert timed["run_result"]["return_code"] is None
    native = ran(verifier_url, code="int main() { for (;;) {} }", language="cpp", run_timeout=1)
    assert native["compile_result"]["status"] == "Finished"
    assert native["run_result"]["status"] == "TimeLimitExceeded" and native["status"] == "Failed"


def test_a_compile_error_has_no_run(verifier_url: str) -> None:
    broken = ran(verifier_url, code="int main() { return undeclared; }", language="cpp")
    assert broken["status"] == "Failed" and broken["run_result"] is None
    assert broken["compile_result"]["status"] == "Finished"
    assert broken["compile_result"]["return_code"] != 0
    assert "undeclared" in broken["compile_result"]["stderr"]
    # A compilation past its time limit: the compiler evaluating 4e10 steps.
    slow = ("constexpr long f() { long s = 0; for (long i = 0; i < 200000; i++) "
            "for (long j = 0; j < 200000; j++) s += i ^ j; return s; }\n"
            "int main() { constexpr long x = f(); return x & 1; }\n")
    timed = ran(verifier_url, code=slow, language="cpp", compile_timeout=0.5)
    assert timed["status"] == "Failed" and timed["run_result"] is None
    assert timed["compile_result"]["status"] == "TimeLimitExceeded"


def test_stdin_files_and_fetch_files(verifier_url: str) -> None:
    blob = bytes(range(256)) * 3
    code = ("import sys, helper\n"
            "data = open('data/in.bin', 'rb').read()\n"
            "print(helper.GREETING, len(data), sys.stdin.read().upper())\n"
            "import os; os.makedirs('out/deep', exist_ok=True)\n"
            "open('out/deep/copy.bin', 'wb').write(data[::-1])\n")
    answer = ran(verifier_url, code=code, stdin="abc", files={
        "helper.py": base64.b64encode(b"GREETING = 'hi'\n").decode(),
        "data/in.bin": base64.b64encode(blob).decode(), "ignored.txt": None},
        fetch_files=["out/deep/copy.bin", "data/in.bin", "not/there.txt"])
    assert answer["status"] == "Success", answer
    assert answer["run_result"]["stdout"] == f"hi {len(blob)} ABC\n"
    assert set(answer["files"]) == {"out/deep/copy.bin", "data/in.bin"}
    assert base64.b64decode(answer["files"]["out/deep/copy.bin"]) == blob[::-1]
    assert base64.b64decode(answer["files"]["data/in.bin"]) == blob
    # A compiled program sees its files too (and only its own: the next run starts empty).
    cpp = ('#include <fstream>\n#include <iostream>\nint main() { std::ifstream f("n.txt"); '
           'int n; f >> n; std::ofstream("o.txt") << n * 2; std::cout << n; }\n')
    built = ran(verifier_url, code=cpp, language="cpp", fetch_files=["o.txt"],
                files={"n.txt": base64.b64encode(b"21").decode()})
    assert built["run_result"]["stdout"] == "21" and base64.b64decode(built["files"]["o.txt"]) \
        == b"42"
    empty = ran(verifier_url, code="import os; print(sorted(os.listdir('.')))")
    assert empty["run_result"]["stdout"] == "[]\n"


def test_a_file_named_as_the_compiled_program_gives_way_to_it(verifier_url: str) -> None:
    """The compiler writes its program over a file of the request of that name (`main`,
    `classes/`), as in SandboxFusion's working directory; the run then starts from what the
    compilation left, instead of failing to put the program in place (a SandboxError)."""
    cpp = ran(verifier_url, language="cpp", code="int main() { return 0; }",
              files={"main": base64.b64encode(b"not a program").decode()})
    assert cpp["status"] == "Success", cpp
    java = ran(verifier_url, language="java", compile_timeout=30,
               code="public class Main { public static void main(String[] a) { "
                    "System.out.println(6 * 7); } }",
               files={"classes/Stale.class": base64.b64encode(b"junk").decode()})
    assert java["status"] == "Success" and java["run_result"]["stdout"] == "42\n", java


def test_fetched_files_come_back_whole_within_the_output_limit_together(
        verifier_url: str) -> None:
    """Every fetched file together is bounded by the output limit (8 MiB here): a path asked
    twice comes back once, and links to one big file are not each a copy of it. What does not
    fit is not returned (never cut), and the message names it; the program's answer fails,
    as with too much output."""
    code = ("import os\nopen('big', 'wb').write(b'x' * (5 << 20))\n"
            "open('small', 'wb').write(b'y')\n"
            "for i in range(8): os.link('big', f'link{i}')\n")
    links = [f"link{i}" for i in range(8)]
    answer = ran(verifier_url, code=code, fetch_files=["big", "big", "small", *links])
    assert set(answer["files"]) == {"big", "small"}, answer["message"]
    assert base64.b64decode(answer["files"]["big"]) == b"x" * (5 << 20)
    assert answer["status"] == "Failed" and answer["run_result"]["return_code"] == 0
    assert "fetch_files" in answer["message"] and all(link in answer["message"]
                                                      for link in links)
    whole = ran(verifier_url, code=code, fetch_files=["big", "big", "small"])
    assert whole["status"] == "Success" and set(whole["files"]) == {"big", "small"}, whole


def test_a_link_is_not_followed_out_of_the_work_directory(verifier_url: str) -> None:
    """fetch_files never reads through a link the program made (to a file it could not name
    otherwise, or outside its directory)."""
    code = "import os; os.symlink('/etc', 'etc'); os.symlink('/etc/hostname', 'host')"
    answer = ran(verifier_url, code=code, fetch_files=["etc/hostname", "host", "etc"])
    assert answer["status"] == "Success" and answer["files"] == {}


def test_output_and_memory_limits_are_the_programs_failures(verifier_url: str) -> None:
    flood = ran(verifier_url, code="import sys\nwhile True: sys.stdout.write('x' * 65536)")
    assert flood["status"] == "Failed" and "output" in flood["message"]
    assert flood["run_result"]["status"] == "Finished"
    huge = ran(verifier_url, code="x = bytearray(8 * 1024 ** 3)", memory_limit_MB=64)
    assert huge["status"] == "Failed" and "MemoryError" in huge["run_result"]["stderr"]
    touched = ran(verifier_url, language="cpp", memory_limit_MB=64, code=(
        "#include <cstdlib>\n#include <cstring>\nint main() { for (int i = 0; i < 64; i++) "
        "{ char *p = (char *) malloc(32 << 20); if (!p) return 3; memset(p, 1, 32 << 20); } }"))
    assert touched["status"] == "Failed", touched
    assert touched["run_result"]["return_code"] != 0


@pytest.mark.parametrize("code", [
    "import os, signal; os.kill(0, signal.SIGKILL)",
    "import os, signal; os.kill(-1, signal.SIGKILL)",
    "import os; os.close(1); os.close(2)",
    "import os\nwhile True:\n    try: os.fork()\n    except OSError: pass",
    "import os; os.setsid(); os._exit(0)",
    "open('/proc/self/oom_score_adj', 'w').write('-1000')",
    "import ctypes; ctypes.string_at(0)",
], ids=["kill-group", "kill-all", "close-stdio", "fork-bomb", "exit-early", "oom-adj",
        "segfault"])
def test_what_a_program_does_is_never_a_sandbox_error(verifier_url: str, code: str) -> None:
    answer = ran(verifier_url, code=code, run_timeout=2)
    assert answer["status"] in ("Success", "Failed"), answer
    assert answer["run_result"]["status"] in ("Finished", "TimeLimitExceeded")
    assert ran(verifier_url, code="print('still fine')")["run_result"]["stdout"] == "still fine\n"


def test_sandbox_fusion_behaviours(verifier_url: str) -> None:
    """Java runs with assertions on, PHP gets its opening tag: as SandboxFusion runs them."""
    java = ran(verifier_url, language="java", compile_timeout=30, code=(
        "public class Main { public static void main(String[] a) { assert 1 > 2 : \"no\"; } }"))
    assert java["status"] == "Failed" and "AssertionError" in java["run_result"]["stderr"]
    php = ran(verifier_url, language="php", code="echo 6 * 7;")
    assert php["run_result"]["stdout"] == "42" and php["status"] == "Success"


@pytest.mark.parametrize("name", sorted(SANDBOX_FUSION))
def test_every_sandbox_fusion_language_served(verifier_url: str, name: str) -> None:
    """Each SandboxFusion name runs its language: a right program and a broken one."""
    language = SANDBOX_FUSION[name]
    right, _, broken = PROGRAMS[language]
    good = ran(verifier_url, code=right, language=name, stdin="1 2\n", compile_timeout=30)
    assert good["status"] == "Success", good
    assert good["run_result"]["stdout"].strip() == "3"
    bad = ran(verifier_url, code=broken, language=name, stdin="1 2\n", compile_timeout=30)
    assert bad["status"] == "Failed", bad
    failed = bad["run_result"] or bad["compile_result"]
    assert failed["status"] == "Finished" and failed["return_code"] != 0


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("name", sorted(NOT_SERVED) + ["klingon", "PYTHON3X"])
def test_a_language_not_served_is_a_422_naming_it(verifier_url: str, name: str) -> None:
    reply = run_code(verifier_url, code="x", language=name)
    assert reply.status_code == 422, reply.text
    assert reply.json()["detail"][0]["loc"] == ["body", "language"]
    assert name in reply.json()["error"]


@pytest.mark.parametrize(("body", "field"), [
    ({}, "code"),
    ({"code": 3}, "code"),
    ({"code": "x", "language": ""}, "language"),
    ({"code": "x", "run_timeout": 0}, "run_timeout"),
    ({"code": "x", "run_timeout": -1}, "run_timeout"),
    ({"code": "x", "compile_timeout": "soon"}, "compile_timeout"),
    ({"code": "x", "memory_limit_MB": 0}, "memory_limit_MB"),
    ({"code": "x", "memory_limit_MB": 8}, "memory_limit_MB"),
    ({"code": "x", "stdin": 5}, "stdin"),
    ({"code": "x", "files": {"../up.txt": "eA=="}}, "files"),
    ({"code": "x", "files": {"/etc/passwd": "eA=="}}, "files"),
    ({"code": "x", "files": {"a//b": "eA=="}}, "files"),
    ({"code": "x", "files": {"a/./b": "eA=="}}, "files"),
    ({"code": "x", "files": {"": "eA=="}}, "files"),
    ({"code": "x", "files": {"a\u0000b": "eA=="}}, "files"),
    ({"code": "x", "files": {"ok.txt": "not base64!"}}, "files"),
    ({"code": "x", "files": ["a"]}, "files"),
    ({"code": "x", "fetch_files": ["../secret"]}, "fetch_files"),
    ({"code": "x", "fetch_files": "out.txt"}, "fetch_files"),
    ({"code": "x", "files": {"a": "eA==", "a/b": "eA=="}}, "files"),
    ({"code": "x", "files": {"d/e/f": "eA==", "d/e": "eA=="}}, "files"),
    ({"code": "int main() {}", "language": "cpp", "files": {"main.cpp/x": "eA=="}}, "files"),
])
def test_a_bad_field_is_a_422_naming_it(verifier_url: str, body: dict, field: str) -> None:
    reply = httpx.post(f"{verifier_url}/run_code", json=body, timeout=30)
    assert reply.status_code == 422, reply.text
    assert reply.json()["detail"][0]["loc"][:2] == ["body", field], reply.json()


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/run_code", '{"code": "print(\\"\\ud800\\")"}', "code"),
    ("/run_code", '{"code": "int main() {} // \\udfff", "language": "cpp"}', "code"),
    ("/run_code", '{"code": "print(input())", "stdin": "\\ud800"}', "stdin"),
    ("/run_code", '{"code": "x", "files": {"a\\ud800": "eA=="}}', "files"),
    ("/run_code", '{"code": "x", "fetch_files": ["\\ud800"]}', "fetch_files"),
    ("/run_jupyter", '{"cells": ["1", "\\ud800"]}', "cells"),
])
def test_a_lone_surrogate_is_a_422_naming_its_field(verifier_url: str, path: str, body: str,
                                                    field: str) -> None:
    """JSON's `\\ud800` decodes to a lone surrogate, which no program can be given as text:
    refused at the door, not a SandboxError (nor a jail that breaks on the file's name)."""
    reply = httpx.post(f"{verifier_url}{path}", content=body.encode(),
                       headers={"content-type": "application/json"}, timeout=60)
    assert reply.status_code == 422, reply.text
    assert reply.json()["detail"][0]["loc"][:2] == ["body", field], reply.json()


def test_non_finite_numbers_are_a_422(verifier_url: str) -> None:
    reply = httpx.post(f"{verifier_url}/run_code", content=b'{"code": "x", "run_timeout": NaN}',
                       headers={"content-type": "application/json"}, timeout=30)
    assert reply.status_code == 422 and "run_timeout" in reply.text


@pytest.mark.parametrize(("body", "field"), [
    ({"code": "x" * (MAX_CODE_CHARS + 1)}, "code"),
    ({"code": "x", "files": {f"f{i}": "eA==" for i in range(MAX_FILES + 1)}}, "files"),
    ({"code": "x", "files": {"a": base64.b64encode(bytes(MAX_FILES_BYTES // 2 + 1)).decode(),
                             "b": base64.b64encode(bytes(MAX_FILES_BYTES // 2)).decode()}},
     "files"),
    ({"code": "x", "fetch_files": [f"f{i}" for i in range(MAX_FILES + 1)]}, "fetch_files"),
])
def test_oversized_code_or_files_is_a_413(verifier_url: str, body: dict, field: str) -> None:
    reply = httpx.post(f"{verifier_url}/run_code", json=body, timeout=60)
    assert reply.status_code == 413, reply.text[:300]
    assert reply.json()["detail"][0]["loc"] == ["body", field]


def test_fields_sandbox_fusion_does_not_know_are_ignored(verifier_url: str) -> None:
    """As SandboxFusion's own server does, so newer clients keep working."""
    answer = ran(verifier_url, code="print(5)", extra_args={"x": 1}, isolation="lite")
    assert answer["run_result"]["stdout"] == "5\n"


# --------------------------------------------------------------------------- admission, keys


def test_busy_is_504_with_retry_after(tight_url: str) -> None:
    """With its one worker taken for longer than the admission budget, a run is refused with
    504 and Retry-After (what verl retries), and runs once the worker is free."""
    assert run_code(tight_url, KEY, code="print(1)").status_code == 200  # the worker is up
    long = threading.Thread(target=run_code, args=(tight_url, KEY),
                            kwargs={"code": "import time; time.sleep(2.8)", "run_timeout": 3})
    long.start()
    time.sleep(0.3)  # it holds the worker now
    try:
        refused = None
        for _ in range(20):
            reply = run_code(tight_url, KEY, code="print(1)")
            if reply.status_code == 504:
                refused = reply
                break
        assert refused is not None, "no call was refused while the only worker was busy"
        assert int(refused.headers["Retry-After"]) >= 1
        assert "busy" in refused.json()["detail"]
    finally:
        long.join()
    assert run_code(tight_url, KEY, code="print(1)").status_code == 200


def test_timeouts_are_clamped_to_the_servers_maxima(tight_url: str) -> None:
    """run_timeout 100 on a server whose cases may take 3 s: a 5 s sleep is cut at 3."""
    answer = run_code(tight_url, KEY, code="import time; time.sleep(5)", run_timeout=100).json()
    assert answer["run_result"]["status"] == "TimeLimitExceeded"


def test_api_keys_and_ping(tight_url: str, tmp_path: Path) -> None:
    assert run_code(tight_url, code="print(1)").status_code == 401
    assert run_code(tight_url, "wrong", code="print(1)").status_code == 401
    assert run_code(tight_url, KEY, code="print(1)").status_code == 200
    assert httpx.post(f"{tight_url}/run_jupyter", json={"cells": ["1"]}).status_code == 401
    ping = httpx.get(f"{tight_url}/v1/ping")  # a liveness probe, as /healthz
    assert ping.status_code == 200 and ping.json() == "pong"
    metrics = httpx.get(f"{tight_url}/metrics", headers={"Authorization": f"Bearer {KEY}"}).text
    assert 'verifier_run_code_total{language="python",status="Success"}' in metrics


def test_distributed_mode_runs_programs_on_the_workers(distributed_url: str) -> None:
    ok = ran(distributed_url, code="print(input()[::-1])", stdin="abc")
    assert ok["status"] == "Success" and ok["run_result"]["stdout"] == "cba\n"
    broken = ran(distributed_url, code="int main() { return x; }", language="cpp")
    assert broken["run_result"] is None and broken["compile_result"]["return_code"] != 0
    timed = ran(distributed_url, code="while True: pass", run_timeout=1)
    assert timed["run_result"]["status"] == "TimeLimitExceeded"
