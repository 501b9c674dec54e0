"""SandboxFusion's language names, mapped onto this service's languages.

SandboxFusion names its execution modes (`nodejs`, `R`, `D_ut`, `kotlin_script`, `pytest`...);
the ones that run a language this service has map to it (run_code.py keeps SandboxFusion's
behaviour where it differs: Java's assertions on, PHP's opening tag added). The others need
toolchains or test frameworks the jail does not have, and are refused by name. This service's
own names and aliases (`c`, `haskell`, `py`, ...) are accepted too.
"""

from __future__ import annotations

from verifier.kinds.code.languages import Language, find_language

SANDBOX_FUSION: dict[str, str] = {
    "python": "python", "cpp": "cpp", "nodejs": "javascript", "js": "javascript", "go": "go",
    "java": "java", "php": "php", "csharp": "csharp", "bash": "bash", "typescript": "typescript",
    "ts": "typescript", "rust": "rust", "lua": "lua", "R": "r", "perl": "perl", "D_ut": "d",
    "ruby": "ruby", "scala": "scala", "racket": "racket",
}
# SandboxFusion's modes with no runner here, and what they would need.
NOT_SERVED: dict[str, str] = {
    "python2": "a Python 2 interpreter", "go_test": "Go's test framework with SandboxFusion's "
    "module (testify, ...)", "sql": "an SQL runner (SandboxFusion has none either)",
    "cuda": "a GPU", "python_gpu": "a GPU", "julia": "Julia", "pytest": "pytest in the jail",
    "junit": "JUnit's jars", "jest": "Jest", "kotlin_script": "a Kotlin script runner "
    "(kotlinc -script takes tens of seconds to start: use `kotlin`)", "verilog": "Icarus Verilog",
    "lean": "Lean 4 with Mathlib", "swift": "Swift", "gtest": "GoogleTest", "react": "React",
}


class UnknownLanguage(ValueError):
    """A name neither SandboxFusion nor this service knows, or one it cannot run here."""


def tool_language(name: str) -> Language:
    """The language a /run_code `language` names; UnknownLanguage says why there is none."""
    if name in NOT_SERVED:
        raise UnknownLanguage(f"SandboxFusion's {name!r} is not served here: it needs "
                              f"{NOT_SERVED[name]}")
    language = find_language(SANDBOX_FUSION.get(name, name))
    if language is None:
        raise UnknownLanguage(f"unknown {name!r}; SandboxFusion's names served here: "
                              f"{', '.join(SANDBOX_FUSION)} (and this service's own)")
    return language
