"""Agreement with math-verify's own published cases (the shared folder's
`peer/math_verify_suite.json`), scored by the function every worker runs on a chunk.
`bench/math_agreement.py` reports the same through a real server, with every disagreement."""

from __future__ import annotations

import json

from tests.peer import peer_file
from verifier.service.chunk import process_chunk

GOAL = 0.95
# The machine running this may be shared and loaded: a generous deadline, so that a reference
# parsed slowly is not counted as an infra_error (this is about verdicts; hostile-input
# deadlines are tested in test_math_hostile.py).
TIMEOUT_S = 30.0


def test_agrees_with_math_verify_published_cases() -> None:
    cases = json.loads(peer_file("math_verify_suite.json").read_text())["cases"]
    results = process_chunk([{"kind": "math", "answer": case["answer"],
                              "response": case["response"]} for case in cases],
                            math_timeout_s=TIMEOUT_S)
    agree = sum((result["status"] == "correct") == case["correct"]
                for case, result in zip(cases, results, strict=True))
    infra_errors = [case for case, result in zip(cases, results, strict=True)
                    if result["status"] == "infra_error"]
    assert agree / len(cases) >= GOAL, f"{agree}/{len(cases)}"
    assert not infra_errors
