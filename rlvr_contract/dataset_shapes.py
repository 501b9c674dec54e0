"""Tests as the public datasets store them, mapped onto the contract's formats (v1).

APPS, TACO and CodeContests store stdio or call tests as `inputs`/`outputs` lists; HumanEval a
`test` function and an `entry_point`; MBPP a `test_list` of asserts. Plain data in, plain data
out: the schemas validate what comes back (`CodeItem.tests`, `item_from_label`).
"""

from __future__ import annotations

from typing import Any


def tests_to_v1(raw: Any) -> Any:
    """Map the public dataset shapes onto the three v1 formats.

    APPS/TACO/CodeContests: {"inputs": [...], "outputs": [...], "fn_name"?}
    HumanEval: {"test": "...", "entry_point": "..."}; MBPP: {"test_list": [...]}.
    Anything with a `type` is already v1 and passes through untouched.
    """
    if not isinstance(raw, dict) or "type" in raw:
        return raw
    if "inputs" in raw and "outputs" in raw:
        inputs, outputs = raw["inputs"], raw["outputs"]
        if not isinstance(inputs, list) or not isinstance(outputs, list):
            return raw
        if len(inputs) != len(outputs):
            raise ValueError(
                f"tests.inputs has {len(inputs)} entries but tests.outputs has {len(outputs)}"
            )
        if raw.get("fn_name"):
            cases = []
            for args, expected in zip(inputs, outputs, strict=True):
                # APPS stores call outputs wrapped in a one-element list.
                if isinstance(expected, list) and len(expected) == 1:
                    expected = expected[0]
                cases.append({"args": args if isinstance(args, list) else [args],
                              "expected": expected})
            return {"type": "call", "fn_name": raw["fn_name"], "cases": cases}
        return {
            "type": "stdio",
            "cases": [{"input": _text(i), "output": _text(o)} for i, o in zip(inputs, outputs,
                                                                               strict=True)],
        }
    if "test" in raw and "entry_point" in raw:
        _strings(raw, "test", "entry_point")
        return {"type": "assert", "code": f"{raw['test']}\n\ncheck({raw['entry_point']})\n"}
    if "test_list" in raw:
        setup = raw.get("test_setup_code") or ""
        _strings({"test_setup_code": setup, **{f"test_list.{i}": t for i, t in enumerate(
            raw["test_list"] if isinstance(raw["test_list"], list) else [None])}})
        return {"type": "assert", "code": "\n".join([setup, *raw["test_list"]]) + "\n"}
    return raw


def _strings(fields: dict[str, Any], *names: str) -> None:
    for name in names or fields:
        if not isinstance(fields[name], str):
            raise ValueError(f"tests.{name} must be a string")


def looks_like_tests(data: dict[str, Any]) -> bool:
    """Bare tests as datasets store them (v1, APPS/TACO, HumanEval, MBPP), without an item."""
    return (data.get("type") in ("stdio", "assert", "call", "compressed")
            or {"inputs", "outputs"} <= data.keys() or "test_list" in data
            or {"test", "entry_point"} <= data.keys())


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(str(v) for v in value) + "\n"
    return str(value)
