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

import torch

# Absolute imports only: OpenRLHF executes this file as a standalone module.
from rl_client.integrations._shared import build_item, shared_client, training_reward
from rl_client.integrations.routing import route_label
from rl_client.schemas import Status


def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any],
                **kwargs: Any) -> dict[str, Any]:
    """OpenRLHF's reward-function contract: rewards, scores (for filtering) and extra_logs."""
    if not len(queries) == len(prompts) == len(labels):
        raise ValueError(f"{len(queries)} queries, {len(prompts)} prompts and {len(labels)} "
                         "labels: OpenRLHF sends one of each per sample")
    items = [build_item(response_of(query, prompt), route_label(label), where=f"sample {i}: ")
             for i, (query, prompt, label) in enumerate(zip(queries, prompts, labels,
                                                            strict=True))]
    results = shared_client().verify(items)
    fallback = float(os.environ.get("VERIFIER_INFRA_ERROR_SCORE", "0.0"))
    rewards = torch.tensor([training_reward(r, fallback) for r in results], dtype=torch.float)
    return {
        "rewards": rewards,
        "scores": rewards,
        "extra_logs": {
            "verifier_correct": torch.tensor([float(r.status == Status.correct)
                                              for r in results]),
            "verifier_infra_error": torch.tensor([float(r.status == Status.infra_error)
                                                  for r in results]),
        },
    }


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
