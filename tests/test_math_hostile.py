"""Hostile math items and the killable helper process.

Every hostile item must end (timeout, wrong or no_answer, reward 0) and leave the checker able to
score the next ordinary item correctly, in the same process. The helper must be replaced when
killed, die with its owner, respect its memory cap, and work where the service really calls it:
daemonic spawn pool workers and non-main threads.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from rlvr_contract.schemas import MathItem
from tests.procs import wait_until
from verifier.kinds.math import check_math
from verifier.kinds.math.isolation import GradingProcess, grading_process
from verifier.kinds.math.reference import answer_is_list, reference_answer

FAST_TIMEOUT_S = 0.5  # hostile items time out at this, to keep the suite short
ORDINARY = MathItem(response="Thus the answer is $\\boxed{\\frac{3}{4}}$.", answer="0.75")


def unchecked_item(response: str, answer: str = "3") -> MathItem:
    """An item past the schema's size caps, as a buggy or hostile sender could produce."""
    return MathItem.model_construct(kind="math", id="hostile", response=response, answer=answer)


def assert_ordinary_item_still_correct() -> None:
    result = check_math(ORDINARY)
    assert (result.status, result.reward) == ("correct", 1.0), result.detail


def test_power_tower_times_out_and_is_killed() -> None:
    check_math(ORDINARY)
    helper_before = grading_process().pid
    result = check_math(MathItem(response="\\boxed{5^{5^{5^{5^5}}}}", answer="3"))
    assert (result.status, result.reward) == ("timeout", 0.0)
    assert grading_process().pid is None  # killed, replaced on the next call
    assert_ordinary_item_still_correct()
    assert grading_process().pid not in (None, helper_before)


HOSTILE_BOXES = {
    "factorial_of_huge": "(10^{10})!",
    "huge_factorial": "100000000!",
    "huge_power": "10^{10^{10}}",
    "tetration": "2^{2^{2^{2^{2^2}}}}",
    "huge_binomial": "\\binom{10^{10}}{10^5}",
    "huge_product": "\\prod_{k=1}^{10^9} k",
    "cancelling_giants": "10^{10^{10}} - 10^{10^{10}}",
    "power_chain": "x^" * 300 + "2",
    "unary_minus_chain": "-" * 999 + "1",
    "deep_braces": "{" * 5000 + "1" + "}" * 5000,
    "deep_fractions": "\\frac{1}{" * 200 + "2" + "}" * 200,
    "deep_parentheses": "(" * 900 + "1" + ")" * 900,
    "deep_roots": "\\sqrt{" * 30 + "2" + "}" * 30,
    "long_answer": "1+" * 5000 + "1",
    "division_by_zero": "\\frac{1}{0}",
    "indeterminate": "\\frac{0}{0}",
    "infinities": "\\infty - \\infty",
    "unit_words": "1" + " meters" * 120,
    "text_groups": "\\text{a}" * 120,
    "plus_minus_items": ", ".join(["1 \\pm 2"] * 150),
    "digit_groups": "1" + ",\\!000" * 140,
    # the readings added for other people's material: set-builder conditions solved with
    # sympy, plain-text math rewritten, independent \\pm signs expanded
    "set_builder_tower": "\\{x \\mid x^{x^{x^{x^{x}}}} > 10^{10^{10}}\\}",
    "set_builder_groups": " \\cup ".join(["\\{x \\mid \\sin(x) > 0\\}"] * 40),
    "plain_text_tower": "2^(2^(2^(2^(2^(2^2)))))",
    "plain_text_roots": "sqrt(" * 200 + "2" + ")" * 200,
    "independent_signs": ", ".join(["\\pm 1 \\pm 2 \\pm 3"] * 60),
    # answers that made the grader itself fail (infra_error) before
    "repeating_decimal_digits": "0.\\overline{" + "3" * 5000 + "}",
    "set_builder_with_domain": "\\{x \\mid x > 5, x \\in \\mathbb{R}\\}",
    "degree_minutes": "60^\\circ " + "42' " * 300,
}


