"""Competitive-programming judging through the real service and the real jail: checkers,
interactive problems, file I/O, subtasks, compressed and subsampled test sets, hostile judge
programs, and the admission checks (422) of the new shapes.

The checkers and the interactor of tests/judging/ are this project's own, written against
testlib's convention (argv, exit codes, appes result file) with a small header shipped as a
support file; those written against testlib's API get the real testlib.h (the peers' folder,
tests/peer.py), shipped the way a request ships it, and the real testlib checkers score every
row of the peers' cases.
"""

from __future__ import annotations

import base64
import gzip
import json
import pickle
import random
import shutil
import zlib
from pathlib import Path

import httpx
import pytest

from rlvr_contract.schemas import (
    CodeItem,
    CompressedTests,
    JudgeProgram,
    Limits,
    Status,
    StdioTests,
)
from tests.peer import peer_file
from tests.procs import start_server
from verifier.config import SettingsError, load_settings
from verifier.kinds.code import run_code_items, testset
from verifier.kinds.code.judges import RESULT, JudgeVerdict, prepare_judge
from verifier.kinds.code.languages import find_language
from verifier.kinds.code.limits import run_limits
from verifier.sandbox import RunOutcome

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None or shutil.which("g++") is None,
                                reason="needs bubblewrap and g++")

PROGRAMS = Path(__file__).parent / "judging"
JUDGE_H = {"name": "judge.h", "content": (PROGRAMS / "judge.h").read_text()}
FAST = {"time_s": 1.0, "memory_mb": 256}  # a judge program's limits in these tests


def source(name: str) -> str:
    return (PROGRAMS / name).read_text()


def judge_program(name: str, **fields: object) -> dict:
    return {"language": "cpp", "code": source(name), "support_files": [JUDGE_H],
            "limits": FAST, **fields}


def verify(url: str, items: list[dict], timeout: float = 300) -> list[dict]:
    response = httpx.post(f"{url}/v1/verify", json={"items": items}, timeout=timeout)
    assert response.status_code == 200, response.text
    return response.json()["results"]


def code(response: str, tests: dict, language: str = "python", **fields: object) -> dict:
    return {"kind": "code", "language": language, "response": response, "tests": tests,
            **fields}


def verdicts(results: list[dict]) -> list[tuple[str, float | None]]:
    return [(result["status"], result["reward"]) for result in results]


def assert_healthy(url: str) -> None:
    """The worker that ran something hostile still scores a plain item right."""
    item = code("a, b = map(int, input().split())\nprint(a + b)",
                {"type": "stdio", "cases": [{"input": "2 3\n", "output": "5\n"}]})
    assert verdicts(verify(url, [item])) == [("correct", 1.0)]


# --------------------------------------------------------------------------- checkers

PERMUTATION = {"type": "stdio", "checker": judge_program("permutation_checker.cpp"),
               "cases": [{"input": f"{n}\n", "output": " ".join(map(str, range(n, 0, -1)))}
                         for n in (2, 3, 7, 50)]}


def test_a_checker_accepts_every_right_answer_and_only_those(verifier_url: str) -> None:
    descending = "n = int(input())\nprint(*range(n, 0, -1))"
    rotated = "n = int(input())\nprint(*range(2, n + 1), 1)"
    shuffled = ("import random\nn = int(input())\np = list(range(1, n + 1))\n"
                "while p[0] == 1:\n    random.shuffle(p)\nprint(*p)")
    in_cpp = ("#include <cstdio>\nint main(){int n;std::scanf(\"%d\",&n);"
              "for(int i=n;i>=1;--i)std::printf(\"%d \",i);}")
    ascending = "n = int(input())\nprint(*range(1, n + 1))"
    repeated = "n = int(input())\nprint(*([2] * n))"
    short = "n = int(input())\nprint(*range(n, 1, -1))"
    results = verify(verifier_url, [
        code(descending, PERMUTATION), code(rotated, PERMUTATION), code(shuffled, PERMUTATION),
        code(in_cpp, PERMUTATION, language="cpp"), code(ascending, PERMUTATION),
        code(repeated, PERMUTATION), code(short, PERMUTATION)])
    assert verdicts(results) == [("correct", 1.0)] * 4 + [("wrong", 0.0)] * 3
    messages = [result["detail"]["tests"][-1].get("message") for result in results[4:]]
    assert messages == ["the permutation starts with 1", "not a permutation of 1..n",
                        "fewer than n numbers"]


def test_partial_points_follow_testlib_quitp_and_pc(verifier_url: str) -> None:
    tests = {"type": "stdio", "checker": judge_program("points_checker.cpp"),
             "cases": [{"input": "", "output": "10\n"}]}
    results = verify(verifier_url, [code(f"print({value})", tests, scoring="fraction")
                                    for value in (10, 9, 8, 3)])
    assert verdicts(results) == [("correct", 1.0), ("wrong", 0.5), ("wrong", 0.25),
                                 ("wrong", 0.0)]
    assert results[1]["detail"]["tests"][0]["score"] == 0.5
    assert results[1]["detail"]["tests"][0]["message"] == "one short"
    # max_points rescales testlib's points; scoring "all" gives nothing for a partial answer
    scaled = {**tests, "checker": judge_program("points_checker.cpp", max_points=2)}
    assert verdicts(verify(verifier_url, [code("print(9)", scaled, scoring="fraction"),
                                          code("print(9)", tests)])) == [("wrong", 0.25),
                                                                         ("wrong", 0.0)]


