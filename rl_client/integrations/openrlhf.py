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
from rl_client.integrations._shared import shared_client
from rlvr_contract.client_settings import client_settings
from rlvr_contract.openrlhf import openrlhf_items, openrlhf_scores


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


if __name__ == "__main__":  # the path to give OpenRLHF's --reward.remote_url
    print(os.path.abspath(__file__))
