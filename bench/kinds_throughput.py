"""Distinct items per second for every item kind, through one embedded service.

A real `verifier serve --workers N` on loopback scores the same number of distinct items of
each kind (GRPO-like: groups of varied completions; nothing repeats, so the cache never
answers), batch by batch, as a trainer would post them. Math runs in the same service and the
same run, so `vs_math` is a ratio robust to how loaded this shared machine is.

    python bench/kinds_throughput.py [--items 400] [--workers 2] [--batch 100]

Prints one JSON object: items/s per kind, each kind's ratio to math, and the composite's
ratio to the slowest of its parts alone.
"""

from __future__ import annotations

import argparse
import json
import random
import time

import httpx

from verifier.config import Settings
from verifier.local import LocalServer

# The kinds of the composite's graders (see `items`): its rate is compared with its slowest's.
COMPOSITE_PARTS = ("math", "format", "length")
WORDS = ["sea", "salt", "wave", "tide", "moon", "ship", "harbor", "storm", "calm", "wind",
         "sail", "north"]


def response(rng: random.Random, n: int) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 80)))
    return f"<think>draft {n}</think>{words.capitalize()}. Item {n}, the answer is \\boxed{{{n}}}."


def items(kind: str, count: int, rng: random.Random) -> list[dict]:
    made = []
    dataset_seed = rng.randrange(1 << 30)  # one reasoning-gym dataset per call, never repeated
    for n in range(count):
        text = response(rng, n)
        if kind == "math":
            made.append({"kind": "math", "response": text, "answer": str(n + rng.randint(0, 1))})
        elif kind == "instructions":
            made.append({"kind": "instructions", "response": text, "scoring": "fraction",
                         "instruction_id_list": ["punctuation:no_comma", "keywords:existence",
                                                 "length_constraints:number_words",
                                                 "language:response_language"],
                         "kwargs": [{}, {"keywords": [rng.choice(WORDS)]},
                                    {"num_words": 40, "relation": "at least"},
                                    {"language": "en"}]})
        elif kind == "text":
            made.append({"kind": "text", "response": text, "extract": "boxed",
                         "match": rng.choice(["normalized", "f1", "regex"]),
                         "answer": str(n) if n % 3 else r"\d+"})
        elif kind == "reasoning_gym":
            made.append({"kind": "reasoning_gym", "response": f"<answer>{n}</answer>",
                         "task": "basic_arithmetic", "config": {"size": count},
                         "seed": dataset_seed, "index": n})
        elif kind == "format":
            made.append({"kind": "format", "response": text})
        elif kind == "length":
            made.append({"kind": "length", "response": text, "target": 50})
        else:
            made.append({"kind": "composite", "response": text, "graders": [
                {"weight": 0.8, "grader": {"kind": "math", "answer": str(n)}},
                {"weight": 0.1, "grader": {"kind": "format"}},
                {"weight": 0.1, "grader": {"kind": "length", "target": 50}}]})
    return made


def rate(client: httpx.Client, url: str, batch: list[dict], size: int) -> float:
    started = time.perf_counter()
    for at in range(0, len(batch), size):
        response = client.post(f"{url}/v1/verify", json={"items": batch[at:at + size]})
        response.raise_for_status()
    return len(batch) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=400, help="distinct items per kind")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(0)
    kinds = ["math", "instructions", "text", "reasoning_gym", "format", "length", "composite"]
    with LocalServer("--workers", str(args.workers)) as service, \
            httpx.Client(timeout=600) as client:
        warm_up = random.Random(1)
        for kind in kinds:  # warm every worker's checkers (imports, helpers) first: a chunk
            rate(client, service.url,  # per worker, so no worker imports a kind's code later
                 items(kind, args.workers * Settings().math_chunk_size, warm_up), args.batch)
        per_second = {kind: rate(client, service.url, items(kind, args.items, rng), args.batch)
                      for kind in kinds}
    print(json.dumps({
        "items_per_kind": args.items, "workers": args.workers,
        "items_per_s": {k: round(v, 1) for k, v in per_second.items()},
        "vs_math": {k: round(v / per_second["math"], 2) for k, v in per_second.items()},
        # goal: at least 0.8 (a composite costs about what its slowest part costs alone)
        "composite_vs_slowest_part": round(
            per_second["composite"] / min(per_second[k] for k in COMPOSITE_PARTS), 2),
    }, indent=2))


if __name__ == "__main__":
    main()
