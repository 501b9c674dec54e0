"""Judge programs: a dataset's checker or interactor, and how its verdict is read.

A judge program is compiled once (like a solution, cached in the jail by hash, its support
files such as `testlib.h` beside the source) and runs in jail runs of its own, with its own
limits, after (checker) or beside (interactor) the solution's run; the reference answer goes
only to it, never into the solution's run. Two protocols:

- `testlib` (checkers and interactors written against testlib.h): the checker gets
  `input.txt output.txt answer.txt result.txt -appes`, the interactor `input.txt output.txt
  answer.txt result.txt -appes` (its `output.txt` is the transcript a checker may judge after
  it). The exit status is the verdict: 0 accepted, 1 wrong answer, 2 presentation error (4,
  testlib's "dirt", too), 3 the judge's own failure, 7 points, 8 unexpected end of file. The
  result file (testlib's appes XML) says which points: `quitp(p)` gives `outcome="points"
  points="p"`, scored p / max_points; `quitf(_pc(k))` gives `outcome="partially-correct"
  pctype="k"`, scored k / 200 (testlib's 0..200 scale). A program not built on testlib that
  exits 7 states its points as the first token of the result file or of its stdout.
- `cms` (CMS checkers, open-r1's `generated_checker`): `input.txt answer.txt output.txt`; the
  first token of stdout (or, if that is no number, the last: open-r1's checkers print their
  verdict last) is the score in [0, 1] (1 correct, 0 wrong), stderr the message.

A judge program that fails (exit 3, a crash, a hang, a flood, an unreadable verdict) is run
again on the test's reference answer (stdio_tests.py does: `_on_the_reference`): one
that accepts it failed because of the contestant's output, which is `wrong`; one that fails
there too is broken, the dataset's fault: `infra_error`, never a reward.
"""

from __future__ import annotations

import html
import re
import signal
from collections.abc import Callable
from dataclasses import dataclass, field

from rlvr_contract.schemas import JudgeProgram, Limits, Status
from verifier.kinds.code.languages import Language
from verifier.sandbox import RunOutcome, RunRequest, SandboxLimits
from verifier.sandbox.backend import JAIL_ENV, JAIL_PYTHON_FLAGS, PeerRun

INPUT, OUTPUT, ANSWER, RESULT = "input.txt", "output.txt", "answer.txt", "result.txt"
RESULT_BYTES = 64 * 1024  # what is read of a result file
MESSAGE_CHARS = 300
PC_SCALE = 200.0  # testlib's _pc(k): k from 0 (nothing) to 200 (everything)
_OUTCOME = re.compile(rb'<result\s+outcome\s*=\s*"([^"]*)"([^>]*)>(.*?)</result>', re.S)
_ATTRIBUTE = re.compile(rb'(\w+)\s*=\s*"([^"]*)"')
_TESTLIB_OUTCOMES = {"accepted": 0, "wrong-answer": 1, "presentation-error": 2, "fail": 3,
                     "points": 7, "unexpected-eof": 8}


@dataclass(frozen=True)
class JudgeVerdict:
    """What a judge program decided: correct, wrong (possibly with partial credit), or
    infra_error (it failed)."""

    status: Status
    score: float = 0.0
    message: str = ""

    @classmethod
    def failed(cls, message: str) -> JudgeVerdict:
        return cls(Status.infra_error, 0.0, message)

    @classmethod
    def scored(cls, score: float, message: str) -> JudgeVerdict:
        score = min(1.0, max(0.0, score))
        return cls(Status.correct if score >= 1.0 else Status.wrong, score, message)


@dataclass
class PreparedJudge:
    """A judge program ready to run: compiled (its artefact), or its source shipped per run."""

    spec: JudgeProgram
    role: str  # "checker" or "interactor", for messages
    language: Language
    argv: list[str]
    limits: SandboxLimits
    cpu_limit_s: float
    artefact: str | None = None
    files: dict[str, bytes] = field(default_factory=dict)

    def run_files(self, **files: bytes) -> dict[str, bytes]:
        return {**self.files, **files}

    def checker_request(self, case_input: bytes, output: bytes, answer: bytes,
                        runner_runs: int) -> RunRequest:
        """The checker's run, judging `output` of a test of `case_input`."""
        args = ([INPUT, ANSWER, OUTPUT] if self.spec.protocol == "cms"
                else [INPUT, OUTPUT, ANSWER, RESULT, "-appes"])
        return RunRequest(
            argv=[*self.argv, *args], limits=self.limits, artefact=self.artefact,
            files=self.run_files(**{INPUT: case_input, OUTPUT: output, ANSWER: answer}),
            env={**JAIL_ENV, **self.language.env}, proc=self.language.name != "python",
            runner_runs=runner_runs, collect=(RESULT,) if self.spec.protocol == "testlib" else ())

    def interactor_run(self, case_input: bytes, answer: bytes) -> PeerRun:
        """The interactor's side of an interactive run of a test of `case_input`."""
        return PeerRun(
            argv=[*self.argv, INPUT, OUTPUT, ANSWER, RESULT, "-appes"], limits=self.limits,
            files=self.run_files(**{INPUT: case_input, ANSWER: answer}), artefact=self.artefact,
            env={**JAIL_ENV, **self.language.env}, proc=self.language.name != "python",
            collect=(OUTPUT, RESULT))

    def failure(self, outcome: RunOutcome) -> str | None:
        """Why the judge program's run failed as a run (not as a verdict), or None."""
        if outcome.error:
            return f"the {self.role}'s run failed: {outcome.error}"
        if outcome.output_exceeded:
            return f"the {self.role} flooded its output"
        if outcome.oom_killed:
            return f"the {self.role} ran out of memory"
        if outcome.wall_timeout or outcome.signal == signal.SIGXCPU or (
                outcome.cpu_s is not None and outcome.cpu_s > self.cpu_limit_s):
            return f"the {self.role} exceeded its time limit"
        if outcome.signal is not None:
            return f"the {self.role} was killed by {_signal_name(outcome.signal)}"
        return None

    def verdict(self, outcome: RunOutcome) -> JudgeVerdict:
        """The verdict of a finished run of this judge program."""
        failure = self.failure(outcome)
        if failure is not None:
            return JudgeVerdict.failed(f"{failure}{_tail(outcome.stderr)}")
        if self.spec.protocol == "cms":
            return _cms_verdict(outcome, self.role)
        return _testlib_verdict(outcome, self.role, self.spec.max_points)