def real_testlib_h() -> dict:
    """The real testlib.h as a support file (skips the test where the peers' folder is not)."""
    return {"name": "testlib.h", "content": peer_file("testlib/testlib.h").read_text()}


def test_a_checker_written_against_testlibs_api(verifier_url: str) -> None:
    """registerTestlibCmd, inf/ouf/ans, quitf, quitp, ensuref, with the real testlib.h shipped
    beside it."""
    checker = {"language": "cpp", "code": source("sum_split_checker.cpp"), "limits": FAST,
               "support_files": [real_testlib_h()]}
    tests = {"type": "stdio", "checker": checker,
             "cases": [{"input": f"{n}\n", "output": f"0 {n}\n"} for n in (1, 10, 999)]}
    answers = {"n = int(input())\nprint(0, n)": ("correct", 1.0),
               "n = int(input())\nprint(n // 2, n - n // 2)": ("correct", 1.0),
               "n = int(input())\nprint(n, 0)": ("wrong", 0.5),  # quitp(0.5) on every test
               "n = int(input())\nprint(1, n)": ("wrong", 0.0),
               "n = int(input())\nprint(n)": ("wrong", 0.0),  # ouf runs out: _pe
               "n = int(input())\nprint(0, n, 0)": ("wrong", 0.0)}
    results = verify(verifier_url, [code(answer, tests, scoring="fraction")
                                    for answer in answers])
    assert verdicts(results) == list(answers.values())
    # testlib's quitp puts the points before the message
    assert results[2]["detail"]["tests"][0]["message"] == "0.5 the two numbers are out of order"
    assert [test["status"] for test in results[4]["detail"]["tests"]] == ["wrong"] * 3


def peer_checker_item(row: dict, folder: Path, header: dict) -> dict:
    """A row of the peers' testlib/cases.json as a checker item: a program printing the row's
    output, judged by the row's real checker against the row's answer."""
    checker = {"language": "cpp", "code": (folder / "checkers" / f"{row['checker']}.cpp"
                                           ).read_text(),
               "support_files": [header], "limits": FAST}
    return code(f"import sys\nsys.stdout.write({row['output']!r})",
                {"type": "stdio", "checker": checker,
                 "cases": [{"input": row["input"], "output": row["answer"]}]})


@pytest.mark.timeout(1800)  # 104 items, 14 checkers compiled in each of two jails
def test_every_testlib_case_eight_items_a_request(tmp_path: Path) -> None:
    """Every row of the peers' testlib/cases.json (the real testlib.h and checkers, each run
    directly by the peer) gets the verdict its exit code stands for, through the service, eight
    items a request, as a trainer sends them. No worker process dies on the way (the server's
    log says "retrying a chunk" when one does): a chunk carrying testlib.h four times is larger
    than the pipe to its worker, which uvloop leaves non-blocking, so its send failed half-way
    and was taken for a dead worker on most batches."""
    folder = peer_file("testlib")
    cases = json.loads((folder / "cases.json").read_text())
    rows, header = cases["checker_cases"], real_testlib_h()
    server, url = start_server(tmp_path, "--workers", "2")
    try:
        for start in range(0, len(rows), 8):
            batch = rows[start:start + 8]
            results = verify(url, [peer_checker_item(row, folder, header) for row in batch],
                             timeout=900)
            for row, result in zip(batch, results, strict=True):
                assert result["status"] == cases["status_of_exit"][str(row["exit"])] \
                    == row["expected"], (row, result["detail"])
    finally:
        server.stop()
    assert "retrying a chunk" not in server.output(), server.output()[-3000:]


def test_a_cms_checker_in_python_with_partial_scores(verifier_url: str) -> None:
    tests = {"type": "stdio", "cases": [{"input": "", "output": "a b c d\n"}],
             "checker": {"language": "python", "protocol": "cms",
                         "code": source("tokens_checker.py"), "limits": FAST}}
    results = verify(verifier_url, [code(f"print({text!r})", tests, scoring="fraction")
                                    for text in ("d c b a", "a b", "x")])
    assert verdicts(results) == [("correct", 1.0), ("wrong", 0.5), ("wrong", 0.0)]


