"""Python client for the verifier service, sync and async, with adapters for RL frameworks.

    from rl_client import AsyncVerifierClient
    async with AsyncVerifierClient() as client:          # $VERIFIER_URL, $VERIFIER_API_KEY
        rewards = await client.rewards([{"kind": "math", "response": r, "answer": "4"}])

Adapters: `rl_client.integrations.trl`, `.verl`, `.openrlhf`.
"""

from rl_client._async import AsyncVerifierClient
from rl_client._errors import InvalidItem, VerifierError, VerifierTimeout, VerifierUnavailable
from rl_client._sync import VerifierClient
from rl_client.schemas import CodeItem, IndexedResult, Info, MathItem, Result, Status

__all__ = [
    "AsyncVerifierClient",
    "CodeItem",
    "IndexedResult",
    "Info",
    "InvalidItem",
    "MathItem",
    "Result",
    "Status",
    "VerifierClient",
    "VerifierError",
    "VerifierTimeout",
    "VerifierUnavailable",
]
