"""Drop-in proof: real clients written for SandboxFusion, pointed at this service.

- SandboxFusion's own client package (`sandbox-fusion` on PyPI), sync and async: /run_code with
  its models and its summary of results, /run_jupyter.
- verl's real `sandbox_fusion` reward path (`verl.utils.reward_score`), loaded by verl's own
  reward manager from docs/code-as-a-tool.md's config lines, in verl's tool venv (VERL_PYTHON; see
  tests/test_integrations_verl.py): its scores equal this service's own /v1/verify code items
  on the same programs and cases.

This file is also the script verl's Python runs: `python tests/test_integrations_sandbox_fusion.py
<check> <url>` prints a JSON line.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.procs import run_with_verl

REPO = Path(__file__).resolve().parents[1]
VERL_SCORE = "import verl.utils.reward_score.sandbox_fusion, verl.trainer.ppo.reward"

SQUARE = "```python\nn = int(input())\nprint(n * n)\n```"
# Samples as a policy writes them, with the tests verl's code datasets carry (APPS-style
# inputs/outputs; `fn_name` for call-based problems), and how many cases each passes.
SAMPLES: list[tuple[str, dict[str, Any]]] = [
    (SQUARE, {"inputs": ["3\n", "5\n", "-2\n"], "outputs": ["9\n", "25\n", "4\n"]}),
    ("Here:\n```python\nn = int(input())\nprint(n * n if n > 0 else 0)\n```",
     {"inputs": ["3\n", "5\n", "-2\n"], "outputs": ["9\n", "25\n", "4\n"]}),
    ("```python\nraise SystemExit('no')\n```",
     {"inputs": ["1\n", "2\n"], "outputs": ["1\n", "4\n"]}),
    ("```python\nwhile True:\n    pass\n```", {"inputs": ["1\n"], "outputs": ["1\n"]}),
    ("```python\nprint(sum(map(int, input().split())))\n```",
     {"inputs": ["1 2\n", "10 20\n", "0 0\n", "5 5\n"], "outputs": ["3\n", "30\n", "0\n", "11\n"]}),
    ("```python\ndef add(a, b):\n    return a + b\n```",
     {"inputs": ["2\n3", "4\n5", "1\n1"], "outputs": ["5", "9", "3"], "fn_name": "add"}),  # 1+1!
]
CPP_SAMPLES = [
    ("#include <iostream>\nint main(){long n; std::cin >> n; std::cout << n * n << '\\n';}\n",
     {"inputs": ["3\n", "-4\n"], "outputs": ["9\n", "16\n"]}),
    ("#include <iostream>\nint main(){long n; std::cin >> n; std::cout << n + n << '\\n';}\n",
     {"inputs": ["2\n", "3\n"], "outputs": ["4\n", "9\n"]}),
    ("int main() { return undeclared; }\n", {"inputs": ["1\n"], "outputs": ["1\n"]}),
]


def verify_item(response: str, truth: dict[str, Any], language: str = "python") -> dict:
    """The same sample as this service's own code item, scored as a fraction of its cases."""
    if "fn_name" in truth:
        tests = {"type": "call", "fn_name": truth["fn_name"], "cases": [
            {"args": [json.loads(line) for line in given.split("\n")],
             "expected": json.loads(expected)}
            for given, expected in zip(truth["inputs"], truth["outputs"], strict=True)]}
    else:
        tests = {"type": "stdio", "cases": [
            {"input": given, "output": expected}
            for given, expected in zip(truth["inputs"], truth["outputs"], strict=True)]}
    return {"kind": "code", "language": language, "response": response, "tests": tests,
            "scoring": "fraction", "limits": {"time_s": 2, "memory_mb": 1024}}


def own_rewards(url: str, items: list[dict]) -> list[float]:
    reply = httpx.post(f"{url}/v1/verify", json={"items": items}, timeout=300)
    assert reply.status_code == 200, reply.text
    return [result["reward"] for result in reply.json()["results"]]


# --------------------------------------------------------------------- SandboxFusion's client
# `sandbox-fusion` (the dev extra) installs into the test environment: its pins clash with
# nothing there.

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


def test_sandbox_fusion_client_runs_and_summarises(verifier_url: str) -> None:
    from sandbox_fusion import RunCodeRequest, SummaryMapping, run_code, summary_run_code_result

    mapping = SummaryMapping(Success="ok", Failed="failed", CompileFailed="compile",
                             CompileTimeout="compile timeout", RunFailed="run failed",
                             RunTimeout="timeout")
    cases = [
        (RunCodeRequest(code="print(input() * 2)", stdin="ab", language="python"), "ok"),
        (RunCodeRequest(code="import sys; sys.exit(1)", language="python"), "run failed"),
        (RunCodeRequest(code="import time; time.sleep(20)", language="python", run_timeout=1),
         "timeout"),
        (RunCodeRequest(code="int main() { return x; }", language="cpp"), "compile"),
        (RunCodeRequest(code="#include <cstdio>\nint main(){puts(\"hi\");}", language="cpp"),
         "ok"),
        (RunCodeRequest(code="console.log(6 * 7)", language="nodejs"), "ok"),
        (RunCodeRequest(code="cat(6 * 7)", language="R"), "ok"),
    ]
    for request, expected in cases:
        result = run_code(request, endpoint=verifier_url, max_attempts=1)
        assert summary_run_code_result(result, mapping) == expected, (request, result)
    doubled = run_code(cases[0][0], endpoint=verifier_url)
    assert doubled.run_result.stdout == "abab\n" and doubled.status.value == "Success"


