"""verl: custom reward functions scoring on the verifier service.

Point `custom_reward_function.path` at this file (`reward.custom_reward_function.path` from
verl 0.9 on) and pick its `name`:
- `compute_score_async`: for verl >= 0.9's reward loop, which scores every sample of a batch
  concurrently; those calls are merged into one HTTP request per burst;
- `compute_score_batch`: for the batch reward manager of earlier releases
  (`reward_model.reward_manager=batch`), one HTTP call per batch;
- `compute_score`: the plain per-sample hook (one request per sample; any manager).

`ground_truth` (the parquet's `reward_model.ground_truth`) is a math answer string, or for code
the tests as verl's code datasets store them: a dict or JSON string with `inputs`/`outputs`
(and `fn_name` for call-based problems), or any shape the v1 schema accepts, or a whole item as
JSON. A sample is code when its `data_source` is one of verl's code sources (codecontests, apps,
codeforces, taco) or `extra_info["kind"] == "code"`; `extra_info["language"]` picks the language.
Other sources are routed by `routing.route`: IFEval-style sources to instruction constraints,
`reasoning_gym/<task>` to reasoning-gym, verl's math sources to math.

Options come from `custom_reward_function.reward_kwargs`: `url` ($VERIFIER_URL), `api_key`,
`timeout`, `infra_error_score` (default 0.0). verl cannot mask a sample, so an `infra_error`
scores `infra_error_score` and is counted under `infra_error` in verl's reward_extra_info.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rl_client.integrations._shared import shared_client, shared_coalescer
from rlvr_contract.labels import build_item, plain, training_reward
from rlvr_contract.routing import route
from rlvr_contract.schemas import CodeItem, MathItem, Result, Status

CODE_DATA_SOURCES = frozenset({"codecontests", "apps", "codeforces", "taco"})


def compute_score(data_source: str, solution_str: str, ground_truth: Any,
                  extra_info: Mapping[str, Any] | None = None, *, url: str | None = None,
                  api_key: str | None = None, timeout: float | None = None,
                  infra_error_score: float = 0.0, **_verl_extras: Any) -> dict[str, float]:
    """verl's per-sample reward function: {"score", "acc", "infra_error"} for one response."""
    item = _item(data_source, solution_str, ground_truth, extra_info)
    [result] = shared_client(**_options(url, api_key, timeout)).verify([item])
    return _score(result, infra_error_score)


async def compute_score_async(data_source: str, solution_str: str, ground_truth: Any,
                              extra_info: Mapping[str, Any] | None = None, *,
                              url: str | None = None, api_key: str | None = None,
                              timeout: float | None = None, infra_error_score: float = 0.0,
                              **_verl_extras: Any) -> dict[str, float]:
    """compute_score for verl's async reward loop (verl >= 0.9 awaits coroutine functions).

    The loop scores every sample of a batch concurrently; those calls are merged into one
    verify request instead of one request per sample.
    """
    item = _item(data_source, solution_str, ground_truth, extra_info)
    result = await shared_coalescer(**_options(url, api_key, timeout)).verify(item)
    return _score(result, infra_error_score)


def compute_score_batch(data_sources: Sequence[str], solution_strs: Sequence[str],
                        ground_truths: Sequence[Any],
                        extra_infos: Sequence[Mapping[str, Any] | None] | None = None, *,
                        url: str | None = None, api_key: str | None = None,
                        timeout: float | None = None, infra_error_score: float = 0.0,
                        **_verl_extras: Any) -> list[dict[str, float]]:
    """verl's BatchRewardManager hook: the whole batch in one verify call, scores in order."""
    n = len(solution_strs)
    extra_infos = [None] * n if extra_infos is None else extra_infos
    if not len(data_sources) == len(ground_truths) == len(extra_infos) == n:
        raise ValueError(f"batch columns differ in length: {len(data_sources)} data_sources, "
                         f"{n} solution_strs, {len(ground_truths)} ground_truths, "
                         f"{len(extra_infos)} extra_infos")
    items = [_item(source, solution, truth, extra, where=f"sample {i}: ")
             for i, (source, solution, truth, extra)
             in enumerate(zip(data_sources, solution_strs, ground_truths, extra_infos,
                              strict=True))]
    results = shared_client(**_options(url, api_key, timeout)).verify(items)
    return [_score(result, infra_error_score) for result in results]


def _item(data_source: str, solution: str, ground_truth: Any,
          extra_info: Mapping[str, Any] | None, where: str = "") -> MathItem | CodeItem:
    extra = extra_info or {}
    kind = extra.get("kind") or ("code" if data_source in CODE_DATA_SOURCES else None)
    if kind is None:
        try:
            ground_truth = route(data_source, plain(ground_truth)) or ground_truth
        except ValueError as exc:
            raise ValueError(f"{where}{exc}") from exc
    return build_item(solution, ground_truth, kind=kind, language=extra.get("language"),
                      where=where)


def _options(url: str | None, api_key: str | None, timeout: float | None) -> dict[str, Any]:
    options: dict[str, Any] = {"base_url": url, "api_key": api_key}
    if timeout is not None:
        options["timeout"] = timeout
    return options


def _score(result: Result, infra_error_score: float) -> dict[str, float]:
    """Numbers only: verl averages every reward_extra_info key in its validation metrics."""
    return {"score": training_reward(result, infra_error_score),
            "acc": float(result.status == Status.correct),
            "infra_error": float(result.status == Status.infra_error)}
