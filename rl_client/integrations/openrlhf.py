"""OpenRLHF: `reward_func(queries, prompts, labels)` for its local reward-function file mode.

    --reward.remote_url "$(python -m rl_client.integrations.openrlhf)" --data.label_key answer

(`python -m rl_client.integrations.openrlhf` prints this file's path; OpenRLHF releases before
the dotted flags call them `--remote_rm_url` and `--label_key`.)

OpenRLHF loads this file by path and calls `reward_func` with the decoded prompt+response
(`queries`), the prompts and the dataset labels. A label is a math reference answer, a whole
item as JSON (`{"kind": "code", "tests": ...}`), or an open-instruct row as JSON
(`{"dataset": "ifeval", "ground_truth": ...}`, routed like the other adapters' rows). The
service is $VERIFIER_URL, with $VERIFIER_API_KEY. OpenRLHF cannot mask a sample, so an
`infra_error` scores $VERIFIER_INFRA_ERROR_SCORE (default 0.0) and is logged as
`verifier_infra_error`.

Without this file, OpenRLHF can call the service directly:
`--reward.remote_url http://HOST:PORT/openrlhf/get_reward`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

# Absolute imports only: OpenRLHF executes this file as a standalone module.
from rl_client.integrations._shared import build_item, shared_client, training_reward
from rlvr_contract.client_settings import client_settings
from rlvr_contract.routing import route_label
from rlvr_contract.schemas import AnyItem, Result, Status


def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any],
                **kwargs: Any) -> dict[str, Any]:
    """OpenRLHF's reward-function contract: rewards, scores (for filtering) and extra_logs."""
    import torch  # OpenRLHF's own dependency: the client installs without it

    items = openrlhf_items(queries, prompts, labels)
    results = shared_client().verify(items)
    rewards, correct, infra_error = openrlhf_scores(results,
                                                    client_settings().infra_error_score)
    rewards_tensor = torch.tensor(rewards, dtype=torch.float)
    return {
        "rewards": rewards_tensor,
        "scores": rewards_tensor,
        "extra_logs": {"verifier_correct": torch.tensor(correct),
                       "verifier_infra_error": torch.tensor(infra_error)},
    }


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


if __name__ == "__main__":  # the path to give OpenRLHF's --reward.remote_url
    print(os.path.abspath(__file__))
