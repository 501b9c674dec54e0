"""What a calls dialect is: the part of one language's assert tests judged outside the
solution's process.

Most assert tests (MultiPL-E's, HumanEval-X's) are a list of checks of one shape: call a
function of the solution with literal arguments, compare what it returns with a literal. A
dialect recognises tests that are nothing but such checks and splits each into the call, which
runs in the jail, and the expected value with its comparison, which stay in the worker. The
jail then runs the solution followed by the dialect's *driver*: code that makes the calls, in
the tests' order, and writes the returned values on the run's channel (see values.py); the
worker compares them there (`Dialect.holds`). No expected value, no comparison and no test
code enter the solution's process, so nothing it does there (shadowing, macros, patching,
exiting early, forging records) earns more than returning the right values would.

A dialect (one module per language, registered in verifier/kinds/code/dialects/__init__.py) gives:

- `plan(tests) -> CallsPlan`: the sites (per check: its line in the tests, the source of the
  recorded call, and the `Check` the worker applies) and the driver's text. It raises
  NotPlainCalls for anything else (loops, helpers it does not know, computed values, an
  argument that is not a literal); then the whole item runs in-process (`harden`) and its
  result says so (`detail.judged: "in_process"`). Recognition reads the tests only, never
  the solution, and never raises anything but NotPlainCalls: tests are untrusted too.
  Expected values are parsed here, into the model of values.py, with the language's typing
  (a C++ `3.5f` is a float32); arguments are checked to be literals but copied verbatim, so
  the language converts them as the tests would have.
- `program(solution, plan) -> str`: the source the jail builds and runs: by default the
  solution then `plan.driver`. It must be the same text for the same solution and tests (the
  compiled program is cached by its source) and hold no expected value.
- `holds(check, value) -> bool`: the comparison with the language's value semantics (numbers
  across int and float as its `==` has them, floats exact unless the test has a tolerance,
  maps unordered, strings exact); never raises for any decoded value.
- `harden(solution, tests, tag) -> str` (optional): the in-process program for tests that are
  not plain calls, with the tests' primitives out of the solution's reach where the language
  allows it; `tag` is drawn per program (an HMAC of its source, see __init__.py), so names
  built from it are unknown to the solution yet the same for the same program. The default
  is the appended program of verifier/kinds/code/appended.py.

Tests for a dialect: its shapes recognised (and others refused) in tests/test_code_dialects*,
right programs passing and wrong ones failing through the real toolchain, and its red team.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

MAX_SITES = 10_000  # checks in one item's tests
MAX_NESTING = 64  # brackets in one literal


class NotPlainCalls(ValueError):
    """The tests are not (only) plain calls compared with literals: they run in-process."""


@dataclass(frozen=True)
class Check:
    """How the worker judges one recorded value.

    kind: "equal" (the value equals `expected`; `negated`: differs), "close" (|value -
    expected| below `tolerance`, or at most it when not `strict`), "truth" (the value is true
    in the language; `negated`: false). `how` names the dialect's flavour of equality (a
    JavaScript `===` or `assert.deepEqual`, a C++ helper comparing with a tolerance, ...).
    """

    kind: str
    expected: Any = None
    negated: bool = False
    tolerance: float = 0.0
    strict: bool = True
    how: str = ""


@dataclass(frozen=True)
class Site:
    line: int  # of the tests, for the failure's message
    call: str  # the source of the recorded expression, as the tests have it
    check: Check


@dataclass(frozen=True)
class CallsPlan:
    sites: tuple[Site, ...]
    driver: str  # follows the solution: makes the calls and records their values

    @property
    def weight(self) -> int:
        return 2 * len(self.driver) + 200 * len(self.sites)


class Dialect(ABC):
    """One language's plain-call tests (see the module doc)."""

    language: str

    @abstractmethod
    def plan(self, tests: str) -> CallsPlan:
        """The tests as calls and checks; raises NotPlainCalls for anything else."""

    def program(self, solution: str, plan: CallsPlan) -> str:
        return f"{solution}\n{plan.driver}"

    @abstractmethod
    def holds(self, check: Check, value: Any) -> bool:
        """Whether a recorded value passes its check, as the language would judge it."""

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        """The in-process program, hardened; None: the appended program (appended.py)."""
        return None


_NAME_KEY = secrets.token_bytes(32)


def drawn_name(solution: str, driver: str) -> str:
    """A name for what a prelude keeps before the solution runs, drawn per program (an HMAC of
    its text), so the solution can neither know it, to reassign it, nor shadow it."""
    tag = hmac.new(_NAME_KEY, f"{solution}\0{driver}".encode("utf-8", "surrogatepass"),
                   hashlib.sha256).hexdigest()[:16]
    return f"__verifier_{tag}"


def renamed_driver(solution: str, driver: str, placeholder: str) -> str:
    """The solution, then `driver` with `placeholder` (a module, namespace or class of its own)
    under a name drawn per program: one of that name the solution declares cannot stand in."""
    return f"{solution}\n{driver.replace(placeholder, drawn_name(solution, driver))}"


def sites_within_bounds(sites: list[Site]) -> tuple[Site, ...]:
    if not sites:
        raise NotPlainCalls("no checks")
    if len(sites) > MAX_SITES:
        raise NotPlainCalls(f"more than {MAX_SITES} checks")
    return tuple(sites)
