"""Python solutions compiled by the worker for the jail (verifier/kinds/code/bytecode.py):
only where that is exactly what the jail would compile, really loaded by the run instead of
the source, with the same verdicts either way."""

from __future__ import annotations
import __future__

import base64
import marshal
import re
import secrets
import shutil
from importlib.util import MAGIC_NUMBER

import pytest

from rlvr_contract.schemas import CodeItem, Limits
from tests.test_code_warm_cold import CORPUS
from verifier.config import Settings
from verifier.kinds.code import harness, process_settings, run_code_items
from verifier.kinds.code import runner as code_runner
from verifier.kinds.code.bytecode import (
    MAX_SOURCE_CHARS,
    SOLUTION_FLAGS,
    SOLUTION_PATH,
    jail_bytecode,
)
from verifier.kinds.code.languages import find_language
from verifier.kinds.code.limits import run_limits
from verifier.sandbox import RunRequest
from verifier.sandbox.backend import HARNESS_DIR, JAIL_ENV
from verifier.sandbox.factory import get_backend

needs_jail = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
MAGIC = MAGIC_NUMBER.hex()


def test_compiled_only_where_it_is_what_the_jail_would_compile() -> None:
    source = "def f(a: int) -> int:\n    return a + 1\nprint(f(1))\n"
    loaded = marshal.loads(base64.b64decode(jail_bytecode(source, MAGIC)))
    expected = compile(source, SOLUTION_PATH, "exec", flags=__future__.annotations.compiler_flag,
                       dont_inherit=True, optimize=0)
    assert loaded.co_code == expected.co_code and loaded.co_consts == expected.co_consts
    assert loaded.co_filename == SOLUTION_PATH
    assert loaded.co_flags & __future__.annotations.compiler_flag  # as the jail compiles
    for code, magic in ((source, None), (source, "0d0d0a0a"),  # another interpreter's
                        ("x" * (MAX_SOURCE_CHARS + 1), MAGIC),  # compiled in the jail
                        ("print(1 +", MAGIC), ("print(1)\0", MAGIC),  # its error told there
                        ("x = 1\nprint(x is 1)\n", MAGIC)):  # its SyntaxWarning shown there
        assert jail_bytecode(code, magic) is None, code[:40]


def test_the_file_name_and_flags_are_the_jails() -> None:
    contestant = (HARNESS_DIR / "contestant.py").read_text()
    assert re.search(rf'^SOLUTION_PATH = "{re.escape(SOLUTION_PATH)}"$', contestant, re.M)
    assert re.search(r"^SOLUTION_FLAGS = __future__.annotations.compiler_flag$", contestant,
                     re.M) and __future__.annotations.compiler_flag == SOLUTION_FLAGS


@needs_jail
def test_a_run_loads_the_workers_bytecode_instead_of_compiling() -> None:
    """The harness runs the code object it is given (here, on purpose, another program's than
    the source's), so the worker's compilation is what runs."""
    backend = get_backend(process_settings())
    run_code_items([CORPUS[0]])  # the jail is up: its magic is known
    assert backend.bytecode_magic() == MAGIC
    payload = {"code": "print('from the source')", "nonce": secrets.token_hex(16),
               "bytecode": jail_bytecode("print('from the bytecode')", MAGIC)}
    outcome = backend.run(RunRequest(
        argv=[backend.tools()["python"]], limits=run_limits(find_language("python"), Limits(),
                                                            1 << 20),
        env=dict(JAIL_ENV), proc=False, python_payload=harness.payload("stdio", payload),
        warm_python=True))
    assert outcome.stdout == b"from the bytecode\n", outcome


@needs_jail
def test_verdicts_are_the_same_compiled_here_or_in_the_jail(
        monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[bool] = []
    real = code_runner.jail_bytecode

    def counted(code: str, magic: str | None) -> str | None:
        found = real(code, magic)
        compiled.append(found is not None)
        return found

    run_code_items([CORPUS[0]])
    monkeypatch.setattr(code_runner, "jail_bytecode", counted)
    here = [(r.status.value, r.reward) for r in run_code_items(CORPUS)]
    assert sum(compiled) >= len(CORPUS) - 2, compiled  # all but the syntax error, warnings
    monkeypatch.setattr(code_runner, "jail_bytecode", lambda code, magic: None)
    assert [(r.status.value, r.reward) for r in run_code_items(CORPUS)] == here
    assert [(r.status.value, r.reward)
            for r in run_code_items(CORPUS, Settings(python_warm=False))] == here


@needs_jail
@pytest.mark.parametrize("warm", [True, False])
def test_a_solution_compiles_as_it_always_did_here(warm: bool) -> None:
    """Compiled here or in the jail: annotations not evaluated (LeetCode's `List[int]`
    without an import passes, as it always has here), a compile-time warning on the run's
    stderr, as python prints it."""
    leetcode = ("class Solution:\n    def double(self, nums: List[int]) -> List[int]:\n"
                "        return [2 * n for n in nums]\n")
    items = [
        CodeItem(language="python", response=leetcode + "print(Solution().double([1]))",
                 tests={"type": "stdio", "cases": [{"output": "[2]\n"}]}),
        CodeItem(language="python", response=leetcode,
                 tests={"type": "call", "fn_name": "double", "cases": [{"args": [[1]],
                                                                       "expected": [2]}]}),
        CodeItem(language="python", response=leetcode, tests={
            "type": "assert", "code": "v = Solution().double([1])\nassert v == [2]\n"
                                      "if v:\n    pass\n"}),
        CodeItem(language="python", response="x = 1\nprint(x is 1)",
                 tests={"type": "stdio", "cases": [{"output": "True\n"}]}),
    ]
    results = run_code_items(items, Settings(python_warm=warm))
    assert [r.status.value for r in results] == ["correct"] * 4, results
    assert "SyntaxWarning" in results[3].detail["tests"][0]["stderr"]
