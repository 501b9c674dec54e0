"""OpenRLHF: its remote reward request byte for byte, and its local reward_func file mode."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import torch

from rlvr_contract.openrlhf import response_of
from tests.client_proxy import ScriptedProxy

# How OpenRLHF builds a query: the chat-templated prompt and the response decoded together,
# special tokens kept (skip_special_tokens=False).
PROMPT = "<|im_start|>user\nCompute 4, and put it in \\boxed{}.<|im_end|>\n<|im_start|>assistant\n"
CODE_LABEL = json.dumps({"kind": "code", "language": "python", "tests": {
    "type": "stdio", "cases": [{"input": "3\n", "output": "9\n"}]}})
SAMPLES = [  # (response, label, reward)
    ("So it is \\boxed{4}.", "4", 1.0),
    ("So it is \\boxed{5}.", "4", 0.0),
    ("I am not sure.", "4", 0.0),  # the 4 in the prompt must not count
    ("```python\nn = int(input())\nprint(n * n)\n```", CODE_LABEL, 1.0),
]


def query(response: str) -> str:
    return PROMPT + response + "<|im_end|>"


def openrlhf_body(queries: list[str], prompts: list[str], labels: list[str]) -> bytes:
    """What OpenRLHF's remote reward client posts: aiohttp's `json=` (json.dumps defaults)."""
    return json.dumps({"query": queries, "prompts": prompts, "labels": labels}).encode()


@pytest.fixture
def proxy(verifier_url: str) -> Iterator[ScriptedProxy]:
    with ScriptedProxy(verifier_url) as running:
        yield running


def test_remote_endpoint_answers_openrlhf_bytes(verifier_url: str) -> None:
    body = openrlhf_body([query(r) for r, _, _ in SAMPLES], [PROMPT] * len(SAMPLES),
                         [label for _, label, _ in SAMPLES])
    response = httpx.post(verifier_url + "/openrlhf/get_reward", content=body,
                          headers={"Content-Type": "application/json"}, timeout=120)
    response.raise_for_status()
    answer = response.json()
    expected = [reward for _, _, reward in SAMPLES]
    assert answer["rewards"] == expected and answer["scores"] == expected
    # OpenRLHF keeps a response's value as is and wraps it: torch.tensor([reward_val]).
    assert torch.tensor([answer["rewards"]]).shape == (1, len(SAMPLES))


def test_aiohttp_sends_exactly_those_bytes(proxy: ScriptedProxy) -> None:
    """OpenRLHF posts with aiohttp (`session.post(url, json=payload)`): same bytes, same type."""
    aiohttp = pytest.importorskip("aiohttp")
    response, label, reward = SAMPLES[0]
    payload = {"query": [query(response)], "prompts": [PROMPT], "labels": [label]}

    async def post() -> Any:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=180)) as session, \
                session.post(proxy.url + "/openrlhf/get_reward", json=payload) as answer:
            answer.raise_for_status()
            return await answer.json()

    answer = asyncio.run(post())
    [seen] = proxy.script.seen
    assert seen.raw == openrlhf_body(*payload.values())
    assert seen.headers["content-type"] == "application/json"
    assert answer["rewards"] == [reward] and answer["scores"] == [reward]


def load_like_openrlhf() -> Any:
    """Import the file the way OpenRLHF does: by path, as a module named `reward_func`."""
    path = subprocess.run([sys.executable, "-m", "rl_client.integrations.openrlhf"],
                          capture_output=True, text=True, check=True).stdout.strip()
    spec = importlib.util.spec_from_file_location("reward_func", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.reward_func


def test_local_file_mode(proxy: ScriptedProxy, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERIFIER_URL", proxy.url)
    reward_func = load_like_openrlhf()

    async def fetch() -> list[dict[str, Any]]:  # one sample per call, in threads, as OpenRLHF
        return await asyncio.gather(*(asyncio.to_thread(reward_func, [query(r)], [PROMPT], [lab])
                                      for r, lab, _ in SAMPLES))

    infos = asyncio.run(fetch())
    for info, (_, _, reward) in zip(infos, SAMPLES, strict=True):
        assert torch.tensor([info["rewards"]]).flatten().tolist() == [reward]
        assert info["scores"].tolist() == [reward]
        logs = {k: v.flatten()[0].item() for k, v in info["extra_logs"].items()}
        assert logs == {"verifier_correct": reward, "verifier_infra_error": 0.0}
    assert len(proxy.script.requests_to("/v1/verify")) == len(SAMPLES)


def test_local_file_mode_infra_error(proxy: ScriptedProxy,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERIFIER_URL", proxy.url)
    monkeypatch.setenv("VERIFIER_INFRA_ERROR_SCORE", "-1")
    proxy.script.infra_error_at = {1}
    reward_func = load_like_openrlhf()
    info = reward_func([query(r) for r, _, _ in SAMPLES[:2]], [PROMPT] * 2, ["4", "4"])
    assert info["rewards"].tolist() == [1.0, -1.0]
    assert info["extra_logs"]["verifier_infra_error"].tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="labels"):
        reward_func([query("x")], [PROMPT], [])


def test_response_is_found_after_the_prompt() -> None:
    assert response_of("<s>" + PROMPT + "answer", PROMPT) == "answer"
    assert response_of("no prompt here", PROMPT) == "no prompt here"
    assert response_of("whole", "") == "whole"


def test_the_service_reads_labels_as_the_file_mode_does(proxy: ScriptedProxy,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """One reading of OpenRLHF's samples for /openrlhf/get_reward and reward_func: open-instruct
    rows in a label are routed by both (the service read them as math answers), and the same
    mistakes are refused naming the sample."""
    routed = json.dumps({"dataset": "gsm8k", "ground_truth": "4"})
    samples = [*SAMPLES, ("So it is \\boxed{4}.", routed, 1.0), ("\\boxed{3}", routed, 0.0)]
    queries, labels = [query(r) for r, _, _ in samples], [label for _, label, _ in samples]
    answer = httpx.post(proxy.url + "/openrlhf/get_reward", timeout=120, json={
        "query": queries, "prompts": [PROMPT] * len(samples), "labels": labels}).json()
    monkeypatch.setenv("VERIFIER_URL", proxy.url)
    info = load_like_openrlhf()(queries, [PROMPT] * len(samples), labels)
    assert answer["rewards"] == info["rewards"].tolist() == [reward for *_, reward in samples]
    assert answer["extra_logs"]["correct"] == info["extra_logs"]["verifier_correct"].tolist()

    bad = '{"kind": "code", "tests": {"type": "call", "fn_name": "f", "cases": [NaN]}}'
    refused = httpx.post(proxy.url + "/openrlhf/get_reward", timeout=60, json={
        "query": ["a", "b"], "labels": ["1", bad]})
    assert refused.status_code == 422 and "labels.1: " in refused.text, refused.text
    with pytest.raises(ValueError, match="sample 1: .*NaN"):
        load_like_openrlhf()(["a", "b"], ["", ""], ["1", bad])


def test_a_bad_infra_error_score_is_an_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERIFIER_INFRA_ERROR_SCORE", "none")
    with pytest.raises(ValueError, match="VERIFIER_INFRA_ERROR_SCORE='none'"):
        load_like_openrlhf()([query("x")], [PROMPT], ["4"])