def test_the_reference_answer_never_reaches_the_solution(verifier_url: str) -> None:
    secret = "reference-answer-7f3e21"
    snoop = ("import os\nfound = []\nfor root in ('/tmp', '/proc', '/dev/shm'):\n"
             "    for path, dirs, files in os.walk(root):\n"
             "        for name in files:\n"
             "            try:\n"
             f"                if b'{secret}' in open(os.path.join(path, name), 'rb').read():\n"
             "                    found.append(os.path.join(path, name))\n"
             "            except OSError:\n"
             "                pass\n"
             "print(*found if found else ['nothing'])")
    tests = {"type": "stdio", "cases": [{"input": "", "output": secret}],
             "checker": {"language": "python", "protocol": "cms", "limits": FAST,
                         "code": "import sys\nprint(1 if open(sys.argv[3]).read().split() == "
                                 "['nothing'] else 0)"}}
    assert verdicts(verify(verifier_url, [code(snoop, tests)])) == [("correct", 1.0)]


# --------------------------------------------------------------------------- interactive

GUESS = {"type": "stdio", "interactor": judge_program("guess_interactor.cpp"),
         "cases": [{"input": f"{hidden}\n"} for hidden in (1, 777_777, 10**9)]}
BINARY_SEARCH = source("binary_search.py")
BINARY_SEARCH_CPP = r"""
#include <cstdio>
int main() {
    long lo = 1, hi = 1000000000;
    char reply[4];
    while (true) {
        long mid = (lo + hi) / 2;
        std::printf("? %ld\n", mid);
        std::fflush(stdout);
        if (std::scanf("%3s", reply) != 1) return 1;
        if (reply[0] == '=') { std::printf("! %ld\n", mid); return 0; }
        if (reply[0] == '<') hi = mid - 1; else lo = mid + 1;
    }
}
"""


def test_an_interactive_guessing_game(verifier_url: str) -> None:
    linear = "for g in range(1, 10**9):\n    print('?', g, flush=True)\n" \
             "    if input() == '=':\n        print('!', g, flush=True)\n        break"
    waits = "input()"  # waits for the interactor, which waits for it: a deadlock
    results = verify(verifier_url, [
        code(BINARY_SEARCH, GUESS, limits=FAST), code(BINARY_SEARCH_CPP, GUESS, "cpp"),
        code("print('! 5', flush=True)", GUESS), code(linear, GUESS, limits=FAST),
        code(waits, GUESS, limits={"time_s": 0.5})])
    assert verdicts(results) == [("correct", 1.0), ("correct", 1.0), ("wrong", 0.0),
                                 ("wrong", 0.0), ("timeout", 0.0)]
    assert results[2]["detail"]["tests"][0]["message"] == "that is not the number"
    assert results[3]["detail"]["tests"][-1]["message"] == "more than 40 queries"


SPY = r"""
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <signal.h>
// Looks for the interactor's files (the hidden number 424242 is in its input) and processes,
// and tries to kill every process it can; then guesses 1 and reports on stderr.
static int found = 0;
static void scan(const char* dir) {
    DIR* d = opendir(dir);
    for (dirent* e; d != nullptr && (e = readdir(d)) != nullptr;) {
        if (e->d_name[0] == '.') continue;
        char path[512], data[64] = {0};
        std::snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (std::FILE* f = std::fopen(path, "r")) {
            std::fread(data, 1, sizeof data - 1, f);
            std::fclose(f);
            if (std::strstr(data, "424242")) { found++; std::fprintf(stderr, "found %s\n", path); }
        }
    }
    if (d) closedir(d);
}
int main() {
    scan("/tmp"); scan("/tmp/.."); scan("/dev/shm");
    DIR* d = opendir("/proc");
    for (dirent* e; d != nullptr && (e = readdir(d)) != nullptr;)
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9') std::fprintf(stderr, "pid %s\n", e->d_name);
    kill(-1, SIGKILL);
    std::printf("! %d\n", found ? 424242 : 1);
    std::fflush(stdout);
    std::fprintf(stderr, "found %d\n", found);
}
"""


def test_the_solution_cannot_see_or_touch_the_interactor(verifier_url: str) -> None:
    """The interactor's input holds the hidden number; the solution, in a directory and PID
    namespace of its own, finds neither the file nor the process, nor can it kill it."""
    tests = {**GUESS, "cases": [{"input": "424242\n"}]}
    [result] = verify(verifier_url, [code(SPY, tests, "cpp")])
    assert verdicts([result]) == [("wrong", 0.0)], result
    test = result["detail"]["tests"][0]
    assert test["message"] == "that is not the number"  # the interactor outlived kill(-1)
    assert test["stderr"].splitlines() == ["pid 1", "found 0"], test["stderr"]


def test_an_interactor_and_a_checker_together(verifier_url: str) -> None:
    """Codeforces' arrangement: the interactor writes a transcript (its output file), which
    the checker then judges against the answer."""
    checker = {"language": "python", "protocol": "cms", "limits": FAST,
               "code": "import sys\nprint(1 if open(sys.argv[3]).read().split() == "
                       "open(sys.argv[2]).read().split() else 0)"}
    tests = {**GUESS, "checker": checker,
             "cases": [{"input": "31337\n", "output": "31337\n"},
                       {"input": "5\n", "output": "6\n"}]}
    [result] = verify(verifier_url, [code(BINARY_SEARCH, tests, scoring="fraction")])
    assert verdicts([result]) == [("wrong", 0.5)]


# --------------------------------------------------------------------------- file I/O


