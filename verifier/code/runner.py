"""Score code items: extract, compile once, run every test case in the jail, judge outside it.

The jail only ever receives the program, its stdin, and (Python) the harness payload; expected
outputs stay in this process and are compared here: stdio outputs, `call` return values, and
the constants of every assert the tests' plan takes out of them (asserts.py). A verdict needs
positive evidence: stdio tests a zero exit status *and* the expected output; assert tests the
judge's records carrying the run's nonce, written only when the work is done, by a process the
solution cannot reach (see verifier/sandbox/harness/judge.py); `call` tests and assert tests that
are only calls exactly one recorded value per call, each judged here (the one process that
made the calls holds nothing it could forge a pass with, see asserts.py).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlvr_contract.schemas import (
    AssertTests,
    CallTests,
    CodeItem,
    JudgeProgram,
    Limits,
    Result,
    Status,
    StdioTests,
)
from verifier.code import appended, dialects, interactive, testset
from verifier.code.asserts import BrokenTests, Call, one_value_each, plan
from verifier.code.bytecode import jail_bytecode
from verifier.code.compare import NotJSONLike, json_like, stdout_matches, values_equal
from verifier.code.dialects.core import CallsPlan
from verifier.code.dialects.values import read_records
from verifier.code.extract import extract_code
from verifier.code.judges import OUTPUT, JudgeVerdict, PreparedJudge, prepare_judge
from verifier.code.languages import MIB, Language, find_language, language_env, stack_mb
from verifier.code.subtasks import score_subtasks
from verifier.config import Settings
from verifier.sandbox import (
    ArtefactStore,
    RunOutcome,
    RunRequest,
    SandboxBackend,
    SandboxLimits,
)
from verifier.sandbox.backend import JAIL_ENV
from verifier.sandbox.harness import values
from verifier.service.lru import LRU

RUN_NPROC = 64 + 8  # the program's processes and threads, plus the jail's own few
PYTHON_MEMORY_OVERHEAD_MB = 64  # room for the interpreter; the memory verdict still counts it
RUNTIME_OVERHEAD_MB = {"address_space": 32, "heap": 384}  # beyond the limit: pipes, runtimes
STDERR_DETAIL_CHARS = 1000
COMPILE_MESSAGE_CHARS = 4000
COMPILE_MEMORY_MB = 4096  # compile_limits' memory, for a compiler's own heap settings
COMPILE_FAILURES_KEPT = 256  # failed compilations remembered (by source), not run again
MAX_SUPPORT_FILE_BYTES = 4 * MIB  # a file of VERIFIER_SUPPORT_FILES_DIR
IN_PROCESS_REFUSED = ("these assert tests are not plain calls, so they would run in the solution's "
                      "process, and this service refuses that (VERIFIER_IN_PROCESS_TESTS=refuse)")
OOM_SIGNATURES = ("MemoryError", "std::bad_alloc", "java.lang.OutOfMemoryError",
                  "JavaScript heap out of memory", "Fatal process OOM", "memory allocation of",
                  "Cannot allocate memory", "cannot allocate memory", "out of memory",
                  "OutOfMemory", "not enough memory", "Allowed memory size of", "Out of memory",
                  "NoMemoryError", "cannot allocate vector", "Heap exhausted", "Out_of_memory",
                  "xrealloc: cannot allocate", "xmalloc: cannot allocate")


def unsupported_tests(tests_type: str, language: str) -> str | None:
    """Why tests of this type cannot be run in this language, or None: `call` tests are
    Python's; `assert` tests are Python's or appended to the program (appended.py)."""
    if tests_type == "stdio" or language == "python":
        return None
    if tests_type == "assert" and appended.supported(language):
        return None
    return f"tests.type: {tests_type!r} tests are not supported for {language}"


def run_limits(language: Language, limits: Limits, output_bytes: int) -> SandboxLimits:
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
        nofile=256, output_bytes=output_bytes, tmpfs_bytes=256 * MIB,
        memory_bytes=memory)


def compile_limits(cpu: float) -> SandboxLimits:
    return SandboxLimits(
        cpu_s=cpu, wall_s=2 * cpu + 10, as_bytes=None, data_bytes=4096 * MIB,
        stack_bytes=64 * MIB, nproc=256, fsize_bytes=256 * MIB, nofile=1024,
        output_bytes=1 * MIB, tmpfs_bytes=512 * MIB, memory_bytes=COMPILE_MEMORY_MB * MIB)


@dataclass
class TestVerdict:
    status: Status
    outcome: RunOutcome
    message: str = ""
    score: float | None = None  # a judge program's partial score; else 1 correct, 0 not

    @property
    def points(self) -> float:
        if self.score is not None:
            return self.score
        return 1.0 if self.status is Status.correct else 0.0

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
        if self.score is not None:
            detail["score"] = round(self.score, 9)
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
    support: dict[str, bytes] = field(default_factory=dict)  # beside the source (testlib.h)
    checker: PreparedJudge | None = None
    interactor: PreparedJudge | None = None
    sampling: dict[str, Any] = field(default_factory=dict)  # what subsampling kept, if it did
    bytecode: str | None = None  # Python compiled here for the jail (bytecode.py), "" if not
    calls: CallsPlan | None = None  # assert tests of another language than Python, as calls
    judged: str | None = None  # where assert and call tests are judged (detail.judged)


def _harness_records(channel: bytes, nonce: str) -> list[dict]:
    """The harness's records for this run, in order: the lines on the channel with its nonce.
    Whatever else is there is skipped, never trusted."""
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
    """Over the memory limit: killed for it, a runtime's out-of-memory error, or a measured
    peak above the limit, however the run ended: over all the run's processes where the jail
    has a memory cgroup, else the program's own peak RSS (then the limit is only an
    address-space rlimit well above it). JVM and V8 are judged by their heap flag, since their
    peak includes the runtime itself."""
    if outcome.oom_killed:
        return True
    stderr = outcome.stderr.decode("utf-8", errors="replace")
    if outcome.exit_code != 0:
        if any(signature in stderr for signature in OOM_SIGNATURES):
            return True
        if outcome.maxrss_kb is not None and outcome.maxrss_kb * 1024 > limits.memory_mb * MIB:
            return True
    peak_kb = (outcome.memory_peak_kb if outcome.memory_peak_kb is not None
               else outcome.maxrss_kb)
    return (language.memory == "address_space" and peak_kb is not None
            and peak_kb * 1024 > limits.memory_mb * MIB)


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
    """Scores code items on one sandbox backend (one per worker slot), as `settings` say: warm
    or cold Python, the output cap, the compile time limit, runs per runner."""

    def __init__(self, backend: SandboxBackend, settings: Settings) -> None:
        self.backend = backend
        self.settings = settings
        self._output_bytes = int(settings.output_limit_mb * MIB)
        self._compile_limits = compile_limits(settings.compile_time_s)
        self._compile_failures: LRU[str, dict] = LRU(COMPILE_FAILURES_KEPT)
        # Whether a judge program accepts a test's reference answer (see _on_the_reference).
        self._judges_on_reference: LRU[str, bool] = LRU(COMPILE_FAILURES_KEPT)
        self._time_multiplier = settings.time_multiplier
        self._support_files = _support_files(settings.support_files_dir)

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
        language = find_language(item.language)
        if language is None:
            return Result.infra_error(item.id, f"unsupported language {item.language!r}")
        try:
            tests, sampling = testset.prepare(item.tests, self.settings.max_tests_bytes)
        except testset.TestSetError as exc:
            return Result.infra_error(item.id, str(exc))
        if item.scoring == "subtasks" and getattr(tests, "subtasks", None) is None:
            return Result.infra_error(item.id, "scoring: 'subtasks' needs tests.subtasks")
        item = item.model_copy(update={"tests": tests,
                                       "limits": self._scaled(item.limits, language)})
        refused = unsupported_tests(item.tests.type, language.name)
        if refused:
            return Result.infra_error(item.id, refused)
        judged, calls = None, None
        if isinstance(item.tests, CallTests):
            judged = "outside"
        elif isinstance(item.tests, AssertTests) and language.name == "python":
            try:
                judged = "outside" if plan(item.tests.code).mode == "calls" else "judge"
            except BrokenTests as exc:
                return Result.infra_error(item.id, str(exc))
        elif isinstance(item.tests, AssertTests):
            calls = dialects.calls_plan(language.name, item.tests.code)
            judged = "outside" if calls is not None else "in_process"
            if calls is None and self.settings.in_process_tests == "refuse":
                return Result.infra_error(item.id, IN_PROCESS_REFUSED, language=language.name,
                                          judged=judged)
        code = extract_code(item.response, (language.name, *language.aliases))
        if not code.strip():
            return Result(id=item.id, reward=0.0, status=Status.no_answer,
                          detail={"language": language.name, "message": "no code found"})
        tools = self.backend.tools()
        missing = [tool for tool in language.tools if tool not in tools]
        if missing:
            return Result.infra_error(item.id, f"{language.name} toolchain is not installed: "
                                               f"{', '.join(missing)}")
        if calls is not None:
            code = dialects.calls_program(language.name, code, calls)
        elif isinstance(item.tests, AssertTests) and language.name != "python":
            code = dialects.in_process_program(language.name, code, item.tests.code)
        submission = _Submission(item, language, code, tools, language.source_name(code),
                                 sampling=sampling, calls=calls, judged=judged)
        if language.compile is not None:
            failure = self._compile(submission)
            if failure is not None:
                return failure
        if isinstance(item.tests, StdioTests):
            failure = self._prepare_judges(submission, item.tests)
            if failure is not None:
                return failure
        return self._run_tests(submission)

    def _scaled(self, limits: Limits, language: Language) -> Limits:
        """A program's limits with its language's time multiplier (VERIFIER_TIME_MULTIPLIERS)."""
        factor = self._time_multiplier.get(language.name, 1.0)
        return limits if factor == 1.0 else limits.model_copy(
            update={"time_s": limits.time_s * factor})

    # ----------------------------------------------------------------------- judge programs

    def _prepare_judges(self, sub: _Submission, tests: StdioTests) -> Result | None:
        """Compile the checker and the interactor (once per jail, cached like solutions); a
        judge program that cannot be prepared is the dataset's fault: infra_error."""
        for role, spec in (("checker", tests.checker), ("interactor", tests.interactor)):
            if spec is None:
                continue
            prepared = self._prepare_judge(sub, role, spec)
            if isinstance(prepared, str):
                return Result.infra_error(sub.item.id, prepared)
            setattr(sub, role, prepared)
        return None

    def _prepare_judge(self, sub: _Submission, role: str,
                       spec: JudgeProgram) -> PreparedJudge | str:
        language = find_language(spec.language)
        if language is None:
            return f"the {role}'s language {spec.language!r} is not supported"
        missing = [tool for tool in language.tools if tool not in sub.tools]
        if missing:
            return f"the {role}'s toolchain is not installed: {', '.join(missing)}"
        source = f"{role}.py" if language.name == "python" else language.source_name(spec.code)
        support = {name: data for name, data in self._support_files.items() if name in spec.code}
        support.update({f.name: f.content.encode() for f in spec.support_files})
        program = _Submission(sub.item, language, spec.code, sub.tools, source, support=support)
        if language.compile is not None:
            failure = self._compile(program)
            if failure is not None:
                if failure.status is Status.compile_error:
                    message = failure.detail.get("compile", {}).get("message", "")
                    return f"the {role} does not compile: {message}"
                return f"the {role} could not be compiled: {failure.detail.get('error')}"
        return prepare_judge(spec, role, language, sub.tools, source, program.artefact,
                             self._scaled(spec.limits, language), self._output_bytes,
                             run_limits)

    # ----------------------------------------------------------------------- compile

    def _compile(self, sub: _Submission) -> Result | None:
        """Compile once per distinct source (cached in the jail by hash); a Result on failure."""
        argv = sub.language.compile(sub.tools, sub.source_name)
        support = {name: data.decode() for name, data in sorted(sub.support.items())}
        key = hashlib.sha256(json.dumps([argv, sub.source_name, sub.code, support] if support
                                        else [argv, sub.source_name, sub.code]).encode()
                             ).hexdigest()
        sub.artefact = key
        known_failure = self._compile_failures.get(key)
        if known_failure is not None:
            return self._compile_error(sub, known_failure)
        request = RunRequest(
            argv=argv, limits=self._compile_limits,
            files={**sub.support, sub.source_name: sub.code.encode()},
            store=ArtefactStore(key, sub.language.artefacts),
            env={**JAIL_ENV, **language_env(sub.language, COMPILE_MEMORY_MB)}, proc=True,
            runner_runs=self.settings.sandbox_runner_runs)
        outcome = self.backend.run(request)
        if outcome.error and not outcome.unusable_artefacts:
            return Result.infra_error(sub.item.id, f"compile step failed: {outcome.error}")
        if outcome.cached:
            sub.compile_detail = {"status": "cached"}
            return None
        if outcome.exit_code == 0 and outcome.stored:
            sub.compile_detail = {"status": "ok", "time_ms": round((outcome.cpu_s or 0) * 1e3, 3),
                                  "wall_ms": round(outcome.wall_s * 1e3, 3)}
            return None
        why = (outcome.unusable_artefacts
               or ("compilation exceeded its time limit"
                   if outcome.wall_timeout or outcome.signal == signal.SIGXCPU else "")
               or ("compilation produced too much output" if outcome.output_exceeded else ""))
        said = (outcome.stdout + outcome.stderr).decode("utf-8", errors="replace")
        tail = said[-COMPILE_MESSAGE_CHARS:]  # the compiler's last words, after why it stopped
        failure = {"status": "error", "message": f"{why}\n{tail}" if why else tail}
        self._compile_failures[key] = failure
        return self._compile_error(sub, failure)

    @staticmethod
    def _compile_error(sub: _Submission, failure: dict) -> Result:
        return Result(id=sub.item.id, reward=0.0, status=Status.compile_error,
                      detail={"language": sub.language.name, "compile": failure,
                              "passed": 0, "total": _case_count(sub.item)})

    # ----------------------------------------------------------------------- tests

    def _run_tests(self, sub: _Submission) -> Result:
        """Run the cases in order (`subtasks`: subtask by subtask); `all` scoring stops at the
        first failure, `subtasks` skips the rest of a subtask once it is lost."""
        item = sub.item
        total = _case_count(item)
        verdicts: dict[int, TestVerdict] = {}  # by case, in the order they ran

        def run(index: int) -> float | None:
            verdict = verdicts[index] = self._run_case(sub, index)
            verdict.outcome = verdict.outcome.judged()  # its output is compared: let it go
            if verdict.status in (Status.infra_error, Status.compile_error):
                return None
            return verdict.points

        groups = None
        if item.scoring == "subtasks":
            groups = score_subtasks(item.tests.subtasks, run)
        else:
            for index in range(total):
                if run(index) is None or (verdicts[index].status is not Status.correct
                                          and item.scoring == "all"):
                    break
        ran = list(verdicts.values())
        tests = [v.detail() | ({"case": i} if groups else {}) for i, v in verdicts.items()]
        if ran and ran[-1].status is Status.infra_error:
            return Result.infra_error(item.id, ran[-1].message or "sandbox failure", tests=tests)
        if ran and ran[-1].status is Status.compile_error:
            return self._compile_error(sub, {"status": "error", "message": ran[-1].message})
        failures = [v for v in ran if v.status is not Status.correct]
        status = failures[0].status if failures else Status.correct
        if groups is not None:
            reward = groups.reward
        elif item.scoring == "fraction":
            reward = sum(v.points for v in ran) / total
        else:
            reward = 1.0 if status is Status.correct else 0.0
        detail: dict[str, Any] = {"language": sub.language.name,
                                  "passed": sum(v.status is Status.correct for v in ran),
                                  "total": total, "tests": tests}
        if groups is not None:
            detail["subtasks"] = groups.groups
        if sub.sampling:
            detail["sampled"] = sub.sampling
        if sub.compile_detail:
            detail["compile"] = sub.compile_detail
        if sub.judged:
            detail["judged"] = sub.judged
        return Result(id=item.id, reward=reward, status=status, detail=detail)

    def _run_case(self, sub: _Submission, index: int) -> TestVerdict:
        item, language = sub.item, sub.language
        tests = item.tests
        nonce = secrets.token_hex(16)
        stdin = b""
        payload: bytes | None = None
        if language.name == "python" and sub.bytecode is None:
            sub.bytecode = jail_bytecode(sub.code, self.backend.bytecode_magic()) or ""
        if isinstance(tests, StdioTests):
            stdin = tests.cases[index].input.encode()  # the one copy the worker makes
            if language.name == "python":
                payload = _payload("stdio", {"code": sub.code, "nonce": nonce,
                                             "bytecode": sub.bytecode})
        elif isinstance(tests, CallTests):
            case = tests.cases[index]
            call = Call(tests.fn_name, tuple(case.args), case.kwargs)
            payload = _payload("calls", {"code": sub.code, "nonce": nonce, "methods": True,
                                         "calls": [call.wire()], "bytecode": sub.bytecode})
        elif sub.calls is not None:  # the driver records on fd 3; there is nothing to read
            payload = b""
        elif language.name != "python":  # the tests are in the program: the epilogue's record
            payload = json.dumps({"nonce": nonce, "passed": True}).encode() + b"\n"
        else:
            assert_plan = plan(tests.code)
            payload = _payload(assert_plan.mode, {"code": sub.code, "nonce": nonce,
                                                  "bytecode": sub.bytecode,
                                                  **assert_plan.payload()})
        python = language.name == "python"
        warm = python and payload is not None and self.settings.python_warm
        request = RunRequest(
            argv=language.run(sub.tools, sub.source_name, item.limits.memory_mb, sub.code),
            limits=run_limits(language, item.limits, self._output_bytes), stdin=stdin,
            files={} if sub.artefact or (python and payload) else {
                sub.source_name: sub.code.encode()},
            artefact=sub.artefact, env={**JAIL_ENV, **language_env(language,
                                                                  item.limits.memory_mb)},
            proc=not python,
            python_payload=payload,
            warm_python=warm, runner_runs=self.settings.sandbox_runner_runs)
        if isinstance(tests, StdioTests):
            request = self._stdio_request(sub, request, index)
        outcome = self._run(sub, request)
        if isinstance(outcome, TestVerdict):
            return outcome
        return self._judge(sub, index, outcome, nonce, payload is not None)

    def _stdio_request(self, sub: _Submission, request: RunRequest, index: int) -> RunRequest:
        """A stdio case's run: with its interactor beside it, or with its files (file I/O)."""
        tests = sub.item.tests
        case = tests.cases[index]
        if sub.interactor is not None:
            return interactive.pair(request, sub.interactor, request.stdin, case.output.encode())
        if tests.input_file:
            request.files = {**request.files, tests.input_file: request.stdin}
            request.stdin, request.stdin_file = b"", tests.input_file
        if tests.output_file:
            request.collect = (tests.output_file,)
        return request

    def _run(self, sub: _Submission, request: RunRequest) -> RunOutcome | TestVerdict:
        """Run a request; if the jail was restarted and lost its compiled programs, rebuild them
        (the submission's and the judges') once and run it again."""
        outcome = self.backend.run(request)
        if not outcome.missing_artefact:
            return outcome
        failure = self._compile(sub) if sub.language.compile is not None else None
        if failure is None and isinstance(sub.item.tests, StdioTests):
            failure = self._prepare_judges(sub, sub.item.tests)
        if failure is not None:
            return TestVerdict(failure.status, RunOutcome(),
                               str(failure.detail.get("compile", {}).get("message", "")
                                   or failure.detail.get("error", "")))
        return self.backend.run(request)

    def _judge(self, sub: _Submission, index: int, outcome: RunOutcome, nonce: str,
               harnessed: bool) -> TestVerdict:
        item, language, tests = sub.item, sub.language, sub.item.tests
        if outcome.error or outcome.missing_artefact:
            return TestVerdict(Status.infra_error, outcome, outcome.error or "artefact missing")
        if sub.calls is not None:
            return _calls_verdict(sub, outcome)
        records = _harness_records(outcome.channel, nonce) if harnessed else []
        ends = [r for r in records if "site" not in r]
        record = ends[-1] if ends else None
        sites = [r for r in records if "site" in r]
        if record is not None and "compile_error" in record:
            return TestVerdict(Status.compile_error, outcome, str(record["compile_error"]))
        if sub.interactor is not None:  # the cgroup measured both programs: use the rusage
            outcome.memory_peak_kb = None
        complete = True
        if isinstance(tests, AssertTests) and language.name == "python":
            assert_plan = plan(tests.code)
            failed = assert_plan.failed_site(sites)
            if failed is not None:  # judged here, so its expected value never entered the jail
                return TestVerdict(Status.wrong, outcome,
                                   f"AssertionError at line {failed.line} of the tests")
            complete = assert_plan.complete(sites)
        limited = _limit_status(outcome, language, item.limits)
        if isinstance(tests, StdioTests):
            return self._judge_stdio(sub, index, outcome, limited)
        if limited is not None:
            return TestVerdict(limited, outcome)
        if record is None:
            if outcome.exit_code == 0:
                return TestVerdict(Status.runtime_error, outcome,
                                   "exited before the tests finished")
            if language.name != "python" and appended.failed_assertion(
                    language.name, outcome.stderr.decode("utf-8", errors="replace")):
                return TestVerdict(Status.wrong, outcome, "a test's assertion failed")
            return TestVerdict(Status.runtime_error, outcome, _exit_message(outcome))
        if "failed" in record:
            return TestVerdict(Status.wrong, outcome, str(record.get("failed") or "")[:200])
        if outcome.exit_code != 0:
            return TestVerdict(Status.runtime_error, outcome, _exit_message(outcome))
        if isinstance(tests, CallTests):
            return _call_verdict(tests.cases[index].expected, sites, record, outcome)
        if not complete:
            return TestVerdict(Status.wrong, outcome,
                               "a call's value was not recorded exactly once")
        passed = record.get("passed") is True
        return TestVerdict(Status.correct if passed else Status.wrong, outcome)

    def _judge_stdio(self, sub: _Submission, index: int, outcome: RunOutcome,
                     limited: Status | None) -> TestVerdict:
        """A stdio case: the interactor's verdict, or the output (stdout, or the output file)
        compared with the expected one or judged by the checker."""
        tests = sub.item.tests
        case = tests.cases[index]
        if sub.interactor is not None:
            exited = None if outcome.exit_code == 0 else _exit_message(outcome)
            said = interactive.judge(outcome, sub.interactor, limited, exited)
            if said.status is Status.infra_error and outcome.peer and not outcome.peer.error:
                said = self._on_the_reference(sub, index, "interactor", said)
            if said.status is not Status.correct or sub.checker is None:
                return _judged(said, outcome)
            output = outcome.peer.files.get(OUTPUT, b"")
        else:
            if limited is not None:
                return TestVerdict(limited, outcome)
            if outcome.exit_code != 0:
                return TestVerdict(Status.runtime_error, outcome, _exit_message(outcome))
            output = outcome.stdout
            if tests.output_file and tests.output_file in outcome.file_sizes:
                if outcome.file_sizes[tests.output_file] > self._output_bytes:
                    return TestVerdict(Status.output_limit, outcome,
                                       f"{tests.output_file} is over the output limit")
                output = outcome.files[tests.output_file]
            if sub.checker is None:
                matched = stdout_matches(case.output, output, tests)
                return TestVerdict(Status.correct if matched else Status.wrong, outcome)
        request = sub.checker.checker_request(case.input.encode(), output, case.output.encode(),
                                              self.settings.sandbox_runner_runs)
        checked = self._run(sub, request)
        if isinstance(checked, TestVerdict):
            return TestVerdict(Status.infra_error, outcome, f"the checker could not run: "
                                                            f"{checked.message}")
        said = sub.checker.verdict(checked)
        if said.status is Status.infra_error and not checked.error:
            said = self._on_the_reference(sub, index, "checker", said)
        return _judged(said, outcome)

    def _on_the_reference(self, sub: _Submission, index: int, role: str,
                          failed: JudgeVerdict) -> JudgeVerdict:
        """A judge program that failed on this test (a crash, FAIL, a hang, a flood, no
        verdict) is run on the reference answer itself (the interactor beside a stand-in that
        writes it). If it accepts that, the contestant's output made it fail: `wrong`. If not,
        it is broken on this test and its failure stands (`infra_error`). Remembered per
        program and test, so a group of samples runs it once."""
        case = sub.item.tests.cases[index]
        judge: PreparedJudge = getattr(sub, role)
        key = hashlib.sha256(json.dumps([role, judge.argv, judge.artefact, judge.spec.code,
                                         case.input, case.output]).encode()).hexdigest()
        works = self._judges_on_reference.get(key)
        if works is None:
            answer, runs = case.output.encode(), self.settings.sandbox_runner_runs
            request = (judge.checker_request(case.input.encode(), answer, answer, runs)
                       if role == "checker" else interactive.replaying_reference(
                           judge, sub.tools["python"], case.input.encode(), answer, runs))
            ran = self._run(sub, request)
            if isinstance(ran, TestVerdict) or ran.error:  # the sandbox's failure: no evidence
                return failed
            said = (judge.verdict(ran) if role == "checker"
                    else interactive.judge(ran, judge, None, None))
            works = self._judges_on_reference[key] = said.status is Status.correct
        if not works:
            return failed
        return JudgeVerdict(Status.wrong, 0.0, f"the {role} fails on this output and accepts "
                                               f"the reference answer: {failed.message}")


