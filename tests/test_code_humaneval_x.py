"""HumanEval-X's own problems (THUDM/CodeGeeX's data, in shared/peer/humaneval-x) in C++, Java,
JavaScript and Go through the code kind, sent as a user would: the prompt and its canonical
solution as the response, the dataset's `test` as assert tests. Every canonical solution is
correct; the same solution with its result changed on every call (one element more or less, one
added, a negated bool, a character appended: `broken`) is never correct, whatever the test's
shape; and most are judged outside the solution's process (`detail.judged`).

The programs are scored in a spawn pool of two (each worker its own jail), four items a chunk,
as bench/code_throughput.py does: a Java or Go program costs a compile each.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from string import Template

import pytest

from rlvr_contract.schemas import AssertTests, CodeItem
from tests.peer import peer_file
from verifier.kinds.code import assert_tests, run_code_items
from verifier.kinds.code.dialects.go import TESTIFY_ASSERT as TESTIFY
from verifier.kinds.code.languages import GO_LIBRARIES

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")]

LANGUAGE = {"cpp": "cpp", "java": "java", "js": "javascript", "go": "go"}

# Canonical solutions that fail HumanEval-X's own harness (its `node test.js` counts any stderr
# as a failure), each checked here by running it so, outside the jail.
DEFECTS = {
    "JavaScript/112": "its canonical solution returns `(z, false)`, JavaScript's comma operator: "
                      "a bare boolean where the tests want [string, boolean]",
    "JavaScript/155": "its canonical solution counts no digit of 0 (the tests want [1, 0])",
    "JavaScript/162": "it requires the npm package js-md5, which Debian does not package",
}
# A canonical solution whose verdict is drawn per run, by its harness too: either is accepted.
NONDETERMINISTIC = {
    "Go/95": "its canonical solution reads only the first two keys of a map, whose order Go "
             "draws per run: its tests pass or fail at random",
}
# Fewest problems whose tests are plain calls, judged outside the solution's process (the rest
# loop, draw random inputs or compute an argument: in-process).
OUTSIDE_AT_LEAST = {"cpp": 156, "java": 152, "js": 157, "go": 154}

# The entry point's header: the last function the prompt opens.
HEADER = {
    "cpp": r"^(?P<ret>[A-Za-z_][\w:<>, ]*?)\s+(?P<name>\w+)\s*\((?P<params>[^)]*)\)\s*\{",
    "java": r"^\s*public\s+(?P<ret>[\w<>, ]+?)\s+(?P<name>\w+)\s*\((?P<params>[^)]*)\)\s*"
            r"(?P<throws>throws\s+\w+\s*)?\{",
    "go": r"^func\s+(?P<name>\w+)\s*\((?P<params>[^)]*)\)\s*(?P<ret>.*?)\s*\{[ \t]*$",
    "js": r"^const\s+(?P<name>\w+)\s*=\s*\((?P<params>[^)]*)\)\s*=>\s*\{",
}
# How the broken wrapper changes the canonical result `r`, by the entry point's return type.
CPP_CHANGE = {
    r"int|long long|float|double": "r += 1;",
    r"bool": "r = !r;",
    r"string": 'r += "x";',
    r"vector<.*>": "if (r.empty()) r.emplace_back(); else r.pop_back();",
    r"map<.*>": "if (r.empty()) r[{}] = 1; else r.erase(r.begin());",
    r"boost::any": "if (r.type() == typeid(int)) r = boost::any_cast<int>(r) + 1;"
                   " else if (r.type() == typeid(float)) r = boost::any_cast<float>(r) + 1;"
                   " else if (r.type() == typeid(std::string))"
                   " r = boost::any_cast<std::string>(r) + \"x\"; else r = std::string(\"x\");",
}
JAVA_CHANGE = {
    r"int|long|double": "r += 1;",
    r"boolean": "r = !r;",
    r"String": 'r += "x";',
    r"List<.*>": "r = new ArrayList<>(r); if (r.isEmpty()) r.add(null); "
                 "else r.remove(r.size() - 1);",
    r"Map<.*>": "r = new HashMap<>(r); if (r.isEmpty()) r.put(null, null); "
                "else r.remove(r.keySet().iterator().next());",
    r"Optional<Integer>": "r = r.isPresent() ? Optional.empty() : Optional.of(0);",
    r"Optional<.*>": 'r = r.isPresent() ? Optional.empty() : Optional.of("x");',
    r"Object": 'if (r instanceof Integer) r = (Integer) r + 1; else if (r instanceof Double) '
              'r = (Double) r + 1; else if (r instanceof String) r = r + "x"; else if (r '
              'instanceof List) { List<Object> l = new ArrayList<>((List<?>) r); l.add(null); '
              'r = l; } else r = "x";',
}
_GO_ANY = ("switch v := $r.(type) { case int: $r = v + 1; case float64: $r = v + 1; "
           'case string: $r = v + "x"; case nil: $r = -1; default: $r = nil }')
GO_CHANGE = {
    r"int|float64": "r += 1",
    r"bool": "r = !r",
    r"string": 'r += "x"',
    r"\[\](?P<elem>.+)": "if len(r) > 0 { r = r[:len(r)-1] } else { r = append(r, *new($elem)) }",
    r"\[2\](int|float64)": "r[0] += 1",
    r"interface\{\}": Template(_GO_ANY).substitute(r="r"),
    r"\[2\]interface\{\}": Template(_GO_ANY).substitute(r="r[0]"),
    r"map\[(?P<key>.+)\](?P<value>.+)": "if len(r) > 0 { for k := range r { delete(r, k); break } "
                                       "} else { r = $ret{*new($key): *new($value)} }",
}
JS_CHANGE = ("const __changed = (r) => typeof r === 'number' ? r + 1 : typeof r === 'boolean' ? "
             "!r : typeof r === 'string' ? r + 'x' : Array.isArray(r) ? (r.length ? "
             "r.slice(0, -1) : [0]) : r === null || r === undefined ? 'x' : {...r, __changed: 1}"
             ";\n")


def problems(language: str) -> list[dict]:
    path = peer_file(f"humaneval-x/humaneval_{language}.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def item(language: str, problem: dict, response: str, tests: str) -> dict:
    return {"kind": "code", "id": problem["task_id"], "language": LANGUAGE[language],
            "response": response, "tests": {"type": "assert", "code": tests}}


def canonical(language: str, problem: dict, with_setup: bool = True) -> dict:
    """The item a user sends: prompt and canonical solution; Go's tests after their
    `test_setup` (package clause and imports) or, `with_setup` false, alone."""
    tests = problem["test"]
    if language == "go" and with_setup:
        tests = problem["test_setup"] + tests
    return item(language, problem, problem["prompt"] + problem["canonical_solution"], tests)


def _top_level_split(params: str) -> list[str]:
    """Parameters split at the commas outside <...> and (...)."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(params):
        depth += (char in "<([") - (char in ">)]")
        if char == "," and depth == 0:
            parts.append(params[start:at])
            start = at + 1
    return [part.strip() for part in [*parts, params[start:]] if part.strip()]


