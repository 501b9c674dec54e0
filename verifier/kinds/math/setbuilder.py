"""Set-builder notation, as datasets write references: `\\{x \\mid -1 < x < 1\\}`,
`\\{x | x < \\frac32\\} - \\{-6\\}`, `\\{x \\in \\mathbb{R} : x \\ne 2\\}`,
`\\{x \\mid x < -1 \\text{ or } x > 1\\}`.

Two steps, one per process:
- `canonical` (string work, with the rest of `normalize`): every set-builder group spelled
  `\\{x \\mid …\\}` with its conditions joined by ` \\land ` and ` \\lor ` (a comma or "and" is
  both at once, "or" either), so that the rewrites meant for answer lists ("2 and 3" is the list
  2, 3) leave its conditions alone, and an "or" in it is not taken for a hedge.
- `expand` (in the helper process, with sympy): each group replaced by the set it describes,
  written as intervals the parser reads (`(-1, 1)`, `(-\\infty, -1) \\cup (1, \\infty)`), solving
  each condition in the group's one variable. A group whose set is not a union of intervals
  and points (`\\{(x, y) \\mid …\\}`, a condition in two variables) is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import islice
from typing import Any

from sympy import (
    Complement,
    EmptySet,
    FiniteSet,
    Integers,
    Intersection,
    Interval,
    Naturals,
    Reals,
    Set,
    Union,
    latex,
    oo,
)
from sympy.core.relational import Relational

from verifier.kinds.math.shape import split_top_level

# Points a set over the integers may list when written out.
MAX_POINTS = 64
MAX_GROUPS = 8

# Spacing a head may hold (`\\{x\\,|\\,x>5\\}`): whitespace and LaTeX's spacing commands.
_GAP = r"(?:\s|\\[,;! ]|\\q?quad\b)*"
_HEAD = re.compile(
    _GAP + r"(?P<variable>[A-Za-z])" + _GAP + r"(?:\\in\s*(?P<domain>\\mathbb\s*\{?\s*[RZNQ]\s*\}?|"
    r"\\(?:mathbf|text|mathrm)\s*\{\s*[RZNQ]\s*\}|[RZNQ]))?" + _GAP
    + r"(?:\\mid\b|\\vert\b|\||:|\\colon\b)" + _GAP)
# "or" and "and" between conditions, in words (English or Chinese) or as logic symbols.
_OR = re.compile(r"\s*(?:\\text\s*\{\s*(?:or|\u6216)\s*\}|(?<![A-Za-z\\])or(?![A-Za-z])|\u6216|"
                 r"\\lor\b|\\vee\b)\s*", re.IGNORECASE)
_AND = re.compile(r"\s*(?:\\text\s*\{\s*(?:and|\u4e14)\s*\}|(?<![A-Za-z\\])and(?![A-Za-z])|\u4e14|"
                  r"\\land\b|\\wedge\b)\s*", re.IGNORECASE)
_DOMAINS = {"R": Reals, "Z": Integers, "N": Naturals, "Q": Reals}
# A condition that only names the variable's domain: `x \\in \\mathbb{R}`, `n \\in \\mathbb{Z}`.
_MEMBERSHIP = re.compile(
    r"(?P<variable>[A-Za-z])\s*\\in\s*(?:\\mathbb|\\mathbf)?\s*\{?\s*(?P<letter>[RZNQ])\s*\}?")


def groups(text: str) -> list[tuple[int, int, re.Match[str]]]:
    """The set-builder groups of a text: (start of `\\{`, end of `\\}`, their head), outermost
    only, at most MAX_GROUPS. Linear: one scan of the escaped braces."""
    found: list[tuple[int, int, re.Match[str]]] = []
    depth, start = 0, 0
    for brace in re.finditer(r"\\[{}]", text):
        if brace.group() == "\\{":
            depth += 1
            if depth == 1:
                start = brace.end()
        elif depth:
            depth -= 1
            if depth == 0:
                head = _HEAD.match(text, start, brace.start())
                if head is not None:
                    found.append((start - 2, brace.end(), head))
                    if len(found) == MAX_GROUPS:
                        break
    return found


def canonical(text: str) -> str:
    """Each set-builder group as `\\{x \\mid A \\land B \\lor C\\}` (see the module docstring)."""
    if "\\{" not in text:
        return text
    pieces, position = [], 0
    for start, end, head in groups(text):
        condition = " \\land ".join(split_top_level(text[head.end():end - 2]))
        condition = _AND.sub(" \\\\land ", _OR.sub(" \\\\lor ", condition))
        domain = _domain_letter(head["domain"])
        where = f" \\in \\mathbb{{{domain}}}" if domain and domain != "R" else ""
        pieces.append(f"{text[position:start]}\\{{{head['variable']}{where} \\mid {condition}\\}}")
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def expand(text: str, parse: Callable[[str], Any]) -> str:
    """Each canonical set-builder group replaced by the intervals of its set; `parse` reads one
    condition (a relation) as sympy. Runs where sympy may: in the helper process."""
    if "\\mid" not in text:
        return text
    pieces, position = [], 0
    for start, end, head in groups(text):
        try:
            written = _written(text[head.end():end - 2], head, parse)
        except MemoryError:
            raise
        except Exception:  # sympy cannot solve it (NotImplementedError, TypeError, …)
            written = None
        if written is not None:
            pieces.append(text[position:start])
            pieces.append(written)
            position = end
    pieces.append(text[position:])
    return "".join(pieces)


def _domain_letter(domain: str | None) -> str | None:
    return re.sub(r"[^RZNQ]", "", domain) if domain else None


def _written(condition: str, head: re.Match[str], parse: Callable[[str], Any]) -> str | None:
    variable = head["variable"]
    domain = _DOMAINS.get(_domain_letter(head["domain"]) or "R", Reals)
    alternatives = []
    for alternative in condition.split("\\lor"):
        parts = []
        for part in alternative.split("\\land"):
            membership = _MEMBERSHIP.fullmatch(part.strip())
            if membership is not None and membership["variable"] == variable:
                domain = _DOMAINS[membership["letter"]]  # `x \\in \\mathbb{Z}` among the conditions
                continue
            relation = parse(part.strip())
            if not isinstance(relation, Relational) and not _is_and(relation):
                return None
            if {s.name for s in relation.free_symbols} != {variable}:
                return None
            parts.append(relation.as_set())
        if parts:
            alternatives.append(Intersection(*parts) if len(parts) > 1 else parts[0])
    described = Union(*alternatives) if alternatives else Reals
    if domain is not Reals:
        described = Intersection(described, domain)
    return _as_latex(described)


def _is_and(expr: Any) -> bool:
    return type(expr).__name__ == "And"


def _as_latex(described: Set) -> str | None:
    """A union of intervals and points in the spelling the parser reads; None for any other
    set (an infinite set of integers)."""
    if described is EmptySet:
        return "\\emptyset"
    if described == Reals:
        return "(-\\infty, \\infty)"
    if isinstance(described, Interval):
        left = "(" if described.left_open or described.start == -oo else "["
        right = ")" if described.right_open or described.end == oo else "]"
        return f"{left}{latex(described.start)}, {latex(described.end)}{right}"
    if isinstance(described, FiniteSet):
        return "\\{" + ", ".join(latex(point) for point in described.args) + "\\}"
    if isinstance(described, Union):
        parts = [_as_latex(part) for part in described.args]
        return None if None in parts else " \\cup ".join(parts)
    if isinstance(described, Complement):
        whole, removed = (_as_latex(part) for part in described.args)
        return None if whole is None or removed is None else f"{whole} \\setminus {removed}"
    if described.is_finite_set:
        points = list(islice(iter(described), MAX_POINTS + 1))
        if len(points) <= MAX_POINTS:
            return _as_latex(FiniteSet(*points))
    return None
