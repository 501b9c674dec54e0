"""The status page's numbers: the metrics registry sampled every SAMPLE_EVERY_S into a short
in-memory history, and the view derived from it.

The samples are this API process's own Prometheus metrics (exactly what `/metrics` serves), so
rates, latency percentiles and "the last five minutes" need no Prometheus server.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from dataclasses import dataclass

from prometheus_client import REGISTRY, CollectorRegistry

from verifier import __version__

SAMPLE_EVERY_S = 2.0
HISTORY_S = 600.0  # what the charts show
WINDOW_S = 300.0  # verdicts and latency percentiles are over this
RATE_WINDOW_S = 10.0  # "throughput now"
WORKER_FRESH_S = 300.0  # a worker counts as seen if it returned a chunk this recently
QUANTILES = (0.5, 0.95, 0.99)


@dataclass(frozen=True)
class Sample:
    """The cumulative counters and the gauges of the metrics registry at one instant."""

    at: float
    items_by_status: dict[str, float]
    requests: float
    rejected: float
    backlog: float
    latency_buckets: tuple[tuple[float, float], ...]  # (upper bound in s, cumulative count)
    cache_hits: float
    cache_misses: float
    workers_last_seen: dict[str, float]

    @property
    def items(self) -> float:
        return sum(self.items_by_status.values())


def take_sample(registry: CollectorRegistry = REGISTRY, now: float | None = None) -> Sample:
    """Read the service's metrics (summed over kinds, routes and modes) from `registry`."""
    items: dict[str, float] = {}
    buckets: dict[float, float] = {}
    workers: dict[str, float] = {}
    scalars = {"verifier_requests_total": 0.0, "verifier_rejected_total": 0.0,
               "verifier_backlog_items": 0.0, "verifier_cache_hits_total": 0.0,
               "verifier_cache_misses_total": 0.0}
    for family in registry.collect():
        for sample in family.samples:
            name, labels, value = sample.name, sample.labels, sample.value
            if name == "verifier_items_total":
                items[labels["status"]] = items.get(labels["status"], 0.0) + value
            elif name == "verifier_chunk_seconds_bucket":
                bound = float(labels["le"])
                buckets[bound] = buckets.get(bound, 0.0) + value
            elif name == "verifier_worker_last_seen_seconds":
                workers[labels["worker"]] = value
            elif name in scalars:
                scalars[name] += value
    return Sample(at=time.time() if now is None else now, items_by_status=items,
                  requests=scalars["verifier_requests_total"],
                  rejected=scalars["verifier_rejected_total"],
                  backlog=scalars["verifier_backlog_items"],
                  latency_buckets=tuple(sorted(buckets.items())),
                  cache_hits=scalars["verifier_cache_hits_total"],
                  cache_misses=scalars["verifier_cache_misses_total"],
                  workers_last_seen=workers)


def histogram_quantile(q: float, buckets: tuple[tuple[float, float], ...]) -> float | None:
    """Prometheus's estimate: linear interpolation inside the bucket that holds the rank."""
    if not buckets or buckets[-1][1] <= 0:
        return None
    rank = q * buckets[-1][1]
    lower, below = 0.0, 0.0
    for bound, count in buckets:
        if count >= rank:
            if math.isinf(bound):
                return lower  # past the last finite bucket: its bound is all that is known
            inside = count - below
            return lower + (bound - lower) * ((rank - below) / inside if inside else 1.0)
        lower, below = bound, count
    return lower


@dataclass
class StatusView:
    """Everything the page shows, derived from the sample history."""

    version: str
    mode: str
    throughput: float  # items/s over the last RATE_WINDOW_S
    backlog: float
    items_total: float
    requests_total: float
    rejected_total: float
    cache_hit_rate: float | None
    latency_s: dict[str, float | None]  # chunk latency percentiles over WINDOW_S
    statuses: dict[str, float]  # verdicts over WINDOW_S
    workers_seen: int | None
    series: list[tuple[float, float, float]]  # (seconds ago, items/s, backlog)


class StatusHistory:
    """Samples of the last HISTORY_S, taken every SAMPLE_EVERY_S by `run`."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.registry = registry
        self.samples: deque[Sample] = deque(maxlen=int(HISTORY_S / SAMPLE_EVERY_S) + 1)

    async def run(self) -> None:
        while True:
            self.samples.append(take_sample(self.registry))
            await asyncio.sleep(SAMPLE_EVERY_S)

    def view(self, mode: str) -> StatusView:
        """The view as of now: the history plus a fresh sample, so numbers are never stale."""
        current = take_sample(self.registry)
        samples = [*self.samples, current]

        def since(seconds: float) -> Sample:
            older = [s for s in samples if s.at <= current.at - seconds]
            return older[-1] if older else samples[0]

        rate_base, window_base = since(RATE_WINDOW_S), since(WINDOW_S)
        elapsed = current.at - rate_base.at
        previous_buckets = dict(window_base.latency_buckets)
        window_buckets = tuple((bound, count - previous_buckets.get(bound, 0.0))
                               for bound, count in current.latency_buckets)
        lookups = current.cache_hits + current.cache_misses
        series = [(later.at - current.at,
                   max(0.0, later.items - earlier.items) / (later.at - earlier.at),
                   later.backlog)
                  for earlier, later in zip(samples, samples[1:], strict=False)
                  if later.at > earlier.at]
        return StatusView(
            version=__version__, mode=mode,
            throughput=(current.items - rate_base.items) / elapsed if elapsed > 0 else 0.0,
            backlog=current.backlog, items_total=current.items,
            requests_total=current.requests, rejected_total=current.rejected,
            cache_hit_rate=current.cache_hits / lookups if lookups else None,
            latency_s={f"p{round(q * 100)}": histogram_quantile(q, window_buckets)
                       for q in QUANTILES},
            statuses={status: count - window_base.items_by_status.get(status, 0.0)
                      for status, count in sorted(current.items_by_status.items())
                      if count - window_base.items_by_status.get(status, 0.0) > 0},
            workers_seen=(sum(1 for seen in current.workers_last_seen.values()
                              if seen >= current.at - WORKER_FRESH_S)
                          if current.workers_last_seen else None),
            series=series)
