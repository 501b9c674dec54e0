"""Code execution as a tool: /run_code and session runs through the real HTTP API, against a
bare interpreter start on the same machine, measured in this one run (rounds alternate).

- `/run_code` with a one-line Python program (`print(1)`): calls/s and p50/p99 latency at
  concurrency 1, 8 and 64, and the same for a bare `python3 -c 'print(1)'` spawned and waited
  for; ratios of the two. At 64, every call must come back a `Success` (the work queues).
- A session's one-line cell (`x = 1`, then `x + 1`): p50/p99 latency of a run, end to end, and
  what the server measured of it (`elapsed_ms`).

Goals: `run_code_vs_bare.p50_ratio_c1` <= 1.0, `session.p50_ms` <= 5, `c64.failed` == 0.

    python bench/run_code.py [--calls 200] [--rounds 3] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.procs import start_server  # noqa: E402

BARE = ["/usr/bin/python3", "-c", "print(1)"]
CONCURRENCY = (1, 8, 64)


def percentiles(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    return {"p50_ms": round(1e3 * ordered[len(ordered) // 2], 3),
            "p99_ms": round(1e3 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3)}


def bare_round(calls: int, concurrency: int) -> dict[str, float]:
    def once(_: int) -> float:
        started = time.perf_counter()
        subprocess.run(BARE, stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - started

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        latencies = list(pool.map(once, range(calls)))
    return {"calls_per_s": calls / (time.perf_counter() - started), **percentiles(latencies)}


async def run_code_round(url: str, calls: int, concurrency: int) -> dict[str, float]:
    """`calls` programs, `concurrency` at a time, from aiohttp (what SandboxFusion's async
    client uses): httpx's connection pool costs more per request the more connections it
    holds, so at 64 it would measure itself (as /v1/ping shows) rather than the service."""
    limiter = asyncio.Semaphore(concurrency)
    failed = 0

    async def once(client: aiohttp.ClientSession) -> float:
        nonlocal failed
        async with limiter:
            started = time.perf_counter()
            try:
                async with client.post("/run_code", json={"code": "print(1)"}) as reply:
                    ok = reply.status == 200 and (await reply.json())["status"] == "Success"
            except (aiohttp.ClientError, TimeoutError):
                ok = False
            failed += not ok
            return time.perf_counter() - started

    connector = aiohttp.TCPConnector(limit=concurrency)
    timeout = aiohttp.ClientTimeout(total=300)
    async with aiohttp.ClientSession(url, connector=connector, timeout=timeout) as client:
        await asyncio.gather(*(once(client) for _ in range(concurrency)))  # connections up
        started = time.perf_counter()
        latencies = await asyncio.gather(*(once(client) for _ in range(calls)))
        elapsed = time.perf_counter() - started
    return {"calls_per_s": calls / elapsed, "failed": failed, **percentiles(list(latencies))}


def session_round(url: str, calls: int) -> dict[str, float]:
    with httpx.Client(base_url=url, timeout=60) as client:
        session_id = client.post("/v1/sessions", json={}).json()["session_id"]
        client.post(f"/v1/sessions/{session_id}/run", json={"code": "x = 1"})
        latencies, server_ms = [], []
        for _ in range(calls):
            started = time.perf_counter()
            answer = client.post(f"/v1/sessions/{session_id}/run",
                                 json={"code": "x + 1"}).json()
            latencies.append(time.perf_counter() - started)
            assert answer["result"] == "2", answer
            server_ms.append(answer["elapsed_ms"])
        client.delete(f"/v1/sessions/{session_id}")
    return {**percentiles(latencies), "server_p50_ms": statistics.median(server_ms)}


def median_of(rounds: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.median(r[key] for r in rounds), 3) for key in rounds[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    server, url = start_server(Path(tempfile.mkdtemp(prefix="run-code-bench-")), "--workers",
                               str(args.workers))
    bare: dict[int, list] = {c: [] for c in CONCURRENCY}
    tool: dict[int, list] = {c: [] for c in CONCURRENCY}
    sessions: list[dict[str, float]] = []
    try:
        asyncio.run(run_code_round(url, 4 * args.workers, args.workers))  # every worker warm
        for _ in range(args.rounds):
            sessions.append(session_round(url, args.calls))  # before the loads of 64 calls
            for concurrency in CONCURRENCY:
                bare[concurrency].append(bare_round(args.calls, concurrency))
                tool[concurrency].append(asyncio.run(run_code_round(url, args.calls,
                                                                    concurrency)))
    finally:
        server.stop()

    report: dict[str, object] = {"calls": args.calls, "rounds": args.rounds,
                                 "workers": args.workers}
    for concurrency in CONCURRENCY:
        ours, theirs = median_of(tool[concurrency]), median_of(bare[concurrency])
        report[f"c{concurrency}"] = {
            "run_code": ours, "bare_python": theirs,
            "failed": sum(r["failed"] for r in tool[concurrency]),
            "p50_ratio": round(ours["p50_ms"] / theirs["p50_ms"], 3),
            "throughput_ratio": round(ours["calls_per_s"] / theirs["calls_per_s"], 3)}
    report["run_code_vs_bare"] = {"p50_ratio_c1": report["c1"]["p50_ratio"]}
    report["session"] = median_of(sessions)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
