"""The `verifier` command line: check a file locally, and helpful --help everywhere."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import zlib
from pathlib import Path

import pytest


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verifier", *args], capture_output=True,
                          text=True, timeout=300)


def test_check_scores_good_lines_and_names_bad_ones(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    lines = [
        json.dumps({"kind": "math", "id": "a", "response": "\\boxed{12}", "answer": "12"}),
        "{not json",
        json.dumps({"kind": "math", "id": "b", "response": "\\boxed{13}", "answer": "12"}),
        "",
        json.dumps({"kind": "math", "response": "no answer field"}),
        json.dumps({"kind": "math", "id": "c", "response": "so it is \\boxed{0.5}",
                    "answer": "\\frac{1}{2}"}),
    ]
    items.write_text("\n".join(lines) + "\n")
    out = tmp_path / "results.jsonl"
    done = run_cli("check", str(items), "-o", str(out), "--workers", "1")
    assert done.returncode == 1, done.stderr
    assert f"{items}:2: not valid JSON" in done.stderr
    assert f"{items}:5: math.answer: Field required" in done.stderr
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["line"], r["id"], r["status"]) for r in results] == [
        (1, "a", "correct"), (3, "b", "wrong"), (6, "c", "correct")]
    assert "3 items scored, 2 skipped" in done.stdout
    assert "correct" in done.stdout and "mean reward 0.6667" in done.stdout


def test_check_names_lines_the_service_would_refuse(tmp_path: Path) -> None:
    """An unknown language or an item over the budget is skipped by line, not a traceback."""
    sleepy = {"kind": "code", "response": "import time; time.sleep(60)", "limits": {"time_s": 60},
              "tests": {"type": "stdio", "cases": [{"input": "", "output": ""}] * 20}}
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join([
        json.dumps({"kind": "math", "response": "\\boxed{1}", "answer": "1"}),
        json.dumps(sleepy),
        json.dumps({**sleepy, "language": "cobol", "tests": {"type": "assert", "code": "1"}}),
    ]) + "\n")
    done = run_cli("check", str(items), "--workers", "1")
    assert done.returncode == 1, done.stderr
    assert f"{items}:2: limits.time_s: the item's cases and time limits add up to 1200 s" \
        in done.stderr, done.stderr
    assert f"{items}:3: language: unsupported 'cobol'" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert "1 items scored, 2 skipped" in done.stdout


def test_check_names_lines_of_data_no_parser_may_take(tmp_path: Path) -> None:
    """Nesting past the limit (in a line, or in a compressed test set), NaN, a lone surrogate
    in an argument, bytes that are not UTF-8: each line is skipped with its number and the
    field at fault, never a traceback; the other lines are scored."""
    deep = "[" * 5000 + "]" * 5000
    packed = base64.b64encode(zlib.compress(deep.encode())).decode()
    call = {"kind": "code", "response": "def f(x):\n    return x", "tests": {
        "type": "call", "fn_name": "f", "cases": [{"args": ["\ud800"], "expected": 1}]}}
    items = tmp_path / "items.jsonl"
    items.write_bytes(b"\n".join([
        json.dumps({"kind": "math", "response": "\\boxed{1}", "answer": "1"}).encode(),
        b'{"kind": "math", "response": "1", "answer": ' + deep.encode() + b"}",
        json.dumps({"kind": "code", "response": "print(1)",
                    "tests": {"type": "compressed", "data": packed}}).encode(),
        b'{"kind": "length", "response": "a b", "target": 1, "scale": NaN}',
        json.dumps(call).encode(),
        b'{"kind": "math", "response": "\xff\xfe", "answer": "1"}',
    ]) + b"\n")
    done = run_cli("check", str(items), "--workers", "1")
    assert done.returncode == 1, done.stderr
    said = {int(line.split(":")[1]): line for line in done.stderr.splitlines()
            if line.startswith(f"{items}:")}
    for line, field, words in ((2, "answer.0.0", "nested deeper than 100 levels"),
                               (3, "tests.data: 0.0", "nested deeper than 100 levels"),
                               (4, "scale", "NaN is not a JSON number"),
                               (5, "args", "a lone surrogate"), (6, "not UTF-8", "")):
        assert field in said[line] and words in said[line], (line, done.stderr)
    assert "Traceback" not in done.stderr
    assert "1 items scored, 5 skipped" in done.stdout


def test_check_clean_file_exits_zero(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"kind": "math", "response": "\\boxed{1}", "answer": "1"}) + "\n")
    done = run_cli("check", str(items), "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert "1 items scored" in done.stdout


def test_check_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    done = run_cli("check", str(tmp_path / "absent.jsonl"))
    assert done.returncode == 2
    assert "does not exist" in done.stderr


@pytest.mark.parametrize("command", [[], ["serve"], ["worker"], ["check"]])
def test_help_describes_every_command(command: list[str]) -> None:
    done = run_cli(*command, "--help")
    assert done.returncode == 0
    assert "Usage" in done.stdout
    if command == ["serve"]:
        assert "--broker" in done.stdout and "VERIFIER_WORKERS" in done.stdout