def test_file_io(verifier_url: str) -> None:
    tests = {"type": "stdio", "input_file": "input.txt", "output_file": "output.txt",
             "cases": [{"input": "2 3\n", "output": "5\n"}, {"input": "40 2\n", "output": "42\n"}]}
    python = ("a, b = map(int, open('input.txt').read().split())\n"
              "open('output.txt', 'w').write(f'{a + b}\\n')")
    cpp = ("#include <cstdio>\nint main(){std::freopen(\"input.txt\",\"r\",stdin);"
           "std::freopen(\"output.txt\",\"w\",stdout);int a,b;std::scanf(\"%d%d\",&a,&b);"
           "std::printf(\"%d\\n\",a+b);}")
    stdio = "a, b = map(int, input().split())\nprint(a + b)"  # the input file is stdin too
    wrong_file = stdio + "\nopen('output.txt', 'w').write('0\\n')"  # the file wins
    results = verify(verifier_url, [code(python, tests), code(cpp, tests, "cpp"),
                                    code(stdio, tests), code(wrong_file, tests)])
    assert verdicts(results) == [("correct", 1.0)] * 3 + [("wrong", 0.0)]


def test_file_io_with_a_checker(verifier_url: str) -> None:
    tests = {**PERMUTATION, "input_file": "in.txt", "output_file": "out.txt"}
    solution = ("n = int(open('in.txt').read())\n"
                "open('out.txt', 'w').write(' '.join(map(str, range(n, 0, -1))))")
    assert verdicts(verify(verifier_url, [code(solution, tests)])) == [("correct", 1.0)]


# --------------------------------------------------------------------------- subtasks

SUBTASKS = {"type": "stdio",
            "cases": [{"input": f"{n}\n", "output": f"{2 * n}\n"}
                      for n in (1, 2, 50, 60, 1000, 2000)],
            "subtasks": [{"name": "small", "points": 20, "cases": [0, 1]},
                         {"name": "medium", "points": 30, "cases": [0, 2, 3]},
                         {"name": "large", "points": 50, "cases": [4, 5]}]}


def test_three_subtasks_scored_zero_partial_and_full(verifier_url: str) -> None:
    results = verify(verifier_url, [
        code(solution, SUBTASKS, scoring="subtasks") for solution in (
            "print(0)",
            "n = int(input())\nprint(2 * n if n < 100 else 0)",
            "print(2 * int(input()))")])
    assert verdicts(results) == [("wrong", 0.0), ("wrong", 0.5), ("correct", 1.0)]
    groups = results[1]["detail"]["subtasks"]
    assert [(g["name"], g["points"], g["score"]) for g in groups] == [
        ("small", 20, 20), ("medium", 30, 30), ("large", 50, 0)]
    # case 0 is shared by two subtasks and runs once; a lost subtask's other cases do not run
    assert [t["case"] for t in results[1]["detail"]["tests"]] == [0, 1, 2, 3, 4]
    assert [t["case"] for t in results[0]["detail"]["tests"]] == [0, 4]


def test_subtasks_take_the_lowest_partial_score(verifier_url: str) -> None:
    tests = {"type": "stdio", "checker": judge_program("points_checker.cpp"),
             "cases": [{"input": "a\n", "output": "10\n"}, {"input": "b\n", "output": "10\n"}],
             "subtasks": [{"points": 40, "cases": [0]}, {"points": 60, "cases": [0, 1]}]}
    solution = "print(10 if input() == 'a' else 9)"
    [result] = verify(verifier_url, [code(solution, tests, scoring="subtasks")])
    assert verdicts([result]) == [("wrong", pytest.approx((40 + 60 * 0.5) / 100))]


# --------------------------------------------------------------------------- big test sets


def compressed(tests: object, compress=gzip.compress, **fields: object) -> dict:
    data = compress(json.dumps(tests).encode())
    return {"type": "compressed", "data": base64.b64encode(data).decode(), **fields}


def test_a_compressed_50_mb_test_set(verifier_url: str) -> None:
    generator = random.Random(5)
    cases = []
    for _ in range(10):
        numbers = [generator.randrange(10**9) for _ in range(520_000)]
        cases.append({"input": " ".join(map(str, numbers)) + "\n",
                      "output": f"{sum(numbers)}\n"})
    assert sum(len(case["input"]) for case in cases) > 50_000_000
    tests = compressed({"type": "stdio", "cases": cases})
    solution = "import sys\nprint(sum(map(int, sys.stdin.buffer.read().split())))"
    wrong = "import sys\nprint(sum(map(int, sys.stdin.buffer.read().split())) + 1)"
    results = verify(verifier_url, [code(solution, tests, scoring="fraction",
                                         limits={"time_s": 10}),
                                    code(wrong, tests, limits={"time_s": 10})])
    assert verdicts(results) == [("correct", 1.0), ("wrong", 0.0)]
    assert results[0]["detail"]["total"] == 10


