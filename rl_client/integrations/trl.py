"""TRL: a reward function for GRPOTrainer (and the other TRL trainers taking `reward_funcs`).

    from rl_client.integrations.trl import make_reward_func
    trainer = GRPOTrainer(model=..., reward_funcs=make_reward_func(), train_dataset=dataset, ...)

Each sample is scored from its dataset columns: `answer` (math reference, or a whole item as
JSON), `tests` and `language` (code), `kind` ("math" or "code"; default math), open-instruct's
`dataset` and `ground_truth` (routed by `routing.route`: `ifeval` to instruction constraints,
`string_f1` to token F1, `gsm8k`/`math` to math, ...), or a competitive-programming dataset's own
columns (open-r1/codeforces' `official_tests`, `generated_checker`, `input_mode`,
`time_limit`...; see _contest.py). Completions may be
plain strings or conversations (the last assistant message is scored). An `infra_error` comes
back as None, which TRL (>= 0.16) turns into NaN and leaves out of the group's statistics.
"""

from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rl_client._core import rewards_of
from rl_client.integrations._shared import shared_async_client, shared_client
from rlvr_contract.contest_rows import CASE_KEYS, ROW_KEYS, is_contest_row
from rlvr_contract.labels import build_item
from rlvr_contract.routing import route
from rlvr_contract.schemas import CodeItem, MathItem, Result, Status

# TRL awaits `async def` reward functions (on its own event loop) from this release on.
TRL_ASYNC_REWARDS = "0.27.0"

RewardFunc = Callable[..., Any]


def make_reward_func(url: str | None = None, *, asynchronous: bool | None = None,
                     answer_column: str = "answer", default_kind: str = "math",
                     **options: Any) -> RewardFunc:
    """A TRL reward function scoring completions on the verifier at `url` ($VERIFIER_URL).

    `options` go to the client (api_key, timeout, max_retries, chunk_size, max_concurrency).
    `asynchronous` defaults to what the installed TRL supports; the result is a picklable
    functools.partial, logged by TRL as `verifier_reward`.
    """
    if default_kind not in ("math", "code"):
        raise ValueError(f"default_kind must be 'math' or 'code', got {default_kind!r}")
    if asynchronous is None:
        from packaging.version import Version  # TRL's dependency: the client needs none

        asynchronous = Version(importlib.metadata.version("trl")) >= Version(TRL_ASYNC_REWARDS)
    settings = {"answer_column": answer_column, "default_kind": default_kind,
                "client_options": {"base_url": url, **options}}
    target = verifier_reward if asynchronous else verifier_reward_sync
    return functools.partial(target, **settings)


async def verifier_reward(prompts: Sequence[Any], completions: Sequence[Any], *,
                          answer_column: str, default_kind: str,
                          client_options: Mapping[str, Any],
                          **columns: Any) -> list[float | None]:
    """TRL's async reward-function contract; see make_reward_func."""
    items = _items(completions, columns, answer_column, default_kind)
    results = await shared_async_client(**client_options).verify(items)
    return _report(results, columns)


def verifier_reward_sync(prompts: Sequence[Any], completions: Sequence[Any], *,
                         answer_column: str, default_kind: str,
                         client_options: Mapping[str, Any],
                         **columns: Any) -> list[float | None]:
    """TRL's synchronous reward-function contract (TRL < 0.27); see make_reward_func."""
    items = _items(completions, columns, answer_column, default_kind)
    return _report(shared_client(**client_options).verify(items), columns)


def completion_text(completion: Any) -> str:
    """A plain completion, or the text of the last assistant turn of a conversational one."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and all(
            isinstance(m, Mapping) for m in completion):
        turns = [m for m in completion if m.get("role") == "assistant"] or list(completion)
        content = turns[-1].get("content") or ""
        if isinstance(content, str):
            return content
        return "".join(part.get("text", "") for part in content
                       if isinstance(part, Mapping) and part.get("type") == "text")
    raise TypeError(f"cannot read a completion of type {type(completion).__name__}: expected a "
                    "string or a list of chat messages")


def _items(completions: Sequence[Any], columns: Mapping[str, Any], answer_column: str,
           default_kind: str) -> list[MathItem | CodeItem]:
    def column(name: str, index: int) -> Any:
        values = columns.get(name)
        return values[index] if isinstance(values, Sequence) and not isinstance(
            values, str) else None

    contest_columns = sorted(ROW_KEYS & columns.keys())
    if not ({answer_column, "tests", "ground_truth"} | set(CASE_KEYS)) & columns.keys():
        raise ValueError(f"the dataset needs an `{answer_column}` column (math), a `tests` "
                         "column (code), open-instruct's `dataset` and `ground_truth` columns "
                         f"or contest columns ({', '.join(CASE_KEYS)}); it has "
                         f"{sorted(columns)}")
    items = []
    for index, completion in enumerate(completions):
        kind = column("kind", index) or default_kind
        tests = column("tests", index)
        row = {key: column(key, index) for key in contest_columns}
        if tests is None and is_contest_row(row):  # a Codeforces/IOI row's own columns
            kind, tests = "code", row
        label = tests if kind == "code" and tests is not None else column(answer_column, index)
        routed = route(column("dataset", index) or column("data_source", index),
                       column("ground_truth", index))
        if routed is not None:
            label, kind = routed, routed["kind"]
        elif label is None and column("ground_truth", index) is not None:
            label = column("ground_truth", index)
        items.append(build_item(completion_text(completion), label, kind=kind,
                                language=column("language", index),
                                where=f"sample {index}: "))
    return items


def _report(results: list[Result], columns: Mapping[str, Any]) -> list[float | None]:
    """Log verdicts through TRL's hooks when it offers them (TRL >= 1.0), return rewards."""
    log_extra, log_metric = columns.get("log_extra"), columns.get("log_metric")
    if callable(log_extra):
        log_extra("verifier_status", [r.status.value for r in results])
    if callable(log_metric) and results:
        log_metric("verifier/infra_error_rate",
                   sum(r.status == Status.infra_error for r in results) / len(results))
    return rewards_of(results)
