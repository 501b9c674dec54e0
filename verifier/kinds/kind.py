"""What a reward kind is to the service: the one object each kind's module exposes.

The registry (`verifier.kinds.registry`) lists these objects once; admission and scoring look a
kind up by `item.kind`. A kind scores a batch of its items at once, so a composite hands each
kind all of its parts in one batch, as the kind alone would get them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from rlvr_contract.schemas import Result
from verifier.config import Settings


class Kinds(Protocol):
    """The registry as a kind sees it: a composite admits and scores its parts through it."""

    def admission_problem(self, item: Any, settings: Settings | None = None) -> str | None: ...

    def check_items(self, items: Sequence[Any], timeout_s: float) -> list[Result]: ...

    def item_cost(self, item: Any, settings: Settings) -> Cost: ...

    def clamp_item(self, item: Any, settings: Settings) -> None: ...


@dataclass(frozen=True)
class Cost:
    """What one admitted item may cost a worker, worked out before anything runs: `time_s`, the
    CPU time its limits grant (admission's budget per item and per request), and `wall_s`, the
    longest it may hold a worker (its share of the chunk's deadline)."""

    time_s: float
    wall_s: float


Admission = Callable[[Any, Settings | None, Kinds], str | None]
Check = Callable[[Sequence[Any], float, Kinds], list[Result]]
CostOf = Callable[[Any, Settings, Kinds], Cost]
Clamp = Callable[[Any, Settings, Kinds], None]


def admitted(item: Any, settings: Settings | None, kinds: Kinds) -> str | None:
    """Admission of a kind whose item model says everything there is to check."""
    return None


def one_deadline(item: Any, settings: Settings, kinds: Kinds) -> Cost:
    """The cost of a kind scored under the per-item deadline alone."""
    return Cost(settings.math_timeout_s, settings.math_timeout_s)


def unclamped(item: Any, settings: Settings, kinds: Kinds) -> None:
    """A kind whose items carry no limits that the server's maxima bound."""


@dataclass(frozen=True)
class Kind:
    """One reward kind: its name (`item.kind`), its item model (the contract's), what admission
    asks beyond the model ("field.path: why", or None; cheap), how a batch is scored (results
    in the items' order; never raises), what an admitted item may cost a worker, and how its
    limits are lowered to the server's maxima (in place, before it is cached or scored)."""

    name: str
    item_model: type[BaseModel]
    check: Check
    admission: Admission = admitted
    cost: CostOf = one_deadline
    clamp: Clamp = unclamped


def one_at_a_time(check: Callable[[Any, float], Result]) -> Check:
    """A batch scorer over a checker of one item: each item timed, and a checker that raises
    turned into that item's `infra_error` (a checker bug must not take the batch down)."""
    def check_batch(items: Sequence[Any], timeout_s: float, kinds: Kinds) -> list[Result]:
        return [timed(check, item, timeout_s) for item in items]
    return check_batch


def timed(check: Callable[[Any, float], Result], item: Any, timeout_s: float) -> Result:
    started = time.perf_counter()
    try:
        result = check(item, timeout_s)
    except Exception as exc:
        result = Result.infra_error(item.id, f"{item.kind} checker failed: "
                                             f"{type(exc).__name__}: {exc}")
    result.elapsed_ms = round((time.perf_counter() - started) * 1000, 3)
    return result


def settings_free(admission: Callable[[Any], str | None]) -> Admission:
    """An admission that needs neither the settings nor the other kinds."""
    def admit(item: Any, settings: Settings | None, kinds: Kinds) -> str | None:
        return admission(item)
    return admit
