"""Load: N concurrent clients for M seconds against the distributed stack on loopback.

Each client sends batches of mixed math and code items (Python and bash), every item distinct
(no cache hits) with a known verdict; a batch refused with 429 or 503, or cut off by a broken
connection, is sent again after its Retry-After, for a bounded time. Every answer is checked:
one result per item, same ids in the same order, the expected verdict. Prints JSON: throughput
(items/s), request latency p50/p99, refusals, and lost / duplicated / wrong results (all zero
in a healthy run). The baseline is one client in this same run; `scaling` is the N-client
throughput over it.

    python bench/load.py [--clients 8] [--seconds 20] [--batch 8] [--workers 2]
    python bench/load.py --url http://127.0.0.1:8000 --no-baseline   # a running stack
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.procs import RedisServer, start_server, start_worker  # noqa: E402

REQUEST_TIMEOUT_S = 120.0
MAX_RETRY_WAIT_S = 5.0


def make_item(uid: str, number: int) -> tuple[dict, str]:
    """One distinct item and the verdict it must get; the kind cycles with `number`."""
    a, b = number % 97, 1 + number // 97 % 89  # b > 0: x - y is never x + y
    kind = number % 6
    if kind in (0, 1):  # math, right then wrong
        shown = a + b + (kind == 1)
        return ({"kind": "math", "id": uid, "response": f"{a} + {b} = \\boxed{{{shown}}}",
                 "answer": str(a + b)}, "correct" if kind == 0 else "wrong")
    if kind == 5:
        return ({"kind": "code", "id": uid, "language": "bash",
                 "response": f"# {uid}\nread x y\necho $((x + y))\n",
                 "tests": {"type": "stdio", "cases": [{"input": f"{a} {b}\n",
                                                       "output": f"{a + b}\n"}]}}, "correct")
    right = kind != 4
    operator = "+" if right else "-"
    return ({"kind": "code", "id": uid, "language": "python",
             "response": f"```python\n# {uid}\nx, y = map(int, input().split())\n"
                         f"print(x {operator} y)\n```",
             "tests": {"type": "stdio", "cases": [{"input": f"{a} {b}\n",
                                                   "output": f"{a + b}\n"}]}},
            "correct" if right else "wrong")


@dataclass
class Tally:
    """What the clients saw; merged into the report."""

    batches_sent: int = 0
    batches_ok: int = 0
    items_ok: int = 0
    latencies_s: list[float] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)
    retry_after_s: list[float] = field(default_factory=list)
    lost_items: int = 0
    duplicated_results: int = 0
    wrong_results: int = 0
    wrong_by_verdict: dict[str, int] = field(default_factory=dict)  # "expected->got": count
    problems: list[str] = field(default_factory=list)

    def refuse(self, why: str) -> None:
        self.refused[why] = self.refused.get(why, 0) + 1


def check_reply(items: list[dict], expected: list[str], results: list[dict], tally: Tally) -> None:
    ids = [r.get("id") for r in results]
    tally.duplicated_results += len(ids) - len(set(ids)) + max(0, len(results) - len(items))
    tally.lost_items += max(0, len(items) - len(results))
    for item, verdict, result in zip(items, expected, results, strict=False):
        if result.get("id") != item["id"] or result.get("status") != verdict:
            tally.wrong_results += 1
            key = f"{verdict}->{result.get('status')}"
            tally.wrong_by_verdict[key] = tally.wrong_by_verdict.get(key, 0) + 1
            if len(tally.problems) < 5:
                tally.problems.append(f"{item['id']}: expected {verdict}, got {result}")


async def client(http: httpx.AsyncClient, url: str, name: str, batch: int, stop_at: float,
                 give_up_at: float, tally: Tally) -> None:
    """Send batches until `stop_at`; retry a refused batch until `give_up_at`."""
    for sequence in itertools.count():
        if time.monotonic() >= stop_at:
            return
        made = [make_item(f"{name}-{sequence}-{k}", sequence * batch + k) for k in range(batch)]
        items, expected = [m[0] for m in made], [m[1] for m in made]
        tally.batches_sent += 1
        while True:
            started = time.monotonic()
            wait = 0.5
            try:
                reply = await http.post(f"{url}/v1/verify", json={"items": items},
                                        timeout=REQUEST_TIMEOUT_S)
            except httpx.HTTPError as exc:
                tally.refuse(f"transport:{type(exc).__name__}")
            else:
                if reply.status_code == 200:
                    tally.latencies_s.append(time.monotonic() - started)
                    tally.batches_ok += 1
                    tally.items_ok += len(items)
                    check_reply(items, expected, reply.json()["results"], tally)
                    break
                tally.refuse(str(reply.status_code))
                if "retry-after" in reply.headers:
                    wait = float(reply.headers["retry-after"])
                    tally.retry_after_s.append(wait)
            if time.monotonic() + min(wait, MAX_RETRY_WAIT_S) > give_up_at:
                tally.lost_items += len(items)
                tally.problems.append(f"batch {name}-{sequence} never answered")
                break
            await asyncio.sleep(min(wait, MAX_RETRY_WAIT_S))


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def run_load(url: str, clients: int, seconds: float, batch: int,
                   drain_s: float) -> dict:
    """Run the clients; the report of one load phase."""
    tally = Tally()
    started = time.monotonic()
    stop_at = started + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(limits=limits) as http:
        await asyncio.gather(*(client(http, url, f"c{i}-{int(started * 1000) % 100000}", batch,
                                      stop_at, stop_at + drain_s, tally)
                               for i in range(clients)))
    elapsed = time.monotonic() - started
    report = asdict(tally)
    latencies = report.pop("latencies_s")
    retry_after = report.pop("retry_after_s")
    report.update(
        clients=clients, seconds=seconds, batch=batch, elapsed_s=round(elapsed, 2),
        throughput_items_per_s=round(tally.items_ok / elapsed, 2),
        latency_ms={"p50": _ms(percentile(latencies, 0.5)),
                    "p99": _ms(percentile(latencies, 0.99))},
        retry_after_s=[min(retry_after), max(retry_after)] if retry_after else None)
    return report


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


def start_stack(workers: int) -> tuple[str, list]:
    """A private Redis, `workers` worker processes (one slot each) and the API, on loopback."""
    workdir = Path(tempfile.mkdtemp(prefix="load-"))
    redis = RedisServer(workdir).start()
    procs = [start_worker(workdir, redis.url, concurrency=1, name=f"worker{i}")
             for i in range(workers)]
    api, url = start_server(workdir, "--broker", redis.url)
    return url, [api, *procs, redis]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running service (default: start a distributed stack)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--batch", type=int, default=8, help="items per request")
    parser.add_argument("--workers", type=int, default=2, help="worker processes to start")
    parser.add_argument("--drain", type=float, default=120.0,
                        help="seconds a refused batch is retried after the run")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the one-client baseline phase")
    args = parser.parse_args()
    if min(args.clients, args.batch, args.workers) < 1 or not 0 < args.seconds <= 600:
        parser.error("--clients, --batch and --workers must be >= 1; 0 < --seconds <= 600")

    url, procs = (args.url, []) if args.url else start_stack(args.workers)
    try:
        # Warm-up: the first code items start each worker's jail.
        asyncio.run(run_load(url, 1, 0.1, 2 * args.workers, args.drain))
        baseline = None if args.no_baseline else asyncio.run(
            run_load(url, 1, args.seconds / 2, args.batch, args.drain))
        report = asyncio.run(run_load(url, args.clients, args.seconds, args.batch, args.drain))
    finally:
        for proc in procs:
            proc.stop()
    if baseline is not None:
        report["baseline_one_client"] = {k: baseline[k] for k in (
            "throughput_items_per_s", "latency_ms", "items_ok", "lost_items")}
        report["scaling"] = (round(report["throughput_items_per_s"]
                                   / baseline["throughput_items_per_s"], 2)
                             if baseline["throughput_items_per_s"] else None)
    report["mode"] = "distributed (started here)" if procs else url
    print(json.dumps(report, indent=1))
    sys.exit(0 if report["lost_items"] == report["duplicated_results"] ==
             report["wrong_results"] == 0 else 1)


if __name__ == "__main__":
    main()
