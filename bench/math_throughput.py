"""Distinct math items per second: the verifier service vs math-verify in one process.

The baseline is what a TRL reward function does per completion: `parse` the reference,
`parse` the completion, `verify`, in the trainer's own process. The service is a real
`verifier serve --workers N` (embedded mode) on loopback, fed over HTTP by this script in
batches, as a trainer would. Both see the same few thousand generated items (GRPO-like groups
of completions per problem, some wrong, some without an answer), in one run, so the ratio is
robust to how loaded this shared machine is. Nothing is downloaded.

    python bench/math_throughput.py [--items 3000] [--workers 2] [--batch 128] [--concurrency 4]

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import httpx

from verifier.local import LocalServer

GROUP_SIZE = 8  # completions per problem, as in GRPO
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


# --------------------------------------------------------------------------- items


def _answer_kinds(rng: random.Random) -> tuple[str, list[str], list[str]]:
    """A reference answer, equivalent forms a model may write, and wrong answers."""
    kind = rng.choice(["int", "int", "neg", "frac", "frac", "sqrt", "pi", "decimal", "percent",
                       "interval", "tuple", "poly", "text", "set", "big"])
    a, b = rng.randint(2, 97), rng.randint(2, 97)
    if kind == "int":
        return str(a * b), [str(a * b)], [str(a * b + rng.choice([-2, -1, 1, 3])), str(a + b)]
    if kind == "neg":
        return f"-{a}", [f"-{a}", f"{-a}"], [str(a), f"-{a + 1}"]
    if kind == "frac":
        value = Fraction(a, b)
        if value.denominator == 1:
            value += Fraction(1, 3)
        num, den = value.numerator, value.denominator
        return (rf"\dfrac{{{num}}}{{{den}}}",
                [rf"\frac{{{num}}}{{{den}}}", rf"\dfrac{{{num}}}{{{den}}}", f"{num}/{den}"],
                [rf"\frac{{{den}}}{{{num}}}", rf"\frac{{{num + 1}}}{{{den}}}"])
    if kind == "sqrt":
        square_free = rng.choice([2, 3, 5, 6, 7, 10, 11])
        return (rf"{a}\sqrt{{{square_free}}}",
                [rf"{a}\sqrt{{{square_free}}}", rf"\sqrt{{{a * a * square_free}}}"],
                [rf"{a}\sqrt{{{square_free + 1}}}", rf"{a + 1}\sqrt{{{square_free}}}"])
    if kind == "pi":
        return (rf"\frac{{{a}\pi}}{{{b}}}",
                [rf"\frac{{{a}\pi}}{{{b}}}", rf"\frac{{{a}}}{{{b}}}\pi"],
                [rf"\frac{{{a}\pi}}{{{b + 1}}}", rf"{a}\pi"])
    if kind == "decimal":
        value = a + b / 100
        return (f"{value:.2f}", [f"{value:.2f}", f"{value:.2f}0"],
                [f"{value + 0.01:.2f}", f"{value:.1f}1"])
    if kind == "percent":
        return rf"{a}\%", [rf"{a}\%", f"{a}"], [rf"{a + 5}\%", rf"{100 - a}\%"]
    if kind == "interval":
        lo, hi = sorted((a - 50, b))
        hi += 1
        return (f"[{lo}, {hi})", [f"[{lo},{hi})", rf"\left[{lo}, {hi}\right)"],
                [f"({lo}, {hi})", f"[{lo}, {hi}]"])
    if kind == "tuple":
        return f"({a}, {-b})", [f"({a},{-b})", f"({a}, {-b})"], [f"({-b}, {a})", f"({a}, {b})"]
    if kind == "poly":
        return (f"x^2 + {a + b}x + {a * b}", [f"(x+{a})(x+{b})", f"x^2+{a + b}x+{a * b}"],
                [f"(x+{a})(x-{b})", f"x^2+{a * b}x+{a + b}"])
    if kind == "text":
        day = rng.randrange(7)
        return (rf"\text{{{DAYS[day]}}}", [rf"\text{{{DAYS[day]}}}", DAYS[day]],
                [rf"\text{{{DAYS[(day + 1) % 7]}}}"])
    if kind == "set":
        return (rf"\{{{a}, {b + 100}\}}", [rf"\{{{b + 100}, {a}\}}", rf"\{{{a},{b + 100}\}}"],
                [rf"\{{{a}\}}", rf"\{{{a}, {b}\}}"])
    value = a * 10**6 + b
    return (str(value), [f"{value:,}", str(value)], [str(value + 1000)])


def _reasoning(rng: random.Random) -> str:
    steps = []
    for _ in range(rng.randint(3, 8)):
        x, y, z = rng.randint(2, 99), rng.randint(2, 99), rng.randint(2, 9)
        steps.append(rng.choice([
            f"First, note that ${x} + {y} = {x + y}$, so the sum is {x + y}.",
            rf"Substituting gives $\frac{{{x}}}{{{y}}} \cdot {z} = \frac{{{x * z}}}{{{y}}}$.",
            rf"We square both sides: \[ (a + {x})^2 = a^2 + {2 * x}a + {x * x}. \]",
            f"Since {x} is less than {y + 100}, the inequality holds for every $n \\ge {z}$.",
            rf"By the Pythagorean theorem, $c = \sqrt{{{x}^2 + {y}^2}}$.",
            f"Let me double-check: {x} times {z} is {x * z}, which matches the earlier step.",
            rf"Factoring, $x^2 - {x + y}x + {x * y} = (x - {x})(x - {y})$.",
        ]))
    return "Let's think step by step.\n\n" + "\n\n".join(steps)


def make_items(n_items: int, seed: int) -> list[dict]:
    """Distinct, realistic math items: groups of completions sharing one reference answer."""
    rng = random.Random(seed)
    items: list[dict] = []
    problem = 0
    while len(items) < n_items:
        gold, right, wrong = _answer_kinds(rng)
        problem += 1
        for sample in range(GROUP_SIZE):
            answer = rng.choice(right) if rng.random() < 0.55 else rng.choice(wrong)
            ending = rng.random()
            if ending < 0.8:
                tail = rf"Therefore, the answer is $\boxed{{{answer}}}$."
            elif ending < 0.9:
                tail = f"The final answer is ${answer}$. I hope it is correct."
            elif ending < 0.95:
                tail = f"**Answer:** ${answer}$"
            else:
                tail = "This is getting long; let me reconsider the second case"  # truncated
            response = f"(attempt {seed}-{problem}-{sample})\n{_reasoning(rng)}\n\n{tail}"
            items.append({"kind": "math", "id": f"{seed}-{problem}-{sample}",
                          "response": response, "answer": gold})
    return items[:n_items]


# --------------------------------------------------------------------------- baseline


def run_baseline(items: list[dict]) -> tuple[float, list[bool]]:
    """math-verify in this process, per completion, as a TRL reward function calls it."""
    from math_verify import parse, verify

    verdicts = []
    started = time.perf_counter()
    for item in items:
        gold = parse(f"${item['answer']}$")
        prediction = parse(item["response"])
        verdicts.append(bool(verify(gold, prediction)))
    return time.perf_counter() - started, verdicts


def run_checker_in_process(items: list[dict]) -> float:
    """The service's checker called directly in this one process: separates how much of the
    speed-up is the checker itself from how much is the worker pool."""
    from rlvr_contract.schemas import MathItem
    from verifier.kinds.math import check_math

    parsed = [MathItem(**item) for item in items]
    started = time.perf_counter()
    for item in parsed:
        check_math(item)
    return time.perf_counter() - started


# --------------------------------------------------------------------------- service


def run_service(url: str, items: list[dict], batch: int, concurrency: int
                ) -> tuple[float, list[dict]]:
    """POST the items in batches, `concurrency` requests in flight, as a trainer would."""
    batches = [items[i:i + batch] for i in range(0, len(items), batch)]
    with httpx.Client(timeout=600) as client:
        def post(chunk: list[dict]) -> list[dict]:
            response = client.post(f"{url}/v1/verify", json={"items": chunk})
            response.raise_for_status()
            return response.json()["results"]

        started = time.perf_counter()
        with ThreadPoolExecutor(concurrency) as pool:
            results = [r for chunk_results in pool.map(post, batches) for r in chunk_results]
        return time.perf_counter() - started, results


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()

    items = make_items(args.items, args.seed)
    warm_items = make_items(256, args.seed + 1)  # distinct: the result cache must not help
    with LocalServer("--workers", str(args.workers)) as service:
        run_service(service.url, warm_items, args.batch, args.concurrency)
        run_baseline(warm_items)
        baseline_s, baseline_verdicts = run_baseline(items)
        service_s, results = run_service(service.url, items, args.batch, args.concurrency)
    run_checker_in_process(warm_items)
    checker_s = run_checker_in_process(items)

    cores = os.cpu_count() or 1
    baseline_rate = len(items) / baseline_s
    service_rate = len(items) / service_s
    service_correct = [r["status"] == "correct" for r in results]
    agreement = sum(a == b for a, b in zip(baseline_verdicts, service_correct, strict=True))
    print(json.dumps({
        "items": len(items),
        "cores": cores,
        "service_workers": args.workers,
        "batch": args.batch,
        "concurrency": args.concurrency,
        "baseline_items_per_s": round(baseline_rate, 1),
        "baseline_items_per_s_per_core": round(baseline_rate, 1),  # one process, one core
        "service_items_per_s": round(service_rate, 1),
        "service_items_per_s_per_core": round(service_rate / cores, 1),
        "speedup": round(service_rate / baseline_rate, 2),
        "checker_in_one_process_items_per_s": round(len(items) / checker_s, 1),
        "service_status_counts": dict(Counter(r["status"] for r in results)),
        "baseline_correct": sum(baseline_verdicts),
        "verdict_agreement": round(agreement / len(items), 4),
    }, indent=2))


if __name__ == "__main__":
    main()