def _change(table: dict[str, str], ret: str) -> str:
    for pattern, change in table.items():
        found = re.fullmatch(pattern, ret)
        if found:
            return Template(change).substitute(ret=ret, **found.groupdict())
    raise AssertionError(f"no change for the return type {ret!r}")


def broken(language: str, problem: dict) -> dict:
    """The canonical solution renamed, and in its place a function of the same signature that
    returns its result changed: right on no call."""
    prompt, body = problem["prompt"], problem["canonical_solution"]
    header = list(re.finditer(HEADER[language], prompt, re.M))[-1]
    name, params, ret = header["name"], header["params"], header.groupdict().get("ret")
    renamed = prompt[:header.start("name")] + f"{name}_canonical" + prompt[header.end("name"):]
    names = [re.findall(r"\w+", part)[0 if language == "go" else -1]
             for part in _top_level_split(params)]
    args = ", ".join(names)
    if language == "cpp":
        declared = prompt[:header.start()] + f"{ret} {name}({params});\n" + \
            renamed[header.start():]
        code = (f"{declared}{body}\n{ret} {name}({params}) {{\n    auto r = {name}_canonical("
                f"{args});\n    {_change(CPP_CHANGE, ret)}\n    return r;\n}}\n")
    elif language == "java":
        code = (renamed + body).rstrip()
        wrapper = (f"    public {ret} {name}({params}) {header['throws'] or ''}{{\n        {ret} r"
                   f" = {name}_canonical({args});\n        {_change(JAVA_CHANGE, ret)}\n"
                   "        return r;\n    }\n")
        code = code[:-1] + wrapper + "}\n"  # inside the class the canonical solution closes
    elif language == "go":
        code = (f"{renamed}{body}\nfunc {name}({params}) {ret} {{\n    r := {name}_canonical("
                f"{args})\n    {_change(GO_CHANGE, ret)}\n    return r\n}}\n")
    else:
        code = (f"{renamed}{body}\n{JS_CHANGE}const {name} = (...args) => "
                f"__changed({name}_canonical(...args));\n")
    tests = problem["test_setup"] + problem["test"] if language == "go" else problem["test"]
    return item(language, problem, code, tests)


def planned(raw: dict) -> str | None:
    """The program the jail compiles for an item of plain calls (None for in-process tests)."""
    tests = AssertTests(code=raw["tests"]["code"])
    calls = assert_tests.how_run(tests, raw["language"]).calls
    return None if calls is None else \
        assert_tests.program(raw["language"], raw["response"], tests, calls)


def _score(raw: list[dict]) -> list[tuple[str, str, str | None]]:
    return [(result.id, result.status.value, result.detail.get("judged"))
            for result in run_code_items([CodeItem.model_validate(r) for r in raw])]


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as workers:
        yield workers