def test_compressed_sets_in_every_encoding_and_subsampling(verifier_url: str) -> None:
    cases = [{"input": f"{n}\n", "output": f"{n * n}\n"} for n in range(1, 31)]
    lcb = base64.b64encode(zlib.compress(pickle.dumps(json.dumps(
        [{**case, "testtype": "stdin"} for case in cases])))).decode()
    square = "print(int(input()) ** 2)"
    results = verify(verifier_url, [
        code(square, compressed(cases)),  # a bare list of cases
        code(square, compressed({"inputs": [c["input"] for c in cases],
                                 "outputs": [c["output"] for c in cases]}, zlib.compress)),
        code(square, {"type": "compressed", "data": lcb}),  # LiveCodeBench's format
        code(square, compressed(cases, max_tests=5, sample="random", seed=3)),
        code(square, {"type": "stdio", "cases": cases, "max_tests": 4, "sample": "longest"})])
    assert verdicts(results) == [("correct", 1.0)] * 5
    assert [r["detail"]["total"] for r in results] == [30, 30, 30, 5, 4]
    assert results[3]["detail"]["sampled"] == {"from": 30, "kept": 5, "by": "random", "seed": 3}
    assert results[4]["detail"]["sampled"] == {"from": 30, "kept": 4, "by": "longest"}