@pytest.mark.parametrize("box", HOSTILE_BOXES.values(), ids=HOSTILE_BOXES)
def test_hostile_answer_ends_with_zero_reward(box: str) -> None:
    result = check_math(unchecked_item(f"\\boxed{{{box}}}"), timeout_s=FAST_TIMEOUT_S)
    # no_answer: a box too long to be an answer counts as never closed
    assert result.status in ("timeout", "wrong", "no_answer"), result.detail
    assert result.reward == 0.0
    assert_ordinary_item_still_correct()


HOSTILE_COMPLETIONS = {
    "megabyte_of_digits": "1" * 1_000_000,
    "megabyte_of_boxes": "\\boxed{9}" * 120_000,
    "megabyte_then_box": "x" * 1_000_000 + "\\boxed{7}",
    "unbalanced_box": "so \\boxed{\\frac{1}{2}",
    "unbalanced_megabyte": "\\boxed{" + "{" * 1_000_000,
    "nested_unclosed_boxes": "\\boxed{" * 150_000,
    "huge_answer_phrase": "The final answer is " + "9" * 100_000,
    "answer_then_whitespace": ("answer" + " " * 2_000 + "**" + " " * 2_000) * 50,
    "unclosed_math_delimiters": "answer: " + "\\(" * 100_000,
    "megabyte_of_dollars": "$" * 1_000_000,
    "listed_math_environments": "$1$ and " * 100_000,
    "statement_of_math": "The answer is " + "$x$ " * 50_000,
    "closed_thinking_blocks": "<think>" + "</think>" * 100_000,
    "spaced_digit_groups": "1" + " 000" * 200_000,
}


@pytest.mark.parametrize("completion", HOSTILE_COMPLETIONS.values(), ids=HOSTILE_COMPLETIONS)
def test_hostile_completion_ends_with_zero_reward(completion: str) -> None:
    result = check_math(unchecked_item(completion), timeout_s=FAST_TIMEOUT_S)
    assert result.status in ("timeout", "wrong", "no_answer"), result.detail
    assert result.reward == 0.0
    assert len(result.detail.get("extracted", "")) <= 200
    assert_ordinary_item_still_correct()


CODE_INJECTIONS = [
    "__import__('os').system('touch {marker}')",
    "eval(\"__import__('os').system('touch {marker}')\")",
    "exec(\"import os; os.system('touch {marker}')\")",
    "\\text{__import__('os').system('touch {marker}')}",
    "().__class__.__bases__[0].__subclasses__()",
    "lambda: __import__('subprocess').run(['touch', '{marker}'])",
    "open('{marker}', 'w').write('x')",
]


