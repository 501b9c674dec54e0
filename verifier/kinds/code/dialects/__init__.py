"""Calls dialects: per language, the assert tests judged outside the solution's process.

`calls_plan(language, tests)` is the tests as calls and checks (core.py says what that means
and what a dialect provides), or None: then the tests run in the solution's process
(`in_process_program`), hardened where the language's dialect knows how. Adding a language is
one module with a `Dialect` subclass, one entry in DIALECTS, and its tests.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading

from verifier.kinds.code import appended
from verifier.kinds.code.dialects.bash import BashDialect
from verifier.kinds.code.dialects.c import CDialect
from verifier.kinds.code.dialects.core import CallsPlan, Dialect, NotPlainCalls
from verifier.kinds.code.dialects.cpp import CppDialect
from verifier.kinds.code.dialects.csharp import CSharpDialect
from verifier.kinds.code.dialects.d import DDialect
from verifier.kinds.code.dialects.go import GoDialect
from verifier.kinds.code.dialects.haskell import HaskellDialect
from verifier.kinds.code.dialects.java import JavaDialect
from verifier.kinds.code.dialects.javascript import JavaScriptDialect, TypeScriptDialect
from verifier.kinds.code.dialects.kotlin import KotlinDialect
from verifier.kinds.code.dialects.lua import LuaDialect
from verifier.kinds.code.dialects.ocaml import OCamlDialect
from verifier.kinds.code.dialects.perl import PerlDialect
from verifier.kinds.code.dialects.php import PhpDialect
from verifier.kinds.code.dialects.r import RDialect
from verifier.kinds.code.dialects.racket import RacketDialect
from verifier.kinds.code.dialects.ruby import RubyDialect
from verifier.kinds.code.dialects.rust import RustDialect
from verifier.kinds.code.dialects.scala import ScalaDialect
from verifier.service.lru import LRU

DIALECTS: dict[str, Dialect] = {dialect.language: dialect for dialect in (
    BashDialect(), CDialect(), CppDialect(), CSharpDialect(), DDialect(), GoDialect(),
    HaskellDialect(), JavaDialect(), JavaScriptDialect(), KotlinDialect(), LuaDialect(),
    OCamlDialect(), PerlDialect(), PhpDialect(), RacketDialect(), RDialect(), RubyDialect(),
    RustDialect(), ScalaDialect(), TypeScriptDialect(),
)}

# Plans of the tests seen lately: a dataset's tests come back once per sample of their problem.
_PLANS: LRU[tuple[str, str], CallsPlan | None] = LRU(
    4096, max_weight=64 << 20, weigh=lambda found: 64 if found is None else found.weight)
_PLANS_LOCK = threading.Lock()
# Names the in-process programs draw from their source: the same program gets the same names
# (its compiled form is cached), a solution cannot know them in advance.
_TAG_KEY = secrets.token_bytes(32)


def calls_plan(language: str, tests: str) -> CallsPlan | None:
    """The tests as calls, if `language` has a dialect and the tests are plain calls."""
    dialect = DIALECTS.get(language)
    if dialect is None:
        return None
    key = (language, tests)
    with _PLANS_LOCK:
        if key in _PLANS:
            return _PLANS.get(key)
    try:
        found: CallsPlan | None = dialect.plan(tests)
    except (NotPlainCalls, RecursionError):
        found = None
    with _PLANS_LOCK:
        _PLANS[key] = found
    return found


def calls_program(language: str, solution: str, plan: CallsPlan) -> str:
    """What the jail runs for tests that are calls: the solution and the driver."""
    return DIALECTS[language].program(solution, plan)


def in_process_program(language: str, solution: str, tests: str) -> str:
    """What the jail runs for tests that are not calls: solution, tests and the epilogue that
    reports they finished, hardened by the language's dialect where it has one."""
    dialect = DIALECTS.get(language)
    if dialect is not None:
        tag = hmac.new(_TAG_KEY, f"{language}\0{solution}\0{tests}".encode(),
                       hashlib.sha256).hexdigest()[:16]
        hardened = dialect.harden(solution, tests, tag)
        if hardened is not None:
            return hardened
    return appended.assemble(language, solution, tests)
