"""Every reward kind, listed once; admission and scoring look an item's kind up here.

Adding a kind is one module exposing a `Kind` (see `verifier.kinds.kind`), its tests, and its
line in `KINDS` below; its item model is the contract's (`rlvr_contract.schemas.ITEM_MODELS`), and
tests/test_kinds_registry.py holds the two lists equal.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from rlvr_contract.schemas import Result
from verifier.config import Settings
from verifier.kinds import code, composite, gym, instructions, length, text
from verifier.kinds import format as format_kind
from verifier.kinds import math as math_kind
from verifier.kinds.kind import Cost, Kind

KINDS: tuple[Kind, ...] = (math_kind.KIND, code.KIND, instructions.KIND, text.KIND, gym.KIND,
                           format_kind.KIND, length.KIND, composite.KIND)
BY_NAME: dict[str, Kind] = {kind.name: kind for kind in KINDS}


class _Registry:
    """The lookups a composite makes for its parts, and the service for every item."""

    def admission_problem(self, item: Any, settings: Settings | None = None) -> str | None:
        """Why the service cannot score this item ("field.path: why"), or None. Cheap."""
        return BY_NAME[item.kind].admission(item, settings, self)

    def check_items(self, items: Sequence[Any], timeout_s: float) -> list[Result]:
        """Score items of any kinds, each kind's items as one batch; results in the items'
        order. Never raises: a checker bug is that item's `infra_error`."""
        by_kind: dict[str, list[int]] = defaultdict(list)
        for index, item in enumerate(items):
            by_kind[item.kind].append(index)
        results: list[Result | None] = [None] * len(items)
        for name, indices in by_kind.items():
            batch = [items[i] for i in indices]
            try:
                checked = BY_NAME[name].check(batch, timeout_s, self)
            except Exception as exc:  # a kind's batch must not take the others down
                checked = [Result.infra_error(item.id, f"{name} checker failed: "
                                                       f"{type(exc).__name__}: {exc}")
                           for item in batch]
            for index, result in zip(indices, checked, strict=True):
                results[index] = result
        return [result for result in results if result is not None]

    def item_cost(self, item: Any, settings: Settings) -> Cost:
        """What an admitted item may cost a worker (see `verifier.kinds.kind.Cost`)."""
        return BY_NAME[item.kind].cost(item, settings, self)

    def clamp_item(self, item: Any, settings: Settings) -> None:
        """Lower an admitted item's limits to the server's maxima, in place."""
        BY_NAME[item.kind].clamp(item, settings, self)


REGISTRY = _Registry()
admission_problem = REGISTRY.admission_problem
check_items = REGISTRY.check_items
item_cost = REGISTRY.item_cost
clamp_item = REGISTRY.clamp_item


def check_item(item: Any, timeout_s: float) -> Result:
    """Score one item of any kind. Never raises: a checker bug is `infra_error`."""
    return check_items([item], timeout_s)[0]