RunLimits = Callable[[Language, Limits, int], SandboxLimits]


def prepare_judge(spec: JudgeProgram, role: str, language: Language, tools: dict[str, str],
                  source_name: str, artefact: str | None, limits: Limits,
                  output_bytes: int, run_limits: RunLimits) -> PreparedJudge:
    """A judge program's runs, with the limits the runner's `run_limits` gives a program of
    its language (`limits` already scaled for the language)."""
    if language.name == "python":
        argv = [tools["python"], *JAIL_PYTHON_FLAGS, source_name]
    else:
        argv = language.run(tools, source_name, limits.memory_mb, spec.code)
    files: dict[str, bytes] = {}
    if artefact is None:  # interpreted: the source and its support files travel with each run
        files = {source_name: spec.code.encode(),
                 **{f.name: f.content.encode() for f in spec.support_files}}
    return PreparedJudge(spec=spec, role=role, language=language, argv=argv,
                         limits=run_limits(language, limits, output_bytes),
                         cpu_limit_s=limits.time_s + language.startup_cpu_s,
                         artefact=artefact, files=files)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _tail(stderr: bytes) -> str:
    text = stderr.decode("utf-8", errors="replace").strip()[-MESSAGE_CHARS:]
    return f": {text}" if text else ""


def _first_number(data: bytes) -> float | None:
    for token in data[:RESULT_BYTES].split()[:2]:
        try:
            return float(token)
        except ValueError:
            continue
    return None


def _cms_verdict(outcome: RunOutcome, role: str) -> JudgeVerdict:
    message = outcome.stderr.decode("utf-8", errors="replace").strip()[:MESSAGE_CHARS]
    if outcome.exit_code != 0:
        return JudgeVerdict.failed(f"the {role} exited with status {outcome.exit_code}"
                                   f"{_tail(outcome.stderr)}")
    tokens = outcome.stdout[:RESULT_BYTES].split()
    score = float("nan")
    for token in tokens[:1] + tokens[-1:]:  # CMS: the first; open-r1's checkers: the last
        try:
            score = float(token)
            break
        except ValueError:
            continue
    if not 0.0 <= score <= 1.0:
        return JudgeVerdict.failed(f"the {role} printed no score in [0, 1] (stdout starts "
                                   f"{outcome.stdout[:40]!r})")
    return JudgeVerdict.scored(score, message)


def _testlib_verdict(outcome: RunOutcome, role: str, max_points: float) -> JudgeVerdict:
    result = outcome.files.get(RESULT, b"")[:RESULT_BYTES]
    found = _OUTCOME.search(result)
    attributes = dict(_ATTRIBUTE.findall(found.group(2))) if found else {}
    message = (html.unescape(found.group(3).decode("utf-8", errors="replace")) if found
               else (result or outcome.stderr).decode("utf-8", errors="replace"))
    message = message.strip()[:MESSAGE_CHARS]
    outcome_name = found.group(1).decode(errors="replace") if found else ""
    if outcome_name == "partially-correct":  # its exit status is k itself: the file decides
        try:
            return JudgeVerdict.scored(float(attributes.get(b"pctype", b"")) / PC_SCALE,
                                       message)
        except ValueError:
            return JudgeVerdict.failed(f"the {role} wrote a partial verdict without pctype")
    code = outcome.exit_code
    if found and _TESTLIB_OUTCOMES.get(outcome_name, code) != code:
        return JudgeVerdict.failed(f"the {role} exited {code} but reported {outcome_name!r}")
    if code == 0:
        return JudgeVerdict.scored(1.0, message)
    if code in (1, 2, 4, 8):
        return JudgeVerdict(Status.wrong, 0.0, message)
    if code == 3:
        return JudgeVerdict.failed(f"the {role} reported a failure (FAIL): {message}")
    if code == 7:
        points = (_first_number(attributes.get(b"points", b"")) if found
                  else _first_number(result) if result else _first_number(outcome.stdout))
        if points is None or points < 0:
            return JudgeVerdict.failed(f"the {role} gave points without a value")
        return JudgeVerdict.scored(points / max_points, message)
    return JudgeVerdict.failed(f"the {role} exited with status {code}{_tail(outcome.stderr)}")
