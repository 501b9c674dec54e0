"""MultiPL-E's own HumanEval tests (peer/multipl-e: its translators' output, see its README
row) read by each language's calls dialect: the share of problems judged outside the
solution's process must not fall below what it is now, so a regression in a parser shows.

What stays in-process, and why (none is a plain call of literals the dialect could read):
tests the translator broke (a raw newline in a string literal in JavaScript and Haskell,
Haskell's `(-1).0` and `[.0]`, OCaml's `[.0]`, Kotlin's `undefined`), strings that
interpolate (`"#$A^d"` in Kotlin, PHP, Ruby, Perl's `"@this1..."` and `"#A@c"`), a C++ and C#
list of `std::any`/`object`, and C#'s histogram check of two calls joined by `&&`."""

from __future__ import annotations

import json

import pytest

from tests.peer import peer_file
from verifier.kinds.code import asserts
from verifier.kinds.code.dialects import calls_plan

# MultiPL-E's file extension -> (our language, problems, problems judged outside at least)
FLOORS = {
    "cpp": ("cpp", 161, 160), "cs": ("csharp", 158, 156), "d": ("d", 156, 156),
    "go": ("go", 154, 154), "hs": ("haskell", 155, 152), "java": ("java", 158, 158),
    "js": ("javascript", 161, 160), "kt": ("kotlin", 157, 151), "lua": ("lua", 161, 161),
    "ml": ("ocaml", 154, 153), "php": ("php", 161, 160), "pl": ("perl", 161, 159),
    "r": ("r", 161, 161), "rb": ("ruby", 161, 160), "rkt": ("racket", 161, 161),
    "rs": ("rust", 155, 155), "scala": ("scala", 160, 160), "sh": ("bash", 158, 158),
    "ts": ("typescript", 159, 159),
}


@pytest.mark.parametrize("extension", sorted(FLOORS))
def test_multipl_e_humaneval_tests_stay_judged_outside(extension: str):
    language, problems, floor = FLOORS[extension]
    found = json.loads(peer_file(f"multipl-e/humaneval-{extension}.json").read_text())
    assert len(found) == problems
    inside = [problem["name"] for problem in found
              if calls_plan(language, problem["tests"]) is None]
    assert len(found) - len(inside) >= floor, inside


def test_multipl_e_python_tests_are_only_calls():
    # Python's `check` through MultiPL-E's `test_check` wrapper: one process, no judge.
    found = json.loads(peer_file("multipl-e/humaneval-py.json").read_text())
    assert len(found) == 161
    assert [problem["name"] for problem in found
            if asserts.plan(problem["tests"]).mode != "calls"] == []
