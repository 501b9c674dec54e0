"""Python client for the verifier service, sync and async, with adapters for RL frameworks.

    from rl_client import AsyncVerifierClient
    async with AsyncVerifierClient() as client:          # $VERIFIER_URL, $VERIFIER_API_KEY
        rewards = await client.rewards([{"kind": "math", "response": r, "answer": "4"}])

Code execution as a tool: `client.run_code(code, "python")` (SandboxFusion's /run_code), and
`with client.session() as s: s.run("x = 1"); s.run("x + 1").result` (state kept between runs).

Adapters: `rl_client.integrations.trl`, `.verl`, `.openrlhf`.
"""

from rl_client._async import AsyncSession, AsyncVerifierClient
from rl_client._errors import (
    InvalidItem,
    SessionLost,
    VerifierError,
    VerifierTimeout,
    VerifierUnavailable,
)
from rl_client._sync import Session, VerifierClient
from rlvr_contract.schemas import CodeItem, IndexedResult, Info, MathItem, Result, Status
from rlvr_contract.tool_schemas import RunCodeResponse, SessionInfo, SessionRun, SessionStatus

__all__ = [
    "AsyncSession",
    "AsyncVerifierClient",
    "CodeItem",
    "IndexedResult",
    "Info",
    "InvalidItem",
    "MathItem",
    "Result",
    "RunCodeResponse",
    "Session",
    "SessionInfo",
    "SessionLost",
    "SessionRun",
    "SessionStatus",
    "Status",
    "VerifierClient",
    "VerifierError",
    "VerifierTimeout",
    "VerifierUnavailable",
]
