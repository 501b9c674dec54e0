"""Adversarial suite for the jail: every attack is contained, and a normal run still passes after.

Real bubblewrap, real namespaces, real toolchains: these tests run hostile programs.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import socket
import threading

import pytest

from rlvr_contract.schemas import CodeItem, Result
from verifier.kinds.code import process_settings, run_code_items
from verifier.sandbox.backend import JAIL_DIR, JAIL_ENV, SUPERVISOR_ENV
from verifier.sandbox.bubblewrap import outer_uid
from verifier.sandbox.factory import get_backend

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

SECRET = "verifier-test-secret-5f1c0e"


def score(code: str, language: str = "python", stdin: str = "", expected: str = "",
          time_s: float = 1.0, memory_mb: int = 256) -> Result:
    item = CodeItem(language=language, response=code, limits={"time_s": time_s,
                                                                "memory_mb": memory_mb},
                    tests={"type": "stdio", "cases": [{"input": stdin, "output": expected}]})
    return run_code_items([item])[0]


def probe_report(code: str, language: str = "python", **kwargs) -> str:
    """Run a probe that reports on stderr (the result detail keeps its tail) and return that.

    The expected output is a sentinel the probe never prints: a probe ends `wrong`, or
    `correct` only if it printed nothing; any crash of the probe itself fails the test.
    """
    result = score(code, language, **kwargs)
    assert result.status.value in ("wrong", "correct"), result
    return result.detail["tests"][0].get("stderr", "")


def jail_processes() -> list[str]:
    """Command lines of every live host process running as this worker's jail uid.

    A process that already released its memory (exiting, or a zombie) has an empty command
    line and is skipped: it can no longer run anything.
    """
    uid = outer_uid(process_settings().sandbox_uid_base)
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/status") as status:
                if f"\nUid:\t{uid}\t" not in status.read():
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if command:
            found.append(command)
    return found


def assert_still_healthy() -> None:
    """The follow-up every attack gets: a normal submission still passes."""
    result = score("a, b = map(int, input().split())\nprint(a + b)", stdin="2 3\n",
                   expected="5\n")
    assert result.status.value == "correct", result
    leftovers = [cmd for cmd in jail_processes()
                 if "bwrap" not in cmd and "supervisor.py" not in cmd]
    assert leftovers == [], leftovers


@pytest.fixture(autouse=True)
def healthy_after():
    yield
    assert_still_healthy()


# Probes report on stderr (kept in the detail's stderr tail) and never print the sentinel.
NETWORK_PROBE = """
import socket, sys
targets = {targets!r}
for host, port in targets:
    try:
        socket.create_connection((host, port), timeout=2).close()
        print("CONNECTED", host, port, file=sys.stderr)
    except OSError as exc:
        print("blocked", host, port, type(exc).__name__, file=sys.stderr)
try:
    socket.getaddrinfo("example.com", 80)
    print("RESOLVED", file=sys.stderr)
except OSError:
    print("no dns", file=sys.stderr)
"""


@pytest.fixture
def loopback_server():
    """A real server on a free loopback port of the host (stands in for the service)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    accepted = []

    def accept() -> None:
        with contextlib.suppress(OSError):  # closed at teardown
            accepted.append(server.accept())

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    server.close()


def test_no_network_outside_nor_loopback(loopback_server):
    port, accepted = loopback_server
    with socket.create_connection(("127.0.0.1", 6379), timeout=2):
        pass  # Redis answers on the host: the probe below is meaningful
    targets = [("127.0.0.1", 6379), ("127.0.0.1", port), ("1.1.1.1", 53), ("8.8.8.8", 443)]
    report = probe_report(NETWORK_PROBE.format(targets=targets), expected="sentinel\n")
    assert "CONNECTED" not in report and "RESOLVED" not in report
    assert report.count("blocked") == len(targets)
    assert accepted == []


