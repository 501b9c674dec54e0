"""The one chunk-processing function both execution back ends call.

Items travel as JSON-able dicts (what Celery serialises and a process pool pickles cheaply);
results come back as dicts in the same order.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Any

from rlvr_contract.schemas import CodeItem, Result, parse_item
from verifier.checkers import check_item
from verifier.code import run_code_items
from verifier.config import setting_default
from verifier.service import logs

log = logging.getLogger(__name__)


def process_chunk(raw_items: list[dict[str, Any]],
                  math_timeout_s: float = setting_default("math_timeout_s"),
                  request_id: str = "-") -> list[dict]:
    """Score a chunk. Never raises for a bad item: it becomes that item's `infra_error`."""
    logs.request_id.set(request_id)
    started = time.perf_counter()
    results: list[Result | None] = [None] * len(raw_items)
    code_items: list[tuple[int, CodeItem]] = []
    for index, raw in enumerate(raw_items):
        try:
            item = parse_item(raw)
        except Exception as exc:  # already validated by the API; guard against other senders
            results[index] = Result.infra_error(raw.get("id") if isinstance(raw, dict) else None,
                                                f"invalid item: {exc}")
            continue
        if isinstance(item, CodeItem):
            code_items.append((index, item))
        else:  # math and every checker kind, under the same per-item deadline
            results[index] = check_item(item, math_timeout_s)
    if code_items:
        code_started = time.perf_counter()
        try:
            code_results = run_code_items([item for _, item in code_items])
        except Exception as exc:  # the runner must not raise; if it does, say so per item
            code_results = [Result.infra_error(item.id, f"code runner failed: {exc!r}")
                            for _, item in code_items]
        per_item_ms = (time.perf_counter() - code_started) * 1000 / len(code_items)
        for (index, _), result in zip(code_items, code_results, strict=True):
            if not result.elapsed_ms:
                result.elapsed_ms = round(per_item_ms, 3)
            results[index] = result
    scored = [r for r in results if r is not None]
    verdicts = Counter(r.status.value for r in scored)
    log.info("scored %d items in %.1f ms: %s", len(scored),
             (time.perf_counter() - started) * 1000,
             ", ".join(f"{n} {status}" for status, n in verdicts.most_common()))
    return [r.model_dump(mode="json") for r in scored]
