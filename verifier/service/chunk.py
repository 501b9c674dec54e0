"""The one chunk-processing function both execution back ends call.

Items travel as JSON-able dicts (what Celery serialises and a process pool pickles cheaply);
results come back as dicts in the same order.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Any

from rlvr_contract.schemas import Result, parse_item
from verifier.config import setting_default
from verifier.kinds.registry import check_items
from verifier.service import logs

log = logging.getLogger(__name__)


def process_chunk(raw_items: list[dict[str, Any]],
                  math_timeout_s: float = setting_default("math_timeout_s"),
                  request_id: str = "-") -> list[dict]:
    """Score a chunk. Never raises for a bad item: it becomes that item's `infra_error`."""
    logs.request_id.set(request_id)
    started = time.perf_counter()
    results: list[Result | None] = [None] * len(raw_items)
    parsed: list[tuple[int, Any]] = []
    for index, raw in enumerate(raw_items):
        try:
            parsed.append((index, parse_item(raw)))
        except Exception as exc:  # already validated by the API; guard against other senders
            results[index] = Result.infra_error(raw.get("id") if isinstance(raw, dict) else None,
                                                f"invalid item: {exc}")
    # every kind's items as one batch (code in one sandbox run), under the per-item deadline
    scored_items = check_items([item for _, item in parsed], math_timeout_s)
    for (index, _), result in zip(parsed, scored_items, strict=True):
        results[index] = result
    scored = [r for r in results if r is not None]
    verdicts = Counter(r.status.value for r in scored)
    log.info("scored %d items in %.1f ms: %s", len(scored),
             (time.perf_counter() - started) * 1000,
             ", ".join(f"{n} {status}" for status, n in verdicts.most_common()))
    return [r.model_dump(mode="json") for r in scored]
