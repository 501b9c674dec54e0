"""Competitive-programming dataset rows as verifier items (plain dicts; the service validates).

Recognised, as the datasets store them:
- tests: `official_tests` (open-r1/codeforces), `test_cases` and `corner_cases` (CodeContests+,
  CodeContests-O: `{"input": {"stdin": ...}, "output": {"stdout": ...}}` or plain
  `{"input", "output"}`), IOI's `test_cases` by name (a dict, or a list beside `test_names`);
- a checker: `checker` (C++ source written against testlib, or a v1 checker object), or
  open-r1's `generated_checker` (Python, called `checker.py input answer output`, printing its
  verdict: the `cms` protocol);
- `interactor` (C++ testlib source or an object); a row with an `interaction_format` but no
  interactor cannot be judged and is refused;
- `input_mode: "file"` (Codeforces' input.txt/output.txt);
- limits: `time_limit` (seconds; milliseconds when over 100; CodeContests'
  `{"seconds", "nanos"}`), `memory_limit` (MB) or `memory_limit_bytes`;
- IOI subtasks: `subtasks`, each with `points` (or `score`) and `cases` (indices) or
  `test_names`; the item is then scored `"subtasks"`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CASE_KEYS = ("official_tests", "test_cases", "corner_cases")
JUDGE_KEYS = ("checker", "generated_checker", "interactor", "interaction_format")
ROW_KEYS = frozenset({*CASE_KEYS, *JUDGE_KEYS, "subtasks", "input_mode", "time_limit",
                      "memory_limit", "memory_limit_bytes", "test_names"})
MAX_TIME_S, MIN_MEMORY_MB, MAX_MEMORY_MB = 60.0, 16, 8192


def is_contest_row(row: Mapping[str, Any]) -> bool:
    """Whether a label is a contest row (cases under one of CASE_KEYS), not a v1 item."""
    return any(isinstance(row.get(key), list | dict) for key in CASE_KEYS) and not (
        {"kind", "type", "tests"} & row.keys())


def _text(value: Any, stream: str) -> str:
    if isinstance(value, Mapping):  # CodeContests+: {"stdin": ...} / {"stdout": ...}
        value = value.get(stream, "")
    if isinstance(value, list):
        return "\n".join(map(str, value)) + "\n"
    return "" if value is None else str(value)


def _case(case: Any) -> dict[str, str]:
    if isinstance(case, Mapping):
        return {"input": _text(case.get("input"), "stdin"),
                "output": _text(case.get("output"), "stdout")}
    if isinstance(case, list | tuple) and len(case) == 2:  # IOI: [input, output]
        return {"input": _text(case[0], "stdin"), "output": _text(case[1], "stdout")}
    raise ValueError(f"a test case must be an object or an [input, output] pair, got "
                     f"{str(case)[:60]!r}")


def _cases(row: Mapping[str, Any]) -> tuple[list[dict[str, str]], list[str]]:
    """The row's cases and, where they have them, their names (IOI)."""
    cases: list[dict[str, str]] = []
    names: list[str] = []
    for key in CASE_KEYS:
        value = row.get(key)
        if isinstance(value, Mapping):  # name -> case
            names += [str(name) for name in value]
            cases += [_case(case) for case in value.values()]
        elif isinstance(value, list):
            cases += [_case(case) for case in value]
    if not names and isinstance(row.get("test_names"), list):
        names = [str(name) for name in row["test_names"]]
    if not cases:
        raise ValueError("the row has no test cases")
    return cases, names


def _program(value: Any, language: str = "cpp", protocol: str | None = None) -> dict:
    program = dict(value) if isinstance(value, Mapping) else {"language": language,
                                                              "code": str(value)}
    if protocol and "protocol" not in program:
        program["protocol"] = protocol
    return program


def _seconds(value: Any) -> float | None:
    if isinstance(value, Mapping):  # CodeContests: {"seconds": 2, "nanos": 500000000}
        value = float(value.get("seconds") or 0) + float(value.get("nanos") or 0) / 1e9
    if not isinstance(value, int | float) or value <= 0:
        return None
    return min(MAX_TIME_S, value / 1000 if value > 100 else float(value))


def _limits(row: Mapping[str, Any]) -> dict[str, Any]:
    limits: dict[str, Any] = {}
    time_s = _seconds(row.get("time_limit"))
    if time_s:
        limits["time_s"] = time_s
    memory = row.get("memory_limit")
    if isinstance(row.get("memory_limit_bytes"), int | float):
        memory = row["memory_limit_bytes"] / 2**20
    if isinstance(memory, int | float) and memory > 0:
        limits["memory_mb"] = int(min(MAX_MEMORY_MB, max(MIN_MEMORY_MB, memory)))
    return limits


def _subtasks(subtasks: list, names: list[str], count: int) -> list[dict]:
    index = {name: i for i, name in enumerate(names)}
    groups = []
    for number, subtask in enumerate(subtasks):
        if "cases" in subtask:
            cases = list(subtask["cases"])
        else:
            missing = [name for name in subtask.get("test_names", []) if name not in index]
            if missing:
                raise ValueError(f"subtask {number}: no test named {missing[0]!r}")
            cases = [index[name] for name in subtask.get("test_names", [])]
        name = subtask.get("name") or subtask.get("subtask")
        groups.append({"name": None if name is None else str(name),
                       "points": float(subtask.get("points", subtask.get("score", 0))),
                       "cases": [c for c in cases if isinstance(c, int) and 0 <= c < count]
                       or cases})
    return groups


def contest_item(row: Mapping[str, Any]) -> dict[str, Any]:
    """The item fields (`tests`, `limits`, `scoring`) a contest row stands for."""
    cases, names = _cases(row)
    tests: dict[str, Any] = {"type": "stdio", "cases": cases}
    if row.get("interactor"):
        tests["interactor"] = _program(row["interactor"])
    elif row.get("interaction_format"):
        raise ValueError("an interactive problem (interaction_format) without an `interactor` "
                         "program cannot be judged")
    if row.get("checker"):
        tests["checker"] = _program(row["checker"])
    elif row.get("generated_checker"):
        tests["checker"] = _program(row["generated_checker"], "python", "cms")
    if row.get("input_mode") == "file" and "interactor" not in tests:
        tests["input_file"], tests["output_file"] = "input.txt", "output.txt"
    item: dict[str, Any] = {"tests": tests}
    if isinstance(row.get("subtasks"), list) and row["subtasks"]:
        tests["subtasks"] = _subtasks(row["subtasks"], names, len(cases))
        item["scoring"] = "subtasks"
    limits = _limits(row)
    if limits:
        item["limits"] = limits
    return item
