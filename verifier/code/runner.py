"""Score code items: extract, compile once, run every test case in the jail, judge outside it.

The jail only ever receives the program, its stdin, and (Python) the harness payload; expected
outputs stay in this process and are compared here: stdio outputs, `call` return values, and
the constants of every assert the tests' plan takes out of them (asserts.py). A verdict needs
positive evidence: stdio tests a zero exit status *and* the expected output; `call` and `assert`
tests the judge's records carrying the run's nonce, written only when the work is done, by a
process the solution cannot reach (see verifier/sandbox/jail/judge.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import signal
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from verifier.code.asserts import BrokenTests, plan
from verifier.code.compare import stdout_matches, values_equal
from verifier.code.extract import extract_code
from verifier.code.languages import ALIASES, LANGUAGES, MIB, Language, stack_mb
from verifier.sandbox import (
    ArtefactStore,
    RunOutcome,
    RunRequest,
    SandboxBackend,
    SandboxLimits,
)
from verifier.sandbox.backend import JAIL_ENV
from verifier.schemas import AssertTests, CallTests, CodeItem, Limits, Result, Status, StdioTests

RUN_NPROC = 64 + 8  # the program's processes and threads, plus the jail's own few
PYTHON_MEMORY_OVERHEAD_MB = 64  # room for the interpreter; the memory verdict still counts it
RUNTIME_OVERHEAD_MB = {"address_space": 32, "heap": 384}  # beyond the limit: pipes, runtimes
STDERR_DETAIL_CHARS = 1000
COMPILE_MESSAGE_CHARS = 4000
OOM_SIGNATURES = ("MemoryError", "std::bad_alloc", "java.lang.OutOfMemoryError",
                  "JavaScript heap out of memory", "Fatal process OOM", "memory allocation of",
                  "Cannot allocate memory", "cannot allocate memory", "out of memory")


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def python_warm() -> bool:
    """VERIFIER_PYTHON_WARM=0 starts a fresh interpreter per run (the cold path)."""
    return os.environ.get("VERIFIER_PYTHON_WARM", "1").strip().lower() not in ("0", "false", "no")


def output_limit_bytes() -> int:
    return int(_env_float("VERIFIER_OUTPUT_LIMIT_MB", 8) * MIB)


def run_limits(language: Language, limits: Limits) -> SandboxLimits:
    """The jail limits of one test run of `language` under the item's limits.

    Where the jail has a memory cgroup, it caps the run's processes together at the limit plus
    the runtime's own share; the address-space cap is a per-process backstop at twice that
    plus slack, because address space is reserved well beyond what is used (thread stacks,
    allocator arenas). JVM and V8 get their heap flags instead.
    """
    memory = limits.memory_mb * MIB + RUNTIME_OVERHEAD_MB[language.memory] * MIB
    if language.name == "python":
        memory += PYTHON_MEMORY_OVERHEAD_MB * MIB
    cpu = limits.time_s + language.startup_cpu_s
    native = language.memory == "address_space"
    return SandboxLimits(
        cpu_s=cpu, wall_s=2 * cpu + 1, as_bytes=2 * memory + 512 * MIB if native else None,
        data_bytes=None if native else memory + 1024 * MIB,
        stack_bytes=stack_mb(limits.memory_mb) * MIB, nproc=RUN_NPROC, fsize_bytes=64 * MIB,
        nofile=256, output_bytes=output_limit_bytes(), tmpfs_bytes=256 * MIB,
        memory_bytes=memory)


def compile_limits() -> SandboxLimits:
    cpu = _env_float("VERIFIER_COMPILE_TIME_S", 30)
    return SandboxLimits(
        cpu_s=cpu, wall_s=2 * cpu + 10, as_bytes=None, data_bytes=4096 * MIB,
        stack_bytes=64 * MIB, nproc=256, fsize_bytes=256 * MIB, nofile=1024,
        output_bytes=1 * MIB, tmpfs_bytes=512 * MIB, memory_bytes=4096 * MIB)


@dataclass
class TestVerdict:
    status: Status
    outcome: RunOutcome
    message: str = ""

    def detail(self) -> dict[str, Any]:
        detail: dict[str, Any] = {
            "status": self.status.value,
            "time_ms": None if self.outcome.cpu_s is None else round(self.outcome.cpu_s * 1e3, 3),
            "wall_ms": round(self.outcome.wall_s * 1e3, 3),
            "memory_kb": (self.outcome.memory_peak_kb if self.outcome.memory_peak_kb is not None
                          else self.outcome.maxrss_kb),
        }
        stderr = self.outcome.stderr.decode("utf-8", errors="replace")[-STDERR_DETAIL_CHARS:]
        if stderr:
            detail["stderr"] = stderr
        if self.message:
            detail["message"] = self.message
        return detail


@dataclass
class _Submission:
    """One item being scored: its language, code and the compiled artefact, if any."""

    item: CodeItem
    language: Language
    code: str
    tools: dict[str, str]
    source_name: str
    artefact: str | None = None
    compile_detail: dict[str, Any] = field(default_factory=dict)


def _harness_records(channel: bytes, nonce: str) -> list[dict]:
    """The judge's records for this run, in order: the lines on the channel with its nonce.
    Whatever else is there (nothing but the judge writes there) is skipped, never trusted."""
    records = []
    for line in channel.splitlines():
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if type(record) is dict and record.get("nonce") == nonce:
            records.append(record)
    return records


def _out_of_memory(outcome: RunOutcome, language: Language, limits: Limits) -> bool:
    """Over the memory limit: killed for it, a runtime's out-of-memory error, or (measured over
    all the run's processes by the cgroup) a peak above the limit. JVM and V8 are judged by
    their heap flag, since their peak includes the runtime itself."""
    if outcome.oom_killed:
        return True
    stderr = outcome.stderr.decode("utf-8", errors="replace")
    if outcome.exit_code != 0:
        if any(signature in stderr for signature in OOM_SIGNATURES):
            return True
        if outcome.maxrss_kb is not None and outcome.maxrss_kb * 1024 > limits.memory_mb * MIB:
            return True
    return (language.memory == "address_space" and outcome.memory_peak_kb is not None
            and outcome.memory_peak_kb * 1024 > limits.memory_mb * MIB)


def _limit_status(outcome: RunOutcome, language: Language, limits: Limits) -> Status | None:
    """The verdict when a limit ended the run, else None."""
    if outcome.output_exceeded:
        return Status.output_limit
    if _out_of_memory(outcome, language, limits):
        return Status.memory_limit
    cpu_limit = limits.time_s + language.startup_cpu_s
    if outcome.wall_timeout or outcome.signal == signal.SIGXCPU or (
            outcome.cpu_s is not None and outcome.cpu_s > cpu_limit):
        return Status.timeout
    return None


class CodeRunner:
    """Scores code items on one sandbox backend (one per worker slot)."""

    def __init__(self, backend: SandboxBackend) -> None:
        self.backend = backend
        self._compile_failures: OrderedDict[str, dict] = OrderedDict()

    # ----------------------------------------------------------------------- items

    def run_items(self, items: list[CodeItem]) -> list[Result]:
        """Score items in order; identical items in one chunk are run once. Never raises."""
        done: dict[str, Result] = {}
        results = []
        for item in items:
            started = time.perf_counter()
            key = hashlib.sha256(item.model_dump_json(exclude={"id"}).encode()).hexdigest()
            if key in done:
                result = done[key].model_copy(update={"id": item.id}, deep=True)
            else:
                try:
                    result = self.run_item(item)
                except Exception as exc:  # a bug here must cost one item, not the chunk
                    result = Result.infra_error(item.id, f"code runner failed: {exc!r}")
                done[key] = result
            result.elapsed_ms = round((time.perf_counter() - started) * 1e3, 3)
            results.append(result)
        return results

    def run_item(self, item: CodeItem) -> Result:
        language = LANGUAGES.get(ALIASES.get(item.language.strip().lower(), ""))
        if language is None:
            return Result.infra_error(item.id, f"unsupported language {item.language!r}")
        if not isinstance(item.tests, StdioTests) and language.name != "python":
            return Result.infra_error(
                item.id, f"{item.tests.type} tests are only supported for python")
        if isinstance(item.tests, AssertTests):
            try:
                plan(item.tests.code)
            except BrokenTests as exc:
                return Result.infra_error(item.id, str(exc))
        code = extract_code(item.response, (language.name, *language.aliases))
        if not code.strip():
            return Result(id=item.id, reward=0.0, status=Status.no_answer,
                          detail={"language": language.name, "message": "no code found"})
        tools = self.backend.tools()
        missing = [tool for tool in language.tools if tool not in tools]
        if missing:
            return Result.infra_error(item.id, f"{language.name} toolchain is not installed: "
                                               f"{', '.join(missing)}")
        submission = _Submission(item, language, code, tools, language.source_name(code))
        if language.compile is not None:
            failure = self._compile(submission)
            if failure is not None:
                return failure
        return self._run_tests(submission)

    # ----------------------------------------------------------------------- compile

    def _compile(self, sub: _Submission) -> Result | None:
        """Compile once per distinct source (cached in the jail by hash); a Result on failure."""
        argv = sub.language.compile(sub.tools, sub.source_name)
        key = hashlib.sha256(json.dumps([argv, sub.source_name, sub.code]).encode()).hexdigest()
        sub.artefact = key
        if key in self._compile_failures:
            self._compile_failures.move_to_end(key)
            return self._compile_error(sub, self._compile_failures[key])
        request = RunRequest(
            argv=argv, limits=compile_limits(), files={sub.source_name: sub.code.encode()},
            store=ArtefactStore(key, sub.language.artefacts), env=dict(JAIL_ENV), proc=True)
        outcome = self.backend.run(request)
        if outcome.error and not outcome.too_large:
            return Result.infra_error(sub.item.id, f"compile step failed: {outcome.error}")
        if outcome.cached:
            sub.compile_detail = {"status": "cached"}
            return None
        if outcome.exit_code == 0 and outcome.stored:
            sub.compile_detail = {"status": "ok", "time_ms": round((outcome.cpu_s or 0) * 1e3, 3),
                                  "wall_ms": round(outcome.wall_s * 1e3, 3)}
            return None
        message = (outcome.stdout + outcome.stderr).decode("utf-8", errors="replace")
        if outcome.too_large:
            message = f"{outcome.too_large}\n{message}"
        elif outcome.wall_timeout or outcome.signal == signal.SIGXCPU:
            message = f"compilation exceeded its time limit\n{message}"
        elif outcome.output_exceeded:
            message = f"compilation produced too much output\n{message}"
        failure = {"status": "error", "message": message[-COMPILE_MESSAGE_CHARS:]}
        self._compile_failures[key] = failure
        while len(self._compile_failures) > 256:
            self._compile_failures.popitem(last=False)
        return self._compile_error(sub, failure)

    @staticmethod
    def _compile_error(sub: _Submission, failure: dict) -> Result:
        return Result(id=sub.item.id, reward=0.0, status=Status.compile_error,
                      detail={"language": sub.language.name, "compile": failure,
                              "passed": 0, "total": _case_count(sub.item)})

    # ----------------------------------------------------------------------- tests

    def _run_tests(self, sub: _Submission) -> Result:
        """Run the cases in order; `all` scoring stops at the first failure."""
        item = sub.item
        total = _case_count(item)
        verdicts: list[TestVerdict] = []
        for index in range(total):
            verdict = self._run_case(sub, index)
            verdicts.append(verdict)
            if verdict.status is Status.infra_error:
                return Result.infra_error(item.id, verdict.message or "sandbox failure",
                                          tests=[v.detail() for v in verdicts])
            if verdict.status is Status.compile_error:
                return self._compile_error(sub, {"status": "error", "message": verdict.message})
            if verdict.status is not Status.correct and item.scoring == "all":
                break
        passed = sum(v.status is Status.correct for v in verdicts)
        failures = [v for v in verdicts if v.status is not Status.correct]
        status = failures[0].status if failures else Status.correct
        if item.scoring == "fraction":
            reward = passed / total
        else:
            reward = 1.0 if status is Status.correct else 0.0
        detail: dict[str, Any] = {"language": sub.language.name, "passed": passed,
                                  "total": total, "tests": [v.detail() for v in verdicts]}
        if sub.compile_detail:
            detail["compile"] = sub.compile_detail
        return Result(id=item.id, reward=reward, status=status, detail=detail)

    def _run_case(self, sub: _Submission, index: int) -> TestVerdict:
        item, language = sub.item, sub.language
        tests = item.tests
        nonce = secrets.token_hex(16)
        stdin = b""
        payload: bytes | None = None
        if isinstance(tests, StdioTests):
            stdin = tests.cases[index].input.encode()
            if language.name == "python":
                payload = _payload("stdio", {"code": sub.code, "nonce": nonce})
        elif isinstance(tests, CallTests):
            case = tests.cases[index]
            payload = _payload("call", {"code": sub.code, "nonce": nonce,
                                        "fn_name": tests.fn_name, "args": case.args,
                                        "kwargs": case.kwargs})
        else:
            payload = _payload("assert", {"code": sub.code, "nonce": nonce,
                                          **plan(tests.code).payload()})
        warm = payload is not None and python_warm()
        request = RunRequest(
            argv=language.run(sub.tools, sub.source_name, item.limits.memory_mb, sub.code),
            limits=run_limits(language, item.limits), stdin=stdin,
            files={} if sub.artefact or payload else {sub.source_name: sub.code.encode()},
            artefact=sub.artefact, env={**JAIL_ENV, **language.env},
            proc=language.name != "python",
            python_payload=payload,
            warm_python=warm)
        outcome = self.backend.run(request)
        if outcome.missing_artefact:  # the jail was restarted and lost its cache: rebuild once
            failure = self._compile(sub)
            if failure is not None:
                return TestVerdict(failure.status, RunOutcome(),
                                   str(failure.detail.get("compile", {}).get("message", "")))
            outcome = self.backend.run(request)
        return self._judge(sub, index, outcome, nonce, payload is not None)

    def _judge(self, sub: _Submission, index: int, outcome: RunOutcome, nonce: str,
               harnessed: bool) -> TestVerdict:
        item, language, tests = sub.item, sub.language, sub.item.tests
        if outcome.error or outcome.missing_artefact:
            return TestVerdict(Status.infra_error, outcome, outcome.error or "artefact missing")
        records = _harness_records(outcome.channel, nonce) if harnessed else []
        ends = [r for r in records if "site" not in r]
        record = ends[-1] if ends else None
        if record is not None and "compile_error" in record:
            return TestVerdict(Status.compile_error, outcome, str(record["compile_error"]))
        if isinstance(tests, AssertTests):
            failed = plan(tests.code).failed_site([r for r in records if "site" in r])
            if failed is not None:  # judged here, so its expected value never entered the jail
                return TestVerdict(Status.wrong, outcome,
                                   f"AssertionError at line {failed.line} of the tests")
        limited = _limit_status(outcome, language, item.limits)
        if limited is not None:
            return TestVerdict(limited, outcome)
        if isinstance(tests, StdioTests):
            if outcome.exit_code != 0:
                return TestVerdict(Status.runtime_error, outcome, _exit_message(outcome))
            matched = stdout_matches(tests.cases[index].output, outcome.stdout, tests)
            return TestVerdict(Status.correct if matched else Status.wrong, outcome)
        if record is None:
            message = ("exited before the tests finished" if outcome.exit_code == 0
                       else _exit_message(outcome))
            return TestVerdict(Status.runtime_error, outcome, message)
        if "failed" in record:
            return TestVerdict(Status.wrong, outcome, str(record.get("failed") or "")[:200])
        if outcome.exit_code != 0:
            return TestVerdict(Status.runtime_error, outcome, _exit_message(outcome))
        if isinstance(tests, CallTests):
            matched = "value" in record and values_equal(tests.cases[index].expected,
                                                         record["value"])
            return TestVerdict(Status.correct if matched else Status.wrong, outcome)
        passed = record.get("passed") is True
        return TestVerdict(Status.correct if passed else Status.wrong, outcome)


def _payload(mode: str, fields: dict[str, Any]) -> bytes:
    """The harness's payload: its mode on the first line (all the harness reads before it
    forks the solution's process, see pyharness.py), then the JSON."""
    return f"{mode}\n{json.dumps(fields)}".encode()


def _exit_message(outcome: RunOutcome) -> str:
    if outcome.signal is not None:
        try:
            return f"killed by {signal.Signals(outcome.signal).name}"
        except ValueError:
            return f"killed by signal {outcome.signal}"
    return f"exit status {outcome.exit_code}"


def _case_count(item: CodeItem) -> int:
    return 1 if isinstance(item.tests, AssertTests) else len(item.tests.cases)