def test_secret_in_worker_env_is_invisible(monkeypatch):
    monkeypatch.setenv("VERIFIER_PROBE_SECRET", SECRET)
    get_backend(process_settings()).close()  # the next jail starts from a process that holds
    # the secret
    probe = """
import os, sys, glob
seen = [k for k, v in os.environ.items() if "SECRET" in k or "secret" in v]
for path in glob.glob("/proc/*/environ"):
    try:
        if b"verifier-test-secret" in open(path, "rb").read():
            seen.append(path)
    except OSError:
        pass
print("env keys", sorted(os.environ), "seen", seen, file=sys.stderr)
"""
    report = probe_report(probe, expected="sentinel\n")
    assert SECRET not in report and "seen []" in report
    for language, code in (("bash", "env >&2; cat /proc/*/environ >&2 2>/dev/null; true"),):
        assert SECRET not in probe_report(code, language, expected="sentinel\n")


def test_runs_start_from_the_jail_environment_not_the_supervisors():
    """The jail's own processes run with SUPERVISOR_ENV (their symbols bound at start); a run,
    forked warm from a runner or exec'd, starts from JAIL_ENV and its language's variables."""
    assert set(SUPERVISOR_ENV) > set(JAIL_ENV)
    report = probe_report("import os, sys\nprint('keys', sorted(os.environ), file=sys.stderr)\n",
                          expected="sentinel\n")
    assert f"keys {sorted(JAIL_ENV)}" in report
    for key in set(SUPERVISOR_ENV) - set(JAIL_ENV):
        assert key not in probe_report("env >&2; true", "bash", expected="sentinel\n")
        c_probe = (f'#include <stdio.h>\n#include <stdlib.h>\nint main(void) {{ fprintf(stderr, '
                   f'"{key}=%s\\n", getenv("{key}") ? "set" : "unset"); return 0; }}\n')
        assert f"{key}=unset" in probe_report(c_probe, "c", expected="sentinel\n")


def test_writes_outside_the_workdir_fail_and_nothing_persists(tmp_path):
    probe = """
import os, sys
for path in ["/usr/evil", "/etc/evil", "/opt/verifier/evil", "/evil", "/dev/evil",
             "/proc/sys/kernel/evil", "/bin/evil"]:
    try:
        open(path, "w").write("x")
        print("WROTE", path, file=sys.stderr)
    except OSError as exc:
        print("denied", path, file=sys.stderr)
open("/tmp/left-behind", "w").write("x")
open("/dev/shm/left-behind", "w").write("x")
print("cwd", os.getcwd(), file=sys.stderr)
"""
    report = probe_report(probe, expected="sentinel\n")
    assert "WROTE" not in report and report.count("denied") == 7
    assert "cwd /tmp" in report
    later = "import os, sys\nprint(os.listdir('/tmp'), os.listdir('/dev/shm'), file=sys.stderr)"
    assert "left-behind" not in probe_report(later, expected="sentinel\n")
    assert not os.path.exists("/usr/evil") and not os.path.exists("/evil")


def test_privileges_are_gone():
    probe = """
import os, sys
status = open("/proc/self/status").read() if os.path.exists("/proc/self/status") else ""
print(os.getuid(), [l for l in status.splitlines() if l.startswith("Cap")], file=sys.stderr)
try:
    os.setuid(0)
    print("SETUID", file=sys.stderr)
except OSError:
    print("no setuid", file=sys.stderr)
"""
    report = probe_report(probe, "python", expected="sentinel\n")
    assert "no setuid" in report and "SETUID" not in report
    shell = probe_report("grep Cap /proc/self/status >&2; unshare -U true && echo NS >&2; true",
                      "bash", expected="sentinel\n")
    assert "NS" not in shell.split()
    assert all(line.endswith("0000000000000000") for line in shell.splitlines()
               if line.startswith("Cap"))


def test_fork_bomb_is_contained():
    result = score("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n"
                   "        pass\n", time_s=0.5)
    assert result.status.value == "timeout"
    bash = score(":(){ :|:& };:\n:", "bash", time_s=0.5)
    assert bash.status.value in ("correct", "timeout", "runtime_error")