def _call_verdict(expected: Any, sites: list[dict], end: dict,
                  outcome: RunOutcome) -> TestVerdict:
    """A `call` case that ran to its end: its one recorded value against the expected one."""
    if not one_value_each(sites, 1) or end.get("passed") is not True:
        return TestVerdict(Status.wrong, outcome, "a call's value was not recorded exactly once")
    try:
        value = json_like(values.decode(sites[0].get("value")))
    except (values.BadWire, RecursionError):
        return TestVerdict(Status.wrong, outcome, "a malformed value")
    except NotJSONLike as exc:
        return TestVerdict(Status.wrong, outcome, str(exc))
    matched = values_equal(expected, value)
    return TestVerdict(Status.correct if matched else Status.wrong, outcome)


def _calls_verdict(sub: _Submission, outcome: RunOutcome) -> TestVerdict:
    """Assert tests run as calls (dialects): each value the driver recorded, in order, against
    its check; a failed check is `wrong`, as the failed assert would have been, whatever came
    after it. Then the run must have ended well with one value for every call."""
    sites = sub.calls.sites
    recorded, fault = read_records(outcome.channel, len(sites))
    dialect = dialects.DIALECTS[sub.language.name]
    for site, value in zip(sites, recorded, strict=False):
        if not dialect.holds(site.check, value):
            return TestVerdict(Status.wrong, outcome,
                               f"the assertion at line {site.line} of the tests failed")
    limited = _limit_status(outcome, sub.language, sub.item.limits)
    if limited is not None:
        return TestVerdict(limited, outcome)
    if fault is not None:
        return TestVerdict(Status.wrong, outcome, fault)
    if outcome.exit_code != 0:
        return TestVerdict(Status.runtime_error, outcome, _exit_message(outcome))
    if len(recorded) < len(sites):
        return TestVerdict(Status.runtime_error, outcome, "exited before the tests finished")
    return TestVerdict(Status.correct, outcome)


def _support_files(directory: str) -> dict[str, bytes]:
    """VERIFIER_SUPPORT_FILES_DIR's files (testlib.h...), read once: judge programs that name
    one get it beside their source unless the request ships its own."""
    if not directory:
        return {}
    files = {}
    for path in sorted(Path(directory).iterdir()):
        if path.is_file() and path.stat().st_size <= MAX_SUPPORT_FILE_BYTES:
            files[path.name] = path.read_bytes()
    return files


def _judged(said: JudgeVerdict, outcome: RunOutcome) -> TestVerdict:
    """A judge program's verdict as the test's; a partial score is kept."""
    return TestVerdict(said.status, outcome, said.message,
                       said.score if 0.0 < said.score < 1.0 else None)


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
