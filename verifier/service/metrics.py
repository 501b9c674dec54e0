"""Prometheus metrics of the API process (exposed at `/metrics`)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

REQUESTS = Counter("verifier_requests_total", "HTTP requests by route and status code",
                   ["route", "code"])
ITEMS = Counter("verifier_items_total", "Items scored, by kind and verdict", ["kind", "status"])
CACHE_HITS = Counter("verifier_cache_hits_total", "Items answered from the result cache")
CACHE_MISSES = Counter("verifier_cache_misses_total", "Items that had to be scored")
DEDUPLICATED = Counter("verifier_deduplicated_items_total",
                       "Items answered by an identical item in the same batch")
CHUNK_SECONDS = Histogram("verifier_chunk_seconds", "Wall time of one chunk, submit to result",
                          ["mode"], buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
                                             10, 30, 60, 120, 300))
BACKLOG = Gauge("verifier_backlog_items", "Items admitted and not yet answered")
REJECTED = Counter("verifier_rejected_total", "Requests refused by admission control", ["reason"])
WORKER_LAST_SEEN = Gauge("verifier_worker_last_seen_seconds",
                         "Unix time at which each worker last returned a chunk", ["worker"])
CHUNKS_REDELIVERED = Counter("verifier_chunks_redelivered_total",
                             "Chunks put back on the queue because their worker vanished")
RUN_CODE = Counter("verifier_run_code_total", "/run_code programs run, by language and status",
                   ["language", "status"])
RUN_CODE_SECONDS = Histogram("verifier_run_code_seconds", "Wall time of one /run_code program, "
                             "admission to answer", buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                             0.5, 1, 2.5, 5, 10, 30, 60))
SESSION_CALLS = Counter("verifier_session_calls_total", "Session calls by operation and outcome "
                        "(a run's status, or why the call was refused)", ["op", "outcome"])