def test_memory_bombs_are_memory_limit():
    assert score("x = bytearray(10**10)").status.value == "memory_limit"
    grow = score("x = []\nwhile True:\n    x.append(b' ' * 10**6)\n", memory_mb=128, time_s=5)
    assert grow.status.value == "memory_limit"
    cpp = score("#include <vector>\nint main(){std::vector<char*> v; while(1){char*p=new char"
                "[1<<20]; for(int i=0;i<(1<<20);i+=4096)p[i]=1; v.push_back(p);}}", "cpp",
                memory_mb=128, time_s=5)
    assert cpp.status.value == "memory_limit"


def test_infinite_loop_and_sleep_time_out():
    assert score("while True:\n    pass\n", time_s=0.5).status.value == "timeout"
    slept = score("import time\ntime.sleep(60)\n", time_s=0.5)
    assert slept.status.value == "timeout"
    assert slept.detail["tests"][0]["wall_ms"] < 10_000


def test_output_flood_is_output_limit():
    assert score("while True:\n    print('x' * 4096)\n").status.value == "output_limit"
    assert score("yes", "bash").status.value == "output_limit"


def test_many_spinning_threads_time_out():
    code = ("import threading\ndef spin():\n    while True:\n        pass\n"
            "for _ in range(64):\n    try:\n        threading.Thread(target=spin).start()\n"
            "    except RuntimeError:\n        break\n")
    assert score(code, time_s=0.5).status.value == "timeout"


def test_double_forked_daemon_dies_with_the_run():
    code = ("import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
            "        time.sleep(300)\n    os._exit(0)\nprint('parent done')\n")
    assert score(code, expected="parent done\n").status.value == "correct"
    shell = "(setsid sleep 300 &) ; nohup sleep 300 >/dev/null 2>&1 & echo ok"
    assert score(shell, "bash", expected="ok\n").status.value == "correct"


def test_killing_everything_and_the_parent_is_contained():
    code = ("import os, signal\nfor target in (os.getppid(), 1):\n    os.kill(target, "
            "signal.SIGKILL)\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept ProcessLookupError:"
            "\n    pass\nprint('alive')\n")
    assert score(code, expected="alive\n").status.value == "correct"
    assert score("kill -9 -1; kill -9 1; kill -9 $PPID; echo alive", "bash",
                 expected="alive\n").status.value in ("correct", "runtime_error")


def _jail_cgroup():
    score("print(1)", expected="1\n")  # the jail (and its cgroup) exist from here on
    return get_backend(process_settings())._cgroup


def test_a_run_is_limited_as_a_whole_where_a_cgroup_is_available():
    if _jail_cgroup() is None:
        pytest.skip("no writable memory cgroup on this host: rlimits alone apply")
    # Eight processes of 64 MiB each stay under every per-process limit, not under the total.
    spread = ("import os, time\nfor _ in range(8):\n    if os.fork() == 0:\n"
              "        block = bytearray(64 * 2**20)\n        time.sleep(30)\n"
              "        os._exit(0)\ntime.sleep(30)\n")
    assert score(spread, memory_mb=128, time_s=2).status.value == "memory_limit"
    # Over the limit without dying is still over the limit.
    hog = ("#include <stdlib.h>\nint main(){volatile char*p=malloc(100<<20);"
           "for(long i=0;i<(100<<20);i+=4096)p[i]=1;return p[4096]-1;}")
    assert score(hog, "c", memory_mb=64).status.value == "memory_limit"


def test_peak_memory_is_the_programs_own():
    if _jail_cgroup() is None:
        pytest.skip("no writable memory cgroup on this host: peaks include the launcher")
    touch = ("#include <stdlib.h>\n#include <stdio.h>\nint main(){volatile char*p=malloc(48<<20);"
             "for(long i=0;i<(48<<20);i+=4096)p[i]=1;printf(\"%d\\n\",p[4096]);}")
    big = score(touch, "c", expected="1\n")
    small = score("int main(){return 0;}", "c")
    assert big.status.value == small.status.value == "correct"
    big_kb, small_kb = (r.detail["tests"][0]["memory_kb"] for r in (big, small))
    # Not the ~14 MiB of the forked interpreter that spawned it (what rusage would say).
    assert small_kb < 12 * 1024, (big_kb, small_kb)
    assert 40 * 1024 <= big_kb < 96 * 1024, (big_kb, small_kb)  # ~48 MiB, give or take


