"""Worker memory while one item runs many cases with large outputs; prints JSON.

A fresh process (as a pool worker is) scores a small item first (its jail starts, its imports
load), then one item of `--cases` stdio cases whose program prints `--output-kib` KiB per case
and is judged `wrong` only at the end (`fraction` scoring, so every case runs). The figure is the
process's peak RSS growth over the small item's, measured in that same process: what holding
each case's output until the item ends would cost, against nothing.

Usage: python bench/worker_memory.py [--cases 1000] [--output-kib 512]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from rlvr_contract.schemas import CodeItem  # noqa: E402
from verifier.kinds.code import run_code_items  # noqa: E402


def _item(cases: int, output_kib: int) -> CodeItem:
    code = f"import sys\nsys.stdout.write('x' * {output_kib * 1024})\n"
    return CodeItem(language="python", response=code, scoring="fraction",
                    limits={"memory_mb": 256},
                    tests={"type": "stdio",
                           "cases": [{"input": "", "output": "y"} for _ in range(cases)]})


def _measure(cases: int, output_kib: int) -> dict:
    """In a fresh worker process: peak RSS (KiB) after a 1-case item and after the big one."""
    warm = run_code_items([_item(1, output_kib)])[0]
    warm_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = run_code_items([_item(cases, output_kib)])[0]
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    ran = len(result.detail.get("tests", []))
    return {"status": [warm.status.value, result.status.value], "cases_run": ran,
            "peak_rss_after_1_case_mib": round(warm_kb / 1024, 1),
            "peak_rss_after_item_mib": round(peak_kb / 1024, 1),
            "growth_mib": round((peak_kb - warm_kb) / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--output-kib", type=int, default=512)
    args = parser.parse_args()
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        report = pool.submit(_measure, args.cases, args.output_kib).result()
    report.update(cases=args.cases, output_kib_per_case=args.output_kib,
                  outputs_total_mib=round(args.cases * args.output_kib / 1024, 1))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
