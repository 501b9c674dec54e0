"""reasoning-gym tasks, scored by each task's own scorer (the optional `[gym]` extra).

An item brings its entry (after a JSON round trip), or the seed and index from which the
service regenerates it: `create_dataset(task, seed=seed, **config)[index]`. Building the
dataset, generating and scoring run task code on request data, so all run in the deadline
helper (`verifier/service/deadline.py`); building or generating that runs out of time is the
dataset's problem (`infra_error`), a scorer that does is the response's (`timeout`). A scorer
that fails on an answer is tried on the entry's own answer: failing there too, it is broken on
this entry (`infra_error`); else the answer made it fail (`wrong`).

What a JSON round trip breaks, and how it is mended (checked for every registered task by
`tests/test_kinds_gym.py`):
- arc_agi, rearc: grids are tuples of tuples and the scorer compares with `==`; JSON turns them
  into lists, so gold answers scored 0.05. Grids in the metadata are turned back into tuples.
- composite: its config holds `DatasetSpec` objects; from JSON they are dicts, which are
  turned back into specs (each sub-task's name is checked at admission like a task's).
- game_of_life_halting: its scorer accepts any non-empty answer (`bool(answer)`); replaced by
  one that wants the right True or False (`SCORER_FIXES`).
- complex_arithmetic: its scorer gives "nan" 1.0 (`min(1.0, nan)`); an answer that is not a
  finite number scores 0.0 (`SCORER_FIXES`).
- boxnet, graph_color, propositional_logic, rubiks_cube, rush_hour: many answers are right, so
  the entry's `answer` is null and the scorer checks the proposed solution itself; nothing to
  mend (their metadata carry an example solution, or a solver finds one; see the test).
"""

from __future__ import annotations

import cmath
import dataclasses
import functools
import json
import math
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from rlvr_contract.item_kinds import ReasoningGymItem
from rlvr_contract.schemas import Result, Status
from verifier.config import Settings, setting_default
from verifier.kinds.answer_region import extract, strip_thinking, tag_contents
from verifier.kinds.kind import Cost, Kind, Kinds, one_at_a_time, settings_free
from verifier.service.deadline import DeadlineHelper, deadline_helper

INSTALL_HINT = "install the service with the [gym] extra (pip install 'rlvr-verifier[gym]')"
# Datasets and regenerated entries kept per helper process; a GRPO group shares one entry.
DATASET_CACHE_SIZE = 64
_GRID_KEYS = ("input", "output")
ENTRY_CACHE_SIZE = 4_096
_datasets: OrderedDict[str, Any] = OrderedDict()
_entries: OrderedDict[str, dict[str, Any]] = OrderedDict()


def available() -> bool:
    try:
        import reasoning_gym  # noqa: F401
    except ImportError:
        return False
    return True


def task_names() -> list[str]:
    """The registered tasks, or [] when reasoning-gym is not installed."""
    if not available():
        return []
    from reasoning_gym.factory import DATASETS

    return sorted(DATASETS)


def admission_problem(item: ReasoningGymItem) -> str | None:
    """Why the service cannot score this item ("field.path: why"), or None. In-process: it
    builds the task's config dataclass (field names and its own `validate`), nothing more."""
    if not available():
        return f"task: reasoning-gym is not installed on this service; {INSTALL_HINT}"
    try:
        _config(item.task, item.config, item.seed)
    except UnknownTask as exc:
        return f"task: {exc}"
    except Exception as exc:  # the dataclass or its validate() refusing a value
        return f"config: {type(exc).__name__}: {exc}"[:500]
    return None


def check_reasoning_gym(item: ReasoningGymItem,
                        timeout_s: float = setting_default("math_timeout_s")) -> Result:
    """Score one item. Never raises; returns within `timeout_s` (plus the generation deadline,
    VERIFIER_GYM_GENERATE_TIMEOUT_S, when the entry is regenerated)."""
    helper = deadline_helper()
    entry = item.entry.model_dump() if item.entry is not None else None
    request = (item.task, item.config, item.seed, item.index, entry)
    prepared = helper.call(prepare, request, _generate_timeout_s(), warm_up=_import_gym)
    if prepared.how != "ok":
        return Result.infra_error(item.id, f"building the task's dataset failed: "
                                           f"{prepared.how}: {prepared.message}")
    outcome = helper.call(score, (*request, item.response, item.extract), timeout_s,
                          warm_up=_import_gym)
    if outcome.how == "timeout":
        return Result(id=item.id, reward=0.0, status=Status.timeout,
                      detail={"reason": f"the scorer {outcome.message}"})
    if outcome.how != "ok":
        broken = _fails_on_its_own_answer(helper, request, timeout_s)
        if broken:
            return Result.infra_error(item.id, f"the scorer fails on the entry's own answer "
                                               f"too: {broken}")
        return Result(id=item.id, reward=0.0, status=Status.wrong,
                      detail={"reason": f"the scorer failed on this answer: {outcome.how}: "
                                        f"{outcome.message}"})
    if outcome.value is None:
        return Result(id=item.id, reward=0.0, status=Status.no_answer,
                      detail={"reason": f"no answer found ({item.extract})"})
    answer, reward = outcome.value
    status = Status.correct if reward >= 1.0 else Status.wrong
    return Result(id=item.id, reward=reward, status=status,
                  detail={"task": item.task, "extracted": answer[:200]})


