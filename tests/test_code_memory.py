"""Memory: a worker's own (it does not grow with the outputs of an item's cases) and the runs'
(a run's memory verdict depends on that run alone).

Real jail, real toolchains; peaks come from the kernel (rusage, the jail's cgroup).
"""

from __future__ import annotations

import os
import resource
import shutil
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.kinds.code import run_code_items
from verifier.sandbox.cgroup import memory_hierarchies

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


def _printer(cases: int, output_kib: int) -> CodeItem:
    code = f"import sys\nsys.stdout.write('x' * {output_kib * 1024})\n"
    return CodeItem(language="python", response=code, scoring="fraction",
                    tests={"type": "stdio", "cases": [{"output": "y"}] * cases})


def _peak_growth_kb(cases: int, output_kib: int) -> int:
    """In a fresh process: its peak RSS growth while one item's cases print big outputs."""
    run_code_items([_printer(1, output_kib)])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = run_code_items([_printer(cases, output_kib)])[0]
    assert result.detail["passed"] == 0 and len(result.detail["tests"]) == cases, result
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before


def test_a_worker_does_not_keep_every_cases_output():
    # 40 cases of 1 MiB each: holding them until the item ends would cost 40 MiB.
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        growth_kb = pool.submit(_peak_growth_kb, 40, 1024).result()
    assert growth_kb < 12 * 1024, growth_kb


TMPFS_FILLER = r"""
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
int main() {  /* 4 files of 62 MiB (each under the file-size limit) left in /tmp */
  static char block[1 << 20];
  memset(block, 7, sizeof block);
  char name[32];
  for (int f = 0; f < 4; ++f) {
    snprintf(name, sizeof name, "/tmp/left%d", f);
    FILE *out = fopen(name, "w");
    for (int i = 0; i < 62 && out; ++i) fwrite(block, 1, sizeof block, out);
    if (!out || fclose(out)) return 1;
  }
  puts("left");
}
"""
TOUCHER = r"""
#include <stdio.h>
#include <stdlib.h>
int main() {
  volatile char *p = malloc(48 << 20);
  for (long i = 0; i < (48 << 20); i += 4096) p[i] = 1;
  printf("%d\n", p[4096]);
}
"""


def _case(language: str, code: str, output: str, memory_mb: int = 256,
          time_s: float = 2.0) -> CodeItem:
    return CodeItem(language=language, response=code,
                    limits={"memory_mb": memory_mb, "time_s": time_s},
                    tests={"type": "stdio", "cases": [{"output": output}]})


def test_a_runs_memory_verdict_does_not_depend_on_the_run_before():
    # Right after a run that left 248 MiB in its /tmp (charged to the jail while it exists),
    # a run over its limit is still over it, and a run's peak is still its own.
    filler = _case("c", TMPFS_FILLER, "left\n")
    hog = _case("python", "block = b'x' * (200 << 20)\nprint(len(block) >> 20)\n", "200\n",
                memory_mb=64)
    toucher = _case("c", TOUCHER, "1\n")
    results = run_code_items([filler, hog, filler, toucher])
    assert [r.status.value for r in results] == ["correct", "memory_limit", "correct",
                                                 "correct"], results
    assert results[3].detail["tests"][0]["memory_kb"] >= 40 * 1024, results[3]


def _score_without_cgroup(raw: dict) -> tuple[str, int]:
    os.environ["VERIFIER_SANDBOX_CGROUP"] = "false"  # this fresh process's settings
    result = run_code_items([CodeItem.model_validate(raw)])[0]
    return result.status.value, result.detail["tests"][0]["memory_kb"]


def test_without_a_cgroup_a_peak_over_the_limit_is_still_memory_limit():
    # Where no memory cgroup exists, the limit is an address-space rlimit well above it (twice
    # it, plus slack): a run that stays under that but over its limit, and exits 0, is over.
    hog = _case("python", "block = bytearray(400 << 20)\nprint('done')\n", "done\n",
                memory_mb=128)
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        status, memory_kb = pool.submit(_score_without_cgroup, hog.model_dump()).result()
    assert (status, memory_kb > 400 * 1024) == ("memory_limit", True), memory_kb



