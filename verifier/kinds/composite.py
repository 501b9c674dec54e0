"""Composite rewards: several graders of one response, combined by weights or a formula.

A formula is arithmetic over the parts' names: numbers, `+ - * /`, parentheses, unary minus,
`min(...)` and `max(...)`. It is parsed with Python's `ast` and walked node by node; nothing is
ever evaluated as code, and any other node is refused at admission, and so is nesting deeper than
MAX_FORMULA_DEPTH (evaluation recurses once per level). Division by zero gives 0.
"""

from __future__ import annotations

import ast
import math
import operator
import time
from collections.abc import Callable, Sequence
from typing import Any

from rlvr_contract.schemas import CompositeItem, Result, Status
from verifier.config import Settings
from verifier.kinds.kind import Cost, Kind, Kinds

_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: lambda a, b: a / b if b else 0.0}
_CALLS: dict[str, Callable[..., float]] = {"min": min, "max": max}
# Levels of operators and calls a formula may nest: `-` 990 times fits in its 1,000 characters
# and made the evaluation raise RecursionError (the item's infra_error) every time it was scored.
MAX_FORMULA_DEPTH = 100


def parse_formula(formula: str, names: list[str]) -> ast.expr:
    """The formula's tree; ValueError naming what is not allowed."""
    try:
        tree = ast.parse(formula.strip(), mode="eval").body
    except (SyntaxError, RecursionError, MemoryError, ValueError) as exc:
        raise ValueError(f"not an arithmetic expression: {exc}") from None
    if _depth(tree) > MAX_FORMULA_DEPTH:
        raise ValueError(f"nested deeper than {MAX_FORMULA_DEPTH} levels")
    # `min` and `max` are names only where they are called: a bare `max` is no part's score.
    callees = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id not in names and not (node.id in _CALLS and id(node) in callees):
                raise ValueError(f"unknown name {node.id!r}; parts are {', '.join(names)}")
        elif isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in _CALLS) or \
                    node.keywords or not node.args:
                raise ValueError("only min(...) and max(...) may be called")
        elif isinstance(node, ast.Constant):
            if type(node.value) not in (int, float):
                raise ValueError(f"only numbers, not {node.value!r}")
            if not _finite(node.value):  # evaluate() reads it as a float
                raise ValueError("only finite numbers within a float's range")
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY:
                raise ValueError("only + - * / are allowed")
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, ast.USub | ast.UAdd):
                raise ValueError("only unary minus and plus are allowed")
        elif not isinstance(node, ast.Load | ast.operator | ast.unaryop):
            raise ValueError(f"{type(node).__name__} is not allowed")
    return tree


def _depth(tree: ast.expr) -> int:
    """How many levels the tree nests, counted without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _finite(value: float) -> bool:
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an integer past a float's range
        return False


def evaluate(node: ast.expr, scores: dict[str, float]) -> float:
    if isinstance(node, ast.Constant):
        return float(node.value)
    if isinstance(node, ast.Name):
        return scores[node.id]
    if isinstance(node, ast.UnaryOp):
        value = evaluate(node.operand, scores)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](evaluate(node.left, scores), evaluate(node.right, scores))
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    return _CALLS[node.func.id](evaluate(arg, scores) for arg in node.args)


def admission_problem(item: CompositeItem, settings: Settings | None,
                      kinds: Kinds) -> str | None:
    """The first problem of a part ("graders.N.grader.field: why") or of the formula."""
    for i, part in enumerate(item.graders):
        problem = kinds.admission_problem(part.grader, settings)
        if problem:
            return f"graders.{i}.grader.{problem}"
    if item.formula is not None:
        try:
            parse_formula(item.formula, item.part_names())
        except ValueError as exc:
            return f"formula: {exc}"
    return None


def check_composites(items: Sequence[CompositeItem], timeout_s: float,
                     kinds: Kinds) -> list[Result]:
    """Score every part of every item in one batch (each kind gets all its parts at once, as
    it would alone), then combine each item's."""
    graders = [part.grader for item in items for part in item.graders]
    part_results = iter(kinds.check_items(graders, timeout_s))
    results = []
    for item in items:
        started = time.perf_counter()
        mine = [next(part_results) for _ in item.graders]
        result = combine(item, mine)
        result.elapsed_ms = round(sum(part.elapsed_ms or 0.0 for part in mine)
                                  + (time.perf_counter() - started) * 1000, 3)
        results.append(result)
    return results


def combine(item: CompositeItem, part_results: list[Result]) -> Result:
    """The item's result from its parts'. A part's infra_error makes the whole one (mask the
    sample); the status is `correct` only when every part is."""
    names = item.part_names()
    parts: dict[str, dict[str, Any]] = {}
    scores: dict[str, float] = {}
    for name, part, result in zip(names, item.graders, part_results, strict=True):
        parts[name] = {"reward": result.reward, "status": result.status.value,
                       "weight": part.weight, "detail": result.detail}
        if result.status == Status.infra_error:
            return Result.infra_error(item.id, f"part {name!r}: "
                                               f"{result.detail.get('error', 'infra_error')}",
                                      parts=parts)
        scores[name] = result.reward or 0.0
    if item.formula is None:
        reward = sum(part.weight * scores[name] for name, part in zip(names, item.graders,
                                                                      strict=True))
    else:
        reward = evaluate(parse_formula(item.formula, names), scores)
    if not math.isfinite(reward):
        reward = 0.0
    all_correct = all(p["status"] == Status.correct for p in parts.values())
    return Result(id=item.id, reward=reward,
                  status=Status.correct if all_correct else Status.wrong,
                  detail={"parts": parts, **({"formula": item.formula} if item.formula else {})})


def _cost(item: CompositeItem, settings: Settings, kinds: Kinds) -> Cost:
    """The parts' costs added up: a worker scores them one after another."""
    costs = [kinds.item_cost(part.grader, settings) for part in item.graders]
    return Cost(sum(cost.time_s for cost in costs), sum(cost.wall_s for cost in costs))


def _clamp(item: CompositeItem, settings: Settings, kinds: Kinds) -> None:
    for part in item.graders:
        kinds.clamp_item(part.grader, settings)


KIND = Kind("composite", CompositeItem, check=check_composites, admission=admission_problem,
            cost=_cost, clamp=_clamp)