def test_a_chunk_decodes_one_compressed_test_set_at_a_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk's plain items are prepared before the first one runs; an item with a compressed
    test set is decoded only when its turn comes (each may be hundreds of megabytes)."""
    from verifier.kinds.code.runner import CodeRunner

    events: list[str] = []
    decode, score = testset.decode, CodeRunner.score
    monkeypatch.setattr(testset, "decode", lambda *a: events.append("decode") or decode(*a))
    monkeypatch.setattr(CodeRunner, "score",
                        lambda self, sub: events.append(sub.item.id) or score(self, sub))
    echo = "print(input())"
    items = [CodeItem(id=f"c{i}", language="python", response=f"{echo}  # {i}",
                      tests=compressed([{"input": f"{i}\n", "output": f"{i}\n"}]))
             for i in range(2)]
    items.append(CodeItem(id="plain", language="python", response=echo,
                          tests={"type": "stdio", "cases": [{"input": "1\n", "output": "1\n"}]}))
    results = run_code_items(items)
    assert [r.status for r in results] == [Status.correct] * 3
    assert events == ["decode", "c0", "decode", "c1", "plain"]


@pytest.mark.parametrize("held_bytes", [None, 1])
def test_one_run_items_go_as_a_wave_holding_bounded_output(
        monkeypatch: pytest.MonkeyPatch, held_bytes: int | None) -> None:
    """Assert items (one run each) are run back to back once all their requests are built, and
    judged once all have run; past WAVE_HELD_BYTES of output waiting, each is judged as soon
    as it has run. The verdicts are the same either way."""
    from verifier.kinds.code import runner
    from verifier.kinds.code.assert_tests import AssertTestRuns

    if held_bytes is not None:
        monkeypatch.setattr(runner, "WAVE_HELD_BYTES", held_bytes)
    events: list[str] = []
    for owner, name in ((AssertTestRuns, "request"), (AssertTestRuns, "judge"),
                        (runner.CodeRunner, "run_program")):
        method = getattr(owner, name)
        monkeypatch.setattr(owner, name, lambda self, sub, *rest, method=method, name=name:
                            events.append(f"{name} {sub.item.id}") or method(self, sub, *rest))
    tests = {"type": "assert", "code": "assert f(2) == 4\nassert f(3) == 9\n"}
    items = [CodeItem(id=str(i), language="python", response=body, tests=tests)
             for i, body in enumerate(["def f(x):\n    return x * x\n",
                                       "def f(x):\n    return x + x\n",
                                       "def f(x):\n    print(x)\n    return x ** 2\n"])]
    results = run_code_items(items)
    assert [r.status for r in results] == [Status.correct, Status.wrong, Status.correct]
    requests = ["request 0", "request 1", "request 2"]
    if held_bytes is None:
        assert events == [*requests, "run_program 0", "run_program 1", "run_program 2",
                          "judge 0", "judge 1", "judge 2"]
    else:
        assert events == [*requests, "run_program 0", "judge 0", "run_program 1", "judge 1",
                          "run_program 2", "judge 2"]


def test_subsampling_is_seeded_and_keeps_the_order() -> None:
    tests = StdioTests(cases=[{"input": "x" * n, "output": ""} for n in range(20)],
                       max_tests=6, sample="random", seed=11)
    first = testset.sampled_indices(tests)
    assert first == testset.sampled_indices(tests) and first == sorted(first)
    assert len(first) == 6
    assert testset.sampled_indices(tests.model_copy(update={"seed": 12})) != first
    longest = tests.model_copy(update={"sample": "longest"})
    assert testset.sampled_indices(longest) == list(range(14, 20))
    assert testset.sampled_indices(tests.model_copy(update={"sample": "first"})) == list(range(6))


# --------------------------------------------------------------------------- refused at the door


def bomb() -> dict:
    """300 MB of JSON whitespace, gzip-compressed to a few hundred kB."""
    return {"type": "compressed",
            "data": base64.b64encode(gzip.compress(b"[" + b" " * 300_000_000 + b"]")).decode()}


@pytest.mark.parametrize(("tests", "scoring", "field", "why"), [
    (bomb, "all", "tests.data", "decompresses to more than"),
    ({"type": "compressed", "data": "not base64!"}, "all", "tests.data", "not base64"),
    ({"type": "compressed", "data": base64.b64encode(zlib.compress(pickle.dumps(print)))
      .decode()}, "all", "tests.data", "are never loaded"),
    ({"type": "compressed", "data": base64.b64encode(b"plain").decode()}, "all", "tests.data",
     "neither gzip nor zlib"),
    ({"type": "stdio", "cases": [{"input": "", "output": ""}]}, "subtasks", "scoring",
     "needs tests.subtasks"),
    ({"type": "stdio", "cases": [{"input": ""}], "checker": {"language": "cobol", "code": "x"}},
     "all", "tests.checker.language", "unsupported"),
])
def test_bad_judging_shapes_are_a_422_naming_the_field(verifier_url: str, tests: object,
                                                        scoring: str, field: str,
                                                        why: str) -> None:
    tests = tests() if callable(tests) else tests
    response = httpx.post(f"{verifier_url}/v1/verify", timeout=120, json={"items": [
        code("print(1)", tests, scoring=scoring)]})
    assert response.status_code == 422, response.text
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "items", 0, *field.split(".")], error
    assert why in error["msg"], error


@pytest.mark.parametrize(("tests", "why"), [
    ({"type": "stdio", "cases": [{"input": ""}]}, "output"),
    ({"type": "stdio", "cases": [{"input": "", "output": ""}],
      "subtasks": [{"points": 1, "cases": [3]}]}, "no case 3"),
    ({"type": "stdio", "cases": [{"input": ""}], "interactor": {"code": "x"},
      "input_file": "in.txt"}, "not with an interactor"),
    ({"type": "stdio", "cases": [{"input": "", "output": ""}], "max_tests": 1,
      "subtasks": [{"points": 1, "cases": [0]}]}, "subsampling"),
    ({"type": "stdio", "cases": [{"input": "", "output": ""}], "input_file": "../x"},
     "input_file"),
])
def test_inconsistent_shapes_are_refused(verifier_url: str, tests: dict, why: str) -> None:
    response = httpx.post(f"{verifier_url}/v1/verify", timeout=60,
                          json={"items": [code("print(1)", tests)]})
    assert response.status_code == 422 and why in response.text, response.text


# --------------------------------------------------------------------------- hostile judges

HOSTILE = {
    "crash": "int main(){ volatile int* p = nullptr; *p = 1; }",
    "fail": '#include "judge.h"\nint main(int c, char** v){ judge::start(c, v); '
            'judge::failure("the answer file is wrong"); }',
    "spin": "int main(){ volatile unsigned long x = 0; for (;;) ++x; }",
    "sleep": "#include <unistd.h>\nint main(){ for (;;) sleep(100); }",
    "flood": "#include <cstdio>\nint main(){ for (;;) std::fputs(\"flood flood flood\\n\", "
             "stdout); }",
    "huge result": '#include <cstdio>\nint main(int c, char** v){ std::FILE* f = '
                   'std::fopen(v[4], "w"); for (;;) std::fputs("xxxxxxxxxxxxxxxx", f); }',
    "fork bomb": "#include <unistd.h>\nint main(){ for (;;) fork(); }",
    "odd status": "int main(){ return 42; }",
    "points without value": "int main(){ return 7; }",
    "does not compile": "int main( {",
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_checker_is_an_infra_error(verifier_url: str, kind: str) -> None:
    checker = {"language": "cpp", "code": HOSTILE[kind], "support_files": [JUDGE_H],
               "limits": {"time_s": 0.5, "memory_mb": 128}}
    tests = {"type": "stdio", "cases": [{"input": "1\n", "output": "1\n"}], "checker": checker}
    [result] = verify(verifier_url, [code("print(input())", tests)])
    assert (result["status"], result["reward"]) == ("infra_error", None), result
    assert "checker" in result["detail"]["error"]
    assert_healthy(verifier_url)


# An interactor's stdout is the solution's input: it floods its stderr instead.
HOSTILE_INTERACTOR = {**HOSTILE, "flood": "#include <cstdio>\nint main(){ for (;;) "
                                          "std::fputs(\"flood flood\\n\", stderr); }"}


@pytest.mark.parametrize("kind", ["crash", "fail", "spin", "sleep", "flood", "fork bomb",
                                  "odd status", "does not compile"])
def test_a_hostile_interactor_is_an_infra_error(verifier_url: str, kind: str) -> None:
    interactor = {"language": "cpp", "code": HOSTILE_INTERACTOR[kind],
                  "support_files": [JUDGE_H],
                  "limits": {"time_s": 0.5, "memory_mb": 128}}
    tests = {"type": "stdio", "cases": [{"input": "5\n"}], "interactor": interactor}
    [result] = verify(verifier_url, [code(BINARY_SEARCH, tests, limits={"time_s": 0.5})])
    assert (result["status"], result["reward"]) == ("infra_error", None), result
    assert "interactor" in result["detail"]["error"]
    assert_healthy(verifier_url)


# ------------------------------------------------------------------ judges an output breaks

# Judge programs that crash on a malformed output (a word where they parse a number, bytes that
# are not UTF-8) but work on the reference answer.
FRAGILE_CHECKERS = {
    "python": "import sys\nprint(1 if int(open(sys.argv[3]).read()) == "
              "int(open(sys.argv[2]).read()) else 0)",
    "cpp": "#include <cstdio>\n#include <cstdlib>\nint main(int c, char** v) {\n"
           "  long got, want;\n  if (std::fscanf(std::fopen(v[3], \"r\"), \"%ld\", &want) != 1)"
           " return 3;\n  if (std::fscanf(std::fopen(v[2], \"r\"), \"%ld\", &got) != 1) "
           "std::abort();\n  return got == want ? 0 : 1;\n}\n",
}
FRAGILE_INTERACTOR = (
    "#include <cstdio>\n#include <cstdlib>\n// asks for a + b; aborts on an answer that is no "
    "number\nint main(int c, char** v) {\n  long a, b, got;\n"
    "  if (std::fscanf(std::fopen(v[1], \"r\"), \"%ld %ld\", &a, &b) != 2) return 3;\n"
    "  std::printf(\"%ld %ld\\n\", a, b);\n  std::fflush(stdout);\n"
    "  if (std::scanf(\"%ld\", &got) != 1) std::abort();\n  return got == a + b ? 0 : 1;\n}\n")


@pytest.mark.parametrize("language", sorted(FRAGILE_CHECKERS))
def test_a_checker_an_output_crashes_judges_it_wrong(verifier_url: str, language: str) -> None:
    """The checker is run again on the reference answer: it accepts that, so the output made
    it fail (`wrong`, never a masked `infra_error`); one that fails on the reference answer
    too is broken (`infra_error`)."""
    checker = {"language": language, "code": FRAGILE_CHECKERS[language], "limits": FAST,
               **({"protocol": "cms"} if language == "python" else {})}
    tests = {"type": "stdio", "checker": checker, "cases": [{"input": "", "output": "42\n"}]}
    broken = {**tests, "cases": [{"input": "", "output": "forty-two\n"}]}
    results = verify(verifier_url, [
        code("print(42)", tests), code("print('forty-two')", tests),
        code("import sys\nsys.stdout.buffer.write(b'\\xff\\xfe4\\x802')", tests),
        code("print(42)", broken)])
    assert verdicts(results) == [("correct", 1.0), ("wrong", 0.0), ("wrong", 0.0),
                                 ("infra_error", None)], results
    assert "accepts the reference answer" in results[1]["detail"]["tests"][0]["message"]


def test_an_interactor_an_answer_crashes_judges_it_wrong(verifier_url: str) -> None:
    """The interactor is run again beside a stand-in that writes the reference answer: it
    accepts that, so the solution made it crash (`wrong`); one that crashes there too is
    broken (`infra_error`)."""
    interactor = {"language": "cpp", "code": FRAGILE_INTERACTOR, "limits": FAST}
    tests = {"type": "stdio", "interactor": interactor,
             "cases": [{"input": "1 2\n", "output": "3\n"}]}
    broken = {**tests, "cases": [{"input": "1 2\n", "output": "three\n"}]}
    solve = "a, b = map(int, input().split())\nprint(a + b, flush=True)"
    results = verify(verifier_url, [
        code(solve, tests), code("input()\nprint('three', flush=True)", tests),
        code(solve.replace("a + b", "a - b"), tests), code("input()\nprint('x')", broken)])
    assert verdicts(results) == [("correct", 1.0), ("wrong", 0.0), ("wrong", 0.0),
                                 ("infra_error", None)], results
    assert "accepts the reference answer" in results[1]["detail"]["tests"][0]["message"]


# --------------------------------------------------------------------------- verdict protocol


def outcome(exit_code: int, result: bytes = b"", stdout: bytes = b"") -> RunOutcome:
    return RunOutcome(exit_code=exit_code, cpu_s=0.01, files={RESULT: result} if result else {},
                      stdout=stdout)


def checker(protocol: str = "testlib", max_points: float = 1.0):  # noqa: ANN201
    cpp = find_language("cpp")
    return prepare_judge(JudgeProgram(code="x", protocol=protocol, max_points=max_points),
                         "checker", cpp, {"g++": "/usr/bin/g++"}, "main.cpp", "key",
                         Limits(time_s=1), 1 << 20, run_limits)


@pytest.mark.parametrize(("run", "expected"), [
    (outcome(0), JudgeVerdict(Status.correct, 1.0, "")),
    (outcome(1, b'<result outcome = "wrong-answer">no &amp; no</result>'),
     JudgeVerdict(Status.wrong, 0.0, "no & no")),
    (outcome(2), JudgeVerdict(Status.wrong, 0.0, "")),
    (outcome(7, b'<?xml version="1.0"?><result outcome = "points" points = "0.75">'
                b'0.75 ok</result>'), JudgeVerdict(Status.wrong, 0.75, "0.75 ok")),
    (outcome(7, b"0.3 plain result file"), JudgeVerdict(Status.wrong, 0.3,
                                                        "0.3 plain result file")),
    (outcome(7, stdout=b"1.0\n"), JudgeVerdict(Status.correct, 1.0, "")),
    (outcome(100, b'<result outcome = "partially-correct" pctype = "100">half</result>'),
     JudgeVerdict(Status.wrong, 0.5, "half")),
])
def test_testlib_verdicts(run: RunOutcome, expected: JudgeVerdict) -> None:
    assert checker().verdict(run) == expected


@pytest.mark.parametrize("run", [
    outcome(3, b'<result outcome = "fail">bad test</result>'),
    outcome(0, b'<result outcome = "wrong-answer">inconsistent</result>'),
    outcome(7),
    outcome(5),
    RunOutcome(signal=11, cpu_s=0.01),
    RunOutcome(exit_code=0, cpu_s=5.0),
    RunOutcome(exit_code=0, output_exceeded=True),
])
def test_testlib_failures(run: RunOutcome) -> None:
    assert checker().verdict(run).status is Status.infra_error


@pytest.mark.parametrize(("stdout", "status", "score"), [
    (b"1\n", Status.correct, 1.0), (b"0\n", Status.wrong, 0.0), (b"0.25 x", Status.wrong, 0.25),
    (b"", Status.infra_error, 0.0), (b"2", Status.infra_error, 0.0),
    (b"yes", Status.infra_error, 0.0),
])
def test_cms_verdicts(stdout: bytes, status: Status, score: float) -> None:
    said = checker("cms").verdict(RunOutcome(exit_code=0, cpu_s=0.01, stdout=stdout))
    assert (said.status, said.score) == (status, score)


def test_decoding_keeps_bounds_and_never_unpickles() -> None:
    data = base64.b64encode(gzip.compress(b"[" + b" " * 2_000_000 + b"]")).decode()
    with pytest.raises(testset.TestSetError, match="more than 1000000 bytes"):
        testset.decode(CompressedTests(data=data), 1_000_000)
    pickled = pickle.dumps(json.dumps({"inputs": ["1"], "outputs": ["1"]}), protocol=5)
    tests = testset.decode(CompressedTests(
        data=base64.b64encode(gzip.compress(pickled)).decode()), 1 << 20)
    assert tests.cases[0].output == "1"


# --------------------------------------------------------------------------- time multipliers


def test_a_language_time_multiplier_scales_the_problem_limit() -> None:
    """0.8 s of CPU against a 0.4 s limit: over it at factor 1, within it at factor 4."""
    spin = ("import time\nend = time.process_time() + 0.8\n"
            "while time.process_time() < end:\n    pass\nprint(1)")
    item = CodeItem(language="python", response=spin, limits={"time_s": 0.4},
                    tests={"type": "stdio", "cases": [{"input": "", "output": "1"}]})
    slow = run_code_items([item], load_settings(time_multipliers="python=1"))[0]
    scaled = run_code_items([item], load_settings(time_multipliers="py=4,java=2"))[0]
    assert (slow.status, scaled.status) == (Status.timeout, Status.correct)
    with pytest.raises(SettingsError, match="VERIFIER_TIME_MULTIPLIERS.*unknown language"):
        load_settings(time_multipliers="python=2,cobol=3")
    with pytest.raises(SettingsError, match="name=factor"):
        load_settings(time_multipliers="python")


def test_support_files_from_the_workers_directory(tmp_path: Path) -> None:
    """A checker that includes judge.h compiles without the request shipping it when the
    worker's VERIFIER_SUPPORT_FILES_DIR has it; a shipped file of that name wins."""
    (tmp_path / "judge.h").write_text(JUDGE_H["content"])
    checker = {"language": "cpp", "code": source("permutation_checker.cpp"), "limits": FAST}
    item = CodeItem(language="python", response="n = int(input())\nprint(*range(n, 0, -1))",
                    tests={**PERMUTATION, "checker": checker})
    without = run_code_items([item], load_settings())[0]
    assert without.status is Status.infra_error and "judge.h" in without.detail["error"]
    served = run_code_items([item], load_settings(support_files_dir=str(tmp_path)))[0]
    assert (served.status, served.reward) == (Status.correct, 1.0)
    broken = {**checker, "support_files": [{"name": "judge.h", "content": "#error shipped"}]}
    shipped = CodeItem(language="python", response=item.response,
                       tests={**PERMUTATION, "checker": broken})
    result = run_code_items([shipped], load_settings(support_files_dir=str(tmp_path)))[0]
    assert result.status is Status.infra_error and "shipped" in result.detail["error"]
    with pytest.raises(SettingsError, match="VERIFIER_SUPPORT_FILES_DIR.*not a directory"):
        load_settings(support_files_dir=str(tmp_path / "missing"))
