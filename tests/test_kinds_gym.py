"""Every registered reasoning-gym task: its gold answer scores 1.0 through the service's
checker after a JSON round trip of the entry (and when the service regenerates the entry from
seed and index), and a wrong answer scores less. Tasks whose entries carry no gold answer (many
answers are right) get one from their metadata or from a small solver here."""

from __future__ import annotations

import json
from collections import deque
from typing import Any

import pytest

rg = pytest.importorskip("reasoning_gym")

from rlvr_contract.item_kinds import ReasoningGymItem  # noqa: E402
from rlvr_contract.schemas import Status  # noqa: E402
from verifier.kinds import gym  # noqa: E402

SEED = 7
COMPOSITE = {"datasets": [{"name": "leg_counting", "weight": 1, "config": {}},
                          {"name": "arc_agi", "weight": 1, "config": {}}]}
TIMEOUT_S = 30.0  # the machine is shared: generous, this is about verdicts, not speed


def config_of(task: str) -> dict[str, Any]:
    return COMPOSITE if task == "composite" else {}


def rush_hour_solution(board_config: str) -> str:
    from reasoning_gym.games.rush_hour import Board

    start = Board(board_config)
    seen, queue = {start.board_str()}, deque([(start, "")])
    while queue:
        board, moves = queue.popleft()
        if board.solved:
            return moves.strip()
        for piece in range(len(board._pieces)):
            letter = chr(ord("A") + piece)
            for step in (-1, 1):
                following = Board(board_config)
                following.perform_moves(f"{moves} {letter}{'+' if step > 0 else '-'}1")
                key = following.board_str()
                if key not in seen:
                    seen.add(key)
                    queue.append((following, f"{moves} {letter}{'+' if step > 0 else '-'}1"))
    raise AssertionError("unsolvable board")


def boxnet_solution(state: dict[str, list[str]]) -> str:
    """One box at a time along the grid to its target's square, then onto the target."""
    boxes, targets = {}, {}
    for square, things in state.items():
        for thing in things:
            (boxes if thing.startswith("box_") else targets)[thing.split("_", 1)[1]] = square
    plan = []
    for colour, square in boxes.items():
        row, col = map(float, square.split("_"))
        goal_row, goal_col = map(float, targets[colour].split("_"))
        while (row, col) != (goal_row, goal_col):
            if row != goal_row:
                step = (row + (1 if goal_row > row else -1), col)
            else:
                step = (row, col + (1 if goal_col > col else -1))
            plan.append({f"Agent[{row}, {col}]": f"move(box_{colour}, square[{step[0]}, "
                                                  f"{step[1]}])"})
            row, col = step
        plan.append({f"Agent[{row}, {col}]": f"move(box_{colour}, target_{colour})"})
    return json.dumps(plan)


def gold(task: str, entry: dict[str, Any]) -> str:
    metadata = entry["metadata"]
    if entry["answer"] is not None:
        return str(entry["answer"])
    if task == "graph_color":
        return json.dumps(metadata["possible_answer"])
    if task == "propositional_logic":
        return metadata["example_answer"]
    if task == "rubiks_cube":
        return metadata["example_correct_answer"]
    if task == "rush_hour":
        return rush_hour_solution(metadata["board_config"])
    if task == "boxnet":
        return boxnet_solution(metadata["initial_state"])
    raise AssertionError(f"{task}: no gold answer and no way to make one")


def test_every_registered_task_is_served() -> None:
    assert len(gym.task_names()) >= 100


@pytest.mark.parametrize("task", gym.task_names())
def test_gold_scores_one_and_a_wrong_answer_less(task: str) -> None:
    dataset = gym._dataset(task, config_of(task), SEED)
    entry = json.loads(json.dumps(dataset[1], default=str))  # what a dataset file holds
    answer = gold(task, entry)
    by_entry = ReasoningGymItem(response=f"<think>…</think><answer>{answer}</answer>",
                                task=task, config=config_of(task), entry=entry)
    by_seed = ReasoningGymItem(response=f"<answer>{answer}</answer>", task=task,
                               config=config_of(task), seed=SEED, index=1)
    wrong = ReasoningGymItem(response="<answer>certainly not this 0 ~</answer>", task=task,
                             config=config_of(task), entry=entry)
    for item in (by_entry, by_seed, wrong):
        assert gym.admission_problem(item) is None
    for item in (by_entry, by_seed):
        result = gym.check_reasoning_gym(item, timeout_s=TIMEOUT_S)
        assert (result.status, result.reward) == (Status.correct, 1.0), result
    result = gym.check_reasoning_gym(wrong, timeout_s=TIMEOUT_S)
    assert result.status == Status.wrong and result.reward < 1.0, result