# Programs that fail on their own, under limits below what their runtime alone holds: Racket's
# `#lang racket` loads about 130 MiB of libraries, a JVM or node under 16 MiB maps more than
# that before the program's first line.
OWN_FAILURES = [
    ("racket", "#lang racket\n(close-output-port (current-output-port))\n(displayln 1)\n", 128),
    ("racket", "#lang racket/base\n(error 'f \"boom\")\n", 64),
    ("java", "public class Main { public static void main(String[] a) { "
             "throw new RuntimeException(\"boom\"); } }\n", 16),
    ("javascript", "throw new Error('boom');\n", 16),
    ("r", "stop('boom')\n", 16),
]


def test_a_program_that_fails_under_its_runtimes_own_share_is_its_own_failure():
    # The runtime's share is not the program's: a run that fails (a closed stdout written, an
    # exception) is runtime_error, as it is under higher limits, not memory_limit for the
    # libraries its runtime loaded; a heap runtime is held to its limit by its heap flag, its
    # out-of-memory error and the jail's cap (the cgroup's, or, without one, the same peak).
    items = [_case(language, code, "1\n", memory_mb=memory) for language, code, memory
             in OWN_FAILURES]
    results = run_code_items(items)
    assert [r.status.value for r in results] == ["runtime_error"] * len(items), results


# Up to 400 MiB queued in socket buffers: over loopback TCP where there is a loopback (the
# kernel charges those buffers to nothing a cgroup limits), else in Unix socket pairs.
SOCKET_HOG = """
import socket
def tcp_pair():
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    return client, server.accept()[0]
pairs, queued, chunk = [], 0, b"x" * 65536
for _ in range(100):
    try:
        a, b = tcp_pair()
    except OSError:
        a, b = socket.socketpair()
    pairs.append((a, b))
    for s in (a, b):
        s.setblocking(False)
        while queued < 400 << 20:
            try:
                queued += s.send(chunk)
            except OSError:
                break
print("done")
"""


def test_socket_buffers_count_against_the_limit():
    results = run_code_items([_case("python", SOCKET_HOG, "done\n", memory_mb=32, time_s=10)])
    assert results[0].status.value == "memory_limit", results


V1_MOUNTS = """31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 {root} /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
36 31 0:33 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
"""
V2_MOUNTS = "40 23 0:35 {root} /run/my\\040cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"


@pytest.mark.parametrize(("cgroups", "mounts", "expected"), [
    # A v1 host: the hierarchy's root is mounted.
    ("5:memory:/worker\n1:cpu,cpuacct:/\n0::/\n", V1_MOUNTS.format(root="/"),
     [(1, "/sys/fs/cgroup/memory/worker")]),
    # A v1 container without a cgroup namespace: its own cgroup is what is mounted.
    ("5:memory:/docker/abc\n0::/\n", V1_MOUNTS.format(root="/docker/abc"),
     [(1, "/sys/fs/cgroup/memory")]),
    ("5:memory:/docker/abc/jobs\n", V1_MOUNTS.format(root="/docker/abc"),
     [(1, "/sys/fs/cgroup/memory/jobs")]),
    # A mount of another part of the hierarchy does not hold this process's cgroup.
    ("5:memory:/elsewhere\n", V1_MOUNTS.format(root="/docker/abc"), []),
    # v2, mounted at a path of its own (escaped in mountinfo), with a cgroup namespace.
    ("0::/service\n", V2_MOUNTS.format(root="/"), [(2, "/run/my cgroup/service")]),
    ("0::/\n", V2_MOUNTS.format(root="/"), [(2, "/run/my cgroup")]),
])
def test_the_memory_cgroup_is_found_where_its_hierarchy_is_mounted(cgroups, mounts, expected):
    assert memory_hierarchies(cgroups, mounts) == expected
