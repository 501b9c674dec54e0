"""Dataset rows as the RL frameworks label them, routed to the verifier's item kinds.

verl names a row's dataset in `data_source` (`openai/gsm8k`, `lighteval/MATH`, ...) and its
reference in `reward_model.ground_truth`; open-instruct's RLVR datasets (Tulu 3, IF-RLVR) name
the verifier in a `dataset` column (`gsm8k`, `math`, `ifeval`, `string_f1`, ...) and the
reference in `ground_truth`. `route(source, ground_truth)` turns such a pair into an item
without its response (a plain dict), or returns None when the source says nothing (then the
label is read as usual: a math answer, tests, or a whole item). Plain data only: the client
never imports the service.
"""

from __future__ import annotations

import ast
from typing import Any

from rlvr_contract import strict_json

# verl's math sources and open-instruct's math verifiers; a source starting with one of these
# (case ignored) is math: "lighteval/MATH-Hard", "math_dapo", "aime_2024", ...
MATH_SOURCES = ("openai/gsm8k", "gsm8k", "lighteval/math", "digitallearninggmbh/math",
                "huggingfaceh4/math", "math", "strict_math", "numina", "aime", "amc",
                "deepscaler", "simplerl", "olympiad", "omni-math", "minerva")
INSTRUCTION_SOURCES = ("ifeval", "google/ifeval", "allenai/rlvr-ifeval", "allenai/ifbench",
                       "allenai/if_multi_constraints", "if_multi_constraints")
# open-instruct's string verifiers: how each one reads and compares the answer.
TEXT_SOURCES: dict[str, dict[str, str]] = {
    "string_f1": {"match": "f1", "extract": "full"},
    "string_matcher": {"match": "normalized", "extract": "answer_tag"},
    "puzzle": {"match": "normalized", "extract": "full"},
}
GYM_PREFIXES = ("reasoning_gym/", "reasoning-gym/", "reasoning_gym:")


def route(source: Any, ground_truth: Any) -> dict[str, Any] | None:
    """The item (without response) a labelled row stands for, or None if `source` is silent."""
    if not isinstance(source, str) or not source or ground_truth is None:
        return None  # no label: the adapter says so
    name = source.strip().lower()
    if name.startswith(INSTRUCTION_SOURCES):
        return instructions_item(ground_truth)
    if name in TEXT_SOURCES:
        return {"kind": "text", "answer": _references(ground_truth), **TEXT_SOURCES[name]}
    if name.startswith(GYM_PREFIXES):
        return gym_item(name.split("/", 1)[-1].split(":", 1)[-1], ground_truth)
    if name.startswith(MATH_SOURCES):
        return {"kind": "math", "answer": str(ground_truth)}
    return None


def route_label(label: Any) -> Any:
    """A label that is itself `{"dataset": ..., "ground_truth": ...}` (one string column, as
    OpenRLHF carries), routed; any other label unchanged."""
    decoded = _decode(label)
    if isinstance(decoded, dict) and {"dataset", "ground_truth"} <= decoded.keys():
        return route(decoded["dataset"], decoded["ground_truth"]) or decoded["ground_truth"]
    return label


def instructions_item(ground_truth: Any) -> dict[str, Any]:
    """IFEval's `instruction_id_list`/`kwargs`, or open-instruct's `instruction_id`/`kwargs`
    (stored as a Python literal of a one-element list, or as JSON)."""
    constraints = _decode(ground_truth)
    if isinstance(constraints, list) and len(constraints) == 1:
        constraints = _decode(constraints[0])
    if not isinstance(constraints, dict):
        raise ValueError(f"instruction constraints must be a dict with instruction ids and "
                         f"kwargs, got {str(ground_truth)[:80]!r}")
    if "func_name" in constraints:
        raise ValueError("open-instruct's older `func_name` constraints (ifeval_old) are not "
                         "supported: use the IFEval shape (instruction_id + kwargs)")
    ids = constraints.get("instruction_id_list", constraints.get("instruction_id"))
    return {"kind": "instructions", "instruction_id_list": ids,
            "kwargs": constraints.get("kwargs") or []}


def gym_item(task: str, ground_truth: Any) -> dict[str, Any]:
    """A reasoning-gym row: the ground truth is the entry (question, answer, metadata), or
    `{"config", "seed", "index"}` (and optionally `entry`) from which the service makes it."""
    decoded = _decode(ground_truth)
    if not isinstance(decoded, dict):
        raise ValueError(f"reasoning_gym/{task}: the ground truth must be the entry or its "
                         f"seed and index, got {str(ground_truth)[:80]!r}")
    if "metadata" in decoded or "question" in decoded:
        return {"kind": "reasoning_gym", "task": task, "entry": decoded}
    return {"kind": "reasoning_gym", "task": task, **decoded}


def _references(ground_truth: Any) -> str | list[str]:
    decoded = _decode(ground_truth)
    if isinstance(decoded, list):
        return [str(reference) for reference in decoded]
    return str(ground_truth)


def _decode(value: Any) -> Any:
    """JSON, else a Python literal (how open-instruct stores constraints), else the value."""
    if not isinstance(value, str) or not value.lstrip().startswith(("{", "[")):
        return value
    try:
        return strict_json.loads(value)
    except ValueError:  # not JSON, or JSON the service refuses (NaN, too deep)
        pass
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return value