@pytest.mark.parametrize(("fields", "problem"), [
    ({"task": "no_such_task", "seed": 1, "index": 0}, "task: unknown reasoning-gym task"),
    ({"task": "leg_counting", "seed": 1, "index": 0, "config": {"legs": 3}},
     "config: TypeError: 'legs' is not a field of leg_counting's config"),
    ({"task": "composite", "seed": 1, "index": 0,
      "config": {"datasets": [{"name": "nope", "weight": 1, "config": {}}]}},
     "task: composite: unknown or nested task 'nope'"),
])
def test_refused_at_admission_with_a_reason(fields: dict, problem: str) -> None:
    item = ReasoningGymItem(response="<answer>1</answer>", **fields)
    assert (gym.admission_problem(item) or "").startswith(problem)


def test_no_answer_tag_is_no_answer() -> None:
    item = ReasoningGymItem(response="the answer is 4", task="basic_arithmetic", seed=1,
                            index=0)
    assert gym.check_reasoning_gym(item).status == Status.no_answer


def test_regenerating_past_the_dataset_is_infra_error_not_the_policys_fault() -> None:
    item = ReasoningGymItem(response="<answer>1</answer>", task="basic_arithmetic",
                            config={"size": 5}, seed=1, index=9)
    result = gym.check_reasoning_gym(item, timeout_s=TIMEOUT_S)
    assert result.status == Status.infra_error and result.reward is None


def test_an_empty_answer_tag_is_scored_by_the_task_and_no_tag_is_no_answer() -> None:
    """reasoning-gym scores "" (rubiks_cube gives 0.01 for the format); a response with no
    answer at all is no_answer, 0.0, where countdown's scorer would give None 0.01."""
    dataset = gym._dataset("rubiks_cube", {}, SEED)
    empty = gym.check_reasoning_gym(ReasoningGymItem(
        response="<think>hm</think><answer> </answer>", task="rubiks_cube", seed=SEED, index=1),
        timeout_s=TIMEOUT_S)
    assert empty.status == Status.wrong
    assert empty.reward == dataset.score_answer("", dataset[1]) == 0.01
    missing = gym.check_reasoning_gym(ReasoningGymItem(
        response="I give up", task="countdown", seed=SEED, index=1), timeout_s=TIMEOUT_S)
    assert (missing.status, missing.reward) == (Status.no_answer, 0.0)


@pytest.mark.parametrize("answer", ["nan", "NaN", "nan+nanj", "(nan)", "nan+1i", "inf"])
def test_an_answer_that_is_not_a_finite_number_scores_nothing(answer: str) -> None:
    """complex_arithmetic's scorer, `min(1.0, exp(-distance))`, gave "nan" 1.0 (min(1.0,
    nan) is 1.0): a policy answering "nan" everywhere earned full reward."""
    item = ReasoningGymItem(response=f"<answer>{answer}</answer>", task="complex_arithmetic",
                            seed=SEED, index=0)
    result = gym.check_reasoning_gym(item, timeout_s=TIMEOUT_S)
    assert (result.status, result.reward) == (Status.wrong, 0.0), result


@pytest.mark.parametrize("answer", ["3", "3.0 + 2.0i"])
def test_a_scorer_broken_on_the_entry_is_the_datasets_fault(answer: str) -> None:
    """An entry without the metadata its scorer reads failed every answer (`wrong`, 0.0): a
    dataset's fault charged to the policy. The scorer fails on the entry's own answer too, so
    it is `infra_error`, as a checker that fails on the reference is."""
    entry = {"question": "(1+2i) + 2", "answer": "3.0 + 2.0i", "metadata": {}}
    item = ReasoningGymItem(response=f"<answer>{answer}</answer>", task="complex_arithmetic",
                            entry=entry)
    result = gym.check_reasoning_gym(item, timeout_s=TIMEOUT_S)
    assert result.status == Status.infra_error and result.reward is None, result


def test_an_answer_that_makes_the_scorer_fail_is_wrong() -> None:
    """The scorer scores the entry's own answer, so its failure on this one is the answer's."""
    item = ReasoningGymItem(response="<answer>[[</answer>", task="prime_factorization",
                            seed=SEED, index=0)
    result = gym.check_reasoning_gym(item, timeout_s=TIMEOUT_S)
    assert (result.status, result.reward) == (Status.wrong, 0.0), result
    assert "the scorer failed on this answer" in result.detail["reason"], result


def test_complex_arithmetic_still_scores_its_gold_and_near_answers() -> None:
    dataset = gym._dataset("complex_arithmetic", {}, SEED)
    entry = dataset[0]
    near = complex(*entry["metadata"]["result"]) + 0.5
    for answer in (entry["answer"], f"{near.real}+{near.imag}i"):
        item = ReasoningGymItem(response=f"<answer>{answer}</answer>",
                                task="complex_arithmetic", seed=SEED, index=0)
        result = gym.check_reasoning_gym(item, timeout_s=TIMEOUT_S)
        assert result.reward == pytest.approx(dataset.score_answer(answer, entry)), answer
