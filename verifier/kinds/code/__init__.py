"""Code runner: sandboxed execution of code items (see runner.py; the jail is verifier.sandbox).

The spine depends only on `supported_languages`, `admitted_languages`, `check_code_item` and
`run_code_items`. A worker process is given its settings once, with `configure`, when it starts;
a process that never was (a script, a test) reads them from the environment on first use.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from rlvr_contract.schemas import AssertTests, CodeItem, CompressedTests, Result, StdioTests
from verifier.config import Settings, load_settings
from verifier.kinds.code import testset
from verifier.kinds.code.asserts import BrokenTests, check_parses
from verifier.kinds.code.cost import code_cost
from verifier.kinds.code.languages import LANGUAGES, find_language, language_names
from verifier.kinds.code.limits import clamp_limits
from verifier.kinds.code.runner import CodeRunner, unsupported_tests
from verifier.kinds.kind import Kind, Kinds
from verifier.sandbox import SandboxBackend, SandboxUnavailable
from verifier.sandbox.factory import get_backend

_runner_lock = threading.Lock()
_runner: CodeRunner | None = None
_settings: Settings | None = None


def configure(settings: Settings) -> None:
    """This process's settings for code runs (a worker's, passed to it at its start)."""
    global _settings
    _settings = settings


def process_settings() -> Settings:
    """The settings `configure` gave this process, else the environment's (read once; a bad
    value raises SettingsError)."""
    global _settings
    if _settings is None:
        _settings = load_settings()
    return _settings


def supported_languages() -> list[str]:
    """Every language the registry knows (an unknown language is a 422 at the API)."""
    return list(LANGUAGES)


def installed_languages(settings: Settings | None = None) -> list[str]:
    """Languages whose toolchain is present for this process's sandbox."""
    try:
        tools = get_backend(settings or process_settings()).tools()
    except SandboxUnavailable:
        return []
    return list(_with_toolchains(frozenset(tools)))


@functools.lru_cache(maxsize=8)
def _with_toolchains(tools: frozenset[str]) -> tuple[str, ...]:
    """The languages all of whose tools are among `tools` (admission asks once per item)."""
    return tuple(name for name, lang in LANGUAGES.items() if all(t in tools for t in lang.tools))


def admitted_languages(settings: Settings | None = None) -> list[str] | None:
    """The languages the service scores (/v1/info lists them; admission refuses the others):
    VERIFIER_LANGUAGES when set; else, where this process runs the code itself in a bubblewrap
    jail (embedded mode), those whose toolchains it finds. None: any supported language, when
    the toolchains are elsewhere (distributed workers, Docker runner images) and not named."""
    settings = settings or process_settings()
    if settings.language_list:
        return settings.language_list
    if settings.mode == "embedded" and settings.sandbox == "bubblewrap":
        return installed_languages(settings)
    return None


def check_code_item(item: CodeItem, settings: Settings | None = None) -> str | None:
    """Why the API should refuse this item (422), or None. No sandbox involved; a compressed
    test set is decoded (bounded, once per distinct payload). It knows the languages by the
    same names and aliases as the runner."""
    settings = settings or process_settings()
    language = find_language(item.language)
    if language is None:
        return f"language: unsupported {item.language!r}; supported: {language_names()}"
    admitted = admitted_languages(settings)
    if admitted is not None and language.name not in admitted:
        return (f"language: {language.name}'s toolchain is not installed here; installed: "
                f"{', '.join(admitted) or 'none'}")
    tests = item.tests
    if isinstance(tests, CompressedTests):
        try:
            tests = testset.check(tests, settings.max_tests_bytes)
        except testset.TestSetError as exc:
            return str(exc)
    refused = unsupported_tests(tests.type, language.name)
    if refused:
        return refused
    if isinstance(tests, AssertTests) and language.name == "python":
        try:  # the worker plans them: tests it cannot read are the request's fault
            check_parses(tests.code)
        except BrokenTests as exc:
            return f"tests.code: {exc}"
    stdio = tests if isinstance(tests, StdioTests) else None  # the shape with these parts
    if item.scoring == "subtasks" and (stdio is None or stdio.subtasks is None):
        return "scoring: 'subtasks' needs tests.subtasks"
    for role in ("checker", "interactor"):
        program = getattr(stdio, role, None)
        if program is None:
            continue
        judge = find_language(program.language)
        if judge is None:
            return (f"tests.{role}.language: unsupported {program.language!r}; supported: "
                    f"{language_names()}")
        if admitted is not None and judge.name not in admitted:
            return f"tests.{role}.language: {judge.name}'s toolchain is not installed here"
    return None


def warm_up() -> None:
    """Start this process's jail now (worker start-up), not on the first item. Never raises.

    Call it from the worker process's main thread: bubblewrap's --die-with-parent ties the jail
    to the thread that started it.
    """
    run_code_items([CodeItem(language="python", response="pass", tests={
        "type": "stdio", "cases": [{"input": "", "output": ""}]})])


@contextmanager
def sandbox(settings: Settings) -> Iterator[SandboxBackend]:
    """This process's jail, held for the caller: one per process, so calls from several
    threads take turns (the rewards' and the tool runs' alike)."""
    with _runner_lock:
        yield get_backend(settings)


def run_code_items(items: list[CodeItem], settings: Settings | None = None) -> list[Result]:
    """Score a chunk of code items, in order, under `settings` (default: the process's). Never
    raises for an item: failures become `infra_error`."""
    global _runner
    settings = settings or process_settings()
    try:
        with sandbox(settings) as backend:
            if _runner is None or _runner.backend is not backend or \
                    _runner.settings is not settings:
                _runner = CodeRunner(backend, settings)
            return _runner.run_items(items)
    except Exception as exc:
        return [Result.infra_error(item.id, f"code runner unavailable: {exc!r}") for item in items]


def _check_batch(items: Sequence[CodeItem], timeout_s: float, kinds: Kinds) -> list[Result]:
    """The items in one sandbox run; their limits, not `timeout_s`, bound them. An item the
    runner did not time is given the batch's time per item."""
    started = time.perf_counter()
    try:
        results = run_code_items(list(items))
    except Exception as exc:  # the runner must not raise; if it does, say so per item
        results = [Result.infra_error(item.id, f"code runner failed: {exc!r}") for item in items]
    per_item_ms = (time.perf_counter() - started) * 1000 / max(1, len(items))
    for result in results:
        if not result.elapsed_ms:
            result.elapsed_ms = round(per_item_ms, 3)
    return results


def _admission(item: CodeItem, settings: Settings | None, kinds: Kinds) -> str | None:
    return check_code_item(item, settings)


KIND = Kind("code", CodeItem, check=_check_batch, admission=_admission, cost=code_cost,
            clamp=clamp_limits)