def test_sandbox_fusion_client_files_async_and_jupyter(verifier_url: str) -> None:
    from sandbox_fusion import (
        RunCodeRequest,
        RunJupyterRequest,
        run_code_async,
        run_jupyter,
    )

    request = RunCodeRequest(
        code="print(open('in/a.txt').read()); open('out.txt', 'w').write('written')",
        language="python", files={"in/a.txt": base64.b64encode(b"given").decode()},
        fetch_files=["out.txt"])
    result = asyncio.run(run_code_async(request, endpoint=verifier_url, max_attempts=1))
    assert result.run_result.stdout == "given\n"
    assert base64.b64decode(result.files["out.txt"]) == b"written"

    notebook = run_jupyter(RunJupyterRequest(cells=["a = 123", "a", "print(a)",
                                                    "raise RuntimeError('error message')"]),
                           endpoint=verifier_url, max_attempts=1)
    assert notebook.status.value == "Success"
    assert notebook.cells[1].display == [{"text/plain": "123"}]
    assert notebook.cells[2].stdout == "123\n"
    assert notebook.cells[3].error[0]["ename"] == "RuntimeError"


# ------------------------------------------------------------------------ verl's own reward
# verl pins its own dependencies, so it runs with VERL_PYTHON (see test_integrations_verl.py).


def documented_verl_config() -> str:
    """docs/code-as-a-tool.md's verl config lines for this service's /run_code (a YAML block)."""
    text = (REPO / "docs/code-as-a-tool.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    config = next(block for block in blocks if "sandbox_fusion" in block)
    assert "/run_code" in config
    return config


def run_in_verl(check: str, url: str) -> dict[str, Any]:
    return run_with_verl(__file__, check, url, VERL_SCORE)


def test_verl_reward_from_the_docs_config_equals_our_own_scores(verifier_url: str) -> None:
    """verl's reward manager, configured by docs/code-as-a-tool.md's lines, scores APPS-style
    samples through its sandbox_fusion path (one /run_code per case), as /v1/verify does them."""
    report = run_in_verl("reward_manager", verifier_url)
    assert report["url"].endswith("/run_code")
    expected = own_rewards(verifier_url, [verify_item(r, t) for r, t in SAMPLES])
    assert report["scores"] == expected, (report, expected)
    assert expected == [1.0, 2 / 3, 0.0, 0.0, 0.75, 2 / 3]  # the samples mean what they say


def test_verl_check_correctness_in_cpp_equals_our_own_scores(verifier_url: str) -> None:
    report = run_in_verl("check_correctness_cpp", verifier_url)
    expected = own_rewards(verifier_url, [verify_item(f"```cpp\n{code}```", truth, "cpp")
                                          for code, truth in CPP_SAMPLES])
    assert report["scores"] == expected == [1.0, 0.5, 0.0], (report, expected)
    assert report["compile_errors"] == [False, False, True]


# ------------------------------------------------------------ run with verl's Python (above)


def verl_reward_manager(url: str) -> dict[str, Any]:
    """verl's reward loop manager as verl loads it (`load_reward_manager`) from a config holding
    docs/code-as-a-tool.md's lines, the URL pointed at the test's server; each sample's reward."""
    import numpy as np
    import torch
    from omegaconf import OmegaConf
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast
    from verl import DataProto
    from verl.trainer.ppo.reward import load_reward_manager

    readme = OmegaConf.create(re.sub(r"http://[^/\s]+/run_code", f"{url}/run_code",
                                     documented_verl_config()))
    config = OmegaConf.merge({"reward": {"reward_manager": {"source": "register",
                                                            "name": "naive"},
                                         "reward_kwargs": {}}}, readme)
    # Each whole completion is one token, so a decoded response is the completion itself.
    vocab = ["<pad>", "<unk>", "prompt", *(response for response, _ in SAMPLES)]
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel(
        {word: i for i, word in enumerate(vocab)}, unk_token="<unk>")), pad_token="<pad>",
        unk_token="<unk>")
    n = len(SAMPLES)
    data = DataProto.from_dict(
        tensors={"prompts": torch.full((n, 1), 2),
                 "responses": torch.arange(3, 3 + n).reshape(n, 1),
                 "attention_mask": torch.ones((n, 2), dtype=torch.long)},
        non_tensors={"data_source": np.array(["apps"] * n, dtype=object),
                     "reward_model": np.array([{"ground_truth": json.dumps(truth)}
                                               for _, truth in SAMPLES], dtype=object),
                     "extra_info": np.array([{"index": i} for i in range(n)], dtype=object)})

    async def score() -> list[dict[str, Any]]:  # as verl's reward loop: all samples at once
        manager = load_reward_manager(config, tokenizer)  # it takes the running loop
        return await asyncio.gather(*(manager.run_single(data[i:i + 1]) for i in range(n)))

    return {"url": config.reward.sandbox_fusion.url,
            "scores": [out["reward_score"] for out in asyncio.run(score())]}


def verl_check_correctness_cpp(url: str) -> dict[str, Any]:
    from verl.utils.reward_score.sandbox_fusion.utils import check_correctness

    scores, compile_errors = [], []
    for code, truth in CPP_SAMPLES:
        results, _ = check_correctness(f"{url}/run_code", truth, code, timeout=10,
                                       language="cpp")
        scores.append(sum(result is True for result in results) / len(results))
        compile_errors.append(all(result == -4 for result in results))
    return {"scores": scores, "compile_errors": compile_errors}


VERL_CHECKS = {"reward_manager": verl_reward_manager,
               "check_correctness_cpp": verl_check_correctness_cpp}

if __name__ == "__main__":
    print(json.dumps(VERL_CHECKS[sys.argv[1]](sys.argv[2])))
