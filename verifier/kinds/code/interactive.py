"""Interactive problems: the solution and the dataset's interactor in one jail run.

Each one's stdout is the other's stdin (pipes inside the jail; nothing passes through the
worker). Each has its own limits; the solution works in a directory, PID and mount namespace
of its own, so it never sees the interactor's files (the test's input and answer) or its
process (see verifier/sandbox/jail/runner.py). The interactor's verdict (testlib's protocol,
judges.py) decides the test, after the solution's own limits; the transcript it writes
(`output.txt`) goes to the checker when the problem has one too.

Who is at fault when the run does not end by itself: both still running at the wall limit
with the interactor waiting on the solution (blocked reading its stdin, or writing its stdout
into a pipe the solution does not read) is a deadlock or an idle solution (`timeout`); the
interactor doing anything else then (burning CPU, asleep), or still running after the solution
ended, is the interactor's fault (`infra_error`).
"""

from __future__ import annotations

from dataclasses import replace

from rlvr_contract.schemas import Status
from verifier.kinds.code.judges import JudgeVerdict, PreparedJudge
from verifier.sandbox import RunOutcome, RunRequest
from verifier.sandbox.backend import JAIL_ENV, JAIL_PYTHON_FLAGS

WAITING_ON_SOLUTION = ("stdin", "stdout")  # its pipes to and from the solution
REFERENCE = "reference.txt"
# The stand-in for a solution that only writes the reference answer, then ends.
_REPLAY = f"import sys\nsys.stdout.buffer.write(open({REFERENCE!r}, 'rb').read())"


def pair(request: RunRequest, interactor: PreparedJudge, case_input: bytes,
         answer: bytes) -> RunRequest:
    """The solution's `request` with the interactor beside it. The run's memory cgroup and
    work tmpfs hold both programs, so their limits add up."""
    peer = interactor.interactor_run(case_input, answer)
    limits = replace(request.limits, tmpfs_bytes=request.limits.tmpfs_bytes +
                     peer.limits.tmpfs_bytes)
    if request.limits.memory_bytes and peer.limits.memory_bytes:
        limits = replace(limits, memory_bytes=request.limits.memory_bytes +
                         peer.limits.memory_bytes)
    return replace(request, stdin=b"", limits=limits, peer=peer)


def replaying_reference(interactor: PreparedJudge, python: str, case_input: bytes,
                        answer: bytes, runner_runs: int) -> RunRequest:
    """The interactor beside a stand-in (the jail's `python`) that writes the reference answer
    and ends: the run that tells whether the interactor works on this test at all."""
    stand_in = RunRequest(argv=[python, *JAIL_PYTHON_FLAGS, "-c", _REPLAY],
                          limits=interactor.limits, files={REFERENCE: answer}, env=dict(JAIL_ENV),
                          proc=False, runner_runs=runner_runs)
    return pair(stand_in, interactor, case_input, answer)


def judge(outcome: RunOutcome, interactor: PreparedJudge, solution_limit: Status | None,
          solution_exit: str | None) -> JudgeVerdict:
    """The test's verdict from an interactive run. `solution_limit` is the limit the solution
    hit (None if none), `solution_exit` why it failed to exit cleanly (None if it did)."""
    peer = outcome.peer
    if peer is None:
        return JudgeVerdict.failed("the interactive run came back without the interactor")
    if outcome.wall_timeout:
        if peer.wall_timeout:
            if peer.blocked_on in WAITING_ON_SOLUTION:
                return JudgeVerdict(Status.timeout, 0.0, "the interactor was still waiting for "
                                                         "the solution at the wall limit")
            return JudgeVerdict.failed(f"the interactor did not answer by the wall limit "
                                       f"({peer.blocked_on or 'unknown state'}, "
                                       f"{peer.cpu_s or 0.0:.2f} s CPU)")
        said = interactor.verdict(peer)
        if said.status is not Status.correct:
            return said
        return JudgeVerdict(Status.timeout, 0.0, "the solution did not end after the "
                                                 "interaction")
    if peer.wall_timeout:
        return JudgeVerdict.failed("the interactor did not end after the solution did")
    if solution_limit is not None:
        return JudgeVerdict(solution_limit, 0.0)
    said = interactor.verdict(peer)
    if said.status is Status.correct and solution_exit is not None:
        return JudgeVerdict(Status.runtime_error, 0.0, solution_exit)
    return said
