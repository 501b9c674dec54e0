"""OpenRLHF's samples as items and results as its rewards: one reading for the client's
reward-function file (rl_client/integrations/openrlhf.py) and the service's
/openrlhf/get_reward route alike."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlvr_contract.labels import build_item, training_reward
from rlvr_contract.routing import route_label
from rlvr_contract.schemas import AnyItem, Result, Status


def openrlhf_items(queries: Sequence[str], prompts: Sequence[str] | None,
                   labels: Sequence[Any], *, where: str = "sample {}: ") -> list[AnyItem]:
    """One item per sample of an OpenRLHF request (this file's and the service's
    /openrlhf/get_reward alike): the response found after its prompt, scored by its label.

    Raises ValueError naming the sample (`where` formats its index) when the lists' lengths
    differ or a label makes no item.
    """
    for name, given in (("prompts", prompts), ("labels", labels)):
        if given is not None and len(given) != len(queries):
            raise ValueError(f"{name}: {len(given)} entries for {len(queries)} queries "
                             "(OpenRLHF sends one of each per sample)")
    return [build_item(response_of(query, prompts[i] if prompts else ""), route_label(label),
                       where=where.format(i))
            for i, (query, label) in enumerate(zip(queries, labels, strict=True))]


def openrlhf_scores(results: Sequence[Result], infra_error: float,
                    ) -> tuple[list[float], list[float], list[float]]:
    """Rewards (OpenRLHF cannot mask a sample: an infra_error scores `infra_error`), and the
    0/1 flags of correct and of infra_error samples, for OpenRLHF's extra_logs."""
    return ([training_reward(r, infra_error) for r in results],
            [float(r.status == Status.correct) for r in results],
            [float(r.status == Status.infra_error) for r in results])


def response_of(query: str, prompt: str) -> str:
    """The response part of OpenRLHF's query (prompt and response decoded together).

    The decoded query may carry special tokens before the prompt text, so the prompt is found
    rather than assumed to be a prefix; when it cannot be found, the whole query is scored
    (the checkers look at the last answer or code block, which is the response's).
    """
    at = query.find(prompt) if prompt else -1
    return query[at + len(prompt):] if at >= 0 else query