def scored(pool: ProcessPoolExecutor, items: list[dict]) -> list[tuple[str, str, str | None]]:
    chunks = [items[at:at + 4] for at in range(0, len(items), 4)]  # short tails
    return [result for chunk in pool.map(_score, chunks) for result in chunk]


@pytest.mark.parametrize("language", ["cpp", "java", "js", "go"])
def test_canonical_solutions_are_correct_and_broken_ones_are_not(
        pool: ProcessPoolExecutor, language: str):
    dataset = problems(language)
    right = [canonical(language, problem) for problem in dataset]
    wrong = [broken(language, problem) for problem in dataset]
    # Go's tests alone, without their package clause and imports: where they are plain calls
    # the program is the same (so is the verdict); the others are run too.
    alone = []
    if language == "go":
        alone = [canonical(language, p, with_setup=False) for p in dataset]
        assert [planned(a) for a in alone] == [planned(r) for r in right]
        alone = [a for a in alone if planned(a) is None]
    results = scored(pool, right + wrong + alone)
    right_results, wrong_results = results[:len(right)], results[len(right):len(right) * 2]
    failed = {task: (status, judged) for task, status, judged in right_results
              if status != "correct"}
    assert set(failed) - set(NONDETERMINISTIC) == \
        {task for task, _, _ in right_results if task in DEFECTS}, failed
    passed = [task for task, status, _ in wrong_results if status == "correct"]
    assert passed == [], passed
    assert "infra_error" not in {status for _, status, _ in results}, results
    statuses = Counter(status for _, status, _ in wrong_results)
    assert "compile_error" not in statuses, statuses  # rejected for what they return
    judged = Counter(judged for _, _, judged in right_results)
    assert set(judged) <= {"outside", "in_process"}, judged
    assert judged["outside"] >= OUTSIDE_AT_LEAST[language], judged
    # Where an item is judged depends on its tests only, never on the solution.
    assert [j for _, _, j in wrong_results] == [j for _, _, j in right_results]
    ran_alone = {task for task, _, _ in results[len(right) * 2:]}
    assert [r for r in results[len(right) * 2:] if r[0] not in NONDETERMINISTIC] == \
        [r for r in right_results if r[0] in ran_alone and r[0] not in NONDETERMINISTIC]
    print(f"\n{language}: {len(right) - len(failed)}/{len(right)} correct, "
          f"{judged['outside']} judged outside, {len(wrong) - len(passed)}/{len(wrong)} broken "
          f"rejected ({dict(statuses)})")


def _run_as_harness(program: Path, argv: list[str], env: dict[str, str] | None = None,
                    times: int = 1) -> set[bool]:
    """Whether HumanEval-X's harness passed the program, on each of `times` runs: exit status
    0 and, for node, nothing on stderr."""
    outcomes = set()
    for _ in range(times):
        run = subprocess.run(argv, cwd=program.parent, env=env, capture_output=True, timeout=120)
        outcomes.add(run.returncode == 0 and not (argv[0] == "node" and run.stderr))
    return outcomes


def test_the_listed_defects_fail_humaneval_x_s_own_harness(tmp_path: Path):
    if shutil.which("node") is None:
        pytest.skip("node not installed")
    by_task = {problem["task_id"]: problem for problem in problems("js")}
    for task in DEFECTS:
        program = tmp_path / "test.js"  # as its harness writes it: prompt, solution, tests
        problem = by_task[task]
        program.write_text(problem["prompt"] + problem["canonical_solution"] + "\n" +
                           problem["test"])
        assert _run_as_harness(program, ["node", str(program)]) == {False}, task


GO_PACKAGES = ("math", "strings", "fmt", "strconv", "time", "bytes", "regexp", "sort",
               "math/rand", "crypto/md5")  # those its harness imports where the solution uses them


def test_the_nondeterministic_one_passes_and_fails_its_own_harness(tmp_path: Path):
    if shutil.which("go") is None or not Path(GO_LIBRARIES, "src", TESTIFY).is_dir():
        pytest.skip("go or testify not installed")
    problem = {p["task_id"]: p for p in problems("go")}["Go/95"]
    used = [f'"{package}"' for package in GO_PACKAGES
            if package.rsplit("/", 1)[-1] + "." in problem["canonical_solution"]]
    program = tmp_path / "main_test.go"  # as its harness writes it
    program.write_text(problem["test_setup"] + f"\nimport ({' '.join(used)})\n" +
                       problem["prompt"].replace(problem["import"], "") +
                       problem["canonical_solution"] + "\n" + problem["test"])
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GO111MODULE": "off",
           "CGO_ENABLED": "0", "GOPATH": GO_LIBRARIES, "GOCACHE": str(tmp_path / "cache")}
    subprocess.run(["go", "test", "-c", "-o", "main", program.name], cwd=tmp_path, env=env,
                   check=True, capture_output=True, timeout=300)
    assert _run_as_harness(program, [str(tmp_path / "main")], env, times=40) == {True, False}
