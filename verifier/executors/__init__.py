"""Execution back ends: where chunks of items get scored.

Both back ends call the same `verifier.service.chunk.process_chunk` (and, for a `/run_code` program,
`verifier.tools.run_code.run_tool_code`); they differ only in transport: a local process pool
(embedded) or Celery over Redis (distributed, whose worker side is `celery_app.py`). This module
is their interface; `factory.py` chooses one.
"""

from __future__ import annotations

from typing import Any, Protocol


class ServiceUnavailable(Exception):
    """The back end cannot take or finish work right now (e.g. Redis unreachable): HTTP 503."""


class Busy(Exception):
    """No worker could start the task within its admission budget (`/run_code`: HTTP 504)."""


class WorkerDied(Exception):
    """The task's worker process died on it `chunk_max_tries` times."""


class Executor(Protocol):
    mode: str
    # How many chunks it runs at once, where that is known (the embedded pool's processes);
    # None where workers come and go (distributed).
    slots: int | None

    async def run_chunk(self, items: list[dict[str, Any]], deadline_s: float
                        ) -> list[dict[str, Any]]:
        """Score one chunk; returns one result dict per item, in order. A chunk still running
        `deadline_s` after it started is stopped (its worker process killed) and its items are
        `infra_error`. Cancelling the call stops the chunk: dropped if it is still queued,
        killed if it runs."""
        ...

    async def run_code(self, job: dict[str, Any], deadline_s: float,
                       admission_s: float) -> dict[str, Any]:
        """Run one `/run_code` job on a worker (see verifier.tools.run_code); its
        RunCodeResponse as JSON data. Busy if no worker starts it within `admission_s`; past
        `deadline_s` the run is stopped and answered `SandboxError`. Cancelling stops it."""
        ...

    async def check_health(self) -> str | None:
        """None when healthy, else a short reason."""
        ...

    async def close(self) -> None: ...


def infra_errors(items: list[dict[str, Any]], reason: str) -> list[dict[str, Any]]:
    """One `infra_error` result per item: the verifier failed, the policy did not."""
    from rlvr_contract.schemas import Result

    return [Result.infra_error(item.get("id"), reason).model_dump(mode="json") for item in items]


def deadline_passed(items: list[dict[str, Any]], deadline_s: float) -> list[dict[str, Any]]:
    """The chunk ran past its deadline, longer than its items' limits allow: the jail failed to
    end a run, so the verifier is at fault (`infra_error`), not the submission."""
    return infra_errors(items, f"the chunk ran past its deadline of {deadline_s:g} s (what its "
                               "items' limits allow plus VERIFIER_CHUNK_TIMEOUT_S); its worker "
                               "process was stopped")

