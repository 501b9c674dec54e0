"""What AsyncVerifierClient costs over the wire: rewards/s for 8,192 math items, client vs raw.

The baseline is the same items posted as one raw JSON request with httpx (json.dumps in,
json.loads out, no validation). Against it, in the same process and interleaved round by round:
- `client_one_request`: AsyncVerifierClient with chunk_size >= the batch, i.e. the same single
  request plus the client's own work (checking each is an item, encoding, reading verdicts;
  the fields are validated by the server alone, which names a bad item by its index);
- `client_default`: AsyncVerifierClient as shipped (chunks of 512, 8 at a time).

Two regimes: `warm` (the service's result cache already holds every item, so the figure is the
wire and the service's own overhead, where a client's cost is most visible) and `cold` (fresh
items each round, so the math checker runs). Prints one JSON object; overhead = 1 - client/raw
rewards per second (negative: the client is faster).

    python bench/client_overhead.py [--url URL] [--rounds 9] [--cold-rounds 2] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from rl_client import AsyncVerifierClient
from verifier.local import LocalServer

N_ITEMS = 8192


def math_items(tag: str) -> list[dict[str, Any]]:
    """GSM8K-sized completions, a third of them right; `tag` makes them new to the cache."""
    return [{"kind": "math", "id": str(i), "answer": str(i % 97),
             "response": (f"Let me work through problem {tag}-{i} step by step. Adding the parts "
                          f"and simplifying gives the result, so the final answer is "
                          f"\\boxed{{{i % 97 if i % 3 == 0 else i % 97 + 1}}}.")}
            for i in range(N_ITEMS)]


async def raw_rewards(http: httpx.AsyncClient, items: list[dict[str, Any]]) -> list[Any]:
    response = await http.post("/v1/verify", json={"items": items})
    response.raise_for_status()
    return [r["reward"] for r in response.json()["results"]]


async def timed(run: Callable[[], Awaitable[list[Any]]]) -> tuple[float, float]:
    """Wall seconds, and CPU seconds of this process (the client side only: the service is
    another process), for one call."""
    started, cpu_started = time.perf_counter(), time.process_time()
    rewards = await run()
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    if len(rewards) != N_ITEMS:
        raise RuntimeError(f"got {len(rewards)} rewards for {N_ITEMS} items")
    return elapsed, cpu


async def measure(url: str, rounds: int, cold_rounds: int) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=url, timeout=600) as http, \
            AsyncVerifierClient(url, chunk_size=N_ITEMS, timeout=600) as one_request, \
            AsyncVerifierClient(url, timeout=600) as default:
        variants = {
            "raw": lambda items: raw_rewards(http, items),
            "client_one_request": one_request.rewards,
            "client_default": default.rewards,
        }
        warm_items = math_items("warm")
        await raw_rewards(http, warm_items)  # fills the cache, starts the workers
        report: dict[str, Any] = {"items": N_ITEMS}
        for regime, n_rounds in (("warm", rounds), ("cold", cold_rounds)):
            seconds: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
            for round_no in range(n_rounds):
                names = list(variants)
                names = names[round_no % len(names):] + names[:round_no % len(names)]
                for name in names:  # rotated, so drift on a shared machine hits all alike
                    items = warm_items if regime == "warm" else math_items(f"{name}{round_no}")
                    seconds[name].append(await timed(lambda f=variants[name], i=items: f(i)))
            if n_rounds:
                report[regime] = summarise(seconds, n_rounds)
        return report


def summarise(seconds: dict[str, list[tuple[float, float]]], rounds: int) -> dict[str, Any]:
    """Medians over rounds: rewards/s, client-side CPU ms per call, and overheads vs raw."""
    per_s = {name: N_ITEMS / statistics.median(w for w, _ in runs)
             for name, runs in seconds.items()}
    cpu_ms = {name: statistics.median(c for _, c in runs) * 1000
              for name, runs in seconds.items()}
    out: dict[str, Any] = {"rounds": rounds}
    for name in seconds:
        out[f"{name}_rewards_per_s"] = round(per_s[name], 1)
        out[f"{name}_client_cpu_ms"] = round(cpu_ms[name], 1)
    for name in ("client_one_request", "client_default"):
        out[f"{name}_overhead"] = round(1 - per_s[name] / per_s["raw"], 4)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=os.environ.get("VERIFIER_URL"),
                        help="a running service (default: start `verifier serve` here)")
    parser.add_argument("--rounds", type=int, default=9, help="warm-cache rounds per variant")
    parser.add_argument("--cold-rounds", type=int, default=2, help="fresh-item rounds per variant")
    parser.add_argument("--workers", type=int, default=2, help="workers of the started service")
    args = parser.parse_args()
    if args.url:
        report = asyncio.run(measure(args.url, args.rounds, args.cold_rounds))
    else:
        with LocalServer("--workers", str(args.workers), "--log-level", "warning") as server:
            report = asyncio.run(measure(server.url, args.rounds, args.cold_rounds))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
