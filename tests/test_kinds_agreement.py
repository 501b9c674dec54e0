"""The instructions and reasoning-gym kinds give the peers' own verdicts on every peer case
(`shared/peer/ifeval_cases.json`: Google's IFEval tests, its published GPT-4 responses and
generated near misses, open-instruct's IFEvalG; `rgym_cases.json`: reasoning-gym's scores),
scored through a real service in batches, except exactly the cases listed under a deliberate
rule (`verifier/peer_agreement.py`), which docs/kinds.md's table lists too."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.peer import peer_file
from tests.procs import start_server
from verifier.peer_agreement import (
    DELIBERATE_RULES,
    agrees,
    case_fingerprint,
    case_item,
    deliberate_cases,
)

KINDS_PAGE = Path(__file__).resolve().parents[1] / "docs/kinds.md"
BATCH = 200
# About verdicts, on a shared machine: a deadline no scorer needs, so none ends as a timeout.
SERVICE_ENV = {"VERIFIER_MATH_TIMEOUT_S": "60"}


@pytest.fixture(scope="module")
def service_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server, url = start_server(tmp_path_factory.mktemp("agreement"), "--workers", "2",
                               env=SERVICE_ENV)
    yield url
    server.stop()


def differences(url: str, cases: list[dict]) -> dict[str, dict]:
    """The cases whose service verdict is not the peer's, by fingerprint."""
    different = {}
    with httpx.Client(timeout=1200) as client:
        for at in range(0, len(cases), BATCH):
            batch = cases[at:at + BATCH]
            response = client.post(f"{url}/v1/verify",
                                   json={"items": [case_item(case) for case in batch]})
            assert response.status_code == 200, response.text[:2000]
            for case, result in zip(batch, response.json()["results"], strict=True):
                assert result["status"] != "infra_error", (case, result)
                if not agrees(case, result):
                    different[case_fingerprint(case)] = {
                        "id": case.get("instruction_id", case.get("task")),
                        "response": case["response"][:200], "expected": case["expected"],
                        "reward": result["reward"], "status": result["status"]}
    return different


def check_suite(url: str, cases: list[dict]) -> None:
    listed = deliberate_cases()
    mine = {case_fingerprint(case) for case in cases} & set(listed)
    found = differences(url, cases)
    unexplained = {fp: case for fp, case in found.items() if fp not in listed}
    assert not unexplained, json.dumps(unexplained, indent=1, ensure_ascii=False)
    assert mine <= set(found), f"listed under a rule but agreeing now: {sorted(mine - set(found))}"


def test_every_ifeval_case_agrees_but_the_deliberate_ones(service_url: str) -> None:
    cases = json.loads(peer_file("ifeval_cases.json").read_text())["cases"]
    assert {case["source"] for case in cases} >= {"google:instructions_test.py",
                                                  "generated:ifevalg"}
    check_suite(service_url, cases)


def test_every_reasoning_gym_case_scores_as_reasoning_gym_but_the_deliberate_ones(
        service_url: str) -> None:
    pytest.importorskip("reasoning_gym")
    check_suite(service_url, json.loads(peer_file("rgym_cases.json").read_text())["cases"])


def test_every_listed_case_is_a_peer_case() -> None:
    fingerprints = {case_fingerprint(case)
                    for name in ("ifeval_cases.json", "rgym_cases.json")
                    for case in json.loads(peer_file(name).read_text())["cases"]}
    assert set(deliberate_cases()) <= fingerprints


def documented_rules() -> list[tuple[str, str, str]]:
    """(rule, peer, applies to) of each row of docs/kinds.md's table of deliberate rules."""
    text = KINDS_PAGE.read_text()
    table = text[text.index("| rule | peer | applies to |"):].split("\n\n")[0]
    rows = [line for line in table.splitlines()[2:] if line.startswith("|")]
    cells = [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]
    return [(rule, peer, applies) for rule, peer, applies, _ in cells]


def test_the_docs_list_every_deliberate_rule_and_no_other() -> None:
    expected = [(rule.name, rule.peer, ", ".join(f"`{one}`" for one in rule.applies_to))
                for rule in DELIBERATE_RULES]
    assert documented_rules() == expected


def test_a_rule_names_only_real_ids_and_tasks() -> None:
    from verifier.kinds.instructions import INSTRUCTION_IDS

    gym = pytest.importorskip("reasoning_gym.factory")
    known = {*INSTRUCTION_IDS, *gym.DATASETS, "*"}
    for rule in DELIBERATE_RULES:
        assert set(rule.applies_to) <= known, rule.name
        assert all(re.fullmatch(r"[0-9a-f]{12}", case) for case in rule.cases), rule.name
