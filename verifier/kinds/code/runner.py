"""Score code items: extract, compile once, run every test case in the jail, judge outside it.

The jail only ever receives the program, its stdin, and (Python) the harness payload; expected
outputs stay in this process and are compared here: stdio outputs, `call` return values, and
the constants of every assert the tests' plan takes out of them (asserts.py). A verdict needs
positive evidence: stdio tests a zero exit status *and* the expected output; assert tests the
judge's records carrying the run's nonce, written only when the work is done, by a process the
solution cannot reach (see verifier/sandbox/harness/judge.py); `call` tests and assert tests that
are only calls exactly one recorded value per call, each judged here (the one process that
made the calls holds nothing it could forge a pass with, see asserts.py).

This module admits an item, compiles its program, runs its cases and scores them; how a case
of each test shape is run and judged is that shape's module: stdio_tests.py, assert_tests.py,
call_tests.py.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import signal
import time
from collections.abc import Callable
from typing import Any

from rlvr_contract.schemas import (
    AssertTests,
    CallTests,
    CodeItem,
    CompressedTests,
    Limits,
    Result,
    Status,
    StdioTests,
)
from verifier.config import Settings
from verifier.kinds.code import appended, assert_tests, harness, testset
from verifier.kinds.code.assert_tests import AssertTestRuns
from verifier.kinds.code.asserts import BrokenTests
from verifier.kinds.code.bytecode import jail_bytecode
from verifier.kinds.code.call_tests import CallTestRuns
from verifier.kinds.code.extract import extract_code
from verifier.kinds.code.languages import MIB, Language, find_language, language_env
from verifier.kinds.code.limits import COMPILE_MEMORY_MB, compile_limits, run_limits, time_scaled
from verifier.kinds.code.stdio_tests import StdioTestRuns
from verifier.kinds.code.submission import Submission, TestShape, case_count
from verifier.kinds.code.subtasks import SubtaskScores, score_subtasks
from verifier.kinds.code.verdicts import TestVerdict
from verifier.sandbox import ArtefactStore, RunOutcome, RunRequest, SandboxBackend
from verifier.sandbox.backend import JAIL_ENV
from verifier.service.lru import LRU

COMPILE_MESSAGE_CHARS = 4000
COMPILE_FAILURES_KEPT = 256  # failed compilations remembered (by source), not run again
WAVE_HELD_BYTES = 16 * MIB  # a wave's outputs waiting to be judged (see CodeRunner._run_wave)


def unsupported_tests(tests_type: str, language: str) -> str | None:
    """Why tests of this type cannot be run in this language, or None: `call` tests are
    Python's; `assert` tests are Python's or appended to the program (appended.py)."""
    if tests_type == "stdio" or language == "python":
        return None
    if tests_type == "assert" and appended.supported(language):
        return None
    return f"tests.type: {tests_type!r} tests are not supported for {language}"


class CodeRunner:
    """Scores code items on one sandbox backend (one per worker slot), as `settings` say: warm
    or cold Python, the output cap, the compile time limit, runs per runner."""

    def __init__(self, backend: SandboxBackend, settings: Settings) -> None:
        self.backend = backend
        self.settings = settings
        self.output_bytes = int(settings.output_limit_mb * MIB)
        self._compile_limits = compile_limits(settings.compile_time_s)
        self._compile_failures: LRU[str, dict] = LRU(COMPILE_FAILURES_KEPT)
        self._time_multiplier = settings.time_multiplier
        self._stdio = StdioTestRuns(self)
        self._shapes: dict[type, TestShape] = {
            StdioTests: self._stdio, AssertTests: AssertTestRuns(self),
            CallTests: CallTestRuns(self)}

    # ----------------------------------------------------------------------- items

    def run_items(self, items: list[CodeItem]) -> list[Result]:
        """Score items in order; identical items in one chunk are run once. Never raises.

        The worker's own work on a chunk is done in passes, each back to back, where it finds
        the worker's caches warm (between two runs in the jail it found them cold, at about
        twice the cost): every item is prepared (admitted, its program extracted, Python
        compiled for the jail) before the first one runs, and the items that are one run each
        go as a wave (`_run_wave`). Not an item with a compressed test set: decoded, it may be
        hundreds of megabytes, held only while it runs."""
        keys = [hashlib.sha256(item.model_dump_json(exclude={"id"}).encode()).hexdigest()
                for item in items]
        prepared: dict[str, tuple[Submission | Result, float]] = {}
        for key, item in zip(keys, items, strict=True):
            if key not in prepared and not isinstance(item.tests, CompressedTests):
                started = time.perf_counter()
                prepared[key] = (self._guarded(item, self.prepare, item),
                                 time.perf_counter() - started)
        scored = self._run_wave([(key, staged, spent) for key, (staged, spent) in prepared.items()
                                 if isinstance(staged, Submission) and _one_run(staged)])
        results: list[Result] = []
        first: dict[str, Result] = {}
        for key, item in zip(keys, items, strict=True):
            started = time.perf_counter()
            if key in first:  # the same item again: the result it had, under this id
                result, spent = first[key].model_copy(update={"id": item.id}, deep=True), 0.0
            elif key in scored:
                result, spent = scored.pop(key)
            else:
                staged, spent = prepared.pop(key, None) or (
                    self._guarded(item, self.prepare, item), 0.0)
                result = staged if isinstance(staged, Result) else self._guarded(
                    item, self.score, staged)
            first.setdefault(key, result)
            result.elapsed_ms = round((time.perf_counter() - started + spent) * 1e3, 3)
            results.append(result)
        return results

    def _run_wave(self, wave: list[tuple[str, Submission, float]]
                  ) -> dict[str, tuple[Result, float]]:
        """Items of one run each (`_one_run`), in three passes: every run's request is built,
        then every run made, then every run judged. Outputs waiting to be judged are judged at
        once when they pass WAVE_HELD_BYTES, so a wave holds no more output than that.
        Returns each item's Result and the seconds spent on it, its preparation's (`wave`
        brings them) included."""
        spent = {key: seconds for key, _, seconds in wave}
        scored: dict[str, Result] = {}

        def timed(key: str, step: Callable[..., Any], *arguments: Any) -> Any:
            started = time.perf_counter()
            try:
                return step(*arguments)
            finally:
                spent[key] += time.perf_counter() - started

        planned = []
        for key, sub, _ in wave:
            nonce = secrets.token_hex(16)
            request = timed(key, self._guarded, sub.item, self._shapes[AssertTests].request,
                            sub, 0, nonce)
            if isinstance(request, Result):
                scored[key] = request
            else:
                planned.append((key, sub, nonce, request))
        held: list[tuple[str, Submission, str, RunRequest, Any]] = []
        held_bytes = 0
        for at, (key, sub, nonce, request) in enumerate(planned, 1):
            outcome = timed(key, self._guarded, sub.item, self.run_program, sub, request)
            held.append((key, sub, nonce, request, outcome))
            if isinstance(outcome, RunOutcome):
                held_bytes += len(outcome.stdout) + len(outcome.stderr) + len(outcome.channel)
            if held_bytes > WAVE_HELD_BYTES or at == len(planned):
                for key_, *run in held:
                    scored[key_] = timed(key_, self._judged, *run)
                held, held_bytes = [], 0
        return {key: (result, spent[key]) for key, result in scored.items()}

    def _judged(self, sub: Submission, nonce: str, request: RunRequest,
                outcome: RunOutcome | TestVerdict | Result) -> Result:
        """A wave's run judged (`outcome`: what `run_program` returned, or the Result its
        failure ended the item with)."""
        if isinstance(outcome, Result):
            return outcome
        verdict = self._guarded(sub.item, self._judge_case, sub, 0, nonce, request, outcome)
        if isinstance(verdict, Result):
            return verdict
        verdict.outcome = verdict.outcome.judged()  # its output is judged: let it go
        return self._guarded(sub.item, self._tested, sub, {0: verdict})

    @staticmethod
    def _guarded(item: CodeItem, step: Callable[..., Any], *arguments: Any) -> Any:
        """`step(*arguments)`; a bug there costs this item (infra_error), not the chunk."""
        try:
            return step(*arguments)
        except Exception as exc:
            return Result.infra_error(item.id, f"code runner failed: {exc!r}")

    def prepare(self, item: CodeItem) -> Submission | Result:
        """Admit the item (its language, test set, limits, how its asserts run) and extract its
        program (Python: compiled for the jail); its Result instead where that ends it."""
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
                                       "limits": self.scaled(item.limits, language)})
        refused = unsupported_tests(item.tests.type, language.name)
        if refused:
            return Result.infra_error(item.id, refused)
        judged = "outside" if isinstance(item.tests, CallTests) else None
        calls = None
        if isinstance(item.tests, AssertTests):
            try:
                judged, calls = assert_tests.how_run(item.tests, language.name)
            except BrokenTests as exc:
                return Result.infra_error(item.id, str(exc))
            if judged == "in_process" and self.settings.in_process_tests == "refuse":
                return Result.infra_error(item.id, assert_tests.IN_PROCESS_REFUSED,
                                          language=language.name, judged=judged)
        code = extract_code(item.response, (language.name, *language.aliases))
        if not code.strip():
            return Result(id=item.id, reward=0.0, status=Status.no_answer,
                          detail={"language": language.name, "message": "no code found"})
        code = language.program(code)
        tools = self.backend.tools()
        missing = [tool for tool in language.tools if tool not in tools]
        if missing:
            return Result.infra_error(item.id, f"{language.name} toolchain is not installed: "
                                               f"{', '.join(missing)}")
        if isinstance(item.tests, AssertTests):
            code = assert_tests.program(language.name, code, item.tests, calls)
        submission = Submission(item, language, code, tools, language.source_name(code),
                                sampling=sampling, calls=calls, judged=judged)
        if language.name == "python":
            submission.bytecode = jail_bytecode(code, self.backend.bytecode_magic()) or ""
        return submission

    def score(self, submission: Submission) -> Result:
        """Compile a prepared submission's program and prepare its judges, then run its
        tests."""
        language = submission.language
        if language.compile is not None:
            failure = self.compile(submission)
            if failure is not None:
                return failure
        if isinstance(submission.item.tests, StdioTests):
            failure = self._stdio.prepare_judges(submission)
            if failure is not None:
                return failure
        return self._run_tests(submission)

    def scaled(self, limits: Limits, language: Language) -> Limits:
        """A program's limits with its language's time multiplier (VERIFIER_TIME_MULTIPLIERS)."""
        return time_scaled(limits, language, self._time_multiplier)

    # ----------------------------------------------------------------------- compile

    def compile(self, sub: Submission) -> Result | None:
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
        files = {**sub.support, sub.source_name: sub.code.encode()}
        store = ArtefactStore(key, sub.language.artefacts)
        outcome = self.backend.run(self._build(sub.language, argv, files, store,
                                               self._build_cache(sub)))
        if outcome.missing_artefact:  # the build cache left the jail's cache since: without it
            outcome = self.backend.run(self._build(sub.language, argv, files, store))
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

    def _build(self, language: Language, argv: list[str], files: dict[str, bytes],
               store: ArtefactStore, cache: str | None = None) -> RunRequest:
        """A compile run: it stores `store`'s artefacts, starting from the artefact `cache`."""
        return RunRequest(argv=argv, limits=self._compile_limits, files=files, store=store,
                          artefact=cache, proc=True, runner_runs=self.settings.sandbox_runner_runs,
                          env={**JAIL_ENV, **language_env(language, COMPILE_MEMORY_MB)})

    def _build_cache(self, sub: Submission) -> str | None:
        """The artefact key of the language's build cache where this build wants it, filled
        by a build of the verifier's own program the first time this jail is asked (see
        languages.BuildCache); None where it needs none or that build failed (the program then
        builds from nothing, as it would have)."""
        cache = sub.language.build_cache
        if cache is None or cache.wanted_by not in sub.code:
            return None
        argv = sub.language.compile(sub.tools, cache.source_name)
        key = hashlib.sha256(json.dumps(["build cache", argv, cache.source]).encode()
                             ).hexdigest()  # no program's key: theirs hash [argv, name, code]
        outcome = self.backend.run(self._build(
            sub.language, argv, {cache.source_name: cache.source.encode()},
            ArtefactStore(key, (cache.path,))))
        return key if outcome.cached or (outcome.exit_code == 0 and outcome.stored) else None

    @staticmethod
    def _compile_error(sub: Submission, failure: dict) -> Result:
        return Result(id=sub.item.id, reward=0.0, status=Status.compile_error,
                      detail={"language": sub.language.name, "compile": failure,
                              "passed": 0, "total": case_count(sub.item)})

    # ----------------------------------------------------------------------- tests
    def _run_tests(self, sub: Submission) -> Result:
        """Run the cases in order (`subtasks`: subtask by subtask); `all` scoring stops at the
        first failure, `subtasks` skips the rest of a subtask once it is lost."""
        item = sub.item
        total = case_count(item)
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
        return self._tested(sub, verdicts, groups)

    def _tested(self, sub: Submission, verdicts: dict[int, TestVerdict],
                groups: SubtaskScores | None = None) -> Result:
        """The item's Result from its cases' verdicts (by case, in the order they ran) and,
        scored by subtasks, the subtasks' scores."""
        item = sub.item
        total = case_count(item)
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

    def _run_case(self, sub: Submission, index: int) -> TestVerdict:
        """Run one case as its tests' shape builds it and judge it as the shape does; what
        every shape shares is here: the jail's failures, and the harness's word that the
        program did not compile."""
        nonce = secrets.token_hex(16)
        request = self._shapes[type(sub.item.tests)].request(sub, index, nonce)
        return self._judge_case(sub, index, nonce, request, self.run_program(sub, request))

    def _judge_case(self, sub: Submission, index: int, nonce: str, request: RunRequest,
                    outcome: RunOutcome | TestVerdict) -> TestVerdict:
        """A case's run judged as its tests' shape does (`outcome`: `run_program`'s)."""
        shape = self._shapes[type(sub.item.tests)]
        if isinstance(outcome, TestVerdict):
            return outcome
        if outcome.error or outcome.missing_artefact:
            return TestVerdict(Status.infra_error, outcome, outcome.error or "artefact missing")
        # A dialect's driver gets an empty payload and records without the nonce (dialects/).
        report = (harness.report(outcome.channel, nonce) if request.python_payload
                  else harness.Report())
        if report.compile_error is not None:
            return TestVerdict(Status.compile_error, outcome, report.compile_error)
        return shape.judge(sub, index, outcome, report)

    def program_request(self, sub: Submission, stdin: bytes,
                        payload: bytes | None) -> RunRequest:
        """A run of the submission's program on `stdin`, reading `payload` on fd 4 if there is
        one (Python: the harness's; the warm interpreter takes it)."""
        item, language = sub.item, sub.language
        python = language.name == "python"
        return RunRequest(
            argv=language.run(sub.tools, sub.source_name, item.limits.memory_mb, sub.code),
            limits=run_limits(language, item.limits, self.output_bytes), stdin=stdin,
            files={} if sub.artefact or (python and payload) else {
                sub.source_name: sub.code.encode()},
            artefact=sub.artefact, env={**JAIL_ENV, **language_env(language,
                                                                  item.limits.memory_mb)},
            proc=not python,
            python_payload=payload,
            warm_python=python and payload is not None and self.settings.python_warm,
            runner_runs=self.settings.sandbox_runner_runs)

    def run_program(self, sub: Submission, request: RunRequest) -> RunOutcome | TestVerdict:
        """Run a request; if the jail was restarted and lost its compiled programs, rebuild them
        (the submission's and the judges') once and run it again."""
        outcome = self.backend.run(request)
        if not outcome.missing_artefact:
            return outcome
        failure = self.compile(sub) if sub.language.compile is not None else None
        if failure is None and isinstance(sub.item.tests, StdioTests):
            failure = self._stdio.prepare_judges(sub)
        if failure is not None:
            return TestVerdict(failure.status, RunOutcome(),
                               str(failure.detail.get("compile", {}).get("message", "")
                                   or failure.detail.get("error", "")))
        return self.backend.run(request)


def _one_run(sub: Submission) -> bool:
    """Whether a prepared item is scored by one run of its program: assert tests (one case,
    no checker) in a language with no compile step (a compiler's run is a run of its own)."""
    return isinstance(sub.item.tests, AssertTests) and sub.language.compile is None