def test_the_cgroup_is_removed_with_the_jail():
    group = _jail_cgroup()
    if group is None:
        pytest.skip("no writable memory cgroup on this host")
    get_backend(process_settings()).close()
    assert not os.path.exists(group.path)


def test_runs_share_no_state():
    # Runs share a runner (tests of one submission, and the submissions after it); each still
    # starts from nothing.
    code = """read mode
if [ "$mode" = write ]; then
  echo x > /tmp/left; echo x > /dev/shm/left
  ipcmk -M 4096 >/dev/null; ipcmk -S 3 >/dev/null; ipcmk -Q >/dev/null
  (setsid sleep 300 &); echo written
elif [ "$mode" = touch ]; then
  chmod 750 /tmp /dev/shm; touch -d @12345 /tmp /dev/shm; echo written
else
  found=""
  [ -e /tmp/left ] && found="$found tmp"; [ -e /dev/shm/left ] && found="$found shm"
  for d in /tmp /dev/shm; do
    [ "$(stat -c %a $d)" = 700 ] && [ "$(stat -c %Y $d)" != 12345 ] || found="$found attr$d"
  done
  [ "$(ipcs -m -s -q | grep -c '^0x')" = 0 ] || found="$found ipc"
  pgrep sleep >/dev/null && found="$found proc"
  echo "clean$found"
fi
"""
    item = CodeItem(language="bash", response=code, tests={"type": "stdio", "cases": [
        {"input": "write\n", "output": "written\n"}, {"input": "check\n", "output": "clean\n"},
        {"input": "write\n", "output": "written\n"}, {"input": "check\n", "output": "clean\n"}]})
    writer, toucher, checker = (CodeItem(language="bash", response=f"{code}# {mode}", tests={
        "type": "stdio", "cases": [{"input": f"{mode}\n", "output": expected}]})
        for mode, expected in (("write", "written\n"), ("touch", "written\n"),
                               ("check", "clean\n")))
    results = run_code_items([item, writer, checker, toucher, checker])
    assert [r.status.value for r in results] == ["correct"] * 5, results


KEYRING_WRITER = r"""
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
int main() {
  long key = syscall(SYS_add_key, "user", "left", "hello", 5, -4 /* the user keyring */);
  long compat = -1;
#ifdef __x86_64__
  /* The same call through the 32-bit ABI; unfiltered it would fail differently (EFAULT). The
     filter answers ENOSYS (38), which the kernel never gives add_key. */
  __asm__ volatile ("int $0x80" : "=a"(compat) : "a"(286), "b"(0), "c"(0), "d"(0), "S"(0),
                    "D"(-4) : "memory");
#endif
  printf("%ld %d %ld\n", key, errno, compat);
}
"""
KEYRING_READER = r"""
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
int main() {
  char text[16] = {0};
  long key = syscall(SYS_request_key, "user", "left", 0, 0);
  long size = key > 0 ? syscall(SYS_keyctl, 11 /* KEYCTL_READ */, key, text, 15) : -1;
  printf("%s\n", size > 0 ? text : "none");
}
"""


def test_no_run_reaches_the_kernel_keyrings():
    # A user's keyring is shared by every process of its uid in the jail: no run may use it.
    writer = CodeItem(language="c", response=KEYRING_WRITER,
                      tests={"type": "stdio", "cases": [{"output": "-1 38 -38\n"}]})
    reader = CodeItem(language="c", response=KEYRING_READER,
                      tests={"type": "stdio", "cases": [{"output": "none\n"}]})
    results = run_code_items([writer, reader])
    assert [r.status.value for r in results] == ["correct", "correct"], results


def test_output_past_the_pipes_capacity_arrives_whole():
    # The runner drains a living program's pipes only now and then: a program writing more
    # than they hold waits for that, and its output still arrives complete and in order.
    code = ("import sys\nfor i in range(400000):\n    sys.stderr.write(f'{i}\\n')\n"  # 2.6 MB
            "print('done')\n")
    result = score(code, expected="done\n", time_s=5)
    assert result.status.value == "correct", result
    assert result.detail["tests"][0]["stderr"].endswith("399998\n399999\n")


