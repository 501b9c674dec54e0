"""The two jail backends side by side: bubblewrap (the default) and Docker (runner containers).

Same process, same items, the backends interleaved round by round so that machine noise hits
both alike. Each case scores one code item per run through the real code runner: Python (warm
interpreter), a C binary (compiled once, then run from the artefact cache) and bash. Prints
JSON: runs/s and mean wall time per run for each backend and case, the Docker/bubblewrap ratio
of per-run time, the one-off cost of starting each backend (the Docker one starts a warm
container per language group), and for scale what a fresh container per run would cost
(`docker run --rm` of a no-op in the Python runner image), which warm containers avoid.

    python bench/sandbox_backends.py [--runs 40] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from rlvr_contract.schemas import CodeItem  # noqa: E402
from verifier.config import Settings  # noqa: E402
from verifier.kinds.code.runner import CodeRunner  # noqa: E402
from verifier.sandbox.factory import make_backend  # noqa: E402

C_ECHO = "#include <stdio.h>\nint main(){int x;scanf(\"%d\",&x);printf(\"%d\\n\",x);}"
CASES = {
    "python": ("python", "print(int(input()))"),
    "c_binary": ("c", C_ECHO),
    "bash": ("bash", "read x; echo $x"),
}


def items(case: str, runs: int, salt: int) -> list[CodeItem]:
    """`runs` items of one case: same program (one compile), different inputs."""
    language, code = CASES[case]
    return [CodeItem(language=language, response=code, tests={
        "type": "stdio", "cases": [{"input": f"{salt * runs + k}\n",
                                    "output": f"{salt * runs + k}\n"}]}) for k in range(runs)]


def timed(runner: CodeRunner, batch: list[CodeItem]) -> float:
    started = time.perf_counter()
    results = runner.run_items(batch)
    elapsed = time.perf_counter() - started
    bad = [r for r in results if r.status.value != "correct"]
    if bad:
        raise SystemExit(f"{runner.backend.name}: unexpected verdict {bad[0]}")
    return elapsed


def cold_container_ms(samples: int = 5) -> float:
    """Median wall time of `docker run --rm` of a no-op: the price of a container per run."""
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        subprocess.run(["docker", "run", "--rm", "--network", "none",
                        "rlvr-verifier-runner-python:latest", "true"], check=True,
                       capture_output=True)
        times.append(time.perf_counter() - started)
    return round(statistics.median(times) * 1000, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="runs per case and round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.runs < 1 or args.rounds < 1:
        parser.error("--runs and --rounds must be >= 1")

    backends = {name: make_backend(Settings(sandbox=name)) for name in ("bubblewrap", "docker")}
    runners = {name: CodeRunner(backend, Settings()) for name, backend in backends.items()}
    startup_s = {}
    try:
        for name, runner in runners.items():
            started = time.perf_counter()
            for case in CASES:  # starts the jails and compiles the C program once
                timed(runner, items(case, 1, 0))
            startup_s[name] = round(time.perf_counter() - started, 3)
        seconds: dict[str, dict[str, list[float]]] = {
            name: {case: [] for case in CASES} for name in runners}
        for round_index in range(args.rounds):
            for case in CASES:
                for name, runner in runners.items():
                    seconds[name][case].append(
                        timed(runner, items(case, args.runs, round_index + 1)))
    finally:
        for backend in backends.values():
            backend.close()

    report: dict = {"runs_per_round": args.runs, "rounds": args.rounds,
                    "startup_s_including_first_compile": startup_s,
                    "fresh_container_per_run_ms": cold_container_ms(), "cases": {}}
    for case in CASES:
        per_run = {name: statistics.median(seconds[name][case]) / args.runs
                   for name in runners}
        report["cases"][case] = {
            **{name: {"runs_per_s": round(1 / per_run[name], 1),
                      "ms_per_run": round(per_run[name] * 1000, 2)} for name in runners},
            "docker_over_bubblewrap": round(per_run["docker"] / per_run["bubblewrap"], 2),
            "docker_extra_ms_per_run": round((per_run["docker"] - per_run["bubblewrap"])
                                             * 1000, 2)}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
