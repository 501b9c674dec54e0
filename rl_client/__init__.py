"""Python client for the verifier service, sync and async, with adapters for RL frameworks.

    from rl_client import AsyncVerifierClient
    async with AsyncVerifierClient() as client:          # $VERIFIER_URL, $VERIFIER_API_KEY
        rewards = await client.rewards([{"kind": "math", "response": r, "answer": "4"}])

Code execution as a tool: `client.run_code(code, "python")` (SandboxFusion's /run_code), and
`with client.session() as s: s.run("x = 1"); s.run("x + 1").result` (state kept between runs).

Adapters: `rl_client.integrations.trl`, `.verl`, `.openrlhf`.

Every item kind and result type is importable from here (`from rl_client import CodeItem`); they
are the contract package's (`rlvr_contract`), which the service imports too. The modules with
underscore names are this package's implementation, not its interface.
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
from rlvr_contract.client_settings import ClientSettings
from rlvr_contract.item_kinds import (
    FormatItem,
    GymEntry,
    InstructionsItem,
    LengthItem,
    ReasoningGymItem,
    TextItem,
)
from rlvr_contract.schemas import (
    AssertTests,
    CallCase,
    CallTests,
    CodeItem,
    CompositeItem,
    CompressedTests,
    GraderPart,
    Health,
    IndexedResult,
    Info,
    JobCreated,
    JobState,
    JobStatus,
    JudgeProgram,
    Limits,
    MathItem,
    MathOptions,
    Result,
    Status,
    StdioCase,
    StdioTests,
    Subtask,
    SupportFile,
)
from rlvr_contract.tool_schemas import (
    CellRunResult,
    CommandRunResult,
    CommandRunStatus,
    RunCodeResponse,
    RunJupyterResponse,
    RunStatus,
    SessionError,
    SessionInfo,
    SessionRun,
    SessionStatus,
)

__all__ = [
    "AssertTests",
    "AsyncSession",
    "AsyncVerifierClient",
    "CallCase",
    "CallTests",
    "CellRunResult",
    "ClientSettings",
    "CodeItem",
    "CommandRunResult",
    "CommandRunStatus",
    "CompositeItem",
    "CompressedTests",
    "FormatItem",
    "GraderPart",
    "GymEntry",
    "Health",
    "IndexedResult",
    "Info",
    "InstructionsItem",
    "InvalidItem",
    "JobCreated",
    "JobState",
    "JobStatus",
    "JudgeProgram",
    "LengthItem",
    "Limits",
    "MathItem",
    "MathOptions",
    "ReasoningGymItem",
    "Result",
    "RunCodeResponse",
    "RunJupyterResponse",
    "RunStatus",
    "Session",
    "SessionError",
    "SessionInfo",
    "SessionLost",
    "SessionRun",
    "SessionStatus",
    "Status",
    "StdioCase",
    "StdioTests",
    "Subtask",
    "SupportFile",
    "TextItem",
    "VerifierClient",
    "VerifierError",
    "VerifierTimeout",
    "VerifierUnavailable",
]
