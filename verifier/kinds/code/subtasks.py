"""Subtasks (IOI-style scoring, `scoring: "subtasks"`): groups of cases worth points.

A subtask earns its points times the lowest score among its cases: a case scores 1 when
correct, 0 when it fails, and a checker's partial score in between. Without partial scores
that is "a group scores when all its cases pass"; with them it is IOI's rule (the group's
score is its weakest case's). The reward is points earned over total points.

Cases run in subtask order, each once however many subtasks share it; once a subtask has a
case scoring 0 its remaining cases are not run for it (a later subtask sharing them still runs
them). No subtask with points means a reward of 1 only when every subtask is fully earned.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rlvr_contract.schemas import Subtask


@dataclass
class SubtaskScores:
    reward: float
    groups: list[dict]  # per subtask: name, points, earned score, cases run for it


def score_subtasks(subtasks: list[Subtask], run: Callable[[int], float | None]
                   ) -> SubtaskScores | None:
    """`run(index)` runs a case and returns its score in [0, 1], or None to stop scoring (the
    item is not scorable: a compile or infra error); then this returns None too."""
    scores: dict[int, float] = {}
    groups, full = [], []
    for number, subtask in enumerate(subtasks):
        lowest, ran = 1.0, []
        for index in subtask.cases:
            if index not in scores:
                score = run(index)
                if score is None:
                    return None
                scores[index] = score
            ran.append(index)
            lowest = min(lowest, scores[index])
            if lowest == 0.0:
                break
        groups.append({"name": subtask.name or str(number + 1), "points": subtask.points,
                       "score": round(subtask.points * lowest, 9), "cases": ran})
        full.append(lowest == 1.0)
    total = sum(subtask.points for subtask in subtasks)
    earned = sum(group["score"] for group in groups)
    reward = earned / total if total > 0 else float(all(full))
    return SubtaskScores(reward=min(1.0, reward), groups=groups)
