"""Agreement with every peer suite in the shared folder's `peer/`, through one real service.

Each peer case is scored by a real `verifier serve` on loopback, in batches, and compared
with the peer's own verdict: IFEval's and IFEvalG's cases (`ifeval_cases.json`, by source),
reasoning-gym's scores (`rgym_cases.json`), testlib's checkers run directly
(`testlib/cases.json`) and math-verify's test suite (`math_verify_suite.json`). A case decided
otherwise under one of the service's deliberate rules (`verifier/peer_agreement.py`) is
counted apart; every other difference is listed.

    python bench/kinds_agreement.py [--peer-dir ../shared/peer] [--show 20]

Prints one JSON object: per suite (and per IFEval source), cases, agreeing, deliberately
different, other differences, and those differences.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from verifier.local import LocalServer
from verifier.peer_agreement import agrees, case_fingerprint, case_item, deliberate_cases

Describe = Callable[[dict, dict], dict | None]  # a case and its result: the difference, or None
BATCH = 100
# This is about verdicts, on a machine that may be loaded: a deadline no scorer should need.
SERVICE_ENV = {"VERIFIER_MATH_TIMEOUT_S": "60"}


def default_peer_dir() -> Path | None:
    if os.environ.get("PEER_DIR"):
        return Path(os.environ["PEER_DIR"])
    here = Path(__file__).resolve().parents[1]
    return next((folder / "shared" / "peer" for folder in [here, *here.parents]
                 if (folder / "shared" / "peer").is_dir()), None)


def score(client: httpx.Client, url: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    for at in range(0, len(items), BATCH):
        response = client.post(f"{url}/v1/verify", json={"items": items[at:at + BATCH]})
        response.raise_for_status()
        results.extend(response.json()["results"])
    return results


def report(cases: list[dict], results: list[dict], describe: Describe, show: int,
           deliberate: Callable[[dict], bool] = lambda case: False) -> dict[str, Any]:
    """Counts for one suite, and its differences that no deliberate rule explains."""
    counts = {"cases": len(cases), "agree": 0, "deliberate": 0, "differ": 0}
    differences = []
    for case, result in zip(cases, results, strict=True):
        difference = describe(case, result)
        if difference is None:
            counts["agree"] += 1
        elif deliberate(case):
            counts["deliberate"] += 1
        else:
            counts["differ"] += 1
            differences.append(difference)
    counts["agreement"] = round((counts["agree"] + counts["deliberate"]) / max(1, len(cases)), 4)
    return {**counts, "differences": differences[:show]}


def listed(case: dict) -> bool:
    return case_fingerprint(case) in deliberate_cases()


def kind_difference(case: dict, result: dict) -> dict | None:
    if agrees(case, result):
        return None
    return {"case": case_fingerprint(case), "id": case.get("instruction_id", case.get("task")),
            "expected": case["expected"], "got": result["reward"], "status": result["status"],
            "either": bool(case.get("either")), "response": case["response"][:120]}


def ifeval_and_gym(client: httpx.Client, url: str, folder: Path, show: int) -> dict[str, Any]:
    suites: dict[str, Any] = {}
    ifeval = json.loads((folder / "ifeval_cases.json").read_text())["cases"]
    results = score(client, url, [case_item(case) for case in ifeval])
    for source in sorted({case["source"] for case in ifeval}):
        picked = [(c, r) for c, r in zip(ifeval, results, strict=True) if c["source"] == source]
        suites[f"ifeval_cases.json:{source}"] = report(
            [c for c, _ in picked], [r for _, r in picked], kind_difference, show, listed)
    gym = json.loads((folder / "rgym_cases.json").read_text())["cases"]
    suites["rgym_cases.json"] = report(
        gym, score(client, url, [case_item(case) for case in gym]), kind_difference, show,
        listed)
    return suites


def testlib(client: httpx.Client, url: str, folder: Path, show: int) -> dict[str, Any]:
    """Each standard checker's case as a code item: a program printing the output the checker
    was run on, judged by that checker (compiled with testlib.h) against the answer."""
    data = json.loads((folder / "testlib" / "cases.json").read_text())
    header = (folder / "testlib" / "testlib.h").read_text()
    items = []
    for case in data["checker_cases"]:
        program = f"import sys\nsys.stdout.buffer.write({case['output'].encode()!r})\n"
        checker = (folder / "testlib" / "checkers" / f"{case['checker']}.cpp").read_text()
        items.append({"kind": "code", "language": "python", "response": program,
                      "tests": {"type": "stdio",
                                "cases": [{"input": case["input"], "output": case["answer"]}],
                                "checker": {"language": "cpp", "code": checker,
                                            "support_files": [{"name": "testlib.h",
                                                               "content": header}]}}})
    results = score(client, url, items)

    def difference(case: dict, result: dict) -> dict | None:
        if result["status"] == case["expected"]:
            return None
        return {"checker": case["checker"], "expected": case["expected"],
                "got": result["status"], "output": case["output"][:80]}

    return report(data["checker_cases"], results, difference, show)


def math_verify(client: httpx.Client, url: str, folder: Path, show: int) -> dict[str, Any]:
    cases = json.loads((folder / "math_verify_suite.json").read_text())["cases"]
    results = score(client, url, [{"kind": "math", "answer": case["answer"],
                                   "response": case["response"]} for case in cases])

    def difference(case: dict, result: dict) -> dict | None:
        if (result["status"] == "correct") == case["correct"]:
            return None
        return {"answer": case["answer"], "response": case["response"][:80],
                "expected": case["correct"], "got": result["status"]}

    return report(cases, results, difference, show)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-dir", type=Path, default=default_peer_dir())
    parser.add_argument("--show", type=int, default=20, help="differences listed per suite")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.peer_dir is None or not args.peer_dir.is_dir():
        parser.error("no peer folder (shared/peer) found; pass --peer-dir or set PEER_DIR")
    folder: Path = args.peer_dir
    with LocalServer("--workers", str(args.workers), env=SERVICE_ENV) as service, \
            httpx.Client(timeout=1800) as client:
        suites = {}
        if (folder / "ifeval_cases.json").exists() and (folder / "rgym_cases.json").exists():
            suites.update(ifeval_and_gym(client, service.url, folder, args.show))
        if (folder / "testlib" / "cases.json").exists():
            suites["testlib/cases.json"] = testlib(client, service.url, folder, args.show)
        if (folder / "math_verify_suite.json").exists():
            suites["math_verify_suite.json"] = math_verify(client, service.url, folder,
                                                           args.show)
    print(json.dumps(suites, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
