"""Per-item overhead of the distributed (Celery/Redis) path over the embedded one.

Both modes score the same 8,192 trivial, distinct math items with the same number of worker
processes, through the real HTTP API, in this one run; the difference per item is what the
queue costs. Prints JSON. Goal: <= 0.5 ms per item.

    python bench/queue_overhead.py [--items 8192] [--repeats 3] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.procs import RedisServer, start_server, start_worker  # noqa: E402


def letters(number: int) -> str:
    """A number spelled in letters: distinct texts with no digit for the extractor to find."""
    word = ""
    while True:
        number, digit = divmod(number, 26)
        word += chr(ord("a") + digit)
        if number == 0:
            return word


def trivial_items(n: int, salt: int) -> list[dict]:
    # Distinct (no cache hits), and cheap to check: nothing to extract.
    return [{"kind": "math", "response": f"no answer here {letters(salt)} {letters(i)}",
             "answer": "1"} for i in range(n)]


def timed_batch(url: str, items: list[dict]) -> float:
    started = time.perf_counter()
    reply = httpx.post(f"{url}/v1/verify", json={"items": items}, timeout=600)
    elapsed = time.perf_counter() - started
    reply.raise_for_status()
    results = reply.json()["results"]
    assert len(results) == len(items) and all(r["status"] == "no_answer" for r in results)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=8192)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="queue-overhead-"))
    redis = RedisServer(workdir).start()
    worker = start_worker(workdir, redis.url, concurrency=args.workers)
    embedded, embedded_url = start_server(workdir, "--workers", str(args.workers))
    distributed, distributed_url = start_server(workdir, "--broker", redis.url)
    times: dict[str, list[float]] = {"embedded": [], "distributed": []}
    try:
        for salt, url in enumerate((embedded_url, distributed_url)):  # warm both paths up
            timed_batch(url, trivial_items(256, 1000 + salt))
        for repeat in range(args.repeats):
            for salt, (mode, url) in enumerate((("embedded", embedded_url),
                                                ("distributed", distributed_url))):
                times[mode].append(timed_batch(url, trivial_items(args.items, 2 * repeat + salt)))
    finally:
        embedded.stop()
        distributed.stop()
        worker.stop()
        redis.stop()

    embedded_s = statistics.median(times["embedded"])
    distributed_s = statistics.median(times["distributed"])
    print(json.dumps({
        "items": args.items,
        "workers": args.workers,
        "embedded_s": round(embedded_s, 4),
        "distributed_s": round(distributed_s, 4),
        "embedded_items_per_s": round(args.items / embedded_s, 1),
        "distributed_items_per_s": round(args.items / distributed_s, 1),
        "queue_overhead_ms_per_item": round((distributed_s - embedded_s) * 1000 / args.items, 4),
        "ratio_distributed_over_embedded": round(distributed_s / embedded_s, 3),
    }))


if __name__ == "__main__":
    main()
