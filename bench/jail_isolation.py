"""What the jail's seccomp filter costs, and what a network namespace per run would, measured in
one process.

The end-to-end per-test overhead (bench/code_throughput.py) moves by less than this machine's
noise, so the two costs are measured here directly, each against a baseline timed in the same
process, alternating round by round:

1. netns: unshare(CLONE_NEWNET) (what a new network namespace for every run would cost; the
   jail instead gives each runner one, and runs may make Unix sockets only), in a user
   namespace of its own as in the jail, vs fork + exit + wait of an empty child (the least a
   run costs).
2. seccomp: a system-call loop (getppid through ctypes, the cheapest call) in a child with the
   jail's filter installed vs the same loop in a child without it.

Prints JSON: medians over the rounds in microseconds, and the ratios.

    python bench/jail_isolation.py [--rounds 5] [--calls 200000] [--namespaces 200]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "verifier", "sandbox", "jail"))
from linux import PR_SET_NO_NEW_PRIVS, libc  # noqa: E402
from seccomp import install_filter  # noqa: E402

CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000


def _in_child(work, *args) -> float:
    """Run `work(*args)` in a forked child; its result (microseconds) comes back on a pipe."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            os.write(write_end, repr(work(*args)).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    result = os.read(read_end, 64)
    os.close(read_end)
    os.waitpid(pid, 0)
    return float(result)


def _fork_exit_us(count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    return (time.perf_counter() - started) / count * 1e6


def _netns_us(count: int) -> float:
    if libc.unshare(CLONE_NEWUSER) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER)")
    started = time.perf_counter()
    for _ in range(count):
        if libc.unshare(CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
    return (time.perf_counter() - started) / count * 1e6


def _syscalls_us(count: int, filtered: bool) -> float:
    if filtered:
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        install_filter()
    getppid = libc.getppid
    started = time.perf_counter()
    for _ in range(count):
        getppid()
    return (time.perf_counter() - started) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--namespaces", type=int, default=200)
    args = parser.parse_args()
    samples: dict[str, list[float]] = {"fork_exit": [], "netns": [], "syscall": [],
                                       "syscall_filtered": []}
    for _ in range(args.rounds):
        samples["fork_exit"].append(_in_child(_fork_exit_us, args.namespaces))
        samples["netns"].append(_in_child(_netns_us, args.namespaces))
        samples["syscall"].append(_in_child(_syscalls_us, args.calls, False))
        samples["syscall_filtered"].append(_in_child(_syscalls_us, args.calls, True))
    median = {name: statistics.median(values) for name, values in samples.items()}
    print(json.dumps({
        "load_avg_1m": round(os.getloadavg()[0], 2), "rounds": args.rounds,
        "fork_exit_us": round(median["fork_exit"], 1),
        "netns_unshare_us": round(median["netns"], 1),
        "ratio_netns_vs_fork_exit": round(median["netns"] / median["fork_exit"], 2),
        "syscall_us": round(median["syscall"], 3),
        "syscall_filtered_us": round(median["syscall_filtered"], 3),
        "ratio_filtered_vs_unfiltered": round(median["syscall_filtered"] / median["syscall"], 3),
    }, indent=2))


if __name__ == "__main__":
    main()
