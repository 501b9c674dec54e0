"""The limits of a code item's runs: the server's maxima, what the jail enforces, and which
limit a run hit.

The jail caps each run a little above the item's limits (the runtime's own share, slack for
what is reserved but unused); the verdict is then decided here, against the item's own limits,
from what the jail measured and what the program said on its way out.
"""

from __future__ import annotations

import signal

from rlvr_contract.schemas import CodeItem, Limits, Status, StdioTests
from verifier.config import Settings
from verifier.kinds.code.languages import MIB, Language, stack_mb
from verifier.kinds.kind import Kinds
from verifier.sandbox import RunOutcome, SandboxLimits

RUN_NPROC = 64 + 8  # the program's processes and threads, plus the jail's own few
PYTHON_MEMORY_OVERHEAD_MB = 64  # room for the interpreter; the memory verdict still counts it
RUNTIME_OVERHEAD_MB = {"address_space": 32, "heap": 384}  # beyond the limit: pipes, runtimes
COMPILE_MEMORY_MB = 4096  # compile_limits' memory, for a compiler's own heap settings
OOM_SIGNATURES = ("MemoryError", "std::bad_alloc", "java.lang.OutOfMemoryError",
                  "JavaScript heap out of memory", "Fatal process OOM", "memory allocation of",
                  "Cannot allocate memory", "cannot allocate memory", "out of memory",
                  "OutOfMemory", "not enough memory", "Allowed memory size of", "Out of memory",
                  "NoMemoryError", "cannot allocate vector", "Heap exhausted", "Out_of_memory",
                  "xrealloc: cannot allocate", "xmalloc: cannot allocate")


def clamp_limits(item: CodeItem, settings: Settings, kinds: Kinds) -> None:
    """Lower the item's case limits (and its judge programs') to the server's maxima, in place:
    the verdict is the one under the limits applied."""
    item.limits = _clamped(item.limits, settings)
    if isinstance(item.tests, StdioTests):
        for program in (item.tests.checker, item.tests.interactor):
            if program is not None:
                program.limits = _clamped(program.limits, settings)


def time_scaled(limits: Limits, language: Language, multipliers: dict[str, float]) -> Limits:
    """The limits with the language's time multiplier (VERIFIER_TIME_MULTIPLIERS) applied;
    the same object where it has none."""
    factor = multipliers.get(language.name, 1.0)
    return limits if factor == 1.0 else limits.model_copy(
        update={"time_s": limits.time_s * factor})


def _clamped(limits: Limits, settings: Settings) -> Limits:
    if limits.time_s <= settings.max_case_time_s and \
            limits.memory_mb <= settings.max_case_memory_mb:
        return limits
    return limits.model_copy(update={"time_s": min(limits.time_s, settings.max_case_time_s),
                                     "memory_mb": min(limits.memory_mb,
                                                      settings.max_case_memory_mb)})


def run_limits(language: Language, limits: Limits, output_bytes: int) -> SandboxLimits:
    """The jail limits of one test run of `language` under the item's limits.

    Where the jail has a memory cgroup, it caps the run's processes together at the limit plus
    the runtime's own share; the address-space cap is a per-process backstop at twice that
    plus slack, because address space is reserved well beyond what is used (thread stacks,
    allocator arenas). JVM and V8 get their heap flags instead.
    """
    memory = _capped_bytes(language, limits)
    cpu = limits.time_s + language.startup_cpu_s
    native = language.memory == "address_space"
    return SandboxLimits(
        cpu_s=cpu, wall_s=2 * cpu + 1, as_bytes=2 * memory + 512 * MIB if native else None,
        data_bytes=None if native else memory + 1024 * MIB,
        stack_bytes=stack_mb(limits.memory_mb) * MIB, nproc=RUN_NPROC, fsize_bytes=64 * MIB,
        nofile=256, output_bytes=output_bytes, tmpfs_bytes=256 * MIB,
        memory_bytes=memory)


def _capped_bytes(language: Language, limits: Limits) -> int:
    """What the jail lets a run of `language` hold: the item's limit plus its runtime's share."""
    memory = limits.memory_mb * MIB + RUNTIME_OVERHEAD_MB[language.memory] * MIB
    if language.name == "python":
        memory += PYTHON_MEMORY_OVERHEAD_MB * MIB
    return memory


def compile_limits(cpu: float) -> SandboxLimits:
    return SandboxLimits(
        cpu_s=cpu, wall_s=2 * cpu + 10, as_bytes=None, data_bytes=4096 * MIB,
        stack_bytes=64 * MIB, nproc=256, fsize_bytes=256 * MIB, nofile=1024,
        output_bytes=1 * MIB, tmpfs_bytes=512 * MIB, memory_bytes=COMPILE_MEMORY_MB * MIB)


def limit_status(outcome: RunOutcome, language: Language, limits: Limits) -> Status | None:
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


def _out_of_memory(outcome: RunOutcome, language: Language, limits: Limits) -> bool:
    """Over the memory limit: killed for it, a runtime's out-of-memory error, or a measured
    peak above the limit, however the run ended: over all the run's processes where the jail
    has a memory cgroup, else the program's own peak RSS (then the limit is only an
    address-space rlimit well above it). JVM, V8, Mono, GHC, Racket and R are judged by their
    heap flag and out-of-memory error, and a failed run by a peak above the jail's cap (its
    cgroup's, or the same without one), since their peak includes the runtime itself: `#lang
    racket` alone holds 130 MiB, so a run of it that failed under 128 MiB failed on its own."""
    if outcome.oom_killed:
        return True
    stderr = outcome.stderr.decode("utf-8", errors="replace")
    if outcome.exit_code != 0:
        if any(signature in stderr for signature in OOM_SIGNATURES):
            return True
        if outcome.maxrss_kb is not None and outcome.maxrss_kb * 1024 > _capped_bytes(
                language, limits):
            return True
    peak_kb = (outcome.memory_peak_kb if outcome.memory_peak_kb is not None
               else outcome.maxrss_kb)
    return (language.memory == "address_space" and peak_kb is not None
            and peak_kb * 1024 > limits.memory_mb * MIB)
