"""Stdio tests: the program reads a case's input and its output is compared or judged.

The output (stdout, or the file the problem names) is compared here with the expected one, or
judged by the dataset's checker; an interactive problem runs its interactor beside the
solution (interactive.py). Judge programs are compiled like solutions, once per jail. A judge
program that fails on a test is tried on the test's reference answer before the failure is
blamed on the dataset (`_on_the_reference`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from rlvr_contract.schemas import JudgeProgram, Result, Status, StdioTests
from verifier.kinds.code import harness, interactive
from verifier.kinds.code.compare import stdout_matches
from verifier.kinds.code.judges import OUTPUT, JudgeVerdict, PreparedJudge, prepare_judge
from verifier.kinds.code.languages import MIB, find_language
from verifier.kinds.code.limits import limit_status, run_limits
from verifier.kinds.code.submission import Jail, Submission
from verifier.kinds.code.verdicts import TestVerdict, exit_message
from verifier.sandbox import RunOutcome, RunRequest
from verifier.service.lru import LRU

MAX_SUPPORT_FILE_BYTES = 4 * MIB  # a file of VERIFIER_SUPPORT_FILES_DIR
REFERENCE_VERDICTS_KEPT = 256  # judge programs' verdicts on a test's reference answer


class StdioTestRuns:
    """Runs and judges stdio cases for the runner `jail`."""

    def __init__(self, jail: Jail) -> None:
        self.jail = jail
        self._support_files = _support_files(jail.settings.support_files_dir)
        # Whether a judge program accepts a test's reference answer (see _on_the_reference).
        self._judges_on_reference: LRU[str, bool] = LRU(REFERENCE_VERDICTS_KEPT)

    # ----------------------------------------------------------------------- judge programs

    def prepare_judges(self, sub: Submission) -> Result | None:
        """Compile the checker and the interactor (once per jail, cached like solutions); a
        judge program that cannot be prepared is the dataset's fault: infra_error."""
        tests = sub.item.tests
        for role, spec in (("checker", tests.checker), ("interactor", tests.interactor)):
            if spec is None:
                continue
            prepared = self._prepare_judge(sub, role, spec)
            if isinstance(prepared, str):
                return Result.infra_error(sub.item.id, prepared)
            setattr(sub, role, prepared)
        return None

    def _prepare_judge(self, sub: Submission, role: str,
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
        program = Submission(sub.item, language, spec.code, sub.tools, source, support=support)
        if language.compile is not None:
            failure = self.jail.compile(program)
            if failure is not None:
                if failure.status is Status.compile_error:
                    message = failure.detail.get("compile", {}).get("message", "")
                    return f"the {role} does not compile: {message}"
                return f"the {role} could not be compiled: {failure.detail.get('error')}"
        return prepare_judge(spec, role, language, sub.tools, source, program.artefact,
                             self.jail.scaled(spec.limits, language), self.jail.output_bytes,
                             run_limits)

    # ----------------------------------------------------------------------- cases

    def request(self, sub: Submission, index: int, nonce: str) -> RunRequest:
        """A case's run: its input on stdin (or in its input file), Python through the harness,
        with the interactor beside it if the problem has one."""
        tests: StdioTests = sub.item.tests
        case = tests.cases[index]
        stdin = case.input.encode()  # the one copy the worker makes
        payload = None
        if sub.language.name == "python":
            payload = harness.payload("stdio", {"code": sub.code, "nonce": nonce,
                                                "bytecode": sub.bytecode})
        request = self.jail.program_request(sub, stdin, payload)
        if sub.interactor is not None:
            return interactive.pair(request, sub.interactor, request.stdin, case.output.encode())
        if tests.input_file:
            request.files = {**request.files, tests.input_file: request.stdin}
            request.stdin, request.stdin_file = b"", tests.input_file
        if tests.output_file:
            request.collect = (tests.output_file,)
        return request

    def judge(self, sub: Submission, index: int, outcome: RunOutcome,
              report: harness.Report) -> TestVerdict:
        """The interactor's verdict, or the output (stdout, or the output file) compared with
        the expected one or judged by the checker."""
        tests: StdioTests = sub.item.tests
        case = tests.cases[index]
        if sub.interactor is not None:  # the cgroup measured both programs: use the rusage
            outcome.memory_peak_kb = None
        limited = limit_status(outcome, sub.language, sub.item.limits)
        if sub.interactor is not None:
            exited = None if outcome.exit_code == 0 else exit_message(outcome)
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
                return TestVerdict(Status.runtime_error, outcome, exit_message(outcome))
            output = outcome.stdout
            if tests.output_file and tests.output_file in outcome.file_sizes:
                if outcome.file_sizes[tests.output_file] > self.jail.output_bytes:
                    return TestVerdict(Status.output_limit, outcome,
                                       f"{tests.output_file} is over the output limit")
                output = outcome.files[tests.output_file]
            if sub.checker is None:
                matched = stdout_matches(case.output, output, tests)
                return TestVerdict(Status.correct if matched else Status.wrong, outcome)
        request = sub.checker.checker_request(case.input.encode(), output, case.output.encode(),
                                              self.jail.settings.sandbox_runner_runs)
        checked = self.jail.run_program(sub, request)
        if isinstance(checked, TestVerdict):
            return TestVerdict(Status.infra_error, outcome, f"the checker could not run: "
                                                            f"{checked.message}")
        said = sub.checker.verdict(checked)
        if said.status is Status.infra_error and not checked.error:
            said = self._on_the_reference(sub, index, "checker", said)
        return _judged(said, outcome)

    def _on_the_reference(self, sub: Submission, index: int, role: str,
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
            answer, runs = case.output.encode(), self.jail.settings.sandbox_runner_runs
            request = (judge.checker_request(case.input.encode(), answer, answer, runs)
                       if role == "checker" else interactive.replaying_reference(
                           judge, sub.tools["python"], case.input.encode(), answer, runs))
            ran = self.jail.run_program(sub, request)
            if isinstance(ran, TestVerdict) or ran.error:  # the sandbox's failure: no evidence
                return failed
            said = (judge.verdict(ran) if role == "checker"
                    else interactive.judge(ran, judge, None, None))
            works = self._judges_on_reference[key] = said.status is Status.correct
        if not works:
            return failed
        return JudgeVerdict(Status.wrong, 0.0, f"the {role} fails on this output and accepts "
                                               f"the reference answer: {failed.message}")


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
