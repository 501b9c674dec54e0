"""Dataset labels read as verifier items, and results read back as rewards.

RL frameworks carry one label per sample: a math reference answer, a whole item as JSON
(`{"kind": "code", "tests": ...}`), tests alone, or a competitive-programming row. The client's
adapters and the service's OpenRLHF route read them the same way, so this lives in the contract.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ValidationError

from rlvr_contract import strict_json
from rlvr_contract.contest_rows import contest_item, is_contest_row
from rlvr_contract.dataset_shapes import looks_like_tests
from rlvr_contract.schemas import AnyItem, CodeItem, MathItem, Result, Status, parse_item

_ITEM_KEYS = frozenset({"kind", "tests", "answer"})


def label_object(label: Any) -> dict[str, Any] | None:
    """A label that is a JSON object (a dict, or a string holding one), else None.

    The JSON is strict: NaN or nesting too deep is a ValueError saying where. Text that merely
    starts with a brace and is no JSON is no object (a math answer may look like `{1, 2}`).
    """
    if isinstance(label, dict):
        return label
    if not isinstance(label, str) or not label.lstrip().startswith("{"):
        return None
    try:
        decoded = strict_json.loads(label)
    except strict_json.JSONRefused as exc:
        raise ValueError(f"the label's JSON at {exc}") from None
    except ValueError:
        return None
    return decoded if isinstance(decoded, dict) else None


def item_from_label(response: str, label: str | dict[str, Any],
                    default_kind: Literal["math", "code"] = "math") -> AnyItem:
    """Build an item from a completion and a dataset label.

    RL frameworks often carry one string label per sample: a math reference answer, or a JSON
    string holding a whole item (`{"kind": "code", "tests": ...}`) so code tasks fit too.
    """
    decoded = label_object(label)
    data: dict[str, Any] | None = None
    if decoded is not None:
        if {"kind", "tests", "answer"} & decoded.keys():
            data = decoded
        elif looks_like_tests(decoded):
            data = {"kind": "code", "tests": decoded}
    if data is None:
        data = {"kind": "math", "answer": str(label)}
    data = {**data, "response": response}
    data.setdefault("kind", "code" if "tests" in data else default_kind)
    return parse_item(data)


def plain(value: Any) -> Any:
    """Numpy arrays/scalars (how verl and pandas hand over parquet columns) -> Python values."""
    if isinstance(value, Mapping):
        return {key: plain(inner) for key, inner in value.items()}
    if isinstance(value, list | tuple):
        return [plain(inner) for inner in value]
    if hasattr(value, "tolist"):
        return plain(value.tolist())
    return value


def build_item(response: str, label: Any, *, kind: str | None = None,
               language: str | None = None, where: str = "") -> MathItem | CodeItem:
    """One item from a completion and its dataset label.

    The label is a math reference answer, a whole item (dict or JSON string with `kind`,
    `tests` or `answer`), a competitive-programming row (see _contest.py), or, when `kind` is
    "code", the tests alone in any shape the schema accepts (v1, APPS/TACO `inputs`/`outputs`,
    HumanEval, MBPP; dict or JSON string).
    """
    label = plain(label)
    if label is None:
        raise ValueError(f"{where}no label (reference answer or tests) for this sample")
    try:
        decoded = label_object(label)
    except ValueError as exc:  # NaN or nesting too deep in the label's JSON
        raise ValueError(f"{where}{exc}") from None
    if decoded is not None and is_contest_row(decoded):  # Codeforces, CodeContests+, IOI rows
        try:
            label = decoded = {"kind": "code", **contest_item(decoded)}
        except (ValueError, TypeError, AttributeError) as exc:
            raise ValueError(f"{where}cannot read the contest row: {exc}") from exc
    if kind == "code" and decoded is not None and not (_ITEM_KEYS & decoded.keys()):
        label = {"kind": "code", "tests": decoded}
        decoded = label
    if kind == "code" and decoded is None:
        raise ValueError(f"{where}a code sample needs tests (a dict or JSON object), "
                         f"got {str(label)[:80]!r}")
    if language and decoded is not None and "language" not in decoded:
        label = {**decoded, "language": language}
    try:
        return item_from_label(response, label, default_kind="code" if kind == "code" else "math")
    except (ValidationError, ValueError) as exc:
        raise ValueError(f"{where}cannot build a verifier item from label "
                         f"{str(label)[:80]!r}: {exc}") from exc


def training_reward(result: Result, infra_error_score: float) -> float:
    """For frameworks that cannot mask a sample: an infra_error scores `infra_error_score`."""
    if result.status == Status.infra_error or result.reward is None:
        return infra_error_score
    return result.reward