@pytest.mark.parametrize("payload", CODE_INJECTIONS)
def test_code_in_answers_is_never_run(payload: str, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    code = payload.replace("{marker}", str(marker))
    # A reference no number in the marker's path (pytest-0/..._0) can stand for.
    reference = "\\pi\\sqrt{2}"
    for item in (MathItem(response=f"\\boxed{{{code}}}", answer=reference),
                 MathItem(response=f"The final answer is {code}", answer=reference),
                 MathItem(response=f"Answer: ${code}$", answer=reference)):
        result = check_math(item, timeout_s=FAST_TIMEOUT_S)
        assert result.status in ("wrong", "no_answer", "timeout"), result.detail
    reference_result = check_math(MathItem(response=f"\\boxed{{{reference}}}", answer=code),
                                  timeout_s=FAST_TIMEOUT_S)
    assert reference_result.status != "correct"
    assert not marker.exists()
    assert_ordinary_item_still_correct()


def test_reference_that_cannot_be_parsed_in_time_is_an_infra_error() -> None:
    slow_reference = "-" * 999 + "1"
    first = check_math(MathItem(response="\\boxed{1}", answer=slow_reference),
                       timeout_s=FAST_TIMEOUT_S)
    assert (first.status, first.reward) == ("infra_error", None)
    assert "reference" in first.detail["reason"]
    check_math(ORDINARY)
    helper = grading_process().pid
    again = check_math(MathItem(response="\\boxed{2}", answer=slow_reference),
                       timeout_s=FAST_TIMEOUT_S)
    assert again.status == "infra_error"
    assert grading_process().pid == helper  # remembered: no second kill
    assert_ordinary_item_still_correct()


def test_helper_killed_from_outside_is_replaced() -> None:
    assert_ordinary_item_still_correct()
    victim = grading_process().pid
    assert victim is not None
    os.kill(victim, signal.SIGKILL)
    assert_ordinary_item_still_correct()
    assert grading_process().pid != victim
    with pytest.raises(ChildProcessError):  # reaped by the checker, no zombie left
        os.waitpid(victim, os.WNOHANG)


def test_helper_address_space_is_capped() -> None:
    process = GradingProcess(memory_mb=64)
    try:
        assert process.grade("3", "3", timeout_s=30)[0] == "correct"  # the helper is set up
        limits = Path(f"/proc/{process.pid}/limits").read_text()
        address_space = next(line for line in limits.splitlines()
                             if line.startswith("Max address space"))
        soft_limit = address_space.split()[3]
        assert soft_limit != "unlimited"
        # A 2^(2^33) integer needs a gigabyte: refused, not computed, not a crash of ours.
        verdict = process.grade("2^{2^{33}}", "3", timeout_s=30)
        assert verdict[0] == "wrong"
        assert process.grade("3", "3", timeout_s=30)[0] == "correct"
    finally:
        process.stop()


HELPER_OWNER_SCRIPT = """
import sys, time
from verifier.kinds.math import check_math
from verifier.kinds.math.isolation import grading_process
from rlvr_contract.schemas import MathItem
assert check_math(MathItem(response="\\\\boxed{2}", answer="2")).status == "correct"
print(grading_process().pid, flush=True)
if sys.argv[1] == "hang":
    time.sleep(600)
"""


def helper_is_gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state == "Z"


@pytest.mark.parametrize("owner_ending", ["killed", "exits"])
def test_helper_dies_with_its_owner(owner_ending: str) -> None:
    owner = subprocess.Popen([sys.executable, "-c", HELPER_OWNER_SCRIPT,
                              "hang" if owner_ending == "killed" else "exit"],
                             stdout=subprocess.PIPE, text=True,
                             cwd=Path(__file__).resolve().parents[1])
    try:
        helper_pid = int(owner.stdout.readline())
        assert not helper_is_gone(helper_pid)
        if owner_ending == "killed":
            owner.kill()
        owner.wait(60)
        wait_until(lambda: helper_is_gone(helper_pid), 20, "the orphaned helper to die")
    finally:
        owner.kill()
        owner.wait()


def score_in_pool_worker(items: list[dict]) -> tuple[bool, list[str]]:
    """Runs in a pool worker, as the embedded service and Celery's prefork pool do."""
    return multiprocessing.current_process().daemon, [
        check_math(MathItem(**item), timeout_s=FAST_TIMEOUT_S).status.value for item in items]


POOL_ITEMS = [ORDINARY.model_dump(),
              {"response": "\\boxed{5^{5^{5^{5^5}}}}", "answer": "3"},
              {"response": "\\boxed{1011_3}", "answer": "1011_2"},
              ORDINARY.model_dump()]
POOL_STATUSES = ["correct", "timeout", "wrong", "correct"]


def test_works_in_a_spawn_process_pool_executor_worker() -> None:
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        _, statuses = pool.submit(score_in_pool_worker, POOL_ITEMS).result(timeout=120)
    assert statuses == POOL_STATUSES


def test_works_in_a_daemonic_pool_worker() -> None:
    """Daemonic workers (multiprocessing.Pool, Celery's billiard) may not start
    multiprocessing children; the helper is forked directly, so it works there too."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        daemonic, statuses = pool.apply(score_in_pool_worker, (POOL_ITEMS,))
    assert daemonic
    assert statuses == POOL_STATUSES


def test_works_from_a_thread_and_its_helper_goes_with_it() -> None:
    seen: dict[str, object] = {}

    def score() -> None:
        seen["hostile"] = check_math(MathItem(response="\\boxed{5^{5^{5^{5^5}}}}", answer="3"),
                                     timeout_s=FAST_TIMEOUT_S).status
        seen["ordinary"] = check_math(ORDINARY).status
        seen["helper"] = grading_process().pid

    thread = threading.Thread(target=score)
    thread.start()
    thread.join()
    assert (seen["hostile"], seen["ordinary"]) == ("timeout", "correct")
    assert seen["helper"] != grading_process().pid
    gc.collect()
    wait_until(lambda: helper_is_gone(seen["helper"]), 20, "the thread's helper to go")


def test_forked_process_does_not_use_its_parents_helper() -> None:
    assert_ordinary_item_still_correct()
    parent_helper = grading_process().pid
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked child
        status = 1
        try:
            result = check_math(ORDINARY)
            own_helper = grading_process().pid
            ok = result.status == "correct" and own_helper not in (None, parent_helper)
            os.write(write_end, b"ok" if ok else b"bad")
            grading_process().stop()
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        answer = reader.read()
    os.waitpid(child, 0)
    assert answer == b"ok"
    assert grading_process().pid == parent_helper
    assert_ordinary_item_still_correct()


def test_hostile_items_through_the_service_hold_no_worker(verifier_url: str) -> None:
    """Over real HTTP and the embedded pool: hostile items end as timeouts and every ordinary
    item in the same batches is still scored."""
    import httpx

    tower = {"kind": "math", "response": "\\boxed{5^{5^{5^{5^5}}}}", "answer": "3"}
    ordinary = [{"kind": "math", "id": str(n), "response": f"so \\boxed{{{n}/7}}",
                 "answer": f"\\dfrac{{{n}}}{{7}}"} for n in range(1, 13)]
    batch = [tower, *ordinary[:6], dict(tower, answer="4"), *ordinary[6:]]
    response = httpx.post(f"{verifier_url}/v1/verify", json={"items": batch}, timeout=120)
    assert response.status_code == 200
    statuses = [r["status"] for r in response.json()["results"]]
    assert statuses == ["timeout"] + ["correct"] * 6 + ["timeout"] + ["correct"] * 6


READ_IN_THE_CALLER = {
    "spaces": "1" + " " * 9_000 + "x",
    "tabs_and_spaces": "\\frac{1}{2}" + " \t" * 4_500,
    "after_a_caret": "2^" + " " * 9_000,
    "in_a_text_group": "5\\text{a" + " " * 9_000,
    "slashes": "5" + " /" * 4_500 + "x",
    "between_math": "$1$" + " " * 9_000 + "$2$",
    "before_a_comma": "1" + " " * 9_000 + ", and 2",
    "deep_brace_groups": "{" * 4_999 + "1" + "}" * 4_999,
}


@pytest.mark.timeout(15)
@pytest.mark.parametrize("text", READ_IN_THE_CALLER.values(), ids=READ_IN_THE_CALLER)
def test_what_the_caller_reads_is_read_in_linear_time(text: str) -> None:
    """References are read in the calling process, where no deadline holds: the same text as a
    reference and as a completion must be scored promptly (no regex backtracking over runs of
    whitespace, no scan per layer of braces)."""
    for item in (unchecked_item("\\boxed{1}", answer=text), unchecked_item(text, answer="1")):
        result = check_math(item, timeout_s=FAST_TIMEOUT_S)
        assert result.status in ("correct", "wrong", "no_answer", "timeout", "infra_error")
    assert_ordinary_item_still_correct()


# A reference longer than a request allows, as `reference_answer` and `answer_is_list` read it
# in the calling process: a run of whitespace or commas after a command is scanned once, not
# once per character of the run.
LONG_RUNS = {
    "spaces_then_a_letter": "1" + " " * 200_000 + "x",
    "spaces_after_mathbb": "\\mathbb" + " " * 200_000 + "x",
    "spaces_in_a_text_group": "\\text{and" + " " * 200_000 + "x",
    "commas_before_forall": "x" + "," * 200_000 + "\\forall",
}


@pytest.mark.timeout(15)
@pytest.mark.parametrize("text", LONG_RUNS.values(), ids=LONG_RUNS)
def test_long_runs_in_a_reference_are_read_once(text: str) -> None:
    assert not answer_is_list(reference_answer(text))
