"""Memory: a worker's own (it does not grow with the outputs of an item's cases) and the runs'
(a run's memory verdict depends on that run alone).

Real jail, real toolchains; peaks come from the kernel (rusage, the jail's cgroup).
"""

from __future__ import annotations

import resource
import shutil
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import pytest

from verifier.code import run_code_items
from verifier.schemas import CodeItem

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


def _printer(cases: int, output_kib: int) -> CodeItem:
    code = f"import sys\nsys.stdout.write('x' * {output_kib * 1024})\n"
    return CodeItem(language="python", response=code, scoring="fraction",
                    tests={"type": "stdio", "cases": [{"output": "y"}] * cases})


def _peak_growth_kb(cases: int, output_kib: int) -> int:
    """In a fresh process: its peak RSS growth while one item's cases print big outputs."""
    run_code_items([_printer(1, output_kib)])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = run_code_items([_printer(cases, output_kib)])[0]
    assert result.detail["passed"] == 0 and len(result.detail["tests"]) == cases, result
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before


def test_a_worker_does_not_keep_every_cases_output():
    # 40 cases of 1 MiB each: holding them until the item ends would cost 40 MiB.
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        growth_kb = pool.submit(_peak_growth_kb, 40, 1024).result()
    assert growth_kb < 12 * 1024, growth_kb