# A later run must not find an earlier run's code, input or output anywhere in the memory it
# inherits from the runner. The scanner probes pages around its heap and interpreter with
# pwrite (EFAULT, not a crash, where nothing is mapped) and looks for four markers in a row
# with a regular expression that names the marker once: nothing the scanner makes holds four
# in a row, so it cannot find itself. (A needle held XOR-ed and pages translated back could:
# translating the page that holds the needle leaves the plain marker in a freed buffer, which
# a later probe of the heap then finds. Docker's Python did, on every run.)
MARKER = "QZJXVKWQ"
SCANNER = r"""
import ctypes, os, re, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.pwrite.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_long]
libc.sbrk.restype = ctypes.c_void_p
probe, page = os.memfd_create("probe"), 4096
needle = re.compile(b"(?:%s){4}")
ballast = bytearray(1 << 20)
seen, pages, found = set(), 0, 0
for centre in (libc.sbrk(0), id(sys), id(ctypes), id(os.environ), id(ballast), id(needle)):
    for offset in range(-48 << 20, 48 << 20, page):
        address = (centre & ~(page - 1)) + offset
        if address <= 0 or address in seen:
            continue
        seen.add(address)
        if libc.pwrite(probe, address, page, 0) == page:
            pages += 1
            found += needle.search(ctypes.string_at(address, page)) is not None
print("pages", pages, "found", found, file=sys.stderr)
"""


def test_a_run_finds_no_earlier_runs_data_in_its_memory():
    writer = CodeItem(language="python", response=(
        f"import sys\nsys.stdout.write(sys.stdin.read())\nkept = '{MARKER}' * 64\n"),
        tests={"type": "stdio", "cases": [{"input": MARKER * 2000, "output": MARKER * 2000}]})
    scanner = CodeItem(language="python", response=SCANNER % MARKER, limits={"time_s": 10},
                       tests={"type": "stdio", "cases": [{"output": "-"}]})
    written, scanned = run_code_items([writer, scanner])
    assert written.status.value == "correct", written
    report = scanned.detail["tests"][0].get("stderr", "")
    pages = int(report.split()[1]) if report.startswith("pages") else 0
    assert pages > 1000 and report.endswith("found 0\n"), scanned


def test_each_run_gets_the_proc_its_language_needs():
    # One runner serves all three: a Python run sees an empty /proc, other languages their own.
    hidden = CodeItem(language="python", response="import os\nprint(os.listdir('/proc'))",
                      tests={"type": "stdio", "cases": [{"output": "[]\n"}]})
    shown = CodeItem(language="bash", response="ls /proc | grep -qx self && echo mine",
                     tests={"type": "stdio", "cases": [{"output": "mine\n"}]})
    results = run_code_items([hidden, shown, hidden, shown])
    assert [r.status.value for r in results] == ["correct"] * 4, results


