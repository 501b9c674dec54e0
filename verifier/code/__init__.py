"""Code runner: sandboxed execution of code items (see runner.py; the jail is verifier.sandbox).

The spine depends only on `supported_languages`, `installed_languages` and `run_code_items`.
"""

from __future__ import annotations

import threading

from verifier.code.languages import LANGUAGES
from verifier.code.runner import CodeRunner
from verifier.sandbox import SandboxUnavailable
from verifier.sandbox.factory import get_backend
from verifier.schemas import CodeItem, Result

_runner_lock = threading.Lock()
_runner: CodeRunner | None = None


def supported_languages() -> list[str]:
    """Every language the registry knows (an unknown language is a 422 at the API)."""
    return list(LANGUAGES)


def installed_languages() -> list[str]:
    """Languages whose toolchain is present for this process's sandbox (shown by /v1/info)."""
    try:
        tools = get_backend().tools()
    except SandboxUnavailable:
        return []
    return [name for name, lang in LANGUAGES.items() if all(t in tools for t in lang.tools)]


def check_code_item(item: CodeItem) -> str | None:
    """Why the API should refuse this item (422), or None. Cheap; no sandbox involved."""
    if item.language not in LANGUAGES:
        return f"language: unsupported {item.language!r}; supported: {', '.join(LANGUAGES)}"
    if item.tests.type != "stdio" and item.language != "python":
        return f"tests.type: {item.tests.type!r} tests are only supported for python"
    return None


def warm_up() -> None:
    """Start this process's jail now (worker start-up), not on the first item. Never raises.

    Call it from the worker process's main thread: bubblewrap's --die-with-parent ties the jail
    to the thread that started it.
    """
    run_code_items([CodeItem(language="python", response="pass", tests={
        "type": "stdio", "cases": [{"input": "", "output": ""}]})])


def run_code_items(items: list[CodeItem]) -> list[Result]:
    """Score a chunk of code items, in order. Never raises: failures become `infra_error`."""
    global _runner
    try:
        with _runner_lock:  # one jail per process; calls from several threads take turns
            backend = get_backend()
            if _runner is None or _runner.backend is not backend:
                _runner = CodeRunner(backend)
            return _runner.run_items(items)
    except Exception as exc:
        return [Result.infra_error(item.id, f"code runner unavailable: {exc!r}") for item in items]
