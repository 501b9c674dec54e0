"""What the runner and the test shapes share: the submission being scored, what a shape does
for the runner (`TestShape`), and what the runner does for a shape (`Jail`).

The shapes (stdio_tests.py, assert_tests.py, call_tests.py) see the runner only through
`Jail`, so they never import it: the runner imports them to dispatch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from rlvr_contract.schemas import AssertTests, CodeItem, Limits, Result
from verifier.config import Settings
from verifier.kinds.code.dialects.core import CallsPlan
from verifier.kinds.code.harness import Report
from verifier.kinds.code.judges import PreparedJudge
from verifier.kinds.code.languages import Language
from verifier.kinds.code.verdicts import TestVerdict
from verifier.sandbox import RunOutcome, RunRequest


@dataclass
class Submission:
    """One item being scored (or one judge program): its language, code and compiled artefact."""

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


def case_count(item: CodeItem) -> int:
    return 1 if isinstance(item.tests, AssertTests) else len(item.tests.cases)


class Jail(Protocol):
    """The runner, as a test shape uses it."""

    settings: Settings
    output_bytes: int

    def program_request(self, sub: Submission, stdin: bytes,
                        payload: bytes | None) -> RunRequest: ...

    def run_program(self, sub: Submission, request: RunRequest) -> RunOutcome | TestVerdict: ...

    def compile(self, sub: Submission) -> Result | None: ...

    def scaled(self, limits: Limits, language: Language) -> Limits: ...


class TestShape(Protocol):
    """How cases of one shape of tests are run and judged."""

    def request(self, sub: Submission, index: int, nonce: str) -> RunRequest:
        """Case `index`'s run; harnessed runs' records carry `nonce`."""
        ...

    def judge(self, sub: Submission, index: int, outcome: RunOutcome,
              report: Report) -> TestVerdict:
        """Case `index`'s verdict from its run, which the jail ran (no sandbox error) and
        whose harness, if it had one, said the program compiled."""
        ...