# Each call Docker's default profile refuses, made the way it would succeed unfiltered (each
# did, in the jail as it landed): the filter answers ENOSYS, which none of them gives natively.
KERNEL_SURFACE_PROBE = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
static void report(const char *name, long result) {
  if (result >= 0) printf("%s allowed\n", name);
  else printf("%s %s\n", name, errno == ENOSYS ? "refused" : strerror(errno));
}
int main() {
  dup2(2, 1);  /* the report goes to stderr, which the result's detail keeps */
  report("userfaultfd", syscall(SYS_userfaultfd, 1 /* UFFD_USER_MODE_ONLY */));
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_SOFTWARE; attr.size = sizeof attr;
  attr.config = PERF_COUNT_SW_TASK_CLOCK; attr.exclude_kernel = 1; attr.exclude_hv = 1;
  report("perf_event_open", syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  report("personality_bsd", syscall(SYS_personality, 0x0006 /* PER_BSD */));
  report("personality_query", syscall(SYS_personality, 0xffffffff));
  report("kcmp", syscall(SYS_kcmp, getpid(), getpid(), 0 /* KCMP_FILE */, 1, 1));
  struct { unsigned int bytes; int type; unsigned char data[128]; } handle = {128};
  int mount_id;
  report("name_to_handle_at", syscall(SYS_name_to_handle_at, AT_FDCWD, "/tmp", &handle,
                                      &mount_id, 0));
  report("open_by_handle_at", syscall(SYS_open_by_handle_at, AT_FDCWD, &handle, O_RDONLY));
  report("memfd_secret", syscall(447 /* SYS_memfd_secret */, 0));
  char params[120] = {0};
  report("io_uring_setup", syscall(425, 4, params));
  report("io_uring_enter", syscall(426, 0, 0, 0, 0, 0, 0));
  report("io_uring_register", syscall(427, 0, 0, 0, 0));
  report("vsock", socket(40 /* AF_VSOCK */, SOCK_STREAM, 0));
  report("inet", socket(AF_INET, SOCK_STREAM, 0));
  report("inet6", socket(AF_INET6, SOCK_DGRAM, 0));
  report("netlink", socket(AF_NETLINK, SOCK_RAW, 0 /* NETLINK_ROUTE */));
  report("unix", socket(AF_UNIX, SOCK_STREAM, 0));
#ifdef __x86_64__
  long pid = 0;
  __asm__ volatile ("int $0x80" : "=a"(pid) : "a"(20 /* i386 getpid */) : "memory");
  printf("int80 %s\n", pid == -ENOSYS ? "refused" : pid > 0 ? "allowed" : strerror(-pid));
#else
  printf("int80 refused\n");
#endif
}
"""
REFUSED = ("userfaultfd", "perf_event_open", "personality_bsd", "kcmp", "name_to_handle_at",
           "open_by_handle_at", "memfd_secret", "io_uring_setup", "io_uring_enter",
           "io_uring_register", "vsock", "inet", "inet6", "netlink", "int80")
ALLOWED = ("personality_query", "unix")


def test_the_seccomp_filter_is_valid_for_every_architecture(monkeypatch):
    # Classic BPF jumps forward only, by at most 255: each architecture's program must hold.
    monkeypatch.syspath_prepend(str(JAIL_DIR))
    seccomp = importlib.import_module("seccomp")
    for machine, abi in seccomp.ABIS.items():
        program = seccomp.filter_program(abi)
        for at, (code, true, false, _) in enumerate(program):
            if code == seccomp.RETURN:
                continue
            assert all(0 <= jump < 256 and at + jump + 1 < len(program)
                       for jump in (true, false)), (machine, at)
        assert program[-1][0] == seccomp.RETURN, machine


def test_the_kernel_surface_is_no_wider_than_dockers_default():
    report = probe_report(KERNEL_SURFACE_PROBE, "c", expected="sentinel\n")
    said = dict(line.split(" ", 1) for line in report.splitlines())
    assert said == {**dict.fromkeys(REFUSED, "refused"), **dict.fromkeys(ALLOWED, "allowed")}, \
        report


# A run that used TCP leaves TIME_WAIT sockets (and counters) in its network namespace, where
# the next run could read them: there is no interface up, and runs make Unix sockets only.
NETWORK_WRITER = """
import socket
try:
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname(), timeout=1)
    accepted, _ = server.accept()
    client.close(); accepted.close(); server.close()
    print("connected")
except OSError as exc:
    print(type(exc).__name__)
"""
NETWORK_READER = """tcp=$(($(wc -l < /proc/net/tcp) - 1))
opens=$(awk '/^Tcp:/ { if (seen++) print $6 }' /proc/net/snmp)
echo "$tcp $opens"
"""


def test_runs_share_no_network():
    # The writer finds no loopback to connect over; the reader, served by the same runner
    # right after, sees no socket and no TCP counter of an earlier run.
    writer = CodeItem(language="python", response=NETWORK_WRITER, tests={
        "type": "stdio", "cases": [{"output": "OSError\n"}]})
    reader = CodeItem(language="bash", response=NETWORK_READER, tests={
        "type": "stdio", "cases": [{"output": "0 0\n"}]})
    results = run_code_items([writer, reader, writer, reader])
    assert [r.status.value for r in results] == ["correct"] * 4, results