def _fails_on_its_own_answer(helper: DeadlineHelper, request: tuple[Any, ...],
                             timeout_s: float) -> str | None:
    """How the scorer fails on the entry's own answer, or None when it scores it (or that
    cannot be told: no gold answer, the entry not rebuilt, a scorer slow on it). The entry is
    prepared again first, under its own deadline: the answer may have cost the helper."""
    prepared = helper.call(prepare, request, _generate_timeout_s(), warm_up=_import_gym)
    if prepared.how != "ok":
        return None
    on_gold = helper.call(score_gold, request, timeout_s, warm_up=_import_gym)
    if on_gold.how in ("ok", "timeout"):
        return None
    return f"{on_gold.how}: {on_gold.message}"


def read_answer(response: str, how: str) -> str | None:
    """The answer to score, None when there is none. An answer tag that is there but empty is
    the answer "" (reasoning-gym scores it: some tasks give 0.01 for the format alone)."""
    answer = extract(response, how)
    if answer is None and how == "answer_tag":
        text = strip_thinking(response)
        if text is not None and tag_contents(text, "answer"):
            return ""
    return answer


class UnknownTask(ValueError):
    pass


@functools.cache
def _generate_timeout_s() -> float:
    return Settings().gym_generate_timeout_s


def _import_gym() -> None:
    import reasoning_gym  # noqa: F401  (heavy: dozens of task modules)


