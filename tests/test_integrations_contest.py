"""The adapters read competitive-programming rows as datasets store them: open-r1/codeforces
(official tests, generated checker, file input, limits), CodeContests+ (struct cases, a C++
checker, limits in ms), IOI (named tests, subtasks) and interactive rows; and score them on the
real service (TRL columns, verl ground truths, OpenRLHF JSON labels)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rl_client.integrations.openrlhf import reward_func
from rl_client.integrations.trl import make_reward_func
from rl_client.integrations.verl import compute_score
from rlvr_contract.contest_rows import contest_item
from rlvr_contract.labels import build_item

needs_jail = pytest.mark.skipif(shutil.which("bwrap") is None or shutil.which("g++") is None,
                                reason="needs bubblewrap and g++")
JUDGING = Path(__file__).parent / "judging"

# open-r1/codeforces: a Python checker called `checker.py input answer output`, printing 1/0.
GENERATED_CHECKER = """import sys
_, input_path, answer_path, output_path = sys.argv
n = int(open(input_path).read())
values = open(output_path).read().split()
ok = sorted(values) == sorted(map(str, range(1, n + 1))) and values[0] != "1"
print("checking...")
print(1 if ok else 0)
"""
CODEFORCES_ROW = {
    "id": "1/A", "time_limit": 2.0, "memory_limit": 256.0, "interaction_format": "",
    "input_mode": "file", "generated_checker": GENERATED_CHECKER,
    "official_tests": [{"input": "3\n", "output": "3 2 1\n"},
                       {"input": "5\n", "output": "5 4 3 2 1\n"}],
}
RIGHT = ("```python\nn = int(open('input.txt').read())\n"
         "open('output.txt', 'w').write(' '.join(map(str, [2, 1] + list(range(3, n + 1)))))\n```")
WRONG = "```python\nn = int(open('input.txt').read())\nprint(*range(1, n + 1))\n```"


def test_an_open_r1_codeforces_row() -> None:
    item = contest_item(CODEFORCES_ROW)
    assert item == {"tests": {
        "type": "stdio", "cases": CODEFORCES_ROW["official_tests"],
        "checker": {"language": "python", "code": GENERATED_CHECKER, "protocol": "cms"},
        "input_file": "input.txt", "output_file": "output.txt"},
        "limits": {"time_s": 2.0, "memory_mb": 256}}
    built = build_item(RIGHT, CODEFORCES_ROW)
    assert built.kind == "code" and built.tests.checker.protocol == "cms"


def test_a_code_contests_plus_row() -> None:
    row = {"checker": "#include \"testlib.h\"\nint main(){}",
           "time_limit": 1500, "memory_limit_bytes": 268435456,
           "test_cases": [{"input": {"stdin": "1 2\n"}, "output": {"stdout": "3\n"}}]}
    item = contest_item(row)
    assert item["tests"]["cases"] == [{"input": "1 2\n", "output": "3\n"}]
    assert item["tests"]["checker"] == {"language": "cpp", "code": row["checker"]}
    assert item["limits"] == {"time_s": 1.5, "memory_mb": 256}
    assert contest_item({**row, "time_limit": {"seconds": 2, "nanos": 500_000_000}}
                        )["limits"]["time_s"] == 2.5


def test_an_ioi_row_with_named_tests_and_subtasks() -> None:
    row = {"test_cases": {"01": ["1\n", "2\n"], "02": ["2\n", "4\n"], "03": ["3\n", "6\n"]},
           "subtasks": [{"subtask": "easy", "score": 30, "test_names": ["01"]},
                        {"subtask": "full", "score": 70, "test_names": ["01", "02", "03"]}]}
    item = contest_item(row)
    assert item["scoring"] == "subtasks"
    assert item["tests"]["subtasks"] == [{"name": "easy", "points": 30.0, "cases": [0]},
                                         {"name": "full", "points": 70.0, "cases": [0, 1, 2]}]
    with pytest.raises(ValueError, match="no test named '04'"):
        contest_item({**row, "subtasks": [{"score": 1, "test_names": ["04"]}]})


def test_an_interactive_row_needs_its_interactor() -> None:
    row = {"interaction_format": "Guess the number.", "official_tests": [{"input": "5\n"}]}
    with pytest.raises(ValueError, match="sample 3: cannot read the contest row: an "
                                         "interactive problem"):
        build_item("x", row, where="sample 3: ")
    interactive = contest_item({**row, "interactor": "int main(){}", "input_mode": "file"})
    assert interactive["tests"]["interactor"] == {"language": "cpp", "code": "int main(){}"}
    assert "input_file" not in interactive["tests"]


@needs_jail
def test_trl_scores_a_codeforces_dataset_by_its_columns(verifier_url: str) -> None:
    reward = make_reward_func(verifier_url, asynchronous=False)
    columns = {key: [value, value] for key, value in CODEFORCES_ROW.items()}
    assert reward(prompts=["p", "p"], completions=[RIGHT, WRONG], **columns) == [1.0, 0.0]


@needs_jail
def test_verl_scores_an_interactive_ground_truth(verifier_url: str) -> None:
    interactor = {"language": "cpp", "code": (JUDGING / "guess_interactor.cpp").read_text(),
                  "support_files": [{"name": "judge.h",
                                     "content": (JUDGING / "judge.h").read_text()}]}
    truth = {"interaction_format": "Guess a number in [1, 10^9].", "interactor": interactor,
             "official_tests": [{"input": "123456\n"}, {"input": "999999999\n"}]}
    search = f"```python\n{(JUDGING / 'binary_search.py').read_text()}```"
    right = compute_score("codeforces", search, truth, url=verifier_url)
    wrong = compute_score("codeforces", "```python\nprint('! 1', flush=True)\n```", truth,
                          url=verifier_url)
    assert (right["score"], wrong["score"]) == (1.0, 0.0)


@needs_jail
def test_openrlhf_scores_a_json_contest_label(verifier_url: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERIFIER_URL", verifier_url)
    label = json.dumps(CODEFORCES_ROW)
    out = reward_func([f"q{RIGHT}", f"q{WRONG}"], ["q", "q"], [label, label])
    assert out["rewards"].tolist() == [1.0, 0.0]