def _config(task: str, config: dict[str, Any], seed: int | None) -> Any:
    """The task's config dataclass, validated; composite's dataset specs rebuilt from dicts."""
    from reasoning_gym.composite import DatasetSpec
    from reasoning_gym.factory import DATASETS

    if task not in DATASETS:
        raise UnknownTask(f"unknown reasoning-gym task {task!r} ({len(DATASETS)} tasks "
                          "registered; GET /v1/info lists them)")
    values = dict(config)
    if seed is not None:
        values["seed"] = seed
    if task == "composite" and isinstance(values.get("datasets"), list):
        specs = []
        for spec in values["datasets"]:
            if isinstance(spec, dict):
                spec = DatasetSpec(**spec)
            if spec.name not in DATASETS or spec.name == "composite":
                raise UnknownTask(f"composite: unknown or nested task {spec.name!r}")
            specs.append(spec)
        values["datasets"] = specs
    config_cls = DATASETS[task][1]
    names = {field.name for field in dataclasses.fields(config_cls)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise TypeError(f"{unknown[0]!r} is not a field of {task}'s config "
                        f"(fields: {', '.join(sorted(names))})")
    made = config_cls(**values)
    if hasattr(made, "validate"):
        made.validate()
    return made


def _dataset(task: str, config: dict[str, Any], seed: int | None) -> Any:
    """Runs in the helper: the dataset object, cached across the helper's items."""
    from reasoning_gym.factory import DATASETS

    key = json.dumps([task, config, seed], sort_keys=True, default=str)
    dataset = _datasets.get(key)
    if dataset is None:
        dataset = DATASETS[task][0](config=_config(task, config, seed))
        _datasets[key] = dataset
        if len(_datasets) > DATASET_CACHE_SIZE:
            _datasets.popitem(last=False)
    _datasets.move_to_end(key)
    return dataset


def prepare(task: str, config: dict[str, Any], seed: int | None, index: int | None,
            entry: dict[str, Any] | None) -> bool:
    """Runs in the helper: build the dataset (some load data files) and generate the entry,
    so that `score` finds them cached: the dataset's cost gets its own deadline."""
    _dataset(task, config, seed)
    _entry(task, config, seed, index, entry)
    return True


def score(task: str, config: dict[str, Any], seed: int | None, index: int | None,
          entry: dict[str, Any] | None, response: str, how: str) -> tuple[str, float] | None:
    """Runs in the helper, so reading the answer is under the deadline too: the answer the
    response gives (`how` it is extracted) and the task's score for it; None if it gives none."""
    answer = read_answer(response, how)
    if answer is None:
        return None
    return answer, _scored(task, config, seed, index, entry, answer)


def score_gold(task: str, config: dict[str, Any], seed: int | None, index: int | None,
               entry: dict[str, Any] | None) -> float | None:
    """Runs in the helper, after the scorer failed on an answer: the entry's own answer
    scored (None when it has none: many answers are right). A scorer that fails on that too
    is broken on this entry, the dataset's fault, not the answer's (as a checker is)."""
    gold = _entry(task, config, seed, index, entry).get("answer")
    return None if gold is None else _scored(task, config, seed, index, entry, str(gold))


def _scored(task: str, config: dict[str, Any], seed: int | None, index: int | None,
            entry: dict[str, Any] | None, answer: str) -> float:
    dataset = _dataset(task, config, seed)
    entry = _entry(task, config, seed, index, entry)
    scorer = SCORER_FIXES.get(entry.get("metadata", {}).get("source_dataset", task))
    if scorer is not None:
        return scorer(answer, entry)
    return float(dataset.score_answer(answer, entry))


def _same_truth_value(answer: str, entry: dict[str, Any]) -> float:
    """game_of_life_halting's own scorer compares `bool(answer)`, true for any non-empty
    text, so every answer scored 1.0; here the answer must say the right True or False."""
    return float(answer.strip().strip(".").lower() == str(entry["answer"]).strip().lower())


def _finite_complex_distance(answer: str, entry: dict[str, Any]) -> float:
    """complex_arithmetic's own scorer is `min(1.0, exp(-distance))`, and `min(1.0, nan)` is
    1.0, so the answer "nan" scored 1.0 on every item; here an answer that is not a finite
    number scores 0.0, and any other as the task scores it."""
    from reasoning_gym.algebra.complex_arithmetic import ComplexArithmeticDataset

    parsed = ComplexArithmeticDataset.parse_string_to_complex(answer)
    if parsed is None or not cmath.isfinite(parsed):
        return 0.0
    return min(1.0, math.exp(-abs(parsed - complex(*entry["metadata"]["result"]))))


# Tasks whose published scorer is replaced, and why (see each function).
SCORER_FIXES: dict[str, Callable[[str, dict[str, Any]], float]] = {
    "game_of_life_halting": _same_truth_value,
    "complex_arithmetic": _finite_complex_distance}


def _entry(task: str, config: dict[str, Any], seed: int | None, index: int | None,
           entry: dict[str, Any] | None) -> dict[str, Any]:
    if entry is not None:
        return revive(entry)
    key = json.dumps([task, config, seed, index], sort_keys=True, default=str)
    cached = _entries.get(key)
    if cached is None:
        dataset = _dataset(task, config, seed)
        if index >= len(dataset):
            raise IndexError(f"index {index} is past the dataset's size {len(dataset)}")
        cached = _entries[key] = dataset[index]
        if len(_entries) > ENTRY_CACHE_SIZE:
            _entries.popitem(last=False)
    _entries.move_to_end(key)
    return cached


def revive(entry: dict[str, Any]) -> dict[str, Any]:
    """Undo what a JSON round trip did to an entry that its scorer notices (see above)."""
    metadata = entry.get("metadata") or {}
    source = metadata.get("source_dataset")
    if source in ("arc_agi", "rearc"):
        metadata = {**metadata, **{key: _grid(metadata[key]) for key in _GRID_KEYS
                                   if isinstance(metadata.get(key), list)}}
    return {**entry, "metadata": metadata}


def _grid(rows: list[Any]) -> tuple[Any, ...]:
    return tuple(tuple(row) if isinstance(row, list) else row for row in rows)


def _cost(item: ReasoningGymItem, settings: Settings, kinds: Kinds) -> Cost:
    """Building the entry has its own deadline, before the answer's."""
    deadline = settings.math_timeout_s + settings.gym_generate_timeout_s
    return Cost(deadline, deadline)


KIND = Kind("reasoning_gym", ReasoningGymItem, check=one_at_a_time(check_reasoning_gym),
            admission=settings_free(admission_problem), cost=_cost)
